// PROVISION: the synchronous start and every branch of the stage table
// (original-provisioner.md §2.3), with kprov's CreatingShoot in front.

#include "engine/shoot/shoot_builder.hpp"
#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Provision : public EngineTest {
protected:
    // Provisioned up to WaitingForClusterCreation: the shoot exists, nothing happened yet.
    std::string waiting_for_creation() {
        const auto started = provision();
        const auto first = pass(started.operation.id);
        EXPECT_EQ(first.operation.stage, "WaitingForClusterCreation");
        return started.operation.id;
    }
};

TEST_F(Provision, StartWritesRuntimeAndOperationAtCreatingShootWithoutCallingGardener) {
    const auto started = provision();
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.type, OperationType::ProvisionNoInstall); // no kymaConfig (kyma_stages_test)
    EXPECT_EQ(op.state, OperationState::InProgress);
    EXPECT_EQ(op.stage, "CreatingShoot");
    EXPECT_EQ(op.message, "Provisioning started");
    EXPECT_EQ(op.start_timestamp, k_start);
    EXPECT_EQ(op.last_transition, k_start);
    EXPECT_EQ(op.next_run_at, k_start);
    EXPECT_EQ(op.cluster_id, started.runtime_id);
    const Runtime r = runtime(started.runtime_id);
    EXPECT_EQ(r.tenant, "tenant-a");
    EXPECT_EQ(r.sub_account_id, "sub-a");
    EXPECT_EQ(r.gardener.name, "shoot1");
    EXPECT_EQ(gardener.total_calls(), 0);
}

TEST_F(Provision, InvalidInputIsRefusedBeforeAnythingIsWritten) {
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["autoScalerMin"] = 9;
    EXPECT_THROW(provision(doc), ValidationError);
    EXPECT_TRUE(store.list_runtimes({std::nullopt, true}).empty());
}

TEST_F(Provision, FirstPassCreatesTheShootAndWaitsForItsCreation) {
    const auto started = provision();
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    ASSERT_TRUE(gardener.has_shoot("shoot1"));
    EXPECT_EQ(
        gardener.shoot(
            "shoot1")["metadata"]["annotations"]["kcp.provisioner.kyma-project.io/runtime-id"],
        started.runtime_id);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "WaitingForClusterCreation");
    EXPECT_EQ(op.message, "Operation in progress. Stage WaitingForClusterCreation");
    EXPECT_EQ(op.next_run_at, k_start + 20s);
    EXPECT_TRUE(op.last_error.empty());
    EXPECT_FALSE(op.lease); // released at the end of every pass
    const auto transitions = store.transitions_of(op.id);
    ASSERT_EQ(transitions.size(), 2u);
    EXPECT_EQ(transitions[0].from_stage, "CreatingShoot");
    EXPECT_EQ(transitions[0].to_stage, "WaitingForClusterDomain");
    EXPECT_EQ(transitions[0].message, "Operation in progress. Stage WaitingForClusterDomain");
    EXPECT_EQ(transitions[1].to_stage, "WaitingForClusterCreation");
    // The next stages decided from the created shoot: one request in all.
    EXPECT_EQ(gardener.calls("create"), 1);
    EXPECT_EQ(gardener.total_calls(), 1);
}

TEST_F(Provision, OidcConfigMapIsPutBeforeTheShootIsCreated) {
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["oidcConfig"] = {{"clientID", "c"},
                                                            {"groupsClaim", "groups"},
                                                            {"issuerURL", "https://issuer.example"},
                                                            {"signingAlgs", {"RS256"}},
                                                            {"usernameClaim", "sub"},
                                                            {"usernamePrefix", "-"}};
    const auto started = provision(doc);
    bool config_map_first = false;
    gardener.on_call = [&](const std::string& method, const std::string&) {
        if (method == "create")
            config_map_first =
                gardener.config_maps.count(structured_auth_config_map_name("shoot1"));
    };
    pass(started.operation.id);
    EXPECT_TRUE(config_map_first);
    EXPECT_EQ(operation(started.operation.id).stage, "WaitingForClusterCreation");
}

