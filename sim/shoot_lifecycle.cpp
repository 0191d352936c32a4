// The lifecycle engine of ShootStore: scheduling, then one operation at a time (Create until
// the first Create succeeded, Reconcile after a spec change, Delete once deletionTimestamp is
// set), each in five steps (progress 0, 20, 40, 60, 80) and then Succeeded, Error or Failed.
// An operation starts whenever metadata.generation is ahead of status.observedGeneration (a
// newer spec restarts a running operation, as a new gardenlet reconciliation would).

#include "clusters.hpp"
#include "shoot_store.hpp"
#include "watch_hub.hpp"

#include <algorithm>

namespace kprov::sim {

namespace {

constexpr int k_steps = 5;

const char* k_health_conditions[] = {"APIServerAvailable", "ControlPlaneHealthy",
                                     "ObservabilityComponentsHealthy", "EveryNodeReady",
                                     "SystemComponentsHealthy"};

std::string step_description(const std::string& type, int step) {
    static const char* create[] = {"Reconciliation of Shoot cluster initialized.",
                                   "Waiting until shoot infrastructure has been reconciled",
                                   "Waiting until the Kubernetes API server is ready",
                                   "Waiting until the shoot worker nodes have been reconciled",
                                   "Waiting until all shoot system components are healthy"};
    static const char* del[] = {
        "Deletion of Shoot cluster in progress.",
        "Waiting until shoot worker nodes have been terminated",
        "Waiting until the Kubernetes API server has been deleted",
        "Waiting until shoot infrastructure has been destroyed",
        "Waiting until the shoot namespace in the seed has been cleaned up"};
    int i = std::clamp(step, 0, k_steps - 1);
    return type == "Delete" ? del[i] : create[i];
}

long long generation_of(const Json& obj) {
    return obj["metadata"].value("generation", 1LL);
}

bool wants_hibernation(const Json& obj) {
    Json::json_pointer p("/spec/hibernation/enabled");
    return obj.contains(p) && obj.at(p).is_boolean() && obj.at(p).get<bool>();
}

void set_label(Json& obj, const std::string& key, const std::string& value) {
    obj["metadata"]["labels"][key] = value;
}

Json last_operation(const std::string& type, const std::string& state, int progress,
                    const std::string& description, TimePoint now) {
    return {{"type", type},
            {"state", state},
            {"progress", progress},
            {"description", description},
            {"lastUpdateTime", rfc3339(now)}};
}

} // namespace

void ShootStore::advance(TimePoint now) {
    // Only the shoots with a transition due (a step may remove its shoot, so not in the loop).
    for (const auto& key : m_due.due_by(now)) {
        // Each step is one write; a bound keeps a bug from spinning forever.
        for (int i = 0; i < 32; ++i) {
            auto it = m_shoots.find(key);
            if (it == m_shoots.end())
                break;
            const bool stepped = step(it->second, now);
            if (auto again = m_shoots.find(key); again != m_shoots.end())
                reindex(again->second); // a step that wrote nothing may still change due()
            if (!stepped)
                break;
        }
    }
}

std::optional<TimePoint> ShootStore::next_due() const {
    return m_due.next();
}

void ShootStore::reindex(Record& rec) {
    m_due.file(rec.key, rec.indexed_due, due(rec));
}

std::optional<TimePoint> ShootStore::due(const Record& rec) const {
    if (!rec.scheduled || rec.generation > rec.observed_generation)
        return TimePoint::min();
    if (!rec.op)
        return std::nullopt;
    const Operation& op = *rec.op;
    if (op.in_error)
        return op.retry_at;
    if (op.fail && op.fail->immediately)
        return TimePoint::min();
    double fraction = static_cast<double>(std::min(op.step + 1, k_steps)) / k_steps;
    return op.started + seconds_to_duration(op.seconds * fraction);
}

bool ShootStore::step(Record& rec, TimePoint now) {
    if (!rec.scheduled) {
        schedule(rec, now);
        return true;
    }
    if (rec.generation > rec.observed_generation) {
        start_operation(rec, now);
        return true;
    }
    if (!rec.op)
        return false;
    Operation& op = *rec.op;
    if (op.in_error) {
        if (now < op.retry_at)
            return false;
        op.in_error = false;
        op.started = now;
        op.step = 0;
        Json obj = rec.obj;
        obj["status"]["lastOperation"] =
            last_operation(op.type, "Processing", 0, step_description(op.type, 0), now);
        commit(rec, std::move(obj));
        return true;
    }
    if (op.fail && op.fail->immediately) {
        fail_operation(rec, now);
        return true;
    }
    double elapsed = std::chrono::duration<double>(now - op.started).count();
    if (elapsed >= op.seconds) {
        if (op.fail) {
            fail_operation(rec, now);
            return true;
        }
        std::string type = op.type;
        finish_operation(rec, now);
        return type != "Delete"; // a finished deletion removed the record
    }
    int target = std::min(k_steps - 1, static_cast<int>(elapsed / op.seconds * k_steps));
    if (target > op.step) {
        progress(rec, target, now);
        return true;
    }
    return false;
}

namespace {

std::string shoot_kubernetes_version(const Json& shoot) {
    return shoot["spec"].value("kubernetes", Json::object()).value("version", "");
}

// DiscoverVersion's list (pkg/utils/validation/kubernetesversion/version.go at v1.145+).
bool gardenlet_supports(const std::string& version) {
    int major = 0, minor = 0;
    std::size_t pos = 0;
    auto number = [&](int& out) {
        std::size_t start = pos;
        while (pos < version.size() && pos - start < 4 && version[pos] >= '0' &&
               version[pos] <= '9')
            out = out * 10 + (version[pos++] - '0');
        return pos > start;
    };
    if (!number(major) || pos >= version.size() || version[pos++] != '.' || !number(minor))
        return false;
    return major == 1 && minor >= 32 && minor <= 36;
}

} // namespace

void ShootStore::schedule(Record& rec, TimePoint) {
    rec.scheduled = true;
    if (!rec.obj["spec"].value("seedName", "").empty())
        return; // the client chose the seed
    Json obj = rec.obj;
    obj["spec"]["seedName"] = m_settings.seed;
    obj["metadata"]["generation"] = generation_of(obj) + 1;
    set_label(obj, "name.seed.gardener.cloud/" + m_settings.seed, "true");
    commit(rec, std::move(obj));
}

std::string ShootStore::operation_type(const Record& rec) const {
    if (rec.obj["metadata"].contains("deletionTimestamp"))
        return "Delete";
    return rec.create_succeeded ? "Reconcile" : "Create";
}

double ShootStore::operation_seconds(const Record& rec, const std::string& type) const {
    if (type == "Delete")
        return m_settings.delete_seconds;
    if (type == "Create")
        return m_settings.create_seconds;
    bool hibernated = rec.obj["status"].value("hibernated", false);
    return wants_hibernation(rec.obj) != hibernated ? m_settings.hibernate_seconds
                                                    : m_settings.reconcile_seconds;
}

void ShootStore::start_operation(Record& rec, TimePoint now) {
    Operation op;
    op.type = operation_type(rec);
    op.started = now;
    op.seconds = std::max(0.0, operation_seconds(rec, op.type));
    for (auto it = rec.plans.begin(); it != rec.plans.end(); ++it) {
        if (it->type.empty() || it->type == op.type) {
            op.fail = *it;
            rec.plans.erase(it);
            break;
        }
    }
    // The API server admits any version its profile offers, but gardenlet reconciles only the
    // minors it supports (1.32-1.36 today, gardener-landscape.md §3.1): anything else fails.
    const std::string version = shoot_kubernetes_version(rec.obj);
    if (!op.fail && op.type != "Delete" && !gardenlet_supports(version)) {
        FailPlan refusal;
        refusal.codes = {};
        refusal.type = op.type;
        refusal.description = "unsupported kubernetes version \"" + version + "\"";
        refusal.immediately = true;
        op.fail = refusal;
    }
    rec.op = op;
    Json obj = rec.obj;
    Json& md = obj["metadata"];
    const std::string name = md["name"].get<std::string>();
    const std::string project = project_of(md["namespace"].get<std::string>());
    bool has_finalizer = false;
    for (const auto& f : md.value("finalizers", Json::array()))
        has_finalizer = has_finalizer || f == "gardener";
    if (!has_finalizer)
        md["finalizers"].push_back("gardener");
    Json& st = obj["status"];
    st["observedGeneration"] = generation_of(obj);
    st["lastOperation"] =
        last_operation(op.type, "Processing", 0, step_description(op.type, 0), now);
    st["seedName"] = obj["spec"].value("seedName", m_settings.seed);
    st["technicalID"] =
        "shoot--" + (project.empty() ? std::string("garden") : project) + "--" + name;
    st["uid"] = md["uid"];
    st["gardener"] = {
        {"id", "kprov-sim"}, {"name", "kprov-sim-gardenlet"}, {"version", "v1.150.0-kprov-sim"}};
    if (!obj["status"].contains("lastErrors"))
        set_label(obj, "shoot.gardener.cloud/status", "healthy");
    rec.cluster_id = st["technicalID"].get<std::string>();
    commit(rec, std::move(obj));
}

void ShootStore::progress(Record& rec, int step, TimePoint now) {
    Operation& op = *rec.op;
    op.step = step;
    Json& obj = rec.obj; // the most frequent write: edited in place, not copied
    obj["status"]["lastOperation"] = last_operation(op.type, "Processing", step * (100 / k_steps),
                                                    step_description(op.type, step), now);
    if (op.type != "Delete" && step >= 2 &&
        obj["status"].value("advertisedAddresses", Json::array()).empty()) {
        // The API server is up from here on: adminkubeconfig works.
        std::string domain = obj["spec"]["dns"].value("domain", "");
        obj["status"]["advertisedAddresses"] =
            Json::array({{{"name", "external"}, {"url", "https://api." + domain}},
                         {{"name", "internal"}, {"url", "https://api.internal." + domain}}});
        if (!obj["status"].contains("conditions"))
            obj["status"]["conditions"] = conditions(rec, "Unknown", now);
        m_clusters.create(rec.cluster_id, obj["metadata"]["namespace"].get<std::string>(),
                          obj["metadata"]["name"].get<std::string>(),
                          shoot_kubernetes_version(obj));
    }
    commit_in_place(rec);
}

void ShootStore::finish_operation(Record& rec, TimePoint now) {
    const std::string type = rec.op->type;
    Json obj = rec.obj;
    Json& st = obj["status"];
    if (type == "Delete") {
        st["lastOperation"] = last_operation(type, "Succeeded", 100,
                                             "Shoot cluster has been successfully deleted.", now);
        st.erase("lastErrors");
        Json finalizers = Json::array();
        for (const auto& f : obj["metadata"].value("finalizers", Json::array()))
            if (f != "gardener")
                finalizers.push_back(f);
        obj["metadata"]["finalizers"] = finalizers;
        rec.op.reset();
        commit(rec, std::move(obj));
        remove_now({rec.obj["metadata"]["namespace"].get<std::string>(),
                    rec.obj["metadata"]["name"].get<std::string>()});
        return;
    }
    bool hibernated = wants_hibernation(obj);
    rec.last_succeeded_type = type;
    rec.last_succeeded_at = now;
    st["lastOperation"] = last_operation(type, "Succeeded", 100,
                                         "Shoot cluster has been successfully reconciled.", now);
    st.erase("lastErrors");
    st["hibernated"] = hibernated;
    std::string domain = obj["spec"]["dns"].value("domain", "");
    st["advertisedAddresses"] =
        Json::array({{{"name", "external"}, {"url", "https://api." + domain}},
                     {{"name", "internal"}, {"url", "https://api.internal." + domain}}});
    st["conditions"] = conditions(rec, "True", now);
    if (hibernated)
        for (auto& c : st["conditions"]) {
            c["reason"] = "ConditionNotChecked";
            c["message"] = "Shoot cluster has been hibernated.";
        }
    st["constraints"] = constraints(rec, now);
    set_label(obj, "shoot.gardener.cloud/status", "healthy");
    if (type == "Create")
        rec.create_succeeded = true;
    rec.op.reset();
    // The cluster serves what its (maybe just upgraded) Kubernetes version serves.
    m_clusters.create(rec.cluster_id, obj["metadata"]["namespace"].get<std::string>(),
                      obj["metadata"]["name"].get<std::string>(), shoot_kubernetes_version(obj));
    m_clusters.set_hibernated(rec.cluster_id, hibernated);
    commit(rec, std::move(obj));
}

void ShootStore::fail_operation(Record& rec, TimePoint now) {
    Operation& op = *rec.op;
    FailPlan plan = *op.fail;
    std::string codes;
    for (const auto& c : plan.codes)
        codes += (codes.empty() ? "" : ", ") + c;
    std::string description = !plan.description.empty()
                                  ? plan.description
                                  : "task \"" + step_description(op.type, std::max(1, op.step)) +
                                        "\" failed: kprov-sim injected failure (" + codes + ")";
    Json obj = rec.obj;
    Json& st = obj["status"];
    int progress = op.step * (100 / k_steps);
    st["lastErrors"] = Json::array({{{"description", description},
                                     {"taskID", "kprov-sim-" + op.type},
                                     {"codes", plan.codes},
                                     {"lastUpdateTime", rfc3339(now)}}});
    if (plan.state == "Error") {
        st["lastOperation"] = last_operation(op.type, "Error", progress,
                                             description + " Operation will be retried.", now);
        op.in_error = true;
        op.retry_at = now + seconds_to_duration(std::max(op.seconds, 0.05));
        if (--plan.times > 0) {
            plan.immediately = false;
            op.fail = plan;
        } else {
            op.fail.reset();
        }
        set_label(obj, "shoot.gardener.cloud/status", "progressing");
    } else {
        st["lastOperation"] = last_operation(op.type, "Failed", progress, description, now);
        set_label(obj, "shoot.gardener.cloud/status", "unhealthy");
        rec.op.reset();
    }
    commit(rec, std::move(obj));
}

Json ShootStore::conditions(const Record& rec, const std::string& health, TimePoint now) const {
    (void)rec;
    Json list = Json::array();
    for (const char* type : k_health_conditions) {
        bool ok = health == "True";
        list.push_back(
            {{"type", type},
             {"status", health},
             {"lastTransitionTime", rfc3339(now)},
             {"lastUpdateTime", rfc3339(now)},
             {"reason", ok ? "Healthy" : "ConditionInitialized"},
             {"message", ok ? "The check succeeded (kprov-sim)."
                            : "The condition has been initialized but its semantic check has "
                              "not been performed yet."}});
    }
    return list;
}

Json ShootStore::constraints(const Record& rec, TimePoint now) const {
    return Json::array(
        {{{"type", "HibernationPossible"},
          {"status", rec.hibernation_possible ? "True" : "False"},
          {"lastTransitionTime", rfc3339(now)},
          {"lastUpdateTime", rfc3339(now)},
          {"reason", rec.hibernation_possible ? "NoProblematicWebhooks" : "ProblematicWebhooks"},
          {"message",
           rec.hibernation_possible
               ? "All webhooks are properly configured."
               : (rec.hibernation_message.empty() ? std::string("Shoot has problematic webhooks.")
                                                  : rec.hibernation_message)}},
         {{"type", "MaintenancePreconditionsSatisfied"},
          {"status", "True"},
          {"lastTransitionTime", rfc3339(now)},
          {"lastUpdateTime", rfc3339(now)},
          {"reason", "NoProblematicWebhooks"},
          {"message", "All maintenance preconditions are satisfied."}}});
}

} // namespace kprov::sim
