#pragma once
// Shared by the runtime_input_*.cpp files only: the parser's problems handed to the validator,
// so that one call reports both (read_provision_input, read_upgrade_input).

#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine::detail {

/// A document read as far as it goes: fields that failed to parse are left at their defaults
/// and their paths are in `unparsed` (unknown fields are in `problems` only: they are dropped,
/// and the rest of their object is still good).
template <typename Input> struct Parsed {
    Input input;
    std::vector<FieldProblem> problems;
    std::vector<std::string> unparsed;
};

/// Never throws for a bad document; every problem is in the result.
Parsed<ProvisionInput> parse_provision_document(const nlohmann::json& document);
Parsed<UpgradeShootInput> parse_upgrade_document(const nlohmann::json& document);
Parsed<KymaUpgradeInput> parse_kyma_upgrade_document(const nlohmann::json& document);

/// validate_provision's and validate_upgrade's problems, leaving out those about fields in
/// `unparsed` (their values are placeholders, so a rule about them would only mislead).
std::vector<FieldProblem> provision_problems(const ProvisionInput& input,
                                             const ConversionOptions& options,
                                             const std::vector<std::string>& unparsed);
std::vector<FieldProblem> upgrade_problems(const UpgradeShootInput& input,
                                           const std::vector<std::string>& unparsed);

/// The zone and CIDR problems of the sub-config for cloud `type` in `input` (at `path`, the
/// providerSpecificConfig's path); none when that sub-config is not given.
std::vector<FieldProblem> provider_content_problems(const std::string& path,
                                                    const ProviderInput& input,
                                                    std::string_view type);

} // namespace kprov::engine::detail
