#pragma once
// Field-by-field comparison of JSON documents for golden tests: says where two documents first
// differ instead of dumping both.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kprov::test_support {

/// The first difference between `expected` and `actual`, as
/// "spec.provider.workers[0].zones[1]: expected \"b\", got \"c\"" (missing keys: "got nothing";
/// extra keys: "unexpected key"); nullopt when they are equal. Object keys are compared in
/// sorted order, arrays element by element; numbers compare by value (4 == 4u == 4.0).
std::optional<std::string> first_difference(const nlohmann::json& expected,
                                            const nlohmann::json& actual);

/// Reads and parses a JSON file; throws std::runtime_error naming the file when it cannot.
nlohmann::json load_json_file(const std::string& path);

} // namespace kprov::test_support
