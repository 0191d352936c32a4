#include "net/curl_transport.hpp"

#include "engine/error.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <curl/curl.h>
#include <exception>
#include <mutex>
#include <stop_token>
#include <string_view>
#include <vector>

namespace kprov::net {
namespace {

constexpr std::size_t k_max_idle_handles = 16;
// The connections a transport keeps open between requests. libcurl's default (5) is below the
// engine's concurrency (8 workers share a transport): each request beyond it closed the
// oldest kept connection and the next one opened a new connection.
constexpr long k_max_kept_connections = 64;

// A header name for an error message: control characters shown as '?'. Never used for values.
std::string printable_name(std::string name) {
    for (char& c : name)
        if (std::iscntrl(static_cast<unsigned char>(c)) != 0)
            c = '?';
    return name;
}

// State of one exchange, shared with curl's callbacks.
struct Transfer {
    CURL* handle = nullptr;
    const HttpRequest* request = nullptr;
    HttpResponse response;
    bool streaming = false; // decided at the first body byte
    bool decided = false;
    bool stopped = false;       // ended on purpose by on_body or should_stop
    bool idle_too_long = false; // ended by the inactivity timeout
    bool too_large = false;     // the body passed request->max_body_bytes
    std::chrono::steady_clock::time_point last_activity = std::chrono::steady_clock::now();
    std::exception_ptr error; // thrown by on_body
};

long response_code(CURL* handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

size_t on_write(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    t.last_activity = std::chrono::steady_clock::now();
    if (!t.decided) {
        const long code = response_code(t.handle);
        t.streaming = t.request->on_body && code >= 200 && code < 300;
        t.decided = true;
    }
    if (!t.streaming) {
        const std::size_t limit = t.request->max_body_bytes;
        if (limit > 0 && bytes > limit - std::min(limit, t.response.body.size())) {
            t.too_large = true;
            return 0; // cut the transfer: nothing beyond the cap is buffered
        }
        t.response.body.append(data, bytes);
        return bytes;
    }
    try {
        if (t.request->on_body(std::string_view(data, bytes)) &&
            !(t.request->should_stop && t.request->should_stop()))
            return bytes;
    } catch (...) {
        t.error = std::current_exception();
    }
    t.stopped = true;
    return 0; // anything but `bytes` makes curl end the transfer
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    t.last_activity = std::chrono::steady_clock::now();
    std::string_view line(data, bytes);
    if (line.rfind("HTTP/", 0) == 0) { // a new status line (after 100 Continue, a proxy...)
        t.response.headers.clear();
        return bytes;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
        return bytes;
    std::string name = ascii_lower(line.substr(0, colon));
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
        value.remove_suffix(1);
    t.response.headers.emplace(std::move(name), std::string(value));
    return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto& t = *static_cast<Transfer*>(user);
    if (t.request->should_stop && t.request->should_stop()) {
        t.stopped = true;
        return 1;
    }
    // Our own clock rather than CURLOPT_LOW_SPEED_TIME, whose speed average over the last
    // seconds lets a burst of data postpone the timeout by several seconds.
    const auto limit = t.request->inactivity_timeout;
    if (limit.count() > 0 && std::chrono::steady_clock::now() - t.last_activity > limit) {
        t.idle_too_long = true;
        return 1;
    }
    return 0;
}

bool mentions_tls_alert(const char* message) {
    const std::string_view text(message);
    return text.find("alert") != std::string_view::npos ||
           text.find("certificate") != std::string_view::npos;
}

TransportError to_error(CURLcode code, CURL* handle, const char* detail) {
    using Kind = TransportError::Kind;
    std::string message = curl_easy_strerror(code);
    if (detail[0] != '\0')
        message += std::string(": ") + detail;
    long request_size = 0;
    curl_easy_getinfo(handle, CURLINFO_REQUEST_SIZE, &request_size);
    const bool sent = request_size > 0;
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
        return TransportError(Kind::Connect, false, message);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        return TransportError(Kind::Tls, false, message);
    case CURLE_SSL_CONNECT_ERROR:
        // A handshake alert (say, the server refused our client certificate) will not go away
        // on its own; a connection reset during the handshake might.
        return TransportError(mentions_tls_alert(detail) ? Kind::Tls : Kind::Connect, false,
                              message);
    case CURLE_OPERATION_TIMEDOUT:
        return TransportError(Kind::Timeout, sent, message);
    case CURLE_RECV_ERROR:
        // With TLS 1.3 a refused client certificate shows up on the first read.
        if (mentions_tls_alert(detail))
            return TransportError(Kind::Tls, sent, message);
        return TransportError(Kind::Io, sent, message);
    default:
        return TransportError(Kind::Io, sent, message);
    }
}

// curl_easy_perform looks at a stop request only in its progress callback, about once a
// second. A multi handle's poll can be woken from another thread (curl_multi_wakeup), so a stop
// request ends the transfer at once.
CURLcode perform_stoppable(CURL* handle, Transfer& transfer) {
    const std::stop_token& stop = transfer.request->stop;
    CURLM* multi = curl_multi_init();
    if (multi == nullptr)
        return curl_easy_perform(handle);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, k_max_kept_connections);
    curl_multi_add_handle(multi, handle);
    CURLcode code = CURLE_OK;
    {
        // Declared after `multi` and gone before its cleanup: the destructor waits for a wake-up
        // running on another thread.
        std::stop_callback wake(stop, [multi] { curl_multi_wakeup(multi); });
        int running = 1;
        while (running > 0) {
            if (stop.stop_requested()) {
                transfer.stopped = true;
                break;
            }
            if (curl_multi_perform(multi, &running) != CURLM_OK) {
                code = CURLE_RECV_ERROR;
                break;
            }
            if (running > 0 && curl_multi_poll(multi, nullptr, 0, 1000, nullptr) != CURLM_OK) {
                code = CURLE_RECV_ERROR;
                break;
            }
        }
        int queued = 0;
        while (CURLMsg* message = curl_multi_info_read(multi, &queued))
            if (message->msg == CURLMSG_DONE && message->easy_handle == handle)
                code = message->data.result;
    }
    curl_multi_remove_handle(multi, handle);
    curl_multi_cleanup(multi);
    return code;
}

} // namespace

std::string HttpResponse::header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string{} : it->second;
}

