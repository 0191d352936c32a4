// kprov-bench-provision: how fast the engine provisions many runtimes (bench/README.md).
//
// Starts kprov-sim (shoots take --create-seconds to create) and `kprov watch` as separate
// processes, starts N provisionings through the engine service (the code behind
// `kprov provision`) on the same store, and waits until every operation has ended. Reports wall
// time, operations per second, the delay between the sim finishing a shoot and kprov marking its
// operation Succeeded (p50, p99, max), and the requests kprov sent per runtime (/sim/stats).

#include "../tests/support/child_process.hpp"
#include "app/engine_assembly.hpp"
#include "cli/runtime_file.hpp"
#include "config/engine_options.hpp"
#include "config/settings.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "engine/landscape.hpp"
#include "engine/service/service.hpp"
#include "engine/util/time.hpp"
#include "gardener/gardener_client.hpp"
#include "gardener/kubeconfig.hpp"
#include "gardener/landscape_port.hpp"
#include "gardener/shoot_port.hpp"
#include "kyma/kyma_installer.hpp"
#include "kyma/kyma_releases.hpp"
#include "stores/open_store.hpp"
#include "support/sim_process.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <curl/curl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;
using kprov::testing::ChildProcess;
using kprov::testing::SimProcess;
using SteadyClock = std::chrono::steady_clock;

struct Options {
    int runtimes = 1000;
    double qps = 1000; // kprov's client-side limit on Gardener requests (default 20)
    int workers = 8;
    int submitters = 4; // threads starting provisionings, as concurrent API requests would
    double create_seconds = 2;
    std::string store = "sqlite";
    std::string kprov = KPROV_BINARY;
    std::string sim = KPROV_SIM_BINARY;
    std::string runtime_file = std::string(KPROV_SOURCE_DIR) + "/examples/gcp.yaml";
    std::string json_out;
    std::string timeline_out;
    /// > 0: every runtime gets Kyma (five components of this many seconds in the sim).
    double kyma_component_seconds = 0;
    /// > 0: every runtime gets Kyma through Kyma Lifecycle Manager (five modules, each Ready
    /// this many seconds after the sim's KLM first saw it).
    double klm_module_seconds = 0;
};

// The kymaConfig of the --kyma mode: five components, the release from the sim.
Json kyma_config() {
    return Json::parse(R"({
      "version": "1.24.11", "profile": "Evaluation",
      "configuration": [{"key": "global.domainName", "value": "bench.example.com"}],
      "components": [
        {"component": "cluster-essentials", "namespace": "kyma-system"},
        {"component": "istio", "namespace": "istio-system"},
        {"component": "serverless", "namespace": "kyma-system"},
        {"component": "monitoring", "namespace": "kyma-system"},
        {"component": "compass-runtime-agent", "namespace": "compass-system"}
      ]})");
}

// The kymaConfig of the --klm mode: a channel and five modules, all in kyma-system.
Json klm_kyma_config() {
    return Json::parse(R"({
      "version": "regular",
      "components": [
        {"component": "istio", "namespace": "kyma-system"},
        {"component": "api-gateway", "namespace": "kyma-system"},
        {"component": "btp-operator", "namespace": "kyma-system"},
        {"component": "serverless", "namespace": "kyma-system"},
        {"component": "telemetry", "namespace": "kyma-system"}
      ]})");
}

constexpr const char* k_project = "kyma-dev";
constexpr const char* k_secret_key = "0123456789abcdef0123456789abcdef";

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

Json http_get(const std::string& url) {
    CURL* curl = curl_easy_init();
    std::string body;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    const CURLcode rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK)
        throw std::runtime_error("GET " + url + ": " + curl_easy_strerror(rc));
    return Json::parse(body);
}

