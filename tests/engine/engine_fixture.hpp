#pragma once
// The world of the engine tests: a fake clock, store, Gardener and runtime clusters, the
// service and the executor over them, and shortcuts to start and run operations.

#include "engine/run/executor.hpp"
#include "engine/service/service.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_gardener.hpp"
#include "support/fake_landscape.hpp"
#include "support/fake_store.hpp"

#include <gtest/gtest.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kprov::engine::test {

using namespace std::chrono_literals;

inline const Timestamp k_start = *parse_db_time("2026-11-30 10:00:00");
inline const std::string k_worker = "worker-1";

class EngineTest : public ::testing::Test {
protected:
    EngineTest()
        : clock(k_start)
        , gardener(clock) {
        options.conversion.gardener_project = "kyma-dev";
        options.shoot.project = "kyma-dev";
        fakes::fill_fixture_landscape(landscape);
        ports.store = &store;
        ports.shoots = &gardener;
        ports.clusters = &clusters;
        ports.clock = &clock;
        ports.landscape = &landscape;
    }

    /// A valid GCP ProvisionRuntimeInput document for shoot `shoot`.
    static nlohmann::json provision_document(const std::string& shoot = "shoot1") {
        auto doc = nlohmann::json::parse(R"({
          "runtimeInput": {"name": "my-runtime", "description": "test"},
          "clusterConfig": {
            "administrators": ["admin@example.com"],
            "gardenerConfig": {
              "kubernetesVersion": "1.29.2", "provider": "gcp", "targetSecret": "gcp-secret",
              "region": "europe-west3", "machineType": "e2-medium", "diskType": "pd-balanced",
              "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16", "autoScalerMin": 2,
              "autoScalerMax": 4, "maxSurge": 4, "maxUnavailable": 1,
              "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}
            }
          }
        })");
        doc["clusterConfig"]["gardenerConfig"]["name"] = shoot;
        return doc;
    }

    /// Rebuilt on first use after `options`, `ports` or `jitter` changed (tests set them first).
    Executor& executor() {
        if (!m_executor)
            m_executor = new_executor();
        return *m_executor;
    }
    /// Another executor over the same world, as a restarted or second process would have.
    std::unique_ptr<Executor> new_executor() {
        return std::make_unique<Executor>(ports, options, [this] { return jitter; });
    }
    EngineService& service() {
        if (!m_service)
            m_service = std::make_unique<EngineService>(ports, options);
        return *m_service;
    }

    StartedOperation provision(const nlohmann::json& document = provision_document()) {
        return service().provision(read_provision_input(document, options.conversion), context);
    }

    /// One pass of the operation by k_worker.
    PassResult pass(const std::string& operation_id) {
        return executor().run_operation(operation_id, k_worker);
    }

    Operation operation(const std::string& id) { return *store.find_operation(id); }
    Runtime runtime(const std::string& id) { return *store.find_runtime(id); }

    /// The to_stage of every transition of the operation, in order.
    std::vector<std::string> stages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : store.transitions_of(operation_id))
            out.push_back(t.to_stage);
        return out;
    }

    /// A runtime provisioned to the end: its shoot exists and succeeded.
    std::string provisioned_runtime(const std::string& shoot = "shoot1") {
        const auto started = provision(provision_document(shoot));
        pass(started.operation.id); // creates the shoot
        gardener.succeed(shoot);
        gardener.shoot(shoot)["spec"]["seedName"] = "gcp-eu1";
        clock.advance(20s);
        const auto done = pass(started.operation.id);
        EXPECT_EQ(done.outcome, PassOutcome::Succeeded) << done.error;
        clusters.calls.clear();
        return started.runtime_id;
    }

    /// An operation of `type` at `stage` of a newly provisioned runtime (shoot "stored-<n>"),
    /// written as a row another process left: nobody holds it, it is due now.
    Operation stored_operation(OperationType type, const std::string& stage) {
        const std::string runtime_id = provisioned_runtime("stored-" + std::to_string(++m_stored));
        Operation op;
        op.id = new_uuid();
        op.type = type;
        op.message = "stored";
        op.start_timestamp = clock.now();
        op.cluster_id = runtime_id;
        op.stage = stage;
        op.last_transition = clock.now();
        op.next_run_at = clock.now();
        store.put_operation(op);
        return op;
    }

    fakes::FakeClock clock;
    fakes::FakeStore store;
    fakes::FakeGardener gardener;
    fakes::FakeRuntimeClusters clusters;
    fakes::FakeLandscape landscape;
    EngineOptions options;
    EnginePorts ports; ///< over the fakes above; tests add the optional ones
    RequestContext context{"tenant-a", "sub-a"};
    double jitter = 0; ///< what the jitter source returns

private:
    std::unique_ptr<Executor> m_executor;
    std::unique_ptr<EngineService> m_service;
    int m_stored = 0;
};

/// Makes `ErrorType(args...)` an exception_ptr for the fakes' fail_next.
template <class ErrorType, class... Args> std::exception_ptr error(Args&&... args) {
    return std::make_exception_ptr(ErrorType(std::forward<Args>(args)...));
}

} // namespace kprov::engine::test
