// kprov takes over a database the original Runtime Provisioner used: the schema its migrator left
// (tests/stores/data/original_provisioner.sql) is migrated in place, and every row the original
// wrote reads back through the Store API, secrets in the original's format included.

#include "engine/error.hpp"
#include "engine/input/provider_config.hpp"
#include "stores/migration_names.hpp"
#include "stores/open_store.hpp"
#include "stores_testing.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pqxx/pqxx>
#include <set>
#include <sstream>

namespace kprov::stores {
namespace {

using namespace std::chrono_literals;
using engine::GardenerConfig;
using engine::LastError;
using engine::Operation;
using engine::OperationState;
using engine::OperationType;
using engine::Runtime;
using kprov::testing::migration_names;
using kprov::testing::recorded_names;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The key the fixture's legacy ciphertexts were made with (see the fixture's header).
const std::string k_original_key = "kprov-takeover-test-key-32-bytes";
const std::string k_original_kubeconfig =
    "apiVersion: v1\nkind: Config\nclusters:\n- name: shoot--kyma--c-gcp01\n  cluster:\n"
    "    server: https://api.c-gcp01.kyma.example.com\ncurrent-context: shoot--kyma--c-gcp01\n";

const std::string k_gcp = "11111111-1111-4111-8111-111111111111";
const std::string k_azure = "22222222-2222-4222-8222-222222222222";
const std::string k_aws = "33333333-3333-4333-8333-333333333333";
const std::string k_openstack = "44444444-4444-4444-8444-444444444444";
const std::string k_race = "55555555-5555-4555-8555-555555555555";

Timestamp at(const char* text) {
    const auto t = parse_db_time(text);
    EXPECT_TRUE(t) << text;
    return t.value_or(Timestamp{});
}

std::string read_fixture(const std::string& name) {
    std::ifstream in(std::string(KPROV_SOURCE_DIR) + "/tests/stores/data/" + name);
    EXPECT_TRUE(in) << "cannot read fixture " << name;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

Operation original_operation(const std::string& id, const std::string& cluster, OperationType type,
                             OperationState state, const std::string& message, Timestamp start,
                             std::optional<Timestamp> end, const std::string& stage,
                             std::optional<Timestamp> last_transition, LastError error = {}) {
    Operation op;
    op.id = id;
    op.type = type;
    op.state = state;
    op.message = message;
    op.start_timestamp = start;
    op.end_timestamp = end;
    op.cluster_id = cluster;
    op.stage = stage;
    op.last_transition = last_transition;
    op.last_error = std::move(error);
    return op;
}

GardenerConfig gardener(const std::string& id, const std::string& name, const std::string& k8s,
                        const std::string& machine, const std::string& region,
                        const std::string& provider, const std::string& seed,
                        const std::string& secret, const std::string& worker_cidr, int min, int max,
                        int surge, engine::ProviderConfig config) {
    GardenerConfig g;
    g.id = id;
    g.name = name;
    g.project_name = "kyma";
    g.kubernetes_version = k8s;
    g.machine_type = machine;
    g.region = region;
    g.provider = provider;
    g.seed = seed;
    g.target_secret = secret;
    g.worker_cidr = worker_cidr;
    g.auto_scaler_min = min;
    g.auto_scaler_max = max;
    g.max_surge = surge;
    g.provider_config = std::move(config);
    return g;
}

// The GCP runtime's Kyma rows (the fixture's comment tells their story).
const std::string k_release_2_0 = "5e1ea5e0-0000-4000-8000-000000000001";
const std::string k_release_1_13 = "5e1ea5e0-0000-4000-8000-000000000002";
const std::string k_config_before = "5e1ea5e0-0000-4000-8000-0000000000c0";
const std::string k_config_after = "5e1ea5e0-0000-4000-8000-0000000000c1";
const std::string k_kyma_upgrade = "0e000000-1111-4000-8000-000000000003";

engine::KymaRelease release_2_0() {
    return {k_release_2_0, "2.0.0", "",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-installer\n"};
}

engine::KymaRelease release_1_13() {
    return {k_release_1_13, "1.13.0",
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: tiller\n",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-installer # 1.13.0\n"};
}

engine::KymaConfig expected_gcp_kyma_after_upgrade() {
    engine::KymaConfig k;
    k.id = k_config_after;
    k.cluster_id = k_gcp;
    k.release = release_2_0();
    k.profile = engine::KymaProfile::Production;
    k.global = {{{"global.domainName", "c-gcp01.kyma.example.com", false},
                 {"global.adminPassword", "original-plain-secret", true}},
                "Replace"};
    // component_order NULL and 0 first, in id order (d2 before d3), then 1 and 2.
    k.components = {
        {"5e1ea5e0-0000-4000-8000-0000000000d2",
         "cluster-essentials",
         "kyma-system",
         std::nullopt,
         {},
         0},
        {"5e1ea5e0-0000-4000-8000-0000000000d3",
         "istio",
         "istio-system",
         std::nullopt,
         {{{"gateways.replicas", "3", false}}, "Merge"},
         0},
        {"5e1ea5e0-0000-4000-8000-0000000000d1",
         "compass-runtime-agent",
         "compass-system",
         std::nullopt,
         {{{"director.token", "original-agent-token", true}}, ""},
         1},
        {"5e1ea5e0-0000-4000-8000-0000000000d4",
         "serverless",
         "kyma-system",
         "https://storage.example.com/serverless-2.0.0.tgz",
         {},
         2},
    };
    return k;
}

engine::KymaConfig expected_gcp_kyma_before_upgrade() {
    engine::KymaConfig k;
    k.id = k_config_before;
    k.cluster_id = k_gcp;
    k.release = release_1_13();
    k.components = {
        {"5e1ea5e0-0000-4000-8000-0000000000a1",
         "compass-runtime-agent",
         "compass-system",
         std::nullopt,
         {},
         0},
        {"5e1ea5e0-0000-4000-8000-0000000000a2",
         "cluster-essentials",
         "kyma-system",
         std::nullopt,
         {},
         0},
    };
    return k;
}

// What the fixture holds, as the model sees it.
Runtime expected_gcp() {
    Runtime r;
    r.id = k_gcp;
    r.tenant = "tenant-gcp";
    r.sub_account_id = "sub-account-gcp";
    r.creation_timestamp = at("2023-03-01 09:00:00.123456");
    r.kubeconfig = k_original_kubeconfig;
    r.administrators = {"plain.admin@example.com", "legacy.admin@example.com"};
    r.gardener =
        gardener("aaaaaaaa-1111-4111-8111-111111111111", "c-gcp01", "1.26.9", "n2-standard-8",
                 "europe-west3", "gcp", "gcp-eu1", "gcp-trial-secret", "10.250.0.0/22", 3, 10, 4,
                 engine::GcpConfig{{"europe-west3-a", "europe-west3-b", "europe-west3-c"}});
    auto& g = r.gardener;
    g.volume_size_gb = 50;
    g.machine_image = "gardenlinux";
    g.machine_image_version = "934.11.0";
    g.purpose = "production";
    g.disk_type = "pd-standard";
    g.pods_cidr = "100.64.0.0/12";
    g.services_cidr = "100.104.0.0/13";
    g.enable_kubernetes_version_auto_update = true;
    g.shoot_networking_filter_disabled = false;
    g.control_plane_failure_tolerance = "zone";
    g.oidc = engine::OidcConfig{"9bd05ed7-a930-44e6-8c79-e6defeb7dec9",
                                "groups",
                                "https://kymatest.accounts400.ondemand.com",
                                {"RS256", "ES256"},
                                "sub",
                                "-"};
    g.dns = engine::DnsConfig{
        "c-gcp01.kyma.example.com",
        {engine::DnsProvider{{"c-gcp01.kyma.example.com", "*.c-gcp01.kyma.example.com"},
                             true,
                             "aws-route53-secret-dev",
                             "aws-route53"},
         engine::DnsProvider{{"other.example.com"}, false, "azure-dns-secret", "azure-dns"}}};
    r.kyma = expected_gcp_kyma_after_upgrade();
    return r;
}

Runtime expected_azure() {
    Runtime r;
    r.id = k_azure;
    r.tenant = "tenant-az";
    r.creation_timestamp = at("2023-04-02 10:00:00");
    r.gardener =
        gardener("aaaaaaaa-2222-4222-8222-222222222222", "c-az01", "1.25.11", "Standard_D4_v3",
                 "westeurope", "azure", "", "azure-trial-secret", "10.250.0.0/22", 2, 4, 1,
                 engine::AzureConfig{
                     "10.250.0.0/22", std::nullopt,
                     std::vector<engine::AzureZone>{{1, "10.250.0.0/25"}, {2, "10.250.0.128/25"}},
                     true, std::nullopt});
    r.gardener.licence_type = "TestDevelopmentAndDemo";
    r.gardener.eu_access = true;
    return r;
}

Runtime expected_aws() {
    Runtime r;
    r.id = k_aws;
    r.tenant = "tenant-aws";
    r.creation_timestamp = at("2023-02-10 07:30:00");
    r.deleted = true;
    r.administrators = {"aws.admin@example.com"};
    r.gardener =
        gardener("aaaaaaaa-3333-4333-8333-333333333333", "c-aws01", "1.25.11", "m6i.large",
                 "eu-central-1", "aws", "aws-eu1", "aws-trial-secret", "10.250.0.0/16", 1, 3, 1,
                 engine::AwsConfig{"10.250.0.0/16",
                                   {engine::AwsZone{"eu-central-1a", "10.250.32.0/20",
                                                    "10.250.48.0/20", "10.250.0.0/19"}}});
    auto& g = r.gardener;
    g.volume_size_gb = 80;
    g.machine_image = "gardenlinux";
    g.machine_image_version = "576.12.0";
    g.purpose = "evaluation";
    g.disk_type = "gp3";
    g.enable_machine_image_version_auto_update = true;
    g.exposure_class_name = "internet";
    g.shoot_networking_filter_disabled = true;
    return r;
}

Runtime expected_openstack() {
    Runtime r;
    r.id = k_openstack;
    r.tenant = "tenant-os";
    r.sub_account_id = "sub-account-os";
    r.creation_timestamp = at("2023-05-20 14:00:00");
    r.gardener =
        gardener("aaaaaaaa-4444-4444-8444-444444444444", "c-os01", "1.26.9", "g_c4_m16", "eu-de-1",
                 "openstack", "os-eu1", "openstack-secret", "10.250.0.0/16", 1, 2, 1,
                 engine::OpenStackConfig{
                     {"eu-de-1a"}, "FloatingIP-external-kyma-01", "converged-cloud-kyma", "f5"});
    return r;
}

// Newest first, as operations_of returns them.
std::vector<Operation> expected_operations(const std::string& cluster) {
    using S = OperationState;
    using T = OperationType;
    if (cluster == k_gcp)
        return {
            original_operation("0e000000-1111-4000-8000-000000000002", k_gcp, T::UpgradeShoot,
                               S::InProgress, "Operation in progress. Stage WaitingForShootUpgrade",
                               at("2023-06-15 12:00:00"), std::nullopt, "WaitingForShootUpgrade",
                               at("2023-06-15 12:00:00")),
            original_operation(k_kyma_upgrade, k_gcp, T::Upgrade, S::Succeeded,
                               "Operation succeeded", at("2023-05-10 08:00:00"),
                               at("2023-05-10 08:40:00"), "Finished", at("2023-05-10 08:39:59")),
            original_operation("0e000000-1111-4000-8000-000000000001", k_gcp, T::Provision,
                               S::Succeeded, "Operation succeeded",
                               at("2023-03-01 09:00:01.000001"), at("2023-03-01 09:25:00.5"),
                               "Finished", at("2023-03-01 09:24:59.999999"))};
    if (cluster == k_azure)
        return {original_operation(
            "0e000000-2222-4000-8000-000000000001", k_azure, T::Provision, S::Failed,
            "error during cluster provisioning: rate limits exceeded", at("2023-04-02 10:00:00.25"),
            at("2023-04-02 10:45:00"), "WaitingForClusterCreation", at("2023-04-02 10:05:00"),
            {"error during cluster provisioning: rate limits exceeded",
             "ERR_INFRA_RATE_LIMITS_EXCEEDED", "gardener"})};
    if (cluster == k_aws)
        return {original_operation("0e000000-3333-4000-8000-000000000002", k_aws,
                                   T::DeprovisionNoInstall, S::Succeeded, "Operation succeeded",
                                   at("2023-05-02 11:00:00"), at("2023-05-02 11:20:00"), "Finished",
                                   std::nullopt),
                original_operation("0e000000-3333-4000-8000-000000000001", k_aws, T::Provision,
                                   S::Succeeded, "", at("2023-02-10 07:30:01"),
                                   at("2023-02-10 07:55:00"), "Finished",
                                   at("2023-02-10 07:54:00"))};
    return {original_operation("0e000000-4444-4000-8000-000000000002", k_openstack,
                               T::DeprovisionNoInstall, S::InProgress, "Deprovisioning started",
                               at("2023-07-01 08:00:00"), std::nullopt, "DeprovisionCluster",
                               std::nullopt),
            original_operation("0e000000-4444-4000-8000-000000000001", k_openstack, T::Provision,
                               S::Succeeded, "Operation succeeded", at("2023-05-20 14:00:01"),
                               at("2023-05-20 14:30:00"), "Finished", at("2023-05-20 14:29:00"))};
}

// The original's rows, read through kprov: kprov's own columns carry migration 2's defaults.
void expect_same_runtime(const Runtime& got, const Runtime& want) {
    EXPECT_EQ(got.name, "");
    EXPECT_EQ(got.description, "");
    EXPECT_EQ(got.labels_json, "{}");
    kprov::testing::expect_same_runtime(got, want);
}

// Migration 2 gave the original's rows kprov's scheduling columns: due at once, unleased, never
// attempted.
void expect_same_operation(const Operation& got, const Operation& want, Timestamp migrated_after) {
    SCOPED_TRACE("operation " + want.id);
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.type, want.type);
    EXPECT_EQ(got.state, want.state);
    EXPECT_EQ(got.message, want.message);
    EXPECT_EQ(format_db_time(got.start_timestamp), format_db_time(want.start_timestamp));
    EXPECT_EQ(got.end_timestamp, want.end_timestamp);
    EXPECT_EQ(got.cluster_id, want.cluster_id);
    EXPECT_EQ(got.stage, want.stage);
    EXPECT_EQ(got.last_transition, want.last_transition);
    EXPECT_EQ(got.last_error, want.last_error);
    EXPECT_FALSE(got.lease);
    EXPECT_EQ(got.attempts, 0);
    EXPECT_GE(got.next_run_at, migrated_after - 1min); // the server's clock, not ours
    EXPECT_LE(got.next_run_at, SystemClock().now() + 1min);
}

class PostgresTakeover : public ::testing::Test {
protected:
    void SetUp() override {
        KPROV_FRESH_POSTGRES(db);
        m_db = std::move(db);
        load("original_provisioner.sql");
    }

    void load(const std::string& fixture) {
        pqxx::connection c{m_db->url()};
        pqxx::work tx{c};
        tx.exec(read_fixture(fixture));
        tx.commit();
    }

    // Opens as `kprov migrate` does (no schema check) and migrates.
    std::unique_ptr<StoreBackend> take_over() {
        OpenOptions options;
        options.secret_key = k_original_key;
        options.schema = SchemaCheck::None;
        auto store = open_store(m_db->url(), options);
        EXPECT_EQ(store->schema_version(), 0);
        m_migrated_after = SystemClock().now();
        const auto report = store->migrate();
        EXPECT_EQ(report.from_version, 0);
        EXPECT_EQ(report.to_version, latest_version("postgres"));
        EXPECT_THAT(report.applied, ElementsAreArray(migration_names("postgres")));
        return store;
    }

    std::unique_ptr<kprov::testing::PostgresDatabase> m_db;
    Timestamp m_migrated_after;
};

TEST_F(PostgresTakeover, ReadsEveryRowTheOriginalWrote) {
    auto store = take_over();
    for (const Runtime& want :
         {expected_gcp(), expected_azure(), expected_aws(), expected_openstack()}) {
        const auto got = store->find_runtime(want.id);
        ASSERT_TRUE(got) << want.id;
        expect_same_runtime(*got, want);

        const auto operations = store->operations_of(want.id);
        const auto expected = expected_operations(want.id);
        ASSERT_EQ(operations.size(), expected.size()) << want.id;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            expect_same_operation(operations[i], expected[i], m_migrated_after);
            const auto one = store->find_operation(expected[i].id);
            ASSERT_TRUE(one);
            EXPECT_TRUE(*one == operations[i]);
            EXPECT_TRUE(store->transitions_of(expected[i].id).empty());
        }
        EXPECT_TRUE(store->last_operation(want.id) == operations.front());
    }

    // list: newest first, the soft-deleted AWS runtime only on request.
    auto ids = [](const std::vector<engine::RuntimeSummary>& list) {
        std::vector<std::string> out;
        for (const auto& s : list)
            out.push_back(s.id);
        return out;
    };
    EXPECT_THAT(ids(store->list_runtimes({})), ElementsAre(k_openstack, k_azure, k_gcp));
    const auto all = store->list_runtimes({std::nullopt, true});
    EXPECT_THAT(ids(all), ElementsAre(k_openstack, k_azure, k_gcp, k_aws));
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0].shoot_name, "c-os01");
    EXPECT_EQ(all[0].provider, "openstack");
    EXPECT_EQ(all[0].region, "eu-de-1");
    EXPECT_EQ(all[0].tenant, "tenant-os");
    EXPECT_EQ(all[0].name, "");
    EXPECT_EQ(format_db_time(all[0].creation_timestamp), "2023-05-20 14:00:00.000000");
    EXPECT_FALSE(all[0].deleted);
    ASSERT_TRUE(all[0].last_operation);
    EXPECT_EQ(all[0].last_operation->id, "0e000000-4444-4000-8000-000000000002");
    EXPECT_TRUE(all[3].deleted);
    EXPECT_EQ(all[3].last_operation->type, OperationType::DeprovisionNoInstall);
    EXPECT_THAT(ids(store->list_runtimes({OperationState::InProgress, false})),
                ElementsAre(k_openstack, k_gcp));
    EXPECT_THAT(ids(store->list_runtimes({OperationState::Failed, false})), ElementsAre(k_azure));
    EXPECT_TRUE(store->list_runtimes({OperationState::Succeeded, false}).empty());
    EXPECT_THAT(ids(store->list_runtimes({OperationState::Succeeded, true})), ElementsAre(k_aws));

    const auto counts = store->count_in_progress();
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts.at(OperationType::UpgradeShoot), 1);
    EXPECT_EQ(counts.at(OperationType::DeprovisionNoInstall), 1);

    // What kprov does not use is left as the original had it.
    EXPECT_EQ(
        sql(m_db->url(), "SELECT version::text || ' ' || dirty::text FROM schema_migrations")[0][0]
            .as<std::string>(),
        "202301230741 false");
    EXPECT_EQ(sql(m_db->url(), "SELECT count(*) FROM kyma_config k JOIN cluster c "
                               "ON c.active_kyma_config_id = k.id")[0][0]
                  .as<int>(),
              1);
    EXPECT_EQ(sql(m_db->url(), "SELECT count(*) FROM kyma_component_config")[0][0].as<int>(), 6);
}

