// Black-box tests of the kprov-sim executable, and kubectl as an independent client.

#include "cli.hpp"
#include "sim_testing.hpp"
#include "support/skip.hpp"

#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

/// A running kprov-sim process with its stdout on a pipe.
class SimProcess {
public:
    explicit SimProcess(const std::vector<std::string>& args) {
        int out[2];
        if (pipe(out) != 0)
            throw std::runtime_error("pipe");
        m_pid = fork();
        if (m_pid == 0) {
            dup2(out[1], 1);
            close(out[0]);
            close(out[1]);
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 2);
            std::vector<char*> argv;
            std::string bin = KPROV_SIM_BINARY;
            argv.push_back(bin.data());
            std::vector<std::string> copy = args;
            for (auto& a : copy)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(bin.c_str(), argv.data());
            _exit(127);
        }
        close(out[1]);
        m_out = out[0];
    }
    ~SimProcess() {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
        close(m_out);
    }
    /// The first line of stdout, waiting at most `seconds`; "" on timeout.
    std::string first_line(double seconds) {
        std::string line;
        auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int>(seconds * 1000));
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{m_out, POLLIN, 0};
            if (poll(&p, 1, 10) <= 0)
                continue;
            char c;
            if (read(m_out, &c, 1) != 1)
                break;
            if (c == '\n')
                return line;
            line += c;
        }
        return "";
    }
    /// Sends `sig` and returns the exit status (-1 if it did not exit within 5 s).
    int stop(int sig) {
        kill(m_pid, sig);
        for (int i = 0; i < 500; ++i) {
            int status = 0;
            if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return -1;
    }

private:
    pid_t m_pid = -1;
    int m_out = -1;
};

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Runs a shell command; returns its exit code and puts its output (stdout+stderr) in `out`.
int run(const std::string& cmd, std::string& out) {
    out.clear();
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p)
        return -1;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char* k_kubectl = "/usr/bin/kubectl";

} // namespace

TEST(Binary, PrintsItsUrlFirstWithinASecondAndStopsOnSigterm) {
    std::string dir = temp_dir();
    auto start = std::chrono::steady_clock::now();
    SimProcess p({"--listen", "127.0.0.1:0", "--kubeconfig-out", dir + "/kc", "--project", "demo"});
    std::string url = p.first_line(1.0);
    auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << "first line: " << url;
    EXPECT_LT(elapsed, std::chrono::seconds(1));
    std::string kc = read_file(dir + "/kc");
    EXPECT_EQ(yaml_value(kc, "server"), url);
    EXPECT_EQ(yaml_value(kc, "namespace"), "garden-demo");
    Http h(url, yaml_value(kc, "token"));
    EXPECT_EQ(h.get("/apis/core.gardener.cloud/v1beta1/namespaces/garden-demo/shoots").status, 200);
    EXPECT_EQ(p.stop(SIGTERM), 0);
}

TEST(Binary, TlsWritesTheCaAndAClientCertificateAndStopsOnSigint) {
    std::string dir = temp_dir();
    SimProcess p({"--tls", "--kubeconfig-out", dir + "/kc", "--ca-out", dir + "/ca.crt",
                  "--client-cert-out", dir + "/client", "--token", "tok", "--kcp-kubeconfig-out",
                  dir + "/kcp"});
    std::string url = p.first_line(3.0);
    ASSERT_EQ(url.rfind("https://127.0.0.1:", 0), 0u) << url;
    Http cert(url, "", dir + "/ca.crt", dir + "/client.crt", dir + "/client.key");
    EXPECT_EQ(cert.get("/apis/core.gardener.cloud/v1beta1/shoots").status, 200);
    Http token(url, "tok", dir + "/ca.crt");
    EXPECT_EQ(token.get("/version").status, 200);
    // The KCP's kubeconfig: its own path, token and the CA; no token is 401 over TLS.
    std::string kcp = read_file(dir + "/kcp");
    EXPECT_EQ(yaml_value(kcp, "server"), url + "/kcp");
    EXPECT_FALSE(yaml_value(kcp, "certificate-authority-data").empty());
    Http kcp_client(url, yaml_value(kcp, "token"), dir + "/ca.crt");
    EXPECT_EQ(kcp_client.get("/kcp/api/v1/namespaces/kcp-system").status, 200);
    EXPECT_EQ(Http(url, "", dir + "/ca.crt").get("/kcp/api/v1/namespaces").status, 401);
    EXPECT_EQ(token.get("/kcp/api/v1/namespaces").status, 401);
    EXPECT_EQ(p.stop(SIGINT), 0);
}

