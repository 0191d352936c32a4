#include "engine/model.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <sys/random.h>
#include <system_error>

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
    // All 16 bytes from the kernel's generator (getrandom(2), as /dev/urandom): ids of runtimes
    // and operations made by many processes meet in one database, and a generator seeded per
    // thread would have only as many distinct sequences as its seed has bits.
    std::array<unsigned char, 16> b{};
    for (std::size_t got = 0; got < b.size();) {
        const ssize_t n = getrandom(b.data() + got, b.size() - got, 0);
        if (n < 0 && errno != EINTR)
            throw std::system_error(errno, std::generic_category(), "getrandom");
        if (n > 0)
            got += static_cast<std::size_t>(n);
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
