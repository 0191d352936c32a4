// Adopting a shoot kprov did not create: the store and Gardener halves of `kprov adopt`.

#include "engine/service/service.hpp"
#include "engine/shoot/shoot_adoption.hpp"
#include "engine/stages/stages.hpp"

namespace kprov::engine {

ShootState EngineService::adoptable_shoot(const std::string& shoot_name) {
    const std::string& project = m_options.conversion.gardener_project;
    auto shoot = m_shoots.get(shoot_name);
    if (!shoot)
        throw NotFound("shoot " + shoot_name + " does not exist in Gardener project " + project +
                       " (namespace garden-" + project + ")");
    if (shoot->deletion_timestamp)
        throw Conflict("shoot " + shoot_name + " in project " + project +
                       " is being deleted: there is nothing to adopt");
    // A shoot made from `kprov plan` output carries the plan's placeholder, which names no one.
    if (const auto owner = shoot_owner(*shoot); owner && *owner != k_placeholder_ids.runtime_id) {
        // A failed adoption or a runtime of another store leaves such an annotation behind.
        const bool here = m_store.find_runtime(*owner).has_value();
        throw Conflict("shoot " + shoot_name + " is already kprov runtime " + *owner +
                       "'s (its runtime-id annotation names it)" +
                       (here ? std::string()
                             : "; that runtime is not in this store: if it is a left-over, "
                               "remove the annotation (kubectl annotate shoot " +
                                   shoot_name + " " + std::string(k_runtime_id_annotation) +
                                   "-) and adopt again"));
    }
    if (const auto owner = m_store.live_runtime_with_shoot(project, shoot_name))
        throw ShootNameTaken(project, shoot_name, *owner, ", which kprov manages already");
    return std::move(*shoot);
}

void EngineService::annotate_adopted(const ProvisionPlan& plan, const ShootState& live) {
    // The precondition makes it the very shoot that was checked. Gardener rewrites a shoot's
    // status all the time, which changes its resourceVersion but not its generation: only a
    // new spec, or an owner that appeared meanwhile, voids the check.
    std::string version = live.resource_version;
    for (int attempt = 1;; ++attempt) {
        try {
            m_shoots.patch(live.name, adoption_patch(plan.shoot.shoot, version));
            return;
        } catch (const Conflict&) {
            const auto now = m_shoots.get(live.name);
            const auto owner = now ? shoot_owner(*now) : std::nullopt;
            const bool same = now && now->generation == live.generation &&
                              !now->deletion_timestamp &&
                              (!owner || *owner == k_placeholder_ids.runtime_id);
            if (!same || attempt == 5)
                throw Conflict("shoot " + live.name +
                               " changed while it was being adopted; nothing was adopted, adopt "
                               "it again");
            version = now->resource_version;
        }
    }
}

Operation EngineService::adopt(const ProvisionPlan& plan, const ShootState& live,
                               std::string_view by) {
    require_landscape(m_ports.landscape);
    const Runtime& runtime = plan.runtime;
    const Timestamp now = m_clock.now();
    Operation op = plan.operation;
    op.state = OperationState::Succeeded;
    op.stage = k_stage_finished;
    op.message = "Adopted shoot " + live.name + " of project " + runtime.gardener.project_name +
                 " by " + std::string(by);
    op.end_timestamp = now;
    op.last_transition = now;
    op.next_run_at = now;
    // The shoot first: a runtime in the store whose shoot does not name it would be one that
    // deprovisioning leaves alone.
    annotate_adopted(plan, live);
    try {
        m_store.insert_runtime(runtime, op);
    } catch (...) {
        try {
            m_shoots.patch(live.name, adoption_undo_patch(plan.shoot.shoot));
        } catch (const std::exception& e) {
            log(LogLevel::Warning, "shoot " + live.name + " keeps the annotations of runtime " +
                                       runtime.id + ", which was not stored: " + e.what());
        }
        throw;
    }
    m_store.record_event(runtime.id,
                         {now, "Adopt",
                          "shoot " + live.name + " adopted from Gardener project " +
                              runtime.gardener.project_name + " by " + std::string(by)});
    return op;
}

} // namespace kprov::engine
