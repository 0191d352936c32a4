#include "stores/re_encrypt_rows.hpp"

#include "engine/error.hpp"
#include "stores/kyma_rows.hpp"
#include "stores/open_store.hpp"
#include "stores/store_common.hpp"

#include <algorithm>

namespace kprov::stores {
namespace {

constexpr SecretColumn k_secret_columns[] = {
    {"cluster", "kubeconfig", "is_kubeconfig_encrypted", "id", kubeconfig_context},
    {"cluster_administrator", "user_id", "is_user_id_encrypted", "cluster_id",
     administrator_context},
    {"kyma_config", "global_configuration", nullptr, "id", nullptr},
    {"kyma_component_config", "configuration", nullptr, "id", nullptr},
};

// The row's value in the current format; nullopt when it is in it already.
std::optional<std::string> renewed(const SecretColumn& column, const StoredSecret& row,
                                   const SecretCipher& cipher) {
    if (!column.value_context)
        return renewed_overrides(row.value, cipher, std::string(column.table) + "." + column.value,
                                 row.context_id);
    if (row.flag && SecretCipher::is_current(row.value))
        return std::nullopt;
    const std::string context = column.value_context(row.context_id);
    return cipher.encrypt(row.flag ? cipher.decrypt_any(row.value, context) : row.value, context);
}

void report(const ReEncryptOptions& options, const std::string& line) {
    if (options.progress)
        options.progress(line);
}

ReEncryptedTable re_encrypt_column(SecretRows& rows, const SecretColumn& column,
                                   const SecretCipher& cipher, const ReEncryptOptions& options) {
    ReEncryptedTable out{column.table};
    const int limit = std::max(1, options.batch_size);
    std::optional<std::string> after;
    while (true) {
        const auto batch = rows.batch(column, after, limit);
        if (batch.empty())
            break;
        after = batch.back().id;
        std::vector<SecretRewrite> rewrites;
        for (const auto& row : batch) {
            try {
                if (auto value = renewed(column, row, cipher))
                    rewrites.push_back({row, std::move(*value)});
                else
                    ++out.current;
            } catch (const StoreError& e) {
                // The message names the column and row, never the value; the run goes on so
                // that one bad row does not keep every other from being rewritten.
                ++out.unreadable;
                report(options, std::string("cannot re-encrypt ") + column.table + " " + row.id +
                                    ": " + e.what());
            }
        }
        if (rewrites.empty())
            continue;
        const int written =
            options.dry_run ? static_cast<int>(rewrites.size()) : rows.rewrite(column, rewrites);
        out.rewritten += written;
        out.changed_meanwhile += static_cast<int>(rewrites.size()) - written;
        report(options, std::string(column.table) + ": " + std::to_string(out.rewritten) +
                            (options.dry_run ? " rows to rewrite" : " rows rewritten") + " so far");
        if (static_cast<int>(batch.size()) < limit)
            break;
    }
    return out;
}

} // namespace

std::span<const SecretColumn> secret_columns() {
    return k_secret_columns;
}

ReEncryptReport re_encrypt_rows(SecretRows& rows, const ReEncryptOptions& options) {
    ReEncryptReport out;
    for (const auto& column : secret_columns())
        out.tables.push_back(re_encrypt_column(rows, column, rows.cipher(), options));
    return out;
}

ReEncryptReport StoreBackend::re_encrypt(const ReEncryptOptions& options) {
    return re_encrypt_rows(*secret_rows(), options);
}

} // namespace kprov::stores
