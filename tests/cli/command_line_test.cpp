// The built binary's command line as kubectl, terraform and eksctl users type it (issue 20): a
// store that is not there, --version, -o=FORMAT, kubectl's verbs, --limit, columns that fit.

#include "cli_testing.hpp"
#include "stores/open_store.hpp"
#include "support/child_process.hpp"
#include "support/test_databases.hpp"

#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

class CommandLine : public ::testing::Test {
protected:
    void SetUp() override { fs::create_directories(m_scratch); }

    // The built binary with `args`, a private HOME and XDG directories, and `env` first.
    Result kprov(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
        std::vector<std::string> argv = {KPROV_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        env.insert(env.end(), {"HOME=" + m_dir.path(), "XDG_CONFIG_HOME=" + m_dir.file("config"),
                               "XDG_STATE_HOME=" + m_dir.file("state")});
        for (auto& entry : kprov::testing::environment_without_settings())
            if (entry.rfind("COLUMNS=", 0) != 0 && entry.rfind("HOME=", 0) != 0)
                env.push_back(std::move(entry));
        const auto r = kprov::testing::run_process(argv, env, m_scratch);
        return {r.exit_code, r.out, r.err};
    }

    testing::TempDir m_dir;
    const std::string m_scratch = m_dir.file("scratch");
};

const std::vector<std::vector<std::string>> k_read_commands = {{"list"},
                                                               {"status", "orders"},
                                                               {"history", "orders"},
                                                               {"operation", "0e6d4c1a"},
                                                               {"kubeconfig", "orders"},
                                                               {"wait", "0e6d4c1a"}};

TEST_F(CommandLine, ReadCommandsRefuseAMissingSqliteStoreAndCreateNothing) {
    const std::string path = m_dir.file("wrong/path/x.db");
    for (auto args : k_read_commands) {
        args.insert(args.end(), {"--store", "sqlite://" + path});
        const auto r = kprov(args);
        EXPECT_EQ(r.code, 1) << args[0] << ": " << r.err;
        EXPECT_EQ(r.out, "") << args[0];
        EXPECT_THAT(r.err, HasSubstr("kprov: error: SQLite store \"" + path +
                                     "\" does not exist, expected an existing store (check "
                                     "--store or KPROV_STORE; `kprov migrate` or an operation "
                                     "command such as `kprov provision` creates it)"))
            << args[0];
        EXPECT_FALSE(fs::exists(m_dir.file("wrong"))) << args[0] << " created a directory";
    }
    // In a directory that exists: no database, no key file either.
    const std::string here = m_dir.file("x.db");
    EXPECT_EQ(kprov({"list", "--store", "sqlite://" + here}).code, 1);
    EXPECT_FALSE(fs::exists(here));
    EXPECT_FALSE(fs::exists(here + ".key"));

    // migrate creates it (without a key file); then reading it creates no key file either.
    auto r = kprov({"migrate", "--store", "sqlite://" + path});
    ASSERT_EQ(r.code, 0) << r.err;
    r = kprov({"list", "--store", "sqlite://" + path});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("no runtimes"));
    r = kprov({"status", "orders", "--store", "sqlite://" + path});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("runtime \"orders\" not found"));
    EXPECT_FALSE(fs::exists(path + ".key"));
}

