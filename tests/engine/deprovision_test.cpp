// DEPROVISION_NO_INSTALL: the three starts and the stage table (original-provisioner.md §2.4,
// §4.7; gardener-contract.md §7.1).

#include "engine/shoot/shoot_builder.hpp"
#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Deprovision : public EngineTest {};

TEST_F(Deprovision, StartsAtDeprovisionClusterWithoutWritingToGardener) {
    const std::string id = provisioned_runtime();
    const int calls_before = gardener.calls("patch") + gardener.calls("remove");
    const auto started = service().deprovision(id, context);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.type, OperationType::DeprovisionNoInstall);
    EXPECT_EQ(op.stage, "DeprovisionCluster");
    EXPECT_EQ(op.message, "Deprovisioning started");
    EXPECT_EQ(op.start_timestamp, clock.now());
    EXPECT_FALSE(op.last_transition); // as the original
    EXPECT_EQ(gardener.calls("patch") + gardener.calls("remove"), calls_before);
}

TEST_F(Deprovision, ConfirmsDeletesWaitsAndSoftDeletes) {
    const std::string id = provisioned_runtime();
    const auto started = service().deprovision(id, context);
    const std::string op_id = started.operation.id;

    auto result = pass(op_id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "WaitForClusterDeletion");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 20s);
    const auto& annotations = gardener.shoot("shoot1")["metadata"]["annotations"];
    EXPECT_EQ(annotations["confirmation.gardener.cloud/deletion"], "true");
    EXPECT_EQ(annotations["kcp.provisioner.kyma-project.io/operation-id"], op_id);
    EXPECT_EQ(annotations["compass.provisioner.kyma-project.io/operation-id"], op_id);
    EXPECT_TRUE(gardener.shoot("shoot1")["metadata"].contains("deletionTimestamp"));

    clock.advance(20s);
    EXPECT_EQ(pass(op_id).operation.stage, "WaitForClusterDeletion"); // still there
    EXPECT_FALSE(runtime(id).deleted);

    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    result = pass(op_id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    EXPECT_EQ(result.operation.message, "Operation succeeded");
    EXPECT_TRUE(runtime(id).deleted);
    EXPECT_THAT(stages_of(op_id), ElementsAre("WaitForClusterDeletion", "Finished", "Finished"));
}

TEST_F(Deprovision, AShootAlreadyGoneStartsAtWaitForClusterDeletion) {
    const std::string id = provisioned_runtime();
    gardener.finish_deletion("shoot1");
    const auto started = service().deprovision(id, context);
    EXPECT_EQ(started.operation.stage, "WaitForClusterDeletion");
    EXPECT_EQ(started.operation.message,
              "Cluster " + id + " already deleted. Proceeding to DeprovisionCluster stage.");
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_TRUE(runtime(id).deleted);
    EXPECT_EQ(gardener.calls("remove"), 0);
}

TEST_F(Deprovision, AShootAlreadyBeingDeletedIsDatedFromItsDeletionButDoesNotTimeOut) {
    const std::string id = provisioned_runtime();
    clock.advance(3h);
    const Timestamp deleted_at = clock.now() - 2h; // before the 30 min stage timeout
    gardener.shoot("shoot1")["metadata"]["deletionTimestamp"] = format_rfc3339(deleted_at);
    const auto started = service().deprovision(id, context);
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "DeprovisionCluster");
    EXPECT_EQ(op.message, "Cluster shoot1 with id " + id + " already scheduled for deletion.");
    EXPECT_EQ(op.start_timestamp, deleted_at);
    EXPECT_EQ(op.last_transition, clock.now());

    const auto result = pass(op.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting) << result.error;
    EXPECT_EQ(result.operation.stage, "WaitForClusterDeletion");
}

TEST_F(Deprovision, ADeletionOlderThanTheLastOperationStartsNow) {
    const std::string id = provisioned_runtime();
    gardener.shoot("shoot1")["metadata"]["deletionTimestamp"] = format_rfc3339(k_start - 1h);
    clock.advance(1h);
    const auto started = service().deprovision(id, context);
    EXPECT_EQ(started.operation.start_timestamp, clock.now());
    EXPECT_EQ(store.last_operation(id)->id, started.operation.id);
}

TEST_F(Deprovision, AShootThatVanishesBeforeTheConfirmationIsDone) {
    const std::string id = provisioned_runtime();
    const auto started = service().deprovision(id, context);
    gardener.finish_deletion("shoot1");
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    EXPECT_EQ(gardener.calls("remove"), 0);
}

TEST_F(Deprovision, GardenerErrorsAreRetried) {
    const std::string id = provisioned_runtime();
    const auto started = service().deprovision(id, context);
    gardener.fail_next("remove", error<RemoteError>("gardener: 500 InternalError", 500, true));
    auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "DeprovisionCluster");
    EXPECT_EQ(result.operation.last_error.reason, "InternalError");

    clock.advance(2s);
    EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitForClusterDeletion");
    gardener.fail_next("get", error<RemoteError>("gardener: GET: connection refused", 0, true));
    clock.advance(20s);
    result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForClusterDeletion");
    EXPECT_EQ(result.operation.last_error,
              (LastError{"gardener: GET: connection refused", "", "k8s client - gardener"}));
}

