#include "gardener/kube_client.hpp"

#include "engine/error.hpp"
#include "gardener/kube_client_impl.hpp"
#include "net/curl_transport.hpp"
#include "net/logger.hpp"
#include "net/remote_values.hpp"
#include "version.hpp"

#include <spdlog/logger.h>

namespace kprov::gardener {
namespace {

using nlohmann::json;

constexpr auto k_token_reread_interval = std::chrono::seconds(60);

// Splits "https://host:port/prefix" for tls-server-name: the URL names the certificate's host
// and curl connects to the real one.
void apply_tls_server_name(const Kubeconfig& config, std::string& base_url, net::TlsOptions& tls) {
    const auto scheme_end = config.server.find("://");
    const auto host_begin = scheme_end + 3;
    const auto host_end = config.server.find('/', host_begin);
    const std::string authority = config.server.substr(host_begin, host_end - host_begin);
    const std::string scheme = config.server.substr(0, scheme_end);
    std::string host = authority;
    std::string port = scheme == "https" ? "443" : "80";
    const auto colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    base_url = scheme + "://" + config.tls_server_name + ":" + port +
               (host_end == std::string::npos ? "" : config.server.substr(host_end));
    tls.connect_to = config.tls_server_name + ":" + port + ":" + host + ":" + port;
}

std::shared_ptr<net::HttpTransport> make_transport(const Kubeconfig& config,
                                                   std::string& base_url) {
    net::TlsOptions tls;
    tls.ca_pem = config.ca_pem;
    tls.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
    tls.client_certificate_pem = config.client_certificate_pem;
    tls.client_key_pem = config.client_key_pem;
    tls.proxy_url = config.proxy_url;
    if (!config.tls_server_name.empty())
        apply_tls_server_name(config, base_url, tls);
    return std::make_shared<net::CurlTransport>(std::move(tls));
}

json parse_answer(KubeClient::Impl& impl, const ApiCall& call, const net::HttpResponse& response) {
    if (response.body.empty())
        return json::object();
    if (!net::json_nesting_within(response.body)) {
        const auto context = impl.error_context(call, 1);
        throw KubeError(context.label + ": " + context.request + ": " +
                            std::to_string(response.status) + " answer nests deeper than " +
                            std::to_string(net::k_max_remote_json_depth) +
                            " levels of arrays and objects",
                        response.status, false, "", {}, context.request, context.component);
    }
    json parsed = json::parse(response.body, nullptr, false);
    if (parsed.is_discarded()) {
        const auto context = impl.error_context(call, 1);
        throw KubeError(context.label + ": " + context.request + ": " +
                            std::to_string(response.status) + " answer is not JSON",
                        response.status, false, "", {}, context.request, context.component);
    }
    return parsed;
}

KubeError response_too_large(const KubeClient::Impl& impl, const ApiCall& call, int attempts) {
    const auto context = impl.error_context(call, attempts);
    return KubeError(context.label + ": the response of " + context.request + " is larger than " +
                         format_bytes(impl.options.max_response_bytes) +
                         " (ClientOptions::max_response_bytes)",
                     0, false, "", {}, context.request, context.component);
}

bool is_success(int status) {
    return status >= 200 && status < 300;
}

} // namespace

KubeError cap_error(const ErrorContext& context, const std::string& what) {
    return KubeError(context.label + ": " + context.request + ": " + what, 0, false, "", {},
                     context.request, context.component);
}

std::string format_bytes(std::size_t bytes) {
    constexpr std::size_t k_kib = 1024;
    constexpr std::size_t k_mib = k_kib * 1024;
    if (bytes >= k_mib && bytes % k_mib == 0)
        return std::to_string(bytes / k_mib) + " MiB";
    if (bytes >= k_kib && bytes % k_kib == 0)
        return std::to_string(bytes / k_kib) + " KiB";
    return std::to_string(bytes) + " bytes";
}

std::string url_encode(const std::string& value) {
    static constexpr char k_hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : value) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += k_hex[c >> 4];
            out += k_hex[c & 15];
        }
    }
    return out;
}

void append_query(std::string& query, const std::string& key, const std::string& value) {
    if (!query.empty())
        query += '&';
    query += key + "=" + url_encode(value);
}

std::string selector_query(const ListOptions& options) {
    std::string query;
    if (!options.label_selector.empty())
        append_query(query, "labelSelector", options.label_selector);
    if (!options.field_selector.empty())
        append_query(query, "fieldSelector", options.field_selector);
    return query;
}

