// The per-cluster test knobs of POST /sim/clusters/{cluster}/kyma: installer failures and
// timing, CRD establishment, Service Catalog objects, direct actions on the Installation CR and the
// runtime agent's connection states.

#include "clusters.hpp"

#include <algorithm>
#include <openssl/evp.h>

namespace kprov::sim {

namespace {

std::string sha224_hex(const std::string& s) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(s.data(), s.size(), md, &len, EVP_sha224(), nullptr) != 1)
        throw std::runtime_error("kprov-sim: SHA-224 failed");
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 0xf];
    }
    return out;
}

void expect(const Json& j, const char* key, bool ok, const char* what) {
    if (j.contains(key) && !ok)
        throw bad_request(std::string("kyma knobs: \"") + key + "\" must be " + what);
}

void validate_failures(const Json& j, const char* key) {
    if (!j.contains(key))
        return;
    expect(j, key, j[key].is_object(), "an object of release -> number of failing attempts");
    for (const auto& [rel, n] : j[key].items())
        if (!n.is_number_integer() || n.get<int>() < 0)
            throw bad_request(std::string("kyma knobs: \"") + key + "\"." + rel +
                              " must be a whole number >= 0");
}

void merge_failures(std::map<std::string, int>& into, const Json& j, const char* key) {
    if (j.contains(key))
        for (const auto& [rel, n] : j[key].items())
            into[rel] = n.get<int>();
}

} // namespace

void validate_kyma_knobs(const Json& j) {
    static const std::vector<std::string> known = {"failures",
                                                   "uninstallFailures",
                                                   "failureLog",
                                                   "neverFinish",
                                                   "crdEstablishSeconds",
                                                   "serviceCatalog",
                                                   "failInstanceDeletion",
                                                   "installation",
                                                   "state",
                                                   "deleteInstallation",
                                                   "tillerPodPhase",
                                                   "verifyFailures",
                                                   "agentStates",
                                                   "agentDisabled"};
    if (!j.is_object())
        throw bad_request("kyma knobs: the body must be a JSON object");
    for (const auto& [k, v] : j.items())
        if (std::find(known.begin(), known.end(), k) == known.end())
            throw bad_request("kyma knobs: unknown key \"" + k + "\"");
    validate_failures(j, "failures");
    validate_failures(j, "uninstallFailures");
    expect(j, "failureLog", j.value("failureLog", Json("")).is_string(), "a string");
    for (const char* b :
         {"neverFinish", "failInstanceDeletion", "deleteInstallation", "agentDisabled"})
        expect(j, b, j.contains(b) && j[b].is_boolean(), "true or false");
    expect(j, "crdEstablishSeconds",
           j.contains("crdEstablishSeconds") && j["crdEstablishSeconds"].is_number() &&
               j["crdEstablishSeconds"].get<double>() >= 0,
           "a number >= 0");
    expect(j, "serviceCatalog",
           j.contains("serviceCatalog") &&
               (j["serviceCatalog"].is_object() || j["serviceCatalog"] == false),
           "an object {brokers, classes, instances} or false");
    if (j.contains("serviceCatalog") && j["serviceCatalog"].is_object())
        for (const auto& [k, v] : j["serviceCatalog"].items())
            if ((k != "brokers" && k != "classes" && k != "instances") || !v.is_array())
                throw bad_request("kyma knobs: serviceCatalog takes the arrays brokers, classes "
                                  "and instances, not \"" +
                                  k + "\"");
    expect(j, "installation", j.contains("installation") && j["installation"].is_object(),
           "an object {labels, spec, status, state, description}");
    expect(j, "state", j.contains("state") && j["state"].is_string(), "a string");
    expect(j, "verifyFailures",
           j.contains("verifyFailures") && j["verifyFailures"].is_number_integer() &&
               j["verifyFailures"].get<int>() >= 0,
           "a whole number >= 0");
    expect(j, "agentStates",
           j.contains("agentStates") && j["agentStates"].is_array() && !j["agentStates"].empty() &&
               std::all_of(j["agentStates"].begin(), j["agentStates"].end(),
                           [](const Json& s) { return s.is_string() && s != ""; }),
           "a non-empty array of connection states (\"ConnectionFailed\", \"Synchronized\", ...)");
    expect(j, "tillerPodPhase", j.contains("tillerPodPhase") && j["tillerPodPhase"].is_string(),
           "a pod phase (Pending, Running, Failed, ...)");
}

