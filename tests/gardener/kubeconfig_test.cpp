// Kubeconfig loading: contexts, inline data and files, and the messages of broken files.

#include "engine/error.hpp"
#include "gardener/base64.hpp"
#include "gardener/kubeconfig.hpp"
#include "temp_dir.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::gardener {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

const std::string k_ca = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string k_cert = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
const std::string k_key = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

// Two clusters, two users, two contexts; "garden" is current.
std::string two_contexts() {
    return R"(apiVersion: v1
kind: Config
current-context: garden
clusters:
- name: garden-cluster
  cluster:
    server: https://garden.example:6443/
    certificate-authority-data: )" +
           base64_encode(k_ca) + R"(
- name: other-cluster
  cluster:
    server: http://127.0.0.1:8080
    insecure-skip-tls-verify: true
users:
- name: robot
  user:
    token: robot-secret
- name: admin
  user:
    client-certificate-data: )" +
           base64_encode(k_cert) + R"(
    client-key-data: )" +
           base64_encode(k_key) + R"(
contexts:
- name: garden
  context: {cluster: garden-cluster, user: robot, namespace: garden-p}
- name: other
  context: {cluster: other-cluster, user: admin}
)";
}

// The message of the ConfigError that parsing `text` throws.
std::string error_of(const std::string& text, const std::string& context = {}) {
    try {
        parse_kubeconfig(text, "/etc/k.yaml", "/etc", context);
    } catch (const ConfigError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no ConfigError";
    return {};
}

TEST(Kubeconfig, CurrentContextWithTokenAndInlineCa) {
    const Kubeconfig config = parse_kubeconfig(two_contexts(), "k.yaml");
    EXPECT_EQ(config.context, "garden");
    EXPECT_EQ(config.server, "https://garden.example:6443");
    EXPECT_EQ(config.default_namespace, "garden-p");
    EXPECT_EQ(config.ca_pem, k_ca);
    EXPECT_EQ(config.token, "robot-secret");
    EXPECT_FALSE(config.insecure_skip_tls_verify);
    EXPECT_TRUE(config.client_certificate_pem.empty());
}

TEST(Kubeconfig, NamedContextWithClientCertificate) {
    const Kubeconfig config = parse_kubeconfig(two_contexts(), "k.yaml", {}, "other");
    EXPECT_EQ(config.context, "other");
    EXPECT_EQ(config.server, "http://127.0.0.1:8080");
    EXPECT_TRUE(config.insecure_skip_tls_verify);
    EXPECT_EQ(config.client_certificate_pem, k_cert);
    EXPECT_EQ(config.client_key_pem, k_key);
    EXPECT_TRUE(config.token.empty());
    EXPECT_TRUE(config.default_namespace.empty());
}

TEST(Kubeconfig, FilesAreResolvedAgainstTheKubeconfigsDirectory) {
    TempDir dir;
    dir.write("conf/pki/ca.crt", k_ca);
    dir.write("conf/pki/client.crt", k_cert);
    dir.write("conf/pki/client.key", k_key);
    dir.write("conf/token", "  file-token\n");
    const auto path = dir.write("conf/kubeconfig", R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h", certificate-authority: pki/ca.crt}}]
users:
- name: u
  user: {client-certificate: pki/client.crt, client-key: ./pki/client.key, tokenFile: token}
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
    // From another working directory, so that only the kubeconfig's directory can explain it.
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path("/");
    const Kubeconfig config = load_kubeconfig(path);
    std::filesystem::current_path(cwd);
    EXPECT_EQ(config.source, path.string());
    EXPECT_EQ(config.ca_pem, k_ca);
    EXPECT_EQ(config.client_certificate_pem, k_cert);
    EXPECT_EQ(config.client_key_pem, k_key);
    EXPECT_EQ(config.token, "file-token");
    EXPECT_EQ(config.token_file, (dir.path() / "conf/token").string());
}

TEST(Kubeconfig, TheOnlyContextIsUsedWithoutCurrentContext) {
    const Kubeconfig config = parse_kubeconfig(R"(
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: only, context: {cluster: k, user: u}}]
)",
                                               "k.yaml");
    EXPECT_EQ(config.context, "only");
    EXPECT_EQ(config.token, "t");
}

