// Re-encryption of old secrets (StoreBackend::re_encrypt, `kprov migrate --re-encrypt`) and the
// refusal of old formats afterwards (KPROV_REFUSE_LEGACY_SECRETS), on every store: rows seeded
// as the original writes them (AES-CFB, or plaintext with the flag unset) are rewritten in the
// authenticated format and read the same; a rerun rewrites nothing; a row a writer changed
// between the read and the rewrite keeps the writer's value; an interrupted run resumes.

#include "engine/error.hpp"
#include "stores/re_encrypt_rows.hpp"
#include "stores/store_common.hpp"
#include "stores/store_contract.hpp"
#include "stores_testing.hpp"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

using stores::k_key;

using kprov::testing::new_operation;
using store_contract::full_kyma;
using store_contract::full_runtime;
using store_contract::minimal_runtime;
using store_contract::StoreContract;
using stores::OpenOptions;
using stores::ReEncryptedTable;
using stores::ReEncryptOptions;
using stores::ReEncryptReport;
using stores::SchemaCheck;
using stores::SecretCipher;
using stores::StoreBackend;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The original's secret Kyma override: plaintext in the JSON, marked secret only.
const std::string k_plaintext_global =
    R"({"configEntries": [{"key": "legacy.password", "value": "plain-old", "secret": true}, )"
    R"({"key": "global.domainName", "value": "rt.example.com", "secret": false}], )"
    R"("conflictStrategy": "Replace"})";

bool flag_set(const std::optional<std::string>& value) {
    return value == "1" || value == "t" || value == "true";
}

const ReEncryptedTable& table(const ReEncryptReport& report, const std::string& name) {
    for (const auto& t : report.tables)
        if (t.table == name)
            return t;
    throw std::logic_error("no table " + name + " in the report");
}

class ReEncrypt : public StoreContract {
protected:
    std::unique_ptr<StoreBackend> open_with(bool refuse) {
        OpenOptions options;
        options.secret_key = k_key;
        options.schema = SchemaCheck::Migrate;
        options.refuse_legacy_secrets = refuse;
        return stores::open_store(m_url, options);
    }

    // Runtime `a` with Kyma and two administrators, `b` without; then their secrets are made
    // old the way the original left them.
    void seed_old_rows() {
        Runtime a = full_runtime(new_uuid());
        a.kyma = full_kyma(a.id, stored_release());
        m_store->insert_runtime(
            a, new_operation(a.id, OperationType::Provision, kprov::testing::k_t0));
        m_a = a.id;
        Runtime b = minimal_runtime(new_uuid());
        m_store->insert_runtime(
            b, new_operation(b.id, OperationType::Provision, kprov::testing::k_t0));
        m_b = b.id;

        raw("UPDATE cluster SET kubeconfig = '" + m_cipher.encrypt_legacy("kubeconfig: a") +
            "', is_kubeconfig_encrypted = '1' WHERE id = '" + m_a + "'");
        raw("UPDATE cluster SET kubeconfig = 'kubeconfig: b', is_kubeconfig_encrypted = '0' "
            "WHERE id = '" +
            m_b + "'");
        insert_administrator(m_b, "plain@example.com", false);
        insert_administrator(m_b, m_cipher.encrypt_legacy("legacy@example.com"), true);
        raw("UPDATE kyma_config SET global_configuration = '" + k_plaintext_global + "'");
        raw("UPDATE kyma_component_config SET configuration = '{\"configEntries\": [{\"key\": "
            "\"director.token\", \"value\": \"" +
            m_cipher.encrypt_legacy("t0k3n") +
            "\", \"secret\": true, \"encrypted\": true}], \"conflictStrategy\": \"Replace\"}' "
            "WHERE component = 'compass-runtime-agent'");
    }

    void insert_administrator(const std::string& runtime, const std::string& user_id,
                              bool encrypted) {
        raw("INSERT INTO cluster_administrator (id, cluster_id, user_id, is_user_id_encrypted) "
            "VALUES ('" +
            new_uuid() + "', '" + runtime + "', '" + user_id + "', '" + (encrypted ? "1" : "0") +
            "')");
    }

