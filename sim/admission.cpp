#include "admission.hpp"

#include "admission_rules.hpp"
#include "object_store.hpp"

#include <set>

namespace kprov::sim {

const ResourceInfo& shoot_info() {
    static const ResourceInfo info{
        "core.gardener.cloud", "v1beta1", "shoots", "Shoot", true, "shoot", {}, {}};
    return info;
}

std::string project_of(const std::string& ns) {
    return ns.rfind("garden-", 0) == 0 ? ns.substr(7) : std::string();
}

bool annotation_true(const Json& obj, const std::string& key) {
    const Json& md = obj.value("metadata", Json::object());
    if (!md.contains("annotations") || !md["annotations"].is_object())
        return false;
    const Json& a = md["annotations"];
    if (!a.contains(key) || !a[key].is_string())
        return false;
    static const std::set<std::string> yes = {"true", "1", "t", "T", "TRUE", "True"};
    return yes.count(a[key].get<std::string>()) > 0;
}

namespace {

using rules::str;
std::string string_at(const Json& s, const char* pointer) {
    return str(s, pointer);
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// A run of 1 to `max_digits` digits at `pos` (advanced past it) as a number; -1 if none.
int digits_at(const std::string& s, std::size_t& pos, std::size_t max_digits) {
    std::size_t start = pos;
    int n = 0;
    while (pos < s.size() && is_digit(s[pos]) && pos - start < max_digits)
        n = n * 10 + (s[pos++] - '0');
    return pos == start ? -1 : n;
}

bool is_cidr(const std::string& s) {
    if (s.find(':') != std::string::npos)
        return s.find('/') != std::string::npos; // IPv6: trust it
    std::size_t pos = 0;
    for (int i = 0; i < 4; ++i) {
        int octet = digits_at(s, pos, 3);
        if (octet < 0 || octet > 255)
            return false;
        if (pos >= s.size() || s[pos] != (i < 3 ? '.' : '/'))
            return false;
        ++pos;
    }
    int bits = digits_at(s, pos, 2);
    return bits >= 0 && bits <= 32 && pos == s.size();
}

// "<digits>Gi"
bool is_gibibytes(const std::string& s) {
    std::size_t pos = 0;
    return digits_at(s, pos, 9) >= 0 && s.compare(pos, std::string::npos, "Gi") == 0;
}

// "HHMMSS+ZZZZ" or "HHMMSS-ZZZZ"
bool is_time_of_week(const std::string& s) {
    if (s.size() != 11 || (s[6] != '+' && s[6] != '-'))
        return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != 6 && !is_digit(s[i]))
            return false;
    return true;
}

void require_field(std::vector<Cause>& causes, const std::string& field, const std::string& what) {
    causes.push_back({"FieldValueRequired", "Required value: " + what, field});
}

void check_provider_config(const Json& spec, const std::string& provider, const char* key,
                           const char* kind, bool is_required, std::vector<Cause>& causes) {
    std::string field = std::string("spec.provider.") + key;
    if (!spec["provider"].contains(key) || spec["provider"][key].is_null()) {
        if (is_required)
            require_field(causes, field,
                          std::string("must provide a ") + kind + " for provider " + provider);
        return;
    }
    const Json& cfg = spec["provider"][key];
    std::string want = provider + ".provider.extensions.gardener.cloud/v1alpha1";
    if (!cfg.is_object() || cfg.value("apiVersion", "") != want || cfg.value("kind", "") != kind)
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: must be apiVersion " + want + ", kind " + kind, field});
}

void check_workers(const Json& spec, const std::string& provider, std::vector<Cause>& causes) {
    const Json& workers = spec["provider"].value("workers", Json::array());
    if (workers.empty()) {
        require_field(causes, "spec.provider.workers", "must provide at least one worker pool");
        return;
    }
    std::set<std::string> names;
    bool zones_required = provider == "aws" || provider == "gcp" || provider == "openstack";
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const Json& w = workers[i];
        std::string f = "spec.provider.workers[" + std::to_string(i) + "]";
        std::string name = w.value("name", "");
        if (name.empty())
            require_field(causes, f + ".name", "a worker pool name is required");
        else if (!is_dns_label(name))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + name +
                                  "\": a lowercase RFC 1123 label must consist of lower case "
                                  "alphanumeric characters or '-'",
                              f + ".name"});
        else if (name.size() > 15)
            causes.push_back(
                {"FieldValueTooLong", "Too long: may not be more than 15 bytes", f + ".name"});
        if (!name.empty() && !names.insert(name).second)
            causes.push_back(
                {"FieldValueDuplicate", "Duplicate value: \"" + name + "\"", f + ".name"});
        if (string_at(w, "/machine/type").empty())
            require_field(causes, f + ".machine.type", "must specify a machine type");
        if (!w.contains("minimum"))
            require_field(causes, f + ".minimum", "must specify a minimum");
        if (!w.contains("maximum"))
            require_field(causes, f + ".maximum", "must specify a maximum");
        long long min = w.value("minimum", 0LL), max = w.value("maximum", 0LL);
        if (min < 0)
            causes.push_back(
                {"FieldValueInvalid",
                 "Invalid value: " + std::to_string(min) + ": must be greater than or equal to 0",
                 f + ".minimum"});
        if (w.contains("maximum") && max < min)
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: maximum value must not be less than minimum value",
                              f + ".maximum"});
        if (w.contains("maxSurge") && w.contains("maxUnavailable") && w["maxSurge"] == 0 &&
            w["maxUnavailable"] == 0)
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: 0: may not be 0 when `maxSurge` is 0",
                              f + ".maxUnavailable"});
        std::string size = string_at(w, "/volume/size");
        if (!size.empty() && !is_gibibytes(size))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + size + "\": must match ^\\d+Gi$",
                              f + ".volume.size"});
        if (zones_required && w.value("zones", Json::array()).empty())
            require_field(causes, f + ".zones", "at least one zone must be specified");
    }
}

