// `kprov serve` over real HTTP against kprov-sim: the Kyma Environment Broker's calls for every
// provider (inputs inlined as literals and as variables), the whole operation lifecycle, and
// the original's errors, on SQLite and PostgreSQL.

#include "cli/runtime_file.hpp"
#include "gardener/test_certs.hpp"
#include "serve_fixture.hpp"
#include "stores/open_store.hpp"

#include <algorithm>
#include <set>

namespace kprov::api::testing {
namespace {

const std::string k_operation_fields = "id operation state message runtimeID compassRuntimeID "
                                       "lastError { errMessage reason component }";

// Every field of RuntimeStatus, the provider union through inline fragments. Azure's
// deprecated `zones` is nullable where the others' are not, so it needs its own response name.
const std::string k_runtime_status_query = R"(
query RuntimeStatus($id: String!) {
  runtimeStatus(id: $id) {
    lastOperationStatus { id operation state message runtimeID compassRuntimeID
                          lastError { errMessage reason component } }
    runtimeConnectionStatus { status errors { message } }
    runtimeConfiguration {
      kubeconfig
      kymaConfig { version profile components { component namespace sourceURL
                   configuration { key value secret } } configuration { key value secret } }
      clusterConfig {
        name kubernetesVersion targetSecret provider region seed machineType machineImage
        machineImageVersion diskType volumeSizeGB workerCidr podsCidr servicesCidr
        autoScalerMin autoScalerMax maxSurge maxUnavailable purpose licenceType
        enableKubernetesVersionAutoUpdate enableMachineImageVersionAutoUpdate exposureClassName
        shootNetworkingFilterDisabled controlPlaneFailureTolerance euAccess
        dnsConfig { domain providers { domainsInclude primary secretName type } }
        oidcConfig { clientID groupsClaim issuerURL signingAlgs usernameClaim usernamePrefix }
        providerSpecificConfig {
          __typename
          ... on GCPProviderConfig { zones }
          ... on AzureProviderConfig { vnetCidr azureZoneNames: zones azureZones { name cidr }
                                       enableNatGateway idleConnectionTimeoutMinutes }
          ... on AWSProviderConfig { awsZones { name publicCidr internalCidr workerCidr } vpcCidr }
          ... on OpenStackProviderConfig { zones floatingPoolName cloudProfileName
                                           loadBalancerProvider }
        }
      }
    }
    hibernationStatus { hibernated hibernationPossible }
  }
})";

// A status query of the kind clients poll (the answer cache's tests).
const std::string k_reused_query =
    "query($id: String!) { runtimeStatus(id: $id) { lastOperationStatus { id operation state } "
    "runtimeConfiguration { clusterConfig { name machineType } } } }";

const std::map<std::string, std::string> k_typenames = {
    {"gcp", "GCPProviderConfig"},
    {"azure", "AzureProviderConfig"},
    {"aws", "AWSProviderConfig"},
    {"openstack", "OpenStackProviderConfig"},
};

struct Started {
    std::string provider;
    json input;
    std::string runtime_id;
    std::string operation_id;
};

class Serve : public ServeTest<> {
protected:
    // provisionRuntime with the input inlined as a literal (as the Kyma Environment Broker
    // renders it) or passed as a variable.
    Started provision(const std::string& provider, const std::string& shoot, bool as_variable) {
        Started s{provider, example(provider, shoot), {}, {}};
        if (as_variable)
            s.input["runtimeInput"]["labels"]["cost-center"] = "4711";
        const Answer a =
            as_variable
                ? process->graphql("mutation Provision($config: ProvisionRuntimeInput!) { "
                                   "provisionRuntime(config: $config) { " +
                                       k_operation_fields + " } }",
                                   {{"config", s.input}})
                : process->graphql("mutation { result: provisionRuntime(config: " +
                                   graphql_literal(s.input) + ") { " + k_operation_fields + " } }");
        EXPECT_EQ(a.status, 200) << a.body;
        const json& op = a.data()[as_variable ? "provisionRuntime" : "result"];
        EXPECT_TRUE(op.is_object()) << a.body;
        if (!op.is_object())
            return s;
        EXPECT_EQ(op["operation"], "Provision");
        EXPECT_EQ(op["state"], "InProgress");
        EXPECT_EQ(op["message"], "Provisioning started");
        EXPECT_EQ(op["lastError"], json({{"errMessage", ""}, {"reason", ""}, {"component", ""}}));
        EXPECT_TRUE(op["compassRuntimeID"].is_null());
        s.runtime_id = op.value("runtimeID", "");
        s.operation_id = op.value("id", "");
        return s;
    }

    // A GCP runtime, once its provisioning has succeeded.
    Started provisioned(const std::string& shoot) {
        Started r = provision("gcp", shoot, false);
        expect_succeeded(r.operation_id, "Provision");
        return r;
    }

