#include "gardener/landscape_port.hpp"

#include "engine/util/time.hpp"
#include "gardener/kube_error.hpp"

#include <nlohmann/json.hpp>

namespace kprov::gardener {
namespace {

using json = nlohmann::json;

constexpr const char* k_core_api = "/apis/core.gardener.cloud/v1beta1";
constexpr const char* k_security_api = "/apis/security.gardener.cloud/v1alpha1";
// Far above any real landscape, far below what would hurt.
constexpr std::size_t k_max_items = 2000;
constexpr std::size_t k_max_name_length = 253;

// A malformed answer: Gardener's own validation would never let it through, so it is no
// retryable failure but a landscape kprov cannot use.
[[noreturn]] void malformed(const std::string& what, const std::string& path,
                            const std::string& expected) {
    throw KubeError("gardener: " + what + " is malformed: " + path + " " + expected, 200, false, "",
                    {}, "", "k8s client - gardener");
}

// Reads members of one object with their paths, for errors that say where.
class Reader {
public:
    explicit Reader(std::string what)
        : m_what(std::move(what)) {}

    const json* member(const json& object, const char* key, const std::string& path) const {
        if (!object.is_object())
            malformed(m_what, path, "must be an object");
        const auto it = object.find(key);
        return it == object.end() || it->is_null() ? nullptr : &*it;
    }

    std::string text(const json& object, const char* key, const std::string& path,
                     bool required = false) const {
        const json* value = member(object, key, path);
        if (value == nullptr) {
            if (required)
                malformed(m_what, path + "." + key, "is missing");
            return {};
        }
        // Quantities (cpu: 4) may come as numbers.
        if (value->is_number_integer())
            return std::to_string(value->get<long long>());
        if (!value->is_string() || value->get_ref<const std::string&>().size() > k_max_name_length)
            malformed(m_what, path + "." + key,
                      "must be a string of at most " + std::to_string(k_max_name_length) +
                          " characters");
        return value->get<std::string>();
    }

    bool boolean(const json& object, const char* key, const std::string& path,
                 bool fallback) const {
        const json* value = member(object, key, path);
        if (value == nullptr)
            return fallback;
        if (!value->is_boolean())
            malformed(m_what, path + "." + key, "must be true or false");
        return value->get<bool>();
    }

    /// The items of a list member; empty when absent.
    const json& list(const json& object, const char* key, const std::string& path) const {
        static const json empty = json::array();
        const json* value = member(object, key, path);
        if (value == nullptr)
            return empty;
        if (!value->is_array() || value->size() > k_max_items)
            malformed(m_what, path + "." + key,
                      "must be a list of at most " + std::to_string(k_max_items) + " items");
        return *value;
    }

    std::vector<std::string> strings(const json& object, const char* key,
                                     const std::string& path) const {
        std::vector<std::string> out;
        const json& items = list(object, key, path);
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (!items[i].is_string() ||
                items[i].get_ref<const std::string&>().size() > k_max_name_length)
                malformed(m_what, path + "." + key + "[" + std::to_string(i) + "]",
                          "must be a short string");
            out.push_back(items[i].get<std::string>());
        }
        return out;
    }

    std::optional<Timestamp> time(const json& object, const char* key,
                                  const std::string& path) const {
        const std::string value = text(object, key, path);
        if (value.empty())
            return std::nullopt;
        auto parsed = parse_db_time(value);
        if (!parsed)
            malformed(m_what, path + "." + key,
                      "must be an RFC 3339 time in UTC, not \"" + value + "\"");
        return parsed;
    }

    engine::VersionClass classification(const json& object, const std::string& path) const {
        const std::string value = text(object, "classification", path);
        const auto parsed = engine::version_class_from_text(value);
        if (!parsed)
            malformed(m_what, path + ".classification",
                      "must be preview, supported, deprecated or expired, not \"" + value + "\"");
        return *parsed;
    }

