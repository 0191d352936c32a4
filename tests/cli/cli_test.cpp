// The command line driven in-process through kprov::cli::run, and as the built binary.

#include "cli/app.hpp"
#include "cli_testing.hpp"
#include "support/test_databases.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Every test runs with a private HOME/XDG so no user config or state leaks in.
class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : {"KPROV_STORE", "APP_DATABASE_HOST", "APP_DATABSE_HOST",
                                 "APP_DATABASE_SECRET_KEY", "APP_LOG_LEVEL", "KPROV_LOG_LEVEL"})
            unsetenv(name);
        setenv("HOME", m_dir.path().c_str(), 1);
        setenv("XDG_CONFIG_HOME", m_dir.file("config").c_str(), 1);
        setenv("XDG_STATE_HOME", m_dir.file("state").c_str(), 1);
    }

    Result kprov(std::vector<std::string> args) {
        std::ostringstream out, err;
        Result r;
        r.code = run(args, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }

    testing::TempDir m_dir;
};

const char* const k_commands[] = {
    "provision", "deprovision", "upgrade-shoot", "hibernate",  "wake-up",    "status",
    "operation", "list",        "history",       "kubeconfig", "plan",       "wait",
    "watch",     "serve",       "migrate",       "config",     "completion", "version"};

TEST_F(Cli, HelpListsEveryCommandOfTheContractAndTheExitCodes) {
    const auto r = kprov({"--help"});
    EXPECT_EQ(r.code, 0);
    for (const char* cmd : k_commands)
        EXPECT_THAT(r.out, HasSubstr(std::string(cmd) + " ")) << cmd;
    for (const char* flag :
         {"--store", "--config", "--gardener-kubeconfig", "--gardener-project", "--tenant",
          "--sub-account", "--output", "--log-level", "--quiet", "--verbose"})
        EXPECT_THAT(r.out, HasSubstr(flag)) << flag;
    EXPECT_THAT(r.out, HasSubstr("5  refused: another operation"));
}

TEST_F(Cli, CommandHelpDescribesThatCommand) {
    const auto r = kprov({"migrate", "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr("Create or upgrade the store's schema"));
    EXPECT_THAT(r.out, HasSubstr("runs without APP_DATABASE_SECRET_KEY"));
}

TEST_F(Cli, NoCommandOrAnUnknownOneIsAUsageError) {
    auto r = kprov({});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("kprov: error:"));
    r = kprov({"frobnicate"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("unknown command \"frobnicate\""));
    r = kprov({"--store", "sqlite:///tmp/x.db", "provison"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("did you mean \"provision\"?"));
    r = kprov({"version", "--no-such-flag"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--no-such-flag"));
}

TEST_F(Cli, EveryCommandIsBuiltAndNamesAMissingArgument) {
    for (const char* cmd : {"status", "operation", "history", "kubeconfig", "completion"}) {
        const auto r = kprov({cmd});
        EXPECT_EQ(r.code, 2) << cmd;
        EXPECT_THAT(r.err, HasSubstr("is required")) << cmd;
        EXPECT_THAT(r.err, Not(HasSubstr("not built yet"))) << cmd;
        EXPECT_EQ(r.out, "") << cmd;
    }
}

TEST_F(Cli, VersionPrintsTheVersion) {
    const auto r = kprov({"version"});
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, ::testing::StartsWith("kprov 0."));
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, MigrateCreatesTheSchemaOnceThenIsANoOp) {
    const std::string url = "sqlite://" + m_dir.file("m.db");
    auto first = kprov({"migrate", "--store", url});
    ASSERT_EQ(first.code, 0) << first.err;
    EXPECT_THAT(first.out, HasSubstr("applied 0001_original_schema"));
    EXPECT_THAT(first.out, HasSubstr("applied 0002_kprov_engine"));
    EXPECT_THAT(first.out, HasSubstr("from version 0 to "));
    // Global flags may stand before the command too.
    auto second = kprov({"--store", url, "migrate"});
    ASSERT_EQ(second.code, 0) << second.err;
    EXPECT_THAT(second.out, HasSubstr("nothing to do"));
    EXPECT_THAT(second.out, Not(HasSubstr("applied")));
}

TEST_F(Cli, MigratePostgres) {
    KPROV_FRESH_POSTGRES(db);
    setenv("APP_DATABASE_SECRET_KEY", "0123456789abcdef", 1);
    auto first = kprov({"migrate", "--store", db->url()});
    ASSERT_EQ(first.code, 0) << first.err;
    EXPECT_THAT(first.out, HasSubstr("from version 0 to "));
    EXPECT_THAT(first.out, Not(HasSubstr(":kprov@"))) << "the password must be redacted";
    auto second = kprov({"migrate", "--store", db->url()});
    ASSERT_EQ(second.code, 0) << second.err;
    EXPECT_THAT(second.out, HasSubstr("nothing to do"));
}

TEST_F(Cli, UnknownStoreSchemeListsTheKnownOnes) {
    const auto r = kprov({"migrate", "--store", "mysql://x"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("unknown scheme"));
    EXPECT_THAT(r.err, HasSubstr("sqlite://"));
    EXPECT_THAT(r.err, HasSubstr("postgres://"));
}

TEST_F(Cli, ConfigShowsValuesWithTheirOrigins) {
    setenv("APP_GARDENER_PROJECT", "from-env", 1);
    setenv("APP_DATABASE_SECRET_KEY", "0123456789abcdef", 1);
    const auto r = kprov({"config", "--store", "sqlite:///tmp/x.db"});
    unsetenv("APP_GARDENER_PROJECT");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("from-env"));
    EXPECT_THAT(r.out, HasSubstr("APP_GARDENER_PROJECT"));
    EXPECT_THAT(r.out, HasSubstr("sqlite:///tmp/x.db"));
    EXPECT_THAT(r.out, HasSubstr("--store"));
    EXPECT_THAT(r.out, Not(HasSubstr("0123456789abcdef"))) << "secrets are redacted";
    EXPECT_THAT(r.out, HasSubstr("***"));
}

TEST_F(Cli, InvalidConfigurationIsRefusedNamingVariableAndValue) {
    setenv("APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION", "ten minutes", 1);
    const auto r = kprov({"config"});
    unsetenv("APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION");
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("APP_PROVISIONING_TIMEOUT_CLUSTER_CREATION"));
    EXPECT_THAT(r.err, HasSubstr("ten minutes"));
    EXPECT_EQ(r.out, "");
}

// --- the built binary --------------------------------------------------------------------------

Result run_binary(const std::string& args) {
    const std::string command = std::string(KPROV_BINARY) + " " + args + " 2>&1";
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return r;
    std::array<char, 4096> buf{};
    while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe))
        r.out.append(buf.data(), n);
    const int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

TEST_F(Cli, BinaryRunsVersionHelpAndMigrate) {
    auto r = run_binary("version");
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr("kprov 0."));
    r = run_binary("--help");
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr("upgrade-shoot"));
    r = run_binary("watch");
    EXPECT_EQ(r.code, 1);
    r = run_binary("no-such-command");
    EXPECT_EQ(r.code, 2);
    const std::string db = m_dir.file("bin.db");
    r = run_binary("migrate --store sqlite://" + db);
    EXPECT_EQ(r.code, 0) << r.out;
    std::ifstream key(db + ".key");
    EXPECT_FALSE(key.good()) << "migrate reads and writes no secret, so it makes no key file";
}

} // namespace
} // namespace kprov::cli
