// kprov cloud-profile: the landscape for people (gardener-landscape.md §1): the CloudProfiles
// there are, or one profile's versions (with their classification and expiry now), machine
// types, regions and zones, images and volume types.

#include "cli/access.hpp"
#include "cli/app.hpp"
#include "cli/context.hpp"
#include "cli/engine_access.hpp"
#include "cli/render.hpp"
#include "engine/error.hpp"
#include "engine/input/landscape_check.hpp"
#include "gardener/landscape_port.hpp"

#include <algorithm>
#include <ostream>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out.empty() ? "-" : out;
}

Json versions_json(const std::vector<engine::ExpirableVersion>& versions, Timestamp now,
                   bool architectures) {
    Json out = Json::array();
    for (const auto& v : versions) {
        const auto expiry = engine::expiry_of(v);
        Json item{{"version", v.version},
                  {"classification", engine::to_text(engine::effective_classification(v, now))},
                  {"expirationDate", expiry ? Json(format_rfc3339(*expiry)) : Json(nullptr)}};
        if (architectures)
            item["architectures"] = v.architectures;
        out.push_back(std::move(item));
    }
    return out;
}

Json profile_json(const engine::CloudProfile& profile, Timestamp now) {
    const auto& spec = profile.spec;
    Json types = Json::array();
    for (const auto& t : spec.machine_types)
        types.push_back({{"name", t.name},
                         {"usable", t.usable},
                         {"architecture", t.architecture},
                         {"cpu", t.cpu},
                         {"gpu", t.gpu},
                         {"memory", t.memory}});
    Json regions = Json::array();
    for (const auto& r : spec.regions) {
        Json zones = Json::array();
        for (const auto& z : r.zones)
            zones.push_back({{"name", z.name},
                             {"unavailableMachineTypes", z.unavailable_machine_types},
                             {"unavailableVolumeTypes", z.unavailable_volume_types}});
        regions.push_back(
            {{"name", r.name}, {"zones", zones}, {"accessRestrictions", r.access_restrictions}});
    }
    Json images = Json::array();
    for (const auto& i : spec.machine_images)
        images.push_back({{"name", i.name}, {"versions", versions_json(i.versions, now, true)}});
    Json volumes = Json::array();
    for (const auto& v : spec.volume_types)
        volumes.push_back({{"name", v.name},
                           {"class", v.volume_class},
                           {"usable", v.usable},
                           {"minSize", v.min_size}});
    return {{"kind", profile.ref.kind},
            {"name", profile.ref.name},
            {"type", spec.type},
            {"kubernetesVersions", versions_json(spec.kubernetes_versions, now, false)},
            {"machineImages", images},
            {"machineTypes", types},
            {"regions", regions},
            {"volumeTypes", volumes},
            {"maxNodesTotal", spec.max_nodes_total ? Json(*spec.max_nodes_total) : Json(nullptr)}};
}

