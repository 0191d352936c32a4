#pragma once
// The Kyma custom resource of the KCP (kymas.operator.kyma-project.io/v1beta2, see
// kyma-lifecycle-manager.md §1): its structural schema (the API server's 422 causes, pruning of
// unknown fields, defaults) and the write rules every custom resource with finalizers has.
// Not thread-safe: callers hold the world lock.

#include "object_store.hpp"

#include <string>
#include <vector>

namespace kprov::sim {

/// kymas.operator.kyma-project.io, v1beta2, namespaced.
const ResourceInfo& kyma_info();

/// Checks `obj` against the Kyma schema and applies its defaults (modules[].managed true,
/// customResourcePolicy CreateAndDelete). Unknown fields outside metadata and status are
/// removed; their paths ("spec.modules[0].version") are returned. Throws ApiError 422 with
/// every problem (channel pattern and length, modules[].name required and unique, the
/// customResourcePolicy enum, wrong JSON types).
std::vector<std::string> admit_kyma(Json& obj);

/// DELETE with finalizers honoured: an object with metadata.finalizers gets deletionTimestamp
/// (once; its generation grows) and is returned as stored; one without is removed and a Status
/// Success is returned. Throws 404 when absent.
Json delete_honouring_finalizers(ObjectStore& store, const ResourceInfo& info,
                                 const std::string& ns, const std::string& name, bool dry_run);

/// Stores `next` over an existing object (metadata.resourceVersion is the precondition: 409
/// when stale, 422 when missing for custom resources) with the API server's finalizer rules:
/// deletionTimestamp cannot be set or changed by a write, no finalizer may be added once it is
/// set (422), and the object is removed once it is set and the last finalizer is gone. Returns
/// the stored object, or the last state of a removed one.
Json update_honouring_finalizers(ObjectStore& store, const ResourceInfo& info,
                                 const std::string& ns, const std::string& name, Json next,
                                 bool dry_run);

} // namespace kprov::sim
