// The landscape rules of ../reference/gardener-landscape.md §2-3, applied before anything is
// written: the same refusals Gardener's admission would give later, but all at once and with
// what the landscape offers instead.

#include "engine/input/landscape_check.hpp"

#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace kprov::engine {
namespace {

// A version's numeric parts; nullopt unless every part is a number (profiles are hostile).
std::optional<std::vector<long>> parts_of(std::string_view text) {
    std::vector<long> parts;
    if (text.empty())
        return parts;
    std::size_t start = 0;
    while (start <= text.size() && parts.size() < 8) {
        const std::size_t dot = std::min(text.find('.', start), text.size());
        long value = 0;
        const auto* first = text.data() + start;
        const auto* last = text.data() + dot;
        const auto [end, ec] = std::from_chars(first, last, value);
        if (first == last || ec != std::errc() || end != last)
            return std::nullopt;
        parts.push_back(value);
        if (dot == text.size())
            return parts;
        start = dot + 1;
    }
    return std::nullopt;
}

// Whether `version` starts with the parts of `prefix` ("1.34" matches "1.34.2", not "1.340.1").
bool matches(const std::vector<long>& version, const std::vector<long>& prefix) {
    return prefix.size() <= version.size() &&
           std::equal(prefix.begin(), prefix.end(), version.begin());
}

bool version_less(const std::vector<long>& a, const std::vector<long>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

std::string joined(const std::vector<std::string>& items, std::string_view none = "none") {
    if (items.empty())
        return std::string(none);
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

bool contains(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool supports(const ExpirableVersion& v, std::string_view architecture) {
    return v.architectures.empty() ? architecture == "amd64"
                                   : contains(v.architectures, architecture);
}

// The zones a config puts its workers in, with the path of each under the provider config.
std::vector<std::pair<std::string, std::string>> zones_of(const GardenerConfig& g) {
    std::vector<std::pair<std::string, std::string>> out;
    const std::string base = "providerSpecificConfig.";
    auto list = [&](const std::vector<std::string>& zones, const std::string& path) {
        for (std::size_t i = 0; i < zones.size(); ++i)
            out.emplace_back(path + "[" + std::to_string(i) + "]", zones[i]);
    };
    if (const auto* c = std::get_if<GcpConfig>(&g.provider_config))
        list(c->zones, base + "gcpConfig.zones");
    if (const auto* c = std::get_if<OpenStackConfig>(&g.provider_config))
        list(c->zones, base + "openStackConfig.zones");
    if (const auto* c = std::get_if<AwsConfig>(&g.provider_config))
        for (std::size_t i = 0; i < c->aws_zones.size(); ++i)
            out.emplace_back(base + "awsConfig.awsZones[" + std::to_string(i) + "].name",
                             c->aws_zones[i].name);
    if (const auto* c = std::get_if<AzureConfig>(&g.provider_config)) {
        if (c->azure_zones && !c->azure_zones->empty()) {
            for (std::size_t i = 0; i < c->azure_zones->size(); ++i)
                out.emplace_back(base + "azureConfig.azureZones[" + std::to_string(i) + "].name",
                                 std::to_string((*c->azure_zones)[i].name));
        } else if (c->zones) {
            list(*c->zones, base + "azureConfig.zones");
        }
    }
    return out;
}

class LandscapeChecker {
public:
    LandscapeChecker(GardenerConfig& g, Landscape& landscape, const LandscapeRequest& request)
        : m_g(g)
        , m_landscape(landscape)
        , m_request(request)
        , m_create(request.kind != LandscapeRequest::Kind::Upgrade) {}

    void run() {
        const auto type = provider_type_of(m_g.provider);
        if (!type)
            return; // validate_provision has said so
        m_type = std::string(*type);
        if (m_create)
            check_binding();
        const CloudProfileRef ref = cloud_profile_of(m_g);
        const auto profile = m_landscape.cloud_profile(ref);
        if (!profile) {
            missing_profile(ref);
            return finish();
        }
        m_profile = &profile->spec;
        m_profile_name = ref.kind + " " + in_quotes(ref.name);
        if (m_profile->type != m_type) {
            add("provider", in_quotes(m_g.provider) + " is provider type " + in_quotes(m_type) +
                                ", but " + m_profile_name + " is for " +
                                in_quotes(m_profile->type) + ": name a profile of type " + m_type +
                                " in cloudProfile");
            return finish();
        }
        check_version();
        check_region();
        check_workers();
        finish();
    }

private:
    void add(const std::string& field, std::string message) {
        m_problems.push_back({m_request.prefix + "." + field, std::move(message)});
    }

    void finish() {
        if (!m_problems.empty())
            throw ValidationError(std::move(m_problems));
    }

    bool changed(auto member) const {
        return m_create || m_request.before == nullptr || m_g.*member != m_request.before->*member;
    }

    void missing_profile(const CloudProfileRef& ref) {
        std::vector<std::string> of_type;
        for (const auto& p : m_landscape.cloud_profiles())
            if (p.spec.type == m_type)
                of_type.push_back(in_quotes(p.ref.name));
        std::string message =
            ref.kind + " " + in_quotes(ref.name) + " does not exist in the landscape";
        if (of_type.size() == 1)
            message += "; exactly one CloudProfile of provider type " + m_type + " exists, " +
                       of_type.front() + ": name it in gardenerConfig.cloudProfile.name or set " +
                       "it as the provider's profile (KPROV_CLOUD_PROFILE_" +
                       (m_type == "openstack" ? std::string("OPENSTACK") : upper(m_type)) + ")";
        else
            message += "; CloudProfiles of provider type " + m_type + ": " + joined(of_type);
        add("cloudProfile", std::move(message));
    }

    static std::string upper(std::string text) {
        for (auto& c : text)
            c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        return text;
    }

    std::string offered_versions(bool active_only) const {
        std::vector<std::string> out;
        for (const auto& v : m_profile->kubernetes_versions)
            if (!active_only || is_active(effective_classification(v, m_request.now)))
                out.push_back(describe_version(v, m_request.now));
        return joined(out);
    }

    void check_version() {
        const std::string requested = m_g.kubernetes_version;
        const auto parts = parts_of(requested);
        // An existing shoot (upgraded or adopted) may be on any listed version.
        const bool upgrade = m_request.kind != LandscapeRequest::Kind::Create;
        if (upgrade && requested == m_request.live_version)
            return; // unchanged: Gardener checks nothing
        if (!parts) {
            add("kubernetesVersion", in_quotes(requested) + " is not a version; " + m_profile_name +
                                         " offers " + offered_versions(!upgrade));
            return;
        }
        std::string exact = requested;
        if (parts->size() < 3) {
            const auto chosen = default_kubernetes_version(m_profile->kubernetes_versions,
                                                           requested, m_request.now);
            if (!chosen) {
                add("kubernetesVersion",
                    in_quotes(requested) + " has no version classified supported in " +
                        m_profile_name + " (Gardener completes a minor only to a supported " +
                        "patch; name a preview or deprecated patch exactly); offered: " +
                        offered_versions(true));
                return;
            }
            exact = *chosen;
        } else {
            const auto it = std::find_if(
                m_profile->kubernetes_versions.begin(), m_profile->kubernetes_versions.end(),
                [&](const ExpirableVersion& v) { return v.version == requested; });
            const bool listed = it != m_profile->kubernetes_versions.end();
            // An update may go to any listed version (forced maintenance needs expired ones).
            if (!listed || (!upgrade && !is_active(effective_classification(*it, m_request.now)))) {
                add("kubernetesVersion",
                    in_quotes(requested) +
                        (listed ? " is " + std::string(to_text(
                                               effective_classification(*it, m_request.now)))
                                : std::string(" is not offered")) +
                        " in " + m_profile_name + "; offered: " + offered_versions(!upgrade));
                return;
            }
        }
        if (upgrade && !m_request.live_version.empty())
            if (const auto live = parts_of(m_request.live_version); live && live->size() >= 2) {
                const auto target = *parts_of(exact);
                if (target.size() >= 2 && target[0] == (*live)[0] && target[1] >= (*live)[1] + 2) {
                    add("kubernetesVersion", in_quotes(exact) +
                                                 " skips a minor version: the shoot runs " +
                                                 in_quotes(m_request.live_version) +
                                                 ", upgrade to " + std::to_string((*live)[0]) +
                                                 "." + std::to_string((*live)[1] + 1) + " first");
                    return;
                }
            }
        m_g.kubernetes_version = exact;
    }

    void check_region() {
        const auto& regions = m_profile->regions;
        const auto it = std::find_if(regions.begin(), regions.end(),
                                     [&](const Region& r) { return r.name == m_g.region; });
        if (it == regions.end()) {
            if (m_create) {
                std::vector<std::string> names;
                for (const auto& r : regions)
                    names.push_back(in_quotes(r.name));
                add("region", in_quotes(m_g.region) + " is not a region of " + m_profile_name +
                                  "; regions: " + joined(names));
            }
            return;
        }
        m_region = &*it;
        std::vector<std::string> zone_names;
        for (const auto& z : m_region->zones)
            zone_names.push_back(in_quotes(z.name));
        if (m_create) {
            for (const auto& [path, zone] : zones_of(m_g)) {
                if (std::none_of(m_region->zones.begin(), m_region->zones.end(),
                                 [&](const Zone& z) { return z.name == zone; }))
                    add(path, in_quotes(zone) + " is not a zone of region " +
                                  in_quotes(m_g.region) + "; its zones: " + joined(zone_names));
                else
                    m_zones.push_back(zone);
            }
            if (m_g.eu_access && !contains(m_region->access_restrictions, "eu-access-only"))
                add("euAccess", "true needs region " + in_quotes(m_g.region) +
                                    " to offer access restriction \"eu-access-only\"; it offers " +
                                    joined(m_region->access_restrictions) +
                                    "; regions that do: " + eu_regions());
        } else {
            for (const auto& [path, zone] : zones_of(m_g))
                m_zones.push_back(zone);
        }
    }

    std::string eu_regions() const {
        std::vector<std::string> names;
        for (const auto& r : m_profile->regions)
            if (contains(r.access_restrictions, "eu-access-only"))
                names.push_back(in_quotes(r.name));
        return joined(names);
    }

    const Zone* zone(std::string_view name) const {
        for (const auto& z : m_region->zones)
            if (z.name == name)
                return &z;
        return nullptr;
    }

    bool available(const std::string& name, std::vector<std::string> Zone::*unavailable) const {
        for (const auto& z : m_zones)
            if (const Zone* found = zone(z); found && contains(found->*unavailable, name))
                return false;
        return true;
    }

    void check_workers() {
        const MachineType* type = nullptr;
        for (const auto& t : m_profile->machine_types)
            if (t.name == m_g.machine_type)
                type = &t;
        if (m_region && changed(&GardenerConfig::machine_type)) {
            std::vector<std::string> why;
            if (!type)
                why.push_back("is not offered");
            else {
                if (!type->usable)
                    why.push_back("is not usable");
                if (!available(type->name, &Zone::unavailable_machine_types))
                    why.push_back("is unavailable in at least one of the zones");
            }
            if (!why.empty()) {
                std::vector<std::string> usable;
                for (const auto& t : m_profile->machine_types)
                    if (t.usable && available(t.name, &Zone::unavailable_machine_types))
                        usable.push_back(in_quotes(t.name));
                std::sort(usable.begin(), usable.end());
                add("machineType", in_quotes(m_g.machine_type) + " " + joined(why, "") + " in " +
                                       m_profile_name + "; usable types in region " +
                                       in_quotes(m_g.region) + ": " + joined(usable));
            }
        }
        check_image(type ? type->architecture : std::string("amd64"));
        check_volume();
        const auto zones = zones_of(m_g).size();
        if (m_g.auto_scaler_max > 0 && static_cast<std::size_t>(m_g.auto_scaler_max) < zones)
            add("autoScalerMax", std::to_string(m_g.auto_scaler_max) +
                                     " is below the number of zones (" + std::to_string(zones) +
                                     "): Gardener needs at least one node per zone");
        if (m_profile->max_nodes_total && m_g.auto_scaler_min > *m_profile->max_nodes_total)
            add("autoScalerMin", std::to_string(m_g.auto_scaler_min) + " exceeds " +
                                     m_profile_name + "'s limit of " +
                                     std::to_string(*m_profile->max_nodes_total) +
                                     " nodes (limits.maxNodesTotal)");
    }

    void check_image(const std::string& architecture) {
        if (!m_g.machine_image || m_g.machine_image->empty())
            return;
        if (!changed(&GardenerConfig::machine_image) &&
            !changed(&GardenerConfig::machine_image_version))
            return;
        const MachineImage* image = nullptr;
        std::vector<std::string> names;
        for (const auto& i : m_profile->machine_images) {
            names.push_back(in_quotes(i.name));
            if (i.name == *m_g.machine_image)
                image = &i;
        }
        if (!image) {
            add("machineImage", in_quotes(*m_g.machine_image) + " is not an image of " +
                                    m_profile_name + "; images: " + joined(names));
            return;
        }
        const std::string requested = m_g.machine_image_version.value_or("");
        std::vector<std::string> offered;
        for (const auto& v : image->versions)
            if (supports(v, architecture) && is_active(effective_classification(v, m_request.now)))
                offered.push_back(describe_version(v, m_request.now));
        const auto listed =
            std::find_if(image->versions.begin(), image->versions.end(),
                         [&](const ExpirableVersion& v) { return v.version == requested; });
        if (listed != image->versions.end()) {
            if (!supports(*listed, architecture) ||
                !is_active(effective_classification(*listed, m_request.now)))
                add("machineImageVersion", in_quotes(requested) + " of image " +
                                               in_quotes(image->name) +
                                               " is expired or does not support architecture " +
                                               architecture + "; offered: " + joined(offered));
            return;
        }
        const auto chosen = default_image_version(*image, requested, architecture, m_request.now);
        if (!chosen) {
            add("machineImageVersion", in_quotes(requested) + " is not a version of image " +
                                           in_quotes(image->name) + " for architecture " +
                                           architecture + "; offered: " + joined(offered));
            return;
        }
        m_g.machine_image_version = *chosen;
    }

    void check_volume() {
        const bool needs_volume = m_type == "aws" || m_type == "azure" || m_type == "gcp";
        if (m_create && needs_volume && (!m_g.disk_type || !m_g.volume_size_gb))
            add(m_g.disk_type ? "volumeSizeGB" : "diskType",
                "is required for provider type " + m_type + ": Gardener's " + m_type +
                    " extension refuses workers without a volume; " +
                    "volume types: " + usable_volume_types());
        if (!m_g.disk_type || !changed(&GardenerConfig::disk_type))
            return;
        const VolumeType* type = nullptr;
        for (const auto& v : m_profile->volume_types)
            if (v.name == *m_g.disk_type)
                type = &v;
        if (!type || !type->usable || !available(*m_g.disk_type, &Zone::unavailable_volume_types))
            add("diskType", in_quotes(*m_g.disk_type) +
                                (!type           ? " is not offered by "
                                 : !type->usable ? " is not usable in "
                                                 : " is unavailable in a zone of the region in ") +
                                m_profile_name + "; volume types: " + usable_volume_types());
    }

    std::string usable_volume_types() const {
        std::vector<std::string> names;
        for (const auto& v : m_profile->volume_types)
            if (v.usable && available(v.name, &Zone::unavailable_volume_types))
                names.push_back(in_quotes(v.name));
        std::sort(names.begin(), names.end());
        return joined(names);
    }

    void check_binding() {
        std::vector<std::string> of_type;
        bool found = false;
        std::string other_type;
        const bool adopt = m_request.kind == LandscapeRequest::Kind::Adopt;
        const std::string kind = m_request.secret_binding ? "SecretBinding" : "CredentialsBinding";
        // An adopted shoot may still be on a SecretBinding: either kind will do.
        if (m_request.secret_binding || adopt) {
            for (const auto& b : m_landscape.secret_bindings()) {
                const bool match = contains(b.provider_types, m_type);
                if (match)
                    of_type.push_back(in_quotes(b.name));
                if (b.name == m_g.target_secret) {
                    found = true;
                    if (!match)
                        other_type = joined(b.provider_types);
                }
            }
        }
        if (!m_request.secret_binding) {
            for (const auto& b : m_landscape.credentials_bindings()) {
                if (b.provider_type == m_type)
                    of_type.push_back(in_quotes(b.name));
                if (b.name == m_g.target_secret) {
                    found = true;
                    if (b.provider_type != m_type)
                        other_type = b.provider_type.empty() ? "none" : b.provider_type;
                }
            }
        }
        const std::string offered =
            "; the project's " + kind + "s of provider type " + m_type + ": " + joined(of_type);
        if (!found)
            add("targetSecret",
                in_quotes(m_g.target_secret) + " is not a " + kind + " of the project" + offered);
        else if (!other_type.empty())
            add("targetSecret", in_quotes(m_g.target_secret) + " is a " + kind +
                                    " for provider type " + other_type + ", not " + m_type +
                                    offered);
    }

    GardenerConfig& m_g;
    Landscape& m_landscape;
    const LandscapeRequest& m_request;
    bool m_create;
    std::string m_type;
    const CloudProfileSpec* m_profile = nullptr;
    std::string m_profile_name;
    const Region* m_region = nullptr;
    std::vector<std::string> m_zones; ///< the config's zones that the region has
    std::vector<FieldProblem> m_problems;
};

} // namespace

std::map<std::string, std::string> default_cloud_profiles() {
    return {{"aws", "aws"}, {"azure", "az"}, {"gcp", "gcp"}, {"openstack", "converged-cloud-kyma"}};
}

CloudProfileRef cloud_profile_of(const GardenerConfig& g) {
    if (g.cloud_profile && !g.cloud_profile->name.empty())
        return *g.cloud_profile;
    if (const auto* os = std::get_if<OpenStackConfig>(&g.provider_config);
        os && !os->cloud_profile_name.empty())
        return {std::string(k_cloud_profile_kind), os->cloud_profile_name};
    const auto type = provider_type_of(g.provider);
    const auto defaults = default_cloud_profiles();
    const auto it = type ? defaults.find(std::string(*type)) : defaults.end();
    return {std::string(k_cloud_profile_kind), it == defaults.end() ? g.provider : it->second};
}

void check_against_landscape(GardenerConfig& g, Landscape& landscape,
                             const LandscapeRequest& request) {
    LandscapeChecker(g, landscape, request).run();
}

std::optional<std::string> default_kubernetes_version(const std::vector<ExpirableVersion>& versions,
                                                      std::string_view requested, Timestamp now) {
    const auto prefix = parts_of(requested);
    if (!prefix)
        return std::nullopt;
    if (prefix->size() >= 3)
        return std::string(requested);
    std::optional<std::vector<long>> best;
    std::string chosen;
    for (const auto& v : versions) {
        const auto parts = parts_of(v.version);
        if (!parts || parts->size() < 3 || !matches(*parts, *prefix) ||
            effective_classification(v, now) != VersionClass::Supported)
            continue;
        if (!best || version_less(*best, *parts)) {
            best = parts;
            chosen = v.version;
        }
    }
    if (!best)
        return std::nullopt;
    return chosen;
}

std::optional<std::string> default_image_version(const MachineImage& image,
                                                 std::string_view requested,
                                                 std::string_view architecture, Timestamp now) {
    for (const auto& v : image.versions)
        if (v.version == requested)
            return v.version;
    const auto prefix = parts_of(requested);
    if (!prefix)
        return std::nullopt;
    // Gardener: skip preview, prefer non-deprecated; expired versions are not skipped.
    std::optional<std::vector<long>> best;
    bool best_deprecated = true;
    std::string chosen;
    for (const auto& v : image.versions) {
        const auto parts = parts_of(v.version);
        const VersionClass c = effective_classification(v, now);
        if (!parts || !matches(*parts, *prefix) || !supports(v, architecture) ||
            c == VersionClass::Preview || c == VersionClass::Unavailable)
            continue;
        const bool deprecated = c == VersionClass::Deprecated || c == VersionClass::Expired;
        const bool better = !best || (best_deprecated && !deprecated) ||
                            (best_deprecated == deprecated && version_less(*best, *parts));
        if (better) {
            best = parts;
            best_deprecated = deprecated;
            chosen = v.version;
        }
    }
    if (!best)
        return std::nullopt;
    return chosen;
}

std::string describe_version(const ExpirableVersion& v, Timestamp now) {
    std::string out = v.version + " (" + std::string(to_text(effective_classification(v, now)));
    if (const auto expiry = expiry_of(v))
        out += std::string(*expiry < now ? ", expired " : ", expires ") + format_rfc3339(*expiry);
    return out + ")";
}

namespace {

// The live shoot's spec member `key` when it is an object or a string.
std::optional<nlohmann::json> spec_member(const std::string& shoot_json, const char* key) {
    const auto shoot = nlohmann::json::parse(shoot_json, nullptr, false);
    if (!shoot.is_object() || !shoot.contains("spec") || !shoot["spec"].is_object())
        return std::nullopt;
    const auto& spec = shoot["spec"];
    const auto it = spec.find(key);
    if (it == spec.end() || !(it->is_object() || it->is_string()))
        return std::nullopt;
    return *it;
}

} // namespace

std::optional<std::string> secret_binding_of_shoot(const std::string& shoot_json) {
    const auto name = spec_member(shoot_json, "secretBindingName");
    if (!name || !name->is_string() || name->get_ref<const std::string&>().empty())
        return std::nullopt;
    return name->get<std::string>();
}

std::optional<CloudProfileRef> cloud_profile_of_shoot(const std::string& shoot_json) {
    if (const auto ref = spec_member(shoot_json, "cloudProfile"); ref && ref->is_object()) {
        const auto text = [&](const char* key) {
            const auto it = ref->find(key);
            return it != ref->end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        if (!text("name").empty())
            return CloudProfileRef{text("kind").empty() ? std::string(k_cloud_profile_kind)
                                                        : text("kind"),
                                   text("name")};
    }
    if (const auto name = spec_member(shoot_json, "cloudProfileName"); name && name->is_string())
        return CloudProfileRef{std::string(k_cloud_profile_kind), name->get<std::string>()};
    return std::nullopt;
}

std::string credentials_binding_for(Landscape& landscape, const std::string& secret_binding,
                                    const std::string& path) {
    const auto secrets = landscape.secret_bindings();
    const auto binding = std::find_if(secrets.begin(), secrets.end(), [&](const SecretBinding& b) {
        return b.name == secret_binding;
    });
    if (binding == secrets.end())
        throw ValidationError(path, "the shoot is on SecretBinding " + in_quotes(secret_binding) +
                                        ", which the project does not have; Gardener refuses "
                                        "secretBindingName for Kubernetes 1.34 and later: create "
                                        "a CredentialsBinding for the shoot's Secret");
    for (const auto& c : landscape.credentials_bindings())
        if (c.ref_kind == "Secret" && c.ref_api_version == "v1" &&
            c.ref_name == binding->secret_name && c.ref_namespace == binding->secret_namespace)
            return c.name;
    throw ValidationError(
        path, "the shoot is on SecretBinding " + in_quotes(secret_binding) +
                  ", and Gardener refuses secretBindingName for Kubernetes 1.34 and later; no "
                  "CredentialsBinding of the project points at its Secret " +
                  in_quotes(binding->secret_namespace + "/" + binding->secret_name) +
                  ": create one (security.gardener.cloud/v1alpha1, credentialsRef {apiVersion: "
                  "v1, kind: Secret, name: " +
                  binding->secret_name + ", namespace: " + binding->secret_namespace +
                  "}, provider.type as the shoot's), then upgrade again");
}

} // namespace kprov::engine
