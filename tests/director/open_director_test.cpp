// open_director: Director only when registration or deregistration is on, the director.yaml
// file needed only then, and a missing default file a warning rather than a refusal.

#include "director/open_director.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::director {
namespace {

using ::testing::HasSubstr;

config::Effective effective(const std::string& oauth_path, config::Origin origin) {
    config::Effective e;
    e.settings.director_oauth_path = oauth_path;
    config::Entry entry;
    entry.key = "director.oauth_path";
    entry.value = oauth_path;
    entry.origin = origin;
    e.entries.push_back(entry);
    return e;
}

TEST(OpenDirector, BothFlagsOffNeedsNoFile) {
    auto e = effective("/nonexistent/director.yaml", config::Origin::Environment);
    e.settings.runtime_registration_enabled = false;
    e.settings.runtime_deregistration_enabled = false;
    std::string warning;
    EXPECT_EQ(open_director(e, warning), nullptr);
    EXPECT_TRUE(warning.empty());
}

TEST(OpenDirector, AMissingDefaultFileTurnsDirectorOffWithAWarning) {
    auto e = effective("/nonexistent/dev/director.yaml", config::Origin::Default);
    std::string warning;
    EXPECT_EQ(open_director(e, warning), nullptr);
    EXPECT_THAT(warning, HasSubstr("/nonexistent/dev/director.yaml"));
    EXPECT_THAT(warning, HasSubstr("APP_DIRECTOR_OAUTH_PATH"));
}

TEST(OpenDirector, AFileNamedExplicitlyMustBeThere) {
    auto e = effective("/nonexistent/director.yaml", config::Origin::Environment);
    std::string warning;
    EXPECT_THROW(open_director(e, warning), ConfigError);
}

TEST(OpenDirector, AGoodFileGivesAClientAndTheFlagsReachTheEngine) {
    testing::TempDir dir;
    const std::string path = dir.file("director.yaml");
    std::ofstream(path) << "data:\n  client_id: a\n  client_secret: b\n"
                           "  tokens_endpoint: http://127.0.0.1:1/oauth2/token\n";
    auto e = effective(path, config::Origin::File);
    e.settings.runtime_registration_enabled = false; // deregistration alone is enough
    std::string warning;
    const auto port = open_director(e, warning);
    ASSERT_NE(port, nullptr);
    const auto options = director_options(e.settings, port.get());
    EXPECT_FALSE(options.registers());
    EXPECT_TRUE(options.deregisters());

    std::ofstream(path) << "data:\n  client_id: a\n";
    EXPECT_THROW(open_director(e, warning), ConfigError);
}

} // namespace
} // namespace kprov::director
