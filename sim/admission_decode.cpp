// Decoding of shoots as the API server does it before admission: JSON types (400), unknown
// fields by the fieldValidation parameter, apiVersion/kind/namespace agreement.

#include "admission.hpp"

#include <set>

namespace kprov::sim {

namespace {

const std::set<std::string> k_top_fields = {"apiVersion", "kind", "metadata", "spec", "status"};
const std::set<std::string> k_spec_fields = {"accessRestrictions",
                                             "addons",
                                             "cloudProfile",
                                             "cloudProfileName",
                                             "controlPlane",
                                             "credentialsBindingName",
                                             "dns",
                                             "exposureClassName",
                                             "extensions",
                                             "hibernation",
                                             "kubernetes",
                                             "maintenance",
                                             "monitoring",
                                             "networking",
                                             "provider",
                                             "purpose",
                                             "region",
                                             "resources",
                                             "schedulerName",
                                             "secretBindingName",
                                             "seedName",
                                             "seedSelector",
                                             "systemComponents",
                                             "tolerations"};

enum class JType { String, Bool, Int, Object, Array, IntOrString };

const char* go_type(JType t) {
    switch (t) {
    case JType::String:
        return "string";
    case JType::Bool:
        return "bool";
    case JType::Int:
        return "int32";
    case JType::Object:
        return "struct";
    case JType::Array:
        return "slice";
    case JType::IntOrString:
        return "intstr.IntOrString";
    }
    return "?";
}

const char* json_kind(const Json& v) {
    if (v.is_string())
        return "string";
    if (v.is_boolean())
        return "bool";
    if (v.is_number())
        return "number";
    if (v.is_array())
        return "array";
    if (v.is_object())
        return "object";
    return "null";
}

bool has_type(const Json& v, JType t) {
    switch (t) {
    case JType::String:
        return v.is_string();
    case JType::Bool:
        return v.is_boolean();
    case JType::Int:
        return v.is_number_integer();
    case JType::Object:
        return v.is_object();
    case JType::Array:
        return v.is_array();
    case JType::IntOrString:
        return v.is_number_integer() || v.is_string();
    }
    return false;
}

/// Type errors are decoding errors (400), as with the real API server.
void expect_type(const Json& obj, const std::string& pointer, JType t, const std::string& field) {
    Json::json_pointer ptr(pointer);
    if (!obj.contains(ptr))
        return;
    const Json& v = obj.at(ptr);
    if (v.is_null() || has_type(v, t))
        return;
    throw bad_request(
        std::string("Shoot in version \"v1beta1\" cannot be handled as a Shoot: json: "
                    "cannot unmarshal ") +
        json_kind(v) + " into Go struct field " + field + " of type " + go_type(t));
}

void check_types(const Json& s) {
    expect_type(s, "/metadata", JType::Object, "Shoot.metadata");
    expect_type(s, "/metadata/name", JType::String, "ObjectMeta.metadata.name");
    expect_type(s, "/metadata/labels", JType::Object, "ObjectMeta.metadata.labels");
    expect_type(s, "/metadata/annotations", JType::Object, "ObjectMeta.metadata.annotations");
    for (const char* m : {"labels", "annotations"}) {
        Json::json_pointer p(std::string("/metadata/") + m);
        if (s.contains(p) && s.at(p).is_object())
            for (const auto& [k, v] : s.at(p).items())
                if (!v.is_string())
                    throw bad_request(
                        std::string("Shoot in version \"v1beta1\" cannot be handled as a "
                                    "Shoot: json: cannot unmarshal ") +
                        json_kind(v) + " into Go struct field ObjectMeta.metadata." + m +
                        " of type string");
    }
    expect_type(s, "/spec", JType::Object, "Shoot.spec");
    static const std::vector<std::tuple<const char*, JType, const char*>> fields = {
        {"/spec/region", JType::String, "ShootSpec.spec.region"},
        {"/spec/purpose", JType::String, "ShootSpec.spec.purpose"},
        {"/spec/seedName", JType::String, "ShootSpec.spec.seedName"},
        {"/spec/cloudProfileName", JType::String, "ShootSpec.spec.cloudProfileName"},
        {"/spec/cloudProfile", JType::Object, "ShootSpec.spec.cloudProfile"},
        {"/spec/cloudProfile/name", JType::String, "CloudProfileReference.spec.cloudProfile.name"},
        {"/spec/cloudProfile/kind", JType::String, "CloudProfileReference.spec.cloudProfile.kind"},
        {"/spec/credentialsBindingName", JType::String, "ShootSpec.spec.credentialsBindingName"},
        {"/spec/secretBindingName", JType::String, "ShootSpec.spec.secretBindingName"},
        {"/spec/provider", JType::Object, "ShootSpec.spec.provider"},
        {"/spec/provider/type", JType::String, "Provider.spec.provider.type"},
        {"/spec/provider/workers", JType::Array, "Provider.spec.provider.workers"},
        {"/spec/kubernetes", JType::Object, "ShootSpec.spec.kubernetes"},
        {"/spec/kubernetes/version", JType::String, "Kubernetes.spec.kubernetes.version"},
        {"/spec/kubernetes/kubeAPIServer/structuredAuthentication/configMapName", JType::String,
         "StructuredAuthentication.spec.kubernetes.kubeAPIServer.structuredAuthentication."
         "configMapName"},
        {"/spec/kubernetes/kubeAPIServer/oidcConfig", JType::Object,
         "KubeAPIServerConfig.spec.kubernetes.kubeAPIServer.oidcConfig"},
        {"/spec/networking", JType::Object, "ShootSpec.spec.networking"},
        {"/spec/networking/type", JType::String, "Networking.spec.networking.type"},
        {"/spec/networking/nodes", JType::String, "Networking.spec.networking.nodes"},
        {"/spec/networking/pods", JType::String, "Networking.spec.networking.pods"},
        {"/spec/networking/services", JType::String, "Networking.spec.networking.services"},
        {"/spec/hibernation", JType::Object, "ShootSpec.spec.hibernation"},
        {"/spec/hibernation/enabled", JType::Bool, "Hibernation.spec.hibernation.enabled"},
        {"/spec/maintenance/autoUpdate/kubernetesVersion", JType::Bool,
         "MaintenanceAutoUpdate.spec.maintenance.autoUpdate.kubernetesVersion"},
        {"/spec/maintenance/autoUpdate/machineImageVersion", JType::Bool,
         "MaintenanceAutoUpdate.spec.maintenance.autoUpdate.machineImageVersion"},
        {"/spec/dns/domain", JType::String, "DNS.spec.dns.domain"},
        {"/spec/extensions", JType::Array, "ShootSpec.spec.extensions"},
        {"/spec/resources", JType::Array, "ShootSpec.spec.resources"},
    };
    for (const auto& [ptr, type, field] : fields)
        expect_type(s, ptr, type, field);
    Json::json_pointer wp("/spec/provider/workers");
    if (!s.contains(wp) || !s.at(wp).is_array())
        return;
    for (std::size_t i = 0; i < s.at(wp).size(); ++i) {
        std::string base = "/spec/provider/workers/" + std::to_string(i);
        expect_type(s, base, JType::Object, "Provider.spec.provider.workers");
        expect_type(s, base + "/name", JType::String, "Worker.spec.provider.workers.name");
        expect_type(s, base + "/minimum", JType::Int, "Worker.spec.provider.workers.minimum");
        expect_type(s, base + "/maximum", JType::Int, "Worker.spec.provider.workers.maximum");
        expect_type(s, base + "/maxSurge", JType::IntOrString,
                    "Worker.spec.provider.workers.maxSurge");
        expect_type(s, base + "/maxUnavailable", JType::IntOrString,
                    "Worker.spec.provider.workers.maxUnavailable");
        expect_type(s, base + "/machine", JType::Object, "Worker.spec.provider.workers.machine");
        expect_type(s, base + "/machine/type", JType::String,
                    "Machine.spec.provider.workers.machine.type");
        expect_type(s, base + "/zones", JType::Array, "Worker.spec.provider.workers.zones");
        expect_type(s, base + "/volume/size", JType::String,
                    "Volume.spec.provider.workers.volume.size");
    }
}

/// Unknown top-level and spec fields, handled as the fieldValidation parameter says.
void check_unknown_fields(Json& s, const AdmissionContext& ctx, std::vector<Cause>& causes) {
    std::vector<std::string> unknown;
    for (const auto& [k, v] : s.items())
        if (!k_top_fields.count(k))
            unknown.push_back(k);
    if (s.contains("spec") && s["spec"].is_object())
        for (const auto& [k, v] : s["spec"].items())
            if (!k_spec_fields.count(k))
                unknown.push_back("spec." + k);
    if (unknown.empty())
        return;
    if (ctx.field_validation == "Strict") {
        std::string msg = "strict decoding error: ";
        for (std::size_t i = 0; i < unknown.size(); ++i)
            msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
        throw bad_request(msg);
    }
    if (ctx.field_validation == "Warn" || ctx.field_validation == "Ignore") {
        for (const auto& f : unknown) {
            if (f.rfind("spec.", 0) == 0)
                s["spec"].erase(f.substr(5));
            else
                s.erase(f);
            if (ctx.field_validation == "Warn" && ctx.warnings)
                ctx.warnings->push_back("unknown field \"" + f + "\"");
        }
        return;
    }
    for (const auto& f : unknown)
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: unknown field \"" + f.substr(f.rfind('.') + 1) + "\"", f});
}

} // namespace

