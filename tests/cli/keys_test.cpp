// The built binary and the secret key: kprov migrate needs none, every other command refuses a
// PostgreSQL store without APP_DATABASE_SECRET_KEY, and a SQLite store gets a key file only
// while it holds no encrypted value.

#include "cli_testing.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/store_fixtures.hpp"
#include "support/test_databases.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class Keys : public ::testing::Test {
protected:
    // kprov with `args` and `--store url`, in an environment without any key or setting of ours.
    kprov::testing::ProcessResult kprov(std::vector<std::string> args, const std::string& url) {
        std::vector<std::string> env = kprov::testing::environment_without_settings();
        env.push_back("HOME=" + m_dir.path());
        env.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        args.insert(args.begin(), KPROV_BINARY);
        args.insert(args.end(), {"--store", url});
        return kprov::testing::run_process(args, env, m_dir.path());
    }

    testing::TempDir m_dir;
    // The SQLite store's own directory, so that its listing holds nothing but the store.
    testing::TempDir m_store_dir;
    std::string m_db = m_store_dir.file("kprov.db");
    std::string m_key_file = m_db + ".key";
};

TEST_F(Keys, MigrateOnPostgresNeedsNoKeyButWatchAndTheOtherCommandsDo) {
    KPROV_FRESH_POSTGRES(db);
    const auto migrated = kprov({"migrate"}, db->url());
    ASSERT_EQ(migrated.exit_code, 0) << migrated.err;
    EXPECT_THAT(migrated.out, HasSubstr("from version 0 to "));

    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"watch"}, std::vector<std::string>{"list"}}) {
        const auto refused = kprov(command, db->url());
        EXPECT_EQ(refused.exit_code, 1) << command[0] << ": " << refused.err;
        EXPECT_THAT(refused.err, HasSubstr("kprov: error: APP_DATABASE_SECRET_KEY is not set"))
            << command[0];
    }
}

TEST_F(Keys, MigrateOnSqliteWithoutAKeyCreatesNoKeyFile) {
    const auto migrated = kprov({"migrate"}, "sqlite://" + m_db);
    ASSERT_EQ(migrated.exit_code, 0) << migrated.err;
    EXPECT_THAT(migrated.out, HasSubstr("from version 0 to "));
    EXPECT_TRUE(std::filesystem::exists(m_db));
    EXPECT_FALSE(std::filesystem::exists(m_key_file));
}

// An operation command opens the store to write (here it then finds no runtime to deprovision).
kprov::testing::ProcessResult expect_opened_to_write(const kprov::testing::ProcessResult& r) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("runtime \"no-such-runtime\" not found"));
    return r;
}

TEST_F(Keys, ANewSqliteStoreGetsAPrivateKeyFileAtFirstUse) {
    expect_opened_to_write(kprov({"deprovision", "--yes", "no-such-runtime"}, "sqlite://" + m_db));
    ASSERT_TRUE(std::filesystem::exists(m_key_file));
    EXPECT_EQ(kprov::testing::file_mode(m_key_file), 0600u);
}

TEST_F(Keys, AMigratedSqliteStoreWithoutSecretsGetsAPrivateKeyFileAtFirstWrite) {
    ASSERT_EQ(kprov({"migrate"}, "sqlite://" + m_db).exit_code, 0);
    ASSERT_FALSE(std::filesystem::exists(m_key_file));
    const auto listed = kprov({"list"}, "sqlite://" + m_db);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_FALSE(std::filesystem::exists(m_key_file)) << "a read command creates no key file";
    expect_opened_to_write(kprov({"deprovision", "--yes", "no-such-runtime"}, "sqlite://" + m_db));
    ASSERT_TRUE(std::filesystem::exists(m_key_file));
    EXPECT_EQ(kprov::testing::file_mode(m_key_file), 0600u);
}

TEST_F(Keys, ASqliteStoreWithSecretsWhoseKeyFileIsGoneIsRefusedAndLeftAsItWas) {
    // A runtime with an administrator, whose user id is encrypted with a new key file.
    engine::Runtime runtime = kprov::testing::small_runtime();
    runtime.administrators = {"admin@example.com"};
    {
        stores::OpenOptions options;
        options.schema = stores::SchemaCheck::Migrate;
        stores::open_store("sqlite://" + m_db, options)
            ->insert_runtime(runtime, kprov::testing::new_operation(runtime.id));
    }
    const std::string key = testing::read_text(m_key_file);
    ASSERT_TRUE(std::filesystem::remove(m_key_file));
    const auto before = m_store_dir.contents();
    ASSERT_EQ(before.size(), 1u) << "the closed store is one file";

    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"status", runtime.id}, std::vector<std::string>{"list"}}) {
        const auto refused = kprov(command, "sqlite://" + m_db);
        EXPECT_EQ(refused.exit_code, 1) << command[0];
        EXPECT_THAT(refused.err,
                    HasSubstr("kprov: error: key file \"" + m_key_file + "\" is missing"))
            << command[0];
        EXPECT_THAT(refused.err, HasSubstr("APP_DATABASE_SECRET_KEY")) << command[0];
        EXPECT_EQ(refused.out, "") << command[0];
    }
    EXPECT_EQ(m_store_dir.contents(), before)
        << "no key file appeared and the database is as it was";

    // With its key back, the store reads as before.
    std::ofstream(m_key_file) << key;
    std::filesystem::permissions(m_key_file, std::filesystem::perms::owner_read |
                                                 std::filesystem::perms::owner_write);
    const auto status = kprov({"status", runtime.id}, "sqlite://" + m_db);
    EXPECT_EQ(status.exit_code, 0) << status.err;
    EXPECT_THAT(status.out, HasSubstr(runtime.id));
    EXPECT_THAT(status.err, Not(HasSubstr("error")));
}

} // namespace
} // namespace kprov::cli
