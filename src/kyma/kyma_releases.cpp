// HttpReleaseSource: Kyma release artifacts by URL prefix (kyma-installation.md §1.5).

#include "kyma/kyma_releases.hpp"

#include "gardener/kube_client.hpp"
#include "kyma/kyma_installer_detail.hpp"
#include "net/curl_transport.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace kprov::gardener {
namespace {

constexpr std::string_view k_file_scheme = "file://";
constexpr std::size_t k_max_version = 256;

std::string without_trailing_slashes(std::string url) {
    while (url.size() > 1 && url.back() == '/')
        url.pop_back();
    return url;
}

void check_version(const std::string& version) {
    bool usable = !version.empty() && version.size() <= k_max_version &&
                  version.find('/') == std::string::npos && version.find("..") == std::string::npos;
    for (const unsigned char c : version)
        usable = usable && c >= 0x20 && c != 0x7f;
    if (!usable)
        throw ValidationError("version", "is not a usable Kyma version: it must be 1 to " +
                                             std::to_string(k_max_version) +
                                             " printable characters without \"/\" or \"..\"");
}

RemoteError too_large(std::size_t max_bytes) {
    return RemoteError("the file is larger than " + std::to_string(max_bytes) + " bytes", 0, false);
}

std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return std::nullopt;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec)
        throw RemoteError("cannot read " + path + ": " + ec.message(), 0, false);
    if (size > max_bytes)
        throw too_large(max_bytes);
    std::ifstream in(path, std::ios::binary);
    std::string content(static_cast<std::size_t>(size), '\0');
    if (!in.read(content.data(), static_cast<std::streamsize>(size)))
        throw RemoteError("cannot read " + path, 0, false);
    return content;
}

} // namespace

HttpReleaseSource::HttpReleaseSource(ReleaseSourceOptions options)
    : m_options(std::move(options))
    , m_transport(m_options.transport ? m_options.transport
                                      : std::make_shared<net::CurlTransport>(net::TlsOptions{})) {
    m_options.releases_url = without_trailing_slashes(m_options.releases_url);
    m_options.on_demand_url = without_trailing_slashes(m_options.on_demand_url);
}

std::string HttpReleaseSource::url_of(const std::string& version, const std::string& file) const {
    const std::string& prefix =
        engine::is_on_demand_version(version) ? m_options.on_demand_url : m_options.releases_url;
    if (prefix.starts_with(k_file_scheme))
        return prefix + "/" + version + "/" + file;
    return prefix + "/" + url_encode(version) + "/" + file;
}

std::optional<std::string> HttpReleaseSource::read(const std::string& version,
                                                   const std::string& file) const {
    const std::string url = url_of(version, file);
    if (url.starts_with(k_file_scheme))
        return read_file(url.substr(k_file_scheme.size()), m_options.max_bytes);

    net::HttpRequest request;
    request.method = "GET";
    request.url = url;
    request.total_timeout = m_options.timeout;
    request.connect_timeout = std::min(m_options.timeout, std::chrono::milliseconds(10'000));
    std::string body;
    bool overflow = false;
    request.on_body = [&](std::string_view chunk) {
        if (body.size() + chunk.size() > m_options.max_bytes) {
            overflow = true;
            return false;
        }
        body.append(chunk);
        return true;
    };
    net::HttpResponse response;
    try {
        response = m_transport->perform(request);
    } catch (const net::TransportError& e) {
        throw RemoteError(e.what(), 0, e.kind() != net::TransportError::Kind::Tls);
    }
    if (response.status == 404)
        return std::nullopt;
    if (response.status != 200)
        throw RemoteError("received unexpected http status " + std::to_string(response.status),
                          response.status, response.status == 429 || response.status >= 500);
    if (overflow)
        throw too_large(m_options.max_bytes);
    return body;
}

engine::KymaRelease HttpReleaseSource::fetch(const std::string& version) {
    check_version(version);
    engine::KymaRelease release;
    release.version = version;
    release.installer_yaml = kyma_detail::with_prefix(
        "Failed to download installer YAML release for version " + version + ": ", [&] {
            auto content = read(version, "kyma-installer-cluster.yaml");
            if (!content) {
                const std::string url = url_of(version, "kyma-installer-cluster.yaml");
                if (url.starts_with(k_file_scheme))
                    throw RemoteError("cannot read " + url.substr(k_file_scheme.size()) +
                                          ": no such file",
                                      0, false);
                throw RemoteError("received unexpected http status 404", 404, false);
            }
            return std::move(*content);
        });
    release.tiller_yaml = kyma_detail::with_prefix(
        "Failed to download tiller YAML release for version " + version + ": ",
        [&] { return read(version, "tiller.yaml").value_or(""); });
    return release;
}

} // namespace kprov::gardener