struct CurlTransport::Impl {
    TlsOptions tls;
    CURLSH* share = nullptr;
    curl_slist* connect_to = nullptr;
    std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;
    std::mutex pool_mutex;
    std::vector<CURL*> idle;

    static void lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
        static_cast<Impl*>(user)->locks.at(static_cast<std::size_t>(data)).lock();
    }
    static void unlock(CURL*, curl_lock_data data, void* user) {
        static_cast<Impl*>(user)->locks.at(static_cast<std::size_t>(data)).unlock();
    }

    CURL* take() {
        {
            std::lock_guard guard(pool_mutex);
            if (!idle.empty()) {
                CURL* handle = idle.back();
                idle.pop_back();
                return handle;
            }
        }
        CURL* handle = curl_easy_init();
        if (handle == nullptr)
            throw TransportError(TransportError::Kind::Io, false, "curl_easy_init failed");
        return handle;
    }

    void give_back(CURL* handle) {
        curl_easy_reset(handle); // keeps no options; connections stay in the shared cache
        {
            std::lock_guard guard(pool_mutex);
            if (idle.size() < k_max_idle_handles) {
                idle.push_back(handle);
                return;
            }
        }
        curl_easy_cleanup(handle);
    }

    void configure(CURL* h, const HttpRequest& request, Transfer& transfer, char* error_buffer,
                   curl_slist* headers) {
        curl_easy_setopt(h, CURLOPT_SHARE, share);
        curl_easy_setopt(h, CURLOPT_MAXCONNECTS, k_max_kept_connections);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
        curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(request.connect_timeout.count()));
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));
        if (request.method == "GET") {
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        } else {
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
            if (!request.body.empty() || request.method != "DELETE") {
                curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                                 static_cast<curl_off_t>(request.body.size()));
                curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
            }
        }
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
        if (request.should_stop || request.inactivity_timeout.count() > 0) {
            curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
            curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
            curl_easy_setopt(h, CURLOPT_XFERINFODATA, &transfer);
        }
        configure_tls(h);
    }

    void configure_tls(CURL* h) {
        if (tls.insecure_skip_tls_verify) {
            curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
        }
        // NOCOPY: the blobs live in `tls` as long as this transport.
        if (!tls.ca_pem.empty()) {
            curl_blob blob{tls.ca_pem.data(), tls.ca_pem.size(), CURL_BLOB_NOCOPY};
            curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
        }
        if (!tls.client_certificate_pem.empty()) {
            curl_blob cert{tls.client_certificate_pem.data(), tls.client_certificate_pem.size(),
                           CURL_BLOB_NOCOPY};
            curl_blob key{tls.client_key_pem.data(), tls.client_key_pem.size(), CURL_BLOB_NOCOPY};
            curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
            curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
            curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
            curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
        }
        if (connect_to != nullptr)
            curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
        if (!tls.proxy_url.empty())
            curl_easy_setopt(h, CURLOPT_PROXY, tls.proxy_url.c_str());
    }
};