    // Starts serve with `env`, provisions a runtime and asks k_reused_query about it `times`
    // times.
    Started polled_runtime(std::vector<std::string> env, const std::string& shoot, int times) {
        ServeOptions options;
        options.extra_env = std::move(env);
        start(options);
        Started r = provisioned(shoot);
        for (int i = 0; i < times; ++i)
            EXPECT_EQ(process->graphql(k_reused_query, {{"id", r.runtime_id}}).error(), "");
        return r;
    }

    json runtime_status(const std::string& runtime_id) {
        const Answer a = process->graphql(k_runtime_status_query, {{"id", runtime_id}});
        EXPECT_EQ(a.status, 200) << a.body;
        EXPECT_EQ(a.error(), "") << a.body;
        return a.document.is_object() ? a.data()["runtimeStatus"] : json();
    }

    void expect_succeeded(const std::string& operation_id, const std::string& type) {
        const json op = process->wait_for_operation(operation_id);
        EXPECT_EQ(op["state"], "Succeeded") << op.dump();
        EXPECT_EQ(op["operation"], type) << op.dump();
    }

    std::string start_operation(const std::string& mutation, const std::string& runtime_id,
                                const std::string& type) {
        const Answer a = process->graphql("mutation($id: String!) { " + mutation + "(id: $id) { " +
                                              k_operation_fields + " } }",
                                          {{"id", runtime_id}});
        EXPECT_EQ(a.status, 200) << a.body;
        const json& op = a.data()[mutation];
        EXPECT_EQ(op["operation"], type) << a.body;
        EXPECT_EQ(op["runtimeID"], runtime_id) << a.body;
        return op.is_object() ? op.value("id", "") : "";
    }

