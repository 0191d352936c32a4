// status, operation, list, history, completion and the error paths of the command line, driven
// in-process through kprov::cli::run and as the built binary, on a SQLite store (and
// PostgreSQL for list and status) that the test fills through the Store API.

#include "cli/app.hpp"
#include "cli/store_warning.hpp"
#include "cli_testing.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/skip.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unistd.h>

extern char** environ;

namespace kprov::cli {
namespace {

using engine::Operation;
using engine::OperationState;
using engine::OperationType;
using engine::Runtime;
using Json = nlohmann::ordered_json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

const std::regex k_rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");

std::vector<std::string> keys(const Json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items())
        out.push_back(key);
    return out;
}

// kprov::cli::run with its streams captured.
Result kprov_plain(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    Result r;
    r.code = run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// Three runtimes, oldest first: "orders" (provisioned, then a failed shoot upgrade, labels
// team=orders), "billing" (provisioning in progress) and "gone" (deprovisioned).
class ReadCommands : public ::testing::TestWithParam<StoreKind> {
protected:
    void SetUp() override {
        for (const char* name : {"KPROV_STORE", "APP_DATABASE_HOST", "APP_DATABSE_HOST",
                                 "APP_LOG_LEVEL", "KPROV_LOG_LEVEL", "NO_COLOR"})
            unsetenv(name);
        setenv("HOME", m_dir.path().c_str(), 1);
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
        setenv("APP_DATABASE_SECRET_KEY", k_secret_key.c_str(), 1);
        if (GetParam() == StoreKind::Postgres) {
            KPROV_FRESH_POSTGRES(db);
            m_postgres = std::move(db);
            m_url = m_postgres->url();
        } else {
            m_url = "sqlite://" + m_dir.file("kprov.db");
        }
        stores::OpenOptions options;
        options.secret_key = k_secret_key;
        options.schema = stores::SchemaCheck::Migrate;
        m_store = stores::open_store(m_url, options);
        seed();
    }

    void TearDown() override { unsetenv("APP_DATABASE_SECRET_KEY"); }

    // Ends `op` as `state` through a lease, with its stage transitions, as a worker would.
    void finish(Operation op, OperationState state, const std::vector<std::string>& stages,
                bool soft_delete = false) {
        const Timestamp now = op.start_timestamp + 10min;
        ASSERT_TRUE(m_store->claim(op.id, "test", now, 1min));
        std::vector<engine::StageTransition> transitions;
        std::string from;
        Timestamp at = op.start_timestamp;
        for (const auto& stage : stages) {
            at += 1min;
            transitions.push_back({op.id, from, stage, OperationState::InProgress, "", at});
            from = stage;
        }
        transitions.push_back({op.id, from, "Finished", state,
                               state == OperationState::Failed ? "boom" : "done", at + 1min});
        op.state = state;
        op.stage = "Finished";
        op.end_timestamp = at + 1min;
        op.message = state == OperationState::Failed ? "Operation failed" : "Operation succeeded";
        if (state == OperationState::Failed)
            op.last_error = {"shoot upgrade failed: quota exceeded", "ERR_INFRA_QUOTA_EXCEEDED",
                             "gardener"};
        engine::RuntimeChange change;
        change.soft_delete = soft_delete;
        m_store->save_progress(op, "test", now, transitions, change, true);
    }

    void seed() {
        // In the past, so that tables say "... ago".
        const Timestamp t0 = std::chrono::floor<std::chrono::seconds>(SystemClock().now()) - 48h;
        m_orders = kprov::testing::small_runtime(engine::new_uuid(), t0);
        m_orders.name = "orders";
        m_orders.labels_json = R"({"team":"orders"})";
        m_orders_provision =
            kprov::testing::new_operation(m_orders.id, OperationType::Provision, t0);
        m_store->insert_runtime(m_orders, m_orders_provision);
        finish(m_orders_provision, OperationState::Succeeded,
               {"CreatingShoot", "WaitingForClusterCreation"});
        m_orders_upgrade = kprov::testing::new_operation(m_orders.id, OperationType::UpgradeShoot,
                                                         t0 + 1h, "WaitingForShootUpgrade");
        m_store->insert_operation(m_orders_upgrade);
        finish(m_orders_upgrade, OperationState::Failed, {"WaitingForShootUpgrade"});

        m_billing = kprov::testing::small_runtime(engine::new_uuid(), t0 + 2h);
        m_billing.name = "billing";
        m_billing_provision =
            kprov::testing::new_operation(m_billing.id, OperationType::Provision, t0 + 2h);
        m_store->insert_runtime(m_billing, m_billing_provision);

        m_gone = kprov::testing::small_runtime(engine::new_uuid(), t0 - 1h);
        m_gone.name = "gone";
        const auto provision =
            kprov::testing::new_operation(m_gone.id, OperationType::Provision, t0 - 1h);
        m_store->insert_runtime(m_gone, provision);
        finish(provision, OperationState::Succeeded, {"CreatingShoot"});
        const auto deprovision = kprov::testing::new_operation(
            m_gone.id, OperationType::DeprovisionNoInstall, t0 - 30min, "DeprovisionCluster");
        m_store->insert_operation(deprovision);
        finish(deprovision, OperationState::Succeeded, {"DeprovisionCluster"}, true);
    }

    Result kprov(std::vector<std::string> args) const {
        args.insert(args.end(), {"--store", m_url});
        return kprov_plain(args);
    }

    // The built binary, with this process's environment plus `env`.
    Result binary(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", m_url});
        std::vector<std::string> environment(env);
        for (char** e = environ; *e != nullptr; ++e)
            environment.emplace_back(*e);
        const auto r = kprov::testing::run_process(args, environment, m_dir.path());
        return {r.exit_code, r.out, r.err};
    }

    testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::PostgresDatabase> m_postgres;
    std::string m_url;
    std::unique_ptr<stores::StoreBackend> m_store;
    Runtime m_orders, m_billing, m_gone;
    Operation m_orders_provision, m_orders_upgrade, m_billing_provision;
};

TEST_P(ReadCommands, StatusAsTableWideJsonYamlAndName) {
    auto r = kprov({"status", m_orders.id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(without_store_warning(r.err), "");
    EXPECT_THAT(r.out, HasSubstr("runtime     " + m_orders.id + "\n"));
    EXPECT_THAT(r.out, HasSubstr("name        orders\n"));
    EXPECT_THAT(r.out, HasSubstr("state       Failed\n"));
    EXPECT_THAT(r.out, HasSubstr("operation   UpgradeShoot " + m_orders_upgrade.id + "\n"));
    EXPECT_THAT(r.out, HasSubstr("error       shoot upgrade failed: quota exceeded\n"));
    EXPECT_THAT(r.out, HasSubstr(" ago\n")) << "tables show relative times";
    EXPECT_THAT(r.out, Not(HasSubstr("\033["))) << "no colours off a terminal";

    r = kprov({"status", m_orders.id, "-o", "wide"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(R"(labels          {"team":"orders"})"));

    r = kprov({"status", m_orders.id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json status = Json::parse(r.out);
    EXPECT_EQ(keys(status),
              (std::vector<std::string>{"lastOperationStatus", "runtimeConnectionStatus",
                                        "runtimeConfiguration", "hibernationStatus", "runtime",
                                        "kymaInstallation", "lifecycle",
                                        "kubernetesVersionLifecycle", "gardener"}));
    // No Gardener here: status says so instead of failing.
    EXPECT_TRUE(status["hibernationStatus"].is_null());
    EXPECT_THAT(status["gardener"]["error"].get<std::string>(),
                HasSubstr("Gardener not reachable"));
    EXPECT_EQ(status["lastOperationStatus"]["stage"], "Finished");
    EXPECT_TRUE(status["kymaInstallation"].is_null()) << "a runtime without Kyma";
    EXPECT_EQ(status["lastOperationStatus"]["id"], m_orders_upgrade.id);
    EXPECT_EQ(status["lastOperationStatus"]["operation"], "UpgradeShoot");
    EXPECT_EQ(status["lastOperationStatus"]["state"], "Failed");
    EXPECT_EQ(status["lastOperationStatus"]["lastError"]["reason"], "ERR_INFRA_QUOTA_EXCEEDED");
    EXPECT_EQ(status["runtimeConnectionStatus"]["status"], "Pending");
    const Json& cluster = status["runtimeConfiguration"]["clusterConfig"];
    EXPECT_EQ(cluster["name"], m_orders.gardener.name);
    EXPECT_EQ(cluster["providerSpecificConfig"]["__typename"], "GCPProviderConfig");
    EXPECT_TRUE(status["runtimeConfiguration"]["kubeconfig"].is_null());
    EXPECT_EQ(status["runtime"]["id"], m_orders.id);
    EXPECT_EQ(status["runtime"]["labels"]["team"], "orders");
    EXPECT_TRUE(
        std::regex_match(status["runtime"]["creationTimestamp"].get<std::string>(), k_rfc3339));

    r = kprov({"status", m_orders.id, "-o", "yaml"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("lastOperationStatus:\n  id: " + m_orders_upgrade.id + "\n"));
    EXPECT_THAT(r.out, HasSubstr("      __typename: GCPProviderConfig\n"));

    r = kprov({"status", m_orders.id, "-o", "name"});
    EXPECT_EQ(r.out, m_orders.id + "\n");
}

TEST_P(ReadCommands, UnknownIdsSaySoAndSuggestByPrefix) {
    auto r = kprov({"status", "no-such-runtime"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("kprov: error: runtime \"no-such-runtime\" not found"));

    const std::string prefix = m_orders.id.substr(0, 7); // too short to name it
    r = kprov({"status", prefix});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("runtime \"" + prefix + "\" not found; did you mean \"" +
                                 m_orders.id + "\"?"));

    std::string typo = m_orders.id;
    typo[20] = typo[20] == 'a' ? 'b' : 'a';
    r = kprov({"history", typo});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("did you mean \"" + m_orders.id + "\"?"));

    r = kprov({"operation", m_orders_upgrade.id.substr(0, 6)});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("operation \"" + m_orders_upgrade.id.substr(0, 6) +
                                 "\" not found; did you mean \"" + m_orders_upgrade.id + "\"?"));
    r = kprov({"operation", "nope"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("operation \"nope\" not found"));

    r = kprov({"status"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("RUNTIME_ID is required"));
}

TEST_P(ReadCommands, OperationPrintsAnOperationStatus) {
    auto r = kprov({"operation", m_orders_upgrade.id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json op = Json::parse(r.out);
    EXPECT_EQ(keys(op), (std::vector<std::string>{"id", "operation", "state", "message",
                                                  "runtimeID", "compassRuntimeID", "lastError",
                                                  "stage", "startTimestamp", "endTimestamp"}));
    EXPECT_EQ(op["stage"], "Finished");
    EXPECT_TRUE(std::regex_match(op["startTimestamp"].get<std::string>(), k_rfc3339));
    EXPECT_TRUE(std::regex_match(op["endTimestamp"].get<std::string>(), k_rfc3339));
    EXPECT_EQ(op["runtimeID"], m_orders.id);
    EXPECT_EQ(op["lastError"]["component"], "gardener");
    r = kprov({"operation", m_orders_upgrade.id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("state      Failed\n"));
    r = kprov({"operation", m_orders_upgrade.id, "-o", "name"});
    EXPECT_EQ(r.out, m_orders_upgrade.id + "\n");
}

TEST_P(ReadCommands, ListFiltersByStateLabelsAndDeletion) {
    auto r = kprov({"list"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string header, first, second, extra;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_FALSE(std::getline(lines, extra)) << "the deleted runtime is hidden: " << r.out;
    EXPECT_THAT(header, ::testing::StartsWith("RUNTIME ID   NAME"));
    EXPECT_THAT(header, HasSubstr("STATE"));
    EXPECT_THAT(first, ::testing::StartsWith(m_billing.id.substr(0, 8) + "     billing"));
    EXPECT_THAT(first, HasSubstr("InProgress"));
    EXPECT_THAT(second, ::testing::StartsWith(m_orders.id.substr(0, 8) + "     orders "));
    EXPECT_EQ(header.find("STATE"), first.find("InProgress")) << "columns are aligned";

    r = kprov({"list", "-o", "name", "--all"});
    EXPECT_EQ(r.out, m_billing.id + "\n" + m_orders.id + "\n" + m_gone.id + "\n");
    r = kprov({"list", "-o", "name", "--state", "failed"});
    EXPECT_EQ(r.out, m_orders.id + "\n");
    r = kprov({"list", "-o", "name", "-l", "team=orders"});
    EXPECT_EQ(r.out, m_orders.id + "\n");
    r = kprov({"list", "-o", "name", "-l", "team=billing"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "");
    r = kprov({"list", "--state", "Succeeded"});
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("no runtimes match"));

    r = kprov({"list", "-o", "name", "--limit", "1"});
    EXPECT_EQ(r.out, m_billing.id + "\n");
    EXPECT_THAT(r.err, HasSubstr("showing the newest runtime;"));
    r = kprov({"list", "-o", "name", "--limit", "1", "-q"});
    EXPECT_EQ(r.err, "");

    r = kprov({"list", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json list = Json::parse(r.out);
    ASSERT_TRUE(list.is_array());
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0]["lastOperationStatus"]["runtimeID"], m_billing.id);
    EXPECT_EQ(list[1]["runtimeConfiguration"]["clusterConfig"]["name"], m_orders.gardener.name);
    EXPECT_EQ(list[1]["runtime"]["name"], "orders");
}

TEST_P(ReadCommands, ListRefusesBadFiltersNamingThem) {
    auto r = kprov({"list", "--state", "Runing"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--state \"Runing\" is not an operation state (expected "
                                 "InProgress, Succeeded or Failed)"));
    r = kprov({"list", "--state", "Faild"});
    EXPECT_THAT(r.err, HasSubstr("did you mean \"Failed\"?"));
    r = kprov({"list", "-l", "team>3"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("-l \"team>3\" is not a label selector, at character 5: "));
    r = kprov({"list", "--limit", "-3"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("\"-3\" is not a count (expected 0 or more)"));
    EXPECT_LT(r.err.size(), 200u) << r.err;
    r = kprov({"list", "--stat", "Failed"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("unknown option \"--stat\" for \"kprov list\"; did you mean "
                                 "\"--state\"?"));
}

TEST_P(ReadCommands, HistoryShowsEveryOperationWithItsTransitions) {
    auto r = kprov({"history", m_orders.id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json history = Json::parse(r.out);
    ASSERT_EQ(history.size(), 2u);
    EXPECT_EQ(history[0]["id"], m_orders_upgrade.id) << "newest first";
    EXPECT_EQ(history[1]["id"], m_orders_provision.id);
    EXPECT_EQ(keys(history[1]),
              (std::vector<std::string>{"id", "operation", "state", "message", "runtimeID",
                                        "compassRuntimeID", "lastError", "stage", "startTimestamp",
                                        "endTimestamp", "lastTransition", "transitions"}));
    const Json& transitions = history[1]["transitions"];
    ASSERT_EQ(transitions.size(), 3u);
    EXPECT_EQ(transitions[0]["toStage"], "CreatingShoot");
    EXPECT_EQ(transitions[1]["fromStage"], "CreatingShoot");
    EXPECT_EQ(transitions[2]["toStage"], "Finished");
    EXPECT_EQ(transitions[2]["state"], "Succeeded");
    EXPECT_TRUE(std::regex_match(transitions[0]["at"].get<std::string>(), k_rfc3339));
    EXPECT_TRUE(std::regex_match(history[1]["endTimestamp"].get<std::string>(), k_rfc3339));

    r = kprov({"history", m_orders.id});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("UpgradeShoot " + m_orders_upgrade.id + "  Failed  started "));
    EXPECT_THAT(r.out, HasSubstr("  error: shoot upgrade failed: quota exceeded\n"));
    EXPECT_THAT(r.out, HasSubstr("WaitingForClusterCreation"));
    EXPECT_THAT(r.out, HasSubstr(", took 3m"));
    EXPECT_THAT(r.out, HasSubstr("  WHEN "));

    r = kprov({"history", m_orders.id, "-o", "name"});
    EXPECT_EQ(r.out, m_orders_upgrade.id + "\n" + m_orders_provision.id + "\n");
}

TEST_P(ReadCommands, TheBinaryAnswersTheSame) {
    auto r = binary({"status", m_orders.id, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(without_store_warning(r.err), "");
    EXPECT_EQ(Json::parse(r.out)["runtime"]["name"], "orders");
    r = binary({"list", "-o", "name"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, m_billing.id + "\n" + m_orders.id + "\n");
    r = binary({"operation", m_billing_provision.id, "-o", "yaml"});
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr("state: InProgress\n"));
    r = binary({"history", m_gone.id, "-o", "name"});
    EXPECT_EQ(r.code, 0);
    r = binary({"status", "nope"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("kprov: error: runtime \"nope\" not found"));
    r = binary({"list", "--state", "x"});
    EXPECT_EQ(r.code, 2);
    r = binary({"lst"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("did you mean \"list\"?"));
}

TEST_P(ReadCommands, RuntimesAreNamedByIdPrefixNameOrShoot) {
    for (const std::string& name :
         {m_orders.id, m_orders.id.substr(0, 8), std::string("orders"), m_orders.gardener.name}) {
        const auto r = binary({"status", name, "-o", "name"});
        EXPECT_EQ(r.code, 0) << name << ": " << r.err;
        EXPECT_EQ(r.out, m_orders.id + "\n") << name;
    }
    auto r = binary({"history", "orders", "-o", "name"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, m_orders_upgrade.id + "\n" + m_orders_provision.id + "\n");
    r = binary({"operation", m_orders_upgrade.id.substr(0, 8), "-o", "name"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, m_orders_upgrade.id + "\n");
    r = binary({"status", "gone", "-o", "name"});
    EXPECT_EQ(r.out, m_gone.id + "\n") << "a deprovisioned runtime keeps its name";
}

TEST_P(ReadCommands, AnAmbiguousNameListsTheCandidates) {
    const Timestamp t = SystemClock().now() - 1h;
    Runtime a = kprov::testing::small_runtime("abcdef01-0000-4000-8000-000000000001", t);
    a.name = "twin";
    a.gardener.name = "twin-a";
    Runtime b = kprov::testing::small_runtime("abcdef01-0000-4000-8000-000000000002", t + 1min);
    b.name = "twin";
    b.gardener.name = "twin-b";
    Runtime again = kprov::testing::small_runtime(engine::new_uuid(), t);
    again.name = "gone"; // a live runtime of a deprovisioned one's name
    for (const auto& r : {a, b, again})
        m_store->insert_runtime(r,
                                kprov::testing::new_operation(r.id, OperationType::Provision, t));

    auto r = binary({"status", "twin"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("runtime \"twin\" is ambiguous: 2 runtimes fit it; give one of "
                                 "their ids:\n"));
    EXPECT_THAT(r.err, HasSubstr("\n  " + b.id + "  name \"twin\"  shoot twin-b\n"));
    EXPECT_THAT(r.err, HasSubstr("\n  " + a.id + "  name \"twin\"  shoot twin-a\n"));
    r = binary({"deprovision", "--yes", "twin"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("is ambiguous"));
    r = binary({"status", "abcdef01"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("runtime \"abcdef01\" is ambiguous: 2 runtimes fit it"));
    r = binary({"status", "twin-b", "-o", "name"});
    EXPECT_EQ(r.out, b.id + "\n");
    r = binary({"status", "gone", "-o", "name"});
    EXPECT_EQ(r.out, again.id + "\n") << "the live runtime of a name wins";

    // The list's ids are as long as it takes to tell them apart.
    r = binary({"list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(a.id + "   twin "));
    EXPECT_THAT(r.out, HasSubstr(m_orders.id + "   orders "));
}

TEST_P(ReadCommands, AnOperationIdForARuntimeAndTheReverseSaySo) {
    auto r = binary({"status", m_orders_upgrade.id});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("\"" + m_orders_upgrade.id + "\" is an operation ("));
    EXPECT_THAT(r.err, HasSubstr("not a runtime; its runtime is " + m_orders.id +
                                 ": kprov status " + m_orders.id + "\n"));
    // wait takes a runtime too: its operation in progress, or (none) its last operation.
    r = binary({"wait", "orders"});
    EXPECT_EQ(r.code, 3) << r.err; // that last operation failed
    EXPECT_THAT(r.err, HasSubstr("runtime " + m_orders.id +
                                 " has no operation in progress; its last operation, the "));
    EXPECT_THAT(r.out, HasSubstr(m_orders_upgrade.id));
    r = binary({"operation", m_orders.id.substr(0, 8)});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("kprov operation " + m_orders_upgrade.id + "\n"));
}

TEST_P(ReadCommands, EveryCommandSuggestsForAMistypedRuntime) {
    std::string typo = m_orders.id;
    typo[20] = typo[20] == 'a' ? 'b' : 'a';
    for (const std::vector<std::string>& command :
         std::vector<std::vector<std::string>>{{"deprovision", "--yes"},
                                               {"hibernate"},
                                               {"wake-up"},
                                               {"rollback-kyma"},
                                               {"kubeconfig"},
                                               {"history"},
                                               {"status"}}) {
        for (const std::string& given : {typo, std::string("ordrs")}) {
            auto args = command;
            args.push_back(given);
            const auto r = binary(args);
            EXPECT_EQ(r.code, 1) << command[0] << " " << given << ": " << r.err;
            EXPECT_THAT(r.err, HasSubstr("runtime \"" + given + "\" not found; did you mean \"" +
                                         (given == typo ? m_orders.id : "orders") + "\"?"))
                << command[0];
        }
    }
}

TEST_P(ReadCommands, SelectorsAreKubectls) {
    auto names = [&](const std::vector<std::string>& selectors, bool all = false) {
        std::vector<std::string> args = {"list", "-o", "name"};
        if (all)
            args.push_back("--all");
        for (const auto& selector : selectors)
            args.insert(args.end(), {"-l", selector});
        const auto r = binary(args);
        EXPECT_EQ(r.code, 0) << r.err;
        return r.out;
    };
    EXPECT_EQ(names({"team=orders"}), m_orders.id + "\n");
    EXPECT_EQ(names({"team==orders"}), m_orders.id + "\n");
    EXPECT_EQ(names({"team!=orders"}), m_billing.id + "\n");
    EXPECT_EQ(names({"team"}), m_orders.id + "\n");
    EXPECT_EQ(names({"!team"}), m_billing.id + "\n");
    EXPECT_EQ(names({"!team"}, true), m_billing.id + "\n" + m_gone.id + "\n");
    EXPECT_EQ(names({"team in (payments, orders)"}), m_orders.id + "\n");
    EXPECT_EQ(names({"team notin (orders)"}), m_billing.id + "\n");
    EXPECT_EQ(names({"team=orders,team!=orders"}), "");
    EXPECT_EQ(names({"team=orders", "!team"}), "");

    for (const char* bad : {"team>3", "team in orders", "team=orders,", "a b"}) {
        const auto r = binary({"list", "-l", bad});
        EXPECT_EQ(r.code, 2) << bad;
        EXPECT_THAT(r.err, HasSubstr("kprov: error: -l \"" + std::string(bad) +
                                     "\" is not a label selector, at character "))
            << bad;
        EXPECT_EQ(r.out, "");
    }
}

TEST_P(ReadCommands, ListFitsEightyColumns) {
    Runtime long_one = kprov::testing::small_runtime(engine::new_uuid(), SystemClock().now() - 1h);
    long_one.name = std::string(70, 'n') + "-end";
    m_store->insert_runtime(long_one, kprov::testing::new_operation(long_one.id));
    auto r = binary({"list", "--all"}, {"COLUMNS=80"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count)
        EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(count, 5) << r.out;
    EXPECT_THAT(r.out, HasSubstr(long_one.id.substr(0, 8) + "     nnnnnnnnn"));
    EXPECT_THAT(r.out, HasSubstr("n...   InProgress"));
    EXPECT_THAT(r.out, HasSubstr("Succeeded (deleted)"));

    r = binary({"list", "--all", "-o", "wide"}, {"COLUMNS=80"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(long_one.id + "   " + long_one.name + "   "));
    EXPECT_THAT(r.out, HasSubstr(m_orders.gardener.name));
}

TEST_P(ReadCommands, CompletionsDescribeIdsWithNames) {
    auto r = binary({"__complete", "--describe=zsh", "runtime", m_orders.id.substr(0, 4)});
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr(m_orders.id + ":orders (shoot " + m_orders.gardener.name + ")\n"));
    r = binary({"__complete", "--describe=fish", "runtime", m_gone.id});
    EXPECT_EQ(r.out, "") << "deprovisioned runtimes are not offered";
    r = binary({"__complete", "runtime", "ord"});
    EXPECT_EQ(r.out, "orders\n") << "live runtimes by name";
    r = binary({"__complete", "--describe=fish", "operation", m_orders_upgrade.id});
    EXPECT_THAT(r.out, ::testing::StartsWith(m_orders_upgrade.id + "\t"));
    EXPECT_THAT(r.out, HasSubstr(" Failed of orders\n"));
    r = binary({"__complete", "runtime", m_orders.id.substr(0, 8)});
    EXPECT_EQ(r.out, m_orders.id + "\n") << "bash gets plain ids";
}

// Colours only on a terminal (script(1) gives the binary one), never with NO_COLOR.
TEST_P(ReadCommands, ColoursOnlyOnATerminalAndNeverWithNoColor) {
    if (access("/usr/bin/script", X_OK) != 0)
        KPROV_SKIP_UNLESS_CI("script(1) is not installed (bsdutils)");
    const std::string command =
        std::string(KPROV_BINARY) + " list --store " + m_url + " --state Failed";
    auto r = kprov::testing::run_process(
        {"/usr/bin/script", "-qec", command, "/dev/null"},
        {"TERM=xterm", "HOME=" + m_dir.path(), "APP_DATABASE_SECRET_KEY=" + k_secret_key},
        m_dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("\033[31mFailed\033[0m"));
    r = kprov::testing::run_process({"/usr/bin/script", "-qec", command, "/dev/null"},
                                    {"TERM=xterm", "NO_COLOR=1", "HOME=" + m_dir.path(),
                                     "APP_DATABASE_SECRET_KEY=" + k_secret_key},
                                    m_dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("Failed"));
    EXPECT_THAT(r.out, Not(HasSubstr("\033[")));
}

INSTANTIATE_TEST_SUITE_P(Stores, ReadCommands,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

// --- without a store -------------------------------------------------------------------------

TEST(Completion, PrintsAScriptPerShellAndRefusesOthers) {
    for (const char* shell : {"bash", "zsh", "fish"}) {
        const auto r = kprov_plain({"completion", shell});
        EXPECT_EQ(r.code, 0) << shell;
        EXPECT_THAT(r.out, HasSubstr("kprov completion " + std::string(shell))) << shell;
        EXPECT_THAT(r.out, HasSubstr("__complete")) << shell;
    }
    auto r = kprov_plain({"completion", "tcsh"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("tcsh"));
    r = kprov_plain({"completion"});
    EXPECT_EQ(r.code, 2);
}

TEST(Completion, IdsComeFromTheStoreAndNeverAnError) {
    testing::TempDir dir;
    setenv("APP_DATABASE_SECRET_KEY", k_secret_key.c_str(), 1);
    const std::string url = "sqlite://" + dir.file("ids.db");
    {
        stores::OpenOptions options;
        options.secret_key = k_secret_key;
        options.schema = stores::SchemaCheck::Migrate;
        auto store = stores::open_store(url, options);
        const auto runtime = kprov::testing::small_runtime("4a000000-0000-4000-8000-000000000001");
        store->insert_runtime(runtime, kprov::testing::new_operation(runtime.id));
    }
    auto r = kprov_plain({"--store", url, "__complete", "runtime", "4a"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "4a000000-0000-4000-8000-000000000001\n");
    r = kprov_plain({"__complete", "runtime", "4b", "--store", url});
    EXPECT_EQ(r.out, "");
    r = kprov_plain({"__complete", "runtime", "", "--store", "mysql://nowhere"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "") << "a completion never prints errors into the prompt";
    unsetenv("APP_DATABASE_SECRET_KEY");
}

TEST(Config, JsonListsEverySettingWithItsOriginAndNoSecret) {
    setenv("APP_DATABASE_SECRET_KEY", k_secret_key.c_str(), 1);
    const auto r = kprov_plain({"config", "-o", "json", "--store", "sqlite:///tmp/x.db"});
    unsetenv("APP_DATABASE_SECRET_KEY");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find(k_secret_key), std::string::npos) << "secrets are redacted";
    const Json settings = Json::parse(r.out);
    ASSERT_TRUE(settings.is_array());
    bool store_seen = false;
    for (const auto& setting : settings) {
        EXPECT_EQ(keys(setting),
                  (std::vector<std::string>{"key", "env", "value", "origin", "source", "secret"}));
        if (setting["key"] == "store") {
            store_seen = true;
            EXPECT_EQ(setting["value"], "sqlite:///tmp/x.db");
            EXPECT_THAT(setting["source"].get<std::string>(), HasSubstr("--store"));
        }
        if (setting["key"] == "database.secret_key") {
            EXPECT_EQ(setting["value"], "***");
        }
    }
    EXPECT_TRUE(store_seen);
}

TEST(Errors, AMistypedProviderGetsADidYouMean) {
    testing::TempDir dir;
    std::ifstream in(KPROV_SOURCE_DIR "/examples/gcp.yaml");
    std::ostringstream text;
    text << in.rdbuf();
    std::string file = std::regex_replace(text.str(), std::regex("provider: gcp"), "provider: gpc");
    std::ofstream(dir.file("gpc.yaml")) << file;
    const auto r =
        kprov_plain({"provision", "-f", dir.file("gpc.yaml"), "--dry-run", "--tenant", "t",
                     "--gardener-project", "dev", "--store", "sqlite://" + dir.file("x.db")});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("clusterConfig.gardenerConfig.provider: must be one of aws, "
                                 "azure (or az), gcp, openstack, got \"gpc\"; did you mean "
                                 "\"gcp\"?"));
    EXPECT_EQ(r.out, "");
}

TEST(Errors, KubeconfigRefusesAShortExpirationNamingIt) {
    const auto r = kprov_plain({"kubeconfig", "some-id", "--expiration", "5m"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--expiration \"5m\" is not a duration of at least 10m"));
    EXPECT_EQ(r.out, "");
}

} // namespace
} // namespace kprov::cli
