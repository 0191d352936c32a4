#pragma once
// What a log line is about besides its message: the runtime, operation, stage or component the
// logging thread works on (JSON logs carry them as fields). Each thread has its own fields, set
// by scopes on the thread that does the work and read by the log sink on that same thread.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprov::engine {

using LogField = std::pair<std::string, std::string>;

/// The calling thread's fields, outer scopes first; a key may repeat, the last one holds.
const std::vector<LogField>& log_fields();

/// Adds fields to the calling thread's until it ends. Scopes nest; destroy them in reverse
/// order of creation, on the thread that made them.
class LogFieldsScope {
public:
    LogFieldsScope(std::initializer_list<LogField> fields);
    ~LogFieldsScope();
    LogFieldsScope(const LogFieldsScope&) = delete;
    LogFieldsScope& operator=(const LogFieldsScope&) = delete;

    /// Changes this scope's field `key`, or adds it.
    void set(std::string_view key, std::string value);

private:
    std::size_t m_begin; ///< where this scope's fields start in the thread's list
};

/// While it lives, the calling thread's log lines are each written, never folded into a count
/// of repeats (serve's access log: one line per request). Not nestable.
class EveryLineScope {
public:
    EveryLineScope();
    ~EveryLineScope();
    EveryLineScope(const EveryLineScope&) = delete;
    EveryLineScope& operator=(const EveryLineScope&) = delete;
};

/// Whether an EveryLineScope lives on the calling thread.
bool every_line();

} // namespace kprov::engine
