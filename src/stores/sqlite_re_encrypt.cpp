// Re-encryption on SQLite: the rows of the secret columns, read in id order and rewritten with
// compare-and-set in BEGIN IMMEDIATE transactions (re_encrypt_rows.hpp has the logic).

#include "stores/re_encrypt_rows.hpp"
#include "stores/sqlite_store.hpp"

namespace kprov::stores::sqlite {

std::unique_ptr<SecretRows> SqliteStore::secret_rows() {
    // A local class has the member function's access to the store's private helpers.
    class Rows final : public SecretRows {
    public:
        explicit Rows(SqliteStore& store)
            : m_store(store) {}

        const SecretCipher& cipher() const override { return m_store.m_cipher; }

        std::vector<StoredSecret> batch(const SecretColumn& column,
                                        const std::optional<std::string>& after,
                                        int limit) override {
            const std::string flag = column.flag ? column.flag : "0";
            // Ids are text here, and "" sorts before every one of them.
            const std::string sql = std::string("SELECT id, ") + column.context + ", " +
                                    column.value + ", " + flag + " FROM " + column.table +
                                    " WHERE " + column.value +
                                    " IS NOT NULL AND id > ? ORDER BY id LIMIT ?";
            return m_store.read([&] {
                std::vector<StoredSecret> out;
                auto st = m_store.cached(sql, {after.value_or(""), std::int64_t{limit}});
                while (st.executeStep())
                    out.push_back({st.getColumn(0).getString(), st.getColumn(1).getString(),
                                   st.getColumn(2).getString(), st.getColumn(3).getInt64() != 0});
                return out;
            });
        }

        int rewrite(const SecretColumn& column, const std::vector<SecretRewrite>& rows) override {
            const std::string table = column.table, value = column.value;
            const std::string sql = column.flag ? "UPDATE " + table + " SET " + value + " = ?, " +
                                                      column.flag + " = 1 WHERE id = ? AND " +
                                                      value + " = ? AND " + column.flag + " = ?"
                                                : "UPDATE " + table + " SET " + value +
                                                      " = ? WHERE id = ? AND " + value + " = ?";
            return m_store.write([&] {
                int written = 0;
                for (const auto& row : rows) {
                    std::vector<DbValue> params = {row.value, row.old.id, row.old.value};
                    if (column.flag)
                        params.emplace_back(std::int64_t{row.old.flag ? 1 : 0});
                    written += m_store.cached(sql, params).exec();
                }
                return written;
            });
        }

    private:
        SqliteStore& m_store;
    };
    return std::make_unique<Rows>(*this);
}

} // namespace kprov::stores::sqlite
