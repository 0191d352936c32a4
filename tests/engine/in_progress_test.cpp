// The rule for a request meeting its runtime's operation in progress
// (engine/rules/in_progress.hpp), the undriven test and the no-op hibernation check.

#include "engine/rules/in_progress.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using ::testing::HasSubstr;

Operation running_op(OperationType type) {
    Operation op;
    op.id = "op-1";
    op.cluster_id = "rt-1";
    op.type = type;
    op.state = OperationState::InProgress;
    op.stage = "WaitingForClusterCreation";
    return op;
}

TEST(InProgress, WithWaitARequestOfTheSameIntentFollowsAndHasNothingLeft) {
    const std::pair<OperationType, RequestIntent> same[] = {
        {OperationType::Provision, RequestIntent::Provision},
        {OperationType::ProvisionNoInstall, RequestIntent::Provision},
        {OperationType::Deprovision, RequestIntent::Deprovision},
        {OperationType::DeprovisionNoInstall, RequestIntent::Deprovision},
        {OperationType::Hibernate, RequestIntent::Hibernate},
        {OperationType::WakeUp, RequestIntent::WakeUp},
        {OperationType::Upgrade, RequestIntent::UpgradeKyma},
    };
    for (const auto& [type, intent] : same) {
        const auto answer = meet_in_progress(running_op(type), intent, true);
        EXPECT_EQ(answer.meeting, Meeting::Follow) << to_api(type);
        EXPECT_EQ(answer.then, Then::Nothing) << to_api(type);
        EXPECT_THAT(answer.message, HasSubstr("op-1"));
    }
    // An upgrade's file may differ from the running one's: its own follows.
    EXPECT_EQ(
        meet_in_progress(running_op(OperationType::UpgradeShoot), RequestIntent::UpgradeShoot, true)
            .then,
        Then::Start);
}

TEST(InProgress, WithoutWaitEveryRequestIsRefusedNamingTheOperationAndKprovWait) {
    for (const auto intent :
         {RequestIntent::Provision, RequestIntent::Deprovision, RequestIntent::Hibernate,
          RequestIntent::WakeUp, RequestIntent::UpgradeShoot, RequestIntent::Apply}) {
        const auto answer = meet_in_progress(running_op(OperationType::Provision), intent, false);
        EXPECT_EQ(answer.meeting, Meeting::Refuse);
        EXPECT_THAT(answer.message, HasSubstr("Provision operation op-1"));
        EXPECT_THAT(answer.message, HasSubstr("kprov wait op-1"));
        EXPECT_THAT(answer.message, HasSubstr("WaitingForClusterCreation"));
    }
    EXPECT_THAT(
        meet_in_progress(running_op(OperationType::Provision), RequestIntent::Provision, false)
            .message,
        HasSubstr("under way already"));
}

TEST(InProgress, ApplyFollowsAnythingAndRecreatesAfterADeprovisioning) {
    EXPECT_EQ(
        meet_in_progress(running_op(OperationType::Hibernate), RequestIntent::Apply, true).then,
        Then::Start);
    EXPECT_EQ(
        meet_in_progress(running_op(OperationType::Provision), RequestIntent::Apply, true).then,
        Then::Start);
    for (const auto intent : {RequestIntent::Apply, RequestIntent::Provision}) {
        const auto answer = meet_in_progress(running_op(OperationType::Deprovision), intent, true);
        EXPECT_EQ(answer.meeting, Meeting::Follow);
        EXPECT_EQ(answer.then, Then::Provision);
    }
}

TEST(InProgress, WithWaitARequestOfAnotherIntentIsRefused) {
    for (const auto& [type, intent] :
         {std::pair{OperationType::Provision, RequestIntent::Deprovision},
          std::pair{OperationType::WakeUp, RequestIntent::Hibernate},
          std::pair{OperationType::Deprovision, RequestIntent::Hibernate}}) {
        const auto answer = meet_in_progress(running_op(type), intent, true);
        EXPECT_EQ(answer.meeting, Meeting::Refuse) << to_api(type);
        EXPECT_THAT(answer.message, HasSubstr("follow it with: kprov wait op-1"));
    }
}

TEST(InProgress, AnOperationIsUndrivenWithoutALiveLease) {
    const Timestamp now = Timestamp{} + std::chrono::hours(1);
    auto op = running_op(OperationType::Provision);
    EXPECT_TRUE(is_undriven(op, now));
    op.lease = Lease{"cli-host-1", now + std::chrono::seconds(10)};
    EXPECT_FALSE(is_undriven(op, now));
    op.lease->expires_at = now - std::chrono::seconds(1);
    EXPECT_TRUE(is_undriven(op, now));
    op.lease.reset();
    op.state = OperationState::Succeeded;
    EXPECT_FALSE(is_undriven(op, now));
}

TEST(InProgress, HibernatingAHibernatedShootOrWakingAnAwakeOneIsAlreadyDone) {
    ShootState shoot;
    EXPECT_EQ(already_done(shoot, OperationType::WakeUp), "already awake");
    EXPECT_EQ(already_done(shoot, OperationType::Hibernate), std::nullopt);
    shoot.hibernation_enabled = true; // asked for, not there yet: the operation waits for it
    EXPECT_EQ(already_done(shoot, OperationType::Hibernate), std::nullopt);
    EXPECT_EQ(already_done(shoot, OperationType::WakeUp), std::nullopt);
    shoot.is_hibernated = true;
    EXPECT_EQ(already_done(shoot, OperationType::Hibernate), "already hibernated");
    EXPECT_EQ(already_done(shoot, OperationType::Provision), std::nullopt);
}

} // namespace
} // namespace kprov::engine
