#pragma once
// Kubeconfig files: the subset a Kubernetes client needs to reach one API server (server URL,
// CA, TLS options, bearer token or client certificate), taken from one context.

#include <filesystem>
#include <string>
#include <string_view>

namespace kprov::gardener {

/// One context of a kubeconfig, with every referenced file already read. Holds credentials:
/// never log it or put any field but `source`, `context`, `server` into a message.
struct Kubeconfig {
    std::string source;            // the file it came from, or a label such as "<admin kubeconfig>"
    std::string context;           // the context used
    std::string server;            // base URL, without a trailing slash
    std::string default_namespace; // the context's namespace; may be empty
    std::string ca_pem;            // PEM bundle; empty means the system trust store
    bool insecure_skip_tls_verify = false;
    std::string tls_server_name; // overrides the name checked in the server certificate
    std::string proxy_url;
    std::string token;      // bearer token; with token_file, its content at load time
    std::string token_file; // absolute path; the client re-reads it, as tokens rotate
    std::string client_certificate_pem;
    std::string client_key_pem;
};

/// Where a kubeconfig came from, which decides whether it may name local files.
enum class KubeconfigOrigin {
    /// The user's own kubeconfig (a path they gave): file references (certificate-authority,
    /// client-certificate, client-key, tokenFile) are read, relative to its directory.
    Local,
    /// Fetched from a server (Gardener's adminkubeconfig answer): credentials must be inline
    /// (*-data, token). Any file reference, exec plugin or auth-provider is a ConfigError
    /// naming the field, thrown before any file is touched, so such a kubeconfig can never make
    /// kprov read a local file and send it to the server it names. So is a setting that
    /// changes where or how kprov connects (proxy-url, insecure-skip-tls-verify: true,
    /// tls-server-name).
    Remote,
};

/// Reads the kubeconfig at `path` and resolves `context` (empty: its current-context; when it
/// has none, its only context). Relative file paths inside are resolved against the file's
/// directory. Throws ConfigError naming the file and the field ("kubeconfig /x/y: users[\"u\"].
/// user.client-key: cannot read /x/k.pem: No such file or directory"), never a secret.
Kubeconfig load_kubeconfig(const std::filesystem::path& path, const std::string& context = {});

/// Same for kubeconfig text. `source` names it in messages; relative paths are resolved against
/// `base_dir` (empty: the working directory). A token (inline or from its file) holding CR, LF
/// or NUL is refused, as it would end up in an HTTP header.
Kubeconfig parse_kubeconfig(std::string_view text, const std::string& source,
                            const std::filesystem::path& base_dir = {},
                            const std::string& context = {},
                            KubeconfigOrigin origin = KubeconfigOrigin::Local);

/// A kubeconfig fetched from Gardener (KubeconfigOrigin::Remote): inline credentials only.
Kubeconfig parse_remote_kubeconfig(std::string_view text, const std::string& source,
                                   const std::string& context = {});

/// The content of the token file `path` without surrounding whitespace. Throws ConfigError,
/// also when the token holds CR, LF or NUL.
std::string read_token_file(const std::string& path);

} // namespace kprov::gardener
