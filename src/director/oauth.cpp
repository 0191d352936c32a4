#include "director/oauth.hpp"

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/ports.hpp"
#include "gardener/kube_client.hpp"
#include "net/base64.hpp"
#include "net/remote_values.hpp"
#include "yaml/yaml_reader.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::director {
namespace {

// The original asks for exactly these scopes (§6.1).
constexpr const char* k_scope = "runtime:read runtime:write";

bool is_http_url(const std::string& url) {
    return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

engine::DirectorError oauth_error(const std::string& message, int status, bool retryable) {
    return engine::DirectorError("director oauth2: " + message, status, retryable, "",
                                 engine::k_component_director_oauth);
}

// The error text of an OAuth error answer ({"error", "error_description"}), or a short excerpt,
// capped and cleaned: it is the endpoint's text.
std::string answer_summary(const std::string& body) {
    constexpr std::size_t k_max_excerpt = 200;
    const auto parsed = nlohmann::json::parse(body, nullptr, false);
    if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string()) {
        std::string out = parsed["error"].get<std::string>();
        if (parsed.contains("error_description") && parsed["error_description"].is_string())
            out += ": " + parsed["error_description"].get<std::string>();
        return net::clean_remote_text(out);
    }
    return net::clean_remote_text(body, k_max_excerpt);
}

} // namespace

OAuthCredentials parse_oauth_credentials(const std::string& yaml_text, const std::string& source) {
    yaml::ReadOptions options;
    options.scalars = yaml::Scalars::AsWritten;
    yaml::Documents read;
    try {
        read = yaml::read_documents(yaml_text, options);
    } catch (const yaml::ReadError& e) {
        throw ConfigError("director OAuth file " + source + " is not YAML (line " +
                          std::to_string(e.mark().line) + "): " + e.message());
    }
    const nlohmann::json none;
    const nlohmann::json& root = read.documents.empty() ? none : read.documents[0];
    const nlohmann::json& data = root.is_object() && root.contains("data") ? root["data"] : none;
    if (!data.is_object())
        throw ConfigError("director OAuth file " + source +
                          " has no \"data\" mapping: expected data: {client_id, client_secret, "
                          "tokens_endpoint}");
    std::vector<std::string> problems;
    auto field = [&](const char* key) {
        const auto node = data.find(key);
        if (node == data.end() || !node->is_string() || node->get<std::string>().empty()) {
            problems.push_back(std::string("data.") + key + " is missing or empty");
            return std::string();
        }
        return node->get<std::string>();
    };
    OAuthCredentials c;
    c.client_id = field("client_id");
    c.client_secret = field("client_secret");
    c.tokens_endpoint = field("tokens_endpoint");
    if (!c.tokens_endpoint.empty() && !is_http_url(c.tokens_endpoint))
        problems.push_back("data.tokens_endpoint \"" + c.tokens_endpoint +
                           "\" is not an http:// or https:// URL");
    if (!problems.empty()) {
        std::string message = "director OAuth file " + source + ": ";
        for (std::size_t i = 0; i < problems.size(); ++i)
            message += (i ? "; " : "") + problems[i];
        throw ConfigError(message);
    }
    return c;
}

OAuthCredentials read_oauth_credentials(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw ConfigError("APP_DIRECTOR_OAUTH_PATH=\"" + path +
                          "\" cannot be read (expected a director.yaml with the OAuth client; set "
                          "APP_DIRECTOR_OAUTH_PATH or the config key director.oauth_path)");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_oauth_credentials(text.str(), path);
}

TokenSource::TokenSource(OAuthCredentials credentials,
                         std::shared_ptr<net::HttpTransport> transport,
                         std::shared_ptr<net::Clock> clock,
                         std::chrono::milliseconds request_timeout,
                         std::chrono::milliseconds refresh_margin)
    : m_credentials(std::move(credentials))
    , m_transport(std::move(transport))
    , m_clock(clock ? std::move(clock) : net::steady_clock())
    , m_request_timeout(request_timeout)
    , m_refresh_margin(refresh_margin) {}

std::string TokenSource::token() {
    std::lock_guard lock(m_mutex);
    if (!m_token.empty() && m_clock->now() < m_refresh_at)
        return m_token;
    return fetch_locked();
}

void TokenSource::invalidate(const std::string& token) {
    std::lock_guard lock(m_mutex);
    if (token == m_token)
        m_token.clear();
}

int TokenSource::fetches() const {
    std::lock_guard lock(m_mutex);
    return m_fetches;
}

std::string TokenSource::fetch_locked() {
    net::HttpRequest request;
    request.method = "POST";
    request.url = m_credentials.tokens_endpoint;
    request.headers = {
        {"Content-Type", "application/x-www-form-urlencoded"},
        {"Accept", "application/json"},
        {"Authorization", "Basic " + net::base64_encode(m_credentials.client_id + ":" +
                                                        m_credentials.client_secret)}};
    request.body = "grant_type=client_credentials&scope=" + gardener::url_encode(k_scope);
    request.total_timeout = m_request_timeout;
    const auto asked_at = m_clock->now();
    net::HttpResponse response;
    try {
        response = m_transport->perform(request);
    } catch (const net::TransportError& e) {
        throw oauth_error("POST " + m_credentials.tokens_endpoint + ": no answer: " + e.what(), 0,
                          e.kind() != net::TransportError::Kind::Tls);
    }
    ++m_fetches;
    if (response.status != 200)
        throw oauth_error("POST " + m_credentials.tokens_endpoint + ": " +
                              std::to_string(response.status) + " " + answer_summary(response.body),
                          response.status, response.status == 429 || response.status >= 500);
    const auto body = nlohmann::json::parse(response.body, nullptr, false);
    if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string() ||
        body["access_token"].get<std::string>().empty())
        throw oauth_error("POST " + m_credentials.tokens_endpoint +
                              ": the answer has no access_token",
                          response.status, false);
    // Without expires_in the token is used once; a number of seconds otherwise.
    std::chrono::milliseconds lifetime{0};
    // Saturated: a huge expires_in must not overflow (it only means "for a long time").
    if (body.contains("expires_in") && body["expires_in"].is_number())
        lifetime = net::saturating_millis(body["expires_in"].get<double>());
    // Beyond a year, "for a long time" is a year: the clock's time_point must not overflow.
    lifetime = std::min<std::chrono::milliseconds>(lifetime, std::chrono::hours(24 * 365));
    const auto margin = std::min(m_refresh_margin, lifetime / 10);
    m_token = body["access_token"].get<std::string>();
    m_refresh_at = asked_at + (lifetime - margin);
    return m_token;
}

} // namespace kprov::director