std::vector<Cause> decode_shoot(Json& s, const AdmissionContext& ctx) {
    const ResourceInfo& info = shoot_info();
    if (s.contains("apiVersion") && s["apiVersion"] != info.api_version())
        throw bad_request(
            "the API version in the data (" + s["apiVersion"].dump() +
            ") does not match the expected API version (core.gardener.cloud/v1beta1)");
    if (s.contains("kind") && s["kind"] != info.kind)
        throw bad_request("the kind in the data (" + s["kind"].dump() +
                          ") does not match the expected kind (Shoot)");
    check_types(s);
    std::vector<Cause> causes;
    check_unknown_fields(s, ctx, causes);
    s["apiVersion"] = info.api_version();
    s["kind"] = info.kind;
    if (!s.contains("metadata") || s["metadata"].is_null())
        s["metadata"] = Json::object();
    if (!s.contains("spec") || s["spec"].is_null())
        s["spec"] = Json::object();
    Json& md = s["metadata"];
    if (md.contains("namespace") && md["namespace"] != ctx.ns)
        throw bad_request("the namespace of the provided object does not match the namespace sent "
                          "on the request");
    md["namespace"] = ctx.ns;
    if (s["spec"].contains("kubernetes") && s["spec"]["kubernetes"].contains("kubeAPIServer") &&
        s["spec"]["kubernetes"]["kubeAPIServer"].contains("oidcConfig") && ctx.warnings)
        ctx.warnings->push_back("spec.kubernetes.kubeAPIServer.oidcConfig was removed in Gardener "
                                "v1.142; use structuredAuthentication");
    return causes;
}

} // namespace kprov::sim