    // The whole lifecycle the Kyma Environment Broker drives, on every provider.
    void main_flow() {
        std::vector<Started> runtimes;
        for (const auto& [provider, typename_] : k_typenames) {
            runtimes.push_back(provision(provider, "gq-" + provider.substr(0, 5) + "-l", false));
            runtimes.push_back(provision(provider, "gq-" + provider.substr(0, 5) + "-v", true));
        }
        for (const auto& r : runtimes)
            expect_succeeded(r.operation_id, "Provision");

        for (const auto& r : runtimes) {
            SCOPED_TRACE(r.provider + " " + r.runtime_id);
            const json status = runtime_status(r.runtime_id);
            ASSERT_TRUE(status.is_object());
            EXPECT_EQ(status["lastOperationStatus"]["id"], r.operation_id);
            EXPECT_EQ(status["lastOperationStatus"]["state"], "Succeeded");
            EXPECT_EQ(status["runtimeConnectionStatus"],
                      json({{"status", "Pending"}, {"errors", nullptr}}));
            const json& config = status["runtimeConfiguration"];
            EXPECT_TRUE(config["kubeconfig"].is_string()) << config["kubeconfig"];
            EXPECT_NE(config["kubeconfig"].get<std::string>().find("apiVersion"),
                      std::string::npos);
            const json& cluster = config["clusterConfig"];
            const json& input = r.input["clusterConfig"]["gardenerConfig"];
            for (const char* field : {"name", "provider", "region", "machineType", "autoScalerMin",
                                      "autoScalerMax", "targetSecret", "workerCidr"})
                EXPECT_EQ(cluster[field], input[field]) << field;
            // A minor ("1.34") is stored as the patch Gardener's defaulting picks (issue 31).
            const std::string asked = input["kubernetesVersion"];
            const std::string stored = cluster["kubernetesVersion"];
            if (std::count(asked.begin(), asked.end(), '.') == 1)
                EXPECT_EQ(stored.rfind(asked + ".", 0), 0u) << stored;
            else
                EXPECT_EQ(stored, asked);
            EXPECT_TRUE(cluster["seed"].is_string());
            EXPECT_TRUE(cluster["oidcConfig"].is_object());
            EXPECT_EQ(cluster["providerSpecificConfig"]["__typename"], k_typenames.at(r.provider));
            EXPECT_EQ(status["hibernationStatus"]["hibernated"], false);
        }

        // Provider specifics come back through their fragment.
        const json aws = runtime_status(runtimes[0].runtime_id);
        EXPECT_EQ(aws["runtimeConfiguration"]["clusterConfig"]["providerSpecificConfig"]["vpcCidr"],
                  runtimes[0].input["clusterConfig"]["gardenerConfig"]["providerSpecificConfig"]
                                   ["awsConfig"]["vpcCidr"]);

        // upgradeShoot, and the one-operation-per-runtime rule while it runs.
        const std::string target = runtimes[0].runtime_id;
        const Answer upgrade = process->graphql(
            "mutation { upgradeShoot(id: \"" + target +
            "\", config: {gardenerConfig: {machineType: \"m6i.xlarge\", autoScalerMax: 12}}) { " +
            k_operation_fields + " } }");
        ASSERT_EQ(upgrade.status, 200) << upgrade.body;
        EXPECT_EQ(upgrade.data()["upgradeShoot"]["operation"], "UpgradeShoot") << upgrade.body;
        const std::string upgrade_id = upgrade.data()["upgradeShoot"].value("id", "");
        const Answer refused = process->graphql(
            "mutation($id: String!) { deprovisionRuntime(id: $id) }", {{"id", target}});
        EXPECT_EQ(refused.status, 200);
        EXPECT_EQ(refused.error(), "cannot start new operation for " + target +
                                       " Runtime while previous one is in progress")
            << refused.body;
        EXPECT_EQ(refused.extensions()["error_code"], 400);
        EXPECT_TRUE(refused.data().is_null()) << "deprovisionRuntime is String!: data is null";
        expect_succeeded(upgrade_id, "UpgradeShoot");
        const json upgraded = runtime_status(target);
        EXPECT_EQ(upgraded["runtimeConfiguration"]["clusterConfig"]["machineType"], "m6i.xlarge");
        EXPECT_EQ(upgraded["runtimeConfiguration"]["clusterConfig"]["autoScalerMax"], 12);
        EXPECT_EQ(upgraded["lastOperationStatus"]["operation"], "UpgradeShoot");

        // hibernateRuntime and wakeUpRuntime.
        const std::string sleeper = runtimes[2].runtime_id;
        expect_succeeded(start_operation("hibernateRuntime", sleeper, "Hibernate"), "Hibernate");
        EXPECT_EQ(runtime_status(sleeper)["hibernationStatus"]["hibernated"], true);
        expect_succeeded(start_operation("wakeUpRuntime", sleeper, "WakeUp"), "WakeUp");
        EXPECT_EQ(runtime_status(sleeper)["hibernationStatus"]["hibernated"], false);

        // deprovisionRuntime answers the operation id; afterwards no kubeconfig.
        for (const auto& r : runtimes) {
            const Answer a = process->graphql(
                "mutation($id: String!) { deprovisionRuntime(id: $id) }", {{"id", r.runtime_id}});
            ASSERT_EQ(a.status, 200) << a.body;
            ASSERT_TRUE(a.data()["deprovisionRuntime"].is_string()) << a.body;
            expect_succeeded(a.data()["deprovisionRuntime"], "DeprovisionNoInstall");
        }
        const json gone = runtime_status(runtimes[1].runtime_id);
        EXPECT_TRUE(gone["runtimeConfiguration"]["kubeconfig"].is_null());
        EXPECT_TRUE(gone["hibernationStatus"].is_null());

        // What the workers did shows in the metrics.
        const Answer metrics = process->get(process->metrics_url);
        EXPECT_EQ(metrics.status, 200);
        for (const char* line :
             {"kprov_in_progress_operations{operation=\"PROVISION\"} 0",
              "kcp_provisioner_in_progress_provision_no_install_operations_total 0",
              "kprov_stage_transitions_total{", "kprov_operation_duration_seconds_count{",
              "kprov_gardener_requests_total{code=\"201\",verb=\"POST\"}",
              "kprov_api_requests_total{code=\"200\",path=\"/graphql\"}"})
            EXPECT_NE(metrics.body.find(line), std::string::npos) << line << "\n" << metrics.body;

        EXPECT_EQ(process->stop(), 0);
    }
};

TEST_F(Serve, MainFlowOnSqlite) {
    start();
    main_flow();
}

TEST_F(Serve, MainFlowOnPostgres) {
    KPROV_FRESH_POSTGRES(db);
    ServeOptions options;
    options.store_url = db->url();
    start(options);
    main_flow();
}

TEST_F(Serve, RefusesRequestsWithoutTenant) {
    start();
    const Started r = provision("gcp", "gq-tenant", false);
    for (const httplib::Headers& headers : {httplib::Headers{}, httplib::Headers{{"Tenant", ""}}}) {
        const Answer a =
            process->graphql("query($id: String!) { runtimeOperationStatus(id: $id) { id } }",
                             {{"id", r.operation_id}}, headers);
        EXPECT_EQ(a.status, 200);
        EXPECT_EQ(a.error(), "tenant header is empty") << a.body;
        EXPECT_EQ(a.extensions(), json({{"error_code", 400},
                                        {"error_reason", "err_provisioner_internal"},
                                        {"error_component", "provisioner"}}));
        EXPECT_TRUE(a.data()["runtimeOperationStatus"].is_null());
        EXPECT_EQ(a.document["errors"][0]["path"], json::array({"runtimeOperationStatus"}));
    }
    // Header names are case-insensitive.
    const Answer lower =
        process->graphql("query($id: String!) { runtimeOperationStatus(id: $id) { id } }",
                         {{"id", r.operation_id}}, {{"tenant", "tenant-a"}});
    EXPECT_EQ(lower.data()["runtimeOperationStatus"]["id"], r.operation_id) << lower.body;
}

TEST_F(Serve, RewritesTheTenantOfQueriedRuntimesAsTheOriginal) {
    start();
    const Started r = provision("gcp", "gq-moved", false);
    const Answer a = process->graphql(
        "query($id: String!) { runtimeStatus(id: $id) { lastOperationStatus { id } } }",
        {{"id", r.runtime_id}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(a.data()["runtimeStatus"]["lastOperationStatus"]["id"], r.operation_id) << a.body;
    // A query answered on the event loop writes the rewrite right after its answer.
    std::optional<engine::Runtime> stored;
    for (int i = 0; i < 100; ++i) {
        stored = process->open_store()->find_runtime(r.runtime_id);
        if (!stored || stored->tenant == "tenant-b")
            break;
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->tenant, "tenant-b");
    EXPECT_NE(process->log().find("changed from \"tenant-a\" to \"tenant-b\""), std::string::npos)
        << process->log();
}

TEST_F(Serve, RefusesAnotherTenantWhenStrict) {
    ServeOptions options;
    options.extra_env = {"APP_TENANT_STRICT=true"};
    start(options);
    const Started r = provision("gcp", "gq-strict", false);
    const std::string query = "query($id: String!) { runtimeOperationStatus(id: $id) { id } }";
    Answer a = process->graphql(query, {{"id", r.operation_id}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(a.extensions()["error_code"], 403) << a.body;
    EXPECT_TRUE(a.data()["runtimeOperationStatus"].is_null());
    a = process->graphql("mutation($id: String!) { deprovisionRuntime(id: $id) }",
                         {{"id", r.runtime_id}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(a.extensions()["error_code"], 403) << a.body;
    a = process->graphql(query, {{"id", r.operation_id}});
    EXPECT_EQ(a.data()["runtimeOperationStatus"]["id"], r.operation_id) << a.body;
}

TEST_F(Serve, ReportsValidationFailures) {
    start();
    // A required field missing: the document does not fit the schema (422).
    json input = example("gcp", "gq-val");
    input["clusterConfig"]["gardenerConfig"].erase("region");
    Answer a = process->graphql("mutation { provisionRuntime(config: " + graphql_literal(input) +
                                ") { id } }");
    EXPECT_EQ(a.status, 422) << a.body;
    EXPECT_EQ(a.extensions()["code"], "GRAPHQL_VALIDATION_FAILED") << a.body;
    EXPECT_FALSE(a.document.contains("data"));

    // The same through a variable.
    a = process->graphql("mutation($c: ProvisionRuntimeInput!) { provisionRuntime(config: $c) "
                         "{ id } }",
                         {{"c", input}});
    EXPECT_EQ(a.status, 422) << a.body;

    // kprov's rules on a well-typed input: every problem, with its field, as a BadRequest.
    input = example("gcp", "gq-val");
    input["clusterConfig"]["gardenerConfig"]["autoScalerMin"] = 5;
    input["clusterConfig"]["gardenerConfig"]["autoScalerMax"] = 2;
    input["clusterConfig"]["gardenerConfig"]["workerCidr"] = "10.250.0.0/33";
    a = process->graphql("mutation { provisionRuntime(config: " + graphql_literal(input) +
                         ") { id } }");
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.extensions()["error_code"], 400) << a.body;
    EXPECT_NE(a.error().find("autoScalerM"), std::string::npos) << a.body;
    EXPECT_NE(a.error().find("workerCidr"), std::string::npos) << a.body;
    EXPECT_TRUE(a.data()["provisionRuntime"].is_null());

    // The original's rule, with its message.
    input = example("gcp", "gq-val");
    input["clusterConfig"]["gardenerConfig"].erase("machineImage");
    input["clusterConfig"]["gardenerConfig"]["machineImageVersion"] = "1443.3.0";
    a = process->graphql("mutation { provisionRuntime(config: " + graphql_literal(input) +
                         ") { id } }");
    EXPECT_NE(a.error().find("Machine Image Version passed while Machine Image is empty"),
              std::string::npos)
        << a.body;

    // An unknown field and a wrong type.
    a = process->graphql("mutation { provisionRuntime(config: {runtimeInput: {name: \"x\", "
                         "colour: \"red\"}}) { id } }");
    EXPECT_EQ(a.status, 422) << a.body;
    a = process->graphql("{ runtimeStatus(id: 42) { lastOperationStatus { id } } }");
    EXPECT_EQ(a.status, 422) << a.body;
    EXPECT_EQ(a.extensions()["code"], "GRAPHQL_VALIDATION_FAILED");
    a = process->graphql("{ runtimeStatus(id: \"x\") { noSuchField } }");
    EXPECT_EQ(a.status, 422) << a.body;

    // upgradeShoot's own rule.
    a = process->graphql("mutation { upgradeShoot(id: \"x\", config: {gardenerConfig: "
                         "{machineType: \"\"}}) { id } }");
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_FALSE(a.error().empty()) << a.body;
}

// The original's e2e client: an anonymous mutation with the input in a variable, and a GCP
// runtime whose providerSpecificConfig carries azureConfig too. kprov makes a GCP shoot of it
// and logs the member it ignores (deliberate difference 7).
TEST_F(Serve, ProvisionsTheOriginalE2eRequestWithTwoProviderMembers) {
    start();
    json input = example("gcp", "gq-e2e");
    input["clusterConfig"]["gardenerConfig"]["providerSpecificConfig"]["azureConfig"] = {
        {"vnetCidr", "10.250.0.0/19"}};
    const Answer a = process->graphql("mutation ($config: ProvisionRuntimeInput!) { "
                                      "provisionRuntime(config: $config) { id runtimeID "
                                      "operation state message } }",
                                      {{"config", input}});
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.error(), "") << a.body;
    const json& op = a.data()["provisionRuntime"];
    ASSERT_TRUE(op.is_object()) << a.body;
    EXPECT_EQ(op["state"], "InProgress");
    expect_succeeded(op.value("id", ""), "Provision");

    const Answer shoot = process->get(process->sim->url +
                                      "/apis/core.gardener.cloud/v1beta1/"
                                      "namespaces/garden-" +
                                      k_project + "/shoots/gq-e2e");
    ASSERT_EQ(shoot.status, 200) << shoot.body;
    EXPECT_EQ(shoot.document["spec"]["provider"]["type"], "gcp") << shoot.body;
    EXPECT_EQ(shoot.document["spec"]["provider"]["workers"][0]["zones"],
              json::array({"europe-west3-b"}))
        << shoot.body;
    EXPECT_EQ(runtime_status(op.value("runtimeID", ""))["runtimeConfiguration"]["clusterConfig"]
                                                       ["providerSpecificConfig"]["__typename"],
              "GCPProviderConfig");
    EXPECT_NE(process->log().find("providerSpecificConfig.azureConfig is ignored: provider "
                                  "\"gcp\" uses gcpConfig"),
              std::string::npos)
        << process->log();
}

TEST_F(Serve, AnswersUnknownIdsWithTheDatabaseNotFound) {
    start();
    Answer a = process->graphql("{ runtimeOperationStatus(id: \"no-such-operation\") { id } }");
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.extensions(), json({{"error_code", 2},
                                    {"error_reason", "err_db_not_found"},
                                    {"error_component", "db - provisioner"}}))
        << a.body;
    EXPECT_NE(a.error().find("no-such-operation"), std::string::npos);

    a = process->graphql("{ runtimeStatus(id: \"no-such-runtime\") { lastOperationStatus { id } "
                         "} }");
    EXPECT_EQ(a.extensions()["error_code"], 2) << a.body;
    EXPECT_TRUE(a.data()["runtimeStatus"].is_null());

    a = process->graphql("mutation { deprovisionRuntime(id: \"no-such-runtime\") }");
    EXPECT_EQ(a.extensions()["error_code"], 2) << a.body;
    EXPECT_TRUE(a.data().is_null());
}

TEST_F(Serve, RefusesBrokenDocumentsAndBodies) {
    start();
    Answer a = process->graphql("query { runtimeStatus(id: \"x\") {");
    EXPECT_EQ(a.status, 422) << a.body;
    EXPECT_EQ(a.extensions()["code"], "GRAPHQL_PARSE_FAILED") << a.body;
    EXPECT_FALSE(a.document["errors"][0]["locations"].empty()) << a.body;

    a = process->post_raw("{\"query\": ", {{"Tenant", "t"}});
    EXPECT_EQ(a.status, 400) << a.body;
    EXPECT_TRUE(a.document.contains("errors")) << a.body;
    a = process->post_raw("[1, 2]", {{"Tenant", "t"}});
    EXPECT_EQ(a.status, 400) << a.body;
    a = process->post_raw("{\"variables\": {}}", {{"Tenant", "t"}});
    EXPECT_EQ(a.status, 400) << a.body;
    a = process->post_raw(std::string(2 * 1024 * 1024, ' '), {{"Tenant", "t"}});
    EXPECT_EQ(a.status, 413);
    // Variables nested 400,000 deep (800 kB, under the size limit): refused, and the server
    // lives on (copying such a value recursed until the stack overflowed).
    const std::string deep = "{\"query\": \"query($v: Labels) { __typename }\", \"variables\": "
                             "{\"v\": " +
                             std::string(400'000, '[') + std::string(400'000, ']') + "}}";
    a = process->post_raw(deep, {{"Tenant", "t"}});
    EXPECT_GE(a.status, 400) << a.body.substr(0, 300);
    EXPECT_EQ(process->get("/healthz").status, 200);

    // GET serves queries, never mutations.
    a = process->get("/graphql?query=" + httplib::detail::encode_query_param("{ __typename }"));
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.data()["__typename"], "Query") << a.body;
    a = process->get("/graphql?query=" + httplib::detail::encode_query_param(
                                             "mutation { reconnectRuntimeAgent(id: \"x\") }"));
    EXPECT_NE(a.status, 200) << a.body;
}

TEST_F(Serve, AnswersTheDeprecatedMutationsAsTheOriginal) {
    start();
    Answer a = process->graphql("mutation { reconnectRuntimeAgent(id: \"x\") }");
    EXPECT_EQ(a.data()["reconnectRuntimeAgent"], "") << a.body;
    // upgradeRuntime validates first, with the upgrade's wording (kyma-installation.md §1.2).
    a = process->graphql(
        "mutation { upgradeRuntime(id: \"rt\", config: {kymaConfig: {version: \"2.0\", "
        "components: []}}) { id } }");
    EXPECT_EQ(a.error(), "kymaConfig.components: validation error while starting Runtime "
                         "upgrade, error: Kyma components list is empty")
        << a.body;
    EXPECT_EQ(a.extensions()["error_code"], 400);
    a = process->graphql(
        "mutation { upgradeRuntime(id: \"rt\", config: {kymaConfig: {version: \"2.0\", "
        "components: [{component: \"compass-runtime-agent\", namespace: \"compass-system\"}]}}) "
        "{ id } }");
    EXPECT_EQ(a.error(), "runtime rt does not exist") << a.body;
    a = process->graphql("mutation { rollBackUpgradeOperation(id: \"rt\") { "
                         "lastOperationStatus { id } } }");
    EXPECT_EQ(a.error(), "runtime rt does not exist") << a.body;
}

TEST_F(Serve, AnswersTheStandardIntrospectionQuery) {
    start();
    // graphql-js's getIntrospectionQuery(), as playgrounds and code generators send it.
    const std::string introspection = R"(
    query IntrospectionQuery {
      __schema {
        queryType { name } mutationType { name } subscriptionType { name }
        types { ...FullType }
        directives { name description locations args { ...InputValue } }
      }
    }
    fragment FullType on __Type {
      kind name description
      fields(includeDeprecated: true) {
        name description args { ...InputValue } type { ...TypeRef }
        isDeprecated deprecationReason
      }
      inputFields { ...InputValue }
      interfaces { ...TypeRef }
      enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
      possibleTypes { ...TypeRef }
    }
    fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
    fragment TypeRef on __Type {
      kind name
      ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType {
        kind name ofType { kind name ofType { kind name } } } } } } }
    })";
    const Answer a = process->graphql(introspection);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.error(), "") << a.body;
    const json& schema = a.data()["__schema"];
    EXPECT_EQ(schema["queryType"]["name"], "Query");
    EXPECT_EQ(schema["mutationType"]["name"], "Mutation");
    std::set<std::string> names;
    for (const auto& type : schema["types"])
        names.insert(type.value("name", ""));
    for (const char* name : {"OperationStatus", "RuntimeStatus", "ProvisionRuntimeInput",
                             "ProviderSpecificConfig", "Labels", "OperationType"})
        EXPECT_TRUE(names.count(name)) << name;
}

