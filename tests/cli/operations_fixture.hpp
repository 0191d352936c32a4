#pragma once
// The operation commands' test fixture: kprov::cli::run in-process against one kprov-sim for
// the whole test program, with a SQLite or PostgreSQL store per test.

#include "cli/app.hpp"
#include "cli/runtime_file.hpp"
#include "cli/store_warning.hpp"
#include "cli_testing.hpp"
#include "engine/error.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::cli::optest {

using engine::OperationState;
using engine::OperationType;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;

inline constexpr const char* k_project = "kyma-dev";

// One simulator for the whole test program: shoots get unique names, and every test resets the
// durations it may change.
inline kprov::testing::SimProcess* shared_sim() {
    static std::unique_ptr<kprov::testing::SimProcess> sim = [] {
        const std::string binary = kprov::testing::find_sim_binary();
        if (binary.empty())
            return std::unique_ptr<kprov::testing::SimProcess>();
        return std::make_unique<kprov::testing::SimProcess>(
            binary, std::vector<std::string>{"--project", k_project, "--create-seconds", "0.2",
                                             "--reconcile-seconds", "0.2", "--delete-seconds",
                                             "0.2", "--hibernate-seconds", "0.2"});
    }();
    return sim.get();
}

inline const json k_fast_sim = {{"createSeconds", 0.2},
                                {"reconcileSeconds", 0.2},
                                {"deleteSeconds", 0.2},
                                {"hibernateSeconds", 0.2}};

class OperationsBase : public ::testing::Test {
protected:
    void open(StoreKind kind) {
        m_sim = shared_sim();
        if (m_sim == nullptr)
            KPROV_SKIP_UNLESS_CI("the kprov-sim binary was not built");
        for (const char* name : {"KPROV_STORE", "APP_DATABASE_HOST", "APP_DATABSE_HOST",
                                 "APP_LOG_LEVEL", "KPROV_LOG_LEVEL", "KPROV_SUB_ACCOUNT",
                                 "APP_OPERATOR_ROLE_BINDING_CREATING_FOR_ADMIN"})
            unsetenv(name);
        setenv("HOME", m_dir.path().c_str(), 1);
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        setenv("APP_DATABASE_SECRET_KEY", k_secret_key.c_str(), 1);
        setenv("KPROV_TENANT", "ga-1", 1);

        m_gardener = std::make_unique<gardener::GardenerClient>(
            gardener::load_kubeconfig(m_sim->kubeconfig), k_project);
        sim_post("/sim/settings", k_fast_sim);
        if (kind == StoreKind::Postgres) {
            KPROV_FRESH_POSTGRES(db);
            m_postgres = std::move(db);
            m_store_url = m_postgres->url();
            const auto migrated = kprov({"migrate"});
            ASSERT_EQ(migrated.code, 0) << migrated.err;
        } else {
            m_store_url = "sqlite://" + m_dir.file("kprov.db");
        }
        stores::OpenOptions options;
        options.secret_key = k_secret_key;
        options.schema = stores::SchemaCheck::Migrate;
        m_store = stores::open_store(m_store_url, options);
    }

    void TearDown() override {
        if (m_gardener)
            sim_post("/sim/settings", k_fast_sim);
        unsetenv("KPROV_TENANT");
        unsetenv("APP_DATABASE_SECRET_KEY");
    }