    // Every secret as stored is in the current format, flag set; no plaintext is left.
    void expect_all_current() {
        for (const auto& row : raw("SELECT kubeconfig, is_kubeconfig_encrypted FROM cluster")) {
            EXPECT_THAT(row[0].value_or(""), StartsWith("v2:"));
            EXPECT_TRUE(flag_set(row[1]));
        }
        for (const auto& row :
             raw("SELECT user_id, is_user_id_encrypted FROM cluster_administrator")) {
            EXPECT_THAT(row[0].value_or(""), StartsWith("v2:"));
            EXPECT_TRUE(flag_set(row[1]));
        }
        auto objects = raw("SELECT global_configuration FROM kyma_config");
        for (auto& row : raw("SELECT configuration FROM kyma_component_config"))
            objects.push_back(row);
        for (const auto& row : objects) {
            const auto j = nlohmann::json::parse(row[0].value_or("null"));
            EXPECT_EQ(row[0]->find("plain-old"), std::string::npos) << *row[0];
            for (const auto& e : j.value("configEntries", nlohmann::json::array())) {
                if (!e.value("secret", false))
                    continue;
                EXPECT_TRUE(e.value("encrypted", false)) << e.dump();
                EXPECT_THAT(e.value("value", ""), StartsWith("v2:"));
            }
        }
    }

    SecretCipher m_cipher{k_key};
    std::string m_a, m_b;
};

TEST_P(ReEncrypt, RewritesEveryOldSecretSoItReadsTheSameAndASecondRunRewritesNothing) {
    seed_old_rows();
    const auto a_before = m_store->find_runtime(m_a);
    const auto b_before = m_store->find_runtime(m_b);
    ASSERT_TRUE(a_before && b_before);
    ASSERT_EQ(b_before->kubeconfig, "kubeconfig: b");
    ASSERT_EQ(a_before->kyma->global.entries.at(0).value, "plain-old");

    std::vector<std::string> progress;
    ReEncryptOptions options;
    options.progress = [&](const std::string& line) {
        progress.push_back(line);
    };
    const auto report = m_store->re_encrypt(options);
    EXPECT_EQ(table(report, "cluster").rewritten, 2);
    EXPECT_EQ(table(report, "cluster_administrator").rewritten, 2);
    EXPECT_EQ(table(report, "cluster_administrator").current, 2);
    EXPECT_EQ(table(report, "kyma_config").rewritten, 1);
    EXPECT_EQ(table(report, "kyma_component_config").rewritten, 1);
    EXPECT_EQ(table(report, "kyma_component_config").current, 2);
    EXPECT_FALSE(progress.empty());
    for (const auto& line : progress) {
        EXPECT_EQ(line.find("plain"), std::string::npos) << line;
        EXPECT_EQ(line.find("kubeconfig: "), std::string::npos) << line;
    }

    expect_all_current();
    const auto a_after = m_store->find_runtime(m_a);
    const auto b_after = m_store->find_runtime(m_b);
    EXPECT_EQ(a_after->kubeconfig, "kubeconfig: a");
    EXPECT_EQ(b_after->kubeconfig, "kubeconfig: b");
    EXPECT_EQ(a_after->administrators, a_before->administrators);
    EXPECT_EQ(b_after->administrators, b_before->administrators);
    EXPECT_THAT(b_after->administrators,
                ::testing::UnorderedElementsAre("plain@example.com", "legacy@example.com"));
    EXPECT_EQ(a_after->kyma->global, a_before->kyma->global);
    ASSERT_EQ(a_after->kyma->components.size(), a_before->kyma->components.size());
    for (std::size_t i = 0; i < a_before->kyma->components.size(); ++i)
        EXPECT_EQ(a_after->kyma->components[i].configuration,
                  a_before->kyma->components[i].configuration);
    EXPECT_EQ(a_after->kyma->components[1].configuration.entries.at(0).value, "t0k3n");

    const auto again = m_store->re_encrypt({});
    for (const auto& t : again.tables) {
        EXPECT_EQ(t.rewritten, 0) << t.table;
        EXPECT_EQ(t.unreadable, 0) << t.table;
    }
    EXPECT_EQ(table(again, "cluster").current, 2);
}

