#include "cli/log_lines.hpp"

#include "engine/log_fields.hpp"

#include <cctype>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <spdlog/sinks/base_sink.h>

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
        if (m_repeats >= 0 && msg.level == m_level && payload == m_last) {
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
    case LogLineFormat::Json: {
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

} // namespace kprov::cli