TEST_F(PostgresTakeover, ReadsTheOriginalsKymaRows) {
    auto store = take_over();
    // The active config with its whole release, the secret value as the original stored it.
    const auto gcp = store->find_runtime(k_gcp);
    ASSERT_TRUE(gcp);
    kprov::testing::expect_same_kyma(gcp->kyma, expected_gcp_kyma_after_upgrade());
    ASSERT_TRUE(gcp->kyma);
    EXPECT_EQ(gcp->kyma->release.tiller_yaml, "");
    EXPECT_EQ(gcp->kyma->global.entries.at(1).value, "original-plain-secret");

    // The status: the release's id and version, no YAML.
    const auto status = store->find_runtime_status(k_gcp);
    ASSERT_TRUE(status);
    engine::KymaConfig without_yaml = expected_gcp_kyma_after_upgrade();
    without_yaml.release.tiller_yaml.clear();
    without_yaml.release.installer_yaml.clear();
    kprov::testing::expect_same_kyma(status->runtime.kyma, without_yaml);
    EXPECT_EQ(status->last->id, "0e000000-1111-4000-8000-000000000002");

    // Runtimes the original ran without Kyma (or before the column) have none.
    EXPECT_FALSE(store->find_runtime(k_azure)->kyma);
    EXPECT_FALSE(store->find_runtime_status(k_openstack)->runtime.kyma);

    EXPECT_EQ(store->find_kyma_release("1.13.0"), release_1_13());
    EXPECT_EQ(store->find_kyma_release("2.0.0"), release_2_0());
    const engine::RuntimeUpgradeRecord upgrade{"5e1ea5e0-0000-4000-8000-0000000000e1",
                                               k_kyma_upgrade, engine::UpgradeState::Succeeded,
                                               k_config_before, k_config_after};
    EXPECT_EQ(store->find_runtime_upgrade(k_kyma_upgrade), upgrade);
    EXPECT_FALSE(store->find_runtime_upgrade("0e000000-1111-4000-8000-000000000001"));

    // Rolling the original's upgrade back activates its pre-upgrade config: NULL orders, the
    // early '[]' and NULL configurations.
    store->roll_back_upgrade(k_gcp, k_kyma_upgrade);
    kprov::testing::expect_same_kyma(store->find_runtime(k_gcp)->kyma,
                                     expected_gcp_kyma_before_upgrade());
    EXPECT_EQ(store->find_runtime_upgrade(k_kyma_upgrade)->state, engine::UpgradeState::RolledBack);
}