TEST_F(Provision, CreatingShootAgainAfterACrashAdoptsItsOwnShoot) {
    const auto started = provision();
    // The process dies after the POST, before its progress is written.
    store.before_save = [](const Operation&) {
        throw StoreError("database went away");
    };
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::StoreFailed);
    store.before_save = nullptr;
    EXPECT_EQ(operation(started.operation.id).stage, "CreatingShoot");

    const auto again = new_executor()->run_operation(started.operation.id, "worker-2");
    EXPECT_EQ(again.outcome, PassOutcome::Waiting);
    EXPECT_EQ(again.operation.stage, "WaitingForClusterCreation");
    EXPECT_TRUE(again.operation.last_error.empty());
    EXPECT_EQ(gardener.calls("create"), 2); // the second got AlreadyExists
}

TEST_F(Provision, CreatingShootFailsWhenAnotherRuntimeOwnsTheName) {
    gardener.add_shoot(
        {{"metadata",
          {{"name", "shoot1"},
           {"annotations", {{"kcp.provisioner.kyma-project.io/runtime-id", "other-runtime"}}}}}});
    const auto started = provision();
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.stage, "CreatingShoot");
    EXPECT_THAT(op.message, HasSubstr("shoot shoot1 belongs to runtime other-runtime, not to "
                                      "runtime " +
                                      started.runtime_id));
    EXPECT_EQ(op.end_timestamp, k_start);
    EXPECT_EQ(op.last_error.message, op.message);
    EXPECT_EQ(op.last_error.reason, "AlreadyExists");
    EXPECT_EQ(op.last_error.component, "k8s client - gardener");
}

TEST_F(Provision, CreatingShootFailsForAShootKprovDidNotCreate) {
    gardener.add_shoot({{"metadata", {{"name", "shoot1"}}}});
    const auto started = provision();
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    EXPECT_THAT(operation(started.operation.id).message, HasSubstr("is not a kprov runtime's"));
}

TEST_F(Provision, CreatingShootRejectedByGardenerFailsAndOutagesAreRetried) {
    const auto started = provision();
    gardener.fail_next("create", error<RemoteError>("gardener: 503 ServiceUnavailable", 503, true));
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Waiting);
    Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "CreatingShoot");
    EXPECT_EQ(op.next_run_at, k_start + 2s);
    EXPECT_EQ(op.last_error, (LastError{"gardener: 503 ServiceUnavailable", "ServiceUnavailable",
                                        "k8s client - gardener"}));

    clock.advance(2s);
    gardener.fail_next("create",
                       error<RemoteError>("gardener: 422 Invalid: spec.region", 422, false));
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    op = operation(started.operation.id);
    EXPECT_EQ(op.message, "gardener: 422 Invalid: spec.region");
    EXPECT_EQ(op.last_error.reason, "Invalid");
}

TEST_F(Provision, WaitingForClusterDomainPollsEveryFiveSecondsUntilTheDomainIsSet) {
    gardener.default_dns_domain = false;
    const auto started = provision();
    pass(started.operation.id);
    Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "WaitingForClusterDomain");
    EXPECT_EQ(op.next_run_at, k_start + 5s);

    clock.advance(5s);
    pass(started.operation.id);
    EXPECT_EQ(operation(started.operation.id).next_run_at, k_start + 10s);

    gardener.shoot("shoot1")["spec"]["dns"]["domain"] = "shoot1.example.com";
    clock.advance(5s);
    pass(started.operation.id);
    op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "WaitingForClusterCreation");
    EXPECT_EQ(op.next_run_at, k_start + 30s);
}

TEST_F(Provision, WaitingForClusterCreationWaitsWhileGardenerWorks) {
    const std::string id = waiting_for_creation();
    ASSERT_FALSE(gardener.shoot("shoot1")["status"].contains("lastOperation"));
    clock.advance(20s);
    EXPECT_EQ(pass(id).operation.next_run_at, clock.now() + 20s); // no lastOperation yet
    for (const char* state : {"Processing", "Pending", "Error", "Aborted"}) {
        SCOPED_TRACE(state);
        gardener.observe("shoot1");
        gardener.set_last_operation("shoot1", "Create", state, "working");
        clock.advance(20s);
        const auto result = pass(id);
        EXPECT_EQ(result.outcome, PassOutcome::Waiting);
        EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
        EXPECT_EQ(result.operation.next_run_at, clock.now() + 20s);
        EXPECT_TRUE(result.operation.last_error.empty());
        ASSERT_TRUE(result.shoot_operation);
        EXPECT_EQ(result.shoot_operation->state, state);
    }
}

