// Authentication and transport against kprov-sim itself: plain HTTP, HTTPS with the CA from the
// kubeconfig, a bearer token (a wrong one refused), a client certificate from the sim's CA, and
// a wrong CA refused.

#include "gardener/gardener_client.hpp"
#include "gardener/kube_error.hpp"
#include "gardener/kubeconfig.hpp"
#include "support/sim_process.hpp"
#include "support/skip.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::gardener {
namespace {

using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

ClientOptions quick() {
    ClientOptions options;
    options.retry.initial_backoff = 10ms;
    options.retry.max_attempts = 2;
    return options;
}

class SimAuth : public ::testing::Test {
protected:
    void SetUp() override {
        m_binary = kprov::testing::find_sim_binary();
        if (m_binary.empty())
            KPROV_SKIP_UNLESS_CI("kprov-sim is not built (target kprov-sim)");
    }
    std::string m_binary;
    kprov::testing::TempDir m_dir;
};

TEST_F(SimAuth, PlainHttpWithAndWithoutToken) {
    kprov::testing::SimProcess sim(m_binary, {"--token", "s3cret", "--project", "p"});
    Kubeconfig k = load_kubeconfig(sim.kubeconfig);
    EXPECT_EQ(k.server.rfind("http://", 0), 0u);
    EXPECT_EQ(k.token, "s3cret");
    GardenerClient client(k, "p", quick());
    EXPECT_EQ(client.list_shoots()["items"].size(), 0u);
    // No credentials over plain HTTP are served (kubectl sends none there)...
    k.token.clear();
    EXPECT_NO_THROW(GardenerClient(k, "p", quick()).list_shoots());
    // ...but a wrong token is refused.
    k.token = "wrong";
    try {
        GardenerClient(k, "p", quick()).list_shoots();
        ADD_FAILURE() << "a wrong token was accepted";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 401);
        EXPECT_EQ(std::string(e.what()).find("wrong"), std::string::npos)
            << "credentials never appear in messages";
    }
}

TEST_F(SimAuth, HttpsWithTokenAndWithClientCertificate) {
    kprov::testing::SimProcess sim(m_binary,
                                   {"--tls", "--project", "p", "--client-cert-out",
                                    (std::filesystem::path(m_dir.path()) / "admin").string()});
    Kubeconfig k = load_kubeconfig(sim.kubeconfig);
    ASSERT_EQ(k.server.rfind("https://", 0), 0u);
    ASSERT_FALSE(k.ca_pem.empty());
    EXPECT_NO_THROW(GardenerClient(k, "p", quick()).list_shoots());

    Kubeconfig by_cert = k;
    by_cert.token.clear();
    by_cert.client_certificate_pem = read_file(std::filesystem::path(m_dir.path()) / "admin.crt");
    by_cert.client_key_pem = read_file(std::filesystem::path(m_dir.path()) / "admin.key");
    ASSERT_FALSE(by_cert.client_certificate_pem.empty());
    EXPECT_NO_THROW(GardenerClient(by_cert, "p", quick()).list_shoots());

    Kubeconfig nothing = k;
    nothing.token.clear();
    try {
        GardenerClient(nothing, "p", quick()).list_shoots();
        ADD_FAILURE() << "HTTPS without token or certificate was accepted";
    } catch (const KubeError& e) {
        EXPECT_EQ(e.http_status(), 401);
    }
}

TEST_F(SimAuth, HttpsWithAWrongCaIsRefused) {
    kprov::testing::SimProcess sim(m_binary, {"--tls", "--project", "p"});
    kprov::testing::SimProcess other(m_binary, {"--tls", "--project", "p"});
    Kubeconfig k = load_kubeconfig(sim.kubeconfig);
    k.ca_pem = load_kubeconfig(other.kubeconfig).ca_pem; // another sim's CA
    try {
        GardenerClient(k, "p", quick()).list_shoots();
        ADD_FAILURE() << "a server certificate from another CA was trusted";
    } catch (const RemoteError& e) {
        EXPECT_EQ(e.http_status(), 0) << "refused before any HTTP answer";
        EXPECT_FALSE(e.retryable()) << "a TLS failure is final";
    }
}

} // namespace
} // namespace kprov::gardener
