// Kubeconfig loading: contexts, inline data and files, and the messages of broken files.

#include "engine/error.hpp"
#include "gardener/kubeconfig.hpp"
#include "net/base64.hpp"
#include "support/test_databases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <utility>
#include <vector>

namespace kprov::gardener {
namespace {

using kprov::testing::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

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
           net::base64_encode(k_ca) + R"(
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
           net::base64_encode(k_cert) + R"(
    client-key-data: )" +
           net::base64_encode(k_key) + R"(
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
    EXPECT_EQ(config.source, path);
    EXPECT_EQ(config.ca_pem, k_ca);
    EXPECT_EQ(config.client_certificate_pem, k_cert);
    EXPECT_EQ(config.client_key_pem, k_key);
    EXPECT_EQ(config.token, "file-token");
    EXPECT_EQ(config.token_file, dir.file("conf/token"));
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
                                  net::base64_encode(k_cert) + R"(}}]
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
                                        net::base64_encode(k_ca) + R"(}}]
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

// A kubeconfig whose user sets `field` to `value`; certificate-authority goes into the cluster
// instead, beside a user with an inline token.
std::string with_user_field(const std::string& field, const std::string& value) {
    const bool cluster_field = field == "certificate-authority";
    return "current-context: c\n"
           "clusters: [{name: k, cluster: {server: \"https://h\"" +
           (cluster_field ? ", " + field + ": " + value : std::string()) +
           "}}]\n"
           "users: [{name: u, user: {" +
           (cluster_field ? std::string("token: t") : field + ": " + value) +
           "}}]\n"
           "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
}

TEST(KubeconfigRemote, FileReferencesAndPluginsAreRefusedNamingTheField) {
    TempDir dir;
    const std::string secret = "local-secret-never-to-be-sent";
    const auto file = dir.write("secret", secret + "\n");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"tokenFile", "users[\"u\"].user.tokenFile"},
        {"client-certificate", "users[\"u\"].user.client-certificate"},
        {"client-key", "users[\"u\"].user.client-key"},
        {"certificate-authority", "clusters[\"k\"].cluster.certificate-authority"},
    };
    for (const auto& [field, label] : cases) {
        const std::string text = with_user_field(field, file);
        try {
            parse_remote_kubeconfig(text, "<admin kubeconfig>");
            ADD_FAILURE() << field << ": no ConfigError";
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "kubeconfig <admin kubeconfig>: " + label +
                          ": a kubeconfig from Gardener must carry its credentials inline; file "
                          "references and plugins are refused")
                << field;
            EXPECT_THAT(e.what(), Not(HasSubstr(secret))) << field;
        }
        // The same kubeconfig as the user's own file: the reference is followed (and then, for
        // a lone certificate or key, the pair check speaks; neither quotes the secret).
        try {
            const Kubeconfig local = parse_kubeconfig(text, "k.yaml", dir.path());
            if (field == "tokenFile") {
                EXPECT_EQ(local.token, secret);
            } else {
                EXPECT_EQ(field, "certificate-authority");
                EXPECT_EQ(local.ca_pem, secret + "\n");
            }
        } catch (const ConfigError& e) {
            EXPECT_THAT(e.what(), HasSubstr("without client")) << field;
            EXPECT_THAT(e.what(), Not(HasSubstr(secret))) << field;
        }
    }
    for (const auto& [plugin, body] : std::vector<std::pair<std::string, std::string>>{
             {"exec", "{command: cat, args: [" + file + "]}"},
             {"auth-provider", "{name: oidc, config: {id-token: x}}"}}) {
        // With an inline token beside it, too: a plugin in a remote kubeconfig is never fine.
        const std::string text = "current-context: c\n"
                                 "clusters: [{name: k, cluster: {server: \"https://h\"}}]\n"
                                 "users: [{name: u, user: {token: t, " +
                                 plugin + ": " + body +
                                 "}}]\n"
                                 "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
        try {
            parse_remote_kubeconfig(text, "<admin kubeconfig>");
            ADD_FAILURE() << plugin << ": no ConfigError";
        } catch (const ConfigError& e) {
            EXPECT_THAT(e.what(), HasSubstr("users[\"u\"].user." + plugin +
                                            ": a kubeconfig from Gardener must carry"))
                << plugin;
        }
        EXPECT_EQ(parse_kubeconfig(text, "k.yaml").token, "t") << plugin;
    }
}

