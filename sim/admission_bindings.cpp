// The strategy's version-dependent validation (422: retired fields, binding names, downgrades,
// skipped minors, maximum >= zones), the ResourceReferenceManager (403: bindings, ConfigMaps and
// Secrets that must exist) and ShootValidator's binding rules (403), gardener-landscape.md §2, §4.

#include "admission_rules.hpp"
#include "landscape.hpp"

namespace kprov::sim::rules {

namespace {

const ResourceInfo& secret_info() {
    static const ResourceInfo info{"", "v1", "secrets", "Secret", true, "secret", {}, {}};
    return info;
}

const ResourceInfo& configmap_info() {
    static const ResourceInfo info{"", "v1", "configmaps", "ConfigMap", true, "configmap", {}, {}};
    return info;
}

void forbid(std::vector<Cause>& causes, const std::string& field, const std::string& detail) {
    causes.push_back({"FieldValueForbidden", "Forbidden: " + detail, field});
}

} // namespace

void strategy(Json& shoot, const Json& old, std::vector<Cause>& causes) {
    if (!shoot.contains("spec") || !shoot["spec"].is_object())
        return;
    Json& spec = shoot["spec"];
    const bool create = old.is_null();
    const std::string version = str(shoot, "/spec/kubernetes/version");
    const bool k132 = version_at_least(version, 1, 32);
    const bool k134 = version_at_least(version, 1, 34);
    const bool k135 = version_at_least(version, 1, 35);

    // cloudProfile <-> cloudProfileName (pkg/utils/gardener/cloudprofile.go:241-289).
    std::string legacy = str(shoot, "/spec/cloudProfileName");
    if (!spec.contains("cloudProfile") && !legacy.empty())
        spec["cloudProfile"] = {{"kind", "CloudProfile"}, {"name", legacy}};
    if (spec.contains("cloudProfile") && spec["cloudProfile"].is_object() &&
        !spec["cloudProfile"].contains("kind"))
        spec["cloudProfile"]["kind"] = "CloudProfile";
    std::string cp = str(shoot, "/spec/cloudProfile/name");
    bool kind_cp = str(shoot, "/spec/cloudProfile/kind") == "CloudProfile";
    if (k134 && !create && !legacy.empty() && legacy == cp &&
        legacy == str(old, "/spec/cloudProfileName")) {
        spec.erase("cloudProfileName");
        legacy.clear();
    }
    if (!k134 && kind_cp && !cp.empty())
        spec["cloudProfileName"] = cp;
    if (k134 && !legacy.empty())
        forbid(causes, "spec.cloudProfileName",
               "for Kubernetes version >= 1.34, cloudProfileName field is no longer supported, "
               "use spec.cloudProfile.name instead");

    // Credentials bindings (pkg/api/core/validation/shoot.go:352-371, 438-445).
    std::string cb = str(shoot, "/spec/credentialsBindingName");
    std::string sb = str(shoot, "/spec/secretBindingName");
    Json::json_pointer wp("/spec/provider/workers");
    bool has_workers = shoot.contains(wp) && shoot.at(wp).is_array() && !shoot.at(wp).empty();
    if (has_workers && cb.empty() && sb.empty())
        causes.push_back({"FieldValueRequired",
                          "Required value: must be set when credentialsBindingName is not",
                          "spec.secretBindingName"});
    if (!cb.empty() && !sb.empty())
        forbid(causes, "spec.secretBindingName", "is incompatible with credentialsBindingName");
    if (k134 && !sb.empty())
        forbid(causes, "spec.secretBindingName",
               "for Kubernetes versions >= 1.34, secretBindingName field is no longer supported, "
               "use spec.credentialsBindingName instead");
    if (!create) {
        std::string old_cb = str(old, "/spec/credentialsBindingName");
        std::string old_sb = str(old, "/spec/secretBindingName");
        if (!old_cb.empty() && cb.empty())
            forbid(causes, "spec.credentialsBindingName", "the field cannot be unset");
        bool migration = !old_sb.empty() && sb.empty() && !cb.empty();
        if (!old_sb.empty() && sb != old_sb && !migration)
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + sb + "\": field is immutable",
                              "spec.secretBindingName"});
        // Downgrades and skipped minors (S:882-915).
        auto was = parse_semver(str(old, "/spec/kubernetes/version"));
        auto now = parse_semver(version);
        if (was && now && was->patch >= 0 && now->patch >= 0) {
            if (*now < *was)
                forbid(causes, "spec.kubernetes.version",
                       "kubernetes version downgrade is not supported");
            else if (now->major == was->major && now->minor >= was->minor + 2)
                forbid(causes, "spec.kubernetes.version",
                       "kubernetes version upgrade cannot skip a minor version");
        }
    }

    // DNS providers (S:1063-1176).
    Json::json_pointer dp("/spec/dns/providers");
    if (shoot.contains(dp) && shoot.at(dp).is_array()) {
        const Json& providers = shoot.at(dp);
        for (std::size_t i = 0; i < providers.size(); ++i) {
            const Json& p = providers[i];
            std::string f = "spec.dns.providers[" + std::to_string(i) + "]";
            if (!p.is_object())
                continue;
            if (k135 && p.contains("secretName"))
                forbid(causes, f + ".secretName",
                       "for Kubernetes versions >= 1.35, secretName field is no longer supported");
            if (p.contains("credentialsRef") && p["credentialsRef"].is_object()) {
                if (p["credentialsRef"].contains("namespace"))
                    forbid(causes, f + ".credentialsRef.namespace", "namespace must not be set");
                if (p.value("type", "").empty())
                    causes.push_back({"FieldValueRequired",
                                      "Required value: type must be set when credentialsRef is set",
                                      f + ".type"});
                if (p.value("type", "") == "unmanaged")
                    forbid(causes, f + ".credentialsRef",
                           "credentialsRef must not be set for provider type unmanaged");
            }
        }
    }

    // oidcConfig: the pre-v1.142 rule (v1.107-v1.141); see tests/sim/README.md.
    Json::json_pointer op("/spec/kubernetes/kubeAPIServer/oidcConfig");
    if (k132 && shoot.contains(op) && !shoot.at(op).is_null())
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: core.OIDCConfig{ClientID:\"" +
                              str(shoot, "/spec/kubernetes/kubeAPIServer/oidcConfig/clientID") +
                              "\"}: for Kubernetes versions >= 1.32, oidcConfig field is no "
                              "longer supported",
                          "spec.kubernetes.kubeAPIServer.oidcConfig"});

    // maximum >= zones (S:2946-3000).
    if (has_workers) {
        const Json& workers = shoot.at(wp);
        bool active = false;
        for (std::size_t i = 0; i < workers.size(); ++i) {
            const Json& w = workers[i];
            if (!w.is_object())
                continue;
            Json::json_pointer allow("/systemComponents/allow");
            bool system =
                !w.contains(allow) || !w.at(allow).is_boolean() || w.at(allow).get<bool>();
            long long max = w.value("maximum", 0LL);
            if (!system || max <= 0)
                continue;
            active = true;
            std::size_t zones = w.value("zones", Json::array()).size();
            if (static_cast<std::size_t>(max) < zones)
                forbid(causes, "spec.provider.workers[" + std::to_string(i) + "].maximum",
                       "maximum node count should be greater than or equal to the number of "
                       "zones specified for this pool");
        }
        if (!active)
            forbid(causes, "spec.provider.workers",
                   "at least one active (workers[i].maximum > 0) worker pool with "
                   "systemComponents.allow=true needed");
    }
}

