// Shoot admission against the default landscape, one test per rule family, with Gardener's
// codes, reasons and messages (gardener-landscape.md §0-§4).

#include "sim_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

class Admission : public ::testing::Test {
protected:
    SimFixture f;
    Resp create(const Json& body) { return f.http->post(f.shoots(), body.dump()); }
    // PUT of the stored shoot after `edit`, retried while the lifecycle writes meanwhile (409).
    Resp update(const std::string& name, const std::function<void(Json&)>& edit) {
        Resp r;
        for (int attempt = 0; attempt < 20; ++attempt) {
            Json s = f.http->get(f.shoot(name)).json;
            edit(s);
            r = f.http->put(f.shoot(name), s.dump());
            if (r.status != 409)
                break;
        }
        return r;
    }
};

std::string message(const Resp& r) {
    return r.json.value("message", "");
}

void expect_refusal(const Resp& r, int code, const std::string& reason, const std::string& text) {
    ASSERT_EQ(r.status, code) << r.body;
    EXPECT_EQ(r.json.value("reason", ""), reason) << r.body;
    EXPECT_EQ(message(r), text);
}

const std::string k_forbidden = "shoots.core.gardener.cloud \"s\" is forbidden: ";
const std::string k_invalid = "Shoot.core.gardener.cloud \"s\" is invalid: ";

Json gcp_shoot(const std::string& name) {
    Json s = shoot_body(name);
    s["spec"]["cloudProfile"]["name"] = "gcp";
    s["spec"]["credentialsBindingName"] = "gcp-kyma-dev";
    s["spec"]["region"] = "europe-west3";
    s["spec"]["provider"] = {{"type", "gcp"},
                             {"infrastructureConfig",
                              {{"apiVersion", "gcp.provider.extensions.gardener.cloud/v1alpha1"},
                               {"kind", "InfrastructureConfig"}}},
                             {"controlPlaneConfig",
                              {{"apiVersion", "gcp.provider.extensions.gardener.cloud/v1alpha1"},
                               {"kind", "ControlPlaneConfig"}}},
                             {"workers",
                              {{{"name", "cpu-worker-0"},
                                {"machine", {{"type", "n2-standard-4"}}},
                                {"minimum", 1},
                                {"maximum", 3},
                                {"zones", {"europe-west3-a"}},
                                {"volume", {{"type", "pd-balanced"}, {"size", "50Gi"}}}}}}};
    s["spec"]["networking"].erase("nodes");
    return s;
}

} // namespace

TEST_F(Admission, AMissingProfileIsAnInternalErrorOfTheMutator) {
    Json s = shoot_body("s");
    s["spec"]["cloudProfile"]["name"] = "nope";
    Resp r = create(s);
    expect_refusal(r, 500, "InternalError",
                   "Internal error occurred: could not find referenced cloud profile: "
                   "cloudprofile.core.gardener.cloud \"nope\" not found");
    Json both = shoot_body("s");
    both["spec"]["cloudProfileName"] = "aws";
    Resp b = create(both);
    ASSERT_EQ(b.status, 500) << b.body;
    EXPECT_EQ(message(b), "new shoot can only specify either cloudProfileName or cloudProfile "
                          "reference");
}

TEST_F(Admission, KubernetesVersionsAreDefaultedToTheHighestSupportedPatch) {
    Json s = shoot_body("a");
    s["spec"]["kubernetes"]["version"] = "1.34";
    Resp r = create(s);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.json["spec"]["kubernetes"]["version"], "1.34.6");
    Json any = shoot_body("b");
    any["spec"]["kubernetes"].erase("version");
    Resp a = create(any);
    ASSERT_EQ(a.status, 201) << a.body;
    EXPECT_EQ(a.json["spec"]["kubernetes"]["version"], "1.35.4");

    Json preview = shoot_body("s");
    preview["spec"]["kubernetes"]["version"] = "1.36";
    expect_refusal(create(preview), 403, "Forbidden",
                   k_forbidden +
                       "spec.kubernetes.version: Invalid value: \"1.36\": couldn't find a "
                       "suitable version for 1.36. Suitable versions have a non-expired "
                       "expiration date and are no 'preview' versions. 'Preview'-classified "
                       "versions have to be selected explicitly");
    preview["spec"]["kubernetes"]["version"] = "1.33"; // only a deprecated patch
    EXPECT_EQ(create(preview).status, 403);
    preview["spec"]["kubernetes"]["version"] = "1.36.1"; // an explicit preview is fine
    EXPECT_EQ(create(preview).status, 201);
}

