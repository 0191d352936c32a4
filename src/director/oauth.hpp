#pragma once
// OAuth2 client credentials for Compass Director (original-provisioner.md §6.1): the
// director.yaml file (APP_DIRECTOR_OAUTH_PATH) and an access token cached until shortly before
// it expires.

#include "net/clock.hpp"
#include "net/http_transport.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace kprov::director {

/// The `data:` map of director.yaml. Holds a secret: never log it.
struct OAuthCredentials {
    std::string client_id;
    std::string client_secret;
    std::string tokens_endpoint; ///< http(s) URL of the token endpoint
};

/// Parses director.yaml text: a mapping with `data: {client_id, client_secret,
/// tokens_endpoint}` (all three non-empty strings; tokens_endpoint an http:// or https:// URL).
/// Throws ConfigError naming `source` and every missing or bad field, never quoting the secret.
OAuthCredentials parse_oauth_credentials(const std::string& yaml_text, const std::string& source);

/// Reads and parses the file at `path`. Throws ConfigError when it cannot be read or parsed.
OAuthCredentials read_oauth_credentials(const std::string& path);

/// Hands out an access token from the token endpoint and caches it until `refresh_margin`
/// before its expiry (a tenth of its lifetime when that is shorter). Thread-safe: one thread
/// fetches while the others wait for its token, so a burst of calls asks for one token.
class TokenSource {
public:
    TokenSource(OAuthCredentials credentials, std::shared_ptr<net::HttpTransport> transport,
                std::shared_ptr<net::Clock> clock,
                std::chrono::milliseconds request_timeout = std::chrono::seconds(30),
                std::chrono::milliseconds refresh_margin = std::chrono::seconds(30));

    /// A valid access token, fetched when none is cached or the cached one is (about to be)
    /// expired. Throws DirectorError (component "mps oauth2") when the endpoint refuses or
    /// cannot be reached; retryable() for connection failures, 429 and 5xx.
    std::string token();
    /// Forgets `token` (Director refused it); the next token() fetches a new one. A token other
    /// than the cached one is ignored (another thread refreshed already).
    void invalidate(const std::string& token);
    /// How many tokens were fetched so far.
    int fetches() const;

private:
    std::string fetch_locked();

    OAuthCredentials m_credentials;
    std::shared_ptr<net::HttpTransport> m_transport;
    std::shared_ptr<net::Clock> m_clock;
    std::chrono::milliseconds m_request_timeout;
    std::chrono::milliseconds m_refresh_margin;

    mutable std::mutex m_mutex;
    std::string m_token;
    net::Clock::time_point m_refresh_at{};
    int m_fetches = 0;
};

} // namespace kprov::director