void check_references(const Json& shoot, const Json& old, const AdmissionContext& ctx) {
    const std::string name = shoot["metadata"].value("name", "");
    std::string cm =
        str(shoot, "/spec/kubernetes/kubeAPIServer/structuredAuthentication/configMapName");
    if (!cm.empty() && ctx.lookup && !ctx.lookup(configmap_info(), ctx.ns, cm))
        throw forbidden(shoot_info(), name,
                        "failed to resolve structured authentication config map reference: "
                        "configmaps \"" +
                            cm + "\" not found");
    if (!ctx.lookup)
        return;
    std::string cb = str(shoot, "/spec/credentialsBindingName");
    if (!cb.empty() && (old.is_null() || cb != str(old, "/spec/credentialsBindingName")) &&
        !ctx.lookup(credentials_binding_info(), ctx.ns, cb))
        throw forbidden(shoot_info(), name,
                        "credentialsbinding.security.gardener.cloud \"" + cb + "\" not found");
    std::string sb = str(shoot, "/spec/secretBindingName");
    if (!sb.empty() && (old.is_null() || sb != str(old, "/spec/secretBindingName")) &&
        !ctx.lookup(secret_binding_info(), ctx.ns, sb))
        throw forbidden(shoot_info(), name,
                        "secretbinding.core.gardener.cloud \"" + sb + "\" not found");
    Json::json_pointer dp("/spec/dns/providers");
    if (shoot.contains(dp) && shoot.at(dp).is_array())
        for (const auto& p : shoot.at(dp)) {
            if (!p.is_object() || !p.contains("credentialsRef") || !p["credentialsRef"].is_object())
                continue;
            const Json& ref = p["credentialsRef"];
            if (ref.value("kind", "") != "Secret")
                continue;
            std::string secret = ref.value("name", "");
            if (!ctx.lookup(secret_info(), ctx.ns, secret))
                throw forbidden(shoot_info(), name,
                                "failed to resolve credentials reference of type Secret: "
                                "secrets \"" +
                                    secret + "\" not found");
        }
}

