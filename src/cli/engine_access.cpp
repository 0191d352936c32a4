#include "cli/engine_access.hpp"

#include "cli/access.hpp"
#include "engine/util/thread_log_fields.hpp"
#include "net/logger.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <pwd.h>
#include <random>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

namespace kprov::cli {
namespace {

// A message with every run of digits as "#": "after 3 ms" and "after 12 ms" say the same.
std::string without_numbers(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
        if (!digit)
            out += text[i];
        else if (i == 0 || std::isdigit(static_cast<unsigned char>(text[i - 1])) == 0)
            out += '#';
    }
    return out;
}

std::string_view level_name(spdlog::level::level_enum level) {
    const auto name = spdlog::level::to_string_view(level);
    return {name.data(), name.size()};
}

class LogLineSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    LogLineSink(std::ostream& out, LogLineFormat format)
        : m_out(out)
        , m_format(format) {}
    ~LogLineSink() override {
        std::lock_guard lock(mutex_);
        write_repeats();
    }
    LogLineSink(const LogLineSink&) = delete;
    LogLineSink& operator=(const LogLineSink&) = delete;

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        const std::string_view message(msg.payload.data(), msg.payload.size());
        std::string payload = without_numbers(message);
        if (!engine::every_line() && m_repeats >= 0 && msg.level == m_level && payload == m_last) {
            ++m_repeats;
            return;
        }
        write_repeats();
        m_last = std::move(payload);
        m_level = msg.level;
        m_repeats = 0;
        m_out << format_log_line(m_format, level_name(msg.level), msg.time, message,
                                 engine::log_fields());
        m_out.flush();
    }
    void flush_() override { m_out.flush(); }

private:
    void write_repeats() {
        if (m_repeats > 0) {
            m_out << format_log_line(m_format, level_name(m_level),
                                     std::chrono::system_clock::now(),
                                     "(the last message was repeated " + std::to_string(m_repeats) +
                                         " more time" + (m_repeats == 1 ? "" : "s") + ")",
                                     {});
            m_out.flush();
        }
        m_repeats = -1;
    }

    std::ostream& m_out;
    LogLineFormat m_format;
    std::string m_last;
    spdlog::level::level_enum m_level = spdlog::level::info;
    int m_repeats = -1; ///< -1: nothing written yet
};

} // namespace

std::string rfc3339_utc(std::chrono::system_clock::time_point time) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch());
    auto seconds = static_cast<std::time_t>(ms.count() / 1000);
    auto millis = static_cast<int>(ms.count() % 1000);
    if (millis < 0) { // before 1970
        millis += 1000;
        --seconds;
    }
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[40];
    const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    char fraction[8];
    std::snprintf(fraction, sizeof fraction, ".%03dZ", millis);
    return std::string(text, n) + fraction;
}

std::string format_log_line(LogLineFormat format, std::string_view level,
                            std::chrono::system_clock::time_point time, std::string_view message,
                            const std::vector<std::pair<std::string, std::string>>& fields) {
    std::string line;
    switch (format) {
    case LogLineFormat::Command:
        line.append("kprov: ").append(level).append(": ").append(message);
        break;
    case LogLineFormat::Text:
        line.append(rfc3339_utc(time))
            .append(" kprov: ")
            .append(level)
            .append(": ")
            .append(message);
        break;
    case LogLineFormat::JsonLines: {
        nlohmann::ordered_json object;
        object["ts"] = rfc3339_utc(time);
        object["level"] = std::string(level);
        object["msg"] = std::string(message);
        for (const auto& [key, value] : fields)
            if (key != "ts" && key != "level" && key != "msg")
                object[key] = value;
        line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        break;
    }
    }
    // One record, one line: a message with a newline in it would read as two in text.
    if (format == LogLineFormat::Text)
        for (char& c : line)
            if (c == '\n' || c == '\r')
                c = ' ';
    line += '\n';
    return line;
}

std::shared_ptr<spdlog::sinks::sink> make_log_sink(std::ostream& out, LogLineFormat format) {
    return std::make_shared<LogLineSink>(out, format);
}

std::string user_at_host() {
    std::string user;
    if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_name != nullptr)
        user = pw->pw_name;
    else if (const char* env = std::getenv("USER"); env != nullptr && *env != '\0')
        user = env;
    else
        user = "uid-" + std::to_string(geteuid());
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        std::snprintf(host, sizeof host, "unknown");
    return user + "@" + host;
}

