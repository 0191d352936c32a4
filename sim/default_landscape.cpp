// The landscape kprov-sim starts with: four CloudProfiles shaped like a current landscape's
// (gardener-landscape.md §1.5), one per provider, and a CredentialsBinding per provider in the
// --project namespace. Dates are relative to the start, so the classifications stay current.
// Tests and examples of kprov name these values; change them together.

#include "landscape.hpp"

namespace kprov::sim {

namespace {

constexpr int k_no_expiry = 0;

struct VersionRow {
    const char* version;
    const char* classification;
    int expires_in_days; ///< k_no_expiry: none; negative: already expired
};

// The same Kubernetes versions in every profile, as a landscape offers them today.
constexpr VersionRow k_kubernetes[] = {
    {"1.36.1", "preview", k_no_expiry}, {"1.35.4", "supported", k_no_expiry},
    {"1.35.2", "deprecated", 60},       {"1.34.6", "supported", k_no_expiry},
    {"1.34.3", "deprecated", 30},       {"1.33.9", "deprecated", 90},
    {"1.32.12", "deprecated", 14},      {"1.32.8", "deprecated", -30},
};

struct ImageRow {
    const char* name;
    const char* version;
    const char* classification;
    int expires_in_days;
    bool arm64;
    const char* kubelet_constraint; ///< "" for none
};

// Garden Linux as Gardener's landscapes ship it; 1592 does not run kubelets >= 1.35.
constexpr ImageRow k_images[] = {
    {"gardenlinux", "1877.7.0", "supported", k_no_expiry, true, ""},
    {"gardenlinux", "1877.5.0", "deprecated", 60, true, ""},
    {"gardenlinux", "1592.14.0", "deprecated", 45, false, "< 1.35"},
};

struct MachineRow {
    const char* name;
    const char* cpu;
    const char* gpu;
    const char* memory;
    const char* architecture;
    bool usable;
};

struct VolumeRow {
    const char* name;
    const char* volume_class;
    bool usable;
    const char* min_size; ///< "" for none
};

struct ZoneRow {
    const char* name;
    std::vector<const char*> unavailable_machine_types;
    std::vector<const char*> unavailable_volume_types;
};

struct RegionRow {
    const char* name;
    bool eu_access;
    std::vector<ZoneRow> zones;
};

struct ProfileRow {
    const char* name;
    const char* type;
    std::vector<MachineRow> machines;
    std::vector<VolumeRow> volumes;
    std::vector<RegionRow> regions;
    int max_nodes_total;
};

const std::vector<ProfileRow>& profiles() {
    static const std::vector<ProfileRow> rows = {
        {"aws",
         "aws",
         {{"m6i.large", "2", "0", "8Gi", "amd64", true},
          {"m6i.xlarge", "4", "0", "16Gi", "amd64", true},
          {"m6i.2xlarge", "8", "0", "32Gi", "amd64", true},
          {"m5.large", "2", "0", "8Gi", "amd64", true},
          {"m5.xlarge", "4", "0", "16Gi", "amd64", true},
          {"m5.2xlarge", "8", "0", "32Gi", "amd64", true},
          {"c7i.2xlarge", "8", "0", "16Gi", "amd64", true},
          {"m7g.xlarge", "4", "0", "16Gi", "arm64", true},
          {"g4dn.xlarge", "4", "1", "16Gi", "amd64", true},
          {"t3.small", "2", "0", "2Gi", "amd64", false}},
         {{"gp3", "standard", true, "20Gi"},
          {"gp2", "standard", true, "20Gi"},
          {"io1", "premium", true, "20Gi"}},
         {{"eu-central-1",
           true,
           {{"eu-central-1a", {}, {}},
            {"eu-central-1b", {}, {}},
            {"eu-central-1c", {"g4dn.xlarge"}, {}}}},
          {"eu-west-1",
           false,
           {{"eu-west-1a", {}, {}}, {"eu-west-1b", {}, {}}, {"eu-west-1c", {}, {}}}},
          {"us-east-1",
           false,
           {{"us-east-1a", {}, {}},
            {"us-east-1b", {}, {}},
            {"us-east-1c", {}, {}},
            {"us-east-1d", {"m7g.xlarge"}, {}}}},
          {"ap-southeast-1",
           false,
           {{"ap-southeast-1a", {}, {}},
            {"ap-southeast-1b", {}, {}},
            {"ap-southeast-1c", {}, {}}}}},
         1000},
        {"az",
         "azure",
         {{"Standard_D2s_v5", "2", "0", "8Gi", "amd64", true},
          {"Standard_D4s_v5", "4", "0", "16Gi", "amd64", true},
          {"Standard_D8s_v5", "8", "0", "32Gi", "amd64", true},
          {"Standard_D16s_v5", "16", "0", "64Gi", "amd64", true},
          {"Standard_D4ps_v5", "4", "0", "16Gi", "arm64", true},
          {"Standard_NC4as_T4_v3", "4", "1", "28Gi", "amd64", true},
          {"Standard_A2_v2", "2", "0", "4Gi", "amd64", false}},
         {{"StandardSSD_LRS", "standard", true, ""},
          {"Standard_LRS", "standard", true, ""},
          {"Premium_LRS", "premium", true, ""}},
         {{"westeurope", true, {{"1", {}, {}}, {"2", {}, {}}, {"3", {"Standard_NC4as_T4_v3"}, {}}}},
          {"northeurope", false, {{"1", {}, {}}, {"2", {}, {}}, {"3", {}, {}}}},
          {"eastus", false, {{"1", {}, {}}, {"2", {}, {}}, {"3", {}, {}}}}},
         1000},
        {"gcp",
         "gcp",
         {{"e2-medium", "2", "0", "4Gi", "amd64", true},
          {"e2-standard-4", "4", "0", "16Gi", "amd64", true},
          {"e2-standard-8", "8", "0", "32Gi", "amd64", true},
          {"n2-standard-4", "4", "0", "16Gi", "amd64", true},
          {"n2-standard-8", "8", "0", "32Gi", "amd64", true},
          {"n2-standard-16", "16", "0", "64Gi", "amd64", true},
          {"t2a-standard-4", "4", "0", "16Gi", "arm64", true},
          {"g2-standard-8", "8", "1", "32Gi", "amd64", true},
          {"e2-small", "2", "0", "2Gi", "amd64", false}},
         {{"pd-balanced", "standard", true, "20Gi"},
          {"pd-standard", "standard", true, "20Gi"},
          {"pd-ssd", "premium", true, "20Gi"},
          {"hyperdisk-balanced", "premium", false, "20Gi"}},
         {{"europe-west3",
           true,
           {{"europe-west3-a", {}, {}},
            {"europe-west3-b", {}, {}},
            {"europe-west3-c", {"g2-standard-8"}, {"pd-ssd"}}}},
          {"europe-west1",
           false,
           {{"europe-west1-b", {"t2a-standard-4", "g2-standard-8"}, {}},
            {"europe-west1-c", {}, {}},
            {"europe-west1-d", {}, {}}}},
          {"us-central1",
           false,
           {{"us-central1-a", {}, {}},
            {"us-central1-b", {}, {}},
            {"us-central1-c", {}, {}},
            {"us-central1-f", {}, {}}}}},
         300},
        {"converged-cloud-kyma",
         "openstack",
         {{"g_c2_m8", "2", "0", "8Gi", "amd64", true},
          {"g_c4_m16", "4", "0", "16Gi", "amd64", true},
          {"g_c8_m32", "8", "0", "32Gi", "amd64", true},
          {"g_c16_m64", "16", "0", "64Gi", "amd64", true},
          {"g_c1_m2", "1", "0", "2Gi", "amd64", false}},
         {{"standard_hdd", "standard", true, ""}, {"vmware_ssd", "premium", true, ""}},
         {{"eu-de-1",
           true,
           {{"eu-de-1a", {}, {}}, {"eu-de-1b", {}, {}}, {"eu-de-1d", {"g_c16_m64"}, {}}}},
          {"eu-de-2", true, {{"eu-de-2a", {}, {}}, {"eu-de-2b", {}, {}}}},
          {"eu-nl-1", false, {{"eu-nl-1a", {}, {}}, {"eu-nl-1b", {}, {}}}},
          {"na-us-1", false, {{"na-us-1a", {}, {}}, {"na-us-1b", {}, {}}, {"na-us-1d", {}, {}}}}},
         500},
    };
    return rows;
}

Json version_entry(const char* version, const char* classification, int expires_in_days,
                   TimePoint now) {
    Json v = {{"version", version}, {"classification", classification}};
    if (expires_in_days != k_no_expiry)
        v["expirationDate"] = rfc3339(now + std::chrono::hours(24) * expires_in_days);
    return v;
}

Json profile(const ProfileRow& p, TimePoint now) {
    Json versions = Json::array();
    for (const auto& k : k_kubernetes)
        versions.push_back(version_entry(k.version, k.classification, k.expires_in_days, now));
    Json image_versions = Json::array();
    for (const auto& i : k_images) {
        Json v = version_entry(i.version, i.classification, i.expires_in_days, now);
        v["architectures"] = i.arm64 ? Json::array({"amd64", "arm64"}) : Json::array({"amd64"});
        v["cri"] = Json::array({{{"name", "containerd"}}});
        if (*i.kubelet_constraint)
            v["kubeletVersionConstraint"] = i.kubelet_constraint;
        image_versions.push_back(v);
    }
    Json machines = Json::array();
    for (const auto& m : p.machines)
        machines.push_back({{"name", m.name},
                            {"cpu", m.cpu},
                            {"gpu", m.gpu},
                            {"memory", m.memory},
                            {"architecture", m.architecture},
                            {"usable", m.usable}});
    Json volumes = Json::array();
    for (const auto& v : p.volumes) {
        Json e = {{"name", v.name}, {"class", v.volume_class}, {"usable", v.usable}};
        if (*v.min_size)
            e["minSize"] = v.min_size;
        volumes.push_back(e);
    }
    Json regions = Json::array();
    for (const auto& r : p.regions) {
        Json zones = Json::array();
        for (const auto& z : r.zones) {
            Json e = {{"name", z.name}};
            if (!z.unavailable_machine_types.empty())
                e["unavailableMachineTypes"] = z.unavailable_machine_types;
            if (!z.unavailable_volume_types.empty())
                e["unavailableVolumeTypes"] = z.unavailable_volume_types;
            zones.push_back(e);
        }
        Json e = {{"name", r.name}, {"zones", zones}};
        if (r.eu_access)
            e["accessRestrictions"] = Json::array({{{"name", "eu-access-only"}}});
        regions.push_back(e);
    }
    return {{"apiVersion", cloud_profile_info().api_version()},
            {"kind", "CloudProfile"},
            {"metadata", {{"name", p.name}}},
            {"spec",
             {{"type", p.type},
              {"kubernetes", {{"versions", versions}}},
              {"machineImages", Json::array({{{"name", "gardenlinux"},
                                              {"updateStrategy", "minor"},
                                              {"versions", image_versions}}})},
              {"machineTypes", machines},
              {"volumeTypes", volumes},
              {"regions", regions},
              {"limits", {{"maxNodesTotal", p.max_nodes_total}}}}}};
}

} // namespace

std::vector<Json> default_landscape(const std::string& project, TimePoint now) {
    std::vector<Json> out;
    for (const auto& p : profiles())
        out.push_back(profile(p, now));
    if (project.empty())
        return out;
    const std::string ns = "garden-" + project;
    for (const char* provider : {"aws", "azure", "gcp", "openstack"}) {
        std::string name = std::string(provider) + "-kyma-dev";
        out.push_back({{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", name}, {"namespace", ns}}},
                       {"type", "Opaque"},
                       {"data", {{"credentials", base64_encode("kprov-sim " + name)}}}});
        out.push_back(
            {{"apiVersion", credentials_binding_info().api_version()},
             {"kind", "CredentialsBinding"},
             {"metadata", {{"name", name}, {"namespace", ns}}},
             {"provider", {{"type", provider}}},
             {"credentialsRef",
              {{"apiVersion", "v1"}, {"kind", "Secret"}, {"name", name}, {"namespace", ns}}}});
    }
    return out;
}

} // namespace kprov::sim
