#include "api/resolvers.hpp"

#include "api/errors.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/stages/registration.hpp"
#include "engine/status_tree.hpp"

#include <memory>
#include <utility>

namespace kprov::api {
namespace {

using graphql::Value;

// Members a lazy sub-field reads from its parent; the schema does not declare them, so clients
// never see them (graphql.hpp).
constexpr char k_runtime_id[] = "_runtimeID";
constexpr char k_shoot_name[] = "_shootName";
constexpr char k_live[] = "_live"; // a shoot exists and can be asked about

// Whether an answer that ran a resolver may be reused while the store does not change.
enum class Reads {
    StoreOnly, // reads the store and nothing else
    Beyond,    // writes, or asks Gardener: its answer is never reused
};

void not_reusable(const graphql::FieldContext& ctx) {
    if (auto* state = std::any_cast<RequestState>(&ctx.request))
        state->reusable = false;
}

// Notes which runtime's rows, at which version, an answer shows (RequestState::read).
void note_read(const graphql::FieldContext& ctx, const std::string& runtime_id,
               std::optional<std::uint64_t> version) {
    if (auto* state = std::any_cast<RequestState>(&ctx.request))
        state->read.emplace_back(runtime_id, version);
}

class ProvisionerResolvers {
public:
    explicit ProvisionerResolvers(ResolverDeps deps)
        : m_deps(std::move(deps)) {}

    Value provision(const graphql::FieldContext& ctx) const {
        // The original validates before it looks at the tenant.
        const auto input =
            engine::read_provision_input(ctx.arguments.at("config"), m_deps.options->conversion);
        const auto request = require_tenant(ctx);
        return started(m_deps.service->provision(input, request));
    }

    Value deprovision(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        const auto result = m_deps.service->deprovision(id_of(ctx), request);
        notify();
        return result.operation.id;
    }

    Value upgrade_shoot(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        const auto input = engine::read_upgrade_input(ctx.arguments.at("config"));
        return started(m_deps.service->upgrade_shoot(id_of(ctx), input, request));
    }

    Value upgrade_runtime(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        const auto input =
            engine::read_kyma_upgrade_input(ctx.arguments.at("config"), m_deps.options->conversion);
        return started(m_deps.service->upgrade_kyma(id_of(ctx), input, request));
    }

    Value roll_back_upgrade(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        m_deps.service->roll_back_kyma(id_of(ctx), request);
        notify();
        return runtime_status(ctx);
    }

    Value hibernate(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        return started(m_deps.service->hibernate(id_of(ctx), request));
    }

    Value wake_up(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        return started(m_deps.service->wake_up(id_of(ctx), request));
    }

    Value operation_status(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        const std::string id = id_of(ctx);
        // The original loads the operation first, then checks the tenant of its runtime: one
        // read here.
        auto found = reader().find_operation_with_tenant(id);
        if (!found)
            throw NotFound("operation \"" + id + "\" not found");
        const auto& op = found->operation;
        note_read(ctx, op.cluster_id, found->runtime_version);
        apply_tenant(ctx, op.cluster_id, found->tenant, &op, request,
                     "a runtimeOperationStatus query");
        return status_of(op);
    }

    Value runtime_status(const graphql::FieldContext& ctx) const {
        const auto request = require_tenant(ctx);
        const std::string id = id_of(ctx);
        auto found = reader().find_runtime_status(id);
        if (!found)
            throw NotFound("runtime \"" + id + "\" not found");
        const engine::Runtime* runtime = &found->runtime;
        const auto& last = found->last;
        note_read(ctx, id, found->version);
        apply_tenant(ctx, id, runtime->tenant, last ? &*last : nullptr, request,
                     "a runtimeStatus query");

        engine::RuntimeStatusExtras extras;
        extras.compass_runtime_id = engine::compass_runtime_id(*m_deps.options, id);
        extras.mask_secret_overrides = true; // never in plain text over the API
        Value status = engine::status_tree::runtime_status<Value>(*runtime, last, extras);
        const bool live = !engine::EngineService::shoot_unavailable(*runtime, last);
        for (auto* object : {status.member("runtimeConfiguration"), &status}) {
            object->add(k_runtime_id, id);
            object->add(k_shoot_name, runtime->gardener.name);
            object->add(k_live, live);
        }
        return status;
    }

    Value kubeconfig(const graphql::FieldContext& ctx) const {
        if (!live(ctx))
            return nullptr;
        auto kubeconfig = m_deps.service->admin_kubeconfig(runtime_id(ctx), shoot_name(ctx));
        if (!kubeconfig)
            return nullptr;
        return std::move(*kubeconfig);
    }

    Value hibernation_status(const graphql::FieldContext& ctx) const {
        if (!live(ctx))
            return nullptr;
        const auto shoot = m_deps.service->own_shoot(runtime_id(ctx), shoot_name(ctx));
        if (!shoot)
            return nullptr;
        const engine::HibernationStatus hibernation = engine::hibernation_status(*shoot);
        Value status = Value::object(2);
        status.add("hibernated", *hibernation.hibernated);
        if (hibernation.hibernation_possible)
            status.add("hibernationPossible", *hibernation.hibernation_possible);
        else
            status.add("hibernationPossible", nullptr);
        return status;
    }

private:
    // What runtime_status parked for the lazy fields.
    static bool live(const graphql::FieldContext& ctx) {
        const bool* live = ctx.parent.member(k_live).boolean();
        return live && *live;
    }
    static std::string shoot_name(const graphql::FieldContext& ctx) {
        const std::string* name = ctx.parent.member(k_shoot_name).string();
        return name ? *name : std::string();
    }
    static std::string runtime_id(const graphql::FieldContext& ctx) {
        const std::string* id = ctx.parent.member(k_runtime_id).string();
        return id ? *id : std::string();
    }

