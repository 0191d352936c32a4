#pragma once
// Conventions both stores share, so the two hold the same logical data.

#include <string>
#include <string_view>
#include <vector>

namespace kprov::stores {

/// Cipher contexts: an encrypted value is bound to its column and runtime.
std::string kubeconfig_context(const std::string& cluster_id);
std::string administrator_context(const std::string& cluster_id);

/// dns_providers.domains_include is a comma-joined list (original-provisioner.md §5.3).
std::string join_domains(const std::vector<std::string>& domains);
std::vector<std::string> split_domains(std::string_view joined);

/// A file mode's permission bits in octal, as chmod takes them: "0644".
std::string octal_mode(unsigned mode);

/// How long a PostgreSQL/SQLite caller waits for a lock before giving up with StoreError.
inline constexpr int k_busy_timeout_ms = 10000;

} // namespace kprov::stores