TEST_F(Serve, ServesHealthReadinessMetricsAndThePlayground) {
    start();
    Answer a = process->get("/healthz");
    EXPECT_EQ(a.status, 200);
    EXPECT_EQ(a.body, "ok");
    a = process->get("/readyz");
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.body, "ok");

    a = process->get("/");
    EXPECT_EQ(a.status, 200);
    EXPECT_NE(a.content_type.find("text/html"), std::string::npos);
    EXPECT_NE(a.body.find("fetch("), std::string::npos);
    EXPECT_NE(a.body.find("\"/graphql\""), std::string::npos);
    EXPECT_EQ(a.body.find("http://"), std::string::npos) << "the page loads nothing from outside";
    EXPECT_EQ(a.body.find("https://"), std::string::npos) << "the page loads nothing from outside";

    process->graphql("{ __typename }");
    a = process->get(process->metrics_url);
    EXPECT_EQ(a.status, 200);
    EXPECT_NE(a.content_type.find("text/plain"), std::string::npos);
    for (const char* text : {"# TYPE kprov_in_progress_operations gauge",
                             "kprov_in_progress_operations{operation=\"DEPROVISION_NO_INSTALL\"} 0",
                             "# TYPE kprov_api_requests_total counter",
                             "kprov_api_requests_total{code=\"200\",path=\"/readyz\"} 1",
                             "kprov_api_request_duration_seconds_bucket{"})
        EXPECT_NE(a.body.find(text), std::string::npos) << text << "\n" << a.body;
}