TEST_F(CommandLine, ReadCommandsRefuseAPostgresDatabaseWithoutKprovsSchema) {
    KPROV_FRESH_POSTGRES(db);
    for (auto args : k_read_commands) {
        args.insert(args.end(), {"--store", db->url()});
        const auto r = kprov(args, {"APP_DATABASE_SECRET_KEY=0123456789abcdef"});
        EXPECT_EQ(r.code, 1) << args[0] << ": " << r.err;
        EXPECT_THAT(r.err, HasSubstr("holds no kprov schema (an empty database), expected an "
                                     "existing store (check --store or KPROV_STORE; `kprov "
                                     "migrate` creates its schema)"))
            << args[0];
        EXPECT_THAT(r.err, Not(HasSubstr(":kprov@"))) << "the password is redacted";
    }
    auto r = kprov({"migrate", "--store", db->url()});
    ASSERT_EQ(r.code, 0) << r.err;
    r = kprov({"list", "--store", db->url()}, {"APP_DATABASE_SECRET_KEY=0123456789abcdef"});
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(CommandLine, VersionAsKubectlAndTerraformUsersAskForIt) {
    auto r = kprov({"--version"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, ::testing::StartsWith("kprov 0."));
    const std::string version = r.out.substr(6, r.out.find('\n') - 6);
    r = kprov({"version", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out), (nlohmann::json{{"version", version}}));
    r = kprov({"version", "-o=json", "--long"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto long_version = nlohmann::json::parse(r.out);
    EXPECT_EQ(long_version["version"], version);
    EXPECT_TRUE(long_version["configuration"].is_array());
    r = kprov({"-o=yaml", "version"});
    EXPECT_THAT(r.out, ::testing::StartsWith("version: "));
    EXPECT_THAT(r.out, HasSubstr(version));
    r = kprov({"list", "-o=bogus"});
    EXPECT_EQ(r.code, 2);
}

TEST_F(CommandLine, KubectlVerbsGetASuggestion) {
    for (const auto& [verb, suggestion] :
         std::vector<std::pair<std::string, std::string>>{{"get", "\"status\" or \"list\""},
                                                          {"describe", "\"status\""},
                                                          {"delete", "\"deprovision\""}}) {
        const auto r = kprov({verb, "orders"});
        EXPECT_EQ(r.code, 2) << verb;
        EXPECT_THAT(
            r.err, HasSubstr("unknown command \"" + verb + "\"; did you mean " + suggestion + "?"));
    }
}

TEST_F(CommandLine, ANegativeLimitIsAShortUsageError) {
    const auto r = kprov({"list", "--limit", "-1", "--store", "sqlite://" + m_dir.file("l.db")});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("\"-1\" is not a count (expected 0 or more)"));
    EXPECT_LT(r.err.size(), 160u) << r.err;
    EXPECT_FALSE(fs::exists(m_dir.file("l.db")));
}

// Nothing runs into the origin column, the origins line up, and the lines that end in an origin
// fit 80 columns (but for the origin's source), with keys longer than their column and a value
// longer than a line.
TEST_F(CommandLine, ConfigAndVersionLongColumnsDoNotRunIntoEachOther) {
    const std::string long_path = m_dir.file(std::string(90, 'k') + ".yaml");
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"config"}, {"version", "--long"}}) {
        const auto r = kprov(args, {"COLUMNS=80", "APP_GARDENER_KUBECONFIG_PATH=" + long_path});
        ASSERT_EQ(r.code, 0) << r.err;
        const std::regex run_in(R"(\S(default|environment|flag|file)( \(|$))");
        const std::regex origin(R"(  (default|environment|flag|file)( \([^()]*\))?$)");
        std::istringstream lines(r.out);
        std::optional<std::size_t> column;
        int origins = 0;
        for (std::string line; std::getline(lines, line);) {
            EXPECT_FALSE(std::regex_search(line, run_in)) << line;
            std::smatch m;
            if (!std::regex_search(line, m, origin))
                continue; // a value longer than its column, on a line of its own
            ++origins;
            if (!m[2].matched) {
                EXPECT_LE(line.size(), 80u) << "only an origin's source may go past: " << line;
            }
            const auto at = static_cast<std::size_t>(m.position(0)) + 2;
            if (!column)
                column = at;
            EXPECT_EQ(at, *column) << "origins line up: " << line;
        }
        EXPECT_GT(origins, 10) << r.out;
        ASSERT_TRUE(column.has_value());
        EXPECT_LE(*column + std::string("environment").size(), 80u);
        EXPECT_THAT(r.out, HasSubstr(long_path + "\n"));
    }
}

} // namespace
} // namespace kprov::cli
