#pragma once
// The fixture of the Store contract suite (store_contract_test.cpp, store_contract_kyma_test.cpp):
// one suite, StoreContract, run against SQLite always and PostgreSQL when KPROV_TEST_PG_URI
// names a server (CI always provides one).

#include "engine/input/provider_config.hpp"
#include "stores/open_store.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <chrono>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace kprov::engine::store_contract {

using namespace std::chrono_literals;
using kprov::testing::k_t0;
using kprov::testing::new_operation;
using stores::OpenOptions;
using stores::SchemaCheck;
using stores::StoreBackend;

inline GardenerConfig azure_config(const std::string& id, const std::string& name) {
    GardenerConfig g;
    g.id = id;
    g.name = name;
    g.project_name = "kyma-dev";
    g.kubernetes_version = "1.30.4";
    g.volume_size_gb = 50;
    g.machine_type = "Standard_D4s_v5";
    g.machine_image = "gardenlinux";
    g.machine_image_version = "1443.3.0";
    g.region = "westeurope";
    g.provider = "Azure";
    g.purpose = "production";
    g.licence_type = "";
    g.seed = "az-eu1";
    g.target_secret = "azure-secret";
    g.disk_type = "Standard_LRS";
    g.worker_cidr = "10.250.0.0/16";
    g.pods_cidr = "100.64.0.0/12";
    g.services_cidr = "100.104.0.0/13";
    g.auto_scaler_min = 3;
    g.auto_scaler_max = 20;
    g.max_surge = 4;
    g.max_unavailable = 1;
    g.enable_kubernetes_version_auto_update = true;
    g.enable_machine_image_version_auto_update = false;
    g.exposure_class_name = "internet";
    g.provider_config =
        AzureConfig{"10.250.0.0/16", std::vector<std::string>{"1", "2"},
                    std::vector<AzureZone>{{1, "10.250.0.0/19"}, {2, "10.250.32.0/19"}}, true, 8};
    g.shoot_networking_filter_disabled = false;
    g.control_plane_failure_tolerance = "zone";
    g.eu_access = true;
    g.hibernation_schedules = {{"0 20 * * MON-FRI", "0 7 * * MON-FRI", "Europe/Berlin"},
                               {std::nullopt, "@daily", std::nullopt}};
    g.oidc = OidcConfig{"client-1",         "groups", "https://issuer.example.com",
                        {"RS256", "ES256"}, "sub",    "-"};
    g.dns = DnsConfig{
        "rt.kyma.example.com",
        {DnsProvider{
             {"rt.kyma.example.com", "other.example.com"}, true, "dns-secret", "aws-route53"},
         DnsProvider{{"x.example.com"}, false, "dns-secret-2", "azure-dns"}}};
    return g;
}

inline Runtime full_runtime(const std::string& id) {
    Runtime r;
    r.id = id;
    r.tenant = "tenant-a";
    r.sub_account_id = "sub-1";
    r.creation_timestamp = k_t0;
    r.name = "runtime " + id.substr(0, 8);
    r.description = "a runtime with everything";
    r.labels_json = R"({"env":"dev","owner":{"team":"kyma"}})";
    r.administrators = {"admin@example.com", "second@example.com"};
    r.gardener = azure_config(new_uuid(), "rt-" + id.substr(0, 6));
    return r;
}

inline Runtime minimal_runtime(const std::string& id, Timestamp created = k_t0) {
    Runtime r;
    r.id = id;
    r.tenant = "tenant-b";
    r.creation_timestamp = created;
    r.gardener.id = new_uuid();
    r.gardener.name = "min-" + id.substr(0, 6);
    r.gardener.project_name = "kyma-dev";
    r.gardener.kubernetes_version = "1.30.4";
    r.gardener.machine_type = "m5.xlarge";
    r.gardener.region = "eu-central-1";
    r.gardener.provider = "aws";
    r.gardener.target_secret = "aws-secret";
    r.gardener.worker_cidr = "10.250.0.0/16";
    r.gardener.auto_scaler_min = 1;
    r.gardener.auto_scaler_max = 3;
    r.gardener.max_surge = 1;
    r.gardener.provider_config =
        AwsConfig{"10.250.0.0/16",
                  {AwsZone{"eu-central-1a", "10.250.32.0/20", "10.250.48.0/20", "10.250.0.0/19"}}};
    return r;
}