TEST_F(Serve, RequiresTheBearerTokenWhenOneIsConfigured) {
    ServeOptions options;
    options.token = "s3cret-token";
    start(options);
    const std::string query = "{ __typename }";
    Answer a = process->graphql(query, nullptr, {{"Tenant", "t"}});
    EXPECT_EQ(a.status, 401) << a.body;
    EXPECT_EQ(a.extensions()["code"], "UNAUTHENTICATED");
    a = process->graphql(query, nullptr, {{"Tenant", "t"}, {"Authorization", "Bearer wrong"}});
    EXPECT_EQ(a.status, 401);
    a = process->graphql(query, nullptr,
                         {{"Tenant", "t"}, {"Authorization", "Bearer s3cret-token"}});
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.data()["__typename"], "Query");
    // Probes need no token.
    EXPECT_EQ(process->get("/healthz").status, 200);
    EXPECT_EQ(process->log().find("s3cret-token"), std::string::npos) << "tokens are not logged";
}

TEST_F(Serve, AcceptsRequestsWithoutTokenWhenNoneIsConfiguredOnLoopbackAndWarns) {
    start();
    const Answer a = process->graphql("{ __typename }", nullptr, {{"Authorization", "Bearer x"}});
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_NE(process->log().find("serving without KPROV_API_TOKEN"), std::string::npos)
        << process->log();
}