TEST_F(Provision, SucceededCountsOnlyOnceGardenerObservedTheLatestGeneration) {
    const std::string id = waiting_for_creation();
    gardener.set_last_operation("shoot1", "Create", "Succeeded");
    gardener.shoot("shoot1")["metadata"]["generation"] = 2;
    gardener.shoot("shoot1")["status"]["observedGeneration"] = 1;
    clock.advance(20s);
    EXPECT_EQ(pass(id).operation.stage, "WaitingForClusterCreation");
    gardener.observe("shoot1");
    clock.advance(20s);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Succeeded);
}

TEST_F(Provision, ASucceededCreationTheWatchDeliveredNeedsNoRead) {
    const std::string id = waiting_for_creation();
    gardener.succeed("shoot1");
    gardener.shoot("shoot1")["spec"]["seedName"] = "gcp-eu1";
    gardener.watched_states["shoot1"] = *gardener.get("shoot1");
    const int reads = gardener.calls("get");
    clock.advance(1s);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(gardener.calls("get"), reads);
    EXPECT_EQ(clusters.calls.size(), 1u);
    EXPECT_EQ(runtime(operation(id).cluster_id).gardener.seed, "gcp-eu1");
}

TEST_F(Provision, AWatchedCreationStillUnderWayWaitsWithoutARead) {
    // The copy may lag behind Gardener: the event of the change that ends the creation makes
    // the operation due again, so waiting on the copy loses nothing.
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Processing");
    gardener.watched_states["shoot1"] = *gardener.get("shoot1");
    gardener.succeed("shoot1");
    const int reads = gardener.calls("get");
    clock.advance(1s);
    const auto waiting = pass(id);
    EXPECT_EQ(waiting.operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(waiting.operation.next_run_at, clock.now() + 20s);
    EXPECT_EQ(gardener.calls("get"), reads);

    gardener.watched_states["shoot1"] = *gardener.get("shoot1");
    EXPECT_EQ(pass(id).outcome, PassOutcome::Succeeded);
}

TEST_F(Provision, AWatchedFailureIsReadFromGardenerBeforeTheOperationFails) {
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Failed", "quota exceeded");
    gardener.watched_states["shoot1"] = *gardener.get("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Processing"); // retried meanwhile
    const int reads = gardener.calls("get");
    clock.advance(1s);
    const auto result = pass(id);
    EXPECT_EQ(gardener.calls("get"), reads + 1);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
}

TEST_F(Provision, AWatchedShootOfAnotherRuntimeIsNotTrusted) {
    // A lagging watch may still hold an earlier shoot of the same name.
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Processing");
    auto earlier = *gardener.get("shoot1");
    earlier.annotations[std::string(k_runtime_id_annotation)] = "an-earlier-runtime";
    earlier.last_operation->state = "Succeeded";
    gardener.watched_states["shoot1"] = earlier;
    const int reads = gardener.calls("get");
    clock.advance(1s);
    EXPECT_EQ(pass(id).operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(gardener.calls("get"), reads + 1);
}

TEST(ShootChangeMayMove, OnlyTheProvisioningWaitsIgnoreShootsTheyWouldWaitFor) {
    ShootState shoot;
    shoot.name = "shoot1";
    EXPECT_FALSE(shoot_change_may_move("WaitingForClusterDomain", shoot));
    EXPECT_FALSE(shoot_change_may_move("WaitingForClusterCreation", shoot));
    shoot.dns_domain = "shoot1.example";
    EXPECT_TRUE(shoot_change_may_move("WaitingForClusterDomain", shoot));
    for (const char* state : {"Processing", "Pending", "Error", "Aborted"}) {
        shoot.last_operation = ShootState::LastOperation{"Create", state, "", 40};
        EXPECT_FALSE(shoot_change_may_move("WaitingForClusterCreation", shoot)) << state;
    }
    for (const char* state : {"Succeeded", "Failed"}) {
        shoot.last_operation = ShootState::LastOperation{"Create", state, "", 100};
        EXPECT_TRUE(shoot_change_may_move("WaitingForClusterCreation", shoot)) << state;
    }
    shoot.last_operation = ShootState::LastOperation{"Delete", "Processing", "", 10};
    shoot.deletion_timestamp = Timestamp{};
    EXPECT_TRUE(shoot_change_may_move("WaitingForClusterCreation", shoot));
    // Every other stage judges the shoot itself.
    for (const char* stage : {"WaitingForShootUpgrade", "WaitForHibernation", "WaitForWakeUp",
                              "WaitingForClusterDeletion", "CreatingBindingsForOperators"})
        EXPECT_TRUE(shoot_change_may_move(stage, ShootState{})) << stage;
}

TEST_F(Provision, SucceededShootLearnsTheSeedCreatesBindingsAndFinishes) {
    const auto started = provision();
    pass(started.operation.id);
    gardener.succeed("shoot1");
    gardener.shoot("shoot1")["spec"]["seedName"] = "gcp-eu1";
    clock.advance(20s);
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.state, OperationState::Succeeded);
    EXPECT_EQ(op.stage, "Finished");
    EXPECT_EQ(op.message, "Operation succeeded");
    EXPECT_EQ(op.end_timestamp, k_start + 20s);
    EXPECT_THAT(stages_of(op.id),
                ElementsAre("WaitingForClusterDomain", "WaitingForClusterCreation",
                            "CreatingBindingsForOperators", "Finished", "Finished"));
    const auto transitions = store.transitions_of(op.id);
    EXPECT_EQ(transitions[3].message, "Provisioning steps finished");
    EXPECT_EQ(transitions[4].state, OperationState::Succeeded);
    EXPECT_EQ(transitions[4].message, "Operation succeeded");
    EXPECT_EQ(runtime(started.runtime_id).gardener.seed, "gcp-eu1");

    ASSERT_EQ(clusters.calls.size(), 1u);
    EXPECT_EQ(clusters.calls[0].kubeconfig, "apiVersion: v1\nkind: Config\n# admin of shoot1\n");
    EXPECT_EQ(clusters.calls[0].bindings.l2_subject_name, "runtimeOperator");
    EXPECT_EQ(clusters.calls[0].bindings.l3_subject_name, "runtimeAdmin");
    EXPECT_THAT(clusters.calls[0].bindings.administrators, ElementsAre("admin@example.com"));
    EXPECT_EQ(gardener.last_kubeconfig_expiration, std::chrono::seconds(8h));
}

TEST_F(Provision, SucceededShootWithoutSeedOrWithAStoredSeedLeavesTheSeed) {
    const auto without = provision();
    pass(without.operation.id);
    gardener.succeed("shoot1");
    clock.advance(20s);
    EXPECT_EQ(pass(without.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(runtime(without.runtime_id).gardener.seed, "");

    auto doc = provision_document("shoot2");
    doc["clusterConfig"]["gardenerConfig"]["seed"] = "chosen-seed";
    const auto with = provision(doc);
    pass(with.operation.id);
    gardener.succeed("shoot2");
    gardener.shoot("shoot2")["spec"]["seedName"] = "other-seed";
    clock.advance(20s);
    EXPECT_EQ(pass(with.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(runtime(with.runtime_id).gardener.seed, "chosen-seed");
}

TEST_F(Provision, FailedShootWithRateLimitsIsRetried) {
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Failed", "rate limited");
    gardener.set_last_errors("shoot1",
                             {"ERR_INFRA_RATE_LIMITS_EXCEEDED", "ERR_INFRA_DEPENDENCIES"});
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitingForClusterCreation");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 2s);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"error during cluster provisioning: rate limits exceeded",
                         "ERR_INFRA_RATE_LIMITS_EXCEEDED, ERR_INFRA_DEPENDENCIES", "gardener"}));
}

TEST_F(Provision, FailedReconcileIsRetried) {
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Failed", "webhook");
    gardener.set_last_errors("shoot1", {"ERR_PROBLEMATIC_WEBHOOK"});
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"error during cluster provisioning: reconcilation error",
                         "ERR_PROBLEMATIC_WEBHOOK", "gardener"}));
}

