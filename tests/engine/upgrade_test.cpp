// UPGRADE_SHOOT: the merge of the synchronous part and every branch of the stage table
// (original-provisioner.md §2.5, §4.6), with kprov's UpgradingShoot in front.

#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

class UpgradeShoot : public EngineTest {
protected:
    void SetUp() override { m_runtime = provisioned_runtime(); }

    UpgradeShootInput input(const json& gardener_config,
                            std::optional<json> administrators = std::nullopt) {
        json doc = {{"gardenerConfig", gardener_config}};
        if (administrators)
            doc["administrators"] = *administrators;
        return read_upgrade_input(doc);
    }

    StartedOperation upgrade(const json& gardener_config = {{"machineType", "e2-standard-8"}}) {
        return service().upgrade_shoot(m_runtime, input(gardener_config), context);
    }

    // Started and applied: the shoot has the new spec (generation 2), not yet picked up.
    std::string applied() {
        const auto started = upgrade();
        const auto result = pass(started.operation.id);
        EXPECT_EQ(result.operation.stage, "WaitingForShootNewVersion") << result.error;
        return started.operation.id;
    }

    std::string m_runtime;
};

TEST_F(UpgradeShoot, MergesOverTheStoredConfigKeepingANewerLiveVersionAndTheAdministrators) {
    gardener.shoot("shoot1")["spec"]["kubernetes"]["version"] = "1.30.1"; // auto-updated
    const auto started = upgrade({{"kubernetesVersion", "1.29.5"}, {"machineType", "n2-std"}});
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.type, OperationType::UpgradeShoot);
    EXPECT_EQ(op.stage, "UpgradingShoot");
    // Kept, and said: in the request's warnings, the operation's message and its history.
    const std::string warning = "kubernetesVersion \"1.29.5\" is lower than the shoot's "
                                "\"1.30.1\", which stays (kprov never downgrades Kubernetes)";
    EXPECT_THAT(started.warnings, ElementsAre(warning));
    EXPECT_EQ(op.message, "Starting Gardener Shoot upgrade; warning: " + warning);
    const Runtime r = runtime(m_runtime);
    EXPECT_EQ(r.gardener.kubernetes_version, "1.30.1");
    EXPECT_EQ(r.gardener.machine_type, "n2-std");
    EXPECT_EQ(r.gardener.disk_type, "pd-balanced"); // not in the input: kept
    EXPECT_EQ(r.gardener.seed, "gcp-eu1");
    EXPECT_THAT(r.administrators, ElementsAre("admin@example.com"));
    EXPECT_EQ(gardener.calls("update"), 0); // the stage writes the shoot
    pass(started.operation.id);
    std::vector<std::string> messages;
    for (const auto& t : store.transitions_of(started.operation.id))
        messages.push_back(t.message);
    EXPECT_THAT(messages, ::testing::Contains("warning: " + warning));
}

TEST_F(UpgradeShoot, RequestedNewerVersionWinsAndGivenAdministratorsReplaceTheStoredOnes) {
    const auto started = service().upgrade_shoot(
        m_runtime, input({{"kubernetesVersion", "1.30.0"}}, json{"new@example.com"}), context);
    EXPECT_TRUE(started.warnings.empty());
    EXPECT_EQ(operation(started.operation.id).message, "Starting Gardener Shoot upgrade");
    const Runtime r = runtime(m_runtime);
    EXPECT_EQ(r.gardener.kubernetes_version, "1.30.0"); // the next minor: none may be skipped
    EXPECT_THAT(r.administrators, ElementsAre("new@example.com"));
}

TEST_F(UpgradeShoot, NetworkingFilterIsInheritedFromTheShootUnlessGiven) {
    for (auto& extension : gardener.shoot("shoot1")["spec"]["extensions"])
        if (extension["type"] == "shoot-networking-filter")
            extension["disabled"] = false;
    const auto first = upgrade();
    EXPECT_EQ(runtime(m_runtime).gardener.shoot_networking_filter_disabled, false);
    gardener.succeed("shoot1", "Reconcile");
    store.put_operation([&] {
        Operation done = operation(first.operation.id);
        done.state = OperationState::Succeeded;
        return done;
    }());
    upgrade({{"shootNetworkingFilterDisabled", true}});
    EXPECT_EQ(runtime(m_runtime).gardener.shoot_networking_filter_disabled, true);
}