std::string new_owner_id(std::string_view prefix) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        std::snprintf(host, sizeof host, "unknown");
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x",
                  static_cast<unsigned>(std::random_device{}() & 0xffffffffU));
    return std::string(prefix) + "-" + host + "-" + std::to_string(getpid()) + "-" + suffix;
}

engine::LogLevel log_threshold(Context& ctx) {
    if (ctx.global().quiet)
        return engine::LogLevel::Error;
    if (ctx.global().verbose > 0)
        return engine::LogLevel::Debug;
    const std::string& level = ctx.config().settings.log_level;
    if (level == "trace" || level == "debug")
        return engine::LogLevel::Debug;
    if (level == "warn" || level == "warning")
        return engine::LogLevel::Warning;
    if (level == "error" || level == "fatal" || level == "panic")
        return engine::LogLevel::Error;
    return engine::LogLevel::Info;
}

LogScope::LogScope(Context& ctx, LogStyle style) {
    const LogLineFormat format = style == LogStyle::Command ? LogLineFormat::Command
                                 : ctx.config().settings.log_format == "json"
                                     ? LogLineFormat::JsonLines
                                     : LogLineFormat::Text;
    m_logger = std::make_shared<spdlog::logger>("kprov", make_log_sink(ctx.err(), format));
    net::set_threshold(*m_logger, log_threshold(ctx));
}

LogScope::~LogScope() {
    // The repeats counted last are written now, while the stream is sure to live.
    m_logger->sinks().clear();
}

engine::LogSink LogScope::sink() const {
    return net::to_log_sink(m_logger);
}

// A private temporary directory, removed with what is in it at destruction.
class EngineAccess::ScratchDir {
public:
    ScratchDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "kprov-plan-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw Error("cannot create a temporary directory in " +
                        std::filesystem::temp_directory_path().string() + ": " +
                        std::strerror(errno));
        m_path = pattern;
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

namespace {

// StoreUse::Peek: the configured store when it exists, else an empty one in `scratch`. Only a
// SQLite file can be missing (a PostgreSQL database without kprov's schema stays an error).
std::unique_ptr<stores::StoreBackend> peek_store(Context& ctx, int connections,
                                                 const std::function<std::string()>& scratch) {
    const std::string& url = ctx.config().settings.store_url;
    constexpr std::string_view k_sqlite = "sqlite://";
    std::error_code ec;
    if (url.rfind(k_sqlite, 0) != 0 || std::filesystem::exists(url.substr(k_sqlite.size()), ec))
        return open_configured_store(ctx, connections, StoreUse::Peek);
    stores::OpenOptions options;
    options.secret_key = std::string(32, 'p'); // nothing secret is ever written to it
    options.schema = stores::SchemaCheck::Migrate;
    return stores::open_store("sqlite://" + scratch() + "/empty.db", options);
}

} // namespace

EngineAccess::EngineAccess(Context& ctx, std::string_view owner_prefix, int store_connections,
                           StoreUse store_use)
    : m_ctx(ctx)
    , m_log(ctx, owner_prefix == "watch" || owner_prefix == "serve" ? LogStyle::Daemon
                                                                    : LogStyle::Command)
    , m_owner(new_owner_id(owner_prefix)) {
    if (store_use == StoreUse::Peek)
        m_store = peek_store(ctx, store_connections, [this] {
            m_scratch = std::make_unique<ScratchDir>();
            return m_scratch->path();
        });
    else
        m_store = open_configured_store(ctx, store_connections, store_use);
    app::AssemblyInputs inputs;
    inputs.mode = owner_prefix == "cli" ? app::RunMode::Command : app::RunMode::Daemon;
    inputs.log = m_log.logger();
    inputs.open_gardener = [&ctx, log = m_log.logger()](app::RequestObserver on_request) {
        return open_gardener(
            ctx, {.on_request = std::move(on_request), .answer_within = {}, .log = log});
    };
    inputs.gardener_configured = gardener_configured(ctx);
    m_engine = std::make_unique<app::EngineAssembly>(ctx.config(), *m_store, std::move(inputs));
}

EngineAccess::~EngineAccess() = default;

engine::RequestContext EngineAccess::request() const {
    const auto& settings = m_ctx.config().settings;
    return {settings.tenant.value_or(""), settings.sub_account.value_or("")};
}

} // namespace kprov::cli