TEST_F(Deprovision, TheOidcConfigMapGoesWithTheShoot) {
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["oidcConfig"] = {
        {"clientID", "c"},          {"groupsClaim", "groups"}, {"issuerURL", "https://i.example"},
        {"signingAlgs", {"RS256"}}, {"usernameClaim", "sub"},  {"usernamePrefix", "-"}};
    const auto provisioned = provision(doc);
    pass(provisioned.operation.id);
    gardener.succeed("shoot1");
    clock.advance(20s);
    ASSERT_EQ(pass(provisioned.operation.id).outcome, PassOutcome::Succeeded);
    const std::string config_map = structured_auth_config_map_name("shoot1");
    ASSERT_TRUE(gardener.config_maps.count(config_map));

    const auto started = service().deprovision(provisioned.runtime_id, context);
    pass(started.operation.id);
    EXPECT_TRUE(gardener.config_maps.count(config_map)); // the shoot still uses it
    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_FALSE(gardener.config_maps.count(config_map));
}

TEST_F(Deprovision, UnknownRuntimeIsNotFoundNamingIt) {
    try {
        service().deprovision("no-such-runtime", context);
        FAIL() << "no NotFound";
    } catch (const NotFound& e) {
        EXPECT_THAT(e.what(), HasSubstr("no-such-runtime"));
    }
}

TEST_F(Deprovision, AGardenerReadFailureRefusesTheRequest) {
    const std::string id = provisioned_runtime();
    gardener.fail_next("get", error<RemoteError>("gardener: 401 Unauthorized", 401, false));
    EXPECT_THROW(service().deprovision(id, context), RemoteError);
    EXPECT_EQ(store.operations_of(id).size(), 1u);
}

// The shoot of the runtime's name is another runtime's (the runtime's own is gone, and a
// colleague's kprov made one of that name): deprovisioning never writes to it.
TEST_F(Deprovision, AShootOfAnotherRuntimeIsLeftAloneAndTheRuntimeOnlyMarkedDeleted) {
    const std::string id = provisioned_runtime();
    gardener.finish_deletion("shoot1");
    gardener.add_shoot(
        {{"metadata",
          {{"name", "shoot1"},
           {"annotations", {{"kcp.provisioner.kyma-project.io/runtime-id", "other-runtime"}}}}}});
    const int writes = gardener.calls("patch") + gardener.calls("remove") +
                       gardener.calls("update") + gardener.calls("delete_config_map");
    const auto started = service().deprovision(id, context);
    EXPECT_EQ(started.operation.stage, "WaitForClusterDeletion");
    EXPECT_THAT(started.operation.message, HasSubstr("belongs to runtime other-runtime"));

    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    EXPECT_TRUE(runtime(id).deleted);
    EXPECT_EQ(gardener.calls("patch") + gardener.calls("remove") + gardener.calls("update") +
                  gardener.calls("delete_config_map"),
              writes);
    EXPECT_FALSE(gardener.shoot("shoot1")["metadata"].contains("deletionTimestamp"));
    std::string history;
    for (const auto& t : store.transitions_of(started.operation.id))
        history += t.message + "\n";
    EXPECT_THAT(history, HasSubstr("shoot shoot1 belongs to runtime other-runtime, not to "
                                   "runtime " +
                                   id + ": Gardener was left alone"));
}

// The same when the shoot changes hands between the request and the stage.
TEST_F(Deprovision, DeprovisionClusterChecksTheOwnerAgainBeforeItWrites) {
    const std::string id = provisioned_runtime();
    const auto started = service().deprovision(id, context);
    EXPECT_EQ(started.operation.stage, "DeprovisionCluster");
    gardener.finish_deletion("shoot1");
    gardener.add_shoot({{"metadata", {{"name", "shoot1"}}}}); // nobody's: no annotation
    const int writes = gardener.calls("patch") + gardener.calls("remove");
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(gardener.calls("patch") + gardener.calls("remove"), writes);
    EXPECT_TRUE(runtime(id).deleted);
}

// A shoot that changed after the check (another writer) is not patched: Gardener refuses the
// stale resourceVersion with 409, and the stage checks again on its next run.
TEST_F(Deprovision, AConflictingConfirmationIsCheckedAgain) {
    const std::string id = provisioned_runtime();
    const auto started = service().deprovision(id, context);
    gardener.fail_next("patch", std::make_exception_ptr(Conflict(
                                    "Operation cannot be fulfilled on shoots.core.gardener.cloud "
                                    "\"shoot1\": the object has been modified")));
    const int removes = gardener.calls("remove");
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Waiting);
    EXPECT_EQ(result.operation.stage, "DeprovisionCluster");
    EXPECT_EQ(result.operation.last_error.reason, "Conflict");
    EXPECT_EQ(gardener.calls("remove"), removes);
    clock.advance(1min);
    EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitForClusterDeletion");
}

} // namespace
} // namespace kprov::engine::test