TEST_F(UpgradeShoot, RunsToTheEndStoringTheAdminKubeconfig) {
    const std::string id = applied();
    const json& shoot = gardener.shoot("shoot1");
    EXPECT_EQ(shoot["spec"]["provider"]["workers"][0]["machine"]["type"], "e2-standard-8");
    EXPECT_EQ(shoot["metadata"]["generation"], 2);
    EXPECT_EQ(operation(id).next_run_at, clock.now() + 5s);

    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Processing");
    clock.advance(5s);
    auto result = pass(id);
    EXPECT_EQ(result.operation.stage, "WaitingForShootUpgrade");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 20s);

    gardener.succeed("shoot1", "Reconcile");
    clock.advance(20s);
    result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    EXPECT_EQ(runtime(m_runtime).kubeconfig, "apiVersion: v1\nkind: Config\n# admin of shoot1\n");
    EXPECT_EQ(clusters.calls.size(), 1u);
    EXPECT_EQ(gardener.calls("admin_kubeconfig"), 2); // provisioning's and this one, reused
    EXPECT_THAT(stages_of(id), ElementsAre("WaitingForShootNewVersion", "WaitingForShootUpgrade",
                                           "CreatingBindingsForOperators", "Finished", "Finished"));
}

TEST_F(UpgradeShoot, UpgradingShootReReadsTheShootOnAVersionConflict) {
    const auto started = upgrade();
    bool changed = false;
    gardener.on_call = [&](const std::string& method, const std::string& name) {
        if (method == "update" && !changed) {
            changed = true; // someone else writes the shoot between our GET and PUT
            gardener.shoot(name)["metadata"]["resourceVersion"] = "999999";
        }
    };
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitingForShootNewVersion") << result.error;
    EXPECT_EQ(gardener.calls("update"), 2);
}

TEST_F(UpgradeShoot, UpgradingShootRejectedByGardenerFails) {
    const auto started = upgrade();
    gardener.fail_next("update", error<RemoteError>("gardener: 422 Invalid", 422, false));
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    EXPECT_EQ(operation(started.operation.id).message,
              "Failed to upgrade Cluster: gardener: 422 Invalid");
}

TEST_F(UpgradeShoot, AShootWithoutWorkersIsRefusedAtOnce) {
    gardener.shoot("shoot1")["spec"]["provider"]["workers"] = json::array();
    EXPECT_THROW(upgrade(), Error);
    EXPECT_EQ(store.operations_of(m_runtime).size(), 1u);
}

TEST_F(UpgradeShoot, AMissingShootIsRefused) {
    gardener.finish_deletion("shoot1");
    try {
        upgrade();
        FAIL() << "no NotFound";
    } catch (const NotFound& e) {
        EXPECT_EQ(std::string(e.what()), "failed to find shoot for Runtime " + m_runtime);
    }
}

TEST_F(UpgradeShoot, InvalidInputIsRefused) {
    EXPECT_THROW(upgrade({{"machineType", ""}}), ValidationError);
    EXPECT_EQ(store.operations_of(m_runtime).size(), 1u);
}

// Legacy mode keeps the shoot's cloudProfileName and secretBindingName and writes oidcConfig:
// an upgrade to a version where Gardener refuses them is refused before anything is stored.
TEST_F(UpgradeShoot, LegacyApiRefusesVersionsWhereGardenerRefusesItsFields) {
    options.shoot.legacy_api = true;
    EngineService legacy_service(ports, options); // the fixture's has no legacy
    // Each case starts from the minor below its target: Gardener refuses skipping one.
    const auto upgrade = [&](const json& config, const std::string& live_version) {
        gardener.shoot("shoot1")["spec"]["kubernetes"]["version"] = live_version;
        return legacy_service.upgrade_shoot(m_runtime, input(config), context);
    };
    try {
        upgrade({{"kubernetesVersion", "1.34.2"}}, "1.33.3");
        ADD_FAILURE() << "accepted";
    } catch (const ValidationError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].path, "gardenerConfig.kubernetesVersion");
        EXPECT_THAT(e.problems()[0].message, ::testing::HasSubstr("\"1.34.2\""));
        EXPECT_THAT(e.problems()[0].message, ::testing::HasSubstr("spec.secretBindingName"));
    }
    json oidc = {{"clientID", "kyma"},
                 {"groupsClaim", "groups"},
                 {"issuerURL", "https://i.example.com"},
                 {"signingAlgs", {"RS256"}},
                 {"usernameClaim", "sub"},
                 {"usernamePrefix", "-"}};
    try {
        upgrade({{"kubernetesVersion", "1.32.1"}, {"oidcConfig", oidc}}, "1.31.4");
        ADD_FAILURE() << "accepted";
    } catch (const ValidationError& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].path, "gardenerConfig.oidcConfig");
        EXPECT_THAT(e.problems()[0].message, ::testing::HasSubstr("structured authentication"));
    }
    EXPECT_EQ(store.operations_of(m_runtime).size(), 1u);
    EXPECT_EQ(runtime(m_runtime).gardener.oidc, std::nullopt);
    EXPECT_NO_THROW(upgrade({{"kubernetesVersion", "1.33.3"}}, "1.32.1"));
}

