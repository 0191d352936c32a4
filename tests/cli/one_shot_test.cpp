// What a new user meets first (issue 20, part B): the README's "Using kprov" block run as it is,
// missing settings named, a Gardener that does not answer reported before anything is stored,
// operation commands that make progress without a daemon, `kprov cancel`, and SIGTERM during
// --wait. Against kprov-sim, in-process and through the built binary.

#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/operations_fixture.hpp"
#include "cli/progress.hpp"
#include "engine/util/thread_log_fields.hpp"
#include "support/child_process.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace kprov::cli {
namespace {

using namespace optest;
using ::testing::Not;
using Steady = std::chrono::steady_clock;

// A loopback port nothing listens on (bound, then closed again).
int closed_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    close(fd);
    return ntohs(address.sin_port);
}

// A kubeconfig for `server` with a bearer token.
std::string write_kubeconfig(const std::string& path, const std::string& server,
                             const std::string& token) {
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                           "    server: "
                        << server
                        << "\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
                           "current-context: c\nusers:\n- name: u\n  user: {token: "
                        << token << "}\n";
    return path;
}

// The first ```sh block after the heading "## Using kprov" in README.md.
std::string readme_using_block() {
    std::ifstream in(KPROV_SOURCE_DIR "/README.md");
    std::string line, block;
    bool in_section = false, in_block = false;
    while (std::getline(in, line)) {
        if (!in_section) {
            in_section = line == "## Using kprov";
            continue;
        }
        if (!in_block) {
            in_block = line == "```sh";
            continue;
        }
        if (line == "```")
            return block;
        block += line + "\n";
    }
    return {};
}

class OneShot : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }

    // The environment of a child kprov: only this test's settings, in this test's directories.
    std::vector<std::string> child_env() const {
        auto env = kprov::testing::environment_without_settings();
        const auto dir = std::filesystem::path(KPROV_BINARY).parent_path().string();
        const auto sim_dir = std::filesystem::path(KPROV_SIM_BINARY).parent_path().string();
        for (auto& entry : env)
            if (entry.rfind("PATH=", 0) == 0)
                entry = "PATH=" + dir + ":" + sim_dir + ":" + entry.substr(5);
        for (auto& entry : env)
            if (entry.rfind("HOME=", 0) == 0 || entry.rfind("TMPDIR=", 0) == 0)
                entry = "UNUSED_" + entry;
        env.push_back("HOME=" + m_dir.path());
        env.push_back("TMPDIR=" + m_dir.path());
        env.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        return env;
    }
};

TEST_P(OneShot, ProvisionWithoutWaitCreatesTheShootAndWaitFinishesIt) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json status = json::parse(r.out);
    EXPECT_EQ(status["state"], "InProgress");
    const std::string op_id = status["id"];
    EXPECT_TRUE(shoot(name).has_value()) << "the shoot is created before provision returns";
    const auto stored = stored_operation(op_id);
    EXPECT_NE(stored.stage, "CreatingShoot");
    EXPECT_FALSE(stored.lease.has_value()) << "anyone may pick it up at once";
    EXPECT_THAT(r.err, HasSubstr("kprov wait " + op_id));
    EXPECT_THAT(r.err, HasSubstr("kprov watch"));
    EXPECT_THAT(r.err, HasSubstr("Gardener goes on"));

    r = kprov({"wait", op_id, "-o", "name"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, op_id + "\n");
    expect_succeeded(status["runtimeID"], OperationType::ProvisionNoInstall,
                     {"CreatingBindingsForOperators"});
}

