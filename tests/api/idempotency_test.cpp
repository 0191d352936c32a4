// `kprov serve` as the Kyma Environment Broker meets it after a client-side timeout: the same
// provisionRuntime again (and again, at once) is answered with the first one's operation; a
// different one for the same shoot name is refused with 400, naming the owner. And the tenant
// rule of queries, recorded in the runtime's history like a mutation's. SQLite and PostgreSQL.

#include "serve_fixture.hpp"

#include <chrono>
#include <set>
#include <thread>

namespace kprov::api::testing {
namespace {

const std::string k_provision =
    "mutation ($config: ProvisionRuntimeInput!) { provisionRuntime(config: $config) { id "
    "runtimeID operation state message } }";

class Idempotency : public ServeTest<::testing::TestWithParam<bool>> {
protected:
    void SetUp() override {
        ServeOptions options;
        if (GetParam()) {
            KPROV_FRESH_POSTGRES(db);
            m_db = std::move(db);
            options.store_url = m_db->url();
        }
        start(std::move(options));
    }

    std::unique_ptr<stores::StoreBackend> store() const { return process->open_store(); }

    std::unique_ptr<kprov::testing::PostgresDatabase> m_db;
};

INSTANTIATE_TEST_SUITE_P(Stores, Idempotency, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Postgres" : "Sqlite"; });

TEST_P(Idempotency, ConcurrentIdenticalRequestsGetOneRuntime) {
    const json input = example("azure", "gq-twice");
    constexpr int k_callers = 8;
    std::vector<Answer> answers(k_callers);
    {
        std::vector<std::thread> callers;
        for (int i = 0; i < k_callers; ++i)
            callers.emplace_back([&, i] {
                answers[i] = process->graphql(k_provision, {{"config", input}});
            });
        for (auto& t : callers)
            t.join();
    }
    std::set<std::pair<std::string, std::string>> ids;
    for (const auto& a : answers) {
        ASSERT_EQ(a.status, 200) << a.body;
        const json& op = a.data()["provisionRuntime"];
        ASSERT_TRUE(op.is_object()) << a.body;
        EXPECT_EQ(op["operation"], "Provision");
        ids.emplace(op["runtimeID"], op["id"]);
    }
    ASSERT_EQ(ids.size(), 1U) << "every caller gets the same runtime and operation";
    const auto [runtime_id, operation_id] = *ids.begin();
    engine::RuntimeFilter all;
    all.include_deleted = true;
    EXPECT_EQ(store()->list_runtimes(all).size(), 1U);
    EXPECT_EQ(process->wait_for_operation(operation_id)["state"], "Succeeded");

    // Sent again after it succeeded: still its operation, now Succeeded.
    Answer again = process->graphql(k_provision, {{"config", input}});
    EXPECT_EQ(again.data()["provisionRuntime"]["id"], operation_id) << again.body;
    EXPECT_EQ(again.data()["provisionRuntime"]["state"], "Succeeded");

    // Another request for the same shoot name: refused at once, so KEB does not retry.
    json other = input;
    other["clusterConfig"]["gardenerConfig"]["autoScalerMax"] = 7;
    const Answer refused = process->graphql(k_provision, {{"config", other}});
    EXPECT_TRUE(refused.data()["provisionRuntime"].is_null()) << refused.body;
    EXPECT_NE(refused.error().find(runtime_id), std::string::npos) << refused.body;
    EXPECT_EQ(refused.extensions()["error_code"], 400) << refused.body;
    const Answer other_tenant =
        process->graphql(k_provision, {{"config", input}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(other_tenant.extensions()["error_code"], 400) << other_tenant.body;
    EXPECT_EQ(store()->list_runtimes(all).size(), 1U);

    // Deprovisioned, the name is free again.
    const Answer down = process->graphql("mutation ($id: String!) { deprovisionRuntime(id: $id) }",
                                         {{"id", runtime_id}});
    ASSERT_TRUE(down.data()["deprovisionRuntime"].is_string()) << down.body;
    EXPECT_EQ(process->wait_for_operation(down.data()["deprovisionRuntime"])["state"], "Succeeded");
    const Answer anew = process->graphql(k_provision, {{"config", other}});
    ASSERT_TRUE(anew.data()["provisionRuntime"].is_object()) << anew.body;
    EXPECT_NE(anew.data()["provisionRuntime"]["runtimeID"], runtime_id);
}

TEST_P(Idempotency, ATenantRewrittenByAQueryIsInTheHistory) {
    const Answer a = process->graphql(k_provision, {{"config", example("gcp", "gq-history")}});
    const json op = a.data()["provisionRuntime"];
    ASSERT_TRUE(op.is_object()) << a.body;
    const std::string runtime_id = op["runtimeID"];
    EXPECT_EQ(process->wait_for_operation(op["id"])["state"], "Succeeded");

    const Answer moved = process->graphql(
        "query($id: String!) { runtimeStatus(id: $id) { lastOperationStatus { id } } }",
        {{"id", runtime_id}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(moved.data()["runtimeStatus"]["lastOperationStatus"]["id"], op["id"]) << moved.body;
    const auto s = store();
    // A query answered on the event loop writes its rewrite right after the answer.
    for (int i = 0; i < 100 && s->find_runtime(runtime_id)->tenant != "tenant-b"; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(s->find_runtime(runtime_id)->tenant, "tenant-b");
    std::string history;
    for (const auto& t : s->transitions_of(op["id"]))
        history += t.message + "\n";
    EXPECT_NE(history.find("changed from \"tenant-a\" to \"tenant-b\" by a runtimeStatus query"),
              std::string::npos)
        << history;

    // A mutation's rewrite lands in the history of its own operation, the same way.
    const Answer hibernate =
        process->graphql("mutation ($id: String!) { hibernateRuntime(id: $id) { id } }",
                         {{"id", runtime_id}}, {{"Tenant", "tenant-c"}});
    const json started = hibernate.data()["hibernateRuntime"];
    ASSERT_TRUE(started.is_object()) << hibernate.body;
    history.clear();
    for (const auto& t : s->transitions_of(started["id"]))
        history += t.message + "\n";
    EXPECT_NE(history.find("changed from \"tenant-b\" to \"tenant-c\" by operation"),
              std::string::npos)
        << history;
}

// A protected runtime (kprov protect) is not deprovisioned through the API either: KEB gets a
// 400, which it does not retry, and nothing is started; unprotected, the same call works.
TEST_P(Idempotency, AProtectedRuntimeRefusesDeprovisionRuntime) {
    const Answer a = process->graphql(k_provision, {{"config", example("aws", "gq-protected")}});
    const json op = a.data()["provisionRuntime"];
    ASSERT_TRUE(op.is_object()) << a.body;
    const std::string runtime_id = op["runtimeID"];
    EXPECT_EQ(process->wait_for_operation(op["id"])["state"], "Succeeded");
    const auto s = store();
    ASSERT_TRUE(s->set_protected(runtime_id, true, {kprov::Timestamp{}, "Protect", "test"}));

    const std::string k_deprovision = "mutation ($id: String!) { deprovisionRuntime(id: $id) }";
    const Answer refused = process->graphql(k_deprovision, {{"id", runtime_id}});
    EXPECT_TRUE(refused.data().is_null()) << "String! errs the whole data: " << refused.body;
    EXPECT_EQ(refused.extensions()["error_code"], 400) << refused.body;
    EXPECT_NE(refused.error().find("is protected against deprovisioning"), std::string::npos)
        << refused.body;
    EXPECT_EQ(s->operations_of(runtime_id).size(), 1U);

    ASSERT_TRUE(s->set_protected(runtime_id, false, {kprov::Timestamp{}, "Unprotect", "test"}));
    const Answer down = process->graphql(k_deprovision, {{"id", runtime_id}});
    ASSERT_TRUE(down.data()["deprovisionRuntime"].is_string()) << down.body;
    EXPECT_EQ(process->wait_for_operation(down.data()["deprovisionRuntime"])["state"], "Succeeded");
}

} // namespace
} // namespace kprov::api::testing