TEST_P(ReEncrypt, OnceRefusedAnOldSecretWrittenLaterFailsToReadNamingWhatToRun) {
    seed_old_rows();
    m_store->re_encrypt({});
    auto refusing = open_with(true);
    ASSERT_TRUE(refusing->find_runtime(m_a));
    ASSERT_TRUE(refusing->find_runtime(m_b));

    // As the original (or an older kprov) would write them after the re-encryption.
    raw("UPDATE cluster SET kubeconfig = '" + m_cipher.encrypt_legacy("kubeconfig: b") +
        "' WHERE id = '" + m_b + "'");
    const auto legacy = [&] {
        try {
            (void)refusing->find_runtime(m_b);
        } catch (const StoreError& e) {
            return std::string(e.what());
        }
        return std::string("no StoreError");
    }();
    EXPECT_THAT(legacy, HasSubstr("cluster.kubeconfig:" + m_b));
    EXPECT_THAT(legacy, HasSubstr("AES-CFB"));
    EXPECT_THAT(legacy, HasSubstr("KPROV_REFUSE_LEGACY_SECRETS=true"));
    EXPECT_THAT(legacy, HasSubstr("kprov migrate --re-encrypt"));
    EXPECT_THAT(legacy, Not(HasSubstr("kubeconfig: b")));
    EXPECT_TRUE(open_with(false)->find_runtime(m_b)) << "without the setting it still reads";

    insert_administrator(m_a, "late@example.com", false);
    EXPECT_THROW(
        {
            try {
                (void)refusing->find_runtime(m_a);
            } catch (const StoreError& e) {
                EXPECT_THAT(e.what(), HasSubstr("in plaintext"));
                EXPECT_THAT(e.what(), Not(HasSubstr("late@example.com")));
                throw;
            }
        },
        StoreError);
    raw("DELETE FROM cluster_administrator WHERE user_id = 'late@example.com'");
    ASSERT_TRUE(refusing->find_runtime(m_a));

    raw("UPDATE kyma_config SET global_configuration = '" + k_plaintext_global + "'");
    EXPECT_THROW((void)refusing->find_runtime(m_a), StoreError);
    m_store->re_encrypt({});
    EXPECT_EQ(refusing->find_runtime(m_a)->kyma->global.entries.at(0).value, "plain-old");
}

TEST_P(ReEncrypt, ADryRunCountsAndWritesNothing) {
    seed_old_rows();
    const auto before = raw("SELECT id, user_id FROM cluster_administrator ORDER BY id");
    ReEncryptOptions options;
    options.dry_run = true;
    const auto report = m_store->re_encrypt(options);
    EXPECT_EQ(table(report, "cluster").rewritten, 2);
    EXPECT_EQ(table(report, "cluster_administrator").rewritten, 2);
    EXPECT_EQ(raw("SELECT id, user_id FROM cluster_administrator ORDER BY id"), before);
    EXPECT_EQ(table(m_store->re_encrypt({}), "cluster").rewritten, 2);
}

// Wraps a store's rows: runs `after_batch` once each batch is read, and fails the rewrite after
// `rewrites_allowed` of them, as a run cut short would.
class InterferingRows final : public stores::SecretRows {
public:
    explicit InterferingRows(std::unique_ptr<stores::SecretRows> rows)
        : m_rows(std::move(rows)) {}
    const SecretCipher& cipher() const override { return m_rows->cipher(); }
    std::vector<stores::StoredSecret> batch(const stores::SecretColumn& column,
                                            const std::optional<std::string>& after,
                                            int limit) override {
        auto rows = m_rows->batch(column, after, limit);
        if (after_batch)
            after_batch(column, rows);
        return rows;
    }
    int rewrite(const stores::SecretColumn& column,
                const std::vector<stores::SecretRewrite>& rows) override {
        if (rewrites_allowed-- == 0)
            throw StoreError("the run was interrupted");
        return m_rows->rewrite(column, rows);
    }

