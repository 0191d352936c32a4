#pragma once
// A readable difference between two JSON documents: `kprov plan RUNTIME_ID -f FILE` and the
// spec half of drift (engine/rules/drift.hpp).

#include <string>
#include <string_view>
#include <vector>

namespace kprov::engine {

/// One line per changed leaf, in document order:
///   "~ spec.kubernetes.version: \"1.29.2\" -> \"1.30.1\""
///   "+ spec.provider.workers[0].volume.size: \"80Gi\""
///   "- spec.kubernetes.allowPrivilegedContainers: true"
/// Arrays are compared element by element. Paths listed in `ignore` (and everything under
/// them) are left out. Empty when the documents are equal.
std::vector<std::string> json_diff(std::string_view before, std::string_view after,
                                   const std::vector<std::string>& ignore = {});

} // namespace kprov::engine
