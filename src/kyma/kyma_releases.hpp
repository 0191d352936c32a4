#pragma once
// The engine's ReleaseSource port (kyma-installation.md §1.5, §7.1): a Kyma release's
// kyma-installer-cluster.yaml and tiller.yaml read under a URL prefix per version, over HTTP(S)
// or, for tests and offline use, from file:// directories.

#include "engine/kyma.hpp"
#include "net/http_transport.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace kprov::gardener {

inline constexpr const char* k_default_releases_url =
    "https://storage.googleapis.com/kyma-prow-artifacts";
inline constexpr const char* k_default_on_demand_url =
    "https://storage.googleapis.com/kyma-development-artifacts";

struct ReleaseSourceOptions {
    /// Prefix of released versions: <prefix>/<version>/kyma-installer-cluster.yaml.
    std::string releases_url = k_default_releases_url;
    /// Prefix of on-demand versions (engine::is_on_demand_version).
    std::string on_demand_url = k_default_on_demand_url;
    /// Per file, the whole exchange (the original's 30 s).
    std::chrono::milliseconds timeout{30'000};
    /// A file larger than this is refused.
    std::size_t max_bytes = 16 * 1024 * 1024;
    /// Null: a CurlTransport with the system trust store. Tests pass a fake.
    std::shared_ptr<net::HttpTransport> transport;
};

/// Thread-safe. fetch() returns the release with an empty id and tiller_yaml "" when the
/// version has no tiller.yaml (404, or a missing file under file://). It throws ValidationError
/// (path "version") for a version that is empty, longer than 256 characters, or holds "/",
/// ".." or control characters, and RemoteError for everything else:
/// "Failed to download installer YAML release for version <v>: <why>" and
/// "Failed to download tiller YAML release for version <v>: <why>", <why> being
/// "received unexpected http status <n>" (http_status() n), the transport's message (status 0),
/// "the file is larger than <max> bytes" or, under file://, "cannot read <path>".
class HttpReleaseSource final : public engine::ReleaseSource {
public:
    explicit HttpReleaseSource(ReleaseSourceOptions options = {});
    engine::KymaRelease fetch(const std::string& version) override;

    /// The URL (or file:// location) of `file` of `version`, from the prefix that
    /// is_on_demand_version picks. Does not validate `version`.
    std::string url_of(const std::string& version, const std::string& file) const;

private:
    /// The file's content; nullopt for an absent one (404 / no such file).
    std::optional<std::string> read(const std::string& version, const std::string& file) const;

    ReleaseSourceOptions m_options;
    std::shared_ptr<net::HttpTransport> m_transport;
};

} // namespace kprov::gardener