// Issue 17, finding 5: open by default. Without a token serve refuses an address other hosts
// can reach, and on loopback answers only requests whose Host names it (DNS rebinding).
TEST_F(Serve, RefusesToListenOpenOnEveryInterface) {
    start(); // for the sim and the store
    const auto r = kprov::testing::run_process(
        process->argv({"serve", "--address", "0.0.0.0:0", "--metrics-address", ""}), process->env(),
        process->dir.path());
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("refusing to serve without KPROV_API_TOKEN on 0.0.0.0:0"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--insecure-no-auth"), std::string::npos) << r.err;
}

TEST_F(Serve, ChecksTheHostHeaderWithoutAToken) {
    start();
    Answer a = process->graphql("{ __typename }", nullptr,
                                {{"Tenant", "t"}, {"Host", "attacker.example.com"}});
    EXPECT_EQ(a.status, 421) << a.body;
    EXPECT_EQ(a.extensions()["code"], "MISDIRECTED_REQUEST");
    a = process->graphql("{ __typename }", nullptr, {{"Tenant", "t"}, {"Host", "localhost:3000"}});
    EXPECT_EQ(a.status, 200) << a.body;
    // With a token the Host is the client's business.
    ServeOptions options;
    options.token = "t0ken";
    start(options);
    a = process->graphql(
        "{ __typename }", nullptr,
        {{"Tenant", "t"}, {"Host", "kprov.example.com"}, {"Authorization", "Bearer t0ken"}});
    EXPECT_EQ(a.status, 200) << a.body;
}

TEST_F(Serve, ServesHttpsWithTheConfiguredCertificate) {
    std::string why;
    const auto certs = gardener::testing::TestCerts::make(why);
    if (!certs)
        KPROV_SKIP_UNLESS_CI(why);
    ServeOptions options;
    options.tls_cert = certs->server_cert.string();
    options.tls_key = certs->server_key.string();
    start(options);
    ASSERT_EQ(process->api_url.rfind("https://", 0), 0U) << process->api_url;
    process->ca_file = certs->ca.string();
    const Answer a = process->graphql("{ __typename }");
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.data()["__typename"], "Query");
    // A client that does not trust the CA gets no answer.
    process->ca_file = certs->other_ca.string();
    EXPECT_EQ(process->graphql("{ __typename }").status, 0);
}

