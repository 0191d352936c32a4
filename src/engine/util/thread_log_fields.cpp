#include "engine/util/thread_log_fields.hpp"

namespace kprov::engine {
namespace {

std::vector<LogField>& thread_fields() {
    thread_local std::vector<LogField> fields;
    return fields;
}

thread_local bool t_every_line = false;

} // namespace

const std::vector<LogField>& log_fields() {
    return thread_fields();
}

LogFieldsScope::LogFieldsScope(std::initializer_list<LogField> fields)
    : m_begin(thread_fields().size()) {
    thread_fields().insert(thread_fields().end(), fields.begin(), fields.end());
}

LogFieldsScope::~LogFieldsScope() {
    thread_fields().resize(m_begin);
}

void LogFieldsScope::set(std::string_view key, std::string value) {
    auto& fields = thread_fields();
    for (std::size_t i = m_begin; i < fields.size(); ++i)
        if (fields[i].first == key) {
            fields[i].second = std::move(value);
            return;
        }
    fields.emplace_back(std::string(key), std::move(value));
}

EveryLineScope::EveryLineScope() {
    t_every_line = true;
}

EveryLineScope::~EveryLineScope() {
    t_every_line = false;
}

bool every_line() {
    return t_every_line;
}

} // namespace kprov::engine
