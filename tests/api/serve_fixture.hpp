#pragma once
// `kprov serve` as a black box: the built binary run against kprov-sim with a SQLite or
// PostgreSQL store, spoken to over real HTTP. Also the GraphQL texts the tests send: runtime
// inputs from examples/ rendered as GraphQL literals, the way the Kyma Environment Broker
// inlines them.

#include "cli/runtime_file.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"
#include "support/test_databases.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <httplib.h>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kprov::api::testing {

using nlohmann::json;
using namespace std::chrono_literals;

inline const std::string k_project = "kyma-dev";
inline const std::string k_secret_key = "0123456789abcdef0123456789abcdef";

/// `value` as a GraphQL input literal: objects with bare keys, JSON strings (GraphQL's string
/// escapes are JSON's), numbers, booleans, null.
inline std::string graphql_literal(const json& value) {
    if (value.is_object()) {
        std::string out = "{";
        for (auto it = value.begin(); it != value.end(); ++it)
            out +=
                (it == value.begin() ? "" : ", ") + it.key() + ": " + graphql_literal(it.value());
        return out + "}";
    }
    if (value.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            out += (i ? ", " : "") + graphql_literal(value[i]);
        return out + "]";
    }
    return value.dump();
}

/// examples/<provider>.yaml as JSON, with its shoot renamed (names are unique per project) and
/// labels whose keys are GraphQL names, as the Kyma Environment Broker's are (an object
/// literal's keys must be; a variable's may be anything).
inline json example(const std::string& provider, const std::string& shoot) {
    json input =
        cli::read_runtime_file(std::string(KPROV_SOURCE_DIR) + "/examples/" + provider + ".yaml");
    input["clusterConfig"]["gardenerConfig"]["name"] = shoot;
    input["runtimeInput"]["name"] = shoot;
    input["runtimeInput"]["labels"] = {{"broker_instance_id", "instance-" + shoot},
                                       {"global_subaccount_id", "subaccount-1"},
                                       {"nested", {{"list", {1, 2}}, {"flag", true}}}};
    return input;
}

/// An HTTP answer with its body parsed as JSON (discarded when it is not JSON).
struct Answer {
    int status = 0;
    std::string body;
    json document;
    std::string content_type;

    /// "data", null when the answer has none (or is not JSON).
    const json& data() const {
        static const json none;
        if (!document.is_object() || !document.contains("data"))
            return none;
        return document["data"];
    }
    /// The first error's message, "" when there is none.
    std::string error() const {
        if (!document.is_object() || !document.contains("errors") || document["errors"].empty())
            return {};
        return document["errors"][0].value("message", "");
    }
    json extensions() const {
        if (!document.is_object() || !document.contains("errors") || document["errors"].empty())
            return nullptr;
        return document["errors"][0].value("extensions", json());
    }
};

struct ServeOptions {
    std::string store_url; ///< "" for a SQLite file in the test's directory
    std::string token;     ///< KPROV_API_TOKEN
    std::string tls_cert, tls_key;
    std::vector<std::string> extra_env; ///< "NAME=value" for kprov serve
    /// The Gardener kubeconfig serve uses; "" for kprov-sim's.
    std::string gardener_kubeconfig;
    /// Where serve downloads Kyma releases; "" for kprov-sim's.
    std::string releases_url;
    std::vector<std::string> sim_flags = {
        "--kyma-component-seconds", "0.05", "--create-seconds", "0.3",
        "--reconcile-seconds",      "2",    "--delete-seconds", "0.3",
        "--hibernate-seconds",      "2"};
};

/// kprov-sim and `kprov serve` for one test.
class ServeProcess {
public:
    /// Skips (fails in CI) when kprov or kprov-sim is not built. Check `ok()` afterwards.
    explicit ServeProcess(ServeOptions options = {})
        : m_options(std::move(options)) {
        const std::string sim_binary = kprov::testing::find_sim_binary();
        if (!std::filesystem::exists(KPROV_BINARY) || sim_binary.empty()) {
            m_missing = "kprov or kprov-sim is not built (targets kprov, kprov-sim)";
            return;
        }
        auto flags = m_options.sim_flags;
        flags.insert(flags.end(), {"--project", k_project});
        sim = std::make_unique<kprov::testing::SimProcess>(sim_binary, flags);
        if (m_options.store_url.empty())
            m_options.store_url = "sqlite://" + dir.file("kprov.db");
        else
            migrate();
        start();
    }
    ~ServeProcess() {
        if (serve && !m_stopped) {
            serve->signal(SIGTERM);
            serve->wait_for(30s);
        }
    }

