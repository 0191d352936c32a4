#pragma once
// Rewriting old secrets in the current format (`kprov migrate --re-encrypt`): what a run is
// asked to do and what it reports. StoreBackend::re_encrypt runs it.

#include <functional>
#include <string>
#include <vector>

namespace kprov::stores {

struct ReEncryptOptions {
    bool dry_run = false; ///< count what would be rewritten; write nothing
    int batch_size = 100; ///< rows read, and rewritten in one transaction, at a time
    /// One line per batch that found old secrets, and one per row that could not be read
    /// (naming its table and id, never a value). May be empty.
    std::function<void(const std::string&)> progress;
};

/// What a run did to one table.
struct ReEncryptedTable {
    std::string table;         ///< "cluster", "cluster_administrator", "kyma_config", ...
    int rewritten = 0;         ///< rows rewritten (with dry_run: that would be)
    int current = 0;           ///< rows that needed nothing (current, or no secret entry)
    int changed_meanwhile = 0; ///< rows another writer changed (or removed) between read and write
    int unreadable = 0;        ///< rows whose old secret did not decrypt (wrong key, corrupted)
};

struct ReEncryptReport {
    std::vector<ReEncryptedTable> tables; ///< every table that holds secrets, in a fixed order
};

} // namespace kprov::stores
