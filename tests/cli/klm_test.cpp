// The lifecycle-manager Kyma backend (issue 19) against kprov-sim over real HTTP, on SQLite and
// PostgreSQL: kprov writes the kubeconfig Secret and the Kyma into the sim's KCP
// (kyma-lifecycle-manager.md §6), the sim's Kyma Lifecycle Manager reconciles the Kyma, and the
// stages read it back. The KCP objects are read through the sim's KCP API as KLM would see them.

#include "cli/operations_fixture.hpp"
#include "gardener/kube_client.hpp"
#include "net/base64.hpp"
#include "support/child_process.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

namespace kprov::cli {
namespace {

using namespace optest;
using ::testing::Not;

constexpr const char* k_kcp_namespace = "kcp-system";
// The sim's default catalog (tests/sim/README.md) is restored too: a test may replace it.
const json k_klm_defaults = {
    {"moduleSeconds", 0.1},
    {"stuckModules", json::array()},
    {"unreachable", json::array()},
    {"catalog",
     {"istio", "api-gateway", "btp-operator", "serverless", "keda", "telemetry", "eventing", "nats",
      "application-connector", "cloud-manager", "docker-registry", "cap-operator", "cad-operator",
      "registry-proxy", "template-operator"}}};

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::int64_t epoch_ms(Timestamp t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// kymaConfig for KLM: `version` (a channel) and every name as a component in kyma-system.
json modules_config(const std::vector<std::string>& names, const std::string& version = "regular") {
    json components = json::array();
    for (const auto& name : names)
        components.push_back({{"component", name}, {"namespace", "kyma-system"}});
    return {{"version", version}, {"components", components}};
}

const std::vector<std::string> k_five = {"istio", "api-gateway", "btp-operator", "serverless",
                                         "telemetry"};

class Klm : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    static constexpr const char* k_settings[] = {
        "KPROV_KYMA_INSTALLER",        "KPROV_KCP_KUBECONFIG_PATH",
        "KPROV_KYMA_MODULES",          "KPROV_KYMA_LOSSY",
        "KPROV_KYMA_DELETION_TIMEOUT", "KPROV_KYMA_KUBECONFIG_ROTATION",
        "KPROV_SUB_ACCOUNT",           "APP_PROVISIONING_TIMEOUT_INSTALLATION"};

    void SetUp() override {
        open(GetParam());
        if (HasFatalFailure() || IsSkipped())
            return;
        for (const char* name : k_settings)
            unsetenv(name);
        setenv("KPROV_KYMA_INSTALLER", "lifecycle-manager", 1);
        setenv("KPROV_KCP_KUBECONFIG_PATH", m_sim->kcp_kubeconfig.c_str(), 1);
        m_kcp = std::make_unique<gardener::KubeClient>(
            gardener::load_kubeconfig(m_sim->kcp_kubeconfig));
        sim_post("/sim/kcp/klm", k_klm_defaults);
    }
    void TearDown() override {
        if (m_gardener)
            sim_post("/sim/kcp/klm", k_klm_defaults);
        for (const char* name : k_settings)
            unsetenv(name);
        OperationsBase::TearDown();
    }

    json sim_get(const std::string& path) { return m_gardener->kube().get(path); }

    // A GCP runtime file with `kyma` as its kymaConfig and `labels` as its runtime labels;
    // returns the file and the shoot name.
    std::pair<std::string, std::string> klm_runtime_file(const json& kyma,
                                                         const json& labels = nullptr) {
        auto [file, shoot] = runtime_file("gcp");
        json document = read_runtime_file(file);
        document["kymaConfig"] = kyma;
        if (!labels.is_null())
            document["runtimeInput"]["labels"] = labels;
        std::ofstream(file) << document.dump();
        return {file, shoot};
    }

    // Provisions `file` with --wait; returns the runtime id ("" when none was printed).
    std::string provision(const std::string& file, int expected_code = 0) {
        const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
        EXPECT_EQ(r.code, expected_code) << r.err;
        const json status = json::parse(r.out, nullptr, false);
        return status.is_object() ? status.value("runtimeID", "") : "";
    }

    static std::string kyma_path(const std::string& name) {
        return "/apis/operator.kyma-project.io/v1beta2/namespaces/" + std::string(k_kcp_namespace) +
               "/kymas/" + name;
    }
    static std::string secrets_path() {
        return "/api/v1/namespaces/" + std::string(k_kcp_namespace) + "/secrets";
    }
    json secret_of(const std::string& runtime_id) {
        return m_kcp->get(secrets_path() + "/kubeconfig-" + runtime_id);
    }
    // The kubeconfig in a Secret's data.config.
    static gardener::Kubeconfig kubeconfig_in(const json& secret) {
        const auto text = net::base64_decode(secret["data"]["config"].get<std::string>());
        if (!text)
            throw std::runtime_error("data.config is not base64");
        return gardener::parse_kubeconfig(*text, "kcp secret");
    }

    // What the sim's KLM knows of Kyma `name` (GET /sim/kcp/kymas); null when nothing.
    json klm_view(const std::string& name) {
        const json all = sim_get("/sim/kcp/kymas"); // a range-for over a temporary's member dangles
        for (const auto& k : all["kymas"])
            if (k["name"] == name)
                return k;
        return nullptr;
    }

    std::vector<std::string> stages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : m_store->transitions_of(operation_id))
            out.push_back(t.to_stage);
        return out;
    }
    std::vector<std::string> messages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : m_store->transitions_of(operation_id))
            out.push_back(t.message);
        return out;
    }

    // A message in the operation's stage history, and shown by `kprov history <id>`.
    void expect_noted(const engine::Operation& op, const std::string& text) {
        EXPECT_THAT(messages_of(op.id), ::testing::Contains(HasSubstr(text)));
        const auto r = kprov({"history", op.cluster_id, "-o", "wide"});
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_THAT(r.out, HasSubstr(text));
    }

    // Nothing of the runtime is left in the KCP: no Kyma, no Secret, nothing the KLM knows.
    void expect_nothing_in_kcp(const std::string& runtime_id) {
        const std::string name = lowercase(runtime_id);
        EXPECT_FALSE(m_kcp->get_if_exists(kyma_path(name)).has_value());
        EXPECT_FALSE(m_kcp->get_if_exists(secrets_path() + "/kubeconfig-" + runtime_id));
        gardener::ListOptions by_runtime;
        by_runtime.label_selector = "kyma-project.io/runtime-id=" + runtime_id;
        EXPECT_TRUE(m_kcp->list(secrets_path(), by_runtime)["items"].empty());
        gardener::ListOptions by_kyma;
        by_kyma.label_selector = "operator.kyma-project.io/kyma-name=" + name;
        EXPECT_TRUE(m_kcp->list(secrets_path(), by_kyma)["items"].empty());
        const json kymas = m_kcp->list("/apis/operator.kyma-project.io/v1beta2/namespaces/" +
                                       std::string(k_kcp_namespace) + "/kymas");
        for (const auto& k : kymas["items"])
            EXPECT_NE(k["metadata"]["name"], name);
        EXPECT_TRUE(klm_view(name).is_null());
    }

    // Positions in /sim/writes of the first write matching `verb` and a path ending in `suffix`.
    std::map<std::string, int>
    write_positions(const std::vector<std::pair<std::string, std::string>>& wanted) {
        std::map<std::string, int> out;
        int index = 0;
        for (const auto& w : sim_get("/sim/writes")) {
            const std::string path = w["path"];
            for (const auto& [verb, suffix] : wanted) {
                const std::string key = verb + " " + suffix;
                if (w["verb"] == verb && path.size() >= suffix.size() &&
                    path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                    !out.count(key))
                    out[key] = index;
            }
            ++index;
        }
        return out;
    }

    // The process's live threads ("tid name"), this one included; a thread that has ended
    // but is not yet reaped (state Z or X) is not listed.
    static std::set<std::string> live_threads() {
        std::set<std::string> out;
        for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
            std::ifstream stat(task.path() / "stat");
            std::string line;
            std::getline(stat, line);
            const auto close = line.rfind(')');
            if (close == std::string::npos || close + 2 >= line.size())
                continue; // gone while listed
            if (const char state = line[close + 2]; state == 'Z' || state == 'X')
                continue;
            out.insert(task.path().filename().string() + " " +
                       line.substr(0, close + 1).substr(line.find(' ') + 1));
        }
        return out;
    }

    // Waits (bounded) until `done` holds; returns whether it did.
    template <typename Predicate>
    static bool eventually(Predicate done, std::chrono::milliseconds limit = 30s) {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!done()) {
            if (std::chrono::steady_clock::now() >= until)
                return false;
            std::this_thread::sleep_for(50ms);
        }
        return true;
    }

    std::unique_ptr<gardener::KubeClient> m_kcp;
};