    engine::ExpirableVersion version(const json& v, const std::string& path) const {
        engine::ExpirableVersion out;
        if (const json* version = member(v, "version", path); version && !version->is_string())
            malformed(m_what, path + ".version", "must be a string such as \"1.35.2\"");
        out.version = text(v, "version", path, true);
        if (member(v, "classification", path))
            out.classification = classification(v, path);
        out.expiration_date = time(v, "expirationDate", path);
        const json& stages = list(v, "lifecycle", path);
        for (std::size_t i = 0; i < stages.size(); ++i) {
            const std::string at = path + ".lifecycle[" + std::to_string(i) + "]";
            out.lifecycle.push_back(
                {classification(stages[i], at), time(stages[i], "startTime", at)});
        }
        out.architectures = strings(v, "architectures", path);
        return out;
    }

private:
    std::string m_what;
};

std::string at(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

// A name that goes into a request path: a DNS subdomain, nothing that could change the path.
void check_name(const std::string& name, const char* what) {
    bool ok = !name.empty() && name.size() <= k_max_name_length;
    for (const char c : name)
        ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.');
    if (!ok)
        throw ValidationError("cloudProfile.name", std::string(what) + " \"" + name +
                                                       "\" is not a Kubernetes object name "
                                                       "(lower-case letters, digits, '-', '.')");
}

engine::CloudProfile profile_of(const json& object, const std::string& kind) {
    const std::string name =
        object.is_object() && object.contains("metadata") && object["metadata"].is_object()
            ? object["metadata"].value("name", "")
            : "";
    const std::string what = kind + " \"" + name + "\"";
    const json* spec = nullptr;
    if (object.is_object()) {
        if (kind == engine::k_namespaced_cloud_profile_kind) {
            const auto status = object.find("status");
            if (status != object.end() && status->is_object())
                if (const auto s = status->find("cloudProfileSpec"); s != status->end())
                    spec = &*s;
        } else if (const auto s = object.find("spec"); s != object.end()) {
            spec = &*s;
        }
    }
    if (spec == nullptr)
        malformed(what,
                  kind == engine::k_namespaced_cloud_profile_kind ? "status.cloudProfileSpec"
                                                                  : "spec",
                  "is missing");
    return {{kind, name}, parse_cloud_profile_spec(*spec, what)};
}

const json& items_of(const json& list, const std::string& what) {
    const auto it = list.is_object() ? list.find("items") : list.end();
    if (!list.is_object() || it == list.end() || !it->is_array() || it->size() > k_max_items)
        malformed(what, "items", "must be a list of at most " + std::to_string(k_max_items));
    return *it;
}

} // namespace

engine::CloudProfileSpec parse_cloud_profile_spec(const json& spec, const std::string& what) {
    const Reader r(what);
    engine::CloudProfileSpec out;
    out.type = r.text(spec, "type", "spec", true);
    if (const json* kubernetes = r.member(spec, "kubernetes", "spec")) {
        const json& versions = r.list(*kubernetes, "versions", "spec.kubernetes");
        for (std::size_t i = 0; i < versions.size(); ++i)
            out.kubernetes_versions.push_back(
                r.version(versions[i], at("spec.kubernetes.versions", i)));
    }
    const json& images = r.list(spec, "machineImages", "spec");
    for (std::size_t i = 0; i < images.size(); ++i) {
        const std::string path = at("spec.machineImages", i);
        engine::MachineImage image{r.text(images[i], "name", path, true), {}};
        const json& versions = r.list(images[i], "versions", path);
        for (std::size_t j = 0; j < versions.size(); ++j) {
            auto v = r.version(versions[j], at(path + ".versions", j));
            if (v.architectures.empty())
                v.architectures = {"amd64"};
            image.versions.push_back(std::move(v));
        }
        out.machine_images.push_back(std::move(image));
    }
    const json& types = r.list(spec, "machineTypes", "spec");
    for (std::size_t i = 0; i < types.size(); ++i) {
        const std::string path = at("spec.machineTypes", i);
        engine::MachineType t;
        t.name = r.text(types[i], "name", path, true);
        t.cpu = r.text(types[i], "cpu", path);
        t.gpu = r.text(types[i], "gpu", path);
        if (t.gpu.empty())
            t.gpu = "0";
        t.memory = r.text(types[i], "memory", path);
        if (auto arch = r.text(types[i], "architecture", path); !arch.empty())
            t.architecture = std::move(arch);
        t.usable = r.boolean(types[i], "usable", path, true);
        out.machine_types.push_back(std::move(t));
    }
    const json& regions = r.list(spec, "regions", "spec");
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const std::string path = at("spec.regions", i);
        engine::Region region;
        region.name = r.text(regions[i], "name", path, true);
        const json& zones = r.list(regions[i], "zones", path);
        for (std::size_t j = 0; j < zones.size(); ++j) {
            const std::string zpath = at(path + ".zones", j);
            region.zones.push_back({r.text(zones[j], "name", zpath, true),
                                    r.strings(zones[j], "unavailableMachineTypes", zpath),
                                    r.strings(zones[j], "unavailableVolumeTypes", zpath)});
        }
        const json& restrictions = r.list(regions[i], "accessRestrictions", path);
        for (std::size_t j = 0; j < restrictions.size(); ++j)
            region.access_restrictions.push_back(
                r.text(restrictions[j], "name", at(path + ".accessRestrictions", j), true));
        out.regions.push_back(std::move(region));
    }
    const json& volumes = r.list(spec, "volumeTypes", "spec");
    for (std::size_t i = 0; i < volumes.size(); ++i) {
        const std::string path = at("spec.volumeTypes", i);
        out.volume_types.push_back(
            {r.text(volumes[i], "name", path, true), r.text(volumes[i], "class", path),
             r.boolean(volumes[i], "usable", path, true), r.text(volumes[i], "minSize", path)});
    }
    if (const json* limits = r.member(spec, "limits", "spec"))
        if (const json* max = r.member(*limits, "maxNodesTotal", "spec.limits")) {
            if (!max->is_number_integer() || max->get<long long>() <= 0)
                malformed(what, "spec.limits.maxNodesTotal", "must be a positive integer");
            out.max_nodes_total = max->get<std::int64_t>();
        }
    return out;
}

