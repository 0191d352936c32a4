#pragma once
// The logger every adapter writes to, given to it explicitly (issue 36: no component logs
// through spdlog's process-wide default logger). The HTTP clients and what runs on them
// (gardener/, kyma/, director/ and their watches and workers) take a
// std::shared_ptr<spdlog::logger>: they log a debug line per request, which the logger's
// threshold spares building (should_log), and spdlog formats their arguments. Components the
// engine and the API front hold beside the engine's ports (api/, the Kyma installer) take the
// engine's LogSink, since their headers include only engine/. The command's logger (cli's
// LogScope) is given to both: as itself, and through to_log_sink. A null logger in any options
// means: log nowhere.

#include "engine/ports.hpp"

#include <memory>

namespace spdlog {
class logger;
}

namespace kprov::net {

/// `log`, or a logger that writes nowhere when `log` is null.
std::shared_ptr<spdlog::logger> logger_or_null(std::shared_ptr<spdlog::logger> log);

/// Lets `log` write lines of `threshold` and above.
void set_threshold(spdlog::logger& log, engine::LogLevel threshold);

/// The engine's LogSink writing to `log` (nowhere when null). Thread-safe as `log` is.
engine::LogSink to_log_sink(std::shared_ptr<spdlog::logger> log);

} // namespace kprov::net