    // kprov with `args` as given.
    static Result kprov_raw(const std::vector<std::string>& args) {
        std::ostringstream out, err;
        Result r;
        r.code = run(args, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }

    // kprov with `args` against this test's store and the simulator.
    Result kprov(std::vector<std::string> args) const {
        args.insert(args.end(), {"--store", m_store_url, "--gardener-kubeconfig",
                                 m_sim->kubeconfig.string(), "--gardener-project", k_project});
        return kprov_raw(args);
    }

    // The built kprov with `args` against this test's store and `gardener_kubeconfig` (the
    // simulator's when empty), as a process of its own run to its end (at most 120 s).
    kprov::testing::ProcessResult binary(std::vector<std::string> args,
                                         std::string gardener_kubeconfig = {}) const {
        if (gardener_kubeconfig.empty())
            gardener_kubeconfig = m_sim->kubeconfig.string();
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", m_store_url, "--gardener-kubeconfig",
                                 gardener_kubeconfig, "--gardener-project", k_project});
        auto env = kprov::testing::environment_without_settings();
        env.insert(env.end(), {"HOME=" + m_dir.path(), "XDG_CONFIG_HOME=" + m_dir.file("config"),
                               "XDG_STATE_HOME=" + m_dir.file("state"),
                               "APP_DATABASE_SECRET_KEY=" + k_secret_key, "KPROV_TENANT=ga-1"});
        return kprov::testing::run_process(args, env, m_dir.path(), 120s);
    }

    json sim_post(const std::string& path, const json& body) {
        return m_gardener->kube().create(path, body);
    }

    // A Secret in the project's namespace, such as the DNS credentials a shoot names: Gardener
    // (and so kprov-sim) refuses a credentialsRef to a Secret that is not there.
    // The sim lives as long as the test process, so an earlier test (or the other store's
    // variant) may have made the Secret already: 409 AlreadyExists is what the test wants.
    void sim_secret(const std::string& name) {
        try {
            sim_post("/api/v1/namespaces/garden-" + std::string(k_project) + "/secrets",
                     {{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"metadata", {{"name", name}}},
                      {"data", {{"key", "c2VjcmV0"}}}});
        } catch (const ::kprov::RemoteError& e) {
            if (e.http_status() != 409)
                throw;
        }
    }

    // A runtime file from examples/<example>.yaml with a shoot name of its own; returns the file
    // and the shoot name.
    std::pair<std::string, std::string> runtime_file(const std::string& example) {
        static int counter = 0;
        static const std::map<std::string, std::string> k_prefix = {
            {"aws", "aws"}, {"azure", "az"}, {"gcp", "gcp"}, {"openstack", "os"}};
        json document = read_runtime_file(k_examples + example + ".yaml");
        const std::string shoot = k_prefix.at(example) + "-t" + std::to_string(++counter);
        document["clusterConfig"]["gardenerConfig"]["name"] = shoot;
        // The full patch kprov-sim's default landscape defaults "1.34" to, so that the store and
        // Gardener agree (kprov does not resolve "1.34" itself yet).
        document["clusterConfig"]["gardenerConfig"]["kubernetesVersion"] = "1.34.6";
        const std::string file = m_dir.file(shoot + ".json");
        std::ofstream(file) << document.dump();
        return {file, shoot};
    }

    std::vector<engine::RuntimeSummary> all_runtimes() {
        engine::RuntimeFilter filter;
        filter.include_deleted = true;
        return m_store->list_runtimes(filter);
    }

    std::optional<json> shoot(const std::string& name) { return m_gardener->get_shoot(name); }

    engine::Operation stored_operation(const std::string& id) {
        const auto op = m_store->find_operation(id);
        if (!op)
            throw std::runtime_error("operation " + id + " is not in the store");
        return *op;
    }

    // The runtime's newest operation: of `type`, Succeeded, its lease released, and its stage
    // history covering `stages` and ending in Finished.
    engine::Operation expect_succeeded(const std::string& runtime_id, OperationType type,
                                       const std::vector<std::string>& stages) {
        const auto op = m_store->last_operation(runtime_id);
        EXPECT_TRUE(op.has_value());
        if (!op)
            return {};
        EXPECT_EQ(op->type, type);
        EXPECT_EQ(op->state, OperationState::Succeeded) << op->message;
        EXPECT_EQ(op->message, "Operation succeeded");
        EXPECT_TRUE(op->last_error.empty()) << op->last_error.message;
        EXPECT_FALSE(op->lease.has_value());
        EXPECT_TRUE(op->end_timestamp.has_value());
        const auto transitions = m_store->transitions_of(op->id);
        std::vector<std::string> seen;
        for (const auto& t : transitions)
            seen.push_back(t.to_stage);
        EXPECT_THAT(seen, IsSupersetOf(stages)) << engine::to_api(type);
        EXPECT_FALSE(transitions.empty());
        if (!transitions.empty()) {
            EXPECT_EQ(transitions.back().to_stage, "Finished");
            EXPECT_EQ(transitions.back().state, OperationState::Succeeded);
        }
        return *op;
    }

    testing::TempDir m_dir;
    kprov::testing::SimProcess* m_sim = nullptr;
    std::unique_ptr<kprov::testing::PostgresDatabase> m_postgres;
    std::string m_store_url;
    std::unique_ptr<stores::StoreBackend> m_store;
    std::unique_ptr<gardener::GardenerClient> m_gardener;
};

} // namespace kprov::cli::optest