TEST_F(Provision, FailedCreateFailsTheOperation) {
    const std::string id = waiting_for_creation();
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Create", "Failed", "quota exceeded in region");
    gardener.set_last_errors("shoot1", {"ERR_INFRA_QUOTA_EXCEEDED", "ERR_CONFIGURATION_PROBLEM"});
    clock.advance(20s);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Failed);
    const Operation op = operation(id);
    const std::string message = "cluster provisioning failed. Last Shoot state: Failed, Shoot "
                                "description: quota exceeded in region";
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.message, message);
    EXPECT_EQ(op.end_timestamp, clock.now());
    EXPECT_EQ(
        op.last_error,
        (LastError{message, "ERR_INFRA_QUOTA_EXCEEDED, ERR_CONFIGURATION_PROBLEM", "gardener"}));
    const auto transitions = store.transitions_of(id);
    EXPECT_EQ(transitions.back().state, OperationState::Failed);
    EXPECT_EQ(transitions.back().to_stage, "WaitingForClusterCreation");
}

TEST_F(Provision, AShootThatVanishedIsARecoverableNotFound) {
    const std::string id = waiting_for_creation();
    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"shoots.core.gardener.cloud \"shoot1\" not found", "NotFound",
                         "k8s client - gardener"}));
}

TEST_F(Provision, BindingsWaitForAKubeconfigWithoutAnError) {
    const std::string id = waiting_for_creation();
    gardener.succeed("shoot1");
    gardener.fail_next("admin_kubeconfig",
                       error<RemoteError>("gardener: 422 control plane not ready", 422, false));
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "CreatingBindingsForOperators");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 20s);
    EXPECT_TRUE(result.operation.last_error.empty());
    EXPECT_TRUE(clusters.calls.empty());
}

