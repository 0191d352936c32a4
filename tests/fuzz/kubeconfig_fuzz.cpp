// libFuzzer target for the kubeconfig reader (src/gardener/kubeconfig.cpp). Each input is read
// twice: as the user's own kubeconfig (KubeconfigOrigin::Local, file references resolved in a
// scratch directory holding a CA, a certificate, a key and a token) and as one fetched from
// Gardener (KubeconfigOrigin::Remote, inline credentials only). It fails on a crash, a sanitizer
// report, an exception that is not kprov's own Error (every refusal must be one), or a result
// that breaks the reader's contract: a server that is not an http(s) URL or ends in '/', a
// token with CR, LF or NUL, a client certificate without its key, or a remote kubeconfig that
// names a token file.

#include "engine/error.hpp"
#include "gardener/kubeconfig.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

const std::filesystem::path& scratch_dir() {
    static const std::filesystem::path dir = [] {
        auto path = std::filesystem::temp_directory_path() /
                    ("kprov-kubeconfig-fuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(path);
        for (const char* name : {"ca.pem", "cert.pem", "key.pem"})
            std::ofstream(path / name) << "-----BEGIN X-----\nAAAA\n-----END X-----\n";
        std::ofstream(path / "token") << "  a-token\n";
        std::ofstream(path / "bad-token") << "a\r\nX-Injected: 1\n";
        std::ofstream(path / "empty");
        return path;
    }();
    return dir;
}

void check(const kprov::gardener::Kubeconfig& config, bool remote) {
    const std::string_view server = config.server;
    if (!server.starts_with("https://") && !server.starts_with("http://"))
        std::abort();
    if (server.size() > 1 && server.back() == '/')
        std::abort();
    if (config.token.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos)
        std::abort();
    if (config.client_certificate_pem.empty() != config.client_key_pem.empty())
        std::abort();
    if (config.insecure_skip_tls_verify && !config.ca_pem.empty())
        std::abort();
    if (remote && !config.token_file.empty())
        std::abort();
}

template <typename Read> void attempt(Read read, bool remote) {
    try {
        check(read(), remote);
    } catch (const kprov::Error&) {
        // refused, with a message
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    attempt([&] { return kprov::gardener::parse_kubeconfig(text, "fuzz", scratch_dir()); }, false);
    attempt([&] { return kprov::gardener::parse_remote_kubeconfig(text, "fuzz"); }, true);
    return 0;
}
