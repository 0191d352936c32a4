#pragma once
// A logger whose lines ("<level> <message>", every level) the test reads back: given to a
// component through its options' `log`, as the command gives its own.

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
        : m_sink(std::make_shared<spdlog::sinks::ostream_sink_mt>(m_out))
        , m_logger(std::make_shared<spdlog::logger>("capture", m_sink)) {
        m_logger->set_level(spdlog::level::trace);
        m_logger->set_pattern("%l %v");
    }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    /// The logger to give to what is under test.
    const std::shared_ptr<spdlog::logger>& logger() const { return m_logger; }

    std::string text() {
        m_sink->flush();
        return m_out.str();
    }

private:
    std::ostringstream m_out;
    std::shared_ptr<spdlog::sinks::ostream_sink_mt> m_sink;
    std::shared_ptr<spdlog::logger> m_logger;
};

} // namespace kprov::gardener::testing
