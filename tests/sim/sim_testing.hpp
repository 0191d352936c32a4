#pragma once
// Helpers for kprov-sim's own tests: an in-process simulator with fast lifecycle settings, a
// small HTTP client over real loopback sockets, shoot bodies, polling with deadlines and a
// background watch collector.

#include "sim.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <httplib.h>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kprov::sim::testing {

/// One HTTP answer. `json` is null when the body is not JSON.
struct Resp {
    int status = 0; ///< 0 when the request failed at the transport level
    std::string body;
    Json json;
    httplib::Headers headers;
    std::string header(const std::string& name) const;
};

/// A client for one simulator: bearer token (optional), JSON bodies, HTTP or HTTPS.
class Http {
public:
    /// `token` "" sends no Authorization header. With TLS, `ca_file` verifies the server.
    Http(const std::string& url, std::string token, const std::string& ca_file = "",
         const std::string& cert_file = "", const std::string& key_file = "");
    Resp get(const std::string& path, const httplib::Headers& extra = {});
    Resp post(const std::string& path, const std::string& body,
              const std::string& content_type = "application/json",
              const httplib::Headers& extra = {});
    Resp put(const std::string& path, const std::string& body);
    Resp patch(const std::string& path, const std::string& body, const std::string& content_type);
    Resp del(const std::string& path);
    httplib::Client& raw() { return *m_client; }

private:
    httplib::Headers headers(const httplib::Headers& extra) const;
    static Resp convert(const httplib::Result& r);
    std::unique_ptr<httplib::Client> m_client;
    std::string m_token;
};

/// Fast lifecycle settings for tests.
SimOptions fast_options();

/// A simulator started in-process, plus a client with its token.
struct SimFixture {
    explicit SimFixture(SimOptions opts = fast_options());
    ~SimFixture();
    std::unique_ptr<Simulator> sim;
    std::unique_ptr<Http> http;
    std::string shoots(const std::string& ns = "garden-dev") const;
    std::string shoot(const std::string& name, const std::string& ns = "garden-dev") const;
};

/// A valid shoot of the current API (cloudProfile, credentialsBindingName).
Json shoot_body(const std::string& name, const std::string& ns = "garden-dev");
/// The same shoot with the legacy fields (cloudProfileName, secretBindingName "legacy-aws") on
/// Kubernetes 1.33.9, the newest minor that still admits them.
Json legacy_shoot_body(const std::string& name, const std::string& ns = "garden-dev");
/// The SecretBinding "legacy-aws" of legacy_shoot_body (POST it to secretbindings of `ns`).
Json legacy_secret_binding(const std::string& ns = "garden-dev");

/// Polls `pred` every 10 ms until it is true or `seconds` have passed; returns its last value.
bool eventually(const std::function<bool()>& pred, double seconds = 5);

/// The value of `key: value` (first match) in a YAML kubeconfig, without quotes.
std::string yaml_value(const std::string& yaml, const std::string& key);

/// Reads a watch stream in a background thread.
class WatchCollector {
public:
    WatchCollector(const std::string& url, const std::string& token, const std::string& path);
    ~WatchCollector();
    /// Every complete event so far.
    std::vector<Json> events();
    /// Waits until an event satisfies `pred`.
    bool wait_for(const std::function<bool(const Json&)>& pred, double seconds = 5);
    /// True once the server ended the stream.
    bool finished() const { return m_finished; }
    int status() const { return m_status; }

private:
    std::mutex m_mu;
    std::string m_buffer;
    std::atomic<bool> m_finished{false};
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_status{0};
    std::unique_ptr<httplib::Client> m_client;
    std::thread m_thread;
};

/// Writes `content` to a fresh file under a temporary directory; returns its path.
std::string temp_file(const std::string& name, const std::string& content);
/// A fresh temporary directory.
std::string temp_dir();

} // namespace kprov::sim::testing
