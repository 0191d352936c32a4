#pragma once
// In-memory stand-ins for the Kyma ports (engine/kyma.hpp), for the engine's unit tests: an
// installer whose probe answers what the test sets and which records every call, and a release
// source serving releases the test adds. The real installer is tested against kprov-sim.

#include "engine/kyma.hpp"

#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kprov::fakes {

class FakeKymaInstaller final : public engine::KymaInstaller {
public:
    std::string_view name() const override { return "fake"; }

    engine::InstallationProbe probe(const std::string& kubeconfig) override {
        std::lock_guard lock(m_mutex);
        record("probe", kubeconfig);
        rethrow(probe_error);
        return probe_result;
    }
    void install(const std::string& kubeconfig, const engine::KymaConfig& config) override {
        std::lock_guard lock(m_mutex);
        record("install " + config.id, kubeconfig);
        rethrow(trigger_error);
        installed.push_back(config);
        probe_result = state("InProgress", "Verify installed components");
    }
    void upgrade(const std::string& kubeconfig, const engine::KymaConfig& config) override {
        std::lock_guard lock(m_mutex);
        record("upgrade " + config.id, kubeconfig);
        rethrow(trigger_error);
        installed.push_back(config);
        probe_result = state("InProgress", "Verify installed components");
    }
    bool uninstall(const std::string& kubeconfig) override {
        std::lock_guard lock(m_mutex);
        record("uninstall", kubeconfig);
        rethrow(uninstall_error);
        return probe_result.kind != engine::InstallationProbe::Kind::NoInstallation;
    }
    void cleanup(const std::string& kubeconfig, const std::string& selector) override {
        std::lock_guard lock(m_mutex);
        record("cleanup " + selector, kubeconfig);
        rethrow(cleanup_error);
    }

    /// await_change answers what `on_await` returns (false without one: the caller polls).
    bool await_change(const std::string& kubeconfig, const std::string& resource_version,
                      std::chrono::milliseconds max_wait, std::stop_token stop) override {
        std::function<bool(const std::string&, std::chrono::milliseconds, std::stop_token)> f;
        {
            std::lock_guard lock(m_mutex);
            record("await " + resource_version, kubeconfig);
            f = on_await;
        }
        return f ? f(resource_version, max_wait, stop) : false;
    }
    std::function<bool(const std::string&, std::chrono::milliseconds, std::stop_token)> on_await;

    /// A probe result of Kind::State.
    static engine::InstallationProbe state(std::string state, std::string description) {
        engine::InstallationProbe p;
        p.kind = engine::InstallationProbe::Kind::State;
        p.state = std::move(state);
        p.description = std::move(description);
        p.resource_version = "7";
        return p;
    }
    /// A probe result of Kind::InstallerError with one errorLog entry per component.
    static engine::InstallationProbe installer_error(std::string description, bool recoverable,
                                                     std::vector<std::string> components) {
        engine::InstallationProbe p;
        p.kind = engine::InstallationProbe::Kind::InstallerError;
        p.state = "Error";
        p.description = description;
        p.error_message = "installation error occurred: " + description;
        p.recoverable = recoverable;
        for (auto& c : components)
            p.error_log.push_back({std::move(c), "helm failed", 1});
        p.resource_version = "8";
        return p;
    }
    static engine::InstallationProbe no_installation() {
        engine::InstallationProbe p;
        p.description = "Kyma Installation CR not found on the cluster";
        return p;
    }

    /// The calls so far ("probe", "install <config id>", "uninstall", ...), oldest first.
    std::vector<std::string> calls() {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    /// The kubeconfigs the calls were given.
    std::vector<std::string> kubeconfigs() {
        std::lock_guard lock(m_mutex);
        return m_kubeconfigs;
    }

    engine::InstallationProbe probe_result = no_installation();
    std::exception_ptr probe_error;     ///< thrown by every probe while set
    std::exception_ptr trigger_error;   ///< thrown by install and upgrade while set
    std::exception_ptr uninstall_error; ///< thrown by uninstall while set
    std::exception_ptr cleanup_error;   ///< thrown by cleanup while set
    std::vector<engine::KymaConfig> installed;

private:
    void record(std::string call, const std::string& kubeconfig) {
        m_calls.push_back(std::move(call));
        m_kubeconfigs.push_back(kubeconfig);
    }
    static void rethrow(const std::exception_ptr& error) {
        if (error)
            std::rethrow_exception(error);
    }

    std::mutex m_mutex;
    std::vector<std::string> m_calls;
    std::vector<std::string> m_kubeconfigs;
};

class FakeReleaseSource final : public engine::ReleaseSource {
public:
    engine::KymaRelease fetch(const std::string& version) override {
        std::lock_guard lock(m_mutex);
        ++fetches;
        const auto it = releases.find(version);
        if (it == releases.end())
            throw RemoteError("Failed to download installer YAML release for version " + version +
                                  ": received unexpected http status 404",
                              404, false);
        return it->second;
    }

    /// Serves a release of `version` with a small installer YAML.
    void add(const std::string& version, std::string tiller = {}) {
        std::lock_guard lock(m_mutex);
        releases[version] = {
            {},
            version,
            std::move(tiller),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-installer\n"};
    }

    std::map<std::string, engine::KymaRelease> releases;
    int fetches = 0;

private:
    std::mutex m_mutex;
};

} // namespace kprov::fakes
