// Decoding of shoots as the API server does it before admission: JSON types (400), unknown
// fields by the fieldValidation parameter, apiVersion/kind/namespace agreement.

#include "admission.hpp"
#include "schema.hpp"

namespace kprov::sim {

namespace {

/// Unknown fields, handled as the fieldValidation parameter says.
void check_unknown_fields(Json& s, const AdmissionContext& ctx, std::vector<Cause>& causes) {
    std::vector<UnknownField> unknown = unknown_fields(s, shoot_schema());
    if (unknown.empty())
        return;
    if (ctx.field_validation == "Strict") {
        std::string msg = "strict decoding error: ";
        for (std::size_t i = 0; i < unknown.size(); ++i)
            msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i].path + "\"";
        throw bad_request(msg);
    }
    if (ctx.field_validation == "Warn" || ctx.field_validation == "Ignore") {
        // Deepest first, so that erasing one item keeps the later pointers valid.
        for (auto it = unknown.rbegin(); it != unknown.rend(); ++it) {
            Json::json_pointer p(it->pointer);
            s.at(p.parent_pointer()).erase(p.back());
            if (ctx.field_validation == "Warn" && ctx.warnings)
                ctx.warnings->push_back("unknown field \"" + it->path + "\"");
        }
        return;
    }
    for (const auto& f : unknown)
        causes.push_back(
            {"FieldValueForbidden",
             "Forbidden: unknown field \"" + f.path.substr(f.path.rfind('.') + 1) + "\"", f.path});
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
    check_field_types(s, shoot_schema());
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