TEST_F(Admission, ACreateNeedsAnActiveListedVersion) {
    Json s = shoot_body("s");
    s["spec"]["kubernetes"]["version"] = "1.32.8"; // expired
    expect_refusal(create(s), 403, "Forbidden",
                   k_forbidden +
                       "spec.kubernetes.version: Unsupported value: \"1.32.8\": supported values: "
                       "\"1.36.1 (preview)\", \"1.35.4\", \"1.35.2\", \"1.34.6\", \"1.34.3\", "
                       "\"1.33.9\", \"1.32.12\"");
    s["spec"]["kubernetes"]["version"] = "1.31.4";
    EXPECT_EQ(create(s).status, 403);
}

TEST_F(Admission, UpgradesMayNotDowngradeOrSkipAMinor) {
    Json s = shoot_body("s");
    s["spec"]["kubernetes"]["version"] = "1.33.9";
    ASSERT_EQ(create(s).status, 201);
    Resp skip = update("s", [](Json& o) { o["spec"]["kubernetes"]["version"] = "1.35.4"; });
    expect_refusal(skip, 422, "Invalid",
                   k_invalid + "spec.kubernetes.version: Forbidden: kubernetes version upgrade "
                               "cannot skip a minor version");
    Resp up = update("s", [](Json& o) { o["spec"]["kubernetes"]["version"] = "1.34.6"; });
    ASSERT_EQ(up.status, 200) << up.body;
    Resp down = update("s", [](Json& o) { o["spec"]["kubernetes"]["version"] = "1.34.3"; });
    expect_refusal(down, 422, "Invalid",
                   k_invalid + "spec.kubernetes.version: Forbidden: kubernetes version downgrade "
                               "is not supported");
}

TEST_F(Admission, RegionsZonesAndAccessRestrictionsComeFromTheProfile) {
    Json s = shoot_body("s");
    s["spec"]["region"] = "mars-1";
    Resp region = create(s);
    ASSERT_EQ(region.status, 403) << region.body;
    EXPECT_NE(message(region).find("spec.region: Unsupported value: \"mars-1\": supported "
                                   "values: \"eu-central-1\", \"eu-west-1\""),
              std::string::npos)
        << message(region);

    Json zone = shoot_body("s");
    zone["spec"]["provider"]["workers"][0]["zones"] = {"eu-west-1a"};
    expect_refusal(create(zone), 403, "Forbidden",
                   k_forbidden + "spec.provider.workers[0].zones[0]: Unsupported value: "
                                 "\"eu-west-1a\": supported values: \"eu-central-1a\", "
                                 "\"eu-central-1b\", \"eu-central-1c\"");
    zone["spec"]["provider"]["workers"][0]["zones"] = {"eu-central-1a", "eu-central-1a"};
    Resp dup = create(zone);
    ASSERT_EQ(dup.status, 403) << dup.body;
    EXPECT_NE(message(dup).find("zones[1]: Duplicate value: \"eu-central-1a\""), std::string::npos);

    Json eu = shoot_body("s");
    eu["spec"]["region"] = "eu-west-1";
    eu["spec"]["provider"]["workers"][0]["zones"] = {"eu-west-1a"};
    eu["spec"]["accessRestrictions"] = {{{"name", "eu-access-only"}}};
    expect_refusal(create(eu), 403, "Forbidden",
                   k_forbidden + "spec.accessRestrictions[0]: Unsupported value: "
                                 "\"eu-access-only\": supported values: ");
    Json frankfurt = shoot_body("s");
    frankfurt["spec"]["accessRestrictions"] = {{{"name", "eu-access-only"}}};
    EXPECT_EQ(create(frankfurt).status, 201);
}