KubeClient::Impl::Impl(Kubeconfig kubeconfig, ClientOptions client_options)
    : config(std::move(kubeconfig))
    , options(std::move(client_options))
    , clock(options.clock ? options.clock : net::steady_clock())
    , limiter(options.qps, options.burst, clock)
    , base_url(config.server)
    , m_token(config.token)
    , m_token_read(clock->now()) {
    transport = options.transport ? options.transport : make_transport(config, base_url);
    if (options.user_agent.empty())
        options.user_agent = std::string("kprov/") + k_version;
    if (options.label.empty())
        options.label = "kube";
    if (options.component.empty())
        options.component = "k8s client - cluster";
    options.log = net::logger_or_null(std::move(options.log));
}

std::string KubeClient::Impl::authorization(bool refresh) {
    std::lock_guard lock(m_token_mutex);
    const auto now = clock->now();
    if (!config.token_file.empty() && (refresh || now - m_token_read >= k_token_reread_interval)) {
        m_token_read = now;
        try {
            m_token = read_token_file(config.token_file);
        } catch (const Error& e) {
            options.log->warn("{}: keeping the previous token: {}", options.label, e.what());
        }
    }
    return m_token.empty() ? std::string{} : "Bearer " + m_token;
}

net::HttpRequest KubeClient::Impl::make_request(const ApiCall& call) {
    net::HttpRequest request;
    request.method = call.method;
    request.url = base_url + call.path + (call.query.empty() ? "" : "?" + call.query);
    request.headers = {{"Accept", "application/json"}, {"User-Agent", options.user_agent}};
    if (const std::string auth = authorization(false); !auth.empty())
        request.headers.emplace_back("Authorization", auth);
    if (!call.content_type.empty())
        request.headers.emplace_back("Content-Type", call.content_type);
    request.body = call.body;
    request.connect_timeout = options.connect_timeout;
    request.total_timeout = options.request_timeout;
    request.max_body_bytes = options.max_response_bytes;
    return request;
}

ErrorContext KubeClient::Impl::error_context(const ApiCall& call, int attempts) const {
    return {options.label, options.component, call.method + " " + call.path, attempts};
}

void KubeClient::Impl::log_exchange(const ApiCall& call, int status, net::Clock::time_point started,
                                    const net::HttpResponse* response) const {
    if (options.on_request)
        options.on_request(options.label, call.method, status);
    const auto& log = options.log;
    if (log->should_log(spdlog::level::debug)) { // the line is not built at higher levels
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(clock->now() - started).count();
        const std::string target = call.path + (call.query.empty() ? "" : "?" + call.query);
        if (status == 0)
            log->debug("{}: {} {} -> no answer in {}ms", options.label, call.method, target, ms);
        else
            log->debug("{}: {} {} -> {} in {}ms", options.label, call.method, target, status, ms);
    }
    if (response == nullptr)
        return;
    const auto [first, last] = response->headers.equal_range("warning");
    for (auto it = first; it != last; ++it)
        log->warn("{}: {} {}: server warning: {}", options.label, call.method, call.path,
                  net::clean_remote_text(it->second));
}

net::HttpResponse KubeClient::Impl::execute(const ApiCall& call) {
    using Outcome = net::TryOutcome<net::HttpResponse, KubeError>;
    const auto attempt = [&](const net::RetryState& state) -> Outcome {
        limiter.acquire();
        const auto started = clock->now();
        std::optional<net::HttpResponse> response;
        std::optional<net::TransportError> failure;
        try {
            response = transport->perform(make_request(call));
            // A transport that does not enforce max_body_bytes itself is held to it here.
            if (options.max_response_bytes > 0 &&
                response->body.size() > options.max_response_bytes)
                throw net::ResponseTooLarge(options.max_response_bytes);
        } catch (const net::ResponseTooLarge&) {
            log_exchange(call, response ? response->status : 0, started, nullptr);
            throw response_too_large(*this, call, state.attempt);
        } catch (const net::TransportError& e) {
            failure = e;
        }
        log_exchange(call, response ? response->status : 0, started,
                     response ? &*response : nullptr);
        if (response && is_success(response->status))
            return std::move(*response);

        const auto context = error_context(call, state.attempt);
        if (!response) {
            using Kind = net::TransportError::Kind;
            const bool connect =
                failure->kind() == Kind::Connect || failure->kind() == Kind::Timeout;
            const bool heals =
                failure->kind() != Kind::Tls && (options.retry.retry_connect_failures || !connect);
            return net::TryFailure<KubeError>{transport_error(context, failure->what(), heals),
                                              heals &&
                                                  (call.idempotent || !failure->request_sent()),
                                              std::nullopt, false, failure->what()};
        }
        const int status = response->status;
        net::TryFailure<KubeError> out{status_error(context, status, response->body), false,
                                       std::nullopt, false, std::to_string(status)};
        // A rotated token file: try once more with the new token, not counted as a retry.
        if (status == 401 && !config.token_file.empty() && !state.free_retry_used) {
            const std::string before = authorization(false);
            out.free_retry = authorization(true) != before;
        }
        // 429 and 503 mean the server did not act on the request: safe even for POST.
        out.may_retry = status == 429 || status == 503 ||
                        (call.idempotent && (status == 500 || status == 502 || status == 504));
        if (auto after = retry_after(response->header("retry-after"), response->body))
            out.wait = net::retry_after_delay(options.retry, *after);
        return out;
    };
    return net::with_retries(options.retry, *clock, *options.log,
                             options.label + ": " + call.method + " " + call.path, attempt);
}

