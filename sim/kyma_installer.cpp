#include "kyma_installer.hpp"

#include <algorithm>
#include <array>

namespace kprov::sim {

namespace {

constexpr const char* k_cr_namespace = "default";
constexpr const char* k_cr_name = "kyma-installation";
constexpr const char* k_overrides_namespace = "kyma-installer";
constexpr std::size_t k_history_limit = 1000;

const ResourceInfo& installation_info(const ObjectStore& store) {
    const ResourceInfo* info = store.find("installer.kyma-project.io", "v1alpha1", "installations");
    if (!info)
        throw std::logic_error("kprov-sim: the cluster store does not know installations");
    return *info;
}

std::string label(const Json& obj, const std::string& key) {
    const Json& labels = obj["metadata"].value("labels", Json::object());
    return labels.contains(key) && labels[key].is_string() ? labels[key].get<std::string>() : "";
}

std::string status_string(const Json& cr, const char* key) {
    const Json& st = cr.value("status", Json::object());
    return st.is_object() && st.contains(key) && st[key].is_string() ? st[key].get<std::string>()
                                                                     : "";
}

bool condition_true(const Json& cr, const std::string& type) {
    const Json st = cr.value("status", Json::object());
    if (!st.is_object() || !st.contains("conditions") || !st["conditions"].is_array())
        return false;
    for (const auto& c : st["conditions"])
        if (c.is_object() && c.value("type", "") == type && c.value("status", "") == "True")
            return true;
    return false;
}

// The installer's six conditions in a fixed order; `true_ones` are True, the rest False.
// lastTransitionTime moves only when a condition's status changes.
void set_conditions(Json& cr, std::initializer_list<const char*> true_ones, TimePoint now) {
    static const std::array<const char*, 6> types = {"Installed",    "Installing", "Uninstalled",
                                                     "Uninstalling", "InProgress", "Error"};
    Json old = cr["status"].value("conditions", Json::array());
    Json out = Json::array();
    std::string ts = rfc3339(now);
    for (const char* type : types) {
        bool on = std::find_if(true_ones.begin(), true_ones.end(), [&](const char* t) {
                      return std::string(t) == type;
                  }) != true_ones.end();
        std::string status = on ? "True" : "False";
        std::string transition = ts;
        if (old.is_array())
            for (const auto& c : old)
                if (c.is_object() && c.value("type", "") == type && c.value("status", "") == status)
                    transition = c.value("lastTransitionTime", ts);
        out.push_back({{"type", type},
                       {"status", status},
                       {"lastTransitionTime", transition},
                       {"lastProbeTime", ts}});
    }
    cr["status"]["conditions"] = out;
}

void remove_action_label(Json& cr) {
    if (cr["metadata"].contains("labels") && cr["metadata"]["labels"].is_object())
        cr["metadata"]["labels"].erase("action");
}

} // namespace

double KymaSettings::backoff_seconds(int retry) const {
    static const std::array<double, 5> intervals = {10, 20, 40, 60, 80};
    double factor = backoff_factor >= 0 ? backoff_factor : component_seconds / 10;
    return intervals.at(static_cast<std::size_t>(std::clamp(retry, 0, 4))) * factor;
}

std::string KymaInstaller::release(std::size_t i) const {
    const Json& c = m_components.at(i);
    std::string r = c.is_object() ? c.value("release", "") : "";
    return r.empty() && c.is_object() ? c.value("name", "") : r;
}

void KymaInstaller::write(ObjectStore& store, Json& cr) {
    m_writing = true;
    try {
        cr = store.update(installation_info(store), k_cr_namespace, k_cr_name, cr);
    } catch (...) {
        m_writing = false;
        throw;
    }
    m_writing = false;
}

void KymaInstaller::observe(const std::string& type, const Json& cr) {
    Json entry = {{"type", type},
                  {"by", m_writing ? "installer" : "client"},
                  {"resourceVersion", cr["metadata"].value("resourceVersion", "")},
                  {"atUnixMs", std::chrono::duration_cast<std::chrono::milliseconds>(
                                   Clock::now().time_since_epoch())
                                   .count()},
                  {"state", status_string(cr, "state")},
                  {"description", status_string(cr, "description")}};
    const Json& labels = cr["metadata"].value("labels", Json::object());
    entry["action"] = labels.contains("action") ? labels["action"] : Json(nullptr);
    m_history.push_back(std::move(entry));
    if (m_history.size() > k_history_limit)
        m_history.erase(m_history.begin());
}

void KymaInstaller::advance(ObjectStore& store, TimePoint now, const KymaSettings& settings) {
    const ResourceInfo* deployments = store.find("apps", "v1", "deployments");
    auto installer = deployments
                         ? store.find_object(*deployments, "kyma-installer", "kyma-installer")
                         : std::nullopt;
    auto abort = [&](const char* why) {
        if (m_mode != Mode::Idle && !m_runs.empty())
            m_runs.back()["result"] = why;
        m_mode = Mode::Idle;
    };
    if (!installer) {
        abort("aborted: the kyma-installer Deployment was deleted");
        return;
    }
    Json::json_pointer image("/spec/template/spec/containers/0/image");
    m_installer_image = installer->contains(image) && installer->at(image).is_string()
                            ? installer->at(image).get<std::string>()
                            : "";
    // Each pass does one step; a few passes catch up after a hibernation or a slow tick.
    for (int pass = 0; pass < 64; ++pass) {
        auto cr = store.find_object(installation_info(store), k_cr_namespace, k_cr_name);
        if (!cr) {
            abort("aborted: the Installation was deleted");
            return;
        }
        if (!cr->contains("status") || !(*cr)["status"].is_object())
            (*cr)["status"] = Json::object();
        if (!(*cr)["metadata"].contains("labels") || !(*cr)["metadata"]["labels"].is_object())
            (*cr)["metadata"]["labels"] = Json::object();
        if (m_mode == Mode::Idle) {
            std::string action = label(*cr, "action");
            std::string state = status_string(*cr, "state");
            if ((*cr)["metadata"].value("resourceVersion", "") == m_parked_rv)
                return; // gave up verifying; waits for the CR to change
            if (action == "install")
                start(Mode::Install, *cr);
            else if (action == "uninstall" && !state.empty() &&
                     (state != "InProgress" || condition_true(*cr, "Uninstalling")))
                start(Mode::Uninstall, *cr);
            else
                return;
            begin_verify(store, *cr, now, settings);
            continue;
        }
        if (m_step == Step::Component && knobs.never_finish)
            return;
        if (m_due > now)
            return;
        step(store, *cr, now, settings);
    }
}

void KymaInstaller::start(Mode mode, const Json& cr) {
    m_mode = mode;
    m_index = 0;
    m_attempt = 0;
    Json spec = cr.value("spec", Json::object());
    m_components = spec.is_object() && spec.contains("components") && spec["components"].is_array()
                       ? spec["components"]
                       : Json::array();
    if (mode == Mode::Uninstall) // the installer removes releases in reverse order
        std::reverse(m_components.begin(), m_components.end());
    m_runs.push_back({{"operation", mode == Mode::Install ? "install" : "uninstall"},
                      {"startedAtResourceVersion", cr["metadata"].value("resourceVersion", "")},
                      {"components", m_components.size()},
                      {"result", "running"}});
}

void KymaInstaller::begin_verify(ObjectStore& store, Json cr, TimePoint now,
                                 const KymaSettings& settings) {
    bool install = m_mode == Mode::Install;
    set_conditions(cr, {install ? "Installing" : "Uninstalling", "InProgress"}, now);
    cr["status"]["state"] = "InProgress";
    cr["status"]["description"] =
        install ? "Verify installed components" : "Verify components to uninstall";
    m_step = Step::Verify;
    m_due = now + seconds_to_duration(settings.component_seconds);
    write(store, cr);
}

void KymaInstaller::record_failure(Json& cr, const std::string& component, TimePoint now) const {
    Json& st = cr["status"];
    st["state"] = "Error";
    Json log = st.value("errorLog", Json::array());
    if (!log.is_array())
        log = Json::array();
    if (!log.empty() && log.back().is_object() && log.back().value("component", "") == component &&
        log.back().value("log", "") == knobs.failure_log)
        log.back()["occurrences"] = log.back().value("occurrences", 1) + 1;
    else
        log.push_back({{"component", component}, {"log", knobs.failure_log}, {"occurrences", 1}});
    st["errorLog"] = log;
    set_conditions(cr, {m_mode == Mode::Install ? "Installing" : "Uninstalling", "Error"}, now);
}

void KymaInstaller::step(ObjectStore& store, Json cr, TimePoint now, const KymaSettings& settings) {
    if (m_step == Step::VerifyRetry) {
        begin_verify(store, std::move(cr), now, settings);
        return;
    }
    if (m_step == Step::Verify && m_mode == Mode::Install && knobs.verify_failures > 0) {
        // Listing the Helm releases failed: the label stays, the queue retries the sync.
        --knobs.verify_failures;
        ++m_attempt;
        record_failure(cr, "Kyma Operator", now);
        cr["status"]["description"] = "Verifying installed components";
        bool give_up = m_attempt >= k_max_attempts;
        if (give_up) {
            m_runs.back()["result"] = "gave up: Verifying installed components";
            m_mode = Mode::Idle;
        } else {
            m_step = Step::VerifyRetry;
            m_due = now + seconds_to_duration(settings.component_seconds);
        }
        write(store, cr);
        if (give_up)
            m_parked_rv = cr["metadata"].value("resourceVersion", "");
        return;
    }
    if (m_step == Step::Backoff || (m_step == Step::Verify && !m_components.empty())) {
        begin_component(store, std::move(cr), now, settings);
        return;
    }
    if (m_step == Step::Verify) {
        finish(store, std::move(cr));
        return;
    }
    std::string rel = release(m_index);
    auto& failures = m_mode == Mode::Install ? knobs.install_failures : knobs.uninstall_failures;
    if (auto it = failures.find(rel); it != failures.end() && it->second > 0) {
        --it->second;
        ++m_attempt;
        record_failure(cr, rel, now);
        if (m_attempt >= k_max_attempts) {
            remove_action_label(cr); // given up: non-recoverable for the provisioner
            m_runs.back()["result"] = "gave up: " + rel;
            m_mode = Mode::Idle;
        } else {
            m_step = Step::Backoff;
            m_due = now + seconds_to_duration(settings.backoff_seconds(m_attempt - 1));
        }
        write(store, cr);
        return;
    }
    m_attempt = 0;
    if (m_mode == Mode::Install)
        m_installed.insert(rel);
    if (++m_index < m_components.size())
        begin_component(store, std::move(cr), now, settings);
    else
        finish(store, std::move(cr));
}

void KymaInstaller::begin_component(ObjectStore& store, Json cr, TimePoint now,
                                    const KymaSettings& settings) {
    std::string rel = release(m_index);
    if (m_mode == Mode::Install)
        m_overrides[rel] = evaluate_overrides(store, rel);
    cr["status"]["state"] = "InProgress";
    cr["status"]["description"] =
        std::string(m_mode == Mode::Install ? "install" : "uninstall") + " component " + rel;
    set_conditions(cr, {m_mode == Mode::Install ? "Installing" : "Uninstalling", "InProgress"},
                   now);
    m_step = Step::Component;
    m_due = now + seconds_to_duration(settings.component_seconds);
    write(store, cr);
}

void KymaInstaller::finish(ObjectStore& store, Json cr) {
    TimePoint now = Clock::now();
    Json& st = cr["status"];
    if (m_mode == Mode::Install) {
        set_conditions(cr, {"Installed"}, now);
        st["state"] = "Installed";
        st["description"] = "Kyma installed";
        Json spec = cr.value("spec", Json::object());
        st["url"] = spec.is_object() ? spec.value("url", "") : "";
        st["version"] = spec.is_object() ? spec.value("version", "") : "";
    } else {
        set_conditions(cr, {"Uninstalled"}, now);
        st["state"] = "Uninstalled";
        st["description"] = "Selected Kyma components uninstalled";
    }
    st["errorLog"] = Json::array();
    // Whatever action label is there now goes, so an uninstall requested meanwhile is lost.
    remove_action_label(cr);
    m_runs.back()["result"] = m_mode == Mode::Install ? "Installed" : "Uninstalled";
    m_mode = Mode::Idle;
    write(store, cr);
}

Json KymaInstaller::evaluate_overrides(const ObjectStore& store, const std::string& rel) const {
    const ResourceInfo* cms = store.find("", "configmaps");
    const ResourceInfo* secrets = store.find("", "secrets");
    auto collect = [&](const std::string& selector, Json& out) {
        for (const ResourceInfo* info : {cms, secrets}) {
            ListOptions opts;
            opts.label_selector = selector;
            Json list = store.list(*info, k_overrides_namespace, opts);
            for (const auto& item : list["items"]) {
                const Json data = item.value("data", Json::object());
                for (const auto& [k, v] : data.items()) {
                    std::string value = v.is_string() ? v.get<std::string>() : v.dump();
                    if (info == secrets)
                        value = base64_decode(value).value_or(value);
                    out[k] = value;
                }
            }
        }
    };
    Json values = Json::object();
    collect("installer=overrides,!component", values);
    try {
        collect("installer=overrides,component=" + rel, values);
    } catch (const ApiError&) {
        // a release name that is no label value cannot have component overrides
    }
    return values;
}

std::optional<TimePoint> KymaInstaller::next_due() const {
    if (m_mode == Mode::Idle || (m_step == Step::Component && knobs.never_finish))
        return std::nullopt;
    return m_due;
}

Json KymaInstaller::describe() const {
    static const char* modes[] = {"idle", "install", "uninstall"};
    static const char* steps[] = {"verify", "verify-retry", "component", "backoff"};
    Json out = {{"mode", modes[static_cast<int>(m_mode)]},
                {"installerImage", m_installer_image},
                {"knobs",
                 {{"failures", knobs.install_failures},
                  {"uninstallFailures", knobs.uninstall_failures},
                  {"verifyFailures", knobs.verify_failures},
                  {"failureLog", knobs.failure_log},
                  {"neverFinish", knobs.never_finish}}},
                {"runs", m_runs},
                {"installedReleases", m_installed},
                {"history", m_history},
                {"overrides", m_overrides}};
    if (m_mode != Mode::Idle) {
        out["step"] = steps[static_cast<int>(m_step)];
        out["attempt"] = m_attempt + 1;
        if (m_index < m_components.size())
            out["component"] = release(m_index);
    }
    return out;
}

} // namespace kprov::sim
