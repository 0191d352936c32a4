// Issue 32: files that attack the built kprov. A FIFO or device named *.yaml (finding 8), a
// symlink in an -f directory pointing at a foreign file (finding 9), a runtime file with a
// 30,000-digit number (finding 7) and a stored label of 250,000 digits (finding 6). Every run
// has a limit after which it is killed (exit -1), so a hang fails the test; a crash shows as an
// exit status of 128 and more.

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
#include <unistd.h>

namespace kprov::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Lines no message may ever show: what a foreign file holds.
const std::string k_foreign_secret = "s3cr3t-h4sh";

class HostileFiles : public ::testing::Test {
protected:
    kprov::testing::ProcessResult kprov(std::vector<std::string> args) {
        args.insert(args.begin(), KPROV_BINARY);
        auto env = kprov::testing::environment_without_settings();
        env.push_back("XDG_CONFIG_HOME=" + m_dir.file("config"));
        env.push_back("XDG_STATE_HOME=" + m_dir.file("state"));
        env.push_back("HOME=" + m_dir.path());
        env.push_back("APP_DATABASE_SECRET_KEY=" + k_secret_key);
        return kprov::testing::run_process(args, env, m_dir.path(), std::chrono::seconds(60));
    }
    std::string store_url() const { return "sqlite://" + m_dir.file("kprov.db"); }

    static void expect_no_crash(const kprov::testing::ProcessResult& r) {
        EXPECT_GE(r.exit_code, 0) << "did not end within the limit";
        EXPECT_LT(r.exit_code, 128) << "ended by a signal: " << r.err.substr(0, 2000);
    }

    kprov::testing::TempDir m_dir;
};

// Finding 8: `provision -f` and `apply -f DIR` hung for ever on a FIFO named *.yaml.
TEST_F(HostileFiles, AFifoOrDeviceNamedYamlIsRefusedAtOnce) {
    const auto dir = m_dir.file("runtimes");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/a.yaml") << kprov::testing::example_runtime();
    ASSERT_EQ(mkfifo((dir + "/b.yaml").c_str(), 0600), 0);
    const auto apply = kprov({"apply", "-f", dir, "--gardener-project", "kyma-dev", "--store",
                              store_url(), "--dry-run"});
    expect_no_crash(apply);
    EXPECT_NE(apply.exit_code, 0);
    EXPECT_THAT(apply.err, HasSubstr(dir + "/b.yaml: it is a FIFO (expected a regular file"));

    const auto provision = kprov({"provision", "-f", dir + "/b.yaml", "--gardener-project",
                                  "kyma-dev", "--tenant", "t", "--store", store_url()});
    expect_no_crash(provision);
    EXPECT_NE(provision.exit_code, 0);
    EXPECT_THAT(provision.err, HasSubstr("it is a FIFO"));

    const auto device = kprov({"plan", "-f", "/dev/zero", "--gardener-project", "kyma-dev"});
    expect_no_crash(device);
    EXPECT_THAT(device.err, HasSubstr("cannot read /dev/zero: it is a character device"));
}

