#pragma once
// The provisioner's resolvers (graphql-contract.md, original-provisioner.md §1.2): thin calls
// into the engine. Mutations start operations through the EngineService; queries read the
// store. Lazy fields ask Gardener only when a query selects them: RuntimeConfig.kubeconfig (a
// fresh admin kubeconfig; null when the runtime is deleted or not ready, deliberate difference
// 4) and RuntimeStatus.hibernationStatus (from the shoot).

#include "api/graphql/graphql.hpp"
#include "engine/engine_options.hpp"
#include "engine/ports.hpp"
#include "engine/service/service.hpp"
#include "engine/store.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kprov::api {

/// The per-request state the HTTP layer gives the executor (graphql::execute's request_state):
/// the original's `Tenant` and `Sub-Account` headers, "" when absent.
struct RequestState {
    std::string tenant;
    std::string sub_account;
    /// Set by the server when the request runs on an event loop, where nothing may wait on a
    /// store write. The only write a query makes, the original's tenant rewrite, is then left
    /// in `writes` for the server to run on a worker once the answer is out (the answer does
    /// not depend on it: RuntimeStatus and OperationStatus show no tenant).
    bool on_loop = false;
    std::vector<std::function<void()>> writes{};
    /// Cleared by every resolver that does more than read the store (mutations, Gardener
    /// calls, a tenant rewrite): the answer then must not be reused (answer_cache.hpp).
    bool reusable = true;
    /// The runtimes whose rows the resolvers read, each with its version as read with the rows
    /// (nullopt: the store keeps none): what a kept answer is checked against.
    std::vector<std::pair<std::string, std::optional<std::uint64_t>>> read{};
};

/// What the resolvers call. Every reference must outlive the Resolvers built from it; each
/// must be thread-safe (handlers run concurrently).
struct ResolverDeps {
    engine::Store* store = nullptr;
    /// Where queries read (runtimes, operations); empty: `store`. serve hands out more than one
    /// connection so that reads do not queue behind each other.
    std::function<engine::Store&()> read_store;
    /// Mutations, the tenant rule, and every question to Gardener (kubeconfig, hibernation).
    engine::EngineService* service = nullptr;
    /// The engine's options: conversion (validate_provision runs before the tenant check, as
    /// in the original), tenant_strict (queries refuse another tenant with 403), the
    /// adminkubeconfig expiration, Director registration (compassRuntimeID).
    const engine::EngineOptions* options = nullptr;
    /// Called after a mutation started an operation (wakes the workers); may be empty.
    std::function<void()> on_started;
};

/// Resolvers for every Query and Mutation field of schemas/provisioner.graphql, plus the lazy
/// RuntimeConfig.kubeconfig and RuntimeStatus.hibernationStatus. Resolver failures become
/// FieldErrors with the original's extensions (errors.hpp). Only the two status queries leave
/// RequestState::reusable set. Thread-safe.
graphql::Resolvers provisioner_resolvers(const ResolverDeps& deps);

} // namespace kprov::api
