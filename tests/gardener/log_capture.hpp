#pragma once
// Captures what the default spdlog logger writes while the object lives.

#include <memory>
#include <mutex>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <string>

namespace kprov::gardener::testing {

class LogCapture {
public:
    LogCapture()
        : m_previous(spdlog::default_logger())
        , m_sink(std::make_shared<spdlog::sinks::ostream_sink_mt>(m_out)) {
        auto logger = std::make_shared<spdlog::logger>("capture", m_sink);
        logger->set_level(spdlog::level::trace);
        logger->set_pattern("%l %v");
        spdlog::set_default_logger(logger);
    }
    ~LogCapture() { spdlog::set_default_logger(m_previous); }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    std::string text() {
        m_sink->flush();
        return m_out.str();
    }

private:
    std::shared_ptr<spdlog::logger> m_previous;
    std::ostringstream m_out;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> m_sink;
};

} // namespace kprov::gardener::testing
