// kprov plan RUNTIME_ID -f UPGRADE_FILE against kprov-sim: the runtime comes from the store, the
// live shoot from the simulated Gardener over real HTTP.

#include "cli/app.hpp"
#include "cli/runtime_file.hpp"
#include "cli_testing.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/shoot/shoot_builder.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "stores/open_store.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/store_fixtures.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class PlanUpgrade : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            KPROV_SKIP_UNLESS_CI("the kprov-sim binary was not built");
        m_sim = std::make_unique<kprov::testing::SimProcess>(
            binary, std::vector<std::string>{"--project", "kyma-dev", "--create-seconds", "0.1"});
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        m_store_url = "sqlite://" + m_dir.file("kprov.db");

        // A runtime provisioned from the GCP example: its row in the store, its shoot in Gardener.
        engine::ConversionOptions conversion;
        conversion.gardener_project = "kyma-dev";
        auto document = read_runtime_file(k_examples + "gcp.yaml");
        // The patch the sim's default landscape defaults "1.34" to: store and shoot agree.
        document["clusterConfig"]["gardenerConfig"]["kubernetesVersion"] = "1.34.6";
        const auto input = engine::parse_provision_input(document);
        m_runtime = engine::to_runtime(input, engine::new_uuid(), "ga-1", "", kprov::testing::k_t0,
                                       conversion);
        stores::OpenOptions options;
        options.schema = stores::SchemaCheck::Migrate;
        stores::open_store(m_store_url, options)
            ->insert_runtime(m_runtime, kprov::testing::new_operation(m_runtime.id));
        engine::ShootOptions shoot_options;
        shoot_options.project = "kyma-dev";
        const auto plan = engine::build_shoot(m_runtime, "op-1", shoot_options);
        gardener::GardenerClient client(gardener::load_kubeconfig(m_sim->kubeconfig), "kyma-dev");
        client.create_shoot(nlohmann::json::parse(plan.shoot));
    }

    int plan(const std::vector<std::string>& extra, std::string& out, std::string& err) {
        std::vector<std::string> args = {"plan",
                                         "--store",
                                         m_store_url,
                                         "--gardener-kubeconfig",
                                         m_sim->kubeconfig.string(),
                                         "--gardener-project",
                                         "kyma-dev"};
        args.insert(args.end(), extra.begin(), extra.end());
        std::ostringstream o, e;
        const int code = run(args, o, e);
        out = o.str();
        err = e.str();
        return code;
    }

    testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::SimProcess> m_sim;
    std::string m_store_url;
    engine::Runtime m_runtime;
};

TEST_F(PlanUpgrade, ShowsTheChangeUpgradeShootWouldApply) {
    std::string out, err;
    ASSERT_EQ(plan({m_runtime.id, "-f", k_examples + "upgrade.yaml"}, out, err), 0) << err;
    EXPECT_THAT(out, HasSubstr("~ spec.kubernetes.version: \"1.34.6\" -> \"1.35.4\""));
    EXPECT_THAT(out, Not(HasSubstr("machine.type"))) << "the example keeps the machine type";
    EXPECT_THAT(out, HasSubstr("~ spec.provider.workers[0].maximum: 4 -> 12"));
    EXPECT_THAT(out, HasSubstr("~ spec.maintenance.autoUpdate.machineImageVersion: false -> true"));
    EXPECT_THAT(out, Not(HasSubstr("status.")));
    EXPECT_THAT(out, Not(HasSubstr("managedFields")));
}

TEST_F(PlanUpgrade, JsonOutputIsTheWholeNewShoot) {
    std::string out, err;
    ASSERT_EQ(plan({m_runtime.id, "-f", k_examples + "upgrade.yaml", "-o", "json"}, out, err), 0)
        << err;
    const auto shoot = nlohmann::json::parse(out);
    EXPECT_EQ(shoot["kind"], "Shoot");
    EXPECT_EQ(shoot["metadata"]["name"], m_runtime.gardener.name);
    EXPECT_EQ(shoot["spec"]["kubernetes"]["version"], "1.35.4"); // the landscape's 1.35
    EXPECT_EQ(shoot["spec"]["provider"]["workers"][0]["minimum"], 3);
}

TEST_F(PlanUpgrade, AnUnknownRuntimeOrAnInvalidFileIsReported) {
    std::string out, err;
    EXPECT_EQ(plan({"no-such-runtime", "-f", k_examples + "upgrade.yaml"}, out, err), 1);
    EXPECT_THAT(err, HasSubstr("runtime \"no-such-runtime\" not found"));
    const std::string bad = m_dir.file("bad-upgrade.yaml");
    std::ofstream(bad) << "gardenerConfig:\n  machineType: \"\"\n  autoScalerMax: lots\n";
    EXPECT_EQ(plan({m_runtime.id, "-f", bad}, out, err), 2);
    EXPECT_THAT(err, HasSubstr("gardenerConfig.autoScalerMax: must be an integer"));
}

} // namespace
} // namespace kprov::cli
