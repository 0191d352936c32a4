// The built binary and the files it keeps secrets in (issue 18, point 7): a state directory and
// database it creates are private whatever the umask, a shared one it did not create gets a
// warning (and keeps its mode), the key file is refused as a symbolic link or when another user
// owns it, and a config file holding a secret that others can read gets a warning.

#include "support/child_process.hpp"
#include "support/skip.hpp"
#include "support/test_databases.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

unsigned lstat_mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

class FilePermissions : public ::testing::Test {
protected:
    // kprov with `args` under umask 022 (as most logins have it), set in the child by a shell,
    // in an environment without settings of ours but `env`.
    kprov::testing::ProcessResult kprov(const std::vector<std::string>& args,
                                        const std::vector<std::string>& env = {}) {
        std::vector<std::string> all = kprov::testing::environment_without_settings();
        all.push_back("HOME=" + m_dir.path());
        all.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        all.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        all.insert(all.end(), env.begin(), env.end());
        std::vector<std::string> argv = {"/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\"",
                                         KPROV_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        return kprov::testing::run_process(argv, all, m_dir.path());
    }

    void write_file(const std::string& path, const std::string& text, mode_t mode) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path) << text;
        ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    }

    testing::TempDir m_dir;
};

TEST_F(FilePermissions, TheStateDirectoryAndDatabaseKprovCreatesArePrivateUnderUmask022) {
    // An operation command creates the store (and then finds no runtime to deprovision).
    const auto opened = kprov({"deprovision", "--yes", "no-such-runtime"});
    ASSERT_EQ(opened.exit_code, 1) << opened.err;
    EXPECT_THAT(opened.err, HasSubstr("runtime \"no-such-runtime\" not found"));
    EXPECT_THAT(opened.err, Not(HasSubstr("warning"))) << "a store kprov made needs none";
    const std::string state = m_dir.file("state");
    EXPECT_EQ(lstat_mode(state), 0700u) << "XDG_STATE_HOME did not exist: kprov made it";
    EXPECT_EQ(lstat_mode(state + "/kprov"), 0700u);
    EXPECT_EQ(lstat_mode(state + "/kprov/kprov.db"), 0600u);
    EXPECT_EQ(lstat_mode(state + "/kprov/kprov.db.key"), 0600u);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
        const std::string file = state + "/kprov/kprov.db" + suffix;
        if (std::filesystem::exists(file)) {
            EXPECT_EQ(lstat_mode(file), 0600u) << file;
        }
    }
}

TEST_F(FilePermissions, ASharedDatabaseAndDirectoryGetAWarningNamingPathAndModeAndKeepTheirMode) {
    const std::string dir = m_dir.file("shared");
    ASSERT_TRUE(std::filesystem::create_directory(dir));
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    const std::string db = dir + "/kprov.db";
    ASSERT_EQ(kprov({"--store", "sqlite://" + db, "migrate"}).exit_code, 0);
    ASSERT_EQ(::chmod(db.c_str(), 0644), 0);

    const auto listed = kprov({"--store", "sqlite://" + db, "list"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_THAT(listed.err, HasSubstr("kprov: warning: the SQLite store " + db +
                                      " is accessible by group or others (mode 0644)"));
    EXPECT_THAT(listed.err, HasSubstr("run: chmod 600 " + db));
    EXPECT_THAT(listed.err, HasSubstr("kprov: warning: the directory of the SQLite store " + dir +
                                      " is accessible by group or others (mode 0755)"));
    EXPECT_THAT(listed.err, HasSubstr("run: chmod 700 " + dir));
    EXPECT_EQ(lstat_mode(db), 0644u) << "a warning, not a chmod";
    EXPECT_EQ(lstat_mode(dir), 0755u);

    const auto quiet = kprov({"--store", "sqlite://" + db, "-q", "list"});
    EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
}

TEST_F(FilePermissions, AKeyFileThatIsASymbolicLinkIsRefused) {
    const std::string db = m_dir.file("store/kprov.db");
    write_file(m_dir.file("elsewhere.key"), "0123456789abcdef0123456789abcdef\n", 0600);
    std::filesystem::create_directories(m_dir.file("store"));
    std::filesystem::create_symlink(m_dir.file("elsewhere.key"), db + ".key");

    const auto opened = kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"});
    EXPECT_EQ(opened.exit_code, 1);
    EXPECT_THAT(opened.err, HasSubstr("kprov: error: key file " + db + ".key is a symbolic link"));
    EXPECT_FALSE(std::filesystem::exists(db)) << "refused before the store was touched";
}

// Issue 32, finding 13: a symlink planted at the SQLite path was followed and the database
// created at its target with mode 0644. It is refused, before anything is created; a linked
// directory is fine, the database is made in it with 0600.
TEST_F(FilePermissions, ADatabasePathThatIsASymbolicLinkIsRefused) {
    const std::string db = m_dir.file("store/kprov.db");
    std::filesystem::create_directories(m_dir.file("store"));
    std::filesystem::create_symlink(m_dir.file("planted.db"), db);
    const auto opened = kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"});
    EXPECT_EQ(opened.exit_code, 1) << opened.err;
    EXPECT_THAT(opened.err,
                HasSubstr("kprov: error: SQLite store " + db + " is a symbolic link (to " +
                          m_dir.file("planted.db") + "), expected a regular file"));
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("planted.db"))) << "created at the target";
    EXPECT_FALSE(std::filesystem::exists(db + ".key"));

    std::filesystem::remove(db);
    std::filesystem::create_symlink(m_dir.file("planted-wal"), db + "-wal");
    const auto wal = kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"});
    EXPECT_EQ(wal.exit_code, 1) << wal.err;
    EXPECT_THAT(wal.err, HasSubstr("the SQLite store's file " + db + "-wal is a symbolic link"));
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("planted-wal")));
}