TEST_F(PostgresTakeover, AKymaUpgradeOfTheOriginalsRuntimeFitsItsTables) {
    auto store = take_over();
    // The shoot upgrade the original left in progress ends first.
    Operation shoot = store->find_operation("0e000000-1111-4000-8000-000000000002").value();
    ASSERT_TRUE(store->claim(shoot.id, "kprov-1", SystemClock().now(), 30s));
    shoot.state = OperationState::Succeeded;
    store->save_progress(shoot, "kprov-1", SystemClock().now(), {}, {}, true);

    engine::KymaConfig next = expected_gcp_kyma_after_upgrade();
    next.id = engine::new_uuid();
    next.release = store->insert_kyma_release({"", "2.1.0", "", "installer: 2.1.0"});
    for (std::size_t i = 0; i < next.components.size(); ++i) {
        next.components[i].id = engine::new_uuid();
        next.components[i].order = static_cast<int>(i) + 1; // as the engine numbers them
    }
    Operation op;
    op.id = engine::new_uuid();
    op.type = OperationType::Upgrade;
    op.start_timestamp = SystemClock().now();
    op.next_run_at = op.start_timestamp;
    op.cluster_id = k_gcp;
    op.stage = "StartingUpgrade";
    op.message = "Starting Kyma upgrade";
    store->insert_kyma_upgrade(op, next, {});

    // The release was stored once: the original's 2.0.0 row is the one that exists.
    EXPECT_EQ(store->insert_kyma_release({"", "2.0.0", "x", "y"}), release_2_0());
    kprov::testing::expect_same_kyma(store->find_runtime(k_gcp)->kyma, next);
    EXPECT_EQ(store->find_runtime_upgrade(op.id)->pre_upgrade_kyma_config_id, k_config_after);
    // kprov's rows encrypt what the original's kept in plaintext.
    const auto stored = sql(m_db->url(), "SELECT global_configuration::text FROM kyma_config "
                                         "WHERE id = '" +
                                             next.id + "'")[0][0]
                            .as<std::string>();
    EXPECT_EQ(stored.find("original-plain-secret"), std::string::npos) << stored;
    EXPECT_EQ(sql(m_db->url(), "SELECT count(*) FROM kyma_component_config "
                               "WHERE configuration::text LIKE '%original-agent-token%'")[0][0]
                  .as<int>(),
              1)
        << "only the original's row holds the token in plaintext";
}

