#pragma once
// The engine's Director port over Compass Director's GraphQL API (original-provisioner.md §6.2):
// JSON POSTs with `Authorization: Bearer <OAuth token>` and `Tenant`, every field aliased as
// `result`, Director's error codes mapped to DirectorError. HTTP goes through the
// libcurl transport of src/net; transient failures are retried with capped exponential backoff
// (net::with_retries), and registerRuntime is idempotent through k_request_id_label.

#include "director/oauth.hpp"
#include "engine/ports.hpp"
#include "net/clock.hpp"
#include "net/http_transport.hpp"
#include "net/retry.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace spdlog {
class logger;
}

namespace kprov::director {

struct DirectorClientOptions {
    /// APP_DIRECTOR_URL: the GraphQL endpoint.
    std::string url = "http://compass-director.compass-system.svc.cluster.local:3000/graphql";
    /// APP_SKIP_DIRECTOR_CERT_VERIFICATION: no TLS verification (Director and its token
    /// endpoint).
    bool skip_cert_verification = false;
    /// Per request (the original's 30 s).
    std::chrono::milliseconds request_timeout{30'000};
    /// Retries of connection failures, 429, 5xx and Director's Internal/Unknown codes; the
    /// original tried 3 times.
    net::RetryPolicy retry{3, std::chrono::milliseconds(500), std::chrono::seconds(5),
                           std::chrono::seconds(30)};
    /// Null: the real steady clock.
    std::shared_ptr<net::Clock> clock;
    /// Null: a CurlTransport. Tests pass a fake.
    std::shared_ptr<net::HttpTransport> transport;
    /// Where retries and recovered registrations are logged: the command's logger
    /// (net/logger.hpp). Null: nowhere.
    std::shared_ptr<spdlog::logger> log;
};

/// The Director label that carries kprov's planned runtime id on registerRuntime
/// (DirectorRuntimeInput::request_id). Before registerRuntime is sent again after a try that got
/// no (good) answer, the client asks Director for the runtime with this label and, when there is
/// one, takes its id instead of registering a second runtime.
inline constexpr const char* k_request_id_label = "kprov-request-id";

/// Director's error type name for a Compass error code ("NotFound" for 20, ...); "" for codes
/// Compass does not define.
std::string director_error_name(int code);

/// Whether a call that failed with this Compass error code may succeed when sent again
/// (Internal and Unknown, 10 and 11).
bool director_code_retryable(int code);

/// Thread-safe. Errors are DirectorError (component "compass director", or "mps oauth2" when
/// no token could be had); messages never contain the token or the client secret.
class DirectorClient final : public engine::Director {
public:
    DirectorClient(OAuthCredentials credentials, DirectorClientOptions options);

    std::string register_runtime(const engine::DirectorRuntimeInput& input,
                                 const std::string& tenant) override;
    std::optional<engine::DirectorRuntime> runtime(const std::string& id,
                                                   const std::string& tenant) override;
    void update_runtime(const std::string& id, const engine::DirectorRuntimeInput& input,
                        const std::string& tenant) override;
    engine::OneTimeToken request_one_time_token(const std::string& id,
                                                const std::string& tenant) override;
    void unregister_runtime(const std::string& id, const std::string& tenant) override;

    /// Access tokens fetched so far (for tests and logs).
    int token_fetches() const { return m_tokens.fetches(); }

private:
    struct Call;
    /// Sends the document and returns data.result as JSON text ("null" when null); throws
    /// DirectorError for errors, after the retries.
    std::string execute(const Call& call);
    /// runtimes(filter: [{key: kprov-request-id, query: "\"<request_id>\""}]): the id of the
    /// runtime registered with `request_id`, or nullopt when there is none.
    std::optional<std::string> find_registered(const std::string& request_id,
                                               const std::string& tenant);

    DirectorClientOptions m_options;
    std::shared_ptr<net::HttpTransport> m_transport;
    std::shared_ptr<net::Clock> m_clock;
    TokenSource m_tokens;
};

} // namespace kprov::director
