#include "shoot_store.hpp"

#include "clusters.hpp"
#include "kubeconfig.hpp"
#include "watch_hub.hpp"

#include <algorithm>

namespace kprov::sim {

namespace {

const std::map<std::string, std::string>& shoot_fields() {
    static const std::map<std::string, std::string> fields = {
        {"metadata.name", "/metadata/name"},
        {"metadata.namespace", "/metadata/namespace"},
        {"spec.seedName", "/spec/seedName"},
        {"status.seedName", "/status/seedName"},
        {"spec.cloudProfileName", "/spec/cloudProfileName"},
        {"spec.cloudProfile.Name", "/spec/cloudProfile/name"},
        {"spec.cloudProfile.Kind", "/spec/cloudProfile/kind"}};
    return fields;
}

const ResourceInfo& kubeconfig_request_info() {
    static const ResourceInfo info{"authentication.gardener.cloud",
                                   "v1alpha1",
                                   "adminkubeconfigrequests",
                                   "AdminKubeconfigRequest",
                                   true,
                                   "adminkubeconfigrequest",
                                   {},
                                   {}};
    return info;
}

bool hibernation_enabled(const Json& obj) {
    Json::json_pointer p("/spec/hibernation/enabled");
    return obj.contains(p) && obj.at(p).is_boolean() && obj.at(p).get<bool>();
}

/// The object without its resourceVersion, to detect no-op writes.
Json without_rv(Json obj) {
    obj["metadata"].erase("resourceVersion");
    return obj;
}

} // namespace

std::vector<std::string> shoot_field_pointers() {
    std::vector<std::string> pointers;
    for (const auto& [field, pointer] : shoot_fields())
        pointers.push_back(pointer);
    return pointers;
}

FailPlan FailPlan::from_json(const Json& j) {
    static const std::vector<std::string> known = {"codes",       "type",        "state",
                                                   "description", "immediately", "times"};
    if (!j.is_object())
        throw bad_request("the fail plan must be a JSON object");
    for (const auto& [k, v] : j.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
            throw bad_request("fail plan: unknown key \"" + k + "\"");
    FailPlan p;
    try {
        if (j.contains("codes"))
            p.codes = j["codes"].get<std::vector<std::string>>();
        p.type = j.value("type", "");
        p.state = j.value("state", "Failed");
        p.description = j.value("description", "");
        p.immediately = j.value("immediately", false);
        p.times = j.value("times", 1);
    } catch (const Json::exception&) {
        throw bad_request("fail plan: a field has the wrong type");
    }
    if (p.type != "" && p.type != "Create" && p.type != "Reconcile" && p.type != "Delete")
        throw bad_request("fail plan: type must be Create, Reconcile or Delete");
    if (p.state != "Failed" && p.state != "Error")
        throw bad_request("fail plan: state must be Failed or Error");
    if (p.times < 1)
        throw bad_request("fail plan: times must be at least 1");
    return p;
}

ShootStore::ShootStore(LifecycleSettings settings, WatchHub& hub, ClusterRegistry& clusters,
                       ObjectStore& garden, std::function<std::uint64_t()> next_rv,
                       std::function<std::uint64_t()> current_rv)
    : m_settings(std::move(settings))
    , m_hub(hub)
    , m_clusters(clusters)
    , m_garden(garden)
    , m_next_rv(std::move(next_rv))
    , m_current_rv(std::move(current_rv)) {}

ShootStore::Record& ShootStore::find(const std::string& ns, const std::string& name) {
    auto it = m_shoots.find({ns, name});
    if (it == m_shoots.end())
        throw not_found(shoot_info(), name);
    return it->second;
}

const ShootStore::Record& ShootStore::find(const std::string& ns, const std::string& name) const {
    auto it = m_shoots.find({ns, name});
    if (it == m_shoots.end())
        throw not_found(shoot_info(), name);
    return it->second;
}

AdmissionContext ShootStore::admission(const std::string& ns, const WriteContext& ctx) const {
    AdmissionContext a;
    a.ns = ns;
    a.dns_suffix = m_settings.dns_suffix;
    a.user = ctx.user;
    a.field_validation = ctx.field_validation;
    a.warnings = ctx.warnings;
    const ObjectStore& garden = m_garden;
    a.lookup = [&garden](const ResourceInfo& info, const std::string& in_ns,
                         const std::string& name) -> std::optional<Json> {
        const ResourceInfo* stored = garden.find(info.group, info.resource);
        if (!stored)
            return std::nullopt;
        return garden.find_object(*stored, in_ns, name);
    };
    a.now = Clock::now();
    return a;
}

void ShootStore::commit(Record& rec, Json obj, const std::string& event) {
    rec.obj = std::move(obj);
    commit_in_place(rec, event);
}

void ShootStore::commit_in_place(Record& rec, const std::string& event) {
    std::uint64_t rv = m_next_rv();
    rec.obj["metadata"]["resourceVersion"] = std::to_string(rv);
    rec.generation = rec.obj["metadata"].value("generation", 1LL);
    rec.observed_generation =
        rec.obj.contains("status") ? rec.obj["status"].value("observedGeneration", 0LL) : 0LL;
    m_hub.publish(event, rec.obj, rv);
    reindex(rec);
}

Json ShootStore::list(const std::string& ns, const ListOptions& opts) const {
    auto labels = LabelSelector::parse(opts.label_selector);
    auto fields = FieldSelector::parse(opts.field_selector, shoot_fields());
    std::vector<Json> items;
    for (const auto& [key, rec] : m_shoots) {
        if (!ns.empty() && key.first != ns)
            continue;
        if (labels.matches(rec.obj["metadata"].value("labels", Json::object())) &&
            fields.matches(rec.obj))
            items.push_back(rec.obj);
    }
    return make_list_page(shoot_info(), items, opts, m_current_rv(),
                          [this](std::uint64_t rv) { return m_hub.too_old(rv); });
}

Json ShootStore::get(const std::string& ns, const std::string& name) const {
    return find(ns, name).obj;
}

Json ShootStore::create(const std::string& ns, Json body, const WriteContext& ctx) {
    Json obj = admit_create(std::move(body), admission(ns, ctx));
    std::string name = obj["metadata"]["name"].get<std::string>();
    if (m_shoots.count({ns, name}))
        throw already_exists(shoot_info(), name);
    obj["metadata"]["uid"] = random_uuid();
    obj["metadata"]["creationTimestamp"] = rfc3339(Clock::now());
    obj["metadata"]["generation"] = 1;
    if (ctx.dry_run)
        return obj;
    m_garden.ensure_namespace(ns);
    Record& rec = m_shoots[{ns, name}];
    rec.key = {ns, name};
    rec.plans = std::move(m_next_plans);
    m_next_plans.clear();
    commit(rec, std::move(obj), "ADDED");
    return rec.obj;
}

Json ShootStore::update(const std::string& ns, const std::string& name, Json body,
                        const WriteContext& ctx) {
    Record& rec = find(ns, name);
    std::string rv;
    if (body.contains("metadata") && body["metadata"].is_object())
        rv = body["metadata"].value("resourceVersion", "");
    if (rv.empty())
        throw invalid(shoot_info(), name,
                      {{"FieldValueInvalid", "Invalid value: 0x0: must be specified for an update",
                        "metadata.resourceVersion"}});
    return write_update(rec, std::move(body), ctx);
}

Json ShootStore::patch(const std::string& ns, const std::string& name, const std::string& body,
                       PatchType type, const WriteContext& ctx) {
    auto it = m_shoots.find({ns, name});
    if (it == m_shoots.end()) {
        if (type != PatchType::Apply)
            throw not_found(shoot_info(), name);
        Json obj = apply_patch(Json::object(), body, type, shoot_info(), name);
        if (!obj.contains("metadata") || !obj["metadata"].is_object())
            obj["metadata"] = Json::object();
        if (obj["metadata"].value("name", name) != name)
            throw bad_request("the name of the object does not match the name on the URL");
        obj["metadata"]["name"] = name;
        return create(ns, obj, ctx);
    }
    Json patched = apply_patch(it->second.obj, body, type, shoot_info(), name);
    if (!patched.is_object() || !patched.contains("metadata") || !patched["metadata"].is_object())
        throw bad_request("the patch removed the object's metadata");
    return write_update(it->second, std::move(patched), ctx);
}

Json ShootStore::write_update(Record& rec, Json body, const WriteContext& ctx) {
    const std::string name = rec.obj["metadata"]["name"].get<std::string>();
    const std::string ns = rec.obj["metadata"]["namespace"].get<std::string>();
    Json updated = admit_update(rec.obj, std::move(body), admission(ns, ctx));
    std::string rv = updated["metadata"].value("resourceVersion", "");
    if (!rv.empty() && rv != rec.obj["metadata"]["resourceVersion"])
        throw conflict(shoot_info(), name);
    check_hibernation_allowed(rec, updated);
    long long generation = rec.obj["metadata"].value("generation", 1LL);
    if (updated["spec"] != rec.obj["spec"])
        ++generation;
    updated["metadata"]["generation"] = generation;
    apply_operation_annotation(rec, updated);
    const Json& lo = rec.obj["status"].value("lastOperation", Json::object());
    if (rec.obj["metadata"].contains("deletionTimestamp") && lo.value("type", "") == "Delete" &&
        lo.value("state", "") == "Failed" &&
        annotation_true(updated, "confirmation.gardener.cloud/force-deletion") &&
        !annotation_true(rec.obj, "confirmation.gardener.cloud/force-deletion")) {
        // Force deletion finishes a failed deletion (cloud resources are left behind).
        updated["metadata"]["generation"] = updated["metadata"]["generation"].get<long long>() + 1;
        rec.plans.clear();
    }
    updated["metadata"]["resourceVersion"] = rec.obj["metadata"]["resourceVersion"];
    if (without_rv(updated) == without_rv(rec.obj) || ctx.dry_run)
        return updated; // a no-op write keeps the resourceVersion, as the API server does
    commit(rec, std::move(updated));
    return rec.obj;
}

void ShootStore::check_hibernation_allowed(const Record& rec, const Json& obj) const {
    if (hibernation_enabled(rec.obj) || !hibernation_enabled(obj))
        return;
    for (const auto& c : rec.obj["status"].value("constraints", Json::array()))
        if (c.value("type", "") == "HibernationPossible" && c.value("status", "") != "True")
            throw forbidden(shoot_info(), rec.obj["metadata"]["name"].get<std::string>(),
                            "Shoot cannot be hibernated: " +
                                c.value("message", std::string("hibernation is not possible")));
}

void ShootStore::apply_operation_annotation(Record& rec, Json& obj) {
    const std::string key = "gardener.cloud/operation";
    Json& md = obj["metadata"];
    if (!md.contains("annotations") || !md["annotations"].contains(key))
        return;
    if (rec.obj["metadata"].contains("annotations") &&
        rec.obj["metadata"]["annotations"].contains(key) &&
        rec.obj["metadata"]["annotations"][key] == md["annotations"][key])
        return; // unchanged: a pending "retry" stays until it can take effect
    std::string op =
        md["annotations"][key].is_string() ? md["annotations"][key].get<std::string>() : "";
    const Json& lo = rec.obj["status"].value("lastOperation", Json::object());
    bool failed = lo.value("state", "") == "Failed";
    bool has_lo = !lo.empty();
    auto bump = [&] {
        md["annotations"].erase(key);
        md["generation"] = md["generation"].get<long long>() + 1;
    };
    if (op == "reconcile" || op == "force-in-place-update" || op.rfind("rotate-", 0) == 0 ||
        op.rfind("rollout-workers", 0) == 0) {
        if (has_lo && !failed)
            bump();
    } else if (op == "retry") {
        if (failed)
            bump();
    } else if (op == "maintain") {
        md["annotations"].erase(key);
    } else {
        throw invalid(shoot_info(), md["name"].get<std::string>(),
                      {{"FieldValueNotSupported",
                        "Unsupported value: \"" + op +
                            "\": supported values: \"reconcile\", \"retry\", "
                            "\"maintain\", \"rotate-*\", \"rollout-workers=*\"",
                        "metadata.annotations[gardener.cloud/operation]"}});
    }
}

Json ShootStore::remove(const std::string& ns, const std::string& name, const WriteContext& ctx) {
    Record& rec = find(ns, name);
    if (!annotation_true(rec.obj, "confirmation.gardener.cloud/deletion"))
        throw forbidden(
            shoot_info(), name,
            "must have a \"confirmation.gardener.cloud/deletion\" annotation to delete");
    if (rec.obj["metadata"].contains("deletionTimestamp"))
        return rec.obj;
    Json obj = rec.obj;
    bool has_finalizer = false;
    for (const auto& f : obj["metadata"].value("finalizers", Json::array()))
        has_finalizer = has_finalizer || f == "gardener";
    if (ctx.dry_run) {
        obj["metadata"]["deletionTimestamp"] = rfc3339(Clock::now());
        return obj;
    }
    if (!has_finalizer) {
        Json status = success_status(shoot_info(), name, obj["metadata"].value("uid", ""));
        remove_now({ns, name});
        return status;
    }
    obj["metadata"]["deletionTimestamp"] = rfc3339(Clock::now());
    obj["metadata"]["generation"] = obj["metadata"].value("generation", 1LL) + 1;
    obj["metadata"]["annotations"]["deletion.gardener.cloud/confirmed-by"] = ctx.user;
    commit(rec, std::move(obj));
    return rec.obj;
}

void ShootStore::remove_now(Key key) {
    auto it = m_shoots.find(key);
    if (it == m_shoots.end())
        return;
    std::uint64_t rv = m_next_rv();
    Json last = it->second.obj;
    last["metadata"]["resourceVersion"] = std::to_string(rv);
    m_hub.publish("DELETED", last, rv);
    if (!it->second.cluster_id.empty())
        m_clusters.remove(it->second.cluster_id);
    m_due.file(key, it->second.indexed_due, std::nullopt);
    m_shoots.erase(it);
}

Json ShootStore::update_status(const std::string& ns, const std::string& name,
                               const std::string& body, std::optional<PatchType> patch_type) {
    Record& rec = find(ns, name);
    Json incoming = patch_type ? apply_patch(rec.obj, body, *patch_type, shoot_info(), name)
                               : parse_body_object(body);
    std::string rv = incoming.contains("metadata") && incoming["metadata"].is_object()
                         ? incoming["metadata"].value("resourceVersion", "")
                         : "";
    if (!rv.empty() && rv != rec.obj["metadata"]["resourceVersion"])
        throw conflict(shoot_info(), name);
    if (!incoming.contains("status") || !incoming["status"].is_object())
        throw invalid(
            shoot_info(), name,
            {{"FieldValueRequired", "Required value: status must be an object", "status"}});
    Json obj = rec.obj;
    obj["status"] = incoming["status"];
    if (obj == rec.obj)
        return rec.obj;
    commit(rec, std::move(obj));
    return rec.obj;
}

Json ShootStore::admin_kubeconfig(const std::string& ns, const std::string& name,
                                  const std::string& body, const std::string& base_url,
                                  const std::string& ca_pem) {
    const ResourceInfo& info = kubeconfig_request_info();
    Json req = body.empty() ? Json::object() : parse_body_object(body);
    if (req.contains("apiVersion") && req["apiVersion"] != info.api_version())
        throw bad_request("the API version in the data (" + req["apiVersion"].dump() +
                          ") does not match the expected API version (" + info.api_version() + ")");
    if (req.contains("kind") && req["kind"] != info.kind)
        throw bad_request("the kind in the data (" + req["kind"].dump() +
                          ") does not match the expected kind (AdminKubeconfigRequest)");
    long long seconds = 3600;
    Json::json_pointer p("/spec/expirationSeconds");
    if (req.contains(p)) {
        if (!req.at(p).is_number_integer())
            throw bad_request(
                "AdminKubeconfigRequest in version \"v1alpha1\" cannot be handled: json: "
                "cannot unmarshal into Go struct field spec.expirationSeconds of type int64");
        seconds = req.at(p).get<long long>();
    }
    if (seconds < 600)
        throw invalid(info, name,
                      {{"FieldValueInvalid",
                        "Invalid value: " + std::to_string(seconds) +
                            ": may not specify a duration less than 10 minutes",
                        "spec.expirationSeconds"}});
    seconds = std::min(seconds, 24LL * 3600);
    Record& rec = find(ns, name);
    if (rec.obj["status"].value("advertisedAddresses", Json::array()).empty() ||
        rec.cluster_id.empty() || !m_clusters.exists(rec.cluster_id))
        throw invalid(
            info, name,
            {{"FieldValueInvalid",
              "Invalid value: null: no suitable advertised address for kube-apiserver found in "
              ".status.advertisedAddresses",
              "status.advertisedAddresses"}});
    TimePoint expiry = Clock::now() + std::chrono::seconds(seconds);
    KubeconfigSpec kc;
    kc.name = ns + "--" + name + "-external";
    kc.server = base_url + "/clusters/" + rec.cluster_id;
    kc.ca_pem = ca_pem;
    kc.token = m_clusters.issue_token(rec.cluster_id, expiry);
    return {{"apiVersion", info.api_version()},
            {"kind", info.kind},
            {"metadata", {{"name", name}, {"namespace", ns}, {"creationTimestamp", nullptr}}},
            {"spec", {{"expirationSeconds", seconds}}},
            {"status",
             {{"kubeconfig", base64_encode(make_kubeconfig(kc))},
              {"expirationTimestamp", rfc3339(expiry)}}}};
}

std::shared_ptr<StreamSource> ShootStore::watch(const std::string& ns, const ApiRequest& req,
                                                double bookmark_seconds, double max_timeout_seconds,
                                                bool expired_as_event) {
    WatchRequest w = WatchRequest::parse(req, shoot_fields(), shoot_info(), bookmark_seconds,
                                         max_timeout_seconds);
    w.options.ns = ns;
    const WatchOptions& o = w.options;
    const std::optional<std::uint64_t>& from = w.from;
    std::vector<Json> initial;
    if (!from)
        for (const auto& [key, rec] : m_shoots)
            initial.push_back(rec.obj);
    try {
        return m_hub.subscribe(o, from, initial);
    } catch (const ApiError& e) {
        if (e.code() == 410 && expired_as_event)
            return WatchHub::error_stream(e.status());
        throw;
    }
}

void ShootStore::plan_failure(const std::string& ns, const std::string& name,
                              const FailPlan& plan) {
    Record& rec = find(ns, name);
    if (rec.op && !rec.op->in_error && (plan.type.empty() || plan.type == rec.op->type)) {
        rec.op->fail = plan;
        reindex(rec);
        return;
    }
    rec.plans.push_back(plan);
}

void ShootStore::plan_failure_next(const FailPlan& plan) {
    m_next_plans.push_back(plan);
}

void ShootStore::set_hibernation_possible(const std::string& ns, const std::string& name,
                                          bool possible, const std::string& message) {
    Record& rec = find(ns, name);
    rec.hibernation_possible = possible;
    rec.hibernation_message = message;
    if (!rec.obj["status"].contains("constraints"))
        return; // written with the first successful operation
    Json obj = rec.obj;
    obj["status"]["constraints"] = constraints(rec, Clock::now());
    commit(rec, std::move(obj));
}

Json ShootStore::describe() const {
    Json out = Json::array();
    for (const auto& [key, rec] : m_shoots) {
        Json d = {{"namespace", key.first},
                  {"name", key.second},
                  {"scheduled", rec.scheduled},
                  {"createSucceeded", rec.create_succeeded},
                  {"clusterID", rec.cluster_id},
                  {"hibernationPossible", rec.hibernation_possible},
                  {"pendingFailures", rec.plans.size()}};
        if (rec.op)
            d["operation"] = {
                {"type", rec.op->type},        {"started", rfc3339(rec.op->started)},
                {"seconds", rec.op->seconds},  {"step", rec.op->step},
                {"inError", rec.op->in_error}, {"willFail", rec.op->fail.has_value()}};
        if (rec.last_succeeded_at)
            d["lastSucceeded"] = {
                {"type", rec.last_succeeded_type},
                {"atUnixMs", std::chrono::duration_cast<std::chrono::milliseconds>(
                                 rec.last_succeeded_at->time_since_epoch())
                                 .count()}};
        out.push_back(d);
    }
    return {{"shoots", out}, {"pendingFailuresForNextShoot", m_next_plans.size()}};
}

} // namespace kprov::sim
