// shoot_drift: the live shoot against what kprov applied, field by field where kprov sets one.

#include "cli/drift.hpp"
#include "cli/runtime_file.hpp"
#include "engine/input/runtime_input.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kprov::cli {
namespace {

using nlohmann::ordered_json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class Drift : public ::testing::Test {
protected:
    void SetUp() override {
        const auto input =
            engine::parse_provision_input(read_runtime_file(KPROV_SOURCE_DIR "/examples/gcp.yaml"));
        m_runtime = engine::to_runtime(
            input, "2ae6642d-1111-4222-8333-944455556666", "ga-1", "", {},
            engine::ConversionOptions{"kyma-dev", false, false, true, false, {}});
        m_options.project = "kyma-dev";
        // The live shoot as Gardener keeps it: what kprov sent, then its own additions.
        m_live = ordered_json::parse(engine::build_shoot(m_runtime, "op-1", m_options).shoot);
        m_live["metadata"]["resourceVersion"] = "4711";
        m_live["metadata"]["uid"] = "0b1c";
        m_live["metadata"]["generation"] = 3;
        for (const char* key : {"kcp.provisioner.kyma-project.io/operation-id",
                                "compass.provisioner.kyma-project.io/operation-id"})
            m_live["metadata"]["annotations"][key] = "op-9"; // the last upgrade's
        m_live["spec"]["kubernetes"]["kubeProxy"] = {{"mode", "IPTables"}};
        m_live["spec"]["provider"]["workers"][0]["cri"] = {{"name", "containerd"}};
        m_live["spec"]["schedulerName"] = "default-scheduler";
        m_live["status"] = {{"lastOperation", {{"state", "Succeeded"}}}};
    }

    std::vector<std::string> drift() const {
        return shoot_drift(m_runtime, m_live.dump(), m_options);
    }

    engine::Runtime m_runtime;
    engine::ShootOptions m_options;
    ordered_json m_live;
};

TEST_F(Drift, WhatGardenerAddsOrOwnsIsNoDrift) {
    EXPECT_THAT(drift(), IsEmpty());
}

TEST_F(Drift, AnEditedFieldIsNamedWithBothValues) {
    const int applied = m_live["spec"]["provider"]["workers"][0]["maximum"];
    m_live["spec"]["provider"]["workers"][0]["maximum"] = applied + 5;
    EXPECT_THAT(drift(),
                ElementsAre("~ spec.provider.workers[0].maximum: " + std::to_string(applied) +
                            " -> " + std::to_string(applied + 5)));
}

TEST_F(Drift, ARemovedFieldAndASecondWorkerPoolAreDrift) {
    m_live["spec"]["provider"]["workers"][0].erase("maxSurge");
    ordered_json extra = m_live["spec"]["provider"]["workers"][0];
    extra["name"] = "extra";
    m_live["spec"]["provider"]["workers"].push_back(extra);
    const auto lines = drift();
    ASSERT_EQ(lines.size(), 2U) << ::testing::PrintToString(lines);
    EXPECT_EQ(lines[0].rfind("- spec.provider.workers[0].maxSurge: ", 0), 0U) << lines[0];
    EXPECT_EQ(lines[1].rfind("+ spec.provider.workers[1]: ", 0), 0U) << lines[1];
}

TEST_F(Drift, VersionsRaisedByGardenersAutoUpdateAreNoDriftButLoweredOnesAre) {
    m_live["spec"]["kubernetes"]["version"] = "9.99.1";
    m_live["spec"]["provider"]["workers"][0]["machine"]["image"]["version"] = "99999.1.0";
    EXPECT_THAT(drift(), IsEmpty());
    m_live["spec"]["kubernetes"]["version"] = "1.0.0";
    const auto lines = drift();
    ASSERT_EQ(lines.size(), 1U) << ::testing::PrintToString(lines);
    EXPECT_THAT(lines[0], ::testing::StartsWith("~ spec.kubernetes.version: "));
    EXPECT_THAT(lines[0], ::testing::EndsWith(" -> \"1.0.0\""));
}

} // namespace
} // namespace kprov::cli
