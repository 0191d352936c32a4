// The pieces of kprov serve that need no server: error presentation, listen addresses, the
// metrics and the store wrapper that feeds them, the playground page.

#include "api/errors.hpp"
#include "api/graphql/graphql.hpp"
#include "api/graphql/schema.hpp"
#include "api/metrics.hpp"
#include "api/resolvers.hpp"
#include "api/server.hpp"
#include "engine/error.hpp"
#include "engine/service/service.hpp"
#include "engine/status_tree.hpp"
#include "gardener/kube_error.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_gardener.hpp"
#include "support/fake_store.hpp"
#include "support/store_fixtures.hpp"

#include <gtest/gtest.h>

namespace kprov::api {
namespace {

using nlohmann::json;

json extensions_of(const std::exception& e) {
    return to_field_error(e).extensions;
}

// The resolvers build RuntimeStatus as graphql::Value from the same templates that build the
// CLI's JSON: both must hold the same members and values, for every provider and optional part.
TEST(StatusTree, TheApiBuildsTheStatusTheCliPrints) {
    using engine::AwsConfig;
    using engine::AzureConfig;
    using engine::GcpConfig;
    using engine::OpenStackConfig;
    engine::Runtime runtime = kprov::testing::small_runtime("rt-1");
    runtime.gardener.oidc =
        engine::OidcConfig{"client", "groups", "https://issuer", {"RS256"}, "sub", "-"};
    runtime.gardener.dns = engine::DnsConfig{"example.org", {{{"a.org", "b.org"}, true, "s", "t"}}};
    runtime.gardener.machine_image = "gardenlinux";
    runtime.gardener.volume_size_gb = 50;
    runtime.kyma = engine::KymaConfig{};
    runtime.kyma->release.version = "2.0";
    runtime.kyma->profile = engine::KymaProfile::Production;
    runtime.kyma->components.push_back(
        {"id-c", "c", "n", std::nullopt, {{{"k", "v", true}}, ""}, 1});
    runtime.kyma->global = {{{"g", "w", false}}, "Replace"};
    auto op = kprov::testing::new_operation("rt-1");
    op.last_error = {"broke", "ERR_X", "gardener"};
    engine::RuntimeStatusExtras extras;
    extras.compass_runtime_id = "compass-1";
    extras.kubeconfig = "apiVersion: v1";
    extras.hibernation = engine::HibernationStatus{true, std::nullopt};
    const std::vector<engine::ProviderConfig> providers = {
        GcpConfig{{"europe-west3-a"}},
        AzureConfig{"10.0.0.0/16", std::vector<std::string>{"1"},
                    std::vector<engine::AzureZone>{{1, "10.0.1.0/24"}}, true, 4},
        AzureConfig{"10.0.0.0/16", std::nullopt, std::nullopt, std::nullopt, std::nullopt},
        AwsConfig{"10.1.0.0/16", {engine::AwsZone{"z", "p", "i", "w"}}},
        OpenStackConfig{{"a"}, "pool", "profile", "f5"}};
    for (const auto& provider : providers) {
        runtime.gardener.provider_config = provider;
        const json printed = json::parse(engine::runtime_status_json(runtime, op, extras).dump());
        const json built =
            engine::status_tree::runtime_status<graphql::Value>(runtime, op, extras).to_json();
        EXPECT_EQ(built, printed) << printed.dump();
    }
    runtime.kyma.reset();
    EXPECT_EQ(
        engine::status_tree::runtime_status<graphql::Value>(runtime, std::nullopt, {}).to_json(),
        json::parse(engine::runtime_status_json(runtime, std::nullopt).dump()));
}

TEST(ApiErrors, PresentsKprovErrorsAsTheOriginal) {
    EXPECT_EQ(extensions_of(ValidationError("a.b", "is required")),
              json({{"error_code", 400},
                    {"error_reason", "err_provisioner_internal"},
                    {"error_component", "provisioner"}}));
    const OperationInProgress busy("rt-1");
    EXPECT_EQ(to_field_error(busy).what(),
              std::string("cannot start new operation for rt-1 Runtime while previous one is in "
                          "progress"));
    EXPECT_EQ(extensions_of(busy)["error_code"], 400);
    EXPECT_EQ(extensions_of(engine::TenantMismatch("other tenant"))["error_code"], 403);
    EXPECT_EQ(extensions_of(NotFound("runtime \"x\" not found")),
              json({{"error_code", 2},
                    {"error_reason", "err_db_not_found"},
                    {"error_component", "db - provisioner"}}));
    EXPECT_EQ(extensions_of(StoreError("connection refused")),
              json({{"error_code", 1},
                    {"error_reason", "err_db_internal"},
                    {"error_component", "db - provisioner"}}));
    EXPECT_EQ(extensions_of(Error("something"))["error_code"], 500);
}

TEST(ApiErrors, PresentsKubernetesErrorsWithTheirReasonAndComponent) {
    const gardener::KubeError forbidden("gardener: GET /x: 403 Forbidden", 403, false, "Forbidden",
                                        {}, "GET /x", "k8s client - gardener");
    EXPECT_EQ(extensions_of(forbidden), json({{"error_code", 403},
                                              {"error_reason", "Forbidden"},
                                              {"error_component", "k8s client - gardener"}}));
    const gardener::KubeError conflict("gardener: POST /x: 409", 409, true, "AlreadyExists", {},
                                       "POST /x", "k8s client - gardener");
    EXPECT_EQ(extensions_of(conflict)["error_code"], 500);
    EXPECT_EQ(extensions_of(conflict)["error_reason"], "AlreadyExists");
}

TEST(ApiErrors, HidesWhatIsNotAKprovError) {
    const auto e = to_field_error(std::out_of_range("vector::at"));
    EXPECT_EQ(std::string(e.what()), "internal system error");
    EXPECT_EQ(e.extensions["error_code"], 500);
    // FieldErrors pass through.
    const auto same = to_field_error(bad_request("tenant header is empty"));
    EXPECT_EQ(std::string(same.what()), "tenant header is empty");
}

TEST(ListenAddress, SplitsHostAndPort) {
    EXPECT_EQ(split_address("127.0.0.1:3000"), std::make_pair(std::string("127.0.0.1"), 3000));
    EXPECT_EQ(split_address(":9000"), std::make_pair(std::string("0.0.0.0"), 9000));
    EXPECT_EQ(split_address("[::1]:0"), std::make_pair(std::string("::1"), 0));
    for (const char* bad : {"3000", "host:", "host:65536", "host:-1", "::1:80", "h:12a"})
        EXPECT_THROW(split_address(bad), ConfigError) << bad;
}

engine::Operation operation(engine::OperationType type, engine::OperationState state) {
    engine::Operation op;
    op.id = "op-1";
    op.cluster_id = "rt-1";
    op.type = type;
    op.state = state;
    op.start_timestamp = Timestamp(std::chrono::seconds(1000));
    if (state != engine::OperationState::InProgress)
        op.end_timestamp = Timestamp(std::chrono::seconds(1090));
    return op;
}

TEST(ApiMetrics, CountsWhatWorkersWriteThroughTheStore) {
    fakes::FakeStore inner;
    Metrics metrics(inner);
    const auto store = metered_store(inner, metrics);
    engine::Runtime runtime;
    runtime.id = "rt-1";
    auto op = operation(engine::OperationType::Provision, engine::OperationState::InProgress);
    store->insert_runtime(runtime, op);
    const auto claimed = store->claim(op.id, "me", op.start_timestamp, std::chrono::minutes(1));
    ASSERT_TRUE(claimed);

    auto done = operation(engine::OperationType::Provision, engine::OperationState::Succeeded);
    std::vector<engine::StageTransition> transitions = {
        {op.id, "CreatingShoot", "WaitingForClusterDomain", engine::OperationState::InProgress, "",
         op.start_timestamp},
        {op.id, "WaitingForClusterDomain", "WaitingForClusterDomain",
         engine::OperationState::Succeeded, "", op.start_timestamp}};
    store->save_progress(done, "me", op.start_timestamp, transitions, {}, true);
    metrics.api_request("/graphql", 200, 0.002);
    metrics.gardener_request("POST", 201);

    const std::string text = metrics.scrape();
    for (const char* line :
         {"kprov_stage_transitions_total{operation=\"PROVISION\",stage=\"WaitingForClusterDomain\"}"
          " 1",
          "kprov_operation_duration_seconds_sum{operation=\"PROVISION\",state=\"SUCCEEDED\"} 90",
          "kprov_in_progress_operations{operation=\"PROVISION\"} 0",
          "kcp_provisioner_in_progress_provision_no_install_operations_total 0",
          "kprov_api_requests_total{code=\"200\",path=\"/graphql\"} 1",
          "kprov_gardener_requests_total{code=\"201\",verb=\"POST\"} 1"})
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

TEST(ApiMetrics, CountsOperationsInProgressAtScrape) {
    fakes::FakeStore store;
    Metrics metrics(store);
    engine::Runtime runtime;
    runtime.id = "rt-1";
    store.insert_runtime(
        runtime, operation(engine::OperationType::Provision, engine::OperationState::InProgress));
    const std::string text = metrics.scrape();
    EXPECT_NE(text.find("kprov_in_progress_operations{operation=\"PROVISION\"} 1"),
              std::string::npos)
        << text;
    // The original's gauge counted only PROVISION_NO_INSTALL (always 0); kprov's counts both.
    EXPECT_NE(text.find("kcp_provisioner_in_progress_provision_no_install_operations_total 1"),
              std::string::npos)
        << text;
}

// The provisioner's resolvers over a fake store holding runtime rt-1 of tenant-a, with its
// succeeded provisioning.
struct ResolversOverFakeStore {
    explicit ResolversOverFakeStore(bool deleted = false) {
        engine::Runtime runtime;
        runtime.id = "rt-1";
        runtime.tenant = "tenant-a";
        runtime.deleted = deleted;
        store.insert_runtime(runtime, op);
        ResolverDeps deps;
        deps.store = &store;
        deps.service = &service;
        deps.options = &options;
        resolvers = provisioner_resolvers(deps);
    }

    graphql::Response execute(const std::string& query, std::any& state) const {
        graphql::Request request;
        request.query = query;
        request.allow_mutations = true;
        return graphql::execute(*schema, resolvers, request, state);
    }

    fakes::FakeStore store;
    const engine::EngineOptions options;
    fakes::FakeClock clock{Timestamp{}};
    fakes::FakeGardener gardener{clock};
    engine::EngineService service{[this] {
                                      engine::EnginePorts ports;
                                      ports.store = &store;
                                      ports.shoots = &gardener;
                                      ports.clock = &clock;
                                      return ports;
                                  }(),
                                  options};
    const engine::Operation op =
        operation(engine::OperationType::Provision, engine::OperationState::Succeeded);
    graphql::Resolvers resolvers;
    const std::shared_ptr<const graphql::Schema> schema =
        graphql::load_schema(provisioner_schema_sdl());
};

// A query whose Tenant header differs from the stored tenant rewrites it, as the original's
// GetAndUpdateTenant does. On an event loop the resolver must not wait on a store write: it
// answers and leaves the rewrite in RequestState::writes, for the server to run on a worker.
TEST(ApiResolvers, RewriteTheTenantOnlyOffTheEventLoop) {
    ResolversOverFakeStore api;
    const std::string query = "{ runtimeOperationStatus(id: \"" + api.op.id + "\") { id } }";

    std::any on_loop = RequestState{"tenant-b", "", true};
    auto response = api.execute(query, on_loop);
    EXPECT_EQ(json::parse(response.text)["data"]["runtimeOperationStatus"]["id"], api.op.id)
        << response.text;
    auto& loop_state = std::any_cast<RequestState&>(on_loop);
    ASSERT_EQ(loop_state.writes.size(), 1u);
    EXPECT_FALSE(loop_state.reusable) << "it will write";
    EXPECT_EQ(api.store.find_runtime("rt-1")->tenant, "tenant-a") << "not yet";
    loop_state.writes.front()(); // what the server runs on a worker after answering
    EXPECT_EQ(api.store.find_runtime("rt-1")->tenant, "tenant-b");

    std::any on_worker = RequestState{"tenant-c", "", false};
    response = api.execute(query, on_worker);
    EXPECT_TRUE(std::any_cast<RequestState&>(on_worker).writes.empty());
    EXPECT_EQ(api.store.find_runtime("rt-1")->tenant, "tenant-c");
    EXPECT_FALSE(std::any_cast<RequestState&>(on_worker).reusable) << "it wrote";

    // The same tenant needs no write.
    std::any same = RequestState{"tenant-c", "", true};
    api.execute(query, same);
    EXPECT_TRUE(std::any_cast<RequestState&>(same).writes.empty());
    EXPECT_TRUE(std::any_cast<RequestState&>(same).reusable);
}

// The answer cache keeps an answer only when every resolver that ran read nothing but the
// store: the two status queries. Mutations write; the lazy fields ask Gardener.
TEST(ApiResolvers, OnlyTheStatusQueriesLeaveTheAnswerReusable) {
    const ResolversOverFakeStore api(true); // deleted: the lazy fields answer null, no Gardener
    const auto reusable = [&](const std::string& query) {
        std::any state = RequestState{"tenant-a", "", false};
        const auto response = api.execute(query, state);
        EXPECT_EQ(response.outcome, graphql::Response::Outcome::Executed) << response.text;
        return std::any_cast<RequestState&>(state).reusable;
    };
    EXPECT_TRUE(reusable("{ runtimeOperationStatus(id: \"" + api.op.id + "\") { id state } }"));
    EXPECT_TRUE(reusable("{ runtimeStatus(id: \"rt-1\") { lastOperationStatus { id } "
                         "runtimeConfiguration { clusterConfig { name } } } }"));
    EXPECT_TRUE(reusable("{ __schema { queryType { name } } }"));
    EXPECT_FALSE(reusable("{ runtimeStatus(id: \"rt-1\") { runtimeConfiguration { kubeconfig } "
                          "} }"));
    EXPECT_FALSE(reusable("{ runtimeStatus(id: \"rt-1\") { hibernationStatus { hibernated } } }"));
    EXPECT_FALSE(reusable("mutation { reconnectRuntimeAgent(id: \"rt-1\") }"));
    EXPECT_FALSE(reusable("mutation { rollBackUpgradeOperation(id: \"rt-1\") { "
                          "lastOperationStatus { id } } }"));
}

TEST(Playground, IsSelfContainedAndPostsToTheEndpoint) {
    const std::string page = playground_page("/api/\"graphql</script>");
    EXPECT_NE(page.find("var endpoint = \"/api/\\x22graphql\\x3c/script\\x3e\""),
              std::string::npos);
    EXPECT_EQ(page.find("<script src"), std::string::npos);
    EXPECT_EQ(page.find("<link"), std::string::npos);
}

} // namespace
} // namespace kprov::api
