// kprov-bench-save-claim: the store's CPU per worker pass, a pass's save and the next claim as
// two transactions (save_progress, then claim_due: what the workers did before issue 34's
// change) or as one (save_progress_and_claim_next). Inserts N due provisionings, then one
// worker thread chains through them: claim, save (two transitions, due again in an hour, lease
// released), claim the next, until none is due. Prints the process's user + system CPU time
// (getrusage) for the chain, per pass, as one JSON line. The database server's CPU (PostgreSQL)
// is not in it.
//
//   kprov-bench-save-claim two|one STORE_URL [N]

#include "bench_runtime.hpp"
#include "engine/model.hpp"
#include "engine/store.hpp"
#include "stores/open_store.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <sys/resource.h>

namespace {

using namespace std::chrono_literals;

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto s = [](const timeval& t) {
        return double(t.tv_sec) + double(t.tv_usec) / 1e6;
    };
    return s(u.ru_utime) + s(u.ru_stime);
}

kprov::engine::Runtime bench_runtime(int i) {
    kprov::engine::Runtime r;
    r.id = kprov::engine::new_uuid();
    r.tenant = "tenant";
    r.creation_timestamp = kprov::Timestamp{};
    r.name = "save-claim-" + std::to_string(i);
    r.gardener = kprov::bench::gcp_cluster("sc" + r.id.substr(0, 8));
    return r;
}

} // namespace

int main(int argc, char** argv) {
    using namespace kprov;
    const std::string mode = argc > 1 ? argv[1] : "";
    if (argc < 3 || (mode != "two" && mode != "one")) {
        std::cerr << "usage: kprov-bench-save-claim two|one STORE_URL [N]\n";
        return 2;
    }
    const int n = argc > 3 ? std::atoi(argv[3]) : 2000;
    stores::OpenOptions options;
    options.schema = stores::SchemaCheck::Migrate;
    options.secret_key = "0123456789abcdef0123456789abcdef";
    auto store = stores::open_store(argv[2], options);

    const auto now = [] {
        return std::chrono::time_point_cast<std::chrono::microseconds>(
            std::chrono::system_clock::now());
    };
    for (int i = 0; i < n; ++i) {
        const auto runtime = bench_runtime(i);
        engine::Operation op;
        op.id = engine::new_uuid();
        op.type = engine::OperationType::Provision;
        op.state = engine::OperationState::InProgress;
        op.message = "Operation in progress. Stage CreatingShoot";
        op.start_timestamp = now();
        op.cluster_id = runtime.id;
        op.stage = "CreatingShoot";
        op.next_run_at = op.start_timestamp - 1s;
        store->insert_runtime(runtime, op);
    }

    const std::string owner = "bench-worker";
    const auto ttl = 60s;
    const double cpu_start = cpu_seconds();
    const auto wall_start = std::chrono::steady_clock::now();
    int passes = 0;
    auto first = store->claim_due(owner, now(), ttl, 1);
    std::optional<engine::Operation> op;
    if (!first.empty())
        op = first.front();
    while (op) {
        ++passes;
        const auto at = now();
        const std::vector<engine::StageTransition> transitions = {
            {op->id, op->stage, "WaitingForClusterDomain", engine::OperationState::InProgress,
             "Operation in progress. Stage WaitingForClusterDomain", at},
            {op->id, "WaitingForClusterDomain", "WaitingForClusterCreation",
             engine::OperationState::InProgress,
             "Operation in progress. Stage WaitingForClusterCreation", at}};
        op->stage = "WaitingForClusterCreation";
        op->message = transitions.back().message;
        op->last_transition = at;
        op->next_run_at = at + 1h;
        if (mode == "one") {
            op = store->save_progress_and_claim_next(*op, owner, at, transitions, {}, ttl,
                                                     engine::ClaimOrder::NewFirst);
        } else {
            store->save_progress(*op, owner, at, transitions, {}, true);
            auto next = store->claim_due(owner, now(), ttl, 1);
            op.reset();
            if (!next.empty())
                op = next.front();
        }
    }
    const double cpu = cpu_seconds() - cpu_start;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    std::cout << R"({"mode":")" << mode << R"(","store":")" << store->dialect() << R"(","passes":)"
              << passes << R"(,"cpuSeconds":)" << cpu << R"(,"cpuMicrosecondsPerPass":)"
              << (passes ? cpu * 1e6 / passes : 0.0) << R"(,"wallSeconds":)" << wall << "}\n";
    return passes == n ? 0 : 1;
}