// Issue 32, finding 11: a kubeconfig from Gardener set proxy-url and insecure-skip-tls-verify
// and kprov obeyed both. Settings that change where or how kprov connects are refused from
// it, naming the field; the user's own kubeconfig may keep them.
TEST(KubeconfigRemote, SettingsThatChangeWhereOrHowKprovConnectsAreRefused) {
    for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
             {"proxy-url", "\"http://127.0.0.1:3128\""},
             {"insecure-skip-tls-verify", "true"},
             {"tls-server-name", "other.example"}}) {
        const std::string text = "current-context: c\n"
                                 "clusters: [{name: k, cluster: {server: \"https://h\", " +
                                 field + ": " + value +
                                 "}}]\n"
                                 "users: [{name: u, user: {token: t}}]\n"
                                 "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
        try {
            parse_remote_kubeconfig(text, "<admin kubeconfig>");
            ADD_FAILURE() << field << ": no ConfigError";
        } catch (const ConfigError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "kubeconfig <admin kubeconfig>: clusters[\"k\"].cluster." + field +
                          ": a kubeconfig from Gardener may not change where or how kprov "
                          "connects (proxy, certificate check, TLS server name); refused")
                << field;
        }
        const Kubeconfig local = parse_kubeconfig(text, "k.yaml");
        EXPECT_EQ(local.server, "https://h") << field;
    }
    // What changes nothing is accepted.
    const std::string harmless = "current-context: c\n"
                                 "clusters: [{name: k, cluster: {server: \"https://h\", "
                                 "insecure-skip-tls-verify: false, proxy-url: null}}]\n"
                                 "users: [{name: u, user: {token: t}}]\n"
                                 "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
    EXPECT_EQ(parse_remote_kubeconfig(harmless, "<admin>").token, "t");
}

TEST(KubeconfigRemote, TheFullFileReferenceKubeconfigStillLoadsAsTheUsersOwn) {
    TempDir dir;
    dir.write("ca.crt", k_ca);
    dir.write("client.crt", k_cert);
    dir.write("client.key", k_key);
    dir.write("token", "file-token\n");
    const std::string text = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h", certificate-authority: ca.crt}}]
users:
- name: u
  user: {client-certificate: client.crt, client-key: client.key, tokenFile: token}
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
    const auto path = dir.write("kubeconfig", text);
    const Kubeconfig local = load_kubeconfig(path);
    EXPECT_EQ(local.ca_pem, k_ca);
    EXPECT_EQ(local.client_key_pem, k_key);
    EXPECT_EQ(local.token, "file-token");
    EXPECT_THROW(parse_remote_kubeconfig(text, "<admin kubeconfig>"), ConfigError);
}

TEST(KubeconfigRemote, InlineCredentialsAreAccepted) {
    const Kubeconfig config = parse_remote_kubeconfig(two_contexts(), "<admin kubeconfig>");
    EXPECT_EQ(config.token, "robot-secret");
    EXPECT_EQ(config.ca_pem, k_ca);
    // The other context's cluster turns the certificate check off: refused from Gardener
    // (issue 32), while its inline client certificate is read as the user's own.
    EXPECT_THROW(parse_remote_kubeconfig(two_contexts(), "<admin>", "other"), ConfigError);
    const Kubeconfig cert = parse_kubeconfig(two_contexts(), "<admin>", {}, "other");
    EXPECT_EQ(cert.client_key_pem, k_key);
}

TEST(Kubeconfig, ATokenWithALineBreakOrNulIsRefused) {
    const std::string injected = R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {token: "secret-part\r\nX-Injected: 1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
    const std::string message = "kubeconfig /etc/k.yaml: users[\"u\"].user.token: contains a line "
                                "break or NUL character, which cannot go into an HTTP header; "
                                "refused";
    EXPECT_EQ(error_of(injected), message);
    EXPECT_THAT(error_of(injected), AllOf(Not(HasSubstr("secret-part")), Not(HasSubstr("X-Inj"))));
    EXPECT_THROW(parse_remote_kubeconfig(injected, "<admin>"), ConfigError);
    std::string nul = injected;
    nul.replace(nul.find("\\r\\n"), 4, "\\0");
    EXPECT_EQ(error_of(nul), message);

    // From a token file: surrounding whitespace is trimmed, a line break inside is refused.
    TempDir dir;
    const auto file = dir.write("token", "secret-part\r\nX-Injected: 1\n");
    EXPECT_THAT(error_of("current-context: c\n"
                         "clusters: [{name: k, cluster: {server: \"https://h\"}}]\n"
                         "users: [{name: u, user: {tokenFile: " +
                         file +
                         "}}]\n"
                         "contexts: [{name: c, context: {cluster: k, user: u}}]\n"),
                AllOf(HasSubstr("users[\"u\"].user.tokenFile: contains a line break"),
                      Not(HasSubstr("secret-part"))));
    try {
        read_token_file(file); // as KubeClient re-reads a rotating token
        ADD_FAILURE() << "no ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_THAT(e.what(), AllOf(HasSubstr("tokenFile: contains a line break"),
                                    Not(HasSubstr("secret-part"))));
    }
}

TEST(Base64, RoundTripsAndRejectsGarbage) {
    for (const std::string text : {"", "a", "ab", "abc", "abcd", "\x01\xff\x80"})
        EXPECT_EQ(net::base64_decode(net::base64_encode(text)), text);
    EXPECT_EQ(net::base64_decode("aGVs\nbG8="), "hello");
    EXPECT_EQ(net::base64_decode("aGVsbG8"), "hello");
    EXPECT_EQ(net::base64_decode("aGVs*G8="), std::nullopt);
    EXPECT_EQ(net::base64_decode("aGVsbG8=x"), std::nullopt);
}

} // namespace
} // namespace kprov::gardener