void ClusterRegistry::configure(const std::string& name, const Json& knobs) {
    validate_kyma_knobs(knobs);
    std::string id = resolve(name);
    auto it = m_clusters.find(id);
    if (it == m_clusters.end()) {
        m_pending[id].push_back(knobs);
        return;
    }
    apply_knobs(it->second, knobs);
    reindex(it->second, TimePoint::min()); // knobs may change what the installer does next
}

void ClusterRegistry::set_defaults(const Json& knobs) {
    validate_kyma_knobs(knobs);
    for (const auto& [k, v] : knobs.items())
        m_defaults[k] = v;
}

Json ClusterRegistry::describe_kyma(const std::string& name) const {
    std::string id = resolve(name);
    const Cluster& c = cluster(id);
    Json out = c.kyma.describe();
    out["cluster"] = id;
    out["kubernetesVersion"] = c.kubernetes_version;
    out["crdEstablishSeconds"] = c.crd_establish_seconds;
    out["failInstanceDeletion"] = c.fail_instance_deletion;
    out["knobs"]["agentStates"] = c.agent.knobs.states;
    out["knobs"]["agentDisabled"] = c.agent.knobs.disabled;
    out["agent"] = c.agent.describe();
    out["agent"]["componentInstalled"] = c.kyma.installed(RuntimeAgent::k_release);
    Json crds = Json::object();
    for (const auto& [crd, at] : c.crd_established)
        crds[crd] = at <= Clock::now();
    out["crdsEstablished"] = crds;
    const ResourceInfo& inst =
        *c.store->find("installer.kyma-project.io", "v1alpha1", "installations");
    auto cr = c.store->find_object(inst, "default", "kyma-installation");
    out["installation"] = cr ? *cr : Json(nullptr);
    return out;
}

Json ClusterRegistry::kyma_overrides(const std::string& name) const {
    return cluster(resolve(name)).kyma.overrides();
}

void ClusterRegistry::apply_knobs(Cluster& c, const Json& j) {
    KymaKnobs& k = c.kyma.knobs;
    merge_failures(k.install_failures, j, "failures");
    merge_failures(k.uninstall_failures, j, "uninstallFailures");
    k.verify_failures = j.value("verifyFailures", k.verify_failures);
    k.failure_log = j.value("failureLog", k.failure_log);
    k.never_finish = j.value("neverFinish", k.never_finish);
    c.crd_establish_seconds = j.value("crdEstablishSeconds", c.crd_establish_seconds);
    c.fail_instance_deletion = j.value("failInstanceDeletion", c.fail_instance_deletion);
    c.agent.knobs.states = j.value("agentStates", c.agent.knobs.states);
    c.agent.knobs.disabled = j.value("agentDisabled", c.agent.knobs.disabled);
    if (j.contains("serviceCatalog"))
        install_service_catalog(c, j["serviceCatalog"]);
    if (j.contains("tillerPodPhase"))
        set_tiller_pod_phase(c, j["tillerPodPhase"]);
    if (j.contains("installation"))
        put_installation(c, j["installation"]);
    const ResourceInfo& inst =
        *c.store->find("installer.kyma-project.io", "v1alpha1", "installations");
    if (j.contains("state")) {
        Json cr = c.store->get(inst, "default", "kyma-installation");
        cr["status"]["state"] = j["state"];
        c.store->update(inst, "default", "kyma-installation", cr);
    }
    if (j.value("deleteInstallation", false))
        c.store->remove(inst, "default", "kyma-installation");
}

void ClusterRegistry::set_tiller_pod_phase(Cluster& c, const std::string& phase) {
    c.tiller_pod_phase = phase;
    const ResourceInfo& pods = *c.store->find("", "pods");
    ListOptions tiller;
    tiller.label_selector = "name=tiller";
    Json list = c.store->list(pods, "kube-system", tiller);
    for (auto& pod : list["items"]) {
        pod["status"]["phase"] = phase;
        c.store->update(pods, "kube-system", pod["metadata"]["name"].get<std::string>(), pod);
    }
}

