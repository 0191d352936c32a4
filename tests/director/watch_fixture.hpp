#pragma once
// `kprov watch` and one-shot commands run as processes against a kprov-sim of the test's own,
// with a SQLite store in the test's directory: the setup the daemon tests share.

#include "director_testing.hpp"
#include "support/child_process.hpp"
#include "support/test_databases.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kprov::director::test {

inline const std::string k_watch_secret_key = "0123456789abcdef0123456789abcdef";

class WatchProcessTest : public ::testing::Test {
protected:
    /// Starts kprov-sim with `sim_flags` (skips, fails in CI, when it is not built) and sets the
    /// children's environment: this process's without kprov's settings, the test's directory,
    /// store, key, tenant and Gardener (project "kprov"), then `settings`.
    void start(std::vector<std::string> sim_flags,
               const std::vector<std::pair<std::string, std::string>>& settings) {
        std::string why;
        m_sim = start_sim(std::move(sim_flags), why);
        if (!m_sim)
            KPROV_SKIP_UNLESS_CI(why);
        std::vector<std::pair<std::string, std::string>> all = {
            {"HOME", m_dir.path()},
            {"XDG_CONFIG_HOME", m_dir.file("config")},
            {"XDG_STATE_HOME", m_dir.file("state")},
            {"KPROV_STORE", "sqlite://" + m_dir.file("kprov.db")},
            {"APP_DATABASE_SECRET_KEY", k_watch_secret_key},
            {"KPROV_TENANT", "ga-1"},
            {"APP_GARDENER_KUBECONFIG_PATH", m_sim->kubeconfig.string()},
            {"APP_GARDENER_PROJECT", "kprov"},
        };
        all.insert(all.end(), settings.begin(), settings.end());
        m_env = kprov::testing::environment_with(all);
    }

    /// The built kprov with `args`, run to its end (at most 120 s).
    kprov::testing::ProcessResult kprov(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {KPROV_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        return kprov::testing::run_process(argv, m_env, m_dir.path(), std::chrono::seconds(120));
    }

    /// A GCP runtime file whose runtime and shoot are named `name`, which the sim's default
    /// landscape admits; returns its path.
    std::string write_runtime(const std::string& name) {
        const std::string path = m_dir.file(name + ".json");
        std::ofstream(path) << R"({
          "runtimeInput": {"name": ")"
                            << name << R"("},
          "clusterConfig": {"gardenerConfig": {
            "name": ")" << name
                            << R"(", "kubernetesVersion": "1.34.6", "provider": "gcp",
            "targetSecret": "gcp-kyma-dev", "region": "europe-west3", "machineType": "e2-medium",
            "diskType": "pd-balanced", "volumeSizeGB": 32, "workerCidr": "10.250.0.0/16",
            "autoScalerMin": 1, "autoScalerMax": 2, "maxSurge": 1, "maxUnavailable": 0,
            "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-b"]}}}}})";
        return path;
    }

    kprov::testing::TempDir m_dir;
    std::unique_ptr<kprov::testing::SimProcess> m_sim;
    std::vector<std::string> m_env;
};

} // namespace kprov::director::test