TEST(Binary, BadFlagsAreUsageErrors) {
    std::string out;
    EXPECT_EQ(run(std::string(KPROV_SIM_BINARY) + " --create-seconds abc", out), 2);
    EXPECT_NE(out.find("--create-seconds"), std::string::npos);
    EXPECT_EQ(run(std::string(KPROV_SIM_BINARY) + " --nope", out), 2);
    EXPECT_EQ(run(std::string(KPROV_SIM_BINARY) + " --help", out), 0);
    EXPECT_NE(out.find("--hibernate-seconds"), std::string::npos);
}

TEST(Cli, ParsesEveryDesignFlag) {
    CliOptions o = parse_cli({"--listen=0.0.0.0:8080",
                              "--create-seconds",
                              "0.5",
                              "--reconcile-seconds",
                              "1",
                              "--delete-seconds",
                              "2",
                              "--hibernate-seconds",
                              "3",
                              "--token",
                              "t",
                              "--tls",
                              "--fail-rate",
                              "0.1",
                              "--latency-ms",
                              "20",
                              "--seed",
                              "s1",
                              "--director-client-id",
                              "id",
                              "--director-client-secret",
                              "sec",
                              "--project",
                              "p"});
    EXPECT_EQ(o.sim.host, "0.0.0.0");
    EXPECT_EQ(o.sim.port, 8080);
    EXPECT_DOUBLE_EQ(o.sim.lifecycle.create_seconds, 0.5);
    EXPECT_DOUBLE_EQ(o.sim.lifecycle.reconcile_seconds, 1);
    EXPECT_DOUBLE_EQ(o.sim.lifecycle.delete_seconds, 2);
    EXPECT_DOUBLE_EQ(o.sim.lifecycle.hibernate_seconds, 3);
    EXPECT_EQ(o.sim.token, "t");
    EXPECT_TRUE(o.sim.tls);
    EXPECT_DOUBLE_EQ(o.sim.fail_rate, 0.1);
    EXPECT_EQ(o.sim.latency_ms, 20);
    EXPECT_EQ(o.sim.lifecycle.seed, "s1");
    EXPECT_EQ(o.sim.director.client_id, "id");
    EXPECT_EQ(o.sim.director.client_secret, "sec");
    EXPECT_EQ(o.sim.project, "p");
    EXPECT_THROW(parse_cli({"--fail-rate", "2"}), std::invalid_argument);
    EXPECT_THROW(parse_cli({"--client-cert-out", "x"}), std::invalid_argument);
}

TEST(Cli, KymaFlags) {
    CliOptions d = parse_cli({});
    EXPECT_DOUBLE_EQ(d.sim.kyma.component_seconds, 1);
    EXPECT_DOUBLE_EQ(d.sim.kyma.backoff_seconds(0), 1); // 10 s x 1/10
    CliOptions o = parse_cli({"--kyma-component-seconds", "0.05", "--kyma-backoff-factor=1"});
    EXPECT_DOUBLE_EQ(o.sim.kyma.component_seconds, 0.05);
    EXPECT_DOUBLE_EQ(o.sim.kyma.backoff_seconds(4), 80);
    EXPECT_THROW(parse_cli({"--kyma-component-seconds", "x"}), std::invalid_argument);
}

