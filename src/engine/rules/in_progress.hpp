#pragma once
// The one rule for a request that meets an operation of its runtime already in progress: the
// CLI's operation commands and `kprov apply` both ask it, so that the re-run of an interrupted
// command (a CI job killed halfway) follows what the first run started, then does what is left,
// and never reports the runtime as it was before ("unchanged") while the operation runs.

#include "engine/model.hpp"
#include "engine/ports.hpp"

#include <optional>
#include <string>

namespace kprov::engine {

/// What a command asks of a runtime.
enum class RequestIntent {
    Provision,    ///< provision (of the file that made the runtime)
    Deprovision,  ///< deprovision
    Hibernate,    ///< hibernate
    WakeUp,       ///< wake-up
    UpgradeShoot, ///< upgrade-shoot
    UpgradeKyma,  ///< upgrade-kyma
    Apply,        ///< apply -f: the file's desired state, whatever the runtime is doing
};

/// What the request does about the operation in progress.
enum class Meeting {
    /// Follow the operation to its end (drive it as `kprov wait` does), then do `then`.
    Follow,
    /// Refuse: OperationInProgress with `message`, exit 5.
    Refuse,
};

/// What is left once the followed operation has ended.
enum class Then {
    Nothing,   ///< the operation was the request itself: its end is the request's
    Start,     ///< start the request's own operation (if it is still needed)
    Provision, ///< the runtime is being deprovisioned: provision it anew ("re-created")
};

struct MeetingAnswer {
    Meeting meeting = Meeting::Refuse;
    Then then = Then::Nothing;
    /// Refuse: the whole refusal, naming the operation, its stage and `kprov wait <id>`.
    /// Follow: the progress line ("following the Provision operation <id> in progress").
    std::string message;
};

/// Whether `running` (an operation in progress) is the one `intent` would start.
bool is_same_intent(const Operation& running, RequestIntent intent);

/// The rule. With `wait`: a request of the same intent follows the operation and then has
/// nothing left (an upgrade-shoot then starts its own: its file may differ); `apply` follows
/// any operation and carries on with its steps; `apply` and `provision` meeting a
/// deprovisioning follow it and provision anew (Then::Provision); any other request is refused.
/// Without `wait` every request is refused, its message saying that the request is under way
/// already when it is of the same intent.
MeetingAnswer meet_in_progress(const Operation& running, RequestIntent intent, bool wait);

/// Whether `op` is in progress and no process holds it at `now` (no lease, or an expired one):
/// nothing records Gardener's progress on it until a process claims it. A daemon between two
/// passes holds none either; it claims the operation again when it is due.
bool is_undriven(const Operation& op, Timestamp now);

/// Whether a hibernation (`type` Hibernate) or a wake-up (WakeUp) of the runtime whose own shoot
/// is `shoot` would change nothing: "already hibernated" when Gardener's spec asks for
/// hibernation and the shoot is hibernated, "already awake" when neither; nullopt otherwise
/// (and for other types). The CLI answers such a request without storing an operation; the
/// GraphQL API keeps the original's behaviour and starts one.
std::optional<std::string> already_done(const ShootState& shoot, OperationType type);

/// The message of a refusal as meet_in_progress words it.
std::string in_progress_message(const Operation& running, RequestIntent intent, bool wait);

} // namespace kprov::engine