// Every column (type, nullability, default), constraint and enum value of the public schema,
// one string each.
std::set<std::string> schema_fingerprint(const std::string& url) {
    std::set<std::string> out;
    for (const auto& row :
         sql(url, "SELECT 'column ' || table_name || '.' || column_name || ' ' || "
                  "data_type || ' ' || is_nullable || ' ' || "
                  "coalesce(column_default, '-') "
                  "FROM information_schema.columns WHERE table_schema = 'public'"))
        out.insert(row[0].as<std::string>());
    for (const auto& row :
         sql(url, "SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || "
                  "pg_get_constraintdef(oid) FROM pg_constraint "
                  "WHERE connamespace = 'public'::regnamespace"))
        out.insert(row[0].as<std::string>());
    for (const auto& row : sql(url, "SELECT 'enum ' || enumtypid::regtype::text || ' ' || "
                                    "enumlabel FROM pg_enum"))
        out.insert(row[0].as<std::string>());
    return out;
}

TEST_F(PostgresTakeover, MigrationOnlyAddsToTheOriginalSchema) {
    const auto before = schema_fingerprint(m_db->url());
    take_over();
    const auto after = schema_fingerprint(m_db->url());
    // 0001 changed nothing and 0002 removed or altered nothing of the original's.
    for (const auto& item : before)
        EXPECT_TRUE(after.count(item)) << "changed or removed: " << item;
    // What was added is kprov's own, and only that.
    const std::vector<std::string> kprov_prefixes = {
        "column cluster.runtime_name ",
        "column cluster.description ",
        "column cluster.labels ",
        "column cluster.kyma_config ",
        "column operation.lease_owner ",
        "column operation.lease_expires_at ",
        "column operation.next_run_at ",
        "column operation.attempts ",
        "column operation_transition.",
        "column schema_version.",
        "constraint operation_transition ",
        "constraint schema_version ",
        "column live_shoot.",
        "constraint live_shoot ",
        "column runtime_lifecycle.",
        "column gardener_config.hibernation_schedules ",
        "column gardener_config.cloud_profile ", // the CloudProfile a runtime uses (issue 31)
        "constraint runtime_lifecycle ",
        "column runtime_event.",
        "constraint runtime_event ",
        "enum operation_type WAKE_UP"};
    for (const auto& item : after) {
        if (before.count(item))
            continue;
        const bool known = std::any_of(kprov_prefixes.begin(), kprov_prefixes.end(),
                                       [&](const std::string& p) { return item.rfind(p, 0) == 0; });
        EXPECT_TRUE(known) << "unexpected addition: " << item;
    }
}

