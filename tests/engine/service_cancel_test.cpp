// EngineService::cancel (`kprov cancel`): an operation that cannot end by itself ends as
// Failed, its lease released and Gardener untouched, so the runtime is free again.

#include "engine_fixture.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class Cancel : public EngineTest {};

TEST_F(Cancel, EndsTheOperationAsFailedAndFreesTheRuntime) {
    const auto started = provision();
    pass(started.operation.id); // the shoot is being created
    const std::string& op_id = started.operation.id;
    const int calls = gardener.total_calls();

    const Operation op = service().cancel(op_id, "cli-1", "ann@host", false);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.message, "cancelled by ann@host");
    EXPECT_EQ(op.last_error.reason, k_reason_cancelled);
    const Operation stored = operation(op_id);
    EXPECT_EQ(stored.state, OperationState::Failed);
    EXPECT_EQ(stored.last_error.message, "cancelled by ann@host");
    EXPECT_FALSE(stored.lease.has_value());
    EXPECT_EQ(stored.end_timestamp, clock.now());
    const auto history = store.transitions_of(op_id);
    ASSERT_FALSE(history.empty());
    EXPECT_EQ(history.back().state, OperationState::Failed);
    EXPECT_EQ(history.back().message, "cancelled by ann@host");
    EXPECT_EQ(gardener.total_calls(), calls) << "Gardener is left as it is";

    EXPECT_NO_THROW(service().deprovision(started.runtime_id, {"tenant-a", ""}));
}

TEST_F(Cancel, ALiveLeaseOfAnotherOwnerNeedsForce) {
    const auto started = provision();
    const std::string& op_id = started.operation.id;
    ASSERT_TRUE(store.claim(op_id, "watch-2", clock.now(), 60s));
    try {
        service().cancel(op_id, "cli-1", "ann@host", false);
        FAIL() << "a live lease of another owner was ignored";
    } catch (const OperationLeased& e) {
        EXPECT_EQ(e.lease().owner, "watch-2");
        EXPECT_THAT(e.what(), HasSubstr("watch-2"));
        EXPECT_THAT(e.what(), HasSubstr("--force"));
    }
    EXPECT_EQ(operation(op_id).state, OperationState::InProgress);

    service().cancel(op_id, "cli-1", "ann@host", true);
    EXPECT_EQ(operation(op_id).state, OperationState::Failed);
    EXPECT_FALSE(store.renew(op_id, "watch-2", clock.now(), 60s)) << "the holder lost it";
}

TEST_F(Cancel, OnlyAnOperationInProgressCanBeCancelled) {
    EXPECT_THROW(service().cancel("no-such-operation", "cli-1", "ann@host", false), NotFound);
    const std::string id = provisioned_runtime();
    const auto done = store.last_operation(id);
    ASSERT_TRUE(done.has_value());
    EXPECT_THROW(service().cancel(done->id, "cli-1", "ann@host", false), Conflict);
}

} // namespace
} // namespace kprov::engine::test
