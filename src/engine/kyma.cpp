#include "engine/kyma.hpp"

#include "engine/util/text.hpp"

#include <array>
#include <cctype>

namespace kprov::engine {
namespace {

bool istarts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && iequals_ascii(text.substr(0, prefix.size()), prefix);
}

struct UpgradeStateName {
    UpgradeState state;
    std::string_view db;
};

constexpr std::array k_upgrade_states = {
    UpgradeStateName{UpgradeState::InProgress, "IN_PROGRESS"},
    UpgradeStateName{UpgradeState::Succeeded, "SUCCEEDED"},
    UpgradeStateName{UpgradeState::Failed, "FAILED"},
    UpgradeStateName{UpgradeState::RolledBack, "ROLLED_BACK"},
};

} // namespace

std::string_view to_db(KymaProfile profile) {
    return profile == KymaProfile::Production ? "PRODUCTION" : "EVALUATION";
}

std::string_view to_api(KymaProfile profile) {
    return profile == KymaProfile::Production ? "Production" : "Evaluation";
}

std::string_view to_cr(KymaProfile profile) {
    return profile == KymaProfile::Production ? "production" : "evaluation";
}

std::optional<KymaProfile> kyma_profile_from_text(std::string_view text) {
    if (iequals_ascii(text, "evaluation"))
        return KymaProfile::Evaluation;
    if (iequals_ascii(text, "production"))
        return KymaProfile::Production;
    return std::nullopt;
}

std::string_view to_db(UpgradeState state) {
    for (const auto& s : k_upgrade_states)
        if (s.state == state)
            return s.db;
    return "IN_PROGRESS";
}

std::optional<UpgradeState> upgrade_state_from_db(std::string_view text) {
    for (const auto& s : k_upgrade_states)
        if (s.db == text)
            return s.state;
    return std::nullopt;
}

bool is_on_demand_version(std::string_view version) {
    return istarts_with(version, "PR-") || istarts_with(version, "main-") ||
           iequals_ascii(version, "main");
}

} // namespace kprov::engine