TEST_F(FilePermissions, ADatabaseInALinkedDirectoryIsCreatedPrivate) {
    std::filesystem::create_directories(m_dir.file("real"));
    ASSERT_EQ(::chmod(m_dir.file("real").c_str(), 0700), 0);
    std::filesystem::create_directory_symlink(m_dir.file("real"), m_dir.file("linked"));
    const std::string db = m_dir.file("linked/kprov.db");
    const auto opened = kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"});
    EXPECT_EQ(opened.exit_code, 1) << opened.err;
    EXPECT_THAT(opened.err, HasSubstr("runtime \"x\" not found"));
    EXPECT_EQ(lstat_mode(m_dir.file("real/kprov.db")), 0600u);
    EXPECT_EQ(lstat_mode(m_dir.file("real/kprov.db.key")), 0600u);
}

TEST_F(FilePermissions, AKeyFileOwnedByAnotherUserIsRefused) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "giving a file to another user needs root";
    const std::string db = m_dir.file("store/kprov.db");
    write_file(db + ".key", "0123456789abcdef0123456789abcdef\n", 0600);
    ASSERT_EQ(::chown((db + ".key").c_str(), 65534, 65534), 0);

    const auto opened = kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"});
    EXPECT_EQ(opened.exit_code, 1);
    EXPECT_THAT(opened.err, HasSubstr("kprov: error: key file " + db +
                                      ".key is owned by uid 65534, expected the user kprov "
                                      "runs as (uid 0) or root"));

    ASSERT_EQ(::chown((db + ".key").c_str(), 0, 0), 0);
    EXPECT_THAT(kprov({"--store", "sqlite://" + db, "deprovision", "--yes", "x"}).err,
                HasSubstr("runtime \"x\" not found"))
        << "root's own is fine";
}

TEST_F(FilePermissions, AConfigFileHoldingASecretThatOthersCanReadGetsAWarning) {
    const std::string config = m_dir.file("config/kprov/config.yaml");
    write_file(config, "database:\n  password: hunter2-secret\n", 0644);
    const auto shared = kprov({"config"});
    ASSERT_EQ(shared.exit_code, 0) << shared.err;
    EXPECT_THAT(shared.err, HasSubstr("kprov: warning: config file " + config +
                                      " holds a secret (database.password) and is readable by "
                                      "group or others (mode 0644); run: chmod 600 " +
                                      config));
    EXPECT_THAT(shared.err + shared.out, Not(HasSubstr("hunter2-secret")));

    ASSERT_EQ(::chmod(config.c_str(), 0600), 0);
    EXPECT_EQ(kprov({"config"}).err, "");

    // A store URL with a password is a secret too; a file without secrets may be shared.
    write_file(config, "store: postgres://kprov:pw-in-url@127.0.0.1:1/db\n", 0640);
    EXPECT_THAT(kprov({"config"}).err, HasSubstr("holds a secret (store)"));
    write_file(config, "log_level: debug\nstore: sqlite:///tmp/x.db\n", 0644);
    EXPECT_EQ(kprov({"config"}).err, "");
}

} // namespace
} // namespace kprov::cli