TEST_F(Admission, MachineTypesMustExistBeUsableAndAvailable) {
    Json s = shoot_body("s");
    s["spec"]["provider"]["workers"][0]["machine"]["type"] = "x9.huge";
    Resp unknown = create(s);
    ASSERT_EQ(unknown.status, 403) << unknown.body;
    EXPECT_NE(message(unknown).find("spec.provider.workers[0].machine.type: Unsupported value: "
                                    "\"x9.huge\": supported values: \"c7i.2xlarge\", "
                                    "\"g4dn.xlarge\", \"m5.2xlarge\""),
              std::string::npos)
        << message(unknown);
    s["spec"]["provider"]["workers"][0]["machine"]["type"] = "t3.small";
    Resp unusable = create(s);
    ASSERT_EQ(unusable.status, 403);
    EXPECT_NE(message(unusable).find("Invalid value: \"t3.small\": machine type \"t3.small\" is "
                                     "unusable, supported types are [c7i.2xlarge"),
              std::string::npos)
        << message(unusable);
    s["spec"]["provider"]["workers"][0]["machine"]["type"] = "g4dn.xlarge";
    s["spec"]["provider"]["workers"][0]["zones"] = {"eu-central-1c"};
    Resp zone = create(s);
    ASSERT_EQ(zone.status, 403);
    EXPECT_NE(message(zone).find("machine type \"g4dn.xlarge\" is unavailable in at least one "
                                 "zone, supported types are"),
              std::string::npos)
        << message(zone);
    s["spec"]["provider"]["workers"][0]["machine"]["type"] = "m7g.xlarge";
    s["spec"]["provider"]["workers"][0]["machine"]["architecture"] = "amd64";
    Resp arch = create(s);
    ASSERT_EQ(arch.status, 403);
    EXPECT_NE(message(arch).find("does not support CPU architecture \"amd64\""), std::string::npos);
    s["spec"]["provider"]["workers"][0]["machine"].erase("architecture"); // from the type
    Resp arm = create(s);
    ASSERT_EQ(arm.status, 201) << arm.body;
    EXPECT_EQ(arm.json["spec"]["provider"]["workers"][0]["machine"]["architecture"], "arm64");
}

TEST_F(Admission, MachineImagesAreDefaultedAndChecked) {
    Resp r = create(shoot_body("a"));
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.json["spec"]["provider"]["workers"][0]["machine"]["image"],
              Json::parse(R"({"name":"gardenlinux","version":"1877.7.0"})"));
    Json s = shoot_body("s");
    s["spec"]["provider"]["workers"][0]["machine"]["image"] = {{"name", "ubuntu"}};
    expect_refusal(create(s), 403, "Forbidden",
                   k_forbidden + "spec.provider.workers[0]: Invalid value: \"ubuntu\": image is "
                                 "not supported");
    s["spec"]["provider"]["workers"][0]["machine"]["image"] = {{"name", "gardenlinux"},
                                                               {"version", "1443.3.0"}};
    Resp old = create(s);
    ASSERT_EQ(old.status, 403);
    EXPECT_NE(message(old).find("machine.image.version: Unsupported value: \"1443.3.0\": "
                                "supported values: \"gardenlinux:1877.7.0\""),
              std::string::npos)
        << message(old);
    s["spec"]["kubernetes"]["version"] = "1.35.4";
    s["spec"]["provider"]["workers"][0]["machine"]["image"]["version"] = "1592.14.0";
    Resp kubelet = create(s);
    ASSERT_EQ(kubelet.status, 403);
    EXPECT_NE(message(kubelet).find("machine image 'gardenlinux@1592.14.0' does not support "
                                    "kubelet version '1.35.4', supported kubelet versions by "
                                    "this machine image version: '< 1.35'"),
              std::string::npos)
        << message(kubelet);
}

TEST_F(Admission, VolumesAreRequiredCheckedAndBigEnough) {
    Json s = shoot_body("s");
    s["spec"]["provider"]["workers"][0].erase("volume");
    expect_refusal(create(s), 403, "Forbidden",
                   "admission webhook \"validator.admission-aws.extensions.gardener.cloud\" "
                   "denied the request: spec.provider.workers[0].volume: Required value: must "
                   "not be nil");
    s["spec"]["provider"]["workers"][0]["volume"] = {{"type", "st9"}, {"size", "50Gi"}};
    expect_refusal(create(s), 403, "Forbidden",
                   k_forbidden + "spec.provider.workers[0].volume.type: Unsupported value: "
                                 "\"st9\": supported values: \"gp2\", \"gp3\", \"io1\"");
    s["spec"]["provider"]["workers"][0]["volume"] = {{"type", "gp3"}, {"size", "10Gi"}};
    expect_refusal(create(s), 403, "Forbidden",
                   k_forbidden + "spec.provider.workers[0].volume.size: Invalid value: \"10Gi\": "
                                 "size must be >= 20Gi");
    Json gcp = gcp_shoot("s");
    gcp["spec"]["provider"]["workers"][0]["volume"]["type"] = "hyperdisk-balanced";
    Resp unusable = create(gcp);
    ASSERT_EQ(unusable.status, 403);
    EXPECT_NE(message(unusable).find("volume type \"hyperdisk-balanced\" is unusable, supported "
                                     "types are [pd-balanced pd-ssd pd-standard]"),
              std::string::npos)
        << message(unusable);
    EXPECT_EQ(create(gcp_shoot("g")).status, 201);
}