    engine::Store& reader() const {
        return m_deps.read_store ? m_deps.read_store() : *m_deps.store;
    }

    static std::string id_of(const graphql::FieldContext& ctx) {
        return ctx.arguments.at("id").get<std::string>();
    }

    static engine::RequestContext require_tenant(const graphql::FieldContext& ctx) {
        const auto* state = std::any_cast<RequestState>(&ctx.request);
        engine::RequestContext request;
        if (state)
            request = {state->tenant, state->sub_account};
        engine::require_tenant(request); // TenantMissing: 400 (to_field_error)
        return request;
    }

    // The original's GetAndUpdateTenant for queries, by the engine's one tenant rule.
    // `stored`: the runtime's tenant as read, nullopt when the runtime is gone.
    void apply_tenant(const graphql::FieldContext& ctx, const std::string& runtime_id,
                      const std::optional<std::string>& stored, const engine::Operation* shown,
                      const engine::RequestContext& request, std::string_view by) const {
        if (!stored)
            throw NotFound("runtime \"" + runtime_id + "\" not found");
        if (*stored == request.tenant)
            return;
        not_reusable(ctx);
        // A write may wait for the store's lock (SQLite's busy timeout): not on an event loop.
        // There the strict refusal (which writes nothing) happens now and the rewrite after the
        // answer, on a worker.
        if (auto* state = std::any_cast<RequestState>(&ctx.request); state && state->on_loop) {
            if (m_deps.options->tenant_strict)
                m_deps.service->apply_tenant(runtime_id, *stored, shown, request, by);
            state->writes.push_back([service = m_deps.service, runtime_id, stored = *stored,
                                     shown = shown ? std::optional(*shown) : std::nullopt, request,
                                     by = std::string(by)] {
                service->apply_tenant(runtime_id, stored, shown ? &*shown : nullptr, request, by);
            });
            return;
        }
        m_deps.service->apply_tenant(runtime_id, *stored, shown, request, by);
    }

    Value status_of(const engine::Operation& op) const {
        return engine::status_tree::operation_status<Value>(
            op, engine::compass_runtime_id(*m_deps.options, op.cluster_id));
    }

    Value started(const engine::StartedOperation& result) const {
        notify();
        return engine::status_tree::operation_status<Value>(result.operation,
                                                            result.compass_runtime_id);
    }

    void notify() const {
        if (m_deps.on_started)
            m_deps.on_started();
    }

    ResolverDeps m_deps;
};

// Every failure becomes a FieldError with the original's extensions.
template <typename F> graphql::Resolver guarded(F f, Reads reads) {
    return [f = std::move(f), reads](const graphql::FieldContext& ctx) -> Value {
        if (reads == Reads::Beyond)
            not_reusable(ctx);
        try {
            return f(ctx);
        } catch (...) {
            throw current_field_error();
        }
    };
}

} // namespace

graphql::Resolvers provisioner_resolvers(const ResolverDeps& deps) {
    auto r = std::make_shared<const ProvisionerResolvers>(deps);
    graphql::Resolvers resolvers;
    const auto add = [&](std::string field,
                         Value (ProvisionerResolvers::*method)(const graphql::FieldContext&) const,
                         Reads reads = Reads::Beyond) {
        // What asks beyond the store (Gardener, a write) may block: the server runs a request
        // that selects it off the event loops (graphql::OperationPlan).
        resolvers.add(
            std::move(field),
            guarded([r, method](const graphql::FieldContext& ctx) { return ((*r).*method)(ctx); },
                    reads),
            reads == Reads::Beyond ? graphql::Blocking::Yes : graphql::Blocking::No);
    };
    add("Mutation.provisionRuntime", &ProvisionerResolvers::provision);
    add("Mutation.deprovisionRuntime", &ProvisionerResolvers::deprovision);
    add("Mutation.upgradeShoot", &ProvisionerResolvers::upgrade_shoot);
    add("Mutation.hibernateRuntime", &ProvisionerResolvers::hibernate);
    add("Mutation.wakeUpRuntime", &ProvisionerResolvers::wake_up);
    add("Query.runtimeOperationStatus", &ProvisionerResolvers::operation_status, Reads::StoreOnly);
    add("Query.runtimeStatus", &ProvisionerResolvers::runtime_status, Reads::StoreOnly);
    add("RuntimeConfig.kubeconfig", &ProvisionerResolvers::kubeconfig);
    add("RuntimeStatus.hibernationStatus", &ProvisionerResolvers::hibernation_status);

    add("Mutation.upgradeRuntime", &ProvisionerResolvers::upgrade_runtime);
    add("Mutation.rollBackUpgradeOperation", &ProvisionerResolvers::roll_back_upgrade);
    resolvers.add("Mutation.reconnectRuntimeAgent",
                  guarded([](const graphql::FieldContext&) -> Value { return ""; }, Reads::Beyond));
    return resolvers;
}

} // namespace kprov::api
