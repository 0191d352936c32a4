// The landscape rules (gardener-landscape.md §1.3, §2, §3): effective classifications in both
// forms, Gardener's defaulting, and the checks of a request, on a fake landscape.

#include "engine/input/landscape_check.hpp"
#include "support/fake_clock.hpp"
#include "support/fake_landscape.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const Timestamp k_now = *parse_db_time("2026-08-21 12:00:00");
Timestamp at(const char* text) {
    return *parse_db_time(text);
}

ExpirableVersion legacy(std::string version, std::optional<VersionClass> c,
                        std::optional<Timestamp> expires = std::nullopt) {
    ExpirableVersion v;
    v.version = std::move(version);
    v.classification = c;
    v.expiration_date = expires;
    return v;
}

ExpirableVersion staged(std::string version, std::vector<LifecycleStage> stages) {
    ExpirableVersion v;
    v.version = std::move(version);
    v.lifecycle = std::move(stages);
    return v;
}

TEST(EffectiveClassification, LegacyFieldsBecomeStages) {
    EXPECT_EQ(effective_classification(legacy("1.35.5", std::nullopt), k_now),
              VersionClass::Supported);
    EXPECT_EQ(effective_classification(legacy("1.36.2", VersionClass::Preview), k_now),
              VersionClass::Preview);
    EXPECT_EQ(effective_classification(
                  legacy("1.35.3", VersionClass::Deprecated, at("2026-11-30 23:59:59")), k_now),
              VersionClass::Deprecated);
    // An expirationDate in the past: expired, whatever the classification says.
    EXPECT_EQ(effective_classification(
                  legacy("1.32.13", VersionClass::Deprecated, at("2026-04-24 23:59:59")), k_now),
              VersionClass::Expired);
    // Only an expirationDate: supported until then (the default classification).
    EXPECT_EQ(
        effective_classification(legacy("1.34.1", std::nullopt, at("2026-09-01 00:00:00")), k_now),
        VersionClass::Supported);
    // "Strictly before now": the instant itself still counts as before the expiry.
    EXPECT_EQ(effective_classification(legacy("1.34.1", std::nullopt, k_now), k_now),
              VersionClass::Supported);
}

TEST(EffectiveClassification, LifecycleStagesInListOrder) {
    const auto v = staged("1.36.2", {{VersionClass::Preview, std::nullopt},
                                     {VersionClass::Supported, at("2026-09-15 00:00:00")},
                                     {VersionClass::Deprecated, at("2027-01-01 00:00:00")},
                                     {VersionClass::Expired, at("2027-03-01 00:00:00")}});
    EXPECT_EQ(effective_classification(v, k_now), VersionClass::Preview);
    EXPECT_EQ(effective_classification(v, at("2026-10-01 00:00:00")), VersionClass::Supported);
    EXPECT_EQ(effective_classification(v, at("2027-02-01 00:00:00")), VersionClass::Deprecated);
    EXPECT_EQ(effective_classification(v, at("2027-03-02 00:00:00")), VersionClass::Expired);
    EXPECT_EQ(expiry_of(v), at("2027-03-01 00:00:00"));
    // Every stage in the future: unavailable, and so not active.
    const auto later = staged("1.37.0", {{VersionClass::Preview, at("2027-01-01 00:00:00")}});
    EXPECT_EQ(effective_classification(later, k_now), VersionClass::Unavailable);
    EXPECT_FALSE(is_active(effective_classification(later, k_now)));
}

std::vector<ExpirableVersion> example_versions() {
    return {legacy("1.36.2", VersionClass::Preview),
            legacy("1.35.5", VersionClass::Supported),
            legacy("1.35.3", VersionClass::Deprecated, at("2026-11-30 23:59:59")),
            legacy("1.34.8", VersionClass::Supported),
            legacy("1.34.7", VersionClass::Deprecated, at("2026-10-31 23:59:59")),
            legacy("1.33.11", VersionClass::Deprecated, at("2026-09-30 23:59:59")),
            legacy("1.32.13", VersionClass::Deprecated, at("2026-04-24 23:59:59"))};
}

