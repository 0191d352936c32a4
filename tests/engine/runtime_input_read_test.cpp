// read_provision_input and read_upgrade_input: the parser's and the validator's problems in one
// error, without follow-on problems; the provider members kprov ignores, and its warnings.

#include "runtime_input_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using namespace testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<FieldProblem> read_problems(const json& document) {
    return problems_of([&] { (void)read_provision_input(document, k_options); });
}

const std::string k_gardener = "clusterConfig.gardenerConfig";

TEST(RuntimeInputRead, AValidDocumentReadsAsParseDoes) {
    const auto input = read_provision_input(provision_document(), k_options);
    EXPECT_EQ(input.gardener.name, "shoot1");
    EXPECT_EQ(input.runtime.labels_json,
              parse_provision_input(provision_document()).runtime.labels_json);
}

TEST(RuntimeInputRead, AnUnknownFieldIsReportedWithEveryOtherProblem) {
    json doc = provision_document();
    gardener(doc)["purpos"] = "production";       // unknown, a typo
    gardener(doc)["machineImageVersion"] = "1.0"; // the original's rule
    gardener(doc)["providerSpecificConfig"]["gcpConfig"]["zones"] = json::array();
    gardener(doc)["name"] = "Shoot_1";
    gardener(doc)["autoScalerMin"] = 5; // above autoScalerMax 4
    EXPECT_THAT(
        lines(read_problems(doc)),
        ElementsAre(k_gardener + ": unknown field \"purpos\"; did you mean \"purpose\"?",
                    k_gardener + ".machineImageVersion: Cluster config validation error while "
                                 "starting Runtime provisioning, error: Machine Image Version "
                                 "passed while Machine Image is empty",
                    k_gardener + ".providerSpecificConfig.gcpConfig.zones: must list at least "
                                 "one zone",
                    k_gardener + ".name: must be a DNS label (lowercase letters, digits and '-', "
                                 "starting and ending with a letter or digit), got \"Shoot_1\"",
                    k_gardener + ".autoScalerMax: must be at least autoScalerMin (5), got 4"));
}

TEST(RuntimeInputRead, AFieldThatDidNotParseGetsNoFollowOnProblems) {
    json doc = provision_document();
    gardener(doc).erase("name");             // not also "must be a DNS label, got \"\""
    gardener(doc)["autoScalerMax"] = "four"; // not also "must be at least autoScalerMin"
    gardener(doc)["maxSurge"] = true;        // not also "maxUnavailable must be > 0"
    gardener(doc)["maxUnavailable"] = 0;
    gardener(doc)["machineImage"] = 7; // not also "Machine Image Version passed ..."
    gardener(doc)["machineImageVersion"] = "1.0";
    gardener(doc)["providerSpecificConfig"]["gcpConfig"]["zones"] = {3}; // not "at least one"
    gardener(doc)["controlPlaneFailureTolerance"] = 1;
    EXPECT_THAT(paths(read_problems(doc)),
                ElementsAre(k_gardener + ".name", k_gardener + ".machineImage",
                            k_gardener + ".autoScalerMax", k_gardener + ".maxSurge",
                            k_gardener + ".providerSpecificConfig.gcpConfig.zones[0]",
                            k_gardener + ".controlPlaneFailureTolerance"));

    doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["gcpConfig"] = "europe-west3-b";
    EXPECT_THAT(lines(read_problems(doc)),
                ElementsAre(k_gardener + ".providerSpecificConfig.gcpConfig: must be an object "
                                         "(GCPProviderConfigInput), got \"europe-west3-b\""));

    doc = provision_document();
    doc["kymaConfig"] = {{"version", "2.0"}, {"components", {1}}};
    EXPECT_THAT(paths(read_problems(doc)), ElementsAre("kymaConfig.components[0]"));

    EXPECT_THAT(lines(read_problems(json::array())),
                ElementsAre(": must be an object (ProvisionRuntimeInput), got a list"));
    EXPECT_THAT(paths(read_problems(json::object())), ElementsAre("runtimeInput", "clusterConfig"));
}