TEST_P(OneShot, CancelFreesARuntimeWhoseShootNeverGetsReady) {
    sim_post("/sim/settings", {{"createSeconds", 3600}});
    const auto [file, name] = runtime_file("aws");
    auto r = kprov({"provision", "-f", file, "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json status = json::parse(r.out);
    const std::string op_id = status["id"];
    const std::string runtime_id = status["runtimeID"];
    ASSERT_TRUE(shoot(name).has_value());

    // Another process holds it: refused, naming the holder, unless --force.
    ASSERT_TRUE(m_store->claim(op_id, "watch-elsewhere-1", SystemClock().now(), 60s));
    r = kprov({"cancel", op_id});
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_THAT(r.err, HasSubstr("watch-elsewhere-1"));
    EXPECT_THAT(r.err, HasSubstr("--force"));
    EXPECT_EQ(stored_operation(op_id).state, OperationState::InProgress);

    r = kprov({"cancel", op_id, "--force", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["state"], "Failed");
    const auto op = stored_operation(op_id);
    EXPECT_EQ(op.state, OperationState::Failed);
    EXPECT_THAT(op.message, HasSubstr("cancelled by "));
    EXPECT_EQ(op.last_error.reason, "Cancelled");
    EXPECT_FALSE(op.lease.has_value());
    EXPECT_TRUE(op.end_timestamp.has_value());
    const auto transitions = m_store->transitions_of(op_id);
    ASSERT_FALSE(transitions.empty());
    EXPECT_EQ(transitions.back().state, OperationState::Failed);
    EXPECT_THAT(transitions.back().message, HasSubstr("cancelled by "));
    EXPECT_TRUE(shoot(name).has_value()) << "Gardener is left as it is";

    r = kprov({"cancel", op_id});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("Failed already"));
    r = kprov({"cancel", "no-such-operation"});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("not found"));

    // The runtime is free again.
    r = kprov({"deprovision", runtime_id, "--yes", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(shoot(name).has_value());
    EXPECT_TRUE(m_store->find_runtime(runtime_id)->deleted);
}

TEST_P(OneShot, MissingSettingsNameTheFlagTheVariableAndTheKey) {
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov_raw(
        {"provision", "-f", file, "--store", m_store_url, "--gardener-project", k_project});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("no Gardener kubeconfig set"));
    EXPECT_THAT(r.err, HasSubstr("--gardener-kubeconfig"));
    EXPECT_THAT(r.err, HasSubstr("APP_GARDENER_KUBECONFIG_PATH"));
    EXPECT_THAT(r.err, HasSubstr("config key gardener.kubeconfig_path"));

    r = kprov_raw({"provision", "-f", file, "--store", m_store_url, "--gardener-kubeconfig",
                   m_dir.file("missing.yaml"), "--gardener-project", k_project});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("missing.yaml"));
    EXPECT_THAT(r.err, HasSubstr("APP_GARDENER_KUBECONFIG_PATH"));

    r = kprov_raw({"provision", "-f", file, "--store", m_store_url, "--gardener-kubeconfig",
                   m_sim->kubeconfig.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("no Gardener project set"));
    EXPECT_THAT(r.err, HasSubstr("--gardener-project"));
    EXPECT_THAT(r.err, HasSubstr("APP_GARDENER_PROJECT"));
    EXPECT_THAT(r.err, HasSubstr("config key gardener.project"));
    EXPECT_THAT(r.err, Not(HasSubstr("too long")));

    unsetenv("KPROV_TENANT");
    r = kprov({"provision", "-f", file});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("--tenant, KPROV_TENANT or config key tenant"));
    EXPECT_TRUE(all_runtimes().empty());
}

TEST_P(OneShot, RefusedCredentialsFailBeforeAnythingIsStored) {
    const auto [file, name] = runtime_file("gcp");
    const std::string wrong =
        write_kubeconfig(m_dir.file("wrong-token.yaml"), m_sim->url, "not-the-token");
    const auto r = kprov_raw({"provision", "-f", file, "--store", m_store_url,
                              "--gardener-kubeconfig", wrong, "--gardener-project", k_project});
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr("refused the credentials"));
    EXPECT_THAT(r.err, HasSubstr(wrong));
    EXPECT_THAT(r.err, HasSubstr(m_sim->url));
    EXPECT_THAT(r.err, HasSubstr("APP_GARDENER_KUBECONFIG_PATH"));
    EXPECT_THAT(r.err, Not(HasSubstr("not-the-token"))) << "never a secret";
    EXPECT_TRUE(all_runtimes().empty());
    EXPECT_FALSE(shoot(name).has_value());
}