TEST_F(Admission, NodeCountsFollowZonesAndTheProfileLimit) {
    Json s = shoot_body("s");
    s["spec"]["provider"]["workers"][0]["zones"] = {"eu-central-1a", "eu-central-1b",
                                                    "eu-central-1c"};
    s["spec"]["provider"]["workers"][0]["maximum"] = 2;
    s["spec"]["provider"]["workers"][0]["minimum"] = 1;
    expect_refusal(create(s), 422, "Invalid",
                   k_invalid + "spec.provider.workers[0].maximum: Forbidden: maximum node count "
                               "should be greater than or equal to the number of zones specified "
                               "for this pool");
    Json gcp = gcp_shoot("s");
    gcp["spec"]["provider"]["workers"][0]["minimum"] = 301;
    gcp["spec"]["provider"]["workers"][0]["maximum"] = 301;
    expect_refusal(create(gcp), 403, "Forbidden",
                   k_forbidden + "spec.provider.workers: Forbidden: the total minimum node count "
                                 "of all worker pools must not exceed the limit of 300 configured "
                                 "in the CloudProfile");
}

TEST_F(Admission, BindingsMustExistAndMatchTheProvider) {
    Json none = shoot_body("s");
    none["spec"].erase("credentialsBindingName");
    expect_refusal(create(none), 422, "Invalid",
                   k_invalid + "spec.secretBindingName: Required value: must be set when "
                               "credentialsBindingName is not");
    Json missing = shoot_body("s");
    missing["spec"]["credentialsBindingName"] = "aws-binding";
    expect_refusal(create(missing), 403, "Forbidden",
                   k_forbidden + "credentialsbinding.security.gardener.cloud \"aws-binding\" not "
                                 "found");
    Json other = shoot_body("s");
    other["spec"]["credentialsBindingName"] = "gcp-kyma-dev";
    expect_refusal(create(other), 403, "Forbidden",
                   k_forbidden + "spec.provider.type: Invalid value: \"aws\": provider type in "
                                 "shoot must match provider type of referenced CredentialsBinding: "
                                 "\"gcp\"");
    Json profile = shoot_body("s");
    profile["spec"]["cloudProfile"]["name"] = "gcp";
    Resp r = create(profile);
    ASSERT_EQ(r.status, 403);
    EXPECT_NE(message(r).find("provider type in shoot must equal provider type of referenced "
                              "CloudProfile: \"gcp\""),
              std::string::npos)
        << message(r);
}

TEST_F(Admission, ASecretBindingShootMovesToTheCredentialsBindingOfTheSameSecret) {
    const std::string sb = "/apis/core.gardener.cloud/v1beta1/namespaces/garden-dev/secretbindings";
    for (const char* secret : {"aws-kyma-dev", "aws-other"}) {
        Json binding = {{"metadata", {{"name", std::string("legacy-") + secret}}},
                        {"provider", {{"type", "aws"}}},
                        {"secretRef", {{"name", secret}, {"namespace", "garden-dev"}}}};
        ASSERT_EQ(f.http->post(sb, binding.dump()).status, 201);
    }
    for (const char* name : {"s", "t"}) {
        Json s = shoot_body(name);
        s["spec"].erase("credentialsBindingName");
        s["spec"]["secretBindingName"] =
            name == std::string("s") ? "legacy-aws-kyma-dev" : "legacy-aws-other";
        s["spec"]["kubernetes"]["version"] = "1.33.9";
        ASSERT_EQ(create(s).status, 201) << name;
    }
    Resp keep = update("s", [](Json& o) { o["spec"]["kubernetes"]["version"] = "1.34.6"; });
    expect_refusal(keep, 422, "Invalid",
                   k_invalid + "spec.secretBindingName: Forbidden: for Kubernetes versions >= "
                               "1.34, secretBindingName field is no longer supported, use "
                               "spec.credentialsBindingName instead");
    auto migrate = [](Json& o) {
        o["spec"]["kubernetes"]["version"] = "1.34.6";
        o["spec"].erase("secretBindingName");
        o["spec"]["credentialsBindingName"] = "aws-kyma-dev";
    };
    Resp moved = update("s", migrate);
    ASSERT_EQ(moved.status, 200) << moved.body;
    EXPECT_FALSE(moved.json["spec"].contains("secretBindingName"));
    EXPECT_FALSE(moved.json["spec"].contains("cloudProfileName"))
        << "an unchanged cloudProfileName is cleared at 1.34";
    Resp other = update("t", migrate);
    expect_refusal(other, 403, "Forbidden",
                   "shoots.core.gardener.cloud \"t\" is forbidden: it is not allowed to change "
                   "the referenced Secret when migrating from SecretBindingName to "
                   "CredentialsBindingName");
}

