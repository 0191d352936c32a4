#pragma once
// An in-memory KCP for the engine's unit tests of the lifecycle-manager backend: Secrets and
// Kymas by name, whose states the test sets, and every call recorded. The real client is tested
// against kprov-sim (tests/cli/klm_test.cpp).

#include "engine/error.hpp"
#include "engine/kyma_lifecycle.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kprov::fakes {

class FakeKcp final : public engine::KymaLifecycleManager {
public:
    const std::string& namespace_name() const override { return m_namespace; }
    const std::string& server() const override { return m_server; }

    std::vector<std::string> apply_secret(const engine::KymaAccessSecret& secret) override {
        std::lock_guard lock(m_mutex);
        calls.push_back("apply_secret " + secret.name);
        fail_if_down();
        std::vector<std::string> removed;
        const auto kyma = secret.labels.at(std::string(engine::k_kyma_name_label));
        for (auto it = secrets.begin(); it != secrets.end();) {
            const auto label = it->second.labels.find(std::string(engine::k_kyma_name_label));
            if (it->first != secret.name && label != it->second.labels.end() &&
                label->second == kyma) {
                removed.push_back(it->first);
                it = secrets.erase(it);
            } else {
                ++it;
            }
        }
        secrets[secret.name] = secret;
        return removed;
    }
    bool delete_secret(const std::string& name) override {
        std::lock_guard lock(m_mutex);
        calls.push_back("delete_secret " + name);
        fail_if_down();
        return secrets.erase(name) > 0;
    }
    std::vector<engine::KymaAccessSecretInfo> list_secrets() override {
        std::lock_guard lock(m_mutex);
        calls.push_back("list_secrets");
        fail_if_down();
        std::vector<engine::KymaAccessSecretInfo> out;
        for (const auto& [name, s] : secrets) {
            const auto sync = s.annotations.find(std::string(engine::k_kyma_last_sync_annotation));
            out.push_back(
                {name, s.labels.at(std::string(engine::k_kyma_runtime_id_label)),
                 sync == s.annotations.end() ? std::nullopt : parse_db_time(sync->second)});
        }
        return out;
    }

    engine::KymaState apply_kyma(const engine::KymaResource& kyma) override {
        std::lock_guard lock(m_mutex);
        calls.push_back("apply_kyma " + kyma.name);
        fail_if_down();
        applied[kyma.name] = kyma;
        auto& state = kymas[kyma.name];
        state.channel = kyma.channel;
        state.spec_modules.clear();
        for (const auto& m : kyma.modules)
            state.spec_modules.push_back(m.name);
        state.resource_version = std::to_string(++m_version);
        return state;
    }
    std::optional<engine::KymaState> read_kyma(const std::string& name) override {
        std::lock_guard lock(m_mutex);
        calls.push_back("read_kyma " + name);
        fail_if_down();
        const auto it = kymas.find(name);
        if (it == kymas.end())
            return std::nullopt;
        return it->second;
    }
    bool delete_kyma(const std::string& name) override {
        std::lock_guard lock(m_mutex);
        calls.push_back("delete_kyma " + name);
        fail_if_down();
        const auto it = kymas.find(name);
        if (it == kymas.end())
            return false;
        it->second.deleting = true;
        it->second.state = "Deleting";
        return true;
    }

    /// Sets every module of the Kyma `name` (and the Kyma) to `state`.
    void set_all(const std::string& name, const std::string& state) {
        std::lock_guard lock(m_mutex);
        auto& kyma = kymas.at(name);
        kyma.modules.clear();
        for (const auto& m : kyma.spec_modules)
            kyma.modules.push_back({m, state, state == "Ready" ? "" : "working on it"});
        kyma.state = state;
        kyma.resource_version = std::to_string(++m_version);
    }

    std::map<std::string, engine::KymaAccessSecret> secrets;
    std::map<std::string, engine::KymaResource> applied;
    std::map<std::string, engine::KymaState> kymas;
    std::vector<std::string> calls;
    bool down = false; ///< every call throws a retryable RemoteError

private:
    void fail_if_down() const {
        if (down)
            throw RemoteError("kcp: connection refused", 0, true);
    }

    std::mutex m_mutex;
    std::string m_namespace = "kcp-system";
    std::string m_server = "https://kcp.example.com";
    int m_version = 0;
};

} // namespace kprov::fakes
