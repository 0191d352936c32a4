#include "engine/rules/in_progress.hpp"

namespace kprov::engine {
namespace {

std::string described(const Operation& running) {
    return "the " + std::string(to_api(running.type)) + " operation " + running.id +
           " of runtime " + running.cluster_id + " (at stage " + running.stage + ")";
}

} // namespace

bool is_same_intent(const Operation& running, RequestIntent intent) {
    switch (intent) {
    case RequestIntent::Provision:
        return running.type == OperationType::Provision ||
               running.type == OperationType::ProvisionNoInstall;
    case RequestIntent::Deprovision:
        return is_deprovisioning(running.type);
    case RequestIntent::Hibernate:
        return running.type == OperationType::Hibernate;
    case RequestIntent::WakeUp:
        return running.type == OperationType::WakeUp;
    case RequestIntent::UpgradeShoot:
        return running.type == OperationType::UpgradeShoot;
    case RequestIntent::UpgradeKyma:
        return running.type == OperationType::Upgrade;
    case RequestIntent::Apply:
        return true; // a runtime file wants whatever gets the runtime to it
    }
    return false;
}

bool is_undriven(const Operation& op, Timestamp now) {
    return op.state == OperationState::InProgress && (!op.lease || op.lease->expires_at <= now);
}

std::optional<std::string> already_done(const ShootState& shoot, OperationType type) {
    if (type == OperationType::Hibernate && shoot.hibernation_enabled && shoot.is_hibernated)
        return "already hibernated";
    if (type == OperationType::WakeUp && !shoot.hibernation_enabled && !shoot.is_hibernated)
        return "already awake";
    return std::nullopt;
}

std::string in_progress_message(const Operation& running, RequestIntent intent, bool wait) {
    if (is_same_intent(running, intent) && intent != RequestIntent::Apply && !wait)
        return described(running) +
               " is this request, under way already: nothing new was started; follow it with "
               "`kprov wait " +
               running.id + "` (or run this command again with --wait)";
    std::string message = "another operation of runtime " + running.cluster_id +
                          " is in progress: the " + std::string(to_api(running.type)) +
                          " operation " + running.id + " at stage " + running.stage +
                          "; follow it with: kprov wait " + running.id;
    if (intent == RequestIntent::Apply)
        message += " (or apply with --wait, which follows it first)";
    return message;
}

MeetingAnswer meet_in_progress(const Operation& running, RequestIntent intent, bool wait) {
    MeetingAnswer answer;
    const bool same = is_same_intent(running, intent);
    // A provisioning request meeting its runtime's deletion wants a new runtime after it.
    const bool recreate = (intent == RequestIntent::Apply || intent == RequestIntent::Provision) &&
                          is_deprovisioning(running.type);
    if (!wait || (!same && !recreate)) {
        answer.message = in_progress_message(running, intent, wait);
        return answer;
    }
    answer.meeting = Meeting::Follow;
    answer.message = "following " + described(running) + ", which is in progress";
    if (recreate)
        answer.then = Then::Provision;
    else if (intent == RequestIntent::Apply || intent == RequestIntent::UpgradeShoot)
        answer.then = Then::Start; // an upgrade's file may differ from the running one's
    return answer;
}

} // namespace kprov::engine