INSTANTIATE_TEST_SUITE_P(Stores, OneShot, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

class OneShotBinary : public OneShot {};

TEST_P(OneShotBinary, AnUnreachableGardenerExitsWithinTenSecondsWithNothingStored) {
    const auto [file, name] = runtime_file("gcp");
    const std::string server = "http://127.0.0.1:" + std::to_string(closed_port());
    const std::string kubeconfig = write_kubeconfig(m_dir.file("closed.yaml"), server, "t");
    const auto started = Steady::now();
    const auto r = kprov::testing::run_process(
        {KPROV_BINARY, "provision", "-f", file, "--store", m_store_url, "--gardener-kubeconfig",
         kubeconfig, "--gardener-project", k_project, "--tenant", "ga-1"},
        child_env(), m_dir.path(), 30s);
    EXPECT_LT(Steady::now() - started, 10s);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("does not answer"));
    EXPECT_THAT(r.err, HasSubstr(server));
    EXPECT_THAT(r.err, HasSubstr(kubeconfig));
    EXPECT_THAT(r.err, HasSubstr("--gardener-kubeconfig"));
    const auto listed = kprov::testing::run_process(
        {KPROV_BINARY, "list", "-o", "name", "--store", m_store_url}, child_env(), m_dir.path());
    EXPECT_EQ(listed.out, "") << listed.err;
    EXPECT_TRUE(all_runtimes().empty());
}

TEST_P(OneShotBinary, SigtermDuringWaitSaysWhatFinishesTheOperation) {
    sim_post("/sim/settings", {{"createSeconds", 3600}});
    const auto [file, name] = runtime_file("gcp");
    kprov::testing::ChildProcess child({KPROV_BINARY, "provision", "-f", file, "--wait", "-o",
                                        "name", "--store", m_store_url, "--gardener-kubeconfig",
                                        m_sim->kubeconfig.string(), "--gardener-project", k_project,
                                        "--tenant", "ga-1"},
                                       child_env(), m_dir.file("wait.out"), m_dir.file("wait.err"));
    for (int i = 0; i < 300 && !shoot(name); ++i)
        std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(shoot(name).has_value()) << testing::read_text(m_dir.file("wait.err"));
    std::this_thread::sleep_for(500ms);
    child.signal(SIGTERM);
    const auto code = child.wait_for(20s);
    ASSERT_TRUE(code.has_value());
    const std::string err = testing::read_text(m_dir.file("wait.err"));
    EXPECT_EQ(*code, 143) << err;
    EXPECT_THAT(err, HasSubstr("terminated (SIGTERM)"));
    const std::string op_id = testing::read_text(m_dir.file("wait.out")).substr(0, 36);
    EXPECT_THAT(err, HasSubstr("kprov wait " + op_id));
    const auto op = stored_operation(op_id);
    EXPECT_EQ(op.state, OperationState::InProgress);
    EXPECT_FALSE(op.lease.has_value()) << "released: another process can go on at once";

    // Another process picks it up at once and can end it.
    const auto r = kprov({"cancel", op_id});
    EXPECT_EQ(r.code, 0) << r.err;
}

// `script` gives kprov a terminal; COLUMNS says how narrow it is.
TEST_P(OneShotBinary, ANarrowTerminalKeepsOneProgressLineWithoutThePreviousPercentage) {
    if (kprov::testing::run_process({"/bin/sh", "-c", "command -v script"}, child_env(),
                                    m_dir.path())
            .exit_code != 0)
        KPROV_SKIP_UNLESS_CI("script (util-linux) is not installed");
    const auto [file, name] = runtime_file("gcp");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string runtime_id = json::parse(r.out)["runtimeID"];
    sim_post("/sim/settings", {{"reconcileSeconds", 2}});
    auto env = child_env();
    env.push_back("COLUMNS=40");
    const std::string command = std::string(KPROV_BINARY) + " upgrade-shoot " + runtime_id +
                                " -f " + k_examples + "upgrade.yaml --wait -o name --store " +
                                m_store_url + " --gardener-kubeconfig " +
                                m_sim->kubeconfig.string() + " --gardener-project " + k_project;
    const auto run = kprov::testing::run_process(
        {"/usr/bin/env", "script", "-qec", command, "/dev/null"}, env, m_dir.path(), 60s);
    ASSERT_EQ(run.exit_code, 0) << run.out;
    const std::string clear = "\r\033[2K";
    const auto first = run.out.find(clear);
    const auto end = run.out.find("Finished (Succeeded)");
    ASSERT_NE(first, std::string::npos) << run.out;
    ASSERT_NE(end, std::string::npos) << run.out;
    EXPECT_EQ(run.out.substr(first, end - first).find('\n'), std::string::npos)
        << "a redraw left a line behind: " << run.out;
    int redraws = 0;
    for (auto at = first; at != std::string::npos; at = run.out.find(clear, at + 1)) {
        const auto begin = at + clear.size();
        const std::string shown =
            run.out.substr(begin, run.out.find_first_of("\r\n", begin) - begin);
        EXPECT_EQ(fit_columns(shown, 39), shown) << "wider than 39 columns: " << shown;
        if (redraws++ == 0) {
            EXPECT_THAT(shown, Not(HasSubstr("100%"))) << "the provisioning's percentage";
        }
    }
    EXPECT_GT(redraws, 2) << run.out;
}