void check_spec(const Json& s, const AdmissionContext& ctx, std::vector<Cause>& causes) {
    const Json& spec = s["spec"];
    std::string provider = string_at(s, "/spec/provider/type");
    if (provider.empty())
        require_field(causes, "spec.provider.type", "must specify a provider type");
    else if (!is_dns_label(provider))
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: \"" + provider + "\": must be a DNS label",
                          "spec.provider.type"});
    if (string_at(s, "/spec/region").empty())
        require_field(causes, "spec.region", "must specify a region");
    std::string version = string_at(s, "/spec/kubernetes/version");
    if (version.empty())
        require_field(causes, "spec.kubernetes.version", "kubernetes version must not be empty");
    else if (!rules::parse_semver(version))
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: \"" + version + "\": must be a semantic version",
                          "spec.kubernetes.version"});

    std::string cp_name = string_at(s, "/spec/cloudProfile/name");
    std::string cp_legacy = string_at(s, "/spec/cloudProfileName");
    std::string cp_kind = string_at(s, "/spec/cloudProfile/kind");
    if (cp_name.empty() && cp_legacy.empty())
        require_field(causes, "spec.cloudProfile.name", "must specify a cloud profile");
    if (!cp_name.empty() && !cp_legacy.empty() && cp_name != cp_legacy &&
        cp_kind != "NamespacedCloudProfile")
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: \"" + cp_legacy + "\": must match spec.cloudProfile.name",
                          "spec.cloudProfileName"});
    if (!cp_kind.empty() && cp_kind != "CloudProfile" && cp_kind != "NamespacedCloudProfile")
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: \"" + cp_kind +
                              "\": supported values: \"CloudProfile\", \"NamespacedCloudProfile\"",
                          "spec.cloudProfile.kind"});

    std::string purpose = string_at(s, "/spec/purpose");
    if (!purpose.empty() && purpose != "evaluation" && purpose != "testing" &&
        purpose != "development" && purpose != "production" &&
        !(purpose == "infrastructure" && ctx.ns == "garden"))
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: \"" + purpose +
                              "\": supported values: \"evaluation\", \"development\", "
                              "\"production\", \"testing\"",
                          "spec.purpose"});

    if (!spec.contains("networking") || string_at(s, "/spec/networking/type").empty())
        require_field(causes, "spec.networking.type", "networking type must be provided");
    if ((provider == "aws" || provider == "azure") &&
        string_at(s, "/spec/networking/nodes").empty())
        require_field(causes, "spec.networking.nodes",
                      "a nodes CIDR must be provided for " + provider + " shoots");
    for (const char* net : {"nodes", "pods", "services"}) {
        std::string v = string_at(s, (std::string("/spec/networking/") + net).c_str());
        if (!v.empty() && !is_cidr(v))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + v + "\": must be a valid CIDR",
                              std::string("spec.networking.") + net});
    }
    std::string domain = string_at(s, "/spec/dns/domain");
    if (!domain.empty() && !is_dns_subdomain(domain))
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: \"" + domain + "\": must be a DNS subdomain",
                          "spec.dns.domain"});
    for (const char* edge : {"begin", "end"}) {
        std::string v = string_at(s, (std::string("/spec/maintenance/timeWindow/") + edge).c_str());
        if (!v.empty() && !is_time_of_week(v))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + v + "\": must be in the format HHMMSS+ZZZZ",
                              std::string("spec.maintenance.timeWindow.") + edge});
    }
    if (spec.contains("provider") && spec["provider"].is_object() && !provider.empty()) {
        bool known = provider == "aws" || provider == "azure" || provider == "gcp" ||
                     provider == "openstack";
        check_provider_config(spec, provider, "infrastructureConfig", "InfrastructureConfig", known,
                              causes);
        check_provider_config(spec, provider, "controlPlaneConfig", "ControlPlaneConfig",
                              provider == "gcp" || provider == "openstack", causes);
    }
    if (spec.contains("provider") && spec["provider"].is_object())
        check_workers(spec, provider, causes);
    else if (!provider.empty())
        require_field(causes, "spec.provider.workers", "must provide at least one worker pool");
    if (spec.contains("extensions")) {
        std::set<std::string> types;
        for (std::size_t i = 0; i < spec["extensions"].size(); ++i) {
            std::string t = spec["extensions"][i].value("type", "");
            std::string f = "spec.extensions[" + std::to_string(i) + "].type";
            if (t.empty())
                require_field(causes, f, "field must not be empty");
            else if (!types.insert(t).second)
                causes.push_back({"FieldValueDuplicate", "Duplicate value: \"" + t + "\"", f});
        }
    }
}