json KubeClient::Impl::list_all(const std::string& path, const ListOptions& list_options) {
    constexpr int k_max_restarts = 3;
    json result;
    json items = json::array();
    std::string continue_token;
    int pages = 0;
    for (int restarts = 0;;) {
        if (options.max_list_pages > 0 && pages >= options.max_list_pages)
            throw cap_error(error_context({"GET", path, "", "", "", true}, 1),
                            "the server sent continue tokens for more than " +
                                std::to_string(options.max_list_pages) +
                                " pages (ClientOptions::max_list_pages)");
        ++pages;
        ApiCall call{"GET", path, selector_query(list_options), "", "", true};
        if (list_options.limit > 0)
            append_query(call.query, "limit", std::to_string(list_options.limit));
        if (!continue_token.empty())
            append_query(call.query, "continue", continue_token);
        net::HttpResponse response;
        try {
            response = execute(call);
        } catch (const KubeError& e) {
            if (!e.is_gone() || continue_token.empty() || ++restarts > k_max_restarts)
                throw;
            options.log->info("{}: GET {}: continue token expired, listing again", options.label,
                              path);
            continue_token.clear();
            items = json::array();
            result = json();
            continue;
        }
        json page = parse_answer(*this, call, response);
        if (auto it = page.find("items"); it != page.end() && it->is_array())
            for (auto& item : *it)
                items.push_back(std::move(item));
        continue_token.clear();
        if (auto meta = page.find("metadata"); meta != page.end() && meta->is_object())
            continue_token = meta->value("continue", "");
        if (result.is_null())
            result = std::move(page); // the first page's resourceVersion is the snapshot's
        if (continue_token.empty())
            break;
    }
    result["items"] = std::move(items);
    if (auto meta = result.find("metadata"); meta != result.end() && meta->is_object()) {
        meta->erase("continue");
        meta->erase("remainingItemCount");
    }
    return result;
}

KubeClient::KubeClient(Kubeconfig config, ClientOptions options)
    : m_impl(std::make_unique<Impl>(std::move(config), std::move(options))) {}

KubeClient::~KubeClient() = default;

const std::string& KubeClient::server() const {
    return m_impl->config.server;
}

const std::string& KubeClient::default_namespace() const {
    return m_impl->config.default_namespace;
}

json KubeClient::get(const std::string& path) {
    const ApiCall call{"GET", path, "", "", "", true};
    return parse_answer(*m_impl, call, m_impl->execute(call));
}

std::optional<json> KubeClient::get_if_exists(const std::string& path) {
    try {
        return get(path);
    } catch (const KubeError& e) {
        if (e.is_not_found())
            return std::nullopt;
        throw;
    }
}

json KubeClient::list(const std::string& path, const ListOptions& options) {
    return m_impl->list_all(path, options);
}

json KubeClient::create(const std::string& path, const json& object) {
    const ApiCall call{"POST", path, "", object.dump(), "application/json", false};
    return parse_answer(*m_impl, call, m_impl->execute(call));
}

bool KubeClient::create_if_absent(const std::string& path, const json& object) {
    try {
        // Its callers want only whether it was created: the answer (the object as stored) is
        // not parsed, which was a tenth of a provisioning's CPU for the operator bindings.
        const ApiCall call{"POST", path, "", object.dump(), "application/json", false};
        m_impl->execute(call);
        return true;
    } catch (const KubeError& e) {
        if (e.is_already_exists())
            return false;
        throw;
    }
}

json KubeClient::update(const std::string& path, const json& object) {
    const ApiCall call{"PUT", path, "", object.dump(), "application/json", true};
    return parse_answer(*m_impl, call, m_impl->execute(call));
}

json KubeClient::merge_patch(const std::string& path, const json& patch) {
    const ApiCall call{"PATCH", path, "", patch.dump(), "application/merge-patch+json", true};
    return parse_answer(*m_impl, call, m_impl->execute(call));
}

std::optional<json> KubeClient::delete_object(const std::string& path) {
    const ApiCall call{"DELETE", path, "", "", "", true};
    try {
        return parse_answer(*m_impl, call, m_impl->execute(call));
    } catch (const KubeError& e) {
        if (e.is_not_found())
            return std::nullopt;
        throw;
    }
}

void KubeClient::delete_collection(const std::string& path, const ListOptions& selectors) {
    const ApiCall call{"DELETE", path, selector_query(selectors), "", "", true};
    m_impl->execute(call);
}

} // namespace kprov::gardener
