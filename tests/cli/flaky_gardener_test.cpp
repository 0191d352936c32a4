// One-shot commands through a Gardener that fails as real networks do (issue 33): kprov-sim's
// fault injection answers 10% of the Gardener API's requests with 500, 5% with 429 and
// Retry-After, and cuts 5% of the connections. The fail-fast Gardener check of each command
// retries what client-go retries for a GET, so 20 provisionings and their deprovisionings, each
// a separate run of the binary, all succeed, with one shoot each.

#include "cli/operations_fixture.hpp"

extern char** environ;

namespace kprov::cli {
namespace {

using namespace optest;

class FlakyGardener : public OperationsBase {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(KPROV_BINARY))
            KPROV_SKIP_UNLESS_CI("kprov is not built");
        open(StoreKind::Sqlite);
    }
    void TearDown() override {
        if (m_gardener)
            m_gardener->kube().delete_object("/sim/faults");
        OperationsBase::TearDown();
    }

    // Each rule is tried after the ones before it missed: the rates are of what is left, so
    // that 10%, 5% and 5% of all requests get each fault.
    void inject_faults() {
        const std::string gardener_api = "/apis/core.gardener.cloud/";
        sim_post("/sim/faults", {{"rate", 0.10}, {"status", 500}, {"pathPrefix", gardener_api}});
        sim_post("/sim/faults", {{"rate", 0.05 / 0.90},
                                 {"status", 429},
                                 {"retryAfterSeconds", 1},
                                 {"pathPrefix", gardener_api}});
        sim_post("/sim/faults",
                 {{"rate", 0.05 / 0.85}, {"drop", true}, {"pathPrefix", gardener_api}});
    }
};

TEST_F(FlakyGardener, TwentyOneShotProvisioningsAndDeprovisioningsAllSucceed) {
    constexpr int k_runtimes = 20;
    sim_post("/sim/stats/reset", json::object());
    inject_faults();
    std::map<std::string, std::string> runtime_of_shoot;
    for (int i = 0; i < k_runtimes; ++i) {
        const auto [file, shoot] = runtime_file("gcp");
        const auto r = binary({"provision", "-f", file, "--wait", "-o", "json"});
        ASSERT_EQ(r.exit_code, 0) << "provisioning " << i + 1 << " of " << k_runtimes << ": "
                                  << r.err;
        const json op = json::parse(r.out);
        EXPECT_EQ(op.value("state", ""), "Succeeded");
        runtime_of_shoot[shoot] = op.value("runtimeID", "");
    }
    // One shoot each, carrying its runtime's id.
    for (const auto& [shoot, runtime_id] : runtime_of_shoot) {
        const auto live = this->shoot(shoot);
        ASSERT_TRUE(live.has_value()) << shoot;
        EXPECT_EQ(
            live->value(
                "/metadata/annotations/kcp.provisioner.kyma-project.io~1runtime-id"_json_pointer,
                std::string()),
            runtime_id);
    }
    for (const auto& [shoot, runtime_id] : runtime_of_shoot) {
        const auto r = binary({"deprovision", runtime_id, "--yes", "--wait"});
        ASSERT_EQ(r.exit_code, 0) << "deprovisioning " << shoot << ": " << r.err;
        EXPECT_TRUE(m_store->find_runtime(runtime_id)->deleted);
        EXPECT_FALSE(this->shoot(shoot).has_value());
    }
    // The faults did happen: the sim counts the answers it gave since the reset.
    const json stats = m_gardener->kube().get("/sim/stats");
    std::cout << "sim answers: " << stats["responses"].dump() << std::endl;
    EXPECT_GT(stats["responses"].value("500", 0), 0);
    EXPECT_GT(stats["responses"].value("429", 0), 0);
}

} // namespace
} // namespace kprov::cli
