// The field tables of the runtime clusters' kinds (and of the plain objects of the Gardener
// API): the fields of the core kinds that clients write, everything else kept open, because the
// simulated clusters store what they are sent.

#include "schema_builders.hpp"

namespace kprov::sim {

namespace {

using namespace fields;

Field rules() {
    return list("rules", "PolicyRule", "", "What the role allows.",
                {strings("apiGroups", "API groups the rule applies to."),
                 strings("resources", "Resources the rule applies to."),
                 strings("resourceNames", "Names the rule is restricted to."),
                 strings("nonResourceURLs", "Non-resource URLs the rule applies to."),
                 required(strings("verbs", "Allowed verbs."))});
}

std::vector<Field> kind_fields(const ResourceInfo& info) {
    const std::string& k = info.kind;
    if (k == "ConfigMap")
        return {string_map("data", "Configuration data (UTF-8 values)."),
                string_map("binaryData", "Binary configuration data (base64 values)."),
                flag("immutable", "Whether the data may no longer change.")};
    if (k == "Secret")
        return {string_map("data", "Secret data (base64 values)."),
                string_map("stringData", "Secret data as plain strings; write-only."),
                str("type", "Type of the secret, e.g. Opaque."),
                flag("immutable", "Whether the data may no longer change.")};
    if (k == "Namespace")
        return {open_obj("spec", "NamespaceSpec", "Finalizers of the namespace.",
                         {strings("finalizers", "Finalizers that must run before removal.")}),
                open_obj("status", "NamespaceStatus", "Phase of the namespace.",
                         {str("phase", "Active or Terminating.")})};
    if (k == "ServiceAccount")
        return {flag("automountServiceAccountToken", "Whether pods mount a token."),
                list("secrets", "ObjectReference", "name", "Secrets of the account.", {}, true),
                list("imagePullSecrets", "LocalObjectReference", "name",
                     "Secrets for pulling images.", {}, true)};
    if (k == "ClusterRole" || k == "Role") {
        std::vector<Field> f = {rules()};
        if (k == "ClusterRole")
            f.push_back(open_obj("aggregationRule", "AggregationRule",
                                 "Selects ClusterRoles whose rules are aggregated."));
        return f;
    }
    if (k == "ClusterRoleBinding" || k == "RoleBinding")
        return {required(obj("roleRef", "RoleRef", "The role granted.",
                             {required(str("apiGroup", "API group of the role.")),
                              required(str("kind", "Role or ClusterRole.")),
                              required(str("name", "Name of the role."))})),
                list("subjects", "Subject", "", "Who is granted the role.", {}, true)};
    return {open_obj("spec", info.kind + "Spec", "The desired state."),
            open_obj("status", info.kind + "Status", "The observed state.")};
}

} // namespace

KindSchema cluster_kind_schema(const ResourceInfo& info) {
    std::vector<Field> f = {str("apiVersion", info.api_version()), str("kind", info.kind),
                            object_meta()};
    for (auto& extra : kind_fields(info))
        f.push_back(std::move(extra));
    return {info, open_obj("", info.kind, info.kind + " (" + info.api_version() + ").", f)};
}

KindSchema schema_for(const ResourceInfo& info) {
    const KindSchema& shoot = shoot_schema();
    if (info.group == shoot.info.group && info.resource == shoot.info.resource)
        return shoot;
    return cluster_kind_schema(info);
}

} // namespace kprov::sim