    /// Why the test cannot run here ("" when it can).
    const std::string& missing() const { return m_missing; }

    void migrate() {
        const auto r = kprov::testing::run_process(argv({"migrate"}), env(), dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }

    /// Starts kprov serve and waits for its URLs on stdout.
    void start() {
        const std::string out = dir.file("serve-" + std::to_string(++m_starts) + ".out");
        api_url.clear();
        metrics_url.clear();
        m_stopped = false;
        serve = std::make_unique<kprov::testing::ChildProcess>(
            argv({"serve", "--address", "127.0.0.1:0", "--metrics-address", "127.0.0.1:0",
                  "--workers", "4"}),
            env(), out, dir.file("serve.log"));
        const auto until = std::chrono::steady_clock::now() + 30s;
        while (std::chrono::steady_clock::now() < until &&
               (api_url.empty() || metrics_url.empty())) {
            std::istringstream text(kprov::testing::read_text(out));
            for (std::string line; std::getline(text, line);) {
                if (line.rfind("api ", 0) == 0)
                    api_url = line.substr(4);
                if (line.rfind("metrics ", 0) == 0)
                    metrics_url = line.substr(8);
            }
            if (serve->wait_for(10ms))
                break;
        }
        if (api_url.empty() || metrics_url.empty())
            m_missing = "kprov serve printed no URLs; its log:\n" + log();
    }

    /// SIGTERM, then the exit code (or -1 when it did not end within 60 s).
    int stop() {
        m_stopped = true;
        serve->signal(SIGTERM);
        return serve->wait_for(60s).value_or(-1);
    }

    const std::string& store_url() const { return m_options.store_url; }

    /// The store serve uses, opened beside it as another process would (schema as it is).
    std::unique_ptr<stores::StoreBackend> open_store() const {
        stores::OpenOptions open;
        open.secret_key = k_secret_key;
        open.schema = stores::SchemaCheck::None;
        return stores::open_store(m_options.store_url, open);
    }

    std::string log() const { return kprov::testing::read_text(dir.file("serve.log")); }

    /// POST /graphql with {"query", "variables"} and the given headers.
    Answer graphql(const std::string& query, const json& variables = nullptr,
                   const httplib::Headers& headers = {{"Tenant", "tenant-a"}}) const {
        json body = {{"query", query}};
        if (!variables.is_null())
            body["variables"] = variables;
        return post_raw(body.dump(), headers);
    }

    Answer post_raw(const std::string& body, const httplib::Headers& headers = {},
                    const std::string& content_type = "application/json") const {
        auto [client, path] = client_for(api_url);
        return answer(client->Post(path.c_str(), headers, body, content_type.c_str()));
    }

    /// GET of `path` on the API listener ("/healthz") or, with a full URL, anywhere.
    Answer get(const std::string& path_or_url, const httplib::Headers& headers = {}) const {
        const std::string url =
            path_or_url.rfind("http", 0) == 0 ? path_or_url : origin(api_url) + path_or_url;
        auto [client, path] = client_for(url);
        return answer(client->Get(path.c_str(), headers));
    }

    /// Polls runtimeOperationStatus until the operation is no longer InProgress (at most
    /// 90 s); returns the last OperationStatus.
    json wait_for_operation(const std::string& operation_id) const {
        json status;
        const auto until = std::chrono::steady_clock::now() + 90s;
        while (std::chrono::steady_clock::now() < until) {
            const auto a = graphql("query($id: String!) { runtimeOperationStatus(id: $id) { id "
                                   "operation state message runtimeID lastError { errMessage "
                                   "reason component } } }",
                                   {{"id", operation_id}});
            status = a.document.is_object() ? a.data()["runtimeOperationStatus"] : json();
            if (!status.is_object() || status["state"] != "InProgress")
                return status;
            std::this_thread::sleep_for(100ms);
        }
        return status;
    }

    kprov::testing::TempDir dir;
    std::unique_ptr<kprov::testing::SimProcess> sim;
    std::unique_ptr<kprov::testing::ChildProcess> serve;
    std::string api_url;     ///< http://127.0.0.1:PORT/graphql
    std::string metrics_url; ///< http://127.0.0.1:PORT/metrics

    std::vector<std::string> argv(std::vector<std::string> args) const {
        args.insert(args.begin(), KPROV_BINARY);
        const std::string gardener = m_options.gardener_kubeconfig.empty()
                                         ? sim->kubeconfig.string()
                                         : m_options.gardener_kubeconfig;
        args.insert(args.end(), {"--store", m_options.store_url, "--gardener-kubeconfig", gardener,
                                 "--gardener-project", k_project});
        return args;
    }

    std::vector<std::string> env() const {
        std::vector<std::string> env = kprov::testing::environment_without_settings();
        env.push_back("XDG_CONFIG_HOME=" + dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + dir.file("state"));
        const bool own_key = std::any_of(
            m_options.extra_env.begin(), m_options.extra_env.end(),
            [](const std::string& e) { return e.rfind("APP_DATABASE_SECRET_KEY=", 0) == 0; });
        if (!own_key)
            env.push_back("APP_DATABASE_SECRET_KEY=" + k_secret_key);
        env.push_back("APP_RUNTIME_REGISTRATION_ENABLED=false");
        env.push_back("APP_RUNTIME_DEREGISTRATION_ENABLED=false");
        env.push_back("KPROV_LEASE_DURATION=10s");
        // Kyma releases come from the simulator (tests/sim/README.md, release artifacts).
        const std::string releases = m_options.releases_url.empty()
                                         ? sim->url + "/sim/kyma-releases"
                                         : m_options.releases_url;
        env.push_back("KPROV_KYMA_RELEASES_URL=" + releases);
        env.push_back("KPROV_KYMA_DEV_RELEASES_URL=" + releases);
        // The tests' kymaConfigs are Kyma 1.x's, which is no longer the default installer.
        if (std::none_of(
                m_options.extra_env.begin(), m_options.extra_env.end(),
                [](const std::string& e) { return e.rfind("KPROV_KYMA_INSTALLER=", 0) == 0; }))
            env.push_back("KPROV_KYMA_INSTALLER=installation-cr");
        if (!m_options.token.empty())
            env.push_back("KPROV_API_TOKEN=" + m_options.token);
        env.insert(env.end(), m_options.extra_env.begin(), m_options.extra_env.end());
        if (!m_options.tls_cert.empty()) {
            env.push_back("KPROV_TLS_CERT=" + m_options.tls_cert);
            env.push_back("KPROV_TLS_KEY=" + m_options.tls_key);
        }
        return env;
    }

    /// The CA the HTTPS client trusts (with TLS on).
    std::string ca_file;

private:
    static std::string origin(const std::string& url) {
        const auto slash = url.find('/', url.find("://") + 3);
        return url.substr(0, slash);
    }

    std::pair<std::unique_ptr<httplib::Client>, std::string>
    client_for(const std::string& url) const {
        const std::string base = origin(url);
        auto client = std::make_unique<httplib::Client>(base);
        if (!ca_file.empty())
            client->set_ca_cert_path(ca_file.c_str());
        client->enable_server_certificate_verification(true);
        client->set_read_timeout(60, 0);
        return {std::move(client), url.substr(base.size())};
    }

    static Answer answer(const httplib::Result& result) {
        Answer a;
        if (!result)
            return a;
        a.status = result->status;
        a.body = result->body;
        a.content_type = result->get_header_value("Content-Type");
        a.document = json::parse(a.body, nullptr, false);
        return a;
    }

    ServeOptions m_options;
    std::string m_missing;
    bool m_stopped = false;
    int m_starts = 0;
};

/// A test with a `kprov serve` of its own (start()); serve's stderr is printed when it fails.
template <typename Base = ::testing::Test> class ServeTest : public Base {
protected:
    void start(ServeOptions options = {}) {
        process = std::make_unique<ServeProcess>(std::move(options));
        if (!process->missing().empty())
            KPROV_SKIP_UNLESS_CI(process->missing());
    }
    void TearDown() override {
        if (this->HasFailure() && process)
            std::cerr << "--- kprov serve's stderr ---\n" << process->log() << '\n';
    }

    std::unique_ptr<ServeProcess> process;
};

} // namespace kprov::api::testing