void ClusterRegistry::ensure_crd(Cluster& c, const std::string& plural, const std::string& group,
                                 const std::string& kind, const std::string& version,
                                 bool namespaced) {
    const ResourceInfo& crds =
        *c.store->find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    std::string name = plural + "." + group;
    if (!c.store->find_object(crds, "", name)) {
        std::string singular = kind;
        std::transform(singular.begin(), singular.end(), singular.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        c.store->create(
            crds, "",
            {{"metadata", {{"name", name}}},
             {"spec",
              {{"group", group},
               {"names", {{"plural", plural}, {"singular", singular}, {"kind", kind}}},
               {"scope", namespaced ? "Namespaced" : "Cluster"},
               {"versions",
                Json::array({{{"name", version},
                              {"served", true},
                              {"storage", true},
                              {"schema",
                               {{"openAPIV3Schema",
                                 {{"type", "object"},
                                  {"x-kubernetes-preserve-unknown-fields", true}}}}}}})}}}});
    }
    c.crd_established[name] = Clock::now(); // set up by the test: no establishment delay
}

void ClusterRegistry::put_installation(Cluster& c, const Json& spec) {
    ensure_crd(c, "installations", "installer.kyma-project.io", "Installation", "v1alpha1", true);
    const ResourceInfo& inst =
        *c.store->find("installer.kyma-project.io", "v1alpha1", "installations");
    Json status = spec.value("status", Json::object());
    if (spec.contains("state"))
        status["state"] = spec["state"];
    if (spec.contains("description"))
        status["description"] = spec["description"];
    Json obj = {{"metadata",
                 {{"name", "kyma-installation"},
                  {"namespace", "default"},
                  {"labels", spec.value("labels", Json{{"kyma-project.io/installation", ""}})}}},
                {"spec", spec.value("spec", Json{{"version", "0.0.1"},
                                                 {"url", ""},
                                                 {"components", Json::array()}})},
                {"status", status}};
    if (auto current = c.store->find_object(inst, "default", "kyma-installation")) {
        obj["metadata"]["resourceVersion"] = (*current)["metadata"]["resourceVersion"];
        c.store->update(inst, "default", "kyma-installation", obj);
    } else {
        c.store->create(inst, "default", obj);
    }
}

void ClusterRegistry::install_service_catalog(Cluster& c, const Json& spec) {
    const char* group = "servicecatalog.k8s.io";
    if (spec == false) {
        const ResourceInfo& crds =
            *c.store->find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
        for (const char* plural :
             {"clusterservicebrokers", "clusterserviceclasses", "serviceinstances"})
            if (c.store->find_object(crds, "", std::string(plural) + "." + group))
                c.store->remove(crds, "", std::string(plural) + "." + group);
        return;
    }
    ensure_crd(c, "clusterservicebrokers", group, "ClusterServiceBroker", "v1beta1", false);
    ensure_crd(c, "clusterserviceclasses", group, "ClusterServiceClass", "v1beta1", false);
    ensure_crd(c, "serviceinstances", group, "ServiceInstance", "v1beta1", true);
    auto info = [&](const char* plural) {
        return *c.store->find(group, "v1beta1", plural);
    };
    for (const auto& b : spec.value("brokers", Json::array()))
        c.store->create(info("clusterservicebrokers"), "",
                        {{"metadata",
                          {{"name", b.value("name", "")},
                           {"finalizers", Json::array({"kubernetes-incubator/service-catalog"})}}},
                         {"spec", {{"url", b.value("url", "")}}}});
    for (const auto& cl : spec.value("classes", Json::array())) {
        std::string broker = cl.value("broker", "");
        c.store->create(
            info("clusterserviceclasses"), "",
            {{"metadata",
              {{"name", cl.value("name", "")},
               {"labels",
                {{"servicecatalog.k8s.io/spec.clusterServiceBrokerName", sha224_hex(broker)}}}}},
             {"spec",
              {{"clusterServiceBrokerName", broker},
               {"externalName", cl.value("externalName", cl.value("name", ""))}}}});
    }
    for (const auto& in : spec.value("instances", Json::array())) {
        std::string ns = in.value("namespace", "default");
        std::string cls = in.value("class", "");
        c.store->ensure_namespace(ns);
        c.store->create(
            info("serviceinstances"), ns,
            {{"metadata",
              {{"name", in.value("name", "")},
               {"labels",
                {{"servicecatalog.k8s.io/spec.clusterServiceClassRef.name", sha224_hex(cls)}}}}},
             {"spec", {{"clusterServiceClassRef", {{"name", cls}}}}}});
    }
}

} // namespace kprov::sim
