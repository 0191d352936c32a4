#include "engine/model.hpp"

#include <array>
#include <cctype>
#include <random>

namespace kprov::engine {
namespace {

struct TypeName {
    OperationType type;
    std::string_view db;
    std::string_view api;
};

constexpr std::array k_types = {
    TypeName{OperationType::Provision, "PROVISION", "Provision"},
    TypeName{OperationType::Upgrade, "UPGRADE", "Upgrade"},
    TypeName{OperationType::Deprovision, "DEPROVISION", "Deprovision"},
    TypeName{OperationType::ReconnectRuntime, "RECONNECT_RUNTIME", "ReconnectRuntime"},
    TypeName{OperationType::UpgradeShoot, "UPGRADE_SHOOT", "UpgradeShoot"},
    TypeName{OperationType::Hibernate, "HIBERNATE", "Hibernate"},
    // The original reports PROVISION_NO_INSTALL as "Provision" (original-provisioner.md §1.3).
    TypeName{OperationType::ProvisionNoInstall, "PROVISION_NO_INSTALL", "Provision"},
    TypeName{OperationType::DeprovisionNoInstall, "DEPROVISION_NO_INSTALL", "DeprovisionNoInstall"},
    TypeName{OperationType::WakeUp, "WAKE_UP", "WakeUp"},
};

struct StateName {
    OperationState state;
    std::string_view db;
    std::string_view api;
};

constexpr std::array k_states = {
    StateName{OperationState::InProgress, "IN_PROGRESS", "InProgress"},
    StateName{OperationState::Succeeded, "SUCCEEDED", "Succeeded"},
    StateName{OperationState::Failed, "FAILED", "Failed"},
};

// Lower case without underscores, so "InProgress", "in_progress" and "IN_PROGRESS" compare equal.
std::string fold(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != '_' && c != '-')
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::string_view to_db(OperationType type) {
    for (const auto& t : k_types)
        if (t.type == type)
            return t.db;
    return "PROVISION";
}

std::optional<OperationType> operation_type_from_db(std::string_view text) {
    for (const auto& t : k_types)
        if (t.db == text)
            return t.type;
    return std::nullopt;
}

std::string_view to_api(OperationType type) {
    for (const auto& t : k_types)
        if (t.type == type)
            return t.api;
    return "Provision";
}

std::string_view to_db(OperationState state) {
    for (const auto& s : k_states)
        if (s.state == state)
            return s.db;
    return "IN_PROGRESS";
}

std::optional<OperationState> operation_state_from_db(std::string_view text) {
    for (const auto& s : k_states)
        if (s.db == text)
            return s.state;
    return std::nullopt;
}

std::string_view to_api(OperationState state) {
    for (const auto& s : k_states)
        if (s.state == state)
            return s.api;
    return "InProgress";
}

std::optional<OperationState> operation_state_from_text(std::string_view text) {
    const std::string folded = fold(text);
    for (const auto& s : k_states)
        if (fold(s.api) == folded)
            return s.state;
    return std::nullopt;
}

std::string new_uuid() {
    thread_local std::mt19937_64 rng{[] {
        std::random_device rd;
        return (static_cast<uint64_t>(rd()) << 32) ^ rd();
    }()};
    std::array<unsigned char, 16> b{};
    for (std::size_t i = 0; i < b.size(); i += 8) {
        const uint64_t r = rng();
        for (std::size_t j = 0; j < 8; ++j)
            b[i + j] = static_cast<unsigned char>(r >> (8 * j));
    }
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40); // version 4
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80); // RFC 4122 variant
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(36);
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out += '-';
        out += k_hex[b[i] >> 4];
        out += k_hex[b[i] & 0x0f];
    }
    return out;
}

} // namespace kprov::engine