// --- answers reused while the store stands still (answer_cache.hpp) -------------------------

// How many GraphQL requests got a kept answer, from /metrics.
long answer_hits(const ServeProcess& process) {
    const std::string line = "kprov_api_answer_cache_total{result=\"hit\"} ";
    const std::string text = process.get(process.metrics_url).body;
    const auto at = text.find(line);
    return at == std::string::npos ? -1 : std::stol(text.substr(at + line.size()));
}

TEST_F(Serve, ReusesAnAnswerUntilAnyProcessChangesItsRuntime) {
    start();
    const Started r = provisioned("gq-reuse");
    const Started other = provisioned("gq-reuse-2");
    const long hits = answer_hits(*process);
    ASSERT_GE(hits, 0);
    const Answer first = process->graphql(k_reused_query, {{"id", r.runtime_id}});
    const Answer second = process->graphql(k_reused_query, {{"id", r.runtime_id}});
    EXPECT_EQ(first.data()["runtimeStatus"]["lastOperationStatus"]["state"], "Succeeded")
        << first.body;
    EXPECT_EQ(second.body, first.body);
    EXPECT_EQ(second.content_type, "application/json");
    EXPECT_EQ(answer_hits(*process), hits + 1) << "the store did not change in between";

    // Another process (the CLI) writes to the other runtime: this one's answer still stands.
    const auto hibernate = [&](const std::string& runtime_id) {
        const auto cli = kprov::testing::run_process(process->argv({"hibernate", runtime_id}),
                                                     process->env(), process->dir.path());
        EXPECT_EQ(cli.exit_code, 0) << cli.err;
    };
    hibernate(other.runtime_id);
    const Answer third = process->graphql(k_reused_query, {{"id", r.runtime_id}});
    EXPECT_EQ(third.body, first.body);
    EXPECT_EQ(answer_hits(*process), hits + 2);

    // ... and to this one: the very next answer shows it.
    hibernate(r.runtime_id);
    const Answer after = process->graphql(k_reused_query, {{"id", r.runtime_id}});
    EXPECT_EQ(after.data()["runtimeStatus"]["lastOperationStatus"]["operation"], "Hibernate")
        << after.body;
    EXPECT_EQ(answer_hits(*process), hits + 2);

    // serve's own workers write as the hibernation goes on; a poller sees it end.
    const std::string hibernation =
        after.data()["runtimeStatus"]["lastOperationStatus"].value("id", "");
    expect_succeeded(hibernation, "Hibernate");
    const Answer done = process->graphql(k_reused_query, {{"id", r.runtime_id}});
    EXPECT_EQ(done.data()["runtimeStatus"]["lastOperationStatus"]["state"], "Succeeded")
        << done.body;
}