TEST(Defaulting, MinorBecomesHighestSupportedPatch) {
    const auto versions = example_versions();
    EXPECT_EQ(default_kubernetes_version(versions, "1.35", k_now), "1.35.5");
    EXPECT_EQ(default_kubernetes_version(versions, "1.34", k_now), "1.34.8");
    EXPECT_EQ(default_kubernetes_version(versions, "", k_now), "1.35.5"); // highest supported
    EXPECT_EQ(default_kubernetes_version(versions, "1.36", k_now), std::nullopt); // preview only
    EXPECT_EQ(default_kubernetes_version(versions, "1.33", k_now), std::nullopt); // deprecated
    EXPECT_EQ(default_kubernetes_version(versions, "1.34.7", k_now), "1.34.7");   // exact stays
    EXPECT_EQ(default_kubernetes_version(versions, "1.x", k_now), std::nullopt);
    // "1.3" is not a prefix of "1.34".
    EXPECT_EQ(default_kubernetes_version(versions, "1.3", k_now), std::nullopt);
}

TEST(Defaulting, ImageVersionSkipsPreviewAndPrefersNonDeprecated) {
    MachineImage image{"gardenlinux",
                       {legacy("1900.0.0", VersionClass::Preview),
                        legacy("1877.7.0", VersionClass::Supported),
                        legacy("1877.9.0", VersionClass::Deprecated),
                        legacy("1592.14.0", VersionClass::Deprecated)}};
    for (auto& v : image.versions)
        v.architectures = {"amd64"};
    image.versions[1].architectures = {"amd64", "arm64"};
    EXPECT_EQ(default_image_version(image, "", "amd64", k_now), "1877.7.0");
    EXPECT_EQ(default_image_version(image, "1877", "amd64", k_now), "1877.7.0");
    EXPECT_EQ(default_image_version(image, "1592", "amd64", k_now), "1592.14.0");
    EXPECT_EQ(default_image_version(image, "1900", "amd64", k_now), std::nullopt);
    EXPECT_EQ(default_image_version(image, "", "arm64", k_now), "1877.7.0");
    EXPECT_EQ(default_image_version(image, "1592", "arm64", k_now), std::nullopt);
}

// A GCP config as provisioning makes it.
GardenerConfig gcp_config() {
    GardenerConfig g;
    g.name = "shoot1";
    g.provider = "gcp";
    g.kubernetes_version = "1.34";
    g.region = "europe-west1";
    g.machine_type = "n2-standard-4";
    g.disk_type = "pd-balanced";
    g.volume_size_gb = 50;
    g.target_secret = "gcp-kyma";
    g.auto_scaler_min = 3;
    g.auto_scaler_max = 6;
    g.provider_config = GcpConfig{{"europe-west1-b", "europe-west1-c"}};
    g.cloud_profile = CloudProfileRef{"CloudProfile", "gcp-live"};
    return g;
}

class LandscapeCheck : public ::testing::Test {
protected:
    LandscapeCheck() {
        auto p = fakes::make_profile("gcp-live", "gcp", {"n2-standard-4", "e2-small", "t2a-4"},
                                     {"pd-balanced", "hyperdisk"},
                                     {{"europe-west1", {"europe-west1-b", "europe-west1-c"}},
                                      {"us-central1", {"us-central1-a"}}});
        p.spec.kubernetes_versions = example_versions();
        p.spec.machine_types[1].usable = false;
        p.spec.volume_types[1].usable = false;
        p.spec.regions[0].access_restrictions.clear();
        p.spec.regions[0].zones[0].unavailable_machine_types = {"t2a-4"};
        p.spec.max_nodes_total = 10;
        landscape.profiles.push_back(p);
        landscape.credentials = {
            {"gcp-kyma", "gcp", "v1", "Secret", "gcp-sa", "garden-p"},
            {"aws-kyma", "aws", "v1", "Secret", "aws-keys", "garden-p"},
        };
        landscape.secrets = {{"old-gcp", {"gcp"}, "gcp-sa", "garden-p"},
                             {"orphan", {"gcp"}, "nobody", "garden-p"}};
    }