TEST_F(PostgresTakeover, SecondMigrateIsANoOp) {
    auto store = take_over();
    const auto again = store->migrate();
    EXPECT_EQ(again.from_version, latest_version("postgres"));
    EXPECT_EQ(again.to_version, latest_version("postgres"));
    EXPECT_TRUE(again.applied.empty());

    OpenOptions options;
    options.secret_key = k_original_key;
    options.schema = SchemaCheck::Require;
    auto serving = open_store(m_db->url(), options);
    EXPECT_EQ(serving->schema_version(), latest_version("postgres"));
    expect_same_runtime(*serving->find_runtime(k_gcp), expected_gcp());
}

TEST_F(PostgresTakeover, RefusesANewOperationWhileTheOriginalsIsInProgress) {
    auto store = take_over();
    auto op = [](const std::string& cluster) {
        Operation o;
        o.id = engine::new_uuid();
        o.type = OperationType::DeprovisionNoInstall;
        o.start_timestamp = SystemClock().now();
        o.next_run_at = o.start_timestamp;
        o.cluster_id = cluster;
        o.stage = "DeprovisionCluster";
        return o;
    };
    EXPECT_THROW(store->insert_operation(op(k_gcp)), OperationInProgress);
    EXPECT_THROW(store->insert_operation(op(k_openstack)), OperationInProgress);
    EXPECT_EQ(store->operations_of(k_gcp).size(), 3u);

    // A runtime whose last operation failed may start another.
    const Operation retry = op(k_azure);
    store->insert_operation(retry);
    EXPECT_EQ(store->last_operation(k_azure)->id, retry.id);
}