TEST_P(OneShotBinary, TheReadmeUsingBlockRunsAsItIs) {
    const std::string block = readme_using_block();
    ASSERT_THAT(block, HasSubstr("kprov provision -f examples/gcp.yaml --wait"));
    ASSERT_THAT(block, HasSubstr("kprov-sim"));
    const std::string script = m_dir.file("using.sh");
    std::ofstream(script) << "set -e\ncd " KPROV_SOURCE_DIR "\n" << block;
    const auto r =
        kprov::testing::run_process({"/bin/bash", script}, child_env(), m_dir.path(), 240s);
    EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("error")));
    EXPECT_THAT(r.out, HasSubstr("Succeeded"));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OneShotBinary, ::testing::Values(StoreKind::Sqlite), store_name);

// A repeated log message is written once, then its count.
TEST(LogScope, FoldsARepeatedMessageIntoACount) {
    std::ostringstream out, err;
    Context ctx(GlobalOptions{}, out, err);
    {
        LogScope scope(ctx);
        for (int i = 0; i < 21; ++i)
            scope.logger()->warn("gardener: connection refused after {} ms; resuming the watch",
                                 i * 7);
        scope.logger()->warn("something else");
        scope.logger()->warn("something else");
    }
    EXPECT_EQ(err.str(), "kprov: warning: gardener: connection refused after 0 ms; resuming the "
                         "watch\n"
                         "kprov: warning: (the last message was repeated 20 more times)\n"
                         "kprov: warning: something else\n"
                         "kprov: warning: (the last message was repeated 1 more time)\n");
}

// The command's logger is given, never installed: spdlog's default logger stays as it was, and
// the engine's sink writes to the same place as the logger.
TEST(LogScope, InstallsNothingProcessWide) {
    std::ostringstream out, err;
    Context ctx(GlobalOptions{}, out, err);
    const auto before = spdlog::default_logger();
    {
        LogScope scope(ctx);
        EXPECT_EQ(spdlog::default_logger(), before);
        scope.sink()(engine::LogLevel::Warning, "through the sink");
        scope.logger()->info("through the logger");
        scope.logger()->debug("below the threshold");
    }
    EXPECT_EQ(spdlog::default_logger(), before);
    EXPECT_EQ(err.str(), "kprov: warning: through the sink\n"
                         "kprov: info: through the logger\n");
}

// --- The shapes of log lines (engine_access.hpp) and the fields a thread's scopes give them
// (engine/util/thread_log_fields.hpp).

using std::chrono::system_clock;

// 2026-12-07T13:42:26.123Z
const system_clock::time_point k_time{std::chrono::milliseconds(1796650946123)};