INSTANTIATE_TEST_SUITE_P(Stores, Klm, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

// (a) The Secret and the Kyma as §6 lists them, and SUCCEEDED once the KLM says Ready.
TEST_P(Klm, ProvisioningWritesTheSecretAndTheKymaAndSucceedsOnceReady) {
    setenv("KPROV_SUB_ACCOUNT", "sa-1", 1);
    const json labels = {{"kyma-project.io/instance-id", "inst-1"},
                         {"kyma-project.io/broker-plan-name", "gcp"},
                         {"team", "not-copied"}};
    // Six components, istio twice: five modules, the duplicate merged at its first place.
    const auto [file, shoot] =
        klm_runtime_file(modules_config({"istio", "api-gateway", "btp-operator", "istio",
                                         "serverless", "telemetry"}),
                         labels);
    const auto threads_before = live_threads();
    const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    // A one-shot command leaves no thread behind (the Kyma watches' deadline timer did, and
    // the tests change the environment between in-process runs). A thread that has joined
    // may take a moment to leave /proc, hence the bounded wait; one left running never does.
    std::set<std::string> left;
    EXPECT_TRUE(eventually(
        [&] {
            left.clear();
            for (const auto& t : live_threads())
                if (!threads_before.count(t))
                    left.insert(t);
            return left.empty();
        },
        5s))
        << "threads left behind: " << ::testing::PrintToString(left);
    const std::string id = json::parse(r.out)["runtimeID"];
    const std::string name = lowercase(id);
    const auto op = expect_succeeded(id, OperationType::Provision,
                                     {"CreatingBindingsForOperators", "ApplyingKymaSecret",
                                      "ApplyingKyma", "WaitingForKymaReady"});
    const auto stages = stages_of(op.id);
    auto at = [&](const std::string& stage) {
        return std::find(stages.begin(), stages.end(), stage) - stages.begin();
    };
    EXPECT_LT(at("CreatingBindingsForOperators"), at("ApplyingKymaSecret"));
    EXPECT_LT(at("ApplyingKymaSecret"), at("ApplyingKyma"));
    EXPECT_LT(at("ApplyingKyma"), at("WaitingForKymaReady"));
    EXPECT_THAT(messages_of(op.id),
                ::testing::Contains("Kyma kcp-system/" + name +
                                    " applied: channel regular, modules istio, api-gateway, "
                                    "btp-operator, serverless, telemetry"));

    // The KLM had said Ready before kprov ended the operation.
    const json view = klm_view(name);
    ASSERT_FALSE(view.is_null()) << sim_get("/sim/kcp/kymas").dump();
    EXPECT_EQ(view["state"], "Ready");
    EXPECT_TRUE(view["reachable"].get<bool>());
    ASSERT_TRUE(view["readyAtUnixMs"].is_number()) << view.dump();
    ASSERT_TRUE(op.end_timestamp);
    EXPECT_LE(view["readyAtUnixMs"].get<std::int64_t>(), epoch_ms(*op.end_timestamp));

    const auto gardener_shoot = this->shoot(shoot);
    ASSERT_TRUE(gardener_shoot);
    const std::string domain = (*gardener_shoot)["spec"]["dns"].value("domain", "");
    ASSERT_FALSE(domain.empty());

    // The Kyma: name, every label, skr-domain, channel, modules in order.
    const json kyma = m_kcp->get(kyma_path(name));
    EXPECT_EQ(kyma["metadata"]["name"], name);
    EXPECT_EQ(kyma["metadata"]["namespace"], k_kcp_namespace);
    EXPECT_EQ(kyma["metadata"]["labels"],
              (json{{"kyma-project.io/runtime-id", id},
                    {"kyma-project.io/global-account-id", "ga-1"},
                    {"kyma-project.io/subaccount-id", "sa-1"},
                    {"kyma-project.io/shoot-name", shoot},
                    {"kyma-project.io/region", "europe-west3"},
                    {"kyma-project.io/provider", "GCP"},
                    {"kyma-project.io/instance-id", "inst-1"},
                    {"kyma-project.io/broker-plan-name", "gcp"},
                    {"operator.kyma-project.io/kyma-name", name},
                    {"operator.kyma-project.io/managed-by", "lifecycle-manager"}}));
    EXPECT_EQ(kyma["metadata"]["annotations"], (json{{"skr-domain", domain}}));
    EXPECT_EQ(kyma["spec"]["channel"], "regular");
    std::vector<std::string> modules;
    for (const auto& m : kyma["spec"]["modules"]) {
        modules.push_back(m["name"]);
        EXPECT_FALSE(m.contains("channel")) << m.dump() << ": the Kyma's channel applies";
    }
    EXPECT_EQ(modules, k_five);
    EXPECT_EQ(kyma["status"]["state"], "Ready");

    // The Secret: name, labels, last-sync, data.config a kubeconfig of this runtime's cluster.
    const json secret = secret_of(id);
    EXPECT_EQ(secret["metadata"]["labels"],
              (json{{"operator.kyma-project.io/kyma-name", name},
                    {"operator.kyma-project.io/managed-by", "lifecycle-manager"},
                    {"kyma-project.io/runtime-id", id},
                    {"kyma-project.io/shoot-name", shoot},
                    {"kprov.kyma-project.io/managed-by", "kprov"}}));
    const json annotations = secret["metadata"]["annotations"];
    ASSERT_EQ(annotations.size(), 1u) << annotations.dump();
    EXPECT_TRUE(std::regex_match(annotations.value("operator.kyma-project.io/last-sync", ""),
                                 std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)")))
        << annotations.dump();
    ASSERT_EQ(secret["data"].size(), 1u) << "only the key config";
    const auto kubeconfig = kubeconfig_in(secret);
    EXPECT_EQ(kubeconfig.server, m_sim->url + "/clusters/shoot--" + k_project + "--" + shoot);
    EXPECT_FALSE(kubeconfig.token.empty());
    gardener::ListOptions by_kyma;
    by_kyma.label_selector = "operator.kyma-project.io/kyma-name=" + name;
    EXPECT_EQ(m_kcp->list(secrets_path(), by_kyma)["items"].size(), 1u)
        << "KLM needs exactly one Secret per Kyma";

    // status -o json: the Kyma read live from the KCP.
    const auto status = kprov({"status", id, "-o", "json"});
    ASSERT_EQ(status.code, 0) << status.err;
    const json resource = json::parse(status.out)["kymaResource"];
    EXPECT_EQ(resource["name"], name);
    EXPECT_EQ(resource["namespace"], k_kcp_namespace);
    EXPECT_EQ(resource["exists"], true);
    EXPECT_EQ(resource["state"], "Ready");
    EXPECT_EQ(resource["channel"], "regular");
    EXPECT_EQ(resource["deleting"], false);
    EXPECT_EQ(resource["lastOperation"], "kyma is ready");
    ASSERT_EQ(resource["modules"].size(), 5u) << resource.dump();
    std::vector<std::string> ready;
    for (const auto& m : resource["modules"]) {
        EXPECT_EQ(m["state"], "Ready") << m.dump();
        ready.push_back(m["name"]);
    }
    EXPECT_EQ(ready, k_five);
    const auto table = kprov({"status", id});
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_THAT(table.out, HasSubstr("kcp-system/" + name +
                                     ": Ready, channel regular, 5/5 "
                                     "modules ready"));
    EXPECT_THAT(table.out, HasSubstr("istio Ready, api-gateway Ready, btp-operator Ready, "
                                     "serverless Ready, telemetry Ready"));
}

// The internal and beta labels go from the runtime's labels to its Kyma, and the sim's KLM
// refuses internal and beta modules to a Kyma without them, as KLM does (§5). The Secret's name
// is lower-case and its kyma-name label is the Kyma's name.
TEST_P(Klm, InternalAndBetaModulesNeedTheLabelsFromTheRuntimesLabels) {
    sim_post("/sim/kcp/klm", {{"catalog",
                               {"istio",
                                {{"name", "connectivity-proxy"}, {"internal", true}},
                                {{"name", "preview"}, {"beta", true}}}}});
    const json modules = modules_config({"istio", "connectivity-proxy", "preview"});
    const auto [file, shoot] =
        klm_runtime_file(modules, {{"operator.kyma-project.io/internal", "True"},
                                   {"operator.kyma-project.io/beta", true}});
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    expect_succeeded(id, OperationType::Provision, {"ApplyingKyma", "WaitingForKymaReady"});
    const std::string name = lowercase(id);
    const json labels = m_kcp->get(kyma_path(name))["metadata"]["labels"];
    EXPECT_EQ(labels["operator.kyma-project.io/internal"], "true");
    EXPECT_EQ(labels["operator.kyma-project.io/beta"], "true");
    const json secret = m_kcp->get(secrets_path() + "/kubeconfig-" + name);
    EXPECT_EQ(secret["metadata"]["labels"]["operator.kyma-project.io/kyma-name"], name);

    // Without the labels: both modules are refused, and the operation fails naming them.
    setenv("APP_PROVISIONING_TIMEOUT_INSTALLATION", "3s", 1);
    const auto [plain, plain_shoot] = klm_runtime_file(modules);
    const std::string refused = provision(plain, 3);
    ASSERT_FALSE(refused.empty());
    const auto op = *m_store->last_operation(refused);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_THAT(op.message, HasSubstr("connectivity-proxy (Error: module template not allowed: "
                                      "internal module)"));
    EXPECT_THAT(op.message, HasSubstr("preview (Error: module template not allowed: beta module)"));
    EXPECT_THAT(op.message, Not(HasSubstr("istio (")));
    EXPECT_FALSE(m_kcp->get(kyma_path(lowercase(refused)))["metadata"]["labels"].contains(
        "operator.kyma-project.io/internal"));

    // A label value that is neither true nor false is refused at request time.
    const auto [bad, bad_shoot] =
        klm_runtime_file(modules, {{"operator.kyma-project.io/internal", "yes"}});
    const auto r = kprov({"provision", "-f", bad});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("runtimeInput.labels.operator.kyma-project.io/internal: must be "
                                 "\"true\" or \"false\""));
    EXPECT_THAT(r.err, HasSubstr("got \"yes\""));
}

// (b) A module that never gets Ready: the operation fails at the timeout, naming it.
TEST_P(Klm, AModuleThatNeverGetsReadyFailsTheOperationAtTheTimeoutNamingIt) {
    setenv("APP_PROVISIONING_TIMEOUT_INSTALLATION", "3s", 1);
    sim_post("/sim/kcp/klm", {{"stuckModules", {"serverless"}}});
    const auto [file, shoot] = klm_runtime_file(modules_config(k_five));
    const std::string id = provision(file, 3);
    ASSERT_FALSE(id.empty());
    const std::string name = lowercase(id);
    const auto op = *m_store->last_operation(id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_EQ(op.stage, "WaitingForKymaReady");
    EXPECT_EQ(op.last_error.reason, "err_provisioner_timeout");
    EXPECT_EQ(op.message.rfind("error: timeout waiting for Kyma kcp-system/" + name +
                                   " to be Ready: state Processing, last operation \"",
                               0),
              0u)
        << op.message;
    EXPECT_THAT(op.message, HasSubstr("; modules not ready: serverless (Processing"));
    for (const auto& other : {"istio", "api-gateway", "btp-operator", "telemetry"})
        EXPECT_THAT(op.message, Not(HasSubstr(std::string(other) + " ("))) << "it was Ready";
    // At the timeout: not before 3 s in WaitingForKymaReady, and at the latest at the first
    // look after it (a stuck Kyma does not change, so the stage looks every 5 s plus 10 %).
    std::optional<Timestamp> entered;
    for (const auto& t : m_store->transitions_of(op.id))
        if (t.to_stage == "WaitingForKymaReady" && !entered)
            entered = t.at;
    ASSERT_TRUE(entered && op.end_timestamp);
    const auto waited = *op.end_timestamp - *entered;
    EXPECT_GE(waited, 3s);
    EXPECT_LT(waited, 3s + 5500ms + 2s);
    EXPECT_EQ(klm_view(name)["state"], "Processing");
}

// (c) The Kyma goes before the shoot, and nothing of the runtime stays in kcp-system.
TEST_P(Klm, DeprovisioningDeletesTheKymaBeforeTheShootAndLeavesNothingInTheKcp) {
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio", "serverless"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const std::string name = lowercase(id);
    sim_post("/sim/stats/reset", json::object());
    const auto r = kprov({"deprovision", id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto op = expect_succeeded(
        id, OperationType::Deprovision,
        {"WaitingForKymaDeletion", "DeprovisionCluster", "WaitForClusterDeletion"});
    EXPECT_EQ(m_store->transitions_of(op.id).front().from_stage, "DeletingKyma");
    const std::string kyma = "/kcp" + kyma_path(name);
    const std::string shoot_path = "/shoots/" + shoot;
    const std::string secret = "/kcp" + secrets_path() + "/kubeconfig-" + id;
    const auto at = write_positions(
        {{"DELETE", kyma}, {"REMOVED", kyma}, {"DELETE", shoot_path}, {"DELETE", secret}});
    ASSERT_TRUE(at.count("DELETE " + kyma)) << sim_get("/sim/writes").dump(1).substr(0, 4000);
    ASSERT_TRUE(at.count("REMOVED " + kyma));
    ASSERT_TRUE(at.count("DELETE " + shoot_path));
    ASSERT_TRUE(at.count("DELETE " + secret));
    EXPECT_LT(at.at("DELETE " + kyma), at.at("REMOVED " + kyma));
    EXPECT_LT(at.at("REMOVED " + kyma), at.at("DELETE " + shoot_path));
    EXPECT_LT(at.at("REMOVED " + kyma), at.at("DELETE " + secret))
        << "KLM cleans the runtime through the Secret: it stays until the Kyma is gone";
    expect_nothing_in_kcp(id);
}

// (d) A module stuck on deletion: the Secret goes after KPROV_KYMA_DELETION_TIMEOUT, KLM lets go.
TEST_P(Klm, AModuleStuckOnDeletionIsLetGoByDeletingTheSecret) {
    setenv("KPROV_KYMA_DELETION_TIMEOUT", "2s", 1);
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio", "serverless"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const std::string name = lowercase(id);
    sim_post("/sim/kcp/klm", {{"stuckModules", {"serverless"}}});
    sim_post("/sim/stats/reset", json::object());
    const auto started = std::chrono::steady_clock::now();
    const auto r = kprov({"deprovision", id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_GE(std::chrono::steady_clock::now() - started, 2s) << "not before the timeout";
    const auto op = expect_succeeded(id, OperationType::Deprovision,
                                     {"WaitingForKymaDeletion", "WaitForClusterDeletion"});
    const std::string note = "deleted Secret kcp-system/kubeconfig-" + id +
                             " so that Kyma Lifecycle Manager lets go of Kyma " + name +
                             " (its deletion took longer than 2s)";
    expect_noted(op, note);
    const std::string kyma = "/kcp" + kyma_path(name);
    const std::string secret = "/kcp" + secrets_path() + "/kubeconfig-" + id;
    const auto at =
        write_positions({{"DELETE", secret}, {"REMOVED", kyma}, {"DELETE", "/shoots/" + shoot}});
    ASSERT_EQ(at.size(), 3u) << sim_get("/sim/writes").dump(1).substr(0, 4000);
    EXPECT_LT(at.at("DELETE " + secret), at.at("REMOVED " + kyma));
    EXPECT_LT(at.at("REMOVED " + kyma), at.at("DELETE /shoots/" + shoot));
    expect_nothing_in_kcp(id);
}

// (d) An unreachable runtime (knob): KLM cannot clean it, the Secret goes, KLM lets go.
TEST_P(Klm, AnUnreachableRuntimeIsLetGoByDeletingTheSecret) {
    setenv("KPROV_KYMA_DELETION_TIMEOUT", "2s", 1);
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const std::string name = lowercase(id);
    sim_post("/sim/kcp/klm", {{"unreachable", {name}}});
    ASSERT_TRUE(eventually([&] { return klm_view(name)["reachable"] == false; }))
        << klm_view(name).dump();
    const auto r = kprov({"deprovision", id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto op = expect_succeeded(id, OperationType::Deprovision,
                                     {"WaitingForKymaDeletion", "WaitForClusterDeletion"});
    const std::string note = "deleted Secret kcp-system/kubeconfig-" + id +
                             " so that Kyma Lifecycle Manager lets go of Kyma " + name +
                             " (its deletion took longer than 2s)";
    expect_noted(op, note);
    expect_nothing_in_kcp(id);
}

// (d) A hibernated runtime cannot be reached: the Secret goes at once, without the timeout.
TEST_P(Klm, AHibernatedRuntimeIsLetGoAtOnce) {
    setenv("KPROV_KYMA_DELETION_TIMEOUT", "10m", 1);
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const std::string name = lowercase(id);
    auto r = kprov({"hibernate", id, "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(eventually([&] { return klm_view(name)["state"] == "Error"; }))
        << klm_view(name).dump() << ": the KLM cannot reach a hibernated runtime";
    r = kprov({"deprovision", id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto op = expect_succeeded(id, OperationType::Deprovision,
                                     {"WaitingForKymaDeletion", "WaitForClusterDeletion"});
    const std::string note = "deleted Secret kcp-system/kubeconfig-" + id +
                             " so that Kyma Lifecycle Manager lets go of Kyma " + name +
                             " (the runtime cannot be reached)";
    expect_noted(op, note);
    expect_nothing_in_kcp(id);
}

// (e) `kprov watch` re-issues the Secret's kubeconfig once it is older than the rotation age.
TEST_P(Klm, WatchReissuesTheSecretBeforeItExpires) {
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const json before = secret_of(id);
    const std::string sync_before =
        before["metadata"]["annotations"]["operator.kyma-project.io/last-sync"];
    const std::string token_before = kubeconfig_in(before).token;

    std::vector<std::string> env = kprov::testing::environment_without_settings();
    for (const char* name : {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "APP_DATABASE_SECRET_KEY",
                             "KPROV_TENANT", "KPROV_KYMA_INSTALLER", "KPROV_KCP_KUBECONFIG_PATH"})
        if (const char* value = getenv(name))
            env.push_back(std::string(name) + "=" + value);
    env.push_back("KPROV_KYMA_KUBECONFIG_ROTATION=2s");
    kprov::testing::ChildProcess watch({KPROV_BINARY, "watch", "--store", m_store_url,
                                        "--gardener-kubeconfig", m_sim->kubeconfig.string(),
                                        "--gardener-project", k_project},
                                       env, m_dir.file("watch.out"), m_dir.file("watch.err"));
    // Two re-issues within a few seconds (each once the Secret is 2 s old).
    std::vector<std::string> syncs = {sync_before}, tokens = {token_before};
    const bool rotated_twice = eventually(
        [&] {
            const json now = secret_of(id);
            const std::string sync =
                now["metadata"]["annotations"]["operator.kyma-project.io/last-sync"];
            if (sync != syncs.back()) {
                syncs.push_back(sync);
                tokens.push_back(kubeconfig_in(now).token);
            }
            return syncs.size() >= 3;
        },
        20s);
    watch.signal(SIGTERM);
    EXPECT_EQ(watch.wait_for(20s), std::optional<int>(0))
        << testing::read_text(m_dir.file("watch.err"));
    ASSERT_TRUE(rotated_twice) << ::testing::PrintToString(syncs)
                               << testing::read_text(m_dir.file("watch.err"));
    EXPECT_TRUE(std::is_sorted(syncs.begin(), syncs.end())) << ::testing::PrintToString(syncs);
    EXPECT_EQ(std::set<std::string>(tokens.begin(), tokens.end()).size(), tokens.size())
        << "each re-issue is a new token";
    // The re-issued Secret is still kprov's, and its kubeconfig opens the runtime's cluster.
    const json latest = secret_of(id);
    EXPECT_EQ(latest["metadata"]["labels"]["kprov.kyma-project.io/managed-by"], "kprov");
    gardener::KubeClient runtime(kubeconfig_in(latest));
    EXPECT_NO_THROW(runtime.get("/api/v1/namespaces"));
    EXPECT_EQ(klm_view(lowercase(id))["reachable"], true);
}

// (f) What a Kyma resource cannot say is refused, each field listed, and nothing is stored.
TEST_P(Klm, UnrepresentableFieldsAreRefusedListingEachAndNothingIsStored) {
    json kyma = modules_config({"istio", "serverless", "telemetry"}, "1.24.11");
    kyma["profile"] = "Production";
    kyma["configuration"] = {{{"key", "global.domainName"}, {"value", "x.example.com"}}};
    kyma["components"][0]["namespace"] = "istio-system";
    kyma["components"][1]["configuration"] = {{{"key", "a"}, {"value", "1"}},
                                              {{"key", "b"}, {"value", "2"}}};
    kyma["components"][1]["conflictStrategy"] = "Replace";
    kyma["components"][2]["sourceURL"] = "https://charts.example.com/t.tgz";
    const auto [file, shoot] = klm_runtime_file(kyma);
    sim_post("/sim/stats/reset", json::object());
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2) << r.err;
    for (const char* path :
         {"kymaConfig.version", "kymaConfig.profile", "kymaConfig.configuration",
          "kymaConfig.components[0].namespace", "kymaConfig.components[1].configuration",
          "kymaConfig.components[1].conflictStrategy", "kymaConfig.components[2].sourceURL"})
        EXPECT_THAT(r.err, HasSubstr(path)) << path;
    EXPECT_THAT(r.err, Not(HasSubstr("kymaConfig.components[2].namespace")));
    EXPECT_THAT(r.err, HasSubstr("KPROV_KYMA_LOSSY=warn"));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(this->shoot(shoot).has_value());
    const json stats = sim_get("/sim/stats");
    for (const auto& [request, count] : stats["requests"].items())
        EXPECT_EQ(request.find("/kcp/"), std::string::npos) << request;
}

// (f) KPROV_KYMA_LOSSY=warn: the same request passes, the warning in `kprov history`.
TEST_P(Klm, WithLossyWarnTheRequestPassesWithTheWarningInTheHistory) {
    setenv("KPROV_KYMA_LOSSY", "warn", 1);
    json kyma = modules_config({"istio", "serverless"});
    kyma["components"][0]["namespace"] = "istio-system";
    kyma["components"][1]["configuration"] = {{{"key", "a"}, {"value", "1"}}};
    const auto [file, shoot] = klm_runtime_file(kyma);
    const auto r = kprov({"provision", "-f", file, "--wait", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("kymaConfig.components[0].namespace"));
    const std::string id = json::parse(r.out)["runtimeID"];
    const auto op = expect_succeeded(id, OperationType::Provision, {"ApplyingKyma"});
    const std::string namespace_warning =
        "kymaConfig: kymaConfig.components[0].namespace \"istio-system\": modules install into "
        "kyma-system; not passed to Kyma Lifecycle Manager (KPROV_KYMA_LOSSY=warn)";
    expect_noted(op, namespace_warning);
    expect_noted(op, "kymaConfig: kymaConfig.components[1].configuration 1 configuration "
                     "entries");
    std::vector<std::string> modules;
    const json applied = m_kcp->get(kyma_path(lowercase(id)));
    for (const auto& m : applied["spec"]["modules"])
        modules.push_back(m["name"]);
    EXPECT_EQ(modules, (std::vector<std::string>{"istio", "serverless"}));
}

// (g) KPROV_KYMA_MODULES: an unknown module name is refused with a "did you mean".
TEST_P(Klm, AnUnknownModuleIsRefusedWithDidYouMean) {
    setenv("KPROV_KYMA_MODULES", "istio, api-gateway,serverless,telemetry", 1);
    const auto [file, shoot] =
        klm_runtime_file(modules_config({"istio", "serverles", "telemetry", "no-such-thing"}));
    const auto r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("kymaConfig.components[1].component"));
    EXPECT_THAT(r.err, HasSubstr("\"serverles\" is not a module this landscape offers (did you "
                                 "mean \"serverless\"?)"));
    EXPECT_THAT(r.err, HasSubstr("kymaConfig.components[3].component"));
    EXPECT_THAT(r.err, Not(HasSubstr("components[0]")));
    EXPECT_THAT(r.err, Not(HasSubstr("components[2]")));
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(this->shoot(shoot).has_value());
}

// (h) upgrade-kyma: KLM takes the modules from the runtime's own Kyma after the first sync.
TEST_P(Klm, UpgradeKymaIsRefusedWithTheReason) {
    const auto [file, shoot] = klm_runtime_file(modules_config({"istio"}));
    const std::string id = provision(file);
    ASSERT_FALSE(id.empty());
    const std::string kyma_file = m_dir.file("upgrade.json");
    std::ofstream(kyma_file)
        << json{{"kymaConfig", modules_config({"istio", "serverless"})}}.dump();
    sim_post("/sim/stats/reset", json::object());
    const auto r = kprov({"upgrade-kyma", id, "-f", kyma_file});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("failed to upgrade cluster: " + id +
                                 " has its Kyma modules from Kyma Lifecycle Manager"));
    EXPECT_THAT(r.err, HasSubstr("kyma-system/default"));
    EXPECT_EQ(m_store->last_operation(id)->type, OperationType::Provision) << "no Upgrade started";
    EXPECT_EQ(m_store->find_runtime(id)->kyma->components.size(), 1u);
    const json stats = sim_get("/sim/stats");
    for (const auto& [request, count] : stats["requests"].items())
        EXPECT_EQ(request.rfind("GET ", 0), 0u) << request << ": nothing written anywhere";
}

} // namespace
} // namespace kprov::cli