TEST_F(UpgradeShoot, WaitingForShootNewVersionWaitsUntilGardenerObservedTheUpdate) {
    const std::string id = applied();
    gardener.clear_last_operation("shoot1"); // no lastOperation at all: no crash, wait
    clock.advance(5s);
    auto result = pass(id);
    EXPECT_EQ(result.operation.stage, "WaitingForShootNewVersion");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 5s);

    // A deliberate difference from the original, which failed here: until Gardener observed
    // the update (observedGeneration < generation), a Failed lastOperation is an earlier
    // operation's, so the stage goes on waiting.
    gardener.set_last_operation("shoot1", "Reconcile", "Failed", "broken");
    gardener.set_last_errors("shoot1", {"ERR_CONFIGURATION_PROBLEM"});
    clock.advance(5s);
    result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitingForShootNewVersion");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 5s);
    EXPECT_TRUE(result.operation.last_error.empty());

    // Observed: WaitingForShootUpgrade judges the operation the update started.
    gardener.observe("shoot1");
    clock.advance(5s);
    result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"gardener Shoot cluster upgrade failed. Last Shoot state: Failed, Shoot "
                         "description: broken",
                         "ERR_CONFIGURATION_PROBLEM", "gardener"}));
}

TEST_F(UpgradeShoot, WaitingForShootUpgradeWaitsWhileNothingOrSomethingRetryableHappens) {
    const std::string id = applied();
    gardener.observe("shoot1");
    gardener.clear_last_operation("shoot1");
    clock.advance(5s);
    EXPECT_EQ(pass(id).operation.stage, "WaitingForShootUpgrade");
    for (const char* state : {"Processing", "Error", "Pending"}) {
        gardener.set_last_operation("shoot1", "Reconcile", state);
        clock.advance(20s);
        const auto result = pass(id);
        EXPECT_EQ(result.operation.stage, "WaitingForShootUpgrade") << state;
        EXPECT_EQ(result.operation.next_run_at, clock.now() + 20s) << state;
        EXPECT_TRUE(result.operation.last_error.empty()) << state;
    }
}

TEST_F(UpgradeShoot, WaitingForShootUpgradeRetriesRateLimitsAndFailsOnOtherFailures) {
    const std::string id = applied();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Failed", "throttled");
    gardener.set_last_errors("shoot1", {"ERR_INFRA_RATE_LIMITS_EXCEEDED"});
    clock.advance(5s);
    auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"error during shoot cluster upgrade: rate limits exceeded",
                         "ERR_INFRA_RATE_LIMITS_EXCEEDED", "gardener"}));

    gardener.set_last_errors("shoot1", {"ERR_INFRA_QUOTA_EXCEEDED"});
    clock.advance(2s);
    result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.message, "gardener Shoot cluster upgrade failed. Last Shoot "
                                        "state: Failed, Shoot description: throttled");
}

TEST_F(UpgradeShoot, AFailedKubeconfigRequestAfterSuccessIsRetried) {
    const std::string id = applied();
    gardener.succeed("shoot1", "Reconcile");
    gardener.fail_next("admin_kubeconfig", error<RemoteError>("gardener: 500", 500, true));
    clock.advance(5s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitingForShootUpgrade");
    EXPECT_EQ(result.operation.last_error.component, "k8s client - gardener");
    EXPECT_FALSE(runtime(m_runtime).kubeconfig);
}

TEST_F(UpgradeShoot, RefusedWhileAnotherOperationIsInProgress) {
    upgrade();
    EXPECT_THROW(upgrade({{"machineType", "other"}}), OperationInProgress);
    EXPECT_EQ(runtime(m_runtime).gardener.machine_type, "e2-standard-8"); // the first one's
}

} // namespace
} // namespace kprov::engine::test