TEST(LogLines, TimeStampsAreRfc3339InUtcWithMilliseconds) {
    EXPECT_EQ(rfc3339_utc(k_time), "2026-12-07T13:42:26.123Z");
    EXPECT_EQ(rfc3339_utc(system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
    EXPECT_EQ(rfc3339_utc(system_clock::time_point{std::chrono::milliseconds(-1)}),
              "1969-12-31T23:59:59.999Z");
}

TEST(LogLines, EachFormatWritesOneLine) {
    const std::vector<engine::LogField> fields = {
        {"runtime", "r-1"}, {"stage", "a"}, {"stage", "b"}};
    EXPECT_EQ(format_log_line(LogLineFormat::Command, "info", k_time, "4 workers started", fields),
              "kprov: info: 4 workers started\n");
    EXPECT_EQ(format_log_line(LogLineFormat::Text, "warning", k_time, "two\nlines", fields),
              "2026-12-07T13:42:26.123Z kprov: warning: two lines\n");
    const std::string line =
        format_log_line(LogLineFormat::JsonLines, "error", k_time, "bad \"x\"\n\xff", fields);
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
    const json object = json::parse(line);
    EXPECT_EQ(line.rfind("{\"ts\":", 0), 0U) << "ts first, for people reading the raw lines";
    EXPECT_EQ(object["ts"], "2026-12-07T13:42:26.123Z");
    EXPECT_EQ(object["level"], "error");
    EXPECT_EQ(object["msg"], "bad \"x\"\n\xef\xbf\xbd") << "invalid UTF-8 replaced";
    EXPECT_EQ(object["runtime"], "r-1");
    EXPECT_EQ(object["stage"], "b") << "the innermost value of a key";
}

TEST(LogLines, AFieldCannotReplaceTsLevelOrMsg) {
    const std::string line = format_log_line(LogLineFormat::JsonLines, "info", k_time, "m",
                                             {{"msg", "forged"}, {"level", "x"}, {"ts", "y"}});
    const json object = json::parse(line);
    EXPECT_EQ(object["msg"], "m");
    EXPECT_EQ(object["level"], "info");
    EXPECT_EQ(object["ts"], "2026-12-07T13:42:26.123Z");
}

TEST(LogFields, ScopesNestAndEndWithTheirBlock) {
    EXPECT_TRUE(engine::log_fields().empty());
    {
        const engine::LogFieldsScope outer({{"component", "worker"}});
        {
            engine::LogFieldsScope inner({{"runtime", "r"}, {"stage", "one"}});
            inner.set("stage", "two");
            inner.set("operation", "o");
            EXPECT_EQ(engine::log_fields(), (std::vector<engine::LogField>{{"component", "worker"},
                                                                           {"runtime", "r"},
                                                                           {"stage", "two"},
                                                                           {"operation", "o"}}));
        }
        EXPECT_EQ(engine::log_fields(), (std::vector<engine::LogField>{{"component", "worker"}}));
    }
    EXPECT_TRUE(engine::log_fields().empty());
}

TEST(LogScope, ADaemonWritesJsonLinesWithTheThreadsFields) {
    std::ostringstream out, err;
    GlobalOptions global;
    global.log_format = "json";
    Context ctx(global, out, err);
    {
        LogScope scope(ctx, LogStyle::Daemon);
        const engine::LogFieldsScope fields({{"operation", "op-1"}});
        scope.logger()->info("stage {} done", "CreatingShoot");
        scope.logger()->info("stage {} done", "WaitingForClusterCreation");
    }
    std::istringstream lines(err.str());
    std::vector<json> objects;
    for (std::string line; std::getline(lines, line);)
        objects.push_back(json::parse(line));
    ASSERT_EQ(objects.size(), 2U) << err.str();
    EXPECT_EQ(objects[0]["msg"], "stage CreatingShoot done");
    EXPECT_EQ(objects[0]["operation"], "op-1");
    EXPECT_EQ(objects[1]["msg"], "stage WaitingForClusterCreation done");
}

TEST(LogScope, ADaemonInTextStampsEveryLineAndACommandDoesNot) {
    std::ostringstream out, err, command_err;
    Context ctx(GlobalOptions{}, out, err);
    {
        LogScope scope(ctx, LogStyle::Daemon);
        scope.logger()->warn("watch down");
    }
    const std::string line = err.str();
    ASSERT_EQ(line.size(), 24 + std::string(" kprov: warning: watch down\n").size()) << line;
    EXPECT_EQ(line.substr(0, 2), "20");
    EXPECT_EQ(line[10], 'T');
    EXPECT_EQ(line[23], 'Z');
    EXPECT_EQ(line.substr(24), " kprov: warning: watch down\n");
    Context command(GlobalOptions{}, out, command_err);
    {
        LogScope scope(command);
        scope.logger()->warn("watch down");
    }
    EXPECT_EQ(command_err.str(), "kprov: warning: watch down\n");
}

} // namespace
} // namespace kprov::cli
