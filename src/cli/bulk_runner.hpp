#pragma once
// Starting one operation on each of many runtimes and driving them in parallel, for the bulk
// commands (bulk.hpp): a bounded set of threads over one EngineAccess, one progress line per
// runtime and change on stderr, one result per runtime.

#include "cli/context.hpp"
#include "engine/model.hpp"
#include "engine/util/duration.hpp"

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kprov::engine {
struct StartedOperation;
}

namespace kprov::cli {

class EngineAccess;

/// A runtime a bulk command acts on.
struct BulkTarget {
    std::string id;
    std::string name;
    std::string shoot;
};

/// What became of one runtime.
struct BulkResult {
    enum class Kind {
        Succeeded,  ///< the operation ended Succeeded
        Failed,     ///< the operation ended Failed
        Started,    ///< without --wait: started, and still in progress
        Unfinished, ///< --timeout or a signal ended the wait; the operation goes on
        Refused,    ///< not started: protected, or refused by a rule of the engine
        InProgress, ///< not started: another operation of the runtime is in progress
        Error,      ///< not started, or not followed to its end: an error (message)
    };
    BulkTarget target;
    Kind kind = Kind::Error;
    std::optional<engine::Operation> operation; ///< as it stood at the end; none when not started
    std::string message;                        ///< the refusal, error or failure; else ""
};

/// Starts the operation on one runtime (the engine service's call). Throws what the service
/// throws; it becomes the runtime's result.
using BulkStart =
    std::function<engine::StartedOperation(EngineAccess& access, const std::string& runtime_id)>;

struct BulkOptions {
    bool wait = false;               ///< drive every operation to its end (else: one pass each)
    std::optional<Duration> timeout; ///< with wait: stop driving after this, for all of them
    /// At most this many operations start at a time (and, without wait, run their pass); with
    /// wait, every started operation is then waited for at once.
    int parallelism = 16;
};

struct BulkOutcome {
    std::vector<BulkResult> results; ///< one per target, in the targets' order
    int signal_number = 0;           ///< SIGINT or SIGTERM when one stopped the wait; else 0
};

/// An ostream that several threads may write to at once: each write reaches `target` whole,
/// under one lock, so lines written with one call never interleave.
class SharedStream {
public:
    explicit SharedStream(std::ostream& target);
    ~SharedStream();
    SharedStream(const SharedStream&) = delete;
    SharedStream& operator=(const SharedStream&) = delete;
    std::ostream& stream();

private:
    class Buffer;
    std::unique_ptr<Buffer> m_buffer;
    std::unique_ptr<std::ostream> m_stream;
};

/// Calls `start` for every target and then, in the same thread, drives the operation (with
/// options.wait to its end, else one pass, as the single commands do): at most
/// options.parallelism starts at a time, while the waits all run at once (up to 256 threads),
/// so that twenty hibernations take about as long as one. `access` must write its logs to a
/// SharedStream and keep a store connection per thread. Progress and notes go to `err` (a
/// SharedStream), one whole line at a time, each prefixed with the runtime's name, unless `quiet`.
/// With options.wait, SIGINT and SIGTERM stop every wait (the operations go on). Never throws for a
/// runtime: its error is its result.
BulkOutcome run_in_parallel(EngineAccess& access, std::ostream& err, bool quiet,
                            const std::vector<BulkTarget>& targets, const BulkStart& start,
                            const BulkOptions& options);

/// "18 succeeded, 1 failed, 1 refused" (without --wait "... started ..."); kinds with none are
/// left out.
std::string summary_text(const std::vector<BulkResult>& results);

/// The exit code of a bulk command (bulk.hpp, run_bulk_operation): 0 when every result is
/// Succeeded or Started; else 130/143 for `signal_number`, 3 for a Failed one, 1 for a Refused
/// or Error one, 5 for InProgress ones, 4 for Unfinished ones, in that order.
int bulk_exit_code(const std::vector<BulkResult>& results, int signal_number);

} // namespace kprov::cli