TEST(RuntimeInputRead, UpgradeReportsEveryProblemAtOnce) {
    const json doc = json::parse(R"({"gardenerConfig": {"machineTyp": "m5.large",
        "machineType": "", "autoScalerMin": -1, "maxSurge": "one", "volumeSizeGB": 0}})");
    EXPECT_THAT(lines(problems_of([&] { (void)read_upgrade_input(doc); })),
                ElementsAre("gardenerConfig: unknown field \"machineTyp\"; did you mean "
                            "\"machineType\"?",
                            "gardenerConfig.maxSurge: must be an integer, got \"one\"",
                            "gardenerConfig.machineType: empty machine type provided",
                            "gardenerConfig.autoScalerMin: must be 0 or more, got -1",
                            "gardenerConfig.volumeSizeGB: must be greater than 0, got 0"));
    EXPECT_NO_THROW((void)read_upgrade_input(json::parse(R"({"gardenerConfig": {}})")));
}

// The original's own e2e client sends gcpConfig and azureConfig for a GCP runtime.
TEST(RuntimeInputRead, TheProvidersMemberIsUsedAndTheOthersAreNamedInWarnings) {
    json doc = provision_document();
    gardener(doc)["providerSpecificConfig"]["azureConfig"] = {{"vnetCidr", "10.250.0.0/16"}};
    gardener(doc)["providerSpecificConfig"]["awsConfig"] = {{"vpcCidr", "x"},
                                                            {"awsZones", json::array()}};
    const auto input = read_provision_input(doc, k_options);
    EXPECT_THAT(provision_input_warnings(input),
                ElementsAre(k_gardener + ".providerSpecificConfig.azureConfig is ignored: "
                                         "provider \"gcp\" uses gcpConfig",
                            k_gardener + ".providerSpecificConfig.awsConfig is ignored: "
                                         "provider \"gcp\" uses gcpConfig"));
    const auto runtime = to_runtime(input, "rt", "t", "", Timestamp{}, k_options);
    ASSERT_TRUE(std::holds_alternative<GcpConfig>(runtime.gardener.provider_config));
    EXPECT_THAT(std::get<GcpConfig>(runtime.gardener.provider_config).zones,
                ElementsAre("europe-west3-b"));

    EXPECT_THAT(provision_input_warnings(read_provision_input(provision_document(), k_options)),
                IsEmpty());
    // Without its own member the request is still refused, whatever else it carries.
    gardener(doc)["provider"] = "openstack";
    gardener(doc).erase("diskType");
    gardener(doc).erase("volumeSizeGB");
    EXPECT_THAT(lines(read_problems(doc)),
                ElementsAre(k_gardener + ".providerSpecificConfig: openStackConfig is missing "
                                         "(provider \"openstack\" needs it)"));
}

// Values that never reach the shoot, which the original accepted, and so does kprov.
TEST(RuntimeInputRead, ValuesTheShootDoesNotUseAreNotChecked) {
    json doc = provision_document();
    gardener(doc).erase("diskType");
    gardener(doc)["volumeSizeGB"] = 0; // a volume is sent only with a diskType
    EXPECT_NO_THROW((void)read_provision_input(doc, k_options));
    gardener(doc)["diskType"] = "pd-ssd";
    EXPECT_THAT(paths(read_problems(doc)), ElementsAre(k_gardener + ".volumeSizeGB"));

    doc = provision_document();
    gardener(doc)["provider"] = "aws"; // AWS takes its networks from vpcCidr and the zones
    gardener(doc)["workerCidr"] = "n/a";
    gardener(doc)["providerSpecificConfig"] = json::parse(R"({"awsConfig": {"vpcCidr":
        "10.250.0.0/16", "awsZones": [{"name": "eu-central-1a", "publicCidr": "10.250.32.0/20",
        "internalCidr": "10.250.48.0/20", "workerCidr": "10.250.0.0/19"}]}})");
    EXPECT_NO_THROW((void)read_provision_input(doc, k_options));
    gardener(doc)["provider"] = "gcp"; // GCP uses it as the nodes network
    gardener(doc)["providerSpecificConfig"] = {{"gcpConfig", {{"zones", {"europe-west3-b"}}}}};
    EXPECT_THAT(paths(read_problems(doc)), ElementsAre(k_gardener + ".workerCidr"));
}

} // namespace
} // namespace kprov::engine
