#include "klm.hpp"

#include "kubeconfig.hpp"
#include "kyma_cr.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

namespace kprov::sim {

namespace {

const char* k_managed_by = "operator.kyma-project.io/managed-by";
const char* k_skip = "operator.kyma-project.io/skip-reconciliation";
const char* k_default_channel = "regular"; // v1beta2.DefaultChannel

// The module names of kyma-lifecycle-manager.md §5 with a public source, and KLM's test module.
const std::vector<const char*> k_default_catalog = {"istio",
                                                    "api-gateway",
                                                    "btp-operator",
                                                    "serverless",
                                                    "keda",
                                                    "telemetry",
                                                    "eventing",
                                                    "nats",
                                                    "application-connector",
                                                    "cloud-manager",
                                                    "docker-registry",
                                                    "cap-operator",
                                                    "cad-operator",
                                                    "registry-proxy",
                                                    "template-operator"};
const char* k_default_version = "1.0.0"; // made up: the catalog's versions are not simulated

constexpr std::size_t k_max_knob_list = 1000;
constexpr std::size_t k_max_name = 253;

long long unix_ms(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::uint32_t fnv32a(const std::string& s) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

// KLM names a module's Manifest <kyma>-<module>-<hash>, at most 62 characters.
std::string manifest_name(const std::string& kyma, const std::string& module) {
    std::string tail = "-" + module + "-" + std::to_string(fnv32a(kyma + "/" + module));
    std::size_t room = tail.size() < 62 ? 62 - tail.size() : 0;
    return kyma.substr(0, room) + tail;
}

Json tracking_ref(const std::string& kind, const std::string& name) {
    return {{"apiVersion", "operator.kyma-project.io/v1beta2"},
            {"kind", kind},
            {"metadata", {{"name", name}, {"namespace", Klm::k_namespace}, {"generation", 1}}}};
}

Json condition(const std::string& type, const std::string& status, const std::string& message,
               const Json& kyma) {
    return {{"type", type},
            {"status", status},
            {"reason", "Ready"},
            {"message", message},
            {"observedGeneration", kyma["metadata"].value("generation", 1LL)}};
}

const char* modules_message(const std::string& status) {
    return status == "True"    ? "all modules are in ready state"
           : status == "False" ? "not all modules are in ready state"
                               : "modules state is unknown";
}

// A status without its timestamps, for telling a real change from a repeated pass.
Json without_times(Json status) {
    if (!status.is_object())
        return Json::object();
    if (status.contains("lastOperation") && status["lastOperation"].is_object())
        status["lastOperation"].erase("lastUpdateTime");
    if (status.contains("conditions") && status["conditions"].is_array())
        for (auto& c : status["conditions"])
            if (c.is_object())
                c.erase("lastTransitionTime");
    return status;
}

// Writes `desired` as the Kyma's status when it differs from the stored one (timestamps aside):
// lastUpdateTime is now; a condition keeps its lastTransitionTime while its status stays.
void write_status(ObjectStore& kcp, Json& kyma, Json desired, TimePoint now) {
    Json current = kyma.value("status", Json::object());
    if (without_times(current) == without_times(desired))
        return;
    std::string ts = rfc3339(now);
    if (desired.contains("lastOperation"))
        desired["lastOperation"]["lastUpdateTime"] = ts;
    if (desired.contains("conditions"))
        for (auto& c : desired["conditions"]) {
            c["lastTransitionTime"] = ts;
            for (const auto& old : current.value("conditions", Json::array()))
                if (old.is_object() && old.value("type", "") == c["type"] &&
                    old.value("status", "") == c["status"] && old.contains("lastTransitionTime"))
                    c["lastTransitionTime"] = old["lastTransitionTime"];
        }
    kyma["status"] = std::move(desired);
    const Json& md = kyma["metadata"];
    kyma = kcp.update(kyma_info(), md["namespace"].get<std::string>(),
                      md["name"].get<std::string>(), kyma);
}

Json with_operation(Json status, const std::string& state, const std::string& operation) {
    status["state"] = state;
    status["lastOperation"] = {{"operation", operation}};
    return status;
}

bool has_klm_finalizer(const Json& kyma) {
    Json finalizers = kyma["metadata"].value("finalizers", Json::array());
    return finalizers.is_array() &&
           std::find(finalizers.begin(), finalizers.end(), Klm::k_finalizer) != finalizers.end();
}

bool label_is(const Json& kyma, const std::string& key, const std::string& value) {
    const Json& labels = kyma["metadata"].value("labels", Json::object());
    return labels.is_object() && labels.contains(key) && labels[key] == value;
}

std::vector<std::string> string_list(const Json& knobs, const char* key) {
    const Json& v = knobs[key];
    if (!v.is_array() || v.size() > k_max_knob_list)
        throw bad_request(std::string("klm: \"") + key + "\" must be a list of at most " +
                          std::to_string(k_max_knob_list) + " names");
    std::vector<std::string> out;
    for (const auto& s : v) {
        if (!s.is_string() || s.get<std::string>().empty() ||
            s.get<std::string>().size() > k_max_name)
            throw bad_request(std::string("klm: \"") + key +
                              "\" holds a name that is not a non-empty string of at most 253 "
                              "characters");
        out.push_back(s.get<std::string>());
    }
    return out;
}

bool valid_catalog_entry(const Json& entry) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
        entry["name"].get<std::string>().empty() ||
        entry["name"].get<std::string>().size() > k_max_name)
        return false;
    for (const auto& [key, value] : entry.items()) {
        if (key == "name")
            continue;
        if (key == "version") {
            if (!value.is_string() || value.get<std::string>().empty() ||
                value.get<std::string>().size() > 128)
                return false;
        } else if (key != "internal" && key != "beta") {
            return false;
        } else if (!value.is_boolean()) {
            return false;
        }
    }
    return true;
}

// KLM's rule for a Kyma's label (api/shared/operator_labels.go): "true" in any case.
bool label_true(const Json& kyma, const char* key) {
    const Json& labels = kyma["metadata"].value("labels", Json::object());
    if (!labels.is_object() || !labels.contains(key) || !labels[key].is_string())
        return false;
    std::string value = labels[key].get<std::string>();
    std::transform(value.begin(), value.end(), value.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return value == "true";
}

} // namespace

Klm::Klm(KlmSettings settings)
    : m_settings(settings) {
    for (const char* name : k_default_catalog)
        m_catalog[name] = {k_default_version};
}

void Klm::configure(const Json& knobs) {
    m_force_full = true;
    static const std::vector<std::string> known = {"moduleSeconds", "catalog", "stuckModules",
                                                   "unreachable"};
    if (!knobs.is_object())
        throw bad_request("klm: the body must be a JSON object");
    for (const auto& [k, v] : knobs.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
            throw bad_request("klm: unknown key \"" + k + "\"");
    double seconds = m_settings.module_seconds;
    if (knobs.contains("moduleSeconds")) {
        if (!knobs["moduleSeconds"].is_number() || knobs["moduleSeconds"] < 0 ||
            knobs["moduleSeconds"] > 86400)
            throw bad_request("klm: \"moduleSeconds\" must be a number from 0 to 86400");
        seconds = knobs["moduleSeconds"].get<double>();
    }
    std::map<std::string, Module> catalog = m_catalog;
    if (knobs.contains("catalog")) {
        const Json& c = knobs["catalog"];
        if (!c.is_array() || c.size() > k_max_knob_list)
            throw bad_request("klm: \"catalog\" must be a list of at most 1000 modules");
        catalog.clear();
        for (const auto& m : c) {
            Json entry = m.is_string() ? Json{{"name", m}} : m;
            if (!valid_catalog_entry(entry))
                throw bad_request("klm: a \"catalog\" entry must be a module name or "
                                  "{\"name\": \"...\", \"version\": \"...\", \"internal\": "
                                  "true|false, \"beta\": true|false} (all but name optional)");
            catalog[entry["name"].get<std::string>()] = {
                entry.value("version", std::string(k_default_version)),
                entry.value("internal", false), entry.value("beta", false)};
        }
    }
    std::vector<std::string> stuck, unreachable;
    if (knobs.contains("stuckModules"))
        stuck = string_list(knobs, "stuckModules");
    if (knobs.contains("unreachable"))
        unreachable = string_list(knobs, "unreachable");
    m_settings.module_seconds = seconds;
    m_catalog = std::move(catalog);
    if (knobs.contains("stuckModules"))
        m_stuck = {stuck.begin(), stuck.end()};
    if (knobs.contains("unreachable"))
        m_unreachable = {unreachable.begin(), unreachable.end()};
}

Json Klm::knobs() const {
    Json catalog = Json::array();
    for (const auto& [name, m] : m_catalog)
        catalog.push_back(
            {{"name", name}, {"version", m.version}, {"internal", m.internal}, {"beta", m.beta}});
    return {{"moduleSeconds", m_settings.module_seconds},
            {"catalog", catalog},
            {"stuckModules", m_stuck},
            {"unreachable", m_unreachable}};
}

Klm::Access Klm::find_access(const std::vector<Json>& found, const ClusterRegistry& clusters,
                             const std::string& runtime_base, const Json& kyma) const {
    Access a;
    const std::string name = kyma["metadata"]["name"].get<std::string>();
    a.secrets = found.size();
    if (a.secrets == 0) {
        a.headline = "skr client context not found";
        a.problem = "failed to find the secret with label " + std::string(k_kyma_name_label) + "=" +
                    name + ": access secret not found";
        return a;
    }
    if (a.secrets > 1) {
        a.headline = a.problem =
            "could not safely identify the rest config source: more than one secret found";
        return a;
    }
    // The wording below is the sim's: KLM reports the nested client error of its first call.
    auto fail = [&](const std::string& why) {
        a.headline = a.problem = "failed to apply the kyma-system namespace on the SKR: " + why;
        return a;
    };
    const Json& data = found[0].value("data", Json::object());
    std::optional<std::string> config;
    if (data.is_object() && data.contains("config") && data["config"].is_string())
        config = base64_decode(data["config"].get<std::string>());
    if (!config)
        return fail("the secret " + found[0]["metadata"].value("name", std::string()) +
                    " has no kubeconfig in data.config");
    KubeconfigAccess access = read_kubeconfig_access(*config);
    std::string server = access.server;
    while (!server.empty() && server.back() == '/')
        server.pop_back();
    if (server.rfind(runtime_base, 0) != 0 || server.size() == runtime_base.size() ||
        server.find('/', runtime_base.size()) != std::string::npos)
        return fail("dial tcp: the kubeconfig's server \"" + server.substr(0, 256) +
                    "\" is not a runtime cluster of this kprov-sim");
    a.cluster = server.substr(runtime_base.size());
    const Json& labels = kyma["metadata"].value("labels", Json::object());
    std::string runtime_id =
        labels.is_object() ? labels.value("kyma-project.io/runtime-id", "") : "";
    if (m_unreachable.count(name) || m_unreachable.count(a.cluster) ||
        (!runtime_id.empty() && m_unreachable.count(runtime_id)))
        return fail("context deadline exceeded (kprov-sim knob \"unreachable\")");
    if (!clusters.exists(a.cluster) || clusters.hibernated(a.cluster))
        return fail("the server is currently unable to handle the request");
    if (!clusters.token_valid(a.cluster, access.token))
        return fail("Unauthorized");
    return a;
}

bool Klm::stuck(const Json& spec) const {
    for (const auto& m : spec.value("modules", Json::array()))
        if (m.is_object() && m.value("managed", true) && m_stuck.count(m.value("name", "")))
            return true;
    return false;
}

void Klm::due(TimePoint t) {
    if (!m_due || t < *m_due)
        m_due = t;
}

namespace {

const std::string* kyma_label(const Json& object) {
    const auto meta = object.find("metadata");
    if (meta == object.end() || !meta->is_object())
        return nullptr;
    const auto labels = meta->find("labels");
    if (labels == meta->end() || !labels->is_object())
        return nullptr;
    const auto value = labels->find(Klm::k_kyma_name_label);
    return value != labels->end() && value->is_string() ? value->get_ptr<const std::string*>()
                                                        : nullptr;
}

} // namespace

void Klm::changed(const ResourceInfo& info, const Json& object) {
    if (info.resource == "kymas") {
        const auto meta = object.find("metadata");
        if (meta != object.end() && meta->is_object() && meta->contains("name") &&
            (*meta)["name"].is_string())
            m_changed.insert((*meta)["name"].get<std::string>());
    } else if (info.resource == "secrets") {
        if (const std::string* kyma = kyma_label(object))
            m_changed.insert(*kyma);
    }
}

void Klm::advance(ObjectStore& kcp, const ClusterRegistry& clusters,
                  const std::string& runtime_base, TimePoint now) {
    // Each pass runs under the world lock that every request takes, and passes come with every
    // write to any cluster or shoot. Between full passes (once a second, like a controller's
    // resync) only the Kymas that changed or are due are read and reconciled, so that a hundred
    // Kymas do not make the simulator the bottleneck of a benchmark.
    const bool full = m_force_full || !m_last_full || now - *m_last_full >= std::chrono::seconds(1);
    std::set<std::string> names = std::exchange(m_changed, {});
    if (full) {
        m_last_full = now;
        m_force_full = false;
    } else {
        for (const auto& [name, memo] : m_memos)
            if (memo.due && *memo.due <= now)
                names.insert(name);
        if (names.empty())
            return;
    }
    const ResourceInfo& info = kyma_info();
    const ResourceInfo& secret_info = *kcp.find("", "secrets");
    std::vector<Json> kymas;
    std::map<std::string, std::vector<Json>> secrets; // by the Kyma name they are labelled with
    if (full) {
        kymas = kcp.select(info, k_namespace, ListOptions{});
        for (auto& s : kcp.select(secret_info, k_namespace, ListOptions{}))
            if (const std::string* kyma = kyma_label(s))
                secrets[*kyma].push_back(std::move(s));
    } else {
        for (const auto& name : names) {
            auto kyma = kcp.find_object(info, k_namespace, name);
            if (!kyma)
                continue; // gone: the next full pass forgets it
            ListOptions labelled;
            labelled.label_selector = std::string(k_kyma_name_label) + "=" + name;
            try {
                secrets[name] = kcp.select(secret_info, k_namespace, labelled);
            } catch (const std::exception&) {
                continue; // a name no label value can hold: left to the full pass
            }
            kymas.push_back(std::move(*kyma));
        }
    }
    static const std::vector<Json> none;
    std::set<std::string> present;
    for (auto& kyma : kymas) {
        const std::string name = kyma["metadata"]["name"].get<std::string>();
        present.insert(name);
        const auto found = secrets.find(name);
        advance_one(kcp, std::move(kyma), found == secrets.end() ? none : found->second, clusters,
                    runtime_base, now, full);
    }
    if (full)
        for (auto it = m_memos.begin(); it != m_memos.end();)
            it = present.count(it->first) ? std::next(it) : m_memos.erase(it);
    m_due.reset();
    for (const auto& [name, memo] : m_memos)
        if (memo.due)
            due(*memo.due);
}

void Klm::advance_one(ObjectStore& kcp, Json kyma, const std::vector<Json>& own,
                      const ClusterRegistry& clusters, const std::string& runtime_base,
                      TimePoint now, bool full) {
    const std::string name = kyma["metadata"]["name"].get<std::string>();
    Memo& memo = m_memos[name];
    if (memo.uid != kyma["metadata"].value("uid", "")) {
        memo = Memo{};
        memo.uid = kyma["metadata"].value("uid", "");
    }
    const ResourceInfo& info = kyma_info();
    kyma["apiVersion"] = info.api_version();
    kyma["kind"] = info.kind;
    std::string seen_secrets;
    for (const auto& s : own)
        seen_secrets += s["metadata"].value("name", "") + "@" +
                        s["metadata"].value("resourceVersion", "") + ";";
    const std::string version = kyma["metadata"].value("resourceVersion", "");
    if (!full && memo.seen_version == version && memo.seen_secrets == seen_secrets &&
        (!memo.due || *memo.due > now))
        return;
    memo.seen_version = version; // a write of this pass makes the next one look once more
    memo.seen_secrets = std::move(seen_secrets);
    const std::optional<TimePoint> others = std::exchange(m_due, std::nullopt);
    memo.access = find_access(own, clusters, runtime_base, kyma);
    try {
        if (kyma["metadata"].contains("deletionTimestamp"))
            reconcile_deletion(kcp, kyma, memo, now);
        else
            reconcile(kcp, kyma, memo, now);
    } catch (const std::exception& e) {
        // A Kyma a test wrote by hand can make a write fail; the next pass tries again.
        std::fprintf(stderr, "kprov-sim: klm: kyma %s: %s\n", name.c_str(), e.what());
    }
    memo.due = std::exchange(m_due, others);
}

void Klm::reconcile(ObjectStore& kcp, Json kyma, Memo& memo, TimePoint now) {
    if (label_is(kyma, k_skip, "true"))
        return;
    Json status = kyma.value("status", Json::object());
    if (!status.is_object())
        status = Json::object();
    const Json& spec = kyma.value("spec", Json::object());
    if (spec.is_object() && spec.value("channel", "") == "none") {
        write_status(kcp, kyma,
                     with_operation(status, "Error",
                                    "invalid kyma spec: value \"none\" is not allowed in "
                                    "spec.channel"),
                     now);
        return;
    }
    const Access& a = memo.access;
    if (!a.reachable()) {
        // Every module of the spec in Error with the reason; the rest of the status stays.
        const Json& known = memo.reached ? memo.spec : spec;
        Json modules = Json::array();
        for (const auto& m : known.value("modules", Json::array())) {
            Json entry = {{"name", m.value("name", "")}};
            for (const auto& old : status.value("modules", Json::array()))
                if (old.is_object() && old.value("name", "") == entry["name"])
                    entry = old;
            entry["state"] = "Error";
            entry["message"] = a.problem;
            modules.push_back(entry);
        }
        status["modules"] = modules;
        write_status(kcp, kyma, with_operation(status, "Error", a.headline), now);
        return;
    }
    Json& md = kyma["metadata"];
    if (!has_klm_finalizer(kyma) || !label_is(kyma, k_managed_by, "lifecycle-manager")) {
        if (!has_klm_finalizer(kyma))
            md["finalizers"].push_back(k_finalizer);
        if (!md.contains("labels") || !md["labels"].is_object())
            md["labels"] = Json::object();
        md["labels"][k_managed_by] = "lifecycle-manager";
        kyma = update_honouring_finalizers(kcp, kyma_info(), k_namespace,
                                           md["name"].get<std::string>(), kyma, false);
    }
    if (!memo.reached) {
        memo.reached = now;
        memo.spec = spec.is_object() ? spec : Json::object();
        memo.empty_due = now + seconds_to_duration(m_settings.module_seconds);
    }
    if (kyma.value("status", Json::object()).value("state", "").empty()) {
        Json started = {
            {"modules", Json::array()},
            {"conditions",
             Json::array({condition("CRDsSync", "True", "CRDs are synchronized to the SKR", kyma),
                          condition("Modules", "Unknown", modules_message("Unknown"), kyma),
                          condition("ModuleCatalog", "Unknown",
                                    "module templates synchronization "
                                    "state is unknown",
                                    kyma)})}};
        write_status(kcp, kyma, with_operation(started, "Processing", "started processing"), now);
    }
    write_status(kcp, kyma, reachable_status(kyma, memo, now), now);
}

Json Klm::reachable_status(const Json& kyma, Memo& memo, TimePoint now) {
    const std::string name = kyma["metadata"]["name"].get<std::string>();
    std::string channel = memo.spec.value("channel", "");
    if (channel.empty())
        channel = k_default_channel;
    Json modules = Json::array();
    bool any_error = false, any_warning = false, any_processing = false;
    for (const auto& m : memo.spec.value("modules", Json::array())) {
        std::string module = m.value("name", "");
        std::string module_channel = m.value("channel", "");
        Json entry = {{"name", module},
                      {"channel", module_channel.empty() ? channel : module_channel}};
        auto [it, fresh] = memo.module_due.try_emplace(
            module, now + seconds_to_duration(m_settings.module_seconds));
        TimePoint module_due = it->second;
        auto catalog = m_catalog.find(module);
        if (!m.value("managed", true)) {
            entry["state"] = "Unmanaged";
        } else if (catalog == m_catalog.end()) {
            // KLM: Error on the first pass, Warning on later ones (one module duration later).
            entry["state"] = now < module_due ? "Error" : "Warning";
            entry["message"] = "no ModuleReleaseMeta found  for module \"" + module +
                               "\" in namespace \"" + k_namespace + "\"";
            if (now < module_due)
                due(module_due);
        } else if (const char* refused = not_allowed(catalog->second, kyma)) {
            // kyma-lifecycle-manager.md §5 (KLM pkg/templatelookup/regular.go): the template
            // lookup fails, and a Manifest the module had is deleted; state derived as Error.
            entry["state"] = "Error";
            entry["message"] = std::string("module template not allowed: ") + refused;
        } else {
            const std::string& version = catalog->second.version;
            entry["fqdn"] = "kyma-project.io/module/" + module;
            entry["version"] = version;
            entry["manifest"] = tracking_ref("Manifest", manifest_name(name, module));
            entry["template"] = tracking_ref("ModuleTemplate", module + "-" + version);
            bool ready = now >= module_due && !m_stuck.count(module);
            entry["state"] = ready ? "Ready" : "Processing";
            if (!ready && !m_stuck.count(module))
                due(module_due);
        }
        const std::string state = entry["state"];
        any_error |= state == "Error";
        any_warning |= state == "Warning";
        any_processing |= state == "Processing";
        modules.push_back(entry);
    }
    bool all_ready = !any_error && !any_warning && !any_processing;
    if (modules.empty() && now < memo.empty_due) {
        all_ready = false;
        due(memo.empty_due);
    }
    std::string state = any_error     ? "Error"
                        : any_warning ? "Warning"
                        : !all_ready  ? "Processing"
                                      : "Ready";
    std::string modules_status = all_ready ? "True" : "False";
    Json status = {
        {"modules", modules},
        {"conditions",
         Json::array(
             {condition("CRDsSync", "True", "CRDs are synchronized to the SKR", kyma),
              condition("Modules", modules_status, modules_message(modules_status), kyma),
              condition("ModuleCatalog", "True", "module templates are synchronized", kyma)})}};
    Json previous = kyma.value("status", Json::object());
    if (state == "Ready" || state == "Warning")
        status["activeChannel"] = channel;
    else if (previous.is_object() && previous.contains("activeChannel"))
        status["activeChannel"] = previous["activeChannel"];
    if (state == "Ready" && !memo.ready_at)
        memo.ready_at = now;
    return with_operation(status, state,
                          state == "Ready" ? "kyma is ready"
                                           : "waiting for all modules to become ready");
}

const char* Klm::not_allowed(const Module& module, const Json& kyma) {
    if (module.internal && !label_true(kyma, k_internal_label))
        return "internal module";
    if (module.beta && !label_true(kyma, k_beta_label))
        return "beta module";
    return nullptr;
}

void Klm::reconcile_deletion(ObjectStore& kcp, const Json& kyma_in, Memo& memo, TimePoint now) {
    Json kyma = kyma_in;
    Json finalizers = kyma["metadata"].value("finalizers", Json::array());
    auto ours = std::find(finalizers.begin(), finalizers.end(), k_finalizer);
    if (ours == finalizers.end())
        return; // someone else's finalizer: not KLM's business
    Json status = kyma.value("status", Json::object());
    if (!status.is_object())
        status = Json::object();
    write_status(kcp, kyma, with_operation(status, "Deleting", "waiting for modules to be deleted"),
                 now);
    const Access& a = memo.access;
    if (!memo.drop_due)
        memo.drop_due = now + seconds_to_duration(m_settings.module_seconds);
    // Without a Secret KLM drops every finalizer without touching the runtime; with one, the
    // modules must be removed from a reachable runtime first.
    bool drop = a.secrets == 0;
    if (!drop && a.reachable() && !stuck(memo.reached ? memo.spec : kyma.value("spec", Json()))) {
        drop = now >= *memo.drop_due;
        if (!drop)
            due(*memo.drop_due);
    }
    if (!drop)
        return;
    finalizers.erase(ours);
    kyma["metadata"]["finalizers"] = finalizers;
    update_honouring_finalizers(kcp, kyma_info(), k_namespace,
                                kyma["metadata"]["name"].get<std::string>(), kyma, false);
}

Json Klm::describe(const ObjectStore& kcp) const {
    Json out = Json::array();
    Json kymas = kcp.list(kyma_info(), k_namespace, ListOptions{});
    for (const auto& kyma : kymas["items"]) {
        const Json& md = kyma["metadata"];
        std::string name = md["name"].get<std::string>();
        const Json& status = kyma.value("status", Json::object());
        Json entry = {{"name", name},
                      {"uid", md.value("uid", "")},
                      {"state", status.is_object() ? status.value("state", "") : ""},
                      {"deleting", md.contains("deletionTimestamp")},
                      {"finalizer", has_klm_finalizer(kyma)}};
        auto it = m_memos.find(name);
        if (it != m_memos.end() && it->second.uid == md.value("uid", "")) {
            const Memo& m = it->second;
            entry["secrets"] = m.access.secrets;
            entry["runtime"] = m.access.cluster.empty() ? Json() : Json(m.access.cluster);
            entry["reachable"] = m.access.reachable();
            entry["problem"] = m.access.problem;
            entry["reachedAtUnixMs"] = m.reached ? Json(unix_ms(*m.reached)) : Json();
            entry["readyAtUnixMs"] = m.ready_at ? Json(unix_ms(*m.ready_at)) : Json();
        }
        out.push_back(entry);
    }
    return {{"kymas", out}};
}

} // namespace kprov::sim