CurlTransport::CurlTransport(TlsOptions tls)
    : m_impl(std::make_unique<Impl>()) {
    static std::once_flag global_init;
    // Thread-safe in curl >= 7.84 and reference-counted, so harmless next to main()'s own call.
    std::call_once(global_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    m_impl->tls = std::move(tls);
    m_impl->share = curl_share_init();
    if (m_impl->share == nullptr)
        throw TransportError(TransportError::Kind::Io, false, "curl_share_init failed");
    curl_share_setopt(m_impl->share, CURLSHOPT_LOCKFUNC, &Impl::lock);
    curl_share_setopt(m_impl->share, CURLSHOPT_UNLOCKFUNC, &Impl::unlock);
    curl_share_setopt(m_impl->share, CURLSHOPT_USERDATA, m_impl.get());
    curl_share_setopt(m_impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(m_impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(m_impl->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    if (!m_impl->tls.connect_to.empty())
        m_impl->connect_to = curl_slist_append(nullptr, m_impl->tls.connect_to.c_str());
}

CurlTransport::~CurlTransport() {
    for (CURL* handle : m_impl->idle)
        curl_easy_cleanup(handle);
    curl_share_cleanup(m_impl->share);
    curl_slist_free_all(m_impl->connect_to);
}

HttpResponse CurlTransport::perform(const HttpRequest& request) {
    // Last line of defence against header injection: a CR, LF or NUL in a header would end it
    // (or the whole head) early. Refused before a handle is taken, so nothing is sent.
    for (const auto& [name, value] : request.headers) {
        constexpr std::string_view forbidden("\r\n\0", 3);
        if (name.find_first_of(forbidden) != std::string::npos ||
            value.find_first_of(forbidden) != std::string::npos)
            throw ConfigError("HTTP header \"" + printable_name(name) +
                              "\": contains a line break or NUL character; refused, nothing sent");
    }
    CURL* handle = m_impl->take();
    curl_slist* headers = nullptr;
    struct Cleanup {
        Impl& impl;
        CURL* handle;
        curl_slist*& headers;
        ~Cleanup() {
            curl_slist_free_all(headers);
            impl.give_back(handle);
        }
    } cleanup{*m_impl, handle, headers};

    for (const auto& [name, value] : request.headers)
        headers = curl_slist_append(headers, (name + ": " + value).c_str());
    headers = curl_slist_append(headers, "Expect:"); // no 100-continue round trip

    Transfer transfer;
    transfer.handle = handle;
    transfer.request = &request;
    std::array<char, CURL_ERROR_SIZE> error_buffer{};
    m_impl->configure(handle, request, transfer, error_buffer.data(), headers);
    const CURLcode code = request.stop.stop_possible() ? perform_stoppable(handle, transfer)
                                                       : curl_easy_perform(handle);
    if (transfer.error)
        std::rethrow_exception(transfer.error);
    if (transfer.too_large)
        throw ResponseTooLarge(request.max_body_bytes);
    transfer.response.status = static_cast<int>(response_code(handle));
    if (code == CURLE_OK || transfer.stopped)
        return std::move(transfer.response);
    if (transfer.idle_too_long)
        throw TransportError(TransportError::Kind::Timeout, true,
                             "no data for " + std::to_string(request.inactivity_timeout.count()) +
                                 "ms (inactivity timeout)");
    throw to_error(code, handle, error_buffer.data());
}

} // namespace kprov::net