using RawRows = std::vector<std::vector<std::optional<std::string>>>;

class StoreContract : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "sqlite") {
            m_url = "sqlite://" + m_dir.file("kprov.db");
        } else {
            KPROV_FRESH_POSTGRES(db);
            m_pg = std::move(db);
            m_url = m_pg->url();
        }
        m_store = open();
    }

    std::unique_ptr<StoreBackend> open() {
        OpenOptions options;
        options.secret_key = "0123456789abcdef0123456789abcdef";
        options.schema = SchemaCheck::Migrate;
        return stores::open_store(m_url, options);
    }

    // Runs `sql` on the database itself, beside the store (another connection): the rows as
    // they are stored, NULL as nullopt.
    RawRows raw(const std::string& sql) {
        RawRows out;
        if (GetParam() == "sqlite") {
            SQLite::Database db(m_dir.file("kprov.db"), SQLite::OPEN_READWRITE, 10000);
            SQLite::Statement st(db, sql);
            while (st.executeStep()) {
                auto& row = out.emplace_back();
                for (int i = 0; i < st.getColumnCount(); ++i)
                    row.push_back(st.isColumnNull(i) ? std::nullopt
                                                     : std::optional(st.getColumn(i).getString()));
            }
            return out;
        }
        pqxx::connection c{m_pg->url()};
        pqxx::work tx{c};
        for (const auto& r : tx.exec(sql)) {
            auto& row = out.emplace_back();
            for (const auto& f : r)
                row.push_back(f.is_null() ? std::nullopt : std::optional(f.as<std::string>()));
        }
        tx.commit();
        return out;
    }

    // Inserts a runtime with a provision operation already finished, so new operations may start.
    Runtime idle_runtime(Timestamp created = k_t0) {
        Runtime r = minimal_runtime(new_uuid(), created);
        Operation op = new_operation(r.id, OperationType::Provision, created);
        op.state = OperationState::Succeeded;
        op.stage = "Finished";
        op.end_timestamp = created + 1s;
        m_store->insert_runtime(r, op);
        return r;
    }

    // A release of `version`, stored (a Kyma config's release must be).
    KymaRelease stored_release(const std::string& version = "2.4.1") {
        return m_store->insert_kyma_release(
            {"", version, "tiller: " + version + "\n", "installer: " + version + "\n"});
    }

    testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::PostgresDatabase> m_pg;
    std::string m_url;
    std::unique_ptr<StoreBackend> m_store;
};

/// A Kyma config of runtime `runtime_id` on `release` with everything set: a profile, global
/// and component overrides with secrets, a sourceURL and both conflict strategies.
inline KymaConfig full_kyma(const std::string& runtime_id, const KymaRelease& release) {
    KymaConfig k;
    k.id = new_uuid();
    k.cluster_id = runtime_id;
    k.release = release;
    k.profile = KymaProfile::Production;
    k.global = {{{"global.domainName", "rt.kyma.example.com", false},
                 {"global.adminPassword", "s3cr3t-global-pw", true}},
                "Merge"};
    k.components = {
        {new_uuid(), "cluster-essentials", "kyma-system", std::nullopt, {}, 1},
        {new_uuid(),
         "compass-runtime-agent",
         "compass-system",
         "https://example.com/agent.tgz",
         {{{"director.token", "t0k3n-component-secret", true}, {"replicas", "2", false}},
          "Replace"},
         2},
        {new_uuid(), "istio", "istio-system", std::nullopt, {{}, ""}, 3},
    };
    return k;
}

} // namespace kprov::engine::store_contract