TEST_F(PostgresTakeover, ResumesTheOriginalsInProgressOperations) {
    auto store = take_over();
    // Unlike the original after a restart (original-provisioner.md §2.7), every in-progress
    // operation is due at once, whatever its type.
    const auto claimed = store->claim_due("kprov-1", SystemClock().now() + 1min, 30s, 10);
    std::vector<std::string> ids;
    for (const auto& op : claimed)
        ids.push_back(op.id);
    std::sort(ids.begin(), ids.end());
    EXPECT_THAT(ids, ElementsAre("0e000000-1111-4000-8000-000000000002",
                                 "0e000000-4444-4000-8000-000000000002"));
    for (const auto& op : claimed) {
        EXPECT_EQ(op.lease->owner, "kprov-1");
        EXPECT_EQ(op.attempts, 1);
    }
}

TEST_F(PostgresTakeover, NewWritesFitTheOriginalsTables) {
    auto store = take_over();
    // Upgrading a runtime the original created: its plaintext administrators are replaced by
    // encrypted ones, and its configuration is rewritten in place.
    Runtime gcp = expected_gcp();
    engine::RuntimeUpgrade upgrade{gcp.gardener, {"new.admin@example.com"}};
    upgrade.gardener.kubernetes_version = "1.27.5";
    Operation finished = store->find_operation("0e000000-1111-4000-8000-000000000002").value();
    ASSERT_TRUE(store->claim(finished.id, "kprov-1", SystemClock().now(), 30s));
    finished.state = OperationState::Succeeded;
    finished.stage = "Finished";
    store->save_progress(finished, "kprov-1", SystemClock().now(), {}, {}, true);

    Operation op;
    op.id = engine::new_uuid();
    op.type = OperationType::UpgradeShoot;
    op.start_timestamp = SystemClock().now();
    op.next_run_at = op.start_timestamp;
    op.cluster_id = k_gcp;
    op.stage = "WaitingForShootNewVersion";
    store->insert_operation(op, &upgrade);
    gcp.gardener = upgrade.gardener;
    gcp.administrators = upgrade.administrators;
    expect_same_runtime(*store->find_runtime(k_gcp), gcp);
    EXPECT_EQ(sql(m_db->url(), "SELECT count(*) FROM cluster_administrator WHERE cluster_id = '" +
                                   k_gcp +
                                   "' AND is_user_id_encrypted AND user_id LIKE 'v2:%'")[0][0]
                  .as<int>(),
              1);
}

