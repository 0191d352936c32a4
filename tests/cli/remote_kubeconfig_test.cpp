// Issue 32, finding 11, against the built binaries: a Gardener that hands out a runtime
// kubeconfig naming a proxy, turning off the certificate check or setting a TLS server name.
// Gardener is kprov-sim behind a front in this test (a HostileServer) that forwards every request
// and rewrites the adminkubeconfig answer; the proxy is a real listening socket that counts the
// connections it gets. The user's own Gardener kubeconfig may name a proxy: kprov uses it.

#include "cli/operations_fixture.hpp"
#include "net/base64.hpp"
#include "support/hostile_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

namespace kprov::cli {
namespace {

using namespace optest;

/// A TCP listener on 127.0.0.1 that accepts and closes every connection, counting them: a proxy
/// nothing may be sent through.
class CountingListener {
public:
    CountingListener() {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            ::listen(m_fd, 64) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
        m_thread = std::thread([this] {
            while (!m_stop) {
                pollfd p{m_fd, POLLIN, 0};
                if (::poll(&p, 1, 50) > 0)
                    accept_one();
            }
        });
    }
    ~CountingListener() {
        stop();
        ::close(m_fd);
    }
    CountingListener(const CountingListener&) = delete;
    CountingListener& operator=(const CountingListener&) = delete;

    /// Every connection made so far, those still waiting in the backlog included.
    int connections() {
        stop();
        while (accept_one()) {
        }
        return m_count;
    }

    std::string url;

private:
    bool accept_one() {
        const int fd = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return false;
        ++m_count;
        ::close(fd);
        return true;
    }
    void stop() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        ::fcntl(m_fd, F_SETFL, O_NONBLOCK);
    }

    int m_fd = -1;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_count{0};
    std::thread m_thread;
};

/// `kubeconfig` (YAML as kprov-sim writes it) with `lines` added to its cluster entry.
std::string with_cluster_lines(std::string kubeconfig, const std::string& lines) {
    const std::string cluster = "\n  cluster:\n";
    const auto at = kubeconfig.find(cluster);
    if (at == std::string::npos)
        throw std::runtime_error("no cluster entry in the kubeconfig");
    kubeconfig.insert(at + cluster.size(), lines);
    return kubeconfig;
}

/// A front of kprov-sim: forwards every request (also as an HTTP proxy, whose request targets
/// are absolute URLs) and passes each answer back, the adminkubeconfig answer with
/// `admin_cluster_lines` in its kubeconfig's cluster entry. Watches are refused, so kprov
/// polls.
class SimFront {
public:
    SimFront(const std::string& sim_url, std::string admin_cluster_lines)
        : m_sim(sim_url)
        , m_lines(std::move(admin_cluster_lines))
        , server(
              [this](const httplib::Request& req, httplib::Response& res) { forward(req, res); }) {}

private:
    void forward(const httplib::Request& req, httplib::Response& res) {
        std::string target = req.target;
        if (target.rfind("http://", 0) == 0) // a proxy's request: http://host:port/path
            target = target.substr(target.find('/', std::string("http://").size()));
        if (target.find("watch=") != std::string::npos) {
            res.status = 500;
            return;
        }
        httplib::Headers headers;
        for (const char* name : {"Authorization", "Accept", "User-Agent"})
            if (req.has_header(name))
                headers.emplace(name, req.get_header_value(name));
        const std::string type = req.get_header_value("Content-Type");
        httplib::Result answer = [&] {
            if (req.method == "GET")
                return m_sim.Get(target.c_str(), headers);
            if (req.method == "POST")
                return m_sim.Post(target.c_str(), headers, req.body, type.c_str());
            if (req.method == "PUT")
                return m_sim.Put(target.c_str(), headers, req.body, type.c_str());
            if (req.method == "PATCH")
                return m_sim.Patch(target.c_str(), headers, req.body, type.c_str());
            return m_sim.Delete(target.c_str(), headers, req.body, type.c_str());
        }();
        if (!answer) {
            res.status = 502;
            return;
        }
        res.status = answer->status;
        std::string body = answer->body;
        if (!m_lines.empty() && req.method == "POST" &&
            target.find("/adminkubeconfig") != std::string::npos && answer->status == 201) {
            json request = json::parse(body);
            const auto text =
                net::base64_decode(request["status"]["kubeconfig"].get<std::string>());
            request["status"]["kubeconfig"] =
                net::base64_encode(with_cluster_lines(text.value_or(""), m_lines));
            body = request.dump();
            ++rewritten;
        }
        res.set_content(body, answer->get_header_value("Content-Type").c_str());
    }