TEST(Kubeconfig, ErrorsNameTheFileAndTheField) {
    EXPECT_EQ(error_of(two_contexts(), "nope"),
              "kubeconfig /etc/k.yaml: context: names contexts entry \"nope\", which is missing");
    EXPECT_EQ(error_of("clusters: []\ncontexts: []\n"),
              "kubeconfig /etc/k.yaml: current-context: missing, and no context was chosen");
    EXPECT_EQ(error_of(R"(
current-context: c
clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: k}}]
)"),
              "kubeconfig /etc/k.yaml: clusters[\"k\"].cluster.server: missing");
    EXPECT_EQ(error_of(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h", certificate-authority-data: "@@@"}}]
contexts: [{name: c, context: {cluster: k}}]
)"),
              "kubeconfig /etc/k.yaml: clusters[\"k\"].cluster.certificate-authority-data: not "
              "valid base64");
    EXPECT_EQ(error_of(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h", certificate-authority: ca.pem}}]
contexts: [{name: c, context: {cluster: k}}]
)"),
              "kubeconfig /etc/k.yaml: clusters[\"k\"].cluster.certificate-authority: cannot read "
              "/etc/ca.pem: No such file or directory");
    EXPECT_EQ(error_of(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
contexts: [{name: c, context: {cluster: k, user: ghost}}]
)"),
              "kubeconfig /etc/k.yaml: contexts[\"c\"].user: names users entry \"ghost\", which "
              "is missing");
    EXPECT_THAT(error_of("current-context: [\n"),
                HasSubstr("kubeconfig /etc/k.yaml: not valid YAML at line"));
    EXPECT_EQ(error_of("just text"),
              "kubeconfig /etc/k.yaml: not a kubeconfig (expected a YAML map with clusters, "
              "users and contexts)");
    EXPECT_EQ(error_of(R"(
current-context: c
clusters: [{name: k, cluster: {server: "ftp://h"}}]
contexts: [{name: c, context: {cluster: k}}]
)"),
              "kubeconfig /etc/k.yaml: clusters[\"k\"].cluster.server: must be an http:// or "
              "https:// URL");
}

TEST(Kubeconfig, CredentialProblemsNeverQuoteTheSecrets) {
    const std::string both = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {token: top-secret-value, tokenFile: /x}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
    EXPECT_THAT(error_of(both), AllOf(HasSubstr("users[\"u\"].user: set either token or tokenFile"),
                                      Not(HasSubstr("top-secret-value"))));
    const std::string cert_only = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {client-certificate-data: )" +
                                  base64_encode(k_cert) + R"(}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
    EXPECT_EQ(error_of(cert_only),
              "kubeconfig /etc/k.yaml: users[\"u\"].user: client certificate without client key");
    const std::string exec = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {command: gardenlogin}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
    EXPECT_THAT(error_of(exec), HasSubstr("users[\"u\"].user.exec: not supported by kprov"));
    const std::string ca_and_insecure = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h", insecure-skip-tls-verify: true, certificate-authority-data: )" +
                                        base64_encode(k_ca) + R"(}}]
contexts: [{name: c, context: {cluster: k}}]
)";
    EXPECT_THAT(error_of(ca_and_insecure), HasSubstr("exclude each other"));
}

TEST(Kubeconfig, MissingFileIsNamed) {
    try {
        load_kubeconfig("/nonexistent/kubeconfig");
        FAIL() << "no ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_STREQ(e.what(), "kubeconfig /nonexistent/kubeconfig: cannot read "
                               "/nonexistent/kubeconfig: No such file or directory");
    }
}

TEST(Base64, RoundTripsAndRejectsGarbage) {
    for (const std::string text : {"", "a", "ab", "abc", "abcd", "\x01\xff\x80"})
        EXPECT_EQ(base64_decode(base64_encode(text)), text);
    EXPECT_EQ(base64_decode("aGVs\nbG8="), "hello");
    EXPECT_EQ(base64_decode("aGVsbG8"), "hello");
    EXPECT_EQ(base64_decode("aGVs*G8="), std::nullopt);
    EXPECT_EQ(base64_decode("aGVsbG8=x"), std::nullopt);
}

} // namespace
} // namespace kprov::gardener
