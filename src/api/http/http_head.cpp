// Request heads, parsed by Beast's basic_parser: what kprov adds is the refusals (411 for any
// Transfer-Encoding, 505, a target that is not a path) and a copy of the head that outlives the
// read buffer.

#include "api/http/http_internal.hpp"
#include "engine/util/text.hpp"

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <limits>

namespace kprov::api::http::detail {
namespace {

namespace beast = boost::beast;
using boost::system::error_code;

std::string_view view(beast::string_view s) {
    return {s.data(), s.size()};
}

void add(Head& head, std::string_view s) {
    head.spans.emplace_back(head.text.size(), s.size());
    head.text.append(s);
}

// Whether the request line ends in "HTTP/<digit>.<digit>": Beast refuses versions other than
// 1.x as malformed, where they are only unsupported (505).
bool well_formed_version(std::string_view in) {
    const std::string_view line = in.substr(0, in.find("\r\n"));
    if (line.size() < 8)
        return false;
    const std::string_view v = line.substr(line.size() - 8);
    const auto digit = [](char c) {
        return c >= '0' && c <= '9';
    };
    return v.substr(0, 5) == "HTTP/" && digit(v[5]) && v[6] == '.' && digit(v[7]);
}

} // namespace

class HeadReader::Parser final : public beast::http::basic_parser<true> {
public:
    Parser(Head& head, std::size_t max_header_bytes)
        : m_head(head) {
        header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(max_header_bytes, 1U << 30)));
        // 413 is decided from Content-Length, by the connection. Not boost::none: Beast 1.74
        // compares a Content-Length with an empty limit as greater.
        body_limit(std::numeric_limits<std::uint64_t>::max());
        eager(false);
    }

private:
    void refuse(int status, const char* message, error_code& ec) {
        m_head.refusal = status;
        m_head.refusal_message = message;
        ec = beast::http::error::bad_value;
    }
    void on_request_impl(beast::http::verb, beast::string_view method, beast::string_view target,
                         int version, error_code& ec) override {
        m_head.version = version;
        if (version != 10 && version != 11)
            return refuse(505, "HTTP version not supported", ec);
        if (target.empty() || target.front() != '/')
            return refuse(400, "malformed request target", ec);
        add(m_head, view(method));
        add(m_head, view(target));
    }
    void on_response_impl(int, beast::string_view, int, error_code&) override {}
    void on_field_impl(beast::http::field name, beast::string_view name_text,
                       beast::string_view value, error_code& ec) override {
        if (name == beast::http::field::transfer_encoding)
            return refuse(411, "request bodies must be sent with Content-Length", ec);
        if (name == beast::http::field::expect)
            m_head.expect_continue = iequals_ascii(view(value), "100-continue");
        add(m_head, view(name_text));
        add(m_head, view(value));
    }
    void on_header_impl(error_code&) override {}
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(beast::string_view body, error_code&) override { return body.size(); }
    void on_chunk_header_impl(std::uint64_t, beast::string_view, error_code&) override {}
    std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body, error_code&) override {
        return body.size();
    }
    void on_finish_impl(error_code&) override {}

    Head& m_head;
};

void Head::fill(Request& req) const {
    const auto span = [this](std::size_t i) {
        return std::string_view(text).substr(spans[i].first, spans[i].second);
    };
    req.method = span(0);
    req.target = span(1);
    const auto question = req.target.find('?');
    req.path = req.target.substr(0, question);
    req.query =
        question == std::string_view::npos ? std::string_view() : req.target.substr(question + 1);
    req.headers.clear();
    for (std::size_t i = 2; i + 1 < spans.size(); i += 2)
        req.headers.emplace_back(span(i), span(i + 1));
}

HeadReader::HeadReader(std::size_t max_header_bytes)
    : m_max_header_bytes(max_header_bytes)
    , m_parser(std::make_unique<Parser>(m_head, max_header_bytes)) {}

HeadReader::~HeadReader() = default;

void HeadReader::reset() {
    m_head.text.clear();
    m_head.spans.clear();
    m_head.version = 11;
    m_head.expect_continue = false;
    m_head.refusal = 0;
    // Beast's parser cannot be reset: a fresh one per request, in the same memory.
    std::destroy_at(m_parser.get());
    std::construct_at(m_parser.get(), m_head, m_max_header_bytes);
}

HeadReader::Status HeadReader::put(std::string_view in, std::size_t& used) {
    error_code ec;
    used = m_parser->put(boost::asio::const_buffer(in.data(), in.size()), ec);
    if (ec == beast::http::error::need_more || (!ec && !m_parser->is_header_done()))
        return Status::NeedMore;
    if (!ec) {
        m_head.keep_alive = m_parser->keep_alive();
        m_head.content_length = m_parser->content_length().value_or(0);
        return Status::Done;
    }
    if (m_head.refusal)
        return Status::Refused;
    if (ec == beast::http::error::header_limit) {
        m_head.refusal = 431;
        m_head.refusal_message = "request header fields too large";
    } else if (ec == beast::http::error::bad_version && well_formed_version(in)) {
        m_head.refusal = 505;
        m_head.refusal_message = "HTTP version not supported";
    } else if (ec == beast::http::error::bad_transfer_encoding) {
        m_head.refusal = 411;
        m_head.refusal_message = "request bodies must be sent with Content-Length";
    } else {
        m_head.refusal = 400;
        m_head.refusal_message = "malformed request: " + ec.message();
    }
    return Status::Refused;
}

} // namespace kprov::api::http::detail