    httplib::Client m_sim;
    std::string m_lines;

public:
    std::atomic<int> rewritten{0};
    kprov::testing::HostileServer server;
};

class RemoteKubeconfig : public OperationsBase {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(KPROV_BINARY))
            KPROV_SKIP_UNLESS_CI("kprov is not built");
        open(StoreKind::Sqlite);
    }

    // The sim's Gardener kubeconfig with its server replaced by `server` and `lines` added to
    // its cluster entry, written to a file of its own.
    std::string gardener_kubeconfig(const std::string& name, const std::string& server,
                                    const std::string& lines = {}) {
        std::string text = kprov::testing::read_text(m_sim->kubeconfig.string());
        const auto at = text.find(m_sim->url);
        if (at == std::string::npos)
            throw std::runtime_error("the sim's kubeconfig does not name " + m_sim->url);
        text.replace(at, m_sim->url.size(), server);
        const std::string path = m_dir.file(name);
        std::ofstream(path) << with_cluster_lines(text, lines);
        return path;
    }
};

struct HostileSetting {
    std::string field;
    std::string lines; // indented as in a cluster entry; PROXY stands for the proxy's URL
};

class RemoteKubeconfigSetting : public RemoteKubeconfig,
                                public ::testing::WithParamInterface<HostileSetting> {};

TEST_P(RemoteKubeconfigSetting, IsRefusedNamingTheFieldAndNothingGoesThroughTheProxy) {
    CountingListener proxy;
    std::string lines = GetParam().lines;
    if (const auto at = lines.find("PROXY"); at != std::string::npos)
        lines.replace(at, 5, proxy.url);
    SimFront front(m_sim->url, lines);
    const auto kubeconfig = gardener_kubeconfig("gardener.yaml", front.server.url);
    const auto [file, shoot] = runtime_file("gcp");

    const auto r = binary({"provision", "-f", file, "--wait", "--timeout", "2m"}, kubeconfig);

    // The operation fails at once (no retry until the stage's timeout), and kprov does not crash.
    EXPECT_NE(r.exit_code, 0) << r.out << r.err;
    EXPECT_GT(r.exit_code, 0) << "killed at the limit";
    EXPECT_LT(r.exit_code, 128) << "ended by a signal: " << r.err;
    EXPECT_GT(front.rewritten.load(), 0) << "kprov never asked for the admin kubeconfig";
    EXPECT_THAT(r.err, HasSubstr(GetParam().field)) << r.out;
    EXPECT_THAT(r.err, HasSubstr("may not change where or how kprov connects"));
    const auto runtimes = all_runtimes();
    ASSERT_EQ(runtimes.size(), 1u);
    const auto op = m_store->last_operation(runtimes[0].id);
    ASSERT_TRUE(op.has_value());
    EXPECT_EQ(op->state, OperationState::Failed);
    EXPECT_THAT(op->last_error.message, HasSubstr(GetParam().field));
    EXPECT_EQ(proxy.connections(), 0);
    // The credentials in the kubeconfig were never printed either.
    EXPECT_THAT(r.err + r.out, ::testing::Not(HasSubstr("token:")));
}

INSTANTIATE_TEST_SUITE_P(Fields, RemoteKubeconfigSetting,
                         ::testing::Values(HostileSetting{"proxy-url", "    proxy-url: PROXY\n"},
                                           HostileSetting{"insecure-skip-tls-verify",
                                                          "    insecure-skip-tls-verify: true\n"},
                                           HostileSetting{
                                               "tls-server-name",
                                               "    tls-server-name: kube-apiserver.example\n"}),
                         [](const auto& setting) {
                             std::string name;
                             for (char c : setting.param.field)
                                 if (c != '-')
                                     name += c;
                             return name;
                         });

// The user's own kubeconfig (here Gardener's) may name a proxy, and kprov sends its requests
// through it: the refusal is only for kubeconfigs Gardener hands out.
TEST_F(RemoteKubeconfig, TheUsersOwnKubeconfigMayNameAProxyAndKprovUsesIt) {
    SimFront proxy(m_sim->url, "");
    const auto kubeconfig = gardener_kubeconfig("gardener.yaml", m_sim->url,
                                                "    proxy-url: " + proxy.server.url + "\n");
    const auto [file, shoot] = runtime_file("gcp");

    const auto r = binary({"provision", "-f", file, "--wait", "--timeout", "2m"}, kubeconfig);

    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(this->shoot(shoot).has_value());
    bool shoot_request_proxied = false;
    for (const auto& request : proxy.server.requests())
        shoot_request_proxied =
            shoot_request_proxied || request.find("/shoots/" + shoot) != std::string::npos;
    EXPECT_TRUE(shoot_request_proxied)
        << "no request for shoot " << shoot << " went through the proxy";
}

} // namespace
} // namespace kprov::cli