// Finding 9: a symlinked *.yaml in an -f directory was followed to /etc/shadow and its lines
// printed as field names. A symlink is followed only to a regular file, and a file that is not
// a runtime file is named, not shown.
TEST_F(HostileFiles, ASymlinkToAForeignFileIsNamedNotShown) {
    const auto dir = m_dir.file("runtimes");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/a.yaml") << kprov::testing::example_runtime();
    // Shaped like /etc/shadow, and like a config file whose lines read as YAML fields.
    const auto shadow = m_dir.file("shadow");
    std::ofstream(shadow) << "root:$6$" << k_foreign_secret << ":19000:0:99999:7:::\n"
                          << "daemon:*:19000:0:99999:7:::\n";
    const auto fields = m_dir.file("credentials");
    std::ofstream(fields) << "password: " << k_foreign_secret << "\n"
                          << k_foreign_secret << "-as-a-key: 1\n";
    const auto json_like = m_dir.file("foreign.json");
    std::ofstream(json_like) << "{" << k_foreign_secret << "\n";
    std::filesystem::create_symlink(shadow, dir + "/b.yaml");
    std::filesystem::create_symlink(fields, dir + "/c.yaml");
    std::filesystem::create_symlink(json_like, dir + "/d.json");
    ASSERT_EQ(mkfifo(m_dir.file("fifo").c_str(), 0600), 0);
    std::filesystem::create_symlink(m_dir.file("fifo"), dir + "/e.yaml");
    std::filesystem::create_symlink("/etc/shadow", dir + "/f.yaml");
    for (const std::string file : {"b.yaml", "c.yaml", "d.json", "e.yaml", "f.yaml"}) {
        SCOPED_TRACE(file);
        const auto r = kprov({"plan", "-f", dir + "/" + file, "--gardener-project", "kyma-dev"});
        expect_no_crash(r);
        EXPECT_NE(r.exit_code, 0);
        EXPECT_THAT(r.err, HasSubstr(dir + "/" + file));
        EXPECT_THAT(r.err + r.out, Not(HasSubstr(k_foreign_secret)));
        EXPECT_THAT(r.err + r.out, Not(HasSubstr("daemon")));
        EXPECT_THAT(r.err + r.out, Not(HasSubstr("root:")));
    }
    const auto apply = kprov({"apply", "-f", dir, "--gardener-project", "kyma-dev", "--store",
                              store_url(), "--dry-run"});
    expect_no_crash(apply);
    EXPECT_NE(apply.exit_code, 0);
    EXPECT_THAT(apply.err + apply.out, Not(HasSubstr(k_foreign_secret)));
    EXPECT_THAT(apply.err + apply.out, Not(HasSubstr("daemon")));
    const auto plan = kprov({"plan", "-f", dir + "/c.yaml", "--gardener-project", "kyma-dev"});
    EXPECT_THAT(plan.err, HasSubstr("is not a runtime or upgrade file: none of its 2 top-level "
                                    "fields is runtimeInput"));
}

// Finding 7: a runtime file with a 30,000-digit plain number crashed plan, apply and
// provision (std::regex recursed once per digit).
TEST_F(HostileFiles, AThirtyThousandDigitNumberIsAValidationErrorNotACrash) {
    std::string text = kprov::testing::example_runtime();
    const std::string field = "autoScalerMin: 2";
    ASSERT_NE(text.find(field), std::string::npos);
    text.replace(text.find(field), field.size(), "autoScalerMin: " + std::string(30'000, '7'));
    const auto dir = m_dir.file("runtimes");
    std::filesystem::create_directories(dir);
    const auto file = dir + "/huge-number.yaml";
    std::ofstream(file) << text;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"plan", "-f", file},
             {"apply", "-f", dir, "--store", store_url(), "--dry-run"},
             {"provision", "-f", file, "--tenant", "t", "--store", store_url()}}) {
        auto full = args;
        full.insert(full.end(), {"--gardener-project", "kyma-dev"});
        const auto r = kprov(full);
        SCOPED_TRACE(args[0]);
        expect_no_crash(r);
        EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 2000);
        EXPECT_THAT(r.err, HasSubstr("autoScalerMin"));
    }
}

// Finding 6: a 250,000-digit label (set through the API) crashed `list -o yaml` and
// `status -o yaml`, which decided whether to quote it with std::regex.
TEST_F(HostileFiles, AQuarterMillionDigitLabelIsShownInYaml) {
    const std::string digits(250'000, '9');
    std::string id;
    {
        stores::OpenOptions options;
        options.secret_key = k_secret_key;
        options.schema = stores::SchemaCheck::Migrate;
        auto store = stores::open_store(store_url(), options);
        auto runtime = kprov::testing::small_runtime();
        runtime.labels_json = "{\"big\":\"" + digits + "\"}";
        id = runtime.id;
        store->insert_runtime(runtime, kprov::testing::new_operation(runtime.id));
    }
    for (const char* command : {"list", "status"}) {
        SCOPED_TRACE(command);
        std::vector<std::string> args = {command};
        if (std::string(command) == "status")
            args.push_back(id);
        args.insert(args.end(), {"-o", "yaml", "--store", store_url()});
        const auto r = kprov(args);
        expect_no_crash(r);
        EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
        // Quoted: plain, it would read back as a number.
        EXPECT_THAT(r.out, HasSubstr("big: \"" + digits + "\""));
    }
}

} // namespace
} // namespace kprov::cli
