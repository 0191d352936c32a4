// Re-encryption on PostgreSQL: the rows of the secret columns, read in id order and rewritten
// with compare-and-set, a batch per transaction (re_encrypt_rows.hpp has the logic). Under READ
// COMMITTED an UPDATE whose row another transaction changed re-checks its WHERE clause on the
// new version, so a worker's newer value is never overwritten.

#include "stores/postgres_rows.hpp"
#include "stores/postgres_store.hpp"
#include "stores/re_encrypt_rows.hpp"

namespace kprov::stores::pg {
namespace {

// A configuration object is jsonb; its text is compared and written through a cast.
std::string value_type(const SecretColumn& column) {
    return column.flag ? "" : "::jsonb";
}

class Rows final : public SecretRows {
public:
    Rows(ConnectionPool& pool, const SecretCipher& cipher)
        : m_pool(pool)
        , m_cipher(cipher) {}

    const SecretCipher& cipher() const override { return m_cipher; }

    std::vector<StoredSecret> batch(const SecretColumn& column,
                                    const std::optional<std::string>& after, int limit) override {
        const std::string flag = column.flag ? column.flag : "false";
        const std::string sql = std::string("SELECT id::text, ") + column.context + "::text, " +
                                column.value + "::text, " + flag + " FROM " + column.table +
                                " WHERE " + column.value +
                                " IS NOT NULL AND ($1::uuid IS NULL OR id > $1::uuid) "
                                "ORDER BY id LIMIT $2::integer";
        const auto result = m_pool.run([&](pqxx::connection& c) {
            return exec_alone(c, sql, {after, std::to_string(limit)});
        });
        std::vector<StoredSecret> out;
        for (const auto& r : result) {
            const PqxxRow row(r);
            out.push_back({row.text(0), row.text(1), row.text(2), row.boolean(3)});
        }
        return out;
    }

    int rewrite(const SecretColumn& column, const std::vector<SecretRewrite>& rows) override {
        const std::string table = column.table, value = column.value, type = value_type(column);
        const std::string sql =
            "UPDATE " + table + " SET " + value + " = $1" + type +
            (column.flag ? std::string(", ") + column.flag + " = true" : std::string()) +
            " WHERE id = $2::uuid AND " + value + " = $3" + type +
            (column.flag ? std::string(" AND ") + column.flag + " = $4::boolean" : std::string());
        return m_pool.run([&](pqxx::connection& c) {
            pqxx::work tx(c);
            int written = 0;
            for (const auto& row : rows) {
                Params params = {row.value, row.old.id, row.old.value};
                if (column.flag)
                    params.emplace_back(row.old.flag ? "true" : "false");
                written += static_cast<int>(exec(tx, sql, params).affected_rows());
            }
            tx.commit();
            return written;
        });
    }

private:
    ConnectionPool& m_pool;
    const SecretCipher& m_cipher;
};

} // namespace

std::unique_ptr<SecretRows> PostgresStore::secret_rows() {
    return std::make_unique<Rows>(m_pool, m_cipher);
}

} // namespace kprov::stores::pg