    std::vector<FieldProblem> problems(GardenerConfig g, LandscapeRequest request = {}) {
        request.now = k_now;
        try {
            check_against_landscape(g, landscape, request);
        } catch (const ValidationError& e) {
            return e.problems();
        }
        return {};
    }

    std::string message_at(const std::vector<FieldProblem>& problems, const std::string& path) {
        for (const auto& p : problems)
            if (p.path == path)
                return p.message;
        ADD_FAILURE() << "no problem at " << path;
        return {};
    }

    fakes::FakeLandscape landscape;
};

TEST_F(LandscapeCheck, AcceptsAndCompletesAGoodRequest) {
    GardenerConfig g = gcp_config();
    LandscapeRequest request;
    request.now = k_now;
    check_against_landscape(g, landscape, request);
    EXPECT_EQ(g.kubernetes_version, "1.34.8");
}

TEST_F(LandscapeCheck, RefusesEverythingAtOnceNamingFieldValueAndOffer) {
    GardenerConfig g = gcp_config();
    g.kubernetes_version = "1.32.13"; // expired
    g.region = "europe-west1";
    g.machine_type = "e2-small"; // unusable
    g.disk_type = "hyperdisk";   // unusable
    g.target_secret = "aws-kyma";
    g.provider_config = GcpConfig{{"europe-west1-b", "eu-west-9z"}};
    g.auto_scaler_max = 1;
    g.auto_scaler_min = 11;
    g.eu_access = true;
    const auto found = problems(g);
    const std::string p = "clusterConfig.gardenerConfig.";
    EXPECT_THAT(message_at(found, p + "kubernetesVersion"),
                AllOf(HasSubstr("\"1.32.13\" is expired"), HasSubstr("1.36.2 (preview)"),
                      HasSubstr("1.35.3 (deprecated, expires 2026-11-30T23:59:59Z)")));
    EXPECT_THAT(message_at(found, p + "machineType"),
                AllOf(HasSubstr("\"e2-small\" is not usable"), HasSubstr("\"n2-standard-4\"")));
    EXPECT_THAT(message_at(found, p + "diskType"),
                AllOf(HasSubstr("\"hyperdisk\""), HasSubstr("\"pd-balanced\"")));
    EXPECT_THAT(message_at(found, p + "targetSecret"),
                AllOf(HasSubstr("\"aws-kyma\" is a CredentialsBinding for provider type aws"),
                      HasSubstr("\"gcp-kyma\"")));
    EXPECT_THAT(message_at(found, p + "providerSpecificConfig.gcpConfig.zones[1]"),
                AllOf(HasSubstr("\"eu-west-9z\""), HasSubstr("\"europe-west1-c\"")));
    EXPECT_THAT(message_at(found, p + "autoScalerMax"), HasSubstr("number of zones (2)"));
    EXPECT_THAT(message_at(found, p + "autoScalerMin"), HasSubstr("limit of 10"));
    EXPECT_THAT(message_at(found, p + "euAccess"), HasSubstr("eu-access-only"));
    EXPECT_EQ(found.size(), 8u);
}

TEST_F(LandscapeCheck, PreviewOnlyWhenNamedExactly) {
    GardenerConfig g = gcp_config();
    g.kubernetes_version = "1.36";
    EXPECT_THAT(message_at(problems(g), "clusterConfig.gardenerConfig.kubernetesVersion"),
                HasSubstr("no version classified supported"));
    g.kubernetes_version = "1.36.2";
    EXPECT_TRUE(problems(g).empty());
}

TEST_F(LandscapeCheck, MachineTypeUnavailableInAZone) {
    GardenerConfig g = gcp_config();
    g.machine_type = "t2a-4";
    EXPECT_THAT(message_at(problems(g), "clusterConfig.gardenerConfig.machineType"),
                HasSubstr("unavailable in at least one of the zones"));
}

