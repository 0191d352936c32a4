// HIBERNATE and WAKE_UP (original-provisioner.md §9; gardener-contract.md §6.4, §8).

#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::ElementsAre;

class Hibernation : public EngineTest {
protected:
    void SetUp() override { m_runtime = provisioned_runtime(); }

    // A hibernated runtime with no operation in progress.
    void hibernated() {
        const auto started = service().hibernate(m_runtime, context);
        pass(started.operation.id);
        gardener.succeed("shoot1", "Reconcile");
        clock.advance(30s);
        ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    }

    std::string m_runtime;
};

TEST_F(Hibernation, RefusedWhenGardenerSaysItIsNotPossible) {
    gardener.set_hibernation_possible("shoot1", false, "shoot has no worker pools to hibernate");
    try {
        service().hibernate(m_runtime, context);
        FAIL() << "no ValidationError";
    } catch (const ValidationError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot hibernate cluster: shoot has no worker pools to hibernate");
    }
    EXPECT_EQ(store.operations_of(m_runtime).size(), 1u);
    gardener.set_hibernation_possible("shoot1", true, "");
    EXPECT_NO_THROW(service().hibernate(m_runtime, context));
}

TEST_F(Hibernation, HibernatesAndWaitsForTheShootToBeHibernated) {
    const auto started = service().hibernate(m_runtime, context);
    EXPECT_EQ(started.operation.type, OperationType::Hibernate);
    EXPECT_EQ(started.operation.stage, "HibernatingShoot");
    EXPECT_EQ(started.operation.message, "Hibernation started");
    EXPECT_EQ(gardener.calls("patch"), 0);

    auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForHibernation");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 30s);
    EXPECT_EQ(gardener.shoot("shoot1")["spec"]["hibernation"]["enabled"], true);

    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Processing");
    clock.advance(30s);
    EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitForHibernation");

    gardener.succeed("shoot1", "Reconcile");
    clock.advance(30s);
    result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded);
    EXPECT_THAT(stages_of(started.operation.id),
                ElementsAre("WaitForHibernation", "Finished", "Finished"));
}

TEST_F(Hibernation, AHibernatedFlagOfAnOlderGenerationDoesNotCount) {
    const auto started = service().hibernate(m_runtime, context);
    pass(started.operation.id);
    gardener.shoot("shoot1")["status"]["hibernated"] = true; // but generation not observed yet
    clock.advance(30s);
    EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitForHibernation");
    gardener.observe("shoot1");
    clock.advance(30s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
}

TEST_F(Hibernation, AFailedHibernationFailsTheOperation) {
    const auto started = service().hibernate(m_runtime, context);
    pass(started.operation.id);
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Failed", "cannot scale down");
    gardener.set_last_errors("shoot1", {"ERR_INFRA_DEPENDENCIES"});
    clock.advance(30s);
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.last_error,
              (LastError{"cluster hibernation failed. Last Shoot state: Failed, Shoot "
                         "description: cannot scale down",
                         "ERR_INFRA_DEPENDENCIES", "gardener"}));
}

TEST_F(Hibernation, APatchGardenerRefusesFailsTheOperation) {
    const auto started = service().hibernate(m_runtime, context);
    gardener.fail_next("patch",
                       error<RemoteError>("gardener: 403 Forbidden: not possible", 403, false));
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.message,
              "cannot hibernate cluster: gardener: 403 Forbidden: not possible");
    EXPECT_EQ(result.operation.last_error.reason, "Forbidden");
}

TEST_F(Hibernation, AShootThatIsGoneIsRefusedAtOnce) {
    gardener.finish_deletion("shoot1");
    EXPECT_THROW(service().hibernate(m_runtime, context), NotFound);
    EXPECT_THROW(service().wake_up(m_runtime, context), NotFound);
}

TEST_F(Hibernation, WakesUpAndWaitsForAReconciledAwakeShoot) {
    hibernated();
    const auto started = service().wake_up(m_runtime, context);
    EXPECT_EQ(started.operation.type, OperationType::WakeUp);
    EXPECT_EQ(started.operation.stage, "WakingUpShoot");
    EXPECT_EQ(started.operation.message, "Wake-up started");

    auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForWakeUp");
    EXPECT_EQ(gardener.shoot("shoot1")["spec"]["hibernation"]["enabled"], false);

    // Picked up and no longer hibernated, but the reconcile is still running.
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Processing");
    gardener.shoot("shoot1")["status"]["hibernated"] = false;
    clock.advance(30s);
    result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForWakeUp");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 30s);

    gardener.succeed("shoot1", "Reconcile");
    clock.advance(30s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
}

TEST_F(Hibernation, WakeUpWaitsWhileStillHibernated) {
    hibernated();
    const auto started = service().wake_up(m_runtime, context);
    pass(started.operation.id);
    gardener.observe("shoot1"); // Succeeded from the hibernation, still hibernated
    clock.advance(30s);
    EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitForWakeUp");
}

TEST_F(Hibernation, AFailedWakeUpFailsTheOperation) {
    hibernated();
    const auto started = service().wake_up(m_runtime, context);
    pass(started.operation.id);
    gardener.observe("shoot1");
    gardener.set_last_operation("shoot1", "Reconcile", "Failed", "no capacity");
    clock.advance(30s);
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.message,
              "cluster wake-up failed. Last Shoot state: Failed, Shoot description: no capacity");
}

TEST_F(Hibernation, WakingUpAnAwakeShootFinishesAtOnce) {
    gardener.shoot("shoot1")["spec"]["hibernation"]["enabled"] = false; // the patch changes nothing
    const auto started = service().wake_up(m_runtime, context);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
}

} // namespace
} // namespace kprov::engine::test