class Kubectl : public ::testing::Test {
protected:
    void SetUp() override {
        if (access(k_kubectl, X_OK) != 0)
            KPROV_SKIP_UNLESS_CI(std::string(k_kubectl) +
                                 " is missing: the kubectl interoperability tests need it");
        dir = temp_dir();
        mkdir((dir + "/home").c_str(), 0700);
    }
    /// kubectl with its cache and config in the temporary directory.
    int kubectl(const std::string& kubeconfig, const std::string& args, std::string& out) {
        return run("HOME=" + dir + "/home KUBECONFIG=" + kubeconfig + " " + k_kubectl +
                       " --request-timeout=10s " + args,
                   out);
    }
    std::string dir;
};

TEST_F(Kubectl, GetShootsListsThemAndGetNamespacesWorksOnARuntimeCluster) {
    SimOptions o = fast_options();
    SimFixture f(o);
    std::string kc = dir + "/garden.yaml";
    std::ofstream(kc) << f.sim->gardener_kubeconfig();
    f.http->post(f.shoots(), shoot_body("c1").dump());
    f.http->post(f.shoots(), shoot_body("c2").dump());
    ASSERT_TRUE(eventually([&] {
        return f.http->get(f.shoot("c2"))
                   .json["status"]
                   .value("lastOperation", Json::object())
                   .value("state", "") == "Succeeded";
    }));
    std::string out;
    ASSERT_EQ(kubectl(kc, "get shoots -n garden-dev", out), 0) << out;
    EXPECT_NE(out.find("NAME"), std::string::npos) << out;
    EXPECT_NE(out.find("c1"), std::string::npos) << out;
    EXPECT_NE(out.find("c2"), std::string::npos) << out;
    EXPECT_NE(out.find("Create Succeeded"), std::string::npos) << out;
    ASSERT_EQ(kubectl(kc, "get shoots", out), 0) << out; // the context's namespace
    EXPECT_NE(out.find("c1"), std::string::npos) << out;
    ASSERT_EQ(kubectl(kc, "get shoot c1 -o json", out), 0) << out;
    EXPECT_EQ(Json::parse(out)["spec"]["seedName"], "sim-seed");
    ASSERT_EQ(kubectl(kc, "get seeds", out), 0) << out;
    EXPECT_NE(out.find("sim-seed"), std::string::npos);

    Resp r = f.http->post(f.shoot("c1") + "/adminkubeconfig", "{}");
    std::string rkc = dir + "/runtime.yaml";
    std::ofstream(rkc) << *base64_decode(r.json["status"]["kubeconfig"].get<std::string>());
    ASSERT_EQ(kubectl(rkc, "get namespaces", out), 0) << out;
    EXPECT_NE(out.find("kube-system"), std::string::npos) << out;
    EXPECT_NE(out.find("Active"), std::string::npos) << out;
}

TEST_F(Kubectl, WorksOverHttpsWithTheToken) {
    SimOptions o = fast_options();
    o.tls = true;
    SimFixture f(o);
    std::string kc = dir + "/garden.yaml";
    std::ofstream(kc) << f.sim->gardener_kubeconfig();
    Http h(f.sim->url(), f.sim->token(), temp_file("ca.crt", f.sim->ca_pem()));
    ASSERT_EQ(h.post(f.shoots(), shoot_body("c1").dump()).status, 201);
    std::string out;
    ASSERT_EQ(kubectl(kc, "get shoots", out), 0) << out;
    EXPECT_NE(out.find("c1"), std::string::npos) << out;
    std::string bad = dir + "/bad.yaml";
    std::string text = f.sim->gardener_kubeconfig();
    text.replace(text.find("test-token"), 10, "xxxx-xxxxx");
    std::ofstream(bad) << text;
    EXPECT_NE(kubectl(bad, "get shoots", out), 0) << out;
}
