// `kprov migrate --re-encrypt` and KPROV_REFUSE_LEGACY_SECRETS through the built binary, on
// SQLite and PostgreSQL: old secrets are rewritten (progress on stderr, a summary on stdout,
// nothing secret in either), a rerun rewrites nothing, and once refused, an old secret written
// afterwards fails `kprov status` with a message that says what to run.

#include "cli/store_warning.hpp"
#include "stores/cipher.hpp"
#include "stores/open_store.hpp"
#include "stores/re_encrypt_rows.hpp"
#include "support/child_process.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string k_key = "0123456789abcdef0123456789abcdef";
const std::string k_kubeconfig = "kubeconfig: secret-cli-value";
const std::string k_admin = "admin-secret@example.com";

class ReEncryptCommand : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "sqlite") {
            m_url = "sqlite://" + m_store_dir.file("kprov.db");
        } else {
            KPROV_FRESH_POSTGRES(db);
            m_pg = std::move(db);
            m_url = m_pg->url();
        }
        stores::OpenOptions options;
        options.secret_key = k_key;
        options.schema = stores::SchemaCheck::Migrate;
        m_store = stores::open_store(m_url, options);
    }

    // A runtime whose kubeconfig and administrator are in the original's AES-CFB format, as it
    // writes them (flag set, value Base64(iv || CFB(Base64(plaintext)))).
    std::string seed_legacy_runtime() {
        auto r = kprov::testing::small_runtime();
        r.kubeconfig = k_kubeconfig;
        r.administrators = {k_admin};
        m_store->insert_runtime(
            r, kprov::testing::new_operation(r.id, engine::OperationType::Provision));
        make_legacy(r.id);
        return r.id;
    }

    // Rewrites runtime `id`'s current secrets back into the legacy format.
    void make_legacy(const std::string& id) {
        const auto rows = m_store->secret_rows();
        const stores::SecretCipher cipher(k_key);
        for (const auto& column : stores::secret_columns()) {
            if (!column.value_context)
                continue;
            std::vector<stores::SecretRewrite> rewrites;
            for (const auto& row : rows->batch(column, std::nullopt, 1000))
                if (row.context_id == id && stores::SecretCipher::is_current(row.value))
                    rewrites.push_back(
                        {row, cipher.encrypt_legacy(rows->cipher().decrypt(
                                  row.value, column.value_context(row.context_id)))});
            rows->rewrite(column, rewrites);
        }
    }

    kprov::testing::ProcessResult kprov(std::vector<std::string> args,
                                        const std::vector<std::string>& env = {}) {
        std::vector<std::string> all = kprov::testing::environment_without_settings();
        all.push_back("HOME=" + m_dir.path());
        all.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        all.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        all.push_back("APP_DATABASE_SECRET_KEY=" + k_key);
        all.insert(all.end(), env.begin(), env.end());
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", m_url});
        auto result = kprov::testing::run_process(args, all, m_dir.path());
        result.err = without_store_warning(result.err);
        return result;
    }

    testing::TempDir m_dir;
    testing::TempDir m_store_dir;
    std::unique_ptr<kprov::testing::PostgresDatabase> m_pg;
    std::string m_url;
    std::unique_ptr<stores::StoreBackend> m_store;
};

TEST_P(ReEncryptCommand, RewritesOldSecretsThenARerunRewritesNothing) {
    const auto id = seed_legacy_runtime();
    const auto dry = kprov({"migrate", "--re-encrypt", "--dry-run"});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_THAT(dry.out, HasSubstr("cluster: 1 to rewrite, 0 already current"));

    const auto run = kprov({"migrate", "--re-encrypt"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("is current"));
    EXPECT_THAT(run.out, HasSubstr("cluster: 1 rewritten, 0 already current"));
    EXPECT_THAT(run.out, HasSubstr("cluster_administrator: 1 rewritten, 0 already current"));
    EXPECT_THAT(run.out, HasSubstr("2 rows rewritten in the authenticated format"));
    EXPECT_THAT(run.err, HasSubstr("kprov: re-encrypt: cluster: 1 rows rewritten so far"));
    for (const auto& text : {run.out, run.err, dry.out, dry.err}) {
        EXPECT_THAT(text, Not(HasSubstr("secret-cli-value")));
        EXPECT_THAT(text, Not(HasSubstr(k_admin)));
        EXPECT_THAT(text, Not(HasSubstr(k_key)));
    }
    const auto got = m_store->find_runtime(id);
    EXPECT_EQ(got->kubeconfig, k_kubeconfig);
    EXPECT_EQ(got->administrators, std::vector<std::string>{k_admin});

    const auto again = kprov({"migrate", "--re-encrypt"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_THAT(again.out, HasSubstr("cluster: 0 rewritten, 1 already current"));
    EXPECT_THAT(again.out, HasSubstr("0 rows rewritten"));
}

TEST_P(ReEncryptCommand, WithTheRefusalSetALegacySecretWrittenAfterwardsFailsToRead) {
    const auto id = seed_legacy_runtime();
    ASSERT_EQ(kprov({"migrate", "--re-encrypt"}).exit_code, 0);
    const std::vector<std::string> refuse = {"KPROV_REFUSE_LEGACY_SECRETS=true"};
    const auto fine = kprov({"status", id}, refuse);
    EXPECT_EQ(fine.exit_code, 0) << fine.err;

    make_legacy(id);
    const auto refused = kprov({"status", id}, refuse);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_THAT(refused.err, HasSubstr("kprov: error: the secret cluster.kubeconfig:" + id +
                                       " is stored in the original's unauthenticated format "
                                       "(AES-CFB), which KPROV_REFUSE_LEGACY_SECRETS=true "
                                       "refuses; run `kprov migrate --re-encrypt`"));
    EXPECT_THAT(refused.err, Not(HasSubstr("secret-cli-value")));
    EXPECT_EQ(kprov({"status", id}).exit_code, 0) << "the default still reads old formats";
}

TEST_P(ReEncryptCommand, DryRunWithoutReEncryptIsAUsageError) {
    const auto run = kprov({"migrate", "--dry-run"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_THAT(run.err, HasSubstr("--re-encrypt"));
}

INSTANTIATE_TEST_SUITE_P(Stores, ReEncryptCommand, ::testing::Values("sqlite", "postgres"),
                         [](const auto& param_info) { return param_info.param; });

} // namespace
} // namespace kprov::cli