TEST_F(PostgresTakeover, KeepsTheNewerOfTwoInProgressOperations) {
    load("original_two_in_progress.sql");
    auto store = take_over();
    const auto ops = store->operations_of(k_race);
    ASSERT_EQ(ops.size(), 3u);

    EXPECT_EQ(ops[0].id, "0e000000-5555-4000-8000-000000000003");
    EXPECT_EQ(ops[0].state, OperationState::InProgress);
    EXPECT_EQ(ops[0].message, "Deprovisioning started");
    EXPECT_FALSE(ops[0].end_timestamp);

    EXPECT_EQ(ops[1].id, "0e000000-5555-4000-8000-000000000002");
    EXPECT_EQ(ops[1].state, OperationState::Failed);
    EXPECT_EQ(
        ops[1].message,
        "superseded by a newer in-progress operation of the same runtime (kprov migration 2)");
    ASSERT_TRUE(ops[1].end_timestamp);
    EXPECT_GE(*ops[1].end_timestamp, m_migrated_after - 1min);
    EXPECT_EQ(ops[1].stage, "WaitingForShootUpgrade");

    EXPECT_EQ(ops[2].state, OperationState::Succeeded);
    EXPECT_EQ(ops[2].message, "Operation succeeded");

    // The other runtimes' in-progress operations were not touched.
    EXPECT_EQ(store->last_operation(k_gcp)->state, OperationState::InProgress);
    EXPECT_EQ(store->last_operation(k_openstack)->state, OperationState::InProgress);
    EXPECT_EQ(store->count_in_progress().at(OperationType::DeprovisionNoInstall), 2);
}

