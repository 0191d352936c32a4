#pragma once
// OpenAPI documents generated from the field tables (schema.hpp) of the kinds a server serves:
// /openapi/v2 (JSON, or gnostic protobuf for kubectl) and /openapi/v3 (the index and one
// document per group version), for kubectl's validation and explain and for typed clients.

#include "api.hpp"
#include "schema.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kprov::sim {

/// The Swagger 2.0 document: one definition per kind (with x-kubernetes-group-version-kind)
/// and the shared ObjectMeta.
Json openapi_v2(const std::vector<KindSchema>& kinds);

/// The OpenAPI 3.0 document of one group version ("" group for /api/v1); its kinds only.
Json openapi_v3(const std::vector<KindSchema>& kinds, const std::string& group,
                const std::string& version);

/// A Swagger 2.0 JSON document as gnostic's openapi_v2.Document protobuf message, which is the
/// only encoding kubectl asks /openapi/v2 for.
std::string openapi_v2_protobuf(const Json& v2);

/// Answers GET /openapi/v2, /openapi/v3 and /openapi/v3/<api/v1|apis/<g>/<v>> for a server that
/// serves `resources`; nullopt for any other path. Unknown group versions answer 404.
std::optional<ApiResponse> serve_openapi(const ApiRequest& req, const std::string& path,
                                         const std::vector<ResourceInfo>& resources);

} // namespace kprov::sim
