#pragma once
// The Kyma release artifacts kprov-sim serves at /sim/kyma-releases/<version>/<file> (for the
// demo and users' CI): kyma-installer-cluster.yaml and, for Kyma < 1.14, tiller.yaml, each a
// multi-document YAML joined by exactly "\n---\n" (kyma-installation.md §1.5).

#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

/// The released versions served (on-demand versions come on top, see below).
const std::vector<std::string>& kyma_release_versions();
/// True for an on-demand version: "PR-<n>", "main-<sha>", or "main" (case-insensitive).
bool is_on_demand_kyma_version(const std::string& version);
/// The text of `file` of `version`; nullopt for an unknown version or a file it lacks.
std::optional<std::string> kyma_release_artifact(const std::string& version,
                                                 const std::string& file);

} // namespace kprov::sim
