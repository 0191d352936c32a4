#pragma once
// Where the engine's golden files live (tests/engine/golden/), for the shoot builder's and the
// shoot upgrade's tests, and how they are compared or rewritten.
//
// KPROV_UPDATE_GOLDEN=1 makes check() write what the code produced into the golden file (keys
// in the produced order, 2-space indent, a container on one line when that line fits in 100
// columns) instead of comparing; the test then passes. Review `git diff tests/engine/golden`
// before committing: every changed line must be one the change meant to make.
//   KPROV_UPDATE_GOLDEN=1 build/tests/kprov_engine_tests --gtest_filter='Shoot*:*Upgrade*'

#include "support/json_diff.hpp"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kprov::engine::golden {

inline std::string path(const std::string& name) {
    return KPROV_SOURCE_DIR "/tests/engine/golden/" + name;
}

inline bool updating() {
    const char* value = std::getenv("KPROV_UPDATE_GOLDEN");
    return value != nullptr && std::string(value) == "1";
}

/// `value` on one line with ", " and ": " separators, as the hand-written files have them.
inline std::string one_line(const nlohmann::ordered_json& value) {
    if (!value.is_structured() || value.empty())
        return value.dump(-1, ' ', false);
    std::string out;
    if (value.is_object()) {
        for (const auto& [key, member] : value.items())
            out += (out.empty() ? "" : ", ") + nlohmann::json(key).dump() + ": " + one_line(member);
        return "{" + out + "}";
    }
    for (const auto& item : value)
        out += (out.empty() ? "" : ", ") + one_line(item);
    return "[" + out + "]";
}

/// `value` as the golden files are laid out; `column` is where its first character goes.
inline std::string format(const nlohmann::ordered_json& value, std::size_t indent = 0,
                          std::size_t column = 0) {
    const std::string flat = one_line(value);
    if (!value.is_structured() || value.empty() || column + flat.size() <= 100)
        return flat;
    const std::string inner(indent + 2, ' ');
    std::string out = value.is_object() ? "{\n" : "[\n";
    bool first = true;
    if (value.is_object()) {
        for (const auto& [key, member] : value.items()) {
            const std::string head = inner + nlohmann::json(key).dump() + ": ";
            out += (first ? "" : ",\n") + head + format(member, indent + 2, head.size());
            first = false;
        }
    } else {
        for (const auto& item : value) {
            out += (first ? "" : ",\n") + inner + format(item, indent + 2, inner.size());
            first = false;
        }
    }
    return out + "\n" + std::string(indent, ' ') + (value.is_object() ? "}" : "]");
}

/// Compares `actual` with golden file `name`; returns the first difference, nullopt when they
/// agree. With KPROV_UPDATE_GOLDEN=1 writes `actual` there instead and returns nullopt.
inline std::optional<std::string> check(const std::string& name,
                                        const nlohmann::ordered_json& actual) {
    if (updating()) {
        std::ofstream(path(name)) << format(actual) << '\n';
        return std::nullopt;
    }
    return test_support::first_difference(test_support::load_json_file(path(name)),
                                          nlohmann::json::parse(actual.dump()));
}

} // namespace kprov::engine::golden