    std::function<void(const stores::SecretColumn&, const std::vector<stores::StoredSecret>&)>
        after_batch;
    int rewrites_allowed = 1000;

private:
    std::unique_ptr<stores::SecretRows> m_rows;
};

TEST_P(ReEncrypt, ARowAWriterChangedBetweenTheReadAndTheRewriteKeepsTheWritersValue) {
    seed_old_rows();
    InterferingRows rows(m_store->secret_rows());
    // A worker saves a new kubeconfig (kprov writes the current format) meanwhile.
    rows.after_batch = [&](const stores::SecretColumn& column, const auto& batch) {
        if (std::string(column.table) == "cluster" && !batch.empty())
            raw("UPDATE cluster SET kubeconfig = '" +
                m_cipher.encrypt("kubeconfig: new", stores::kubeconfig_context(m_a)) +
                "', is_kubeconfig_encrypted = '1' WHERE id = '" + m_a + "'");
    };
    const auto report = stores::re_encrypt_rows(rows, {});
    EXPECT_EQ(table(report, "cluster").rewritten, 1);
    EXPECT_EQ(table(report, "cluster").changed_meanwhile, 1);
    EXPECT_EQ(m_store->find_runtime(m_a)->kubeconfig, "kubeconfig: new");
    EXPECT_EQ(m_store->find_runtime(m_b)->kubeconfig, "kubeconfig: b");
    expect_all_current();
}

TEST_P(ReEncrypt, AnInterruptedRunIsResumedByTheNextOne) {
    seed_old_rows();
    for (int i = 0; i < 3; ++i)
        insert_administrator(m_a, m_cipher.encrypt_legacy("more" + std::to_string(i) + "@x.io"),
                             true);
    InterferingRows rows(m_store->secret_rows());
    rows.rewrites_allowed = 3; // both clusters, then one administrator: batches of one row
    ReEncryptOptions one_at_a_time;
    one_at_a_time.batch_size = 1;
    EXPECT_THROW((void)stores::re_encrypt_rows(rows, one_at_a_time), StoreError);
    const auto left = raw("SELECT count(*) FROM cluster_administrator WHERE user_id NOT LIKE "
                          "'v2:%' OR is_user_id_encrypted = '0'");
    EXPECT_EQ(left.at(0).at(0), "4");

    const auto report = m_store->re_encrypt(one_at_a_time);
    EXPECT_EQ(table(report, "cluster").rewritten, 0);
    EXPECT_EQ(table(report, "cluster_administrator").rewritten, 4);
    expect_all_current();
    EXPECT_EQ(m_store->find_runtime(m_a)->administrators.size(), 5u);
}

TEST_P(ReEncrypt, ARowThatDoesNotDecryptIsReportedAndTheOthersAreStillRewritten) {
    seed_old_rows();
    const std::string other_key = "fedcba9876543210fedcba9876543210";
    insert_administrator(m_a, SecretCipher(other_key).encrypt_legacy("x@example.com"), true);
    std::vector<std::string> progress;
    ReEncryptOptions options;
    options.progress = [&](const std::string& line) {
        progress.push_back(line);
    };
    const auto report = m_store->re_encrypt(options);
    EXPECT_EQ(table(report, "cluster_administrator").unreadable, 1);
    EXPECT_EQ(table(report, "cluster_administrator").rewritten, 2);
    EXPECT_EQ(table(report, "cluster").rewritten, 2);
    EXPECT_THAT(::testing::PrintToString(progress), HasSubstr("cannot re-encrypt "
                                                              "cluster_administrator"));
}

INSTANTIATE_TEST_SUITE_P(Stores, ReEncrypt, ::testing::Values("sqlite", "postgres"),
                         [](const auto& param_info) { return param_info.param; });

} // namespace
} // namespace kprov::engine