void validate_bindings(const Json& shoot, const Json& old, const AdmissionContext& ctx,
                       std::vector<FieldError>& errors) {
    if (!ctx.lookup)
        return;
    const std::string type = str(shoot, "/spec/provider/type");
    const std::string cb = str(shoot, "/spec/credentialsBindingName");
    const std::string sb = str(shoot, "/spec/secretBindingName");
    auto mismatch = [&](const std::string& kind, const std::string& bound) {
        errors.push_back({"FieldValueInvalid", "spec.provider.type",
                          "Invalid value: \"" + type +
                              "\": provider type in shoot must match provider type of referenced " +
                              kind + ": \"" + bound + "\""});
    };
    if (!cb.empty()) {
        auto binding = ctx.lookup(credentials_binding_info(), ctx.ns, cb);
        if (!binding)
            throw internal_error("could not find referenced credentials binding: "
                                 "credentialsbinding.security.gardener.cloud \"" +
                                 cb + "\" not found");
        std::string bound = str(*binding, "/provider/type");
        if (bound != type)
            mismatch("CredentialsBinding", bound);
        std::string old_sb = str(old, "/spec/secretBindingName");
        if (!old.is_null() && !old_sb.empty() && sb.empty()) {
            // The migration of one update: the same Secret, or nothing (V:670-699).
            auto old_binding = ctx.lookup(secret_binding_info(), ctx.ns, old_sb);
            const Json ref = binding->value("credentialsRef", Json::object());
            bool same =
                old_binding && ref.value("kind", "") == "Secret" &&
                ref.value("apiVersion", "") == "v1" &&
                ref.value("name", "") == str(*old_binding, "/secretRef/name") &&
                ref.value("namespace", "") == (str(*old_binding, "/secretRef/namespace").empty()
                                                   ? ctx.ns
                                                   : str(*old_binding, "/secretRef/namespace"));
            if (!same)
                throw forbidden(shoot_info(), shoot["metadata"].value("name", ""),
                                "it is not allowed to change the referenced Secret when migrating "
                                "from SecretBindingName to CredentialsBindingName");
        }
    } else if (!sb.empty()) {
        auto binding = ctx.lookup(secret_binding_info(), ctx.ns, sb);
        if (!binding)
            throw internal_error("could not find referenced secret binding: "
                                 "secretbinding.core.gardener.cloud \"" +
                                 sb + "\" not found");
        std::string bound = str(*binding, "/provider/type");
        bool match = false;
        std::size_t start = 0;
        while (!bound.empty() && start <= bound.size()) {
            std::size_t comma = bound.find(',', start);
            std::string t =
                bound.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            match = match || t == type;
            start = comma == std::string::npos ? bound.size() + 1 : comma + 1;
        }
        if (!match)
            mismatch("SecretBinding", bound);
    }
}

} // namespace kprov::sim::rules
