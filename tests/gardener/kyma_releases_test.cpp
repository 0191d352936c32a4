// HttpReleaseSource: file:// directories, HTTP answers from a fake transport and from a real
// loopback server, version validation and the size limit (kyma-installation.md §1.5).

#include "engine/error.hpp"
#include "fakes.hpp"
#include "kyma/kyma_releases.hpp"
#include "support/test_databases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <thread>

namespace kprov::gardener {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace testing;
using kprov::testing::TempDir;

std::pair<std::string, int> fetch_error(HttpReleaseSource& source, const std::string& version) {
    try {
        source.fetch(version);
    } catch (const RemoteError& e) {
        return {e.what(), e.http_status()};
    }
    return {"no error", -1};
}

ReleaseSourceOptions file_options(const TempDir& dir) {
    ReleaseSourceOptions options;
    options.releases_url = "file://" + dir.file("releases") + "/";
    options.on_demand_url = "file://" + dir.file("dev");
    return options;
}

TEST(KymaReleases, ReadsFileDirectoriesAndPicksThePrefixByVersion) {
    TempDir dir;
    dir.write("releases/1.24.11/kyma-installer-cluster.yaml", "installer");
    dir.write("releases/1.24.11/tiller.yaml", "tiller");
    dir.write("dev/PR-42/kyma-installer-cluster.yaml", "pr installer");
    HttpReleaseSource source(file_options(dir));

    const auto release = source.fetch("1.24.11");
    EXPECT_EQ(release.version, "1.24.11");
    EXPECT_EQ(release.id, "");
    EXPECT_EQ(release.installer_yaml, "installer");
    EXPECT_EQ(release.tiller_yaml, "tiller");

    const auto on_demand = source.fetch("PR-42");
    EXPECT_EQ(on_demand.installer_yaml, "pr installer");
    EXPECT_EQ(on_demand.tiller_yaml, ""); // no tiller.yaml: none

    const auto [message, status] = fetch_error(source, "1.0.0");
    EXPECT_EQ(message, "Failed to download installer YAML release for version 1.0.0: cannot read " +
                           dir.file("releases/1.0.0/kyma-installer-cluster.yaml") +
                           ": no such file");
    EXPECT_EQ(status, 0);
}

TEST(KymaReleases, RefusesUnusableVersions) {
    TempDir dir;
    HttpReleaseSource source(file_options(dir));
    for (const std::string& version :
         {std::string(), std::string("../etc"), std::string("a/b"), std::string("1.0\n"),
          std::string("x\x7f"), std::string(257, '1')})
        EXPECT_THROW(source.fetch(version), ValidationError) << version;
}

TEST(KymaReleases, RefusesFilesOverTheLimit) {
    TempDir dir;
    dir.write("releases/1.0/kyma-installer-cluster.yaml", std::string(2000, 'x'));
    auto options = file_options(dir);
    options.max_bytes = 1000;
    HttpReleaseSource source(options);
    EXPECT_EQ(fetch_error(source, "1.0").first,
              "Failed to download installer YAML release for version 1.0: the file is larger "
              "than 1000 bytes");
}

class KymaReleasesHttp : public ::testing::Test {
protected:
    HttpReleaseSource source_with(std::size_t max_bytes = 16 * 1024 * 1024) {
        ReleaseSourceOptions options;
        options.transport = transport;
        options.max_bytes = max_bytes;
        return HttpReleaseSource(options);
    }
    std::shared_ptr<FakeTransport> transport = std::make_shared<FakeTransport>();
};

TEST_F(KymaReleasesHttp, UsesTheGcsPrefixesAndAThirtySecondTimeout) {
    transport->stream({"inst", "aller"});
    transport->reply(404, "no such object");
    auto source = source_with();
    const auto release = source.fetch("1.24.11");
    EXPECT_EQ(release.installer_yaml, "installer");
    EXPECT_EQ(release.tiller_yaml, "");
    const auto requests = transport->requests();
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[0].method, "GET");
    EXPECT_EQ(requests[0].url, "https://storage.googleapis.com/kyma-prow-artifacts/1.24.11/"
                               "kyma-installer-cluster.yaml");
    EXPECT_EQ(requests[1].url,
              "https://storage.googleapis.com/kyma-prow-artifacts/1.24.11/tiller.yaml");
    EXPECT_EQ(requests[0].total_timeout, std::chrono::milliseconds(30'000));
    EXPECT_EQ(source.url_of("main", "tiller.yaml"),
              "https://storage.googleapis.com/kyma-development-artifacts/main/tiller.yaml");
}

TEST_F(KymaReleasesHttp, NonOkAnswersAreErrorsWithTheirStatus) {
    transport->reply(404, "gone");
    auto source = source_with();
    auto [message, status] = fetch_error(source, "9.9.9");
    EXPECT_EQ(message, "Failed to download installer YAML release for version 9.9.9: received "
                       "unexpected http status 404");
    EXPECT_EQ(status, 404);

    transport->stream({"installer"});
    transport->reply(500, "oops");
    std::tie(message, status) = fetch_error(source, "9.9.9");
    EXPECT_EQ(message, "Failed to download tiller YAML release for version 9.9.9: received "
                       "unexpected http status 500");
    EXPECT_EQ(status, 500);

    transport->fail(net::TransportError::Kind::Timeout, true, "timed out");
    std::tie(message, status) = fetch_error(source, "9.9.9");
    EXPECT_EQ(message, "Failed to download installer YAML release for version 9.9.9: timed out");
    EXPECT_EQ(status, 0);
}

TEST_F(KymaReleasesHttp, StopsReadingAtTheLimit) {
    transport->stream({std::string(600, 'x'), std::string(600, 'x'), std::string(600, 'x')});
    auto source = source_with(1000);
    EXPECT_EQ(fetch_error(source, "1.0").first,
              "Failed to download installer YAML release for version 1.0: the file is larger "
              "than 1000 bytes");
}

TEST(KymaReleasesLoopback, DownloadsOverRealSockets) {
    httplib::Server server;
    server.set_tcp_nodelay(true);
    server.Get("/bucket/1.24.11/kyma-installer-cluster.yaml",
               [](const httplib::Request&, httplib::Response& res) {
                   res.set_content("kind: Namespace\n", "text/yaml");
               });
    const int port = server.bind_to_any_port("127.0.0.1");
    std::thread thread([&] { server.listen_after_bind(); });
    while (!server.is_running())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));

    ReleaseSourceOptions options;
    options.releases_url = "http://127.0.0.1:" + std::to_string(port) + "/bucket";
    HttpReleaseSource source(options);
    const auto release = source.fetch("1.24.11");
    EXPECT_EQ(release.installer_yaml, "kind: Namespace\n");
    EXPECT_EQ(release.tiller_yaml, ""); // httplib answers 404
    EXPECT_THAT(fetch_error(source, "1.0.0").first,
                HasSubstr("received unexpected http status 404"));
    server.stop();
    thread.join();
}

} // namespace
} // namespace kprov::gardener
