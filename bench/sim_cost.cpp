// kprov-bench-sim: kprov-sim's cost per request against N existing shoots and runtime clusters
// (bench/README.md, "kprov-sim alone"). Starts the kprov-sim binary, creates N shoots and waits
// for their clusters, then sends a fixed mix of requests to random shoots and clusters and
// divides the sim process's CPU time (/proc/<pid>/stat) by the requests sent. The best of
// several rounds per N is kept, so a noisy neighbour inflates no figure.
//
// --guard RATIO (the CI test sim.cost_ratio) fails, exit 1, when the cost at the largest N
// exceeds RATIO times the cost at the smallest: the sim's cost must not grow with N.

#include "net/base64.hpp"
#include "support/aws_shoot.hpp"
#include "support/sim_process.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

using Json = nlohmann::json;
using Steady = std::chrono::steady_clock;

const char* const k_ns = "garden-dev";
const char* const k_token = "kprov-bench-sim";

// CPU seconds (user + system) the process has used so far.
double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')'); // the command name may hold spaces
    if (close == std::string::npos)
        throw std::runtime_error("cannot read /proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0;
    unsigned long long stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14)
            utime = std::stoull(field);
        if (i == 15)
            stime = std::stoull(field);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string shoot_name(std::size_t i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "b%05zu", i);
    return buf;
}

std::string shoot_body(const std::string& name) {
    kprov::testing::AwsShootOptions options;
    options.kubernetes_version = "1.34";
    options.auto_update_kubernetes = false;
    return kprov::testing::aws_shoot(name, k_ns, options).dump();
}

class Client {
public:
    explicit Client(const std::string& url)
        : m_http(url) {
        m_http.set_keep_alive(true);
        m_http.set_tcp_nodelay(true); // else Nagle and delayed ACKs pace the requests
        m_http.set_read_timeout(60, 0);
    }
    /// Sends one request; throws unless the status is `expected`.
    std::string send(const std::string& method, const std::string& path, const std::string& token,
                     const std::string& body = "", const std::string& type = "application/json",
                     int expected = 200) {
        httplib::Headers headers = {{"Authorization", "Bearer " + token}};
        httplib::Result r = method == "GET"      ? m_http.Get(path, headers)
                            : method == "DELETE" ? m_http.Delete(path, headers)
                            : method == "PATCH"  ? m_http.Patch(path, headers, body, type)
                                                 : m_http.Post(path, headers, body, type);
        if (!r)
            throw std::runtime_error(method + " " + path + ": no answer");
        if (r->status != expected && !(expected == 200 && r->status == 201))
            throw std::runtime_error(method + " " + path + ": " + std::to_string(r->status) + " " +
                                     r->body.substr(0, 300));
        ++requests;
        return r->body;
    }
    std::size_t requests = 0;

private:
    httplib::Client m_http;
};

std::string shoot_path(const std::string& name = "") {
    return std::string("/apis/core.gardener.cloud/v1beta1/namespaces/") + k_ns + "/shoots" +
           (name.empty() ? "" : "/" + name);
}

// Creates shoots [from, to) and waits until the sim has a runtime cluster for each.
void populate(Client& c, std::size_t from, std::size_t to, double timeout_seconds) {
    for (std::size_t i = from; i < to; ++i)
        c.send("POST", shoot_path(), k_token, shoot_body(shoot_name(i)));
    const auto until = Steady::now() + std::chrono::duration<double>(timeout_seconds);
    while (true) {
        Json clusters = Json::parse(c.send("GET", "/sim/clusters", k_token));
        if (clusters["clusters"].size() >= to)
            return;
        if (Steady::now() > until)
            throw std::runtime_error("the sim made " + std::to_string(clusters["clusters"].size()) +
                                     " of " + std::to_string(to) + " clusters in time");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

// What kprov does per runtime, against shoot `name` and its cluster: read the shoot, get an
// admin kubeconfig, write, read and delete an object in the cluster, label the shoot.
void unit(Client& c, const std::string& name, std::size_t serial) {
    c.send("GET", shoot_path(name), k_token);
    Json kc =
        Json::parse(c.send("POST", shoot_path(name) + "/adminkubeconfig", k_token,
                           R"({"apiVersion":"authentication.gardener.cloud/v1alpha1",)"
                           R"("kind":"AdminKubeconfigRequest","spec":{"expirationSeconds":600}})",
                           "application/json", 201));
    const std::string yaml =
        kprov::net::base64_decode(kc["status"]["kubeconfig"].get<std::string>()).value_or("");
    auto field = [&](const std::string& key) {
        auto at = yaml.find(key + ": ");
        if (at == std::string::npos)
            throw std::runtime_error("no " + key + " in the admin kubeconfig");
        at += key.size() + 2;
        std::string v = yaml.substr(at, yaml.find('\n', at) - at);
        if (v.size() >= 2 && v.front() == '"')
            v = v.substr(1, v.size() - 2);
        return v;
    };
    const std::string server = field("server");
    const std::string cluster = server.substr(server.find("/clusters/"));
    const std::string token = field("token");
    const std::string crbs = cluster + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    const std::string crb = "bench-" + std::to_string(serial);
    c.send("POST", crbs, token,
           Json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "ClusterRoleBinding"},
                {"metadata", {{"name", crb}}},
                {"roleRef",
                 {{"apiGroup", "rbac.authorization.k8s.io"},
                  {"kind", "ClusterRole"},
                  {"name", "cluster-admin"}}},
                {"subjects", Json::array({{{"kind", "User"},
                                           {"name", "admin@example.com"},
                                           {"apiGroup", "rbac.authorization.k8s.io"}}})}}
               .dump());
    c.send("GET", crbs + "/" + crb, token);
    c.send("DELETE", crbs + "/" + crb, token);
    c.send("PATCH", shoot_path(name), k_token,
           Json{{"metadata", {{"labels", {{"bench", std::to_string(serial % 7)}}}}}}.dump(),
           "application/merge-patch+json");
}

