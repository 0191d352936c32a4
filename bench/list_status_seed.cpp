// kprov-bench-seed: fills a store with N runtimes of 5 operations each (4 ended ones and a last
// one in one of the three states), through the Store API, so that bench/list_status.sh can time
// `kprov list` and `kprov status` at scale. Prints one runtime id (the last written) on stdout.
//
//   kprov-bench-seed STORE_URL [RUNTIMES] [OPERATIONS_PER_RUNTIME]

#include "bench_runtime.hpp"
#include "engine/model.hpp"
#include "stores/open_store.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using namespace kprov;
using namespace std::chrono_literals;

engine::Runtime make_runtime(int i, Timestamp created) {
    engine::Runtime r;
    r.id = engine::new_uuid();
    r.tenant = "tenant-" + std::to_string(i % 50);
    r.creation_timestamp = created;
    r.name = "bench-" + std::to_string(i);
    r.labels_json = R"({"team":"team-)" + std::to_string(i % 20) + R"(","bench":"true"})";
    r.gardener = kprov::bench::gcp_cluster("b" + std::to_string(i));
    return r;
}

engine::Operation make_operation(const std::string& runtime_id, engine::OperationType type,
                                 engine::OperationState state, Timestamp start) {
    engine::Operation op;
    op.id = engine::new_uuid();
    op.type = type;
    op.state = state;
    op.message =
        state == engine::OperationState::InProgress ? "Operation in progress" : "Operation ended";
    op.start_timestamp = start;
    if (state != engine::OperationState::InProgress)
        op.end_timestamp = start + 10min;
    op.cluster_id = runtime_id;
    op.stage =
        state == engine::OperationState::InProgress ? "WaitingForClusterCreation" : "Finished";
    op.last_transition = start;
    op.next_run_at = start + 365 * 24h; // not due: a worker must not pick them up
    if (state == engine::OperationState::Failed)
        op.last_error = {"shoot creation failed", "ERR_INFRA_QUOTA_EXCEEDED", "gardener"};
    return op;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: kprov-bench-seed STORE_URL [RUNTIMES] [OPERATIONS_PER_RUNTIME]\n";
        return 2;
    }
    const int runtimes = argc > 2 ? std::atoi(argv[2]) : 100000;
    const int per_runtime = argc > 3 ? std::atoi(argv[3]) : 5;
    stores::OpenOptions options;
    options.schema = stores::SchemaCheck::Migrate;
    if (const char* key = std::getenv("APP_DATABASE_SECRET_KEY"))
        options.secret_key = key;
    auto store = stores::open_store(argv[1], options);

    const Timestamp base =
        std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()) -
        std::chrono::hours(24 * 400);
    const engine::OperationType later[] = {
        engine::OperationType::UpgradeShoot, engine::OperationType::Hibernate,
        engine::OperationType::WakeUp, engine::OperationType::UpgradeShoot};
    const engine::OperationState last_states[] = {engine::OperationState::Succeeded,
                                                  engine::OperationState::Failed,
                                                  engine::OperationState::InProgress};
    std::string last_id;
    for (int i = 0; i < runtimes; ++i) {
        const Timestamp created = base + std::chrono::minutes(5 * i);
        auto runtime = make_runtime(i, created);
        const auto state_of = [&](int k) {
            return k + 1 < per_runtime ? engine::OperationState::Succeeded : last_states[i % 3];
        };
        store->insert_runtime(runtime, make_operation(runtime.id, engine::OperationType::Provision,
                                                      state_of(0), created));
        for (int k = 1; k < per_runtime; ++k)
            store->insert_operation(make_operation(runtime.id, later[(k - 1) % 4], state_of(k),
                                                   created + std::chrono::hours(k)));
        last_id = runtime.id;
        if ((i + 1) % 10000 == 0)
            std::cerr << (i + 1) << " runtimes\n";
    }
    std::cout << last_id << '\n';
    return 0;
}