engine::CredentialsBinding parse_credentials_binding(const json& object) {
    const Reader r("a CredentialsBinding");
    engine::CredentialsBinding out;
    const json* metadata = r.member(object, "metadata", "");
    out.name = metadata ? r.text(*metadata, "name", "metadata", true) : std::string();
    if (const json* provider = r.member(object, "provider", ""))
        out.provider_type = r.text(*provider, "type", "provider");
    if (const json* ref = r.member(object, "credentialsRef", "")) {
        out.ref_api_version = r.text(*ref, "apiVersion", "credentialsRef");
        out.ref_kind = r.text(*ref, "kind", "credentialsRef");
        out.ref_name = r.text(*ref, "name", "credentialsRef");
        out.ref_namespace = r.text(*ref, "namespace", "credentialsRef");
    }
    return out;
}

engine::SecretBinding parse_secret_binding(const json& object,
                                           const std::string& project_namespace) {
    const Reader r("a SecretBinding");
    engine::SecretBinding out;
    const json* metadata = r.member(object, "metadata", "");
    out.name = metadata ? r.text(*metadata, "name", "metadata", true) : std::string();
    if (const json* provider = r.member(object, "provider", "")) {
        const std::string types = r.text(*provider, "type", "provider");
        std::size_t start = 0;
        while (start < types.size()) {
            const std::size_t comma = std::min(types.find(',', start), types.size());
            if (comma > start)
                out.provider_types.push_back(types.substr(start, comma - start));
            start = comma + 1;
        }
    }
    if (const json* ref = r.member(object, "secretRef", "")) {
        out.secret_name = r.text(*ref, "name", "secretRef");
        out.secret_namespace = r.text(*ref, "namespace", "secretRef");
    }
    if (out.secret_namespace.empty())
        out.secret_namespace = project_namespace;
    return out;
}

GardenerLandscape::GardenerLandscape(std::function<GardenerClient&()> client)
    : m_client(std::move(client)) {}

std::optional<engine::CloudProfile>
GardenerLandscape::cloud_profile(const engine::CloudProfileRef& ref) {
    check_name(ref.name, ref.kind.c_str());
    GardenerClient& client = m_client();
    std::string path;
    if (ref.kind == engine::k_namespaced_cloud_profile_kind)
        path = std::string(k_core_api) + "/namespaces/" + client.namespace_name() +
               "/namespacedcloudprofiles/" + ref.name;
    else if (ref.kind == engine::k_cloud_profile_kind)
        path = std::string(k_core_api) + "/cloudprofiles/" + ref.name;
    else
        throw ValidationError("cloudProfile.kind", "\"" + ref.kind +
                                                       "\" is no profile kind; expected "
                                                       "CloudProfile or NamespacedCloudProfile");
    const auto object = client.kube().get_if_exists(path);
    if (!object)
        return std::nullopt;
    auto profile = profile_of(*object, ref.kind);
    profile.ref = ref;
    return profile;
}

std::vector<engine::CloudProfile> GardenerLandscape::cloud_profiles() {
    const auto list = m_client().kube().list(std::string(k_core_api) + "/cloudprofiles");
    std::vector<engine::CloudProfile> out;
    for (const auto& item : items_of(list, "the CloudProfile list"))
        out.push_back(profile_of(item, std::string(engine::k_cloud_profile_kind)));
    return out;
}

std::vector<engine::CredentialsBinding> GardenerLandscape::credentials_bindings() {
    GardenerClient& client = m_client();
    const auto list = client.kube().list(std::string(k_security_api) + "/namespaces/" +
                                         client.namespace_name() + "/credentialsbindings");
    std::vector<engine::CredentialsBinding> out;
    for (const auto& item : items_of(list, "the CredentialsBinding list"))
        out.push_back(parse_credentials_binding(item));
    return out;
}

std::vector<engine::SecretBinding> GardenerLandscape::secret_bindings() {
    GardenerClient& client = m_client();
    const auto list = client.kube().list(std::string(k_core_api) + "/namespaces/" +
                                         client.namespace_name() + "/secretbindings");
    std::vector<engine::SecretBinding> out;
    for (const auto& item : items_of(list, "the SecretBinding list"))
        out.push_back(parse_secret_binding(item, client.namespace_name()));
    return out;
}

} // namespace kprov::gardener
