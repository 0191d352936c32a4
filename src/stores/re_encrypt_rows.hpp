#pragma once
// Internal to stores/: the dialect-independent part of re-encryption. Each backend reads and
// writes the rows (SecretRows); re_encrypt_rows() decides which rows are old, rewrites them in
// batches and counts.

#include "stores/cipher.hpp"
#include "stores/re_encrypt.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kprov::stores {

/// A column that holds secrets.
struct SecretColumn {
    const char* table;
    const char* value;   ///< the column itself
    const char* flag;    ///< its "is encrypted" flag column; nullptr for a configuration object
    const char* context; ///< the column of the id its cipher context is bound to
    /// The cipher context of a value with a flag (store_common.hpp); nullptr for a
    /// configuration object, whose entries have contexts of their own (kyma_rows.hpp).
    std::string (*value_context)(const std::string& id);
};

/// Every column the stores encrypt, in both schemas: cluster.kubeconfig,
/// cluster_administrator.user_id and the Kyma configuration objects' secret entries.
std::span<const SecretColumn> secret_columns();

/// One row as stored (a row whose value is NULL is not read).
struct StoredSecret {
    std::string id;
    std::string context_id;
    std::string value;
    bool flag = false; ///< the flag column's value; false when the column has none
};

/// A row to rewrite: `value` (flag set) in place of `old`, unless the row has changed.
struct SecretRewrite {
    StoredSecret old;
    std::string value;
};

/// A backend's access to the rows of secret columns.
class SecretRows {
public:
    virtual ~SecretRows() = default;
    /// The store's cipher, with its key.
    virtual const SecretCipher& cipher() const = 0;
    /// Up to `limit` rows of `column` with a non-NULL value and an id above `after` (all rows
    /// when nullopt), in id order.
    virtual std::vector<StoredSecret> batch(const SecretColumn& column,
                                            const std::optional<std::string>& after, int limit) = 0;
    /// In one transaction, writes each rewrite whose row still holds the old value and flag;
    /// returns how many were written.
    virtual int rewrite(const SecretColumn& column, const std::vector<SecretRewrite>& rows) = 0;
};

/// Rewrites every old secret (legacy format, or plaintext with its flag unset) of every secret
/// column in the current format, batch by batch; a row changed meanwhile is left to its
/// writer. A rerun finds what is left. Throws what `rows` throws.
ReEncryptReport re_encrypt_rows(SecretRows& rows, const ReEncryptOptions& options);

} // namespace kprov::stores
