#include "net/logger.hpp"

#include <spdlog/logger.h>

namespace kprov::net {
namespace {

spdlog::level::level_enum spdlog_level(engine::LogLevel level) {
    switch (level) {
    case engine::LogLevel::Debug:
        return spdlog::level::debug;
    case engine::LogLevel::Info:
        return spdlog::level::info;
    case engine::LogLevel::Warning:
        return spdlog::level::warn;
    case engine::LogLevel::Error:
        break;
    }
    return spdlog::level::err;
}

} // namespace

std::shared_ptr<spdlog::logger> logger_or_null(std::shared_ptr<spdlog::logger> log) {
    if (log)
        return log;
    // No sinks, and a threshold above every level: nothing is even formatted.
    auto nowhere = std::make_shared<spdlog::logger>("nowhere");
    nowhere->set_level(spdlog::level::off);
    return nowhere;
}

void set_threshold(spdlog::logger& log, engine::LogLevel threshold) {
    log.set_level(spdlog_level(threshold));
}

engine::LogSink to_log_sink(std::shared_ptr<spdlog::logger> log) {
    if (!log)
        return {};
    return [log = std::move(log)](engine::LogLevel level, const std::string& message) {
        log->log(spdlog_level(level), message);
    };
}

} // namespace kprov::net