/// `base` (a runtime file as JSON) with `name` for the runtime and its shoot.
Json renamed(Json document, const std::string& name) {
    document["runtimeInput"]["name"] = name;
    document["clusterConfig"]["gardenerConfig"]["name"] = name;
    return document;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

std::vector<std::string> kprov_env(const Options& o, const std::string& store_url,
                                   const std::string& kubeconfig, const std::string& home) {
    return {"PATH=/usr/bin:/bin",
            "HOME=" + home,
            "KPROV_STORE=" + store_url,
            "APP_DATABASE_SECRET_KEY=" + std::string(k_secret_key),
            "APP_GARDENER_KUBECONFIG_PATH=" + kubeconfig,
            "APP_GARDENER_PROJECT=" + std::string(k_project),
            "KPROV_GARDENER_QPS=" + std::to_string(o.qps),
            "KPROV_GARDENER_BURST=" + std::to_string(static_cast<int>(o.qps * 2)),
            "APP_RUNTIME_REGISTRATION_ENABLED=false",
            "APP_RUNTIME_DEREGISTRATION_ENABLED=false",
            std::string("KPROV_LOG_LEVEL=") +
                (std::getenv("KPROV_BENCH_DEBUG") ? "debug" : "warn")};
}

// User plus system CPU time a process has used so far, from /proc/<pid>/stat.
double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    // Fields 14 and 15 (utime, stime) follow the command name, which ends at the last ')'.
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i >= 14)
            ticks += std::stod(field);
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int run(const Options& o) {
    const bool kyma = o.kyma_component_seconds > 0;
    const bool klm = o.klm_module_seconds > 0;
    // The default landscape puts its bindings (the examples' targetSecrets) in the project.
    std::vector<std::string> sim_flags = {"--create-seconds", std::to_string(o.create_seconds),
                                          "--project", k_project};
    if (kyma)
        sim_flags.insert(sim_flags.end(),
                         {"--kyma-component-seconds", std::to_string(o.kyma_component_seconds)});
    if (klm)
        sim_flags.insert(sim_flags.end(),
                         {"--klm-module-seconds", std::to_string(o.klm_module_seconds)});
    if (kyma || klm) // every runtime's installation is watched: one sim thread per open watch
        sim_flags.insert(sim_flags.end(),
                         {"--threads", std::to_string(std::max(64, 2 * o.runtimes + 32))});
    SimProcess sim(o.sim, sim_flags);
    const std::filesystem::path dir = sim.dir.path();
    std::string store_url;
    if (o.store == "sqlite") {
        store_url = "sqlite://" + (dir / "bench.db").string();
    } else {
        store_url = o.store; // a postgres:// URL of an empty database
    }
    auto env = kprov_env(o, store_url, sim.kubeconfig.string(), dir.string());
    env.push_back("KPROV_KYMA_RELEASES_URL=" + sim.url + "/sim/kyma-releases");
    if (klm) {
        env.push_back("KPROV_KYMA_INSTALLER=lifecycle-manager");
        env.push_back("KPROV_KCP_KUBECONFIG_PATH=" + sim.kcp_kubeconfig.string());
    } else if (kyma) {
        env.push_back("KPROV_KYMA_INSTALLER=installation-cr"); // Kyma 1.x: not the default
    }

    {
        ChildProcess migrate({o.kprov, "migrate"}, env, (dir / "migrate.out").string(),
                             (dir / "migrate.err").string());
        if (migrate.wait() != 0)
            throw std::runtime_error("kprov migrate failed: see " + (dir / "migrate.err").string());
    }

    // The submitting side: the engine service, as `kprov provision` runs it.
    std::map<std::string, std::string> env_map;
    for (const auto& e : env)
        env_map[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    kprov::config::Sources sources;
    sources.getenv = [&](const std::string& name) -> std::optional<std::string> {
        const auto it = env_map.find(name);
        return it == env_map.end() ? std::nullopt : std::optional(it->second);
    };
    const auto effective = kprov::config::load(sources);
    kprov::stores::OpenOptions store_options;
    store_options.secret_key = effective.settings.database.secret_key;
    store_options.schema = kprov::stores::SchemaCheck::Require;
    auto store = kprov::stores::open_store(store_url, store_options);
    auto client = std::make_shared<kprov::gardener::GardenerClient>(
        kprov::gardener::load_kubeconfig(sim.kubeconfig.string()), k_project,
        kprov::gardener::ClientOptions{});
    kprov::gardener::GardenerShootClient shoots(client);
    kprov::SystemClock clock;
    auto engine_options = kprov::config::engine_options(effective.settings);
    kprov::gardener::InstallationCrInstaller installer;
    kprov::gardener::ReleaseSourceOptions release_options;
    release_options.releases_url = effective.settings.kyma_releases_url;
    release_options.on_demand_url = effective.settings.kyma_releases_url;
    kprov::gardener::HttpReleaseSource releases(release_options);
    // Every provisioning is checked against the sim's landscape (issue 31), read once a minute.
    kprov::gardener::GardenerLandscape landscape_port(
        [&]() -> kprov::gardener::GardenerClient& { return *client; });
    kprov::engine::CachedLandscape landscape(landscape_port, clock, std::chrono::seconds(60));
    kprov::engine::EnginePorts ports;
    ports.store = store.get();
    ports.shoots = &shoots;
    ports.clock = &clock;
    ports.landscape = &landscape;
    // The ports the settings ask for (engine::check_ports): with KLM the service only checks
    // the kymaConfig and records its channel, but the KCP client must be there.
    std::unique_ptr<kprov::engine::KymaLifecycleManager> kcp_client;
    if (klm) {
        kcp_client = kprov::app::open_kcp(effective.settings);
        ports.lifecycle_manager = kcp_client.get();
    } else if (kyma) {
        ports.kyma_installer = &installer;
        ports.releases = &releases;
    }
    kprov::engine::EngineService service(ports, engine_options);

    Json base = kprov::cli::read_runtime_file(o.runtime_file);
    if (kyma)
        base["kymaConfig"] = kyma_config();
    if (klm)
        base["kymaConfig"] = klm_kyma_config();
    std::vector<kprov::engine::ProvisionInput> inputs;
    for (int i = 0; i < o.runtimes; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "b%05d", i);
        inputs.push_back(kprov::engine::read_provision_input(
            renamed(base, name), kprov::config::conversion_options(effective.settings)));
    }

    ChildProcess watch({o.kprov, "watch", "--workers", std::to_string(o.workers)}, env,
                       (dir / "watch.out").string(), (dir / "watch.err").string());
    std::this_thread::sleep_for(500ms); // let it start its watch and go idle

    const double watch_cpu_before = cpu_seconds(watch.pid());
    const double sim_cpu_before = cpu_seconds(sim.pid());
    const auto t0 = SteadyClock::now();
    std::map<std::string, std::string> shoot_of;   // operation id -> shoot name
    std::map<std::string, std::string> runtime_of; // operation id -> runtime id
    {
        std::mutex mutex;
        std::vector<std::jthread> submitters;
        for (int t = 0; t < o.submitters; ++t)
            submitters.emplace_back([&, t] {
                for (std::size_t i = static_cast<std::size_t>(t); i < inputs.size();
                     i += static_cast<std::size_t>(o.submitters)) {
                    const auto started = service.provision(inputs[i], {"bench-tenant", ""});
                    std::lock_guard lock(mutex);
                    shoot_of[started.operation.id] = inputs[i].gardener.name;
                    runtime_of[started.operation.id] = started.runtime_id;
                }
            });
    }
    const double submit_seconds = std::chrono::duration<double>(SteadyClock::now() - t0).count();

    // Until nothing is in progress (or ten minutes pass).
    int in_progress = 0;
    do {
        std::this_thread::sleep_for(20ms);
        in_progress = 0;
        for (const auto& [type, n] : store->count_in_progress())
            in_progress += n;
    } while (in_progress > 0 && SteadyClock::now() - t0 < 10min);
    const double wall = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    const double watch_cpu = cpu_seconds(watch.pid()) - watch_cpu_before;
    const double sim_cpu = cpu_seconds(sim.pid()) - sim_cpu_before;
    watch.signal(SIGTERM);
    watch.wait();

    // Per operation: end time in the store against the sim's end of the shoot's creation.
    std::map<std::string, std::int64_t> created_at_ms;
    const Json sim_shoots = http_get(sim.url + "/sim/shoots");
    if (std::getenv("KPROV_BENCH_DEBUG"))
        std::cerr << sim_shoots.dump(1).substr(0, 2000) << "\n";
    for (const auto& s : sim_shoots["shoots"])
        if (s.contains("lastSucceeded"))
            created_at_ms[s["name"].get<std::string>()] = s["lastSucceeded"]["atUnixMs"];
    int succeeded = 0, failed = 0;
    long long claims = 0; // passes, as the workers' claims counted them
    std::vector<double> delays_ms;
    std::map<std::string, std::vector<double>> stage_ms; // time spent in each stage
    std::ofstream timeline;
    if (!o.timeline_out.empty()) {
        timeline.open(o.timeline_out);
        timeline << "shoot,shoot_finished,stage,at\n";
    }
    auto epoch_ms = [](kprov::Timestamp t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    };
    for (const auto& [op_id, shoot] : shoot_of) {
        const auto transitions = store->transitions_of(op_id);
        if (timeline.is_open())
            for (const auto& t : transitions)
                timeline << shoot << ',' << created_at_ms[shoot] << ',' << t.to_stage << '/'
                         << kprov::engine::to_db(t.state) << ',' << epoch_ms(t.at) << '\n';
        for (std::size_t i = 0; i + 1 < transitions.size(); ++i)
            stage_ms[transitions[i].to_stage].push_back(
                std::chrono::duration<double, std::milli>(transitions[i + 1].at - transitions[i].at)
                    .count());
        const auto op = store->find_operation(op_id);
        if (op)
            claims += op->attempts;
        if (!op || op->state != kprov::engine::OperationState::Succeeded) {
            ++failed;
            continue;
        }
        ++succeeded;
        const auto it = created_at_ms.find(shoot);
        if (it == created_at_ms.end() || !op->end_timestamp)
            continue;
        const auto end_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                op->end_timestamp->time_since_epoch())
                                .count();
        delays_ms.push_back(static_cast<double>(end_ms - it->second));
    }
    // --kyma: per runtime, when kprov left WaitingForInstallation after the sim's installer
    // wrote Installed (its history of the CR, to the millisecond).
    std::vector<double> installed_delays_ms;
    if (kyma)
        for (const auto& [op_id, shoot] : shoot_of) {
            const Json installer_state =
                http_get(sim.url + "/sim/clusters/shoot--" + k_project + "--" + shoot + "/kyma");
            std::optional<std::int64_t> installed_at;
            for (const auto& h : installer_state["history"])
                if (h["by"] == "installer" && h["state"] == "Installed")
                    installed_at = h["atUnixMs"].get<std::int64_t>();
            for (const auto& t : store->transitions_of(op_id))
                if (installed_at && t.from_stage == "WaitingForInstallation" &&
                    t.to_stage != "WaitingForInstallation") {
                    installed_delays_ms.push_back(
                        static_cast<double>(epoch_ms(t.at) - *installed_at));
                    break;
                }
        }
    // --klm: per runtime, when kprov left WaitingForKymaReady after the sim's KLM first set the
    // Kyma Ready (readyAtUnixMs, to the millisecond).
    std::vector<double> ready_delays_ms;
    if (klm) {
        std::map<std::string, std::int64_t> ready_at_ms;         // Kyma name -> readyAtUnixMs
        const Json kymas = http_get(sim.url + "/sim/kcp/kymas"); // not a temporary: we iterate it
        for (const auto& k : kymas["kymas"])
            if (k.contains("readyAtUnixMs") && k["readyAtUnixMs"].is_number())
                ready_at_ms[k["name"].get<std::string>()] = k["readyAtUnixMs"].get<std::int64_t>();
        for (const auto& [op_id, runtime_id] : runtime_of) {
            const auto it = ready_at_ms.find(kprov::engine::kyma_name_of(runtime_id));
            if (it == ready_at_ms.end())
                continue;
            for (const auto& t : store->transitions_of(op_id))
                if (t.from_stage == "WaitingForKymaReady" && t.to_stage != "WaitingForKymaReady") {
                    ready_delays_ms.push_back(static_cast<double>(epoch_ms(t.at) - it->second));
                    break;
                }
        }
    }
    Json stages = Json::object();
    for (const auto& [stage, v] : stage_ms)
        stages[stage] = {{"p50", percentile(v, 0.5)}, {"p99", percentile(v, 0.99)}};

    if (std::getenv("KPROV_BENCH_DEBUG"))
        std::filesystem::copy_file(dir / "watch.err", "/tmp/kprov-bench-watch.err",
                                   std::filesystem::copy_options::overwrite_existing);
    const Json stats = http_get(sim.url + "/sim/stats");
    std::int64_t gardener = 0, watches = 0, clusters = 0, kcp = 0, other = 0;
    Json by_path = Json::object();
    for (const auto& [key, n] : stats["requests"].items()) {
        const std::int64_t count = n.get<std::int64_t>();
        by_path[key] = static_cast<double>(count) / o.runtimes;
        if (key.rfind("WATCH ", 0) == 0)
            watches += count;
        else if (key.find("/apis/core.gardener.cloud/") != std::string::npos &&
                 key != "GET /apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots")
            gardener += count; // the watch's own lists excluded, like its streams
        else if (key.find("/clusters/") != std::string::npos)
            clusters += count;
        else if (key.find(" /kcp/") != std::string::npos)
            kcp += count;
        else
            other += count;
    }

    Json report = {
        {"runtimes", o.runtimes},
        {"workers", o.workers},
        {"gardenerQps", o.qps},
        {"submitters", o.submitters},
        {"store", o.store == "sqlite" ? "sqlite" : "postgres"},
        {"createSeconds", o.create_seconds},
        {"succeeded", succeeded},
        {"failed", failed},
        {"submitSeconds", submit_seconds},
        {"wallSeconds", wall},
        {"operationsPerSecond", succeeded / wall},
        {"detectionDelayMs",
         {{"p50", percentile(delays_ms, 0.5)},
          {"p99", percentile(delays_ms, 0.99)},
          {"max", percentile(delays_ms, 1.0)},
          {"samples", delays_ms.size()}}},
        {"stageMs", stages},
        {"kymaComponentSeconds", o.kyma_component_seconds},
        {"installedDelayMs",
         {{"p50", percentile(installed_delays_ms, 0.5)},
          {"p99", percentile(installed_delays_ms, 0.99)},
          {"max", percentile(installed_delays_ms, 1.0)},
          {"samples", installed_delays_ms.size()}}},
        {"klmModuleSeconds", o.klm_module_seconds},
        {"kymaReadyDelayMs",
         {{"p50", percentile(ready_delays_ms, 0.5)},
          {"p99", percentile(ready_delays_ms, 0.99)},
          {"max", percentile(ready_delays_ms, 1.0)},
          {"samples", ready_delays_ms.size()}}},
        {"kcpRequestsPerRuntime", static_cast<double>(kcp) / o.runtimes},
        {"passesPerRuntime", static_cast<double>(claims) / o.runtimes},
        {"cpuMsPerRuntime",
         {{"kprovWatch", 1000 * watch_cpu / o.runtimes},
          {"kprovSim", 1000 * sim_cpu / o.runtimes}}},
        {"gardenerRequestsPerRuntime", static_cast<double>(gardener) / o.runtimes},
        {"runtimeClusterRequestsPerRuntime", static_cast<double>(clusters) / o.runtimes},
        {"watchStreams", watches},
        {"otherRequests", other},
        {"requestsPerRuntimeByPath", by_path},
    };
    std::cout << report.dump(2) << "\n";
    if (!o.json_out.empty())
        std::ofstream(o.json_out) << report.dump(2) << "\n";
    if (failed > 0)
        std::cerr << "kprov-bench-provision: " << failed << " operations did not succeed; see "
                  << (dir / "watch.err").string() << "\n";
    return failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{"Provisions many runtimes through kprov watch against kprov-sim and reports "
                 "throughput, detection delay and requests per runtime"};
    app.add_option("-n,--runtimes", o.runtimes, "How many runtimes")->check(CLI::Range(1, 100000));
    app.add_option("--workers", o.workers, "kprov watch --workers")->check(CLI::Range(1, 256));
    app.add_option("--submitters", o.submitters, "Threads starting the provisionings")
        ->check(CLI::Range(1, 64));
    app.add_option("--qps", o.qps,
                   "kprov's client-side rate limit on Gardener requests (KPROV_GARDENER_QPS; "
                   "burst twice that)");
    app.add_option("--create-seconds", o.create_seconds, "The sim's shoot creation time");
    app.add_option("--store", o.store,
                   "sqlite (a new file), or a postgres:// URL of an empty "
                   "database");
    app.add_option("--kprov", o.kprov, "The kprov binary");
    app.add_option("--sim", o.sim, "The kprov-sim binary");
    app.add_option("-f,--file", o.runtime_file, "The runtime file each runtime copies");
    app.add_option("--json", o.json_out, "Also write the report to this file");
    app.add_option("--kyma", o.kyma_component_seconds,
                   "Install Kyma on every runtime: five components of S seconds each in the sim")
        ->type_name("S");
    app.add_option("--klm", o.klm_module_seconds,
                   "Install Kyma on every runtime through the sim's Kyma Lifecycle Manager: five "
                   "modules, each Ready S seconds after it saw them")
        ->type_name("S");
    app.add_option("--timeline", o.timeline_out,
                   "Write every stage transition as CSV (shoot, the sim's end of its creation, "
                   "stage/state, time; times in ms since the epoch)");
    CLI11_PARSE(app, argc, argv);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::cerr << "kprov-bench-provision: " << e.what() << "\n";
        return 1;
    }
}