void default_spec(Json& s, const AdmissionContext& ctx) {
    Json& spec = s["spec"];
    const std::string name = s["metadata"]["name"].get<std::string>();
    if (!spec.contains("purpose"))
        spec["purpose"] = "evaluation";
    Json& auto_update = spec["maintenance"]["autoUpdate"];
    if (!auto_update.contains("kubernetesVersion"))
        auto_update["kubernetesVersion"] = true;
    if (!auto_update.contains("machineImageVersion"))
        auto_update["machineImageVersion"] = true;
    if (!spec["maintenance"].contains("timeWindow")) {
        int hour = static_cast<int>(std::hash<std::string>{}(name) % 24);
        char begin[16], end[16];
        std::snprintf(begin, sizeof begin, "%02d0000+0000", hour);
        std::snprintf(end, sizeof end, "%02d0000+0000", (hour + 1) % 24);
        spec["maintenance"]["timeWindow"] = {{"begin", begin}, {"end", end}};
    }
    Json& net = spec["networking"];
    if (!net.contains("pods"))
        net["pods"] = "100.96.0.0/11";
    if (!net.contains("services"))
        net["services"] = "100.64.0.0/13";
    if (!net.contains("ipFamilies"))
        net["ipFamilies"] = Json::array({"IPv4"});
    for (Json& w : spec["provider"]["workers"]) {
        if (!w.contains("cri"))
            w["cri"] = {{"name", "containerd"}};
        if (!w.contains("maxSurge"))
            w["maxSurge"] = 1;
        if (!w.contains("maxUnavailable"))
            w["maxUnavailable"] = 0;
        if (!w.contains("systemComponents"))
            w["systemComponents"] = {{"allow", true}};
        if (!w["machine"].contains("architecture"))
            w["machine"]["architecture"] = "amd64";
    }
    if (string_at(s, "/spec/dns/domain").empty())
        spec["dns"]["domain"] = name + "." + project_of(ctx.ns) + "." + ctx.dns_suffix;
    if (!spec.contains("schedulerName"))
        spec["schedulerName"] = "default-scheduler";
}
Json user_metadata_only(Json md) {
    for (const char* k :
         {"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
          "deletionGracePeriodSeconds", "managedFields", "selfLink"})
        md.erase(k);
    return md;
}

} // namespace