TEST_F(PostgresTakeover, GivesASharedShootNameToTheNewestLiveRuntime) {
    load("original_shared_shoot_name.sql");
    auto store = take_over();
    EXPECT_EQ(store->live_runtime_with_shoot("kyma", "c-shared"),
              "66666666-0003-4666-8666-666666666666");
    // The older live one keeps working; a new runtime of the name is refused, naming the owner.
    EXPECT_TRUE(store->find_runtime("66666666-0002-4666-8666-666666666666"));
    Runtime copy = *store->find_runtime("66666666-0002-4666-8666-666666666666");
    copy.id = engine::new_uuid();
    copy.gardener.id = engine::new_uuid();
    Operation op;
    op.id = engine::new_uuid();
    op.start_timestamp = SystemClock().now();
    op.next_run_at = op.start_timestamp;
    op.cluster_id = copy.id;
    op.stage = "CreatingShoot";
    try {
        store->insert_runtime(copy, op);
        ADD_FAILURE() << "a second live runtime of the name was written";
    } catch (const engine::ShootNameTaken& e) {
        EXPECT_EQ(e.owner(), "66666666-0003-4666-8666-666666666666");
    }
    EXPECT_FALSE(store->find_runtime(copy.id));
}

TEST_F(PostgresTakeover, RefusesToOpenWithoutMigratingWhenRequired) {
    OpenOptions options;
    options.secret_key = k_original_key;
    options.schema = SchemaCheck::Require;
    try {
        open_store(m_db->url(), options);
        FAIL() << "served an unmigrated original database";
    } catch (const StoreError& e) {
        EXPECT_THAT(e.what(), HasSubstr("run `kprov migrate`"));
    }
}

} // namespace
} // namespace kprov::stores