struct Figure {
    std::size_t n = 0;
    std::size_t requests = 0;
    double cpu_us_per_request = 0;
    double requests_per_second = 0;
};

// One round: units until the sim used `min_cpu` seconds of CPU (and at least 50 units).
Figure measure(Client& c, pid_t pid, std::size_t n, double min_cpu, std::mt19937& rng,
               std::size_t& serial) {
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    const std::size_t before = c.requests;
    const double cpu0 = cpu_seconds(pid);
    const auto t0 = Steady::now();
    std::size_t units = 0;
    while (units < 50 || cpu_seconds(pid) - cpu0 < min_cpu) {
        for (int i = 0; i < 10; ++i, ++units)
            unit(c, shoot_name(pick(rng)), ++serial);
    }
    const double cpu = cpu_seconds(pid) - cpu0;
    const double wall = std::chrono::duration<double>(Steady::now() - t0).count();
    Figure f;
    f.n = n;
    f.requests = c.requests - before;
    f.cpu_us_per_request = cpu * 1e6 / static_cast<double>(f.requests);
    f.requests_per_second = static_cast<double>(f.requests) / wall;
    return f;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"kprov-sim's CPU per request against N existing shoots and clusters"};
    std::string sim = KPROV_SIM_BINARY;
    std::vector<std::size_t> sizes = {100, 1000, 10000};
    int rounds = 3;
    double min_cpu = 1.0;
    double guard = 0;
    std::string json_out;
    app.add_option("--sim", sim, "The kprov-sim binary");
    app.add_option("--sizes", sizes, "Numbers of shoots and clusters, ascending")->delimiter(',');
    app.add_option("--rounds", rounds, "Rounds per size; the cheapest counts")
        ->check(CLI::Range(1, 20));
    app.add_option("--min-cpu-seconds", min_cpu, "The sim's CPU time per round")
        ->check(CLI::Range(0.05, 60.0));
    app.add_option("--guard", guard,
                   "Fail when the cost at the largest size exceeds this times the smallest's");
    app.add_option("--json", json_out, "Also write the figures here");
    CLI11_PARSE(app, argc, argv);
    if (sizes.empty() || !std::is_sorted(sizes.begin(), sizes.end()) || sizes.front() == 0) {
        std::fprintf(stderr, "kprov-bench-sim: error: --sizes must be ascending and positive\n");
        return 2;
    }
    try {
        kprov::testing::SimProcess proc(sim, {"--create-seconds", "0.05", "--token", k_token,
                                              "--project", "dev", "--threads", "8"});
        Client c(proc.url);
        std::mt19937 rng(42);
        std::size_t serial = 0;
        std::size_t made = 0;
        Json out = Json::array();
        std::vector<Figure> best;
        std::printf("%8s %10s %16s %14s\n", "N", "requests", "sim CPU/request", "requests/s");
        for (std::size_t n : sizes) {
            populate(c, made, n, 120 + static_cast<double>(n) / 20);
            made = n;
            Figure b;
            for (int r = 0; r < rounds; ++r) {
                Figure f = measure(c, proc.pid(), n, min_cpu, rng, serial);
                if (r == 0 || f.cpu_us_per_request < b.cpu_us_per_request)
                    b = f;
            }
            best.push_back(b);
            std::printf("%8zu %10zu %13.1f us %14.0f\n", b.n, b.requests, b.cpu_us_per_request,
                        b.requests_per_second);
            std::fflush(stdout);
            out.push_back({{"n", b.n},
                           {"requests", b.requests},
                           {"simCpuMicrosecondsPerRequest", b.cpu_us_per_request},
                           {"requestsPerSecond", b.requests_per_second}});
        }
        if (!json_out.empty())
            std::ofstream(json_out) << out.dump(2) << "\n";
        const double ratio = best.back().cpu_us_per_request / best.front().cpu_us_per_request;
        std::printf("cost at N=%zu / cost at N=%zu: %.2f\n", best.back().n, best.front().n, ratio);
        if (guard > 0 && ratio > guard) {
            std::fprintf(stderr,
                         "kprov-bench-sim: error: kprov-sim's CPU per request grows with the "
                         "number of clusters, %.2f times at N=%zu what it is at N=%zu, expected "
                         "at most %.2f\n",
                         ratio, best.back().n, best.front().n, guard);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kprov-bench-sim: error: %s\n", e.what());
        return 2;
    }
    return 0;
}