void print_profile_tables(std::ostream& out, const engine::CloudProfile& profile, Timestamp now,
                          bool colour) {
    const auto& spec = profile.spec;
    out << profile.ref.kind << ' ' << profile.ref.name << " (provider type " << spec.type;
    if (spec.max_nodes_total)
        out << ", at most " << *spec.max_nodes_total << " nodes";
    out << ")\n\nKubernetes versions:\n";
    std::vector<std::vector<Cell>> rows;
    for (const auto& v : spec.kubernetes_versions) {
        const auto expiry = engine::expiry_of(v);
        rows.push_back({{v.version},
                        {std::string(engine::to_text(engine::effective_classification(v, now)))},
                        {expiry ? format_rfc3339(*expiry) : "-"}});
    }
    print_table(out, {"VERSION", "CLASSIFICATION", "EXPIRES"}, rows, colour, "  ");
    out << "\nMachine images:\n";
    rows.clear();
    for (const auto& i : spec.machine_images)
        for (const auto& v : i.versions) {
            const auto expiry = engine::expiry_of(v);
            rows.push_back(
                {{i.name},
                 {v.version},
                 {std::string(engine::to_text(engine::effective_classification(v, now)))},
                 {expiry ? format_rfc3339(*expiry) : "-"},
                 {joined(v.architectures)}});
        }
    print_table(out, {"IMAGE", "VERSION", "CLASSIFICATION", "EXPIRES", "ARCHITECTURES"}, rows,
                colour, "  ");
    out << "\nMachine types:\n";
    rows.clear();
    for (const auto& t : spec.machine_types)
        rows.push_back(
            {{t.name}, {t.usable ? "yes" : "no"}, {t.architecture}, {t.cpu}, {t.gpu}, {t.memory}});
    print_table(out, {"NAME", "USABLE", "ARCHITECTURE", "CPU", "GPU", "MEMORY"}, rows, colour,
                "  ");
    out << "\nRegions:\n";
    rows.clear();
    for (const auto& r : spec.regions) {
        std::vector<std::string> zones;
        for (const auto& z : r.zones) {
            std::vector<std::string> unavailable = z.unavailable_machine_types;
            unavailable.insert(unavailable.end(), z.unavailable_volume_types.begin(),
                               z.unavailable_volume_types.end());
            zones.push_back(z.name +
                            (unavailable.empty() ? "" : " (no " + joined(unavailable) + ")"));
        }
        rows.push_back({{r.name}, {joined(zones)}, {joined(r.access_restrictions)}});
    }
    print_table(out, {"REGION", "ZONES", "ACCESS RESTRICTIONS"}, rows, colour, "  ");
    out << "\nVolume types:\n";
    rows.clear();
    for (const auto& v : spec.volume_types)
        rows.push_back({{v.name},
                        {v.volume_class.empty() ? "-" : v.volume_class},
                        {v.usable ? "yes" : "no"},
                        {v.min_size.empty() ? "-" : v.min_size}});
    print_table(out, {"NAME", "CLASS", "USABLE", "MIN SIZE"}, rows, colour, "  ");
}

} // namespace

int cmd_cloud_profile(Context& ctx, const CloudProfileArgs& args) {
    const auto format = output_format(ctx);
    if (format == OutputFormat::Name || format == OutputFormat::Wide)
        throw UsageError("cloud-profile prints table, json or yaml");
    const LogScope log(ctx);
    const auto client =
        open_gardener(ctx, {.on_request = {}, .answer_within = {}, .log = log.logger()});
    gardener::GardenerLandscape landscape(
        [&client]() -> gardener::GardenerClient& { return *client; });
    const Timestamp now = SystemClock().now();
    const bool colour = use_colour(ctx.out());
    if (!args.name) {
        const auto profiles = landscape.cloud_profiles();
        if (format == OutputFormat::Json || format == OutputFormat::Yaml) {
            Json list = Json::array();
            for (const auto& p : profiles)
                list.push_back(profile_json(p, now));
            print_document(ctx.out(), list, format);
            return k_exit_ok;
        }
        std::vector<std::vector<Cell>> rows;
        for (const auto& p : profiles) {
            std::vector<std::string> supported;
            for (const auto& v : p.spec.kubernetes_versions)
                if (engine::effective_classification(v, now) == engine::VersionClass::Supported)
                    supported.push_back(v.version);
            rows.push_back({{p.ref.name},
                            {p.spec.type},
                            {std::to_string(p.spec.regions.size())},
                            {joined(supported)}});
        }
        print_table(ctx.out(), {"NAME", "TYPE", "REGIONS", "SUPPORTED VERSIONS"}, rows, colour);
        return k_exit_ok;
    }
    const engine::CloudProfileRef ref{args.namespaced
                                          ? std::string(engine::k_namespaced_cloud_profile_kind)
                                          : std::string(engine::k_cloud_profile_kind),
                                      *args.name};
    const auto profile = landscape.cloud_profile(ref);
    if (!profile) {
        std::vector<std::string> names;
        for (const auto& p : landscape.cloud_profiles())
            names.push_back(p.ref.name);
        throw NotFound(ref.kind + " \"" + ref.name +
                       "\" does not exist; CloudProfiles: " + joined(names));
    }
    if (format == OutputFormat::Json || format == OutputFormat::Yaml)
        print_document(ctx.out(), profile_json(*profile, now), format);
    else
        print_profile_tables(ctx.out(), *profile, now, colour);
    return k_exit_ok;
}

} // namespace kprov::cli