TEST_F(Provision, BindingsFailureIsARecoverableClusterError) {
    const std::string id = waiting_for_creation();
    gardener.succeed("shoot1");
    clusters.fail_next(error<RemoteError>("runtime cluster: 500 InternalError", 500, true));
    clock.advance(20s);
    const auto result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "CreatingBindingsForOperators");
    EXPECT_EQ(result.operation.last_error, (LastError{"runtime cluster: 500 InternalError",
                                                      "InternalError", "k8s client - cluster"}));
    clock.advance(2s);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Succeeded);
}

// A kubeconfig kprov refuses to use (Gardener's, naming a proxy): asking again gets the same
// answer, so the operation fails now, with the field named, instead of at the stage's timeout.
TEST_F(Provision, ARefusedAdminKubeconfigFailsTheOperationAtOnce) {
    const std::string id = waiting_for_creation();
    gardener.succeed("shoot1");
    const std::string refusal =
        "kubeconfig <runtime cluster admin kubeconfig>: clusters[\"c\"].cluster.proxy-url: a "
        "kubeconfig from Gardener may not change where or how kprov connects";
    clusters.fail_next(error<ConfigError>(refusal));
    clock.advance(20s);
    EXPECT_EQ(pass(id).outcome, PassOutcome::Failed);
    const Operation op = operation(id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.stage, "CreatingBindingsForOperators");
    EXPECT_EQ(op.last_error.message, refusal);
    EXPECT_EQ(op.last_error.component, "k8s client - cluster");
}

TEST_F(Provision, BindingsForAdministratorsFollowTheOptions) {
    options.operator_bindings.create_for_administrators = true;
    options.operator_bindings.l2_subject_name = "l2-group";
    const std::string id = waiting_for_creation();
    gardener.succeed("shoot1");
    clock.advance(20s);
    pass(id);
    ASSERT_EQ(clusters.calls.size(), 1u);
    EXPECT_TRUE(clusters.calls[0].bindings.create_for_administrators);
    EXPECT_EQ(clusters.calls[0].bindings.l2_subject_name, "l2-group");
}

} // namespace
} // namespace kprov::engine::test