TEST_F(Serve, NeverReusesAnAnswerForAnotherTenantOrOneFromGardener) {
    const Started r = polled_runtime({"APP_TENANT_STRICT=true"}, "gq-reuse-t", 2);
    const long hits = answer_hits(*process);

    // The same body from another tenant, or with a sub-account, is another request.
    const Answer other =
        process->graphql(k_reused_query, {{"id", r.runtime_id}}, {{"Tenant", "tenant-b"}});
    EXPECT_EQ(other.extensions()["error_code"], 403) << other.body;
    const Answer sub = process->graphql(k_reused_query, {{"id", r.runtime_id}},
                                        {{"Tenant", "tenant-a"}, {"Sub-Account", "sa-1"}});
    EXPECT_EQ(sub.error(), "") << sub.body;
    EXPECT_EQ(answer_hits(*process), hits);

    // A kubeconfig comes from Gardener each time; an error is never kept.
    const std::string kubeconfig =
        "query($id: String!) { runtimeStatus(id: $id) { runtimeConfiguration { kubeconfig } } }";
    for (int i = 0; i < 2; ++i) {
        const Answer a = process->graphql(kubeconfig, {{"id", r.runtime_id}});
        EXPECT_TRUE(a.data()["runtimeStatus"]["runtimeConfiguration"]["kubeconfig"].is_string())
            << a.body;
        const Answer missing = process->graphql(k_reused_query, {{"id", "no-such-runtime"}});
        EXPECT_NE(missing.error(), "") << missing.body;
    }
    EXPECT_EQ(answer_hits(*process), hits);
}

TEST_F(Serve, KeepsNoAnswersWhenTheCacheIsOff) {
    polled_runtime({"KPROV_ANSWER_CACHE_MB=0"}, "gq-reuse-off", 3);
    EXPECT_EQ(answer_hits(*process), 0);
}

TEST_F(Serve, StopsGracefullyOnSigterm) {
    ServeOptions options;
    options.sim_flags = {"--create-seconds", "30"};
    start(options);
    const Started r = provision("gcp", "gq-term", false);
    // Wait until a worker has created the shoot: the operation then waits for Gardener.
    const auto until = std::chrono::steady_clock::now() + 30s;
    std::string message;
    while (std::chrono::steady_clock::now() < until) {
        const json op = process
                            ->graphql("query($id: String!) { runtimeOperationStatus(id: $id) "
                                      "{ message } }",
                                      {{"id", r.operation_id}})
                            .data()["runtimeOperationStatus"];
        message = op.value("message", "");
        if (message != "Provisioning started")
            break;
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_NE(message, "Provisioning started");
    EXPECT_EQ(process->stop(), 0) << process->log();
    EXPECT_NE(process->log().find("SIGTERM: stopping"), std::string::npos);

    // The operation is still in progress and no longer leased: another process takes it over
    // at once.
    {
        const auto stored = process->open_store()->find_operation(r.operation_id);
        ASSERT_TRUE(stored);
        EXPECT_EQ(stored->state, engine::OperationState::InProgress);
        EXPECT_FALSE(stored->lease) << stored->lease->owner;
    }
    process->start();
    ASSERT_FALSE(process->api_url.empty()) << process->log();
    const json op = process
                        ->graphql("query($id: String!) { runtimeOperationStatus(id: $id) "
                                  "{ state } }",
                                  {{"id", r.operation_id}})
                        .data()["runtimeOperationStatus"];
    EXPECT_EQ(op["state"], "InProgress");
    EXPECT_EQ(process->stop(), 0);
}

} // namespace
} // namespace kprov::api::testing
