// kprov-bench-execute: the GraphQL path of kprov serve without HTTP, for profiles. Runs the
// benchmark's runtimeOperationStatus or runtimeStatus query (bench/graphql_request.lua's) through
// graphql::execute() with kprov's resolvers over a seeded store, one request after another on
// one thread, and prints the mean time per request. Under `valgrind --tool=callgrind` or
// `perf record` it shows where a request's CPU goes without the kernel's share and the event
// loops (bench/README.md, "GraphQL API").
//
//   kprov-bench-execute STORE_URL IDS_FILE operation|status [REQUESTS]
// IDS_FILE: "operation_id runtime_id tenant" per line, as bench/graphql.sh writes it.
// APP_DATABASE_SECRET_KEY must be the key the store was seeded with.

#include "api/graphql/graphql.hpp"
#include "api/resolvers.hpp"
#include "api/server.hpp"
#include "engine/engine_options.hpp"
#include "stores/open_store.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace kprov;

constexpr const char* k_operation_query =
    "query OperationStatus($id: String!) { runtimeOperationStatus(id: $id) { id operation state "
    "message runtimeID compassRuntimeID lastError { errMessage reason component } } }";

constexpr const char* k_status_query =
    "query RuntimeStatus($id: String!) { runtimeStatus(id: $id) { lastOperationStatus { id "
    "operation state message runtimeID lastError { errMessage reason component } } "
    "runtimeConfiguration { clusterConfig { name kubernetesVersion provider region seed "
    "machineType machineImage diskType volumeSizeGB workerCidr autoScalerMin autoScalerMax "
    "maxSurge maxUnavailable purpose euAccess oidcConfig { clientID issuerURL } "
    "providerSpecificConfig { __typename ... on GCPProviderConfig { zones } ... on "
    "AWSProviderConfig { vpcCidr awsZones { name workerCidr } } } } } } }";

struct Target {
    std::string id;
    std::string tenant;
};

int usage() {
    std::cerr << "usage: kprov-bench-execute STORE_URL IDS_FILE operation|status [REQUESTS]\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4 || argc > 5)
        return usage();
    const std::string mode = argv[3];
    if (mode != "operation" && mode != "status")
        return usage();
    const long requests = argc == 5 ? std::atol(argv[4]) : 100000;
    if (requests <= 0)
        return usage();
    const char* key = std::getenv("APP_DATABASE_SECRET_KEY");
    if (!key) {
        std::cerr << "kprov-bench-execute: set APP_DATABASE_SECRET_KEY\n";
        return 2;
    }

    std::vector<Target> targets;
    std::ifstream ids(argv[2]);
    std::string operation_id, runtime_id, tenant;
    while (ids >> operation_id >> runtime_id >> tenant)
        targets.push_back({mode == "operation" ? operation_id : runtime_id, tenant});
    if (targets.empty()) {
        std::cerr << "kprov-bench-execute: no ids in " << argv[2] << "\n";
        return 1;
    }

    stores::OpenOptions open;
    open.secret_key = key;
    open.schema = stores::SchemaCheck::Require;
    const auto store = stores::open_store(argv[1], open);
    const auto schema = api::graphql::load_schema(api::provisioner_schema_sdl());
    const engine::EngineOptions options;
    api::ResolverDeps deps;
    deps.store = store.get();
    deps.options = &options;
    const auto resolvers = api::provisioner_resolvers(deps);
    api::graphql::DocumentCache documents;

    std::size_t bytes = 0;
    long failed = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < requests; ++i) {
        // A stride through the ids, so that consecutive requests read different rows.
        const Target& t = targets[static_cast<std::size_t>(i * 7919) % targets.size()];
        api::graphql::Request request;
        request.query = mode == "operation" ? k_operation_query : k_status_query;
        request.variables = {{"id", t.id}};
        std::any state = api::RequestState{t.tenant, "", true};
        const auto response =
            api::graphql::execute(*schema, resolvers, request, state, {}, &documents);
        bytes += response.text.size();
        if (response.text.find("\"errors\"") != std::string::npos)
            ++failed;
    }
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    std::cout << mode << ": " << requests << " requests, " << took.count() / requests
              << " us per request, " << bytes / requests << " bytes per answer, " << failed
              << " with errors\n";
    return failed == 0 ? 0 : 1;
}