Json admit_create(Json body, const AdmissionContext& ctx) {
    const ResourceInfo& info = shoot_info();
    std::vector<Cause> causes = decode_shoot(body, ctx);
    Json& md = body["metadata"];
    md = user_metadata_only(md);
    if (!md.contains("name") && md.contains("generateName") && md["generateName"].is_string())
        md["name"] = md["generateName"].get<std::string>() + random_token(5);
    std::string name = md.value("name", "");
    if (ctx.ns.rfind("garden", 0) != 0 || (ctx.ns != "garden" && project_of(ctx.ns).empty()))
        throw forbidden(info, name,
                        "namespace \"" + ctx.ns +
                            "\" is not a Gardener project namespace "
                            "(garden-<project>)");
    std::string project = ctx.ns == "garden" ? "garden" : project_of(ctx.ns);
    if (name.empty())
        require_field(causes, "metadata.name", "name or generateName is required");
    else if (!is_dns_label(name) || name.find("--") != std::string::npos)
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: \"" + name +
                              "\": a lowercase RFC 1123 label must consist of lower case "
                              "alphanumeric characters or '-', must start and end with an "
                              "alphanumeric character and must not contain '--'",
                          "metadata.name"});
    else if (project.size() + name.size() > 21)
        causes.push_back({"FieldValueTooLong",
                          "Too long: the length of the shoot name and the project name must not "
                          "exceed 21 characters (project: " +
                              project + "; shoot with length " + std::to_string(name.size()) + ")",
                          "metadata.name"});
    if (md.contains("finalizers") && md["finalizers"].is_array())
        for (const auto& f : md["finalizers"])
            if (f == "gardener")
                causes.push_back({"FieldValueForbidden",
                                  "Forbidden: finalizer \"gardener\" cannot be set on creation",
                                  "metadata.finalizers"});
    // Gardener's order (gardener-landscape.md §0): mutating admission, strategy validation,
    // then the validating plugins and the provider webhooks.
    const Json no_old;
    const Json profile = rules::resolve_profile(body, ctx, true);
    rules::mutate(body, no_old, profile, ctx);
    check_spec(body, ctx, causes);
    rules::strategy(body, no_old, causes);
    if (!causes.empty())
        throw invalid(info, name, causes);
    rules::check_references(body, no_old, ctx);
    rules::validate_against_profile(body, no_old, profile, ctx);
    rules::provider_webhook(body);
    default_spec(body, ctx);
    md["annotations"]["gardener.cloud/created-by"] = ctx.user;
    body["status"] = {{"gardener", {{"id", ""}, {"name", ""}, {"version", ""}}},
                      {"hibernated", false},
                      {"technicalID", ""},
                      {"uid", ""}};
    return body;
}

Json admit_update(const Json& current, Json body, const AdmissionContext& ctx) {
    const ResourceInfo& info = shoot_info();
    const std::string name = current["metadata"]["name"].get<std::string>();
    std::vector<Cause> causes = decode_shoot(body, ctx);
    Json& md = body["metadata"];
    if (md.contains("name") && md["name"] != name)
        throw bad_request("the name of the object (" + md["name"].dump() +
                          ") does not match the name on the URL (" + name + ")");
    std::string rv = md.value("resourceVersion", "");
    md = user_metadata_only(md);
    md["name"] = name;
    md["resourceVersion"] = rv;
    const Json& cmd = current["metadata"];
    for (const char* k :
         {"uid", "creationTimestamp", "generation", "deletionTimestamp", "finalizers"})
        if (cmd.contains(k))
            md[k] = cmd[k];
        else
            md.erase(k);
    // Labels Gardener's controllers own survive a client that drops them.
    const Json current_labels = cmd.value("labels", Json::object());
    for (const auto& [k, v] : current_labels.items())
        if ((k.rfind("shoot.gardener.cloud/", 0) == 0 ||
             k.rfind("name.seed.gardener.cloud/", 0) == 0) &&
            !(md.contains("labels") && md["labels"].contains(k)))
            md["labels"][k] = v;
    if (cmd.contains("annotations") && cmd["annotations"].contains("gardener.cloud/created-by"))
        md["annotations"]["gardener.cloud/created-by"] =
            cmd["annotations"]["gardener.cloud/created-by"];
    Json& spec = body["spec"];
    const Json& old = current["spec"];
    if (!spec.contains("seedName") && old.contains("seedName"))
        spec["seedName"] = old["seedName"];
    if (string_at(body, "/spec/dns/domain").empty() &&
        !string_at(current, "/spec/dns/domain").empty())
        spec["dns"]["domain"] = old["dns"]["domain"];
    const Json profile = rules::resolve_profile(body, ctx, false);
    rules::mutate(body, current, profile, ctx);
    check_spec(body, ctx, causes);
    rules::strategy(body, current, causes);
    auto immutable = [&](const char* pointer, const std::string& field) {
        std::string was = string_at(current, pointer), now = string_at(body, pointer);
        if (!was.empty() && was != now)
            causes.push_back(
                {"FieldValueInvalid", "Invalid value: \"" + now + "\": field is immutable", field});
    };
    immutable("/spec/provider/type", "spec.provider.type");
    immutable("/spec/region", "spec.region");
    immutable("/spec/networking/type", "spec.networking.type");
    immutable("/spec/seedName", "spec.seedName");
    immutable("/spec/dns/domain", "spec.dns.domain");
    if (!causes.empty())
        throw invalid(info, name, causes);
    rules::check_references(body, current, ctx);
    rules::validate_against_profile(body, current, profile, ctx);
    rules::provider_webhook(body);
    default_spec(body, ctx);
    body["status"] = current["status"];
    if (cmd.contains("deletionTimestamp") && body["spec"] != current["spec"])
        throw invalid(
            info, name,
            {{"FieldValueForbidden",
              "Forbidden: cannot update shoot spec if deletion timestamp is set", "spec"}});
    return body;
}

} // namespace kprov::sim
