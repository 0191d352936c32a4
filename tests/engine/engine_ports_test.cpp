// The engine decides by its settings alone; check_ports refuses, at assembly, a setting whose
// port is missing.

#include "engine/engine_ports.hpp"
#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::HasSubstr;

class EnginePortsTest : public EngineTest {};

TEST_F(EnginePortsTest, TheFixturesPortsMatchTheDefaultOptions) {
    EXPECT_TRUE(port_problems(ports, options).empty());
    EXPECT_NO_THROW(check_ports(ports, options, PortsFor::Executor));
}

TEST_F(EnginePortsTest, EverySettingWithoutItsPortIsNamedAtOnce) {
    options.director.registration_enabled = true;
    options.kyma.installer_setting = "installation-cr";
    const auto problems = port_problems(ports, options);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_THAT(problems[0], HasSubstr("APP_RUNTIME_(DE)REGISTRATION_ENABLED"));
    EXPECT_THAT(problems[1], HasSubstr("installation-cr"));
    try {
        EngineService service(ports, options);
        FAIL() << "assembled";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), HasSubstr("Director"));
        EXPECT_THAT(e.what(), HasSubstr("KPROV_KYMA_INSTALLER is installation-cr"));
    }
    EXPECT_THROW(Executor(ports, options), ConfigError);
}

TEST_F(EnginePortsTest, LifecycleManagerNeedsItsKcpClientUnlessNoKcpIsConfigured) {
    options.kyma.installer_setting = "lifecycle-manager";
    EXPECT_THROW(check_ports(ports, options, PortsFor::Service), ConfigError);
    options.kyma.kcp_missing = true; // a kymaConfig is then refused, nothing calls the KCP
    EXPECT_NO_THROW(check_ports(ports, options, PortsFor::Service));
    EXPECT_FALSE(options.kyma.installs());
    EXPECT_TRUE(options.kyma.lifecycle());
}

TEST_F(EnginePortsTest, TheExecutorNeedsTheRuntimeClustersAndTheServiceDoesNot) {
    ports.clusters = nullptr;
    EXPECT_NO_THROW(check_ports(ports, options, PortsFor::Service));
    EXPECT_THROW(check_ports(ports, options, PortsFor::Executor), std::invalid_argument);
}

} // namespace
} // namespace kprov::engine::test