TEST_F(LandscapeCheck, RegionAndProfile) {
    GardenerConfig g = gcp_config();
    g.region = "mars-1";
    g.provider_config = GcpConfig{};
    EXPECT_THAT(message_at(problems(g), "clusterConfig.gardenerConfig.region"),
                AllOf(HasSubstr("\"mars-1\""), HasSubstr("\"europe-west1\", \"us-central1\"")));
    g = gcp_config();
    g.cloud_profile = CloudProfileRef{"CloudProfile", "gcp"};
    EXPECT_THAT(message_at(problems(g), "clusterConfig.gardenerConfig.cloudProfile"),
                AllOf(HasSubstr("CloudProfile \"gcp\" does not exist"),
                      HasSubstr("exactly one CloudProfile of provider type gcp exists, "
                                "\"gcp-live\"")));
}

TEST_F(LandscapeCheck, VolumeRequiredWhereTheProviderNeedsOne) {
    GardenerConfig g = gcp_config();
    g.disk_type.reset();
    g.volume_size_gb.reset();
    EXPECT_THAT(message_at(problems(g), "clusterConfig.gardenerConfig.diskType"),
                AllOf(HasSubstr("required for provider type gcp"), HasSubstr("\"pd-balanced\"")));
}

TEST_F(LandscapeCheck, UpgradeRules) {
    GardenerConfig before = gcp_config();
    before.kubernetes_version = "1.33.11";
    LandscapeRequest request;
    request.kind = LandscapeRequest::Kind::Upgrade;
    request.prefix = "gardenerConfig";
    request.before = &before;
    request.live_version = "1.33.11";
    GardenerConfig g = before;
    g.kubernetes_version = "1.35.5";
    EXPECT_THAT(message_at(problems(g, request), "gardenerConfig.kubernetesVersion"),
                HasSubstr("skips a minor version"));
    // Any listed version on update, expired ones too; unlisted ones are refused.
    g.kubernetes_version = "1.34.7";
    EXPECT_TRUE(problems(g, request).empty());
    g.kubernetes_version = "1.34.99";
    EXPECT_THAT(message_at(problems(g, request), "gardenerConfig.kubernetesVersion"),
                HasSubstr("is not offered"));
    // What did not change is not checked: an unusable type kept from before passes.
    before.machine_type = "e2-small";
    g = before;
    EXPECT_TRUE(problems(g, request).empty());
}

TEST_F(LandscapeCheck, SecretBindingMigrationFindsTheSameSecret) {
    EXPECT_EQ(credentials_binding_for(landscape, "old-gcp", "gardenerConfig.kubernetesVersion"),
              "gcp-kyma");
    try {
        credentials_binding_for(landscape, "orphan", "gardenerConfig.kubernetesVersion");
        FAIL() << "no refusal";
    } catch (const ValidationError& e) {
        EXPECT_THAT(e.problems().at(0).message,
                    AllOf(HasSubstr("\"orphan\""), HasSubstr("create one"),
                          HasSubstr("name: nobody, namespace: garden-p")));
    }
}

TEST(CachedLandscape, ReadsOncePerLifetime) {
    fakes::FakeLandscape inner;
    fakes::fill_fixture_landscape(inner);
    fakes::FakeClock clock(k_now);
    CachedLandscape once(inner, clock, std::chrono::seconds(0));
    (void)once.credentials_bindings();
    clock.advance(std::chrono::hours(5));
    (void)once.credentials_bindings();
    EXPECT_EQ(inner.calls, 1);
    CachedLandscape short_lived(inner, clock, std::chrono::seconds(30));
    (void)short_lived.cloud_profile({"CloudProfile", "gcp"});
    (void)short_lived.cloud_profile({"CloudProfile", "gcp"});
    EXPECT_EQ(inner.calls, 2);
    clock.advance(std::chrono::seconds(31));
    EXPECT_TRUE(short_lived.cloud_profile({"CloudProfile", "gcp"}).has_value());
    EXPECT_EQ(inner.calls, 3);
}

} // namespace
} // namespace kprov::engine
