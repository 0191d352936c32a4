// The --wait progress display and the operation output formats, without any server.

#include "cli/progress.hpp"
#include "cli/render.hpp"
#include "support/fake_clock.hpp"
#include "support/store_fixtures.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

namespace kprov::cli {
namespace {

using engine::OperationState;
using engine::PassOutcome;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

engine::PassResult pass(const std::string& stage, std::optional<int> gardener = std::nullopt,
                        PassOutcome outcome = PassOutcome::Waiting) {
    engine::PassResult r;
    r.outcome = outcome;
    r.operation = kprov::testing::new_operation("rt-1", engine::OperationType::Provision,
                                                kprov::testing::k_t0, stage);
    r.operation.id = "op-1";
    if (gardener)
        r.shoot_operation =
            engine::ShootState::LastOperation{"Create", "Processing", "", *gardener};
    return r;
}

TEST(ProgressDisplay, OnATerminalRedrawsOneLine) {
    fakes::FakeClock clock(kprov::testing::k_t0 + 5s);
    std::ostringstream err;
    ProgressDisplay progress(err, true, clock);
    progress.update(pass("WaitingForClusterCreation", 40));
    clock.advance(62s);
    progress.tick();
    progress.finish();
    EXPECT_EQ(err.str(), "\r\033[2KWaitingForClusterCreation · 5s · Gardener 40%"
                         "\r\033[2KWaitingForClusterCreation · 1m07s · Gardener 40%\n");
}

TEST(ProgressDisplay, ElsewhereWritesOneLinePerStage) {
    fakes::FakeClock clock(kprov::testing::k_t0 + 2s);
    std::ostringstream err;
    ProgressDisplay progress(err, false, clock);
    progress.update(pass("WaitingForClusterCreation", 20));
    progress.update(pass("WaitingForClusterCreation", 60));
    progress.tick();
    auto failing = pass("CreatingBindingsForOperators");
    failing.error = "runtime cluster: connection refused";
    progress.update(failing);
    progress.update(failing);
    auto done = pass("Finished", 100, PassOutcome::Succeeded);
    done.operation.state = OperationState::Succeeded;
    progress.update(done);
    progress.finish();
    EXPECT_EQ(err.str(), "WaitingForClusterCreation · 2s · Gardener 20%\n"
                         "CreatingBindingsForOperators: runtime cluster: connection refused "
                         "(retrying)\n"
                         "CreatingBindingsForOperators · 2s\n"
                         "Finished (Succeeded) · 2s · Gardener 100%\n");
}

TEST(ProgressDisplay, SaysWhenAnotherWorkerDrivesTheOperation) {
    fakes::FakeClock clock(kprov::testing::k_t0);
    std::ostringstream err;
    ProgressDisplay progress(err, false, clock);
    auto held = pass("WaitingForClusterCreation", std::nullopt, PassOutcome::NotClaimed);
    held.operation.lease = engine::Lease{"watch-host-1-abc", kprov::testing::k_t0 + 30s};
    progress.update(held);
    progress.update(held);
    EXPECT_EQ(err.str(), "another worker (watch-host-1-abc) drives this operation; following it\n"
                         "WaitingForClusterCreation · 0s\n");
}

TEST(ProgressDisplay, ANarrowTerminalGetsALineCutToItsWidth) {
    fakes::FakeClock clock(kprov::testing::k_t0 + 5s);
    std::ostringstream err;
    ProgressDisplay progress(err, true, clock, 40);
    progress.update(pass("WaitingForClusterCreation", 40));
    progress.tick();
    progress.finish();
    // At most 39 columns: the cursor never reaches the last one, so the line does not wrap.
    EXPECT_EQ(err.str(), "\r\033[2KWaitingForClusterCreation · 5s · 40%"
                         "\r\033[2KWaitingForClusterCreation · 5s · 40%\n");
    std::ostringstream narrower;
    ProgressDisplay cut(narrower, true, clock, 30);
    cut.update(pass("WaitingForClusterCreation", 40));
    EXPECT_EQ(narrower.str(), "\r\033[2KWaitingForClusterCreation · …");
    EXPECT_EQ(fit_columns("abc", 3), "abc");
    EXPECT_EQ(fit_columns("a · b", 4), "a ·…");
    EXPECT_EQ(fit_columns("abcdef", 0), "abcdef");
}

TEST(ProgressDisplay, ThePreviousOperationsGardenerPercentageIsNotShown) {
    fakes::FakeClock clock(kprov::testing::k_t0 + 1s);
    std::ostringstream err;
    ProgressDisplay progress(err, false, clock);
    auto before = pass("WaitingForShootUpgrade", 100);
    before.shoot_operation->state = "Succeeded"; // the provisioning's Create, finished
    progress.update(before);
    progress.update(pass("WaitingForShootReconcile", 30));
    auto done = pass("Finished", 100, PassOutcome::Succeeded);
    done.shoot_operation->state = "Succeeded";
    done.operation.state = OperationState::Succeeded;
    progress.update(done);
    EXPECT_EQ(err.str(), "WaitingForShootUpgrade · 1s\n"
                         "WaitingForShootReconcile · 1s · Gardener 30%\n"
                         "Finished (Succeeded) · 1s · Gardener 100%\n");
}

TEST(ProgressDisplay, FormatsElapsedTime) {
    EXPECT_EQ(format_elapsed(0s), "0s");
    EXPECT_EQ(format_elapsed(59s), "59s");
    EXPECT_EQ(format_elapsed(65s), "1m05s");
    EXPECT_EQ(format_elapsed(3723s), "1h02m03s");
}

// The JSON itself is engine::operation_status_json's (tests/engine/status_json_test.cpp).
TEST(Render, PrintOperationInEveryFormat) {
    auto op = kprov::testing::new_operation("rt-1");
    op.id = "op-1";
    op.message = "Provisioning started";
    op.type = engine::OperationType::DeprovisionNoInstall;
    op.state = OperationState::Failed;
    op.last_error = {"boom", "ERR_X", "gardener"};

    std::ostringstream table, name, yaml;
    print_operation(table, op, OutputFormat::Table);
    EXPECT_EQ(table.str(), "runtime    rt-1\n"
                           "operation  op-1\n"
                           "type       DeprovisionNoInstall\n"
                           "state      Failed\n"
                           "message    Provisioning started\n"
                           "error      boom\n");
    print_operation(name, op, OutputFormat::Name);
    EXPECT_EQ(name.str(), "op-1\n");
    print_operation(yaml, op, OutputFormat::Yaml);
    EXPECT_THAT(yaml.str(), HasSubstr("compassRuntimeID: ~\n"));
    EXPECT_THAT(yaml.str(), HasSubstr("lastError:\n  errMessage: boom\n"));
}

} // namespace
} // namespace kprov::cli
