// settings.store_url: --store > KPROV_STORE (or the file's "store") > PostgreSQL built from
// APP_DATABASE_* > local SQLite under the XDG state directory.

#include "config_testing.hpp"

#include <gtest/gtest.h>

namespace kprov::config {
namespace {

using testing::entry_of;
using testing::Env;
using testing::load_error;
using testing::sources_with;

const Env k_home{{"HOME", "/home/u"}};

Env with(Env env, const std::string& name, const std::string& value) {
    env[name] = value;
    return env;
}

TEST(StoreUrl, DefaultsToSqliteUnderXdgStateHome) {
    const auto effective = load(sources_with(with(k_home, "XDG_STATE_HOME", "/var/state")));
    EXPECT_EQ(effective.settings.store_url, "sqlite:///var/state/kprov/kprov.db");
    EXPECT_EQ(entry_of(effective, "store").value, "sqlite:///var/state/kprov/kprov.db");
    EXPECT_EQ(entry_of(effective, "store").origin, Origin::Default);
}

TEST(StoreUrl, DefaultsToSqliteUnderHomeWhenXdgStateHomeIsUnsetOrRelative) {
    for (const auto& env : {k_home, with(k_home, "XDG_STATE_HOME", "state")})
        EXPECT_EQ(load(sources_with(env)).settings.store_url,
                  "sqlite:///home/u/.local/state/kprov/kprov.db");
}

TEST(StoreUrl, WithoutAnyPlaceForTheLocalStoreIsRefused) {
    EXPECT_EQ(load_error(sources_with({{"HOME", "relative"}})),
              "no store is configured and neither XDG_STATE_HOME nor HOME is an absolute path to "
              "put the local one under (expected KPROV_STORE or --store, e.g. "
              "sqlite:///var/lib/kprov.db)");
    EXPECT_EQ(load(sources_with({{"KPROV_STORE", "sqlite:///x.db"}})).settings.store_url,
              "sqlite:///x.db");
}

TEST(StoreUrl, DatabaseHostBuildsAPostgresUrlFromAllDatabaseSettings) {
    const Env env{{"HOME", "/home/u"},
                  {"APP_DATABASE_HOST", "pg.internal"},
                  {"APP_DATABASE_PORT", "6543"},
                  {"APP_DATABASE_USER", "prov"},
                  {"APP_DATABASE_PASSWORD", "p@ss:word"},
                  {"APP_DATABASE_NAME", "provisioner"},
                  {"APP_DATABASE_SSLMODE", "verify-full"},
                  {"APP_DATABASE_SSL_ROOT_CERT", "/certs/ca.pem"}};
    const auto effective = load(sources_with(env));
    EXPECT_TRUE(effective.settings.database.host_set);
    EXPECT_EQ(effective.settings.store_url,
              "postgresql://prov:p%40ss%3Aword@pg.internal:6543/provisioner"
              "?sslmode=verify-full&sslrootcert=%2Fcerts%2Fca.pem");
    const auto& entry = entry_of(effective, "store");
    EXPECT_EQ(entry.value, "postgresql://prov:***@pg.internal:6543/provisioner"
                           "?sslmode=verify-full&sslrootcert=%2Fcerts%2Fca.pem");
    EXPECT_EQ(entry.origin, Origin::Environment);
    EXPECT_EQ(entry.source, "APP_DATABASE_HOST");
}

TEST(StoreUrl, TheMisspeltDatabseHostOfTheSeedReadmeWorksToo) {
    const auto effective = load(sources_with(with(k_home, "APP_DATABSE_HOST", "db")));
    EXPECT_TRUE(effective.settings.database.host_set);
    EXPECT_EQ(effective.settings.store_url,
              "postgresql://postgres:password@db:5432/provisioner?sslmode=disable");
    EXPECT_EQ(entry_of(effective, "store").source, "APP_DATABSE_HOST");
}

TEST(StoreUrl, DatabaseHostFromTheConfigFileCounts) {
    testing::TempDir dir;
    const auto file = dir.write("c.yaml", "database:\n  host: filedb\n");
    const auto effective = load(sources_with(k_home, {}, file));
    EXPECT_EQ(effective.settings.store_url,
              "postgresql://postgres:password@filedb:5432/provisioner?sslmode=disable");
    EXPECT_EQ(entry_of(effective, "store").origin, Origin::File);
    EXPECT_EQ(entry_of(effective, "store").source, "file " + file);
}

TEST(StoreUrl, EachExplicitLevelWinsOverTheOnesBelow) {
    testing::TempDir dir;
    const auto file = dir.write("c.yaml", "store: sqlite:///from-file.db\n");
    const auto env = with(k_home, "APP_DATABASE_HOST", "db");

    // The file's store beats APP_DATABASE_* from the environment: "store" is the explicit choice.
    auto effective = load(sources_with(env, {}, file));
    EXPECT_EQ(effective.settings.store_url, "sqlite:///from-file.db");
    EXPECT_EQ(entry_of(effective, "store").origin, Origin::File);

    effective = load(sources_with(with(env, "KPROV_STORE", "sqlite:///from-env.db"), {}, file));
    EXPECT_EQ(effective.settings.store_url, "sqlite:///from-env.db");
    EXPECT_EQ(entry_of(effective, "store").source, "KPROV_STORE");

    effective = load(sources_with(with(env, "KPROV_STORE", "sqlite:///from-env.db"),
                                  {{"store", "postgres://u:pw@flag/db"}}, file));
    EXPECT_EQ(effective.settings.store_url, "postgres://u:pw@flag/db");
    EXPECT_EQ(entry_of(effective, "store").value, "postgres://u:***@flag/db");
    EXPECT_EQ(entry_of(effective, "store").origin, Origin::Flag);
    EXPECT_EQ(entry_of(effective, "store").source, "flag --store");
}

TEST(StoreUrl, ABadStoreUrlIsRefusedWithItsPasswordHidden) {
    EXPECT_EQ(load_error(sources_with(with(k_home, "KPROV_STORE", "/var/lib/kprov.db"))),
              "KPROV_STORE=\"/var/lib/kprov.db\" is not a store URL (expected "
              "sqlite:///abs/path.db or postgres://user:password@host:5432/db)");
    EXPECT_EQ(load_error(sources_with(k_home, {{"store", "://u:pw@h/db"}})),
              "flag --store=\"://u:***@h/db\" is not a store URL (expected "
              "sqlite:///abs/path.db or postgres://user:password@host:5432/db)");
}

} // namespace
} // namespace kprov::config
