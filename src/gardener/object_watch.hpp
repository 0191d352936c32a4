#pragma once
// Waiting for one Kubernetes object to change: a watch from a resourceVersion, bounded by a
// deadline (the Installation CR on a runtime, a Kyma in the KCP).

#include "gardener/kube_client.hpp"

#include <chrono>
#include <stop_token>
#include <string>

namespace kprov::gardener {

/// Watches the object `name` of the collection at `collection_path` after `resource_version`
/// ("" for any change from now on) for at most `max_wait`, or until `stop`; true on its first
/// ADDED, MODIFIED or DELETED event (or, when the watch had to list, an object whose
/// resourceVersion differs, or one gone that the caller had seen). False on timeout, stop and
/// any error; throws nothing. Many calls may wait at once: their deadlines share one thread.
/// `options` for a client that waits at most `max_wait`: its watches ask the server to end the
/// stream then (timeoutSeconds), so that an abandoned wait holds no server connection.
ClientOptions options_for_wait(ClientOptions options, std::chrono::milliseconds max_wait);

bool await_object_change(KubeClient& client, const std::string& collection_path,
                         const std::string& name, const std::string& resource_version,
                         std::chrono::milliseconds max_wait, std::stop_token stop);

} // namespace kprov::gardener
