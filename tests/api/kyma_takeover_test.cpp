// A database the original provisioner left behind, with its Kyma rows (tests/stores/data/
// original_provisioner.sql: two releases, a config before and one after an upgrade with
// component_order NULL, 0, 1 and 2, plaintext secret overrides, a SUCCEEDED runtime_upgrade), is
// taken over by `kprov migrate`; `kprov status` and the API's runtimeStatus read the active
// config back field by field, as the original showed it. The store-level reads are in
// tests/stores/postgres_takeover_test.cpp.

#include "serve_fixture.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <pqxx/pqxx>

namespace kprov::api::testing {
namespace {

const std::string k_original_key = "kprov-takeover-test-key-32-bytes";
const std::string k_runtime = "11111111-1111-4111-8111-111111111111";

// The original's active config c1 as GraphQL KymaConfig: components by component_order (NULL
// as 0, ties in id order), secret values in plaintext, conflict strategies not shown.
const json k_expected = json::parse(R"({
  "version": "2.0.0",
  "profile": "Production",
  "components": [
    {"component": "cluster-essentials", "namespace": "kyma-system", "configuration": [],
     "sourceURL": null},
    {"component": "istio", "namespace": "istio-system",
     "configuration": [{"key": "gateways.replicas", "value": "3", "secret": false}],
     "sourceURL": null},
    {"component": "compass-runtime-agent", "namespace": "compass-system",
     "configuration": [{"key": "director.token", "value": "original-agent-token", "secret": true}],
     "sourceURL": null},
    {"component": "serverless", "namespace": "kyma-system", "configuration": [],
     "sourceURL": "https://storage.example.com/serverless-2.0.0.tgz"}
  ],
  "configuration": [
    {"key": "global.domainName", "value": "c-gcp01.kyma.example.com", "secret": false},
    {"key": "global.adminPassword", "value": "original-plain-secret", "secret": true}
  ]
})");

// The same over the API, which masks secret values (issue 32, finding 5).
json masked(json kyma) {
    const auto mask = [](json& entries) {
        for (auto& entry : entries)
            if (entry["secret"] == true)
                entry["value"] = "********";
    };
    mask(kyma["configuration"]);
    for (auto& component : kyma["components"])
        mask(component["configuration"]);
    return kyma;
}

class KymaTakeover : public ServeTest<> {
protected:
    void SetUp() override {
        KPROV_FRESH_POSTGRES(db);
        m_db = std::move(db);
        std::ifstream in(KPROV_SOURCE_DIR "/tests/stores/data/original_provisioner.sql");
        std::ostringstream sql;
        sql << in.rdbuf();
        pqxx::connection c{m_db->url()};
        pqxx::work tx{c};
        tx.exec(sql.str());
        tx.commit();
    }

    ServeOptions options() const {
        ServeOptions o;
        o.store_url = m_db->url(); // ServeProcess migrates it before serving
        o.extra_env = {"APP_DATABASE_SECRET_KEY=" + k_original_key};
        return o;
    }

    std::unique_ptr<kprov::testing::PostgresDatabase> m_db;
};

TEST_F(KymaTakeover, StatusAndRuntimeStatusShowTheOriginalsActiveConfig) {
    start(options());
    ASSERT_TRUE(process->serve) << process->log();

    // The CLI, against the same migrated database.
    auto env = process->env();
    const auto r = kprov::testing::run_process(process->argv({"status", k_runtime, "-o", "json"}),
                                               env, process->dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json status = json::parse(r.out);
    const json& kyma = status["runtimeConfiguration"]["kymaConfig"];
    EXPECT_EQ(kyma, k_expected) << kyma.dump(2);
    // The newest Kyma operation is the original's SUCCEEDED upgrade.
    EXPECT_EQ(status["kymaInstallation"]["state"], "Installed");
    EXPECT_EQ(status["kymaInstallation"]["operationID"], "0e000000-1111-4000-8000-000000000003");

    // The API, as the Kyma Environment Broker asks.
    const Answer a = process->graphql(
        "query($id: String!) { runtimeStatus(id: $id) { runtimeConfiguration { kymaConfig { "
        "version profile components { component namespace configuration { key value secret } "
        "sourceURL } configuration { key value secret } } } } }",
        {{"id", k_runtime}}, {{"Tenant", "tenant-gcp"}});
    ASSERT_EQ(a.error(), "") << a.body;
    EXPECT_EQ(a.data()["runtimeStatus"]["runtimeConfiguration"]["kymaConfig"], masked(k_expected))
        << a.body;
    EXPECT_EQ(a.body.find("original-plain-secret"), std::string::npos);
    EXPECT_EQ(a.body.find("original-agent-token"), std::string::npos);

    // Its last operation is the original's shoot upgrade, not the Kyma upgrade before it: no
    // rollback (§3.4), and nothing changes.
    const Answer refused = process->graphql(
        "mutation($id: String!) { rollBackUpgradeOperation(id: $id) { lastOperationStatus { id } "
        "} }",
        {{"id", k_runtime}}, {{"Tenant", "tenant-gcp"}});
    EXPECT_EQ(refused.error(), "id: error: upgrade can be rolled back only if it is the last "
                               "operation that is already finished")
        << refused.body;
    EXPECT_EQ(process->open_store()->find_runtime_status(k_runtime)->runtime.kyma->release.version,
              "2.0.0");
}

} // namespace
} // namespace kprov::api::testing
