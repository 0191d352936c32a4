// The modes of the files a SQLite store keeps: what kprov creates is private whatever the umask,
// including the -wal and -shm files SQLite adds while the store is open; what it finds shared
// is reported through OpenOptions::warn and left as it is.

#include "engine/error.hpp"
#include "stores/open_store.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kprov::stores {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Sets the umask for the test's lifetime (each test runs in a process of its own under ctest).
class Umask {
public:
    explicit Umask(mode_t mask)
        : m_previous(::umask(mask)) {}
    ~Umask() { ::umask(m_previous); }
    Umask(const Umask&) = delete;
    Umask& operator=(const Umask&) = delete;

private:
    mode_t m_previous;
};

class SqlitePermissions : public ::testing::Test {
protected:
    std::unique_ptr<StoreBackend> open(const std::string& db) {
        OpenOptions options;
        options.schema = SchemaCheck::Migrate;
        options.warn = [this](const std::string& w) {
            m_warnings.push_back(w);
        };
        return open_store("sqlite://" + db, options);
    }

    testing::TempDir m_dir;
    std::vector<std::string> m_warnings;
};

TEST_F(SqlitePermissions, EveryFileAndDirectoryItCreatesIsPrivateUnderUmask022) {
    const Umask umask(022);
    const std::string db = m_dir.file("a/b/kprov.db");
    auto store = open(db);
    const auto r = kprov::testing::small_runtime();
    store->insert_runtime(r, kprov::testing::new_operation(r.id, engine::OperationType::Provision));
    EXPECT_EQ(kprov::testing::file_mode(m_dir.file("a")), 0700u);
    EXPECT_EQ(kprov::testing::file_mode(m_dir.file("a/b")), 0700u);
    for (const std::string& file : {db, db + "-wal", db + "-shm", db + ".key"}) {
        ASSERT_TRUE(std::filesystem::exists(file)) << file;
        EXPECT_EQ(kprov::testing::file_mode(file), 0600u) << file;
    }
    EXPECT_TRUE(m_warnings.empty()) << m_warnings.front();
}

// Issue 32, finding 13: through a linked directory, the database and the -wal and -shm files
// SQLite adds are made at the target with 0600, never 0644.
TEST_F(SqlitePermissions, ThroughALinkedDirectoryEveryFileIsPrivateUnderUmask022) {
    const Umask umask(022);
    std::filesystem::create_directories(m_dir.file("real"));
    std::filesystem::create_directory_symlink(m_dir.file("real"), m_dir.file("linked"));
    auto store = open(m_dir.file("linked/kprov.db"));
    const auto r = kprov::testing::small_runtime();
    store->insert_runtime(r, kprov::testing::new_operation(r.id, engine::OperationType::Provision));
    const std::string db = m_dir.file("real/kprov.db");
    for (const std::string& file : {db, db + "-wal", db + "-shm", db + ".key"}) {
        ASSERT_TRUE(std::filesystem::exists(file)) << file;
        EXPECT_EQ(kprov::testing::file_mode(file), 0600u) << file;
    }
}

TEST_F(SqlitePermissions, ASymbolicLinkAtTheDatabasePathIsRefused) {
    const std::string db = m_dir.file("kprov.db");
    std::filesystem::create_symlink(m_dir.file("target.db"), db);
    EXPECT_THROW(open(db), ConfigError);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("target.db")));
}

TEST_F(SqlitePermissions, AUmaskThatWouldLockTheOwnerOutStillGivesTheOwnerAccess) {
    const Umask umask(0277);
    const std::string db = m_dir.file("locked/kprov.db");
    auto store = open(db);
    EXPECT_EQ(kprov::testing::file_mode(m_dir.file("locked")), 0700u);
    EXPECT_EQ(kprov::testing::file_mode(db), 0600u);
    EXPECT_TRUE(store->list_runtimes({}).empty());
}

TEST_F(SqlitePermissions, ASharedDatabaseIsReportedWithItsModeAndNotChanged) {
    const std::string db = m_dir.file("kprov.db");
    open(db).reset();
    ASSERT_EQ(::chmod(db.c_str(), 0640), 0);
    m_warnings.clear();
    open(db).reset();
    EXPECT_THAT(m_warnings,
                ElementsAre(HasSubstr("the SQLite store " + db +
                                      " is accessible by group or others (mode 0640)")));
    EXPECT_EQ(kprov::testing::file_mode(db), 0640u);
}

// A reader (OpenOptions::create false) opens only a store that is there, and creates nothing.
TEST_F(SqlitePermissions, AReaderCreatesNoDirectoryDatabaseOrKeyFile) {
    OpenOptions reader;
    reader.schema = SchemaCheck::Migrate;
    reader.create = false;
    const std::string db = m_dir.file("a/kprov.db");
    EXPECT_THROW(
        {
            try {
                open_store("sqlite://" + db, reader);
            } catch (const StoreMissing& e) {
                EXPECT_THAT(e.what(), HasSubstr("SQLite store \"" + db + "\" does not exist"));
                throw;
            }
        },
        StoreMissing);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("a")));

    // Made by schema work alone (no key file): a reader opens it without making one.
    OpenOptions migrate;
    migrate.schema = SchemaCheck::None;
    migrate.secrets = Secrets::Unused;
    open_store("sqlite://" + db, migrate)->migrate();
    ASSERT_FALSE(std::filesystem::exists(db + ".key"));
    EXPECT_TRUE(open_store("sqlite://" + db, reader)->list_runtimes({}).empty());
    EXPECT_FALSE(std::filesystem::exists(db + ".key"));
}

TEST(PostgresReader, ADatabaseWithoutKprovsSchemaIsMissingAndStaysEmpty) {
    KPROV_FRESH_POSTGRES(db);
    OpenOptions reader;
    reader.secret_key = "0123456789abcdef";
    reader.create = false;
    try {
        open_store(db->url(), reader);
        FAIL() << "opened";
    } catch (const StoreMissing& e) {
        EXPECT_THAT(e.what(), HasSubstr("holds no kprov schema"));
        EXPECT_THAT(e.what(), ::testing::Not(HasSubstr(":kprov@"))) << "the password is redacted";
    }
    OpenOptions migrate;
    migrate.schema = SchemaCheck::None;
    migrate.secrets = Secrets::Unused;
    EXPECT_EQ(open_store(db->url(), migrate)->schema_version(), 0) << "nothing was created";
}

} // namespace
} // namespace kprov::stores