TEST_F(Admission, RetiredFieldsAreRefusedFromTheirVersionOn) {
    Json legacy = shoot_body("s");
    legacy["spec"].erase("cloudProfile");
    legacy["spec"]["cloudProfileName"] = "aws";
    expect_refusal(create(legacy), 422, "Invalid",
                   k_invalid + "spec.cloudProfileName: Forbidden: for Kubernetes version >= "
                               "1.34, cloudProfileName field is no longer supported, use "
                               "spec.cloudProfile.name instead");
    legacy["spec"]["kubernetes"]["version"] = "1.33.9";
    Resp old = create(legacy);
    ASSERT_EQ(old.status, 201) << old.body;
    EXPECT_EQ(old.json["spec"]["cloudProfile"]["name"], "aws");

    Json dns = shoot_body("d");
    dns["spec"]["kubernetes"]["version"] = "1.35.4";
    dns["spec"]["dns"] = {{"domain", "d.example.com"},
                          {"providers", {{{"type", "aws-route53"}, {"secretName", "dns"}}}}};
    Resp d = create(dns);
    ASSERT_EQ(d.status, 422) << d.body;
    EXPECT_EQ(message(d), "Shoot.core.gardener.cloud \"d\" is invalid: "
                          "spec.dns.providers[0].secretName: Forbidden: for Kubernetes versions "
                          ">= 1.35, secretName field is no longer supported");
    dns["spec"]["dns"]["providers"][0].erase("secretName");
    dns["spec"]["dns"]["providers"][0]["credentialsRef"] = {
        {"apiVersion", "v1"}, {"kind", "Secret"}, {"name", "dns"}};
    Resp ref = create(dns);
    ASSERT_EQ(ref.status, 403) << ref.body;
    EXPECT_NE(message(ref).find("failed to resolve credentials reference of type Secret"),
              std::string::npos);
    dns["spec"]["dns"]["providers"][0]["credentialsRef"]["name"] = "aws-kyma-dev";
    EXPECT_EQ(create(dns).status, 201);

    Json oidc = shoot_body("s");
    oidc["spec"]["kubernetes"]["kubeAPIServer"] = {
        {"oidcConfig", {{"clientID", "kprov"}, {"issuerURL", "https://issuer.example"}}}};
    Resp o = create(oidc);
    ASSERT_EQ(o.status, 422) << o.body;
    EXPECT_NE(message(o).find("spec.kubernetes.kubeAPIServer.oidcConfig: Invalid value: "),
              std::string::npos);
    EXPECT_NE(message(o).find(": for Kubernetes versions >= 1.32, oidcConfig field is no longer "
                              "supported"),
              std::string::npos);
}

TEST_F(Admission, KubectlAndEveryClientMeetTheSameRules) {
    // The rules live in the server: a JSON patch (kubectl patch) is refused as a PUT is.
    ASSERT_EQ(create(shoot_body("p")).status, 201);
    Resp r = f.http->patch(
        f.shoot("p"), R"([{"op":"replace","path":"/spec/kubernetes/version","value":"1.32.12"}])",
        "application/json-patch+json");
    expect_refusal(r, 422, "Invalid",
                   "Shoot.core.gardener.cloud \"p\" is invalid: spec.kubernetes.version: "
                   "Forbidden: kubernetes version downgrade is not supported");
}
