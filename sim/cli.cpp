#include "cli.hpp"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <pthread.h>
#include <sys/stat.h>

namespace kprov::sim {

namespace {

double to_double(const std::string& flag, const std::string& v, double min, double max) {
    try {
        std::size_t used = 0;
        double d = std::stod(v, &used);
        if (used == v.size() && d >= min && d <= max)
            return d;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(flag + " " + "\"" + v + "\": expected a number from " +
                                std::to_string(min) + " to " + std::to_string(max));
}

long long to_int(const std::string& flag, const std::string& v, long long min, long long max) {
    try {
        std::size_t used = 0;
        long long n = std::stoll(v, &used);
        if (used == v.size() && n >= min && n <= max)
            return n;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(flag + " \"" + v + "\": expected a whole number from " +
                                std::to_string(min) + " to " + std::to_string(max));
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out)
        throw std::runtime_error("cannot write " + path);
    chmod(path.c_str(), mode);
}

} // namespace

std::string usage() {
    return R"(Usage: kprov-sim [flags]

A stand-in for Gardener, the runtime clusters and Compass Director on one port, for kprov's
tests, demos and CI. Prints its URL as the first line of stdout; stops on SIGINT/SIGTERM.

  --listen HOST:PORT            address to serve on (default 127.0.0.1:0, any free port)
  --kubeconfig-out FILE         write a kubeconfig for the Gardener API (token auth)
  --project NAME                the kubeconfig's namespace is garden-NAME; the default
                                landscape's credentials bindings live there
  --landscape FILE              load CloudProfiles, NamespacedCloudProfiles, CredentialsBindings,
                                SecretBindings and Secrets (YAML or JSON, several documents or a
                                List) at start; one of the same kind, namespace and name as a
                                default object replaces it; repeatable
  --no-default-landscape        start without the default landscape (profiles aws, az, gcp,
                                converged-cloud-kyma and the <provider>-kyma-dev bindings)
  --create-seconds S            duration of a Create operation (default 5; fractions allowed)
  --reconcile-seconds S         duration of a Reconcile after a spec change (default 3)
  --delete-seconds S            duration of a Delete operation (default 3)
  --hibernate-seconds S         duration of hibernating or waking up (default 3)
  --kyma-component-seconds S    how long the simulated Kyma installer takes per component
                                (default 1; fractions allowed)
  --kyma-backoff-factor F       installer retries wait 10, 20, 40, 60, 80 s times F
                                (default: kyma-component-seconds / 10)
  --kcp-kubeconfig-out FILE     write a kubeconfig for the KCP cluster API (<url>/kcp)
  --kcp-token T                 the KCP cluster API's bearer token (default: generated)
  --klm-module-seconds S        how long the simulated Kyma Lifecycle Manager takes to make a
                                module Ready, and to remove a Kyma's modules (default 1)
  --token T                     the Gardener API's bearer token (default: generated)
  --tls                         serve HTTPS with a CA and certificate generated at start
  --ca-out FILE                 write the CA certificate (PEM), with --tls
  --client-cert-out PREFIX      write PREFIX.crt and PREFIX.key, a client certificate signed by
                                the CA (certificate authentication), with --tls
  --fail-rate P                 fraction of API requests answered 500 or 503 (default 0)
  --latency-ms N                delay every API request by N milliseconds (default 0)
  --seed NAME                   the seed shoots are scheduled to (default sim-seed)
  --seed-provider TYPE          the seed's spec.provider.type (default aws)
  --seed-region REGION          the seed's spec.provider.region (default eu-central-1)
  --dns-suffix DOMAIN           default shoot domain <shoot>.<project>.DOMAIN (default sim.kprov.local)
  --director-client-id ID       OAuth2 client id Director accepts (default kprov-sim-client)
  --director-client-secret S    OAuth2 client secret (default kprov-sim-secret)
  --director-token-seconds S    lifetime of Director access tokens (default 3600)
  --watch-history N             watch events kept for resuming; older versions get 410 (default 1000)
  --bookmark-seconds S          interval of BOOKMARK events when asked for (default 5)
  --watch-timeout-seconds S     longest watch before the server ends it (default 1800)
  --watch-410-as-event          answer a too-old watch with an ERROR event, not HTTP 410
  --threads N                   HTTP worker threads; each open watch holds one (default 64)
  --random-seed N               seed of the fault-injection randomness (default: the clock)
  --help, --version
)";
}

CliOptions parse_cli(const std::vector<std::string>& args) {
    CliOptions o;
    SimOptions& s = o.sim;
    using Setter = std::function<void(const std::string& flag, const std::string& value)>;
    const std::map<std::string, Setter> with_value = {
        {"--listen",
         [&](const std::string& f, const std::string& v) {
             std::size_t colon = v.rfind(':');
             if (colon == std::string::npos)
                 throw std::invalid_argument(f + " \"" + v + "\": expected HOST:PORT");
             s.host = v.substr(0, colon);
             if (s.host.size() > 2 && s.host.front() == '[' && s.host.back() == ']')
                 s.host = s.host.substr(1, s.host.size() - 2);
             s.port = static_cast<int>(to_int(f, v.substr(colon + 1), 0, 65535));
         }},
        {"--kubeconfig-out",
         [&](const std::string&, const std::string& v) {
             o.kubeconfig_out = v;
         }},
        {"--kcp-kubeconfig-out",
         [&](const std::string&, const std::string& v) {
             o.kcp_kubeconfig_out = v;
         }},
        {"--kcp-token",
         [&](const std::string& f, const std::string& v) {
             if (v.empty())
                 throw std::invalid_argument(f + ": the token must not be empty");
             s.kcp_token = v;
         }},
        {"--klm-module-seconds",
         [&](const std::string& f, const std::string& v) {
             s.klm.module_seconds = to_double(f, v, 0, 86400);
         }},
        {"--project",
         [&](const std::string&, const std::string& v) {
             s.project = v;
         }},
        {"--landscape",
         [&](const std::string& f, const std::string& v) {
             if (v.empty())
                 throw std::invalid_argument(f + ": expected a file name");
             s.landscape_files.push_back(v);
         }},
        {"--create-seconds",
         [&](const std::string& f, const std::string& v) {
             s.lifecycle.create_seconds = to_double(f, v, 0, 86400);
         }},
        {"--reconcile-seconds",
         [&](const std::string& f, const std::string& v) {
             s.lifecycle.reconcile_seconds = to_double(f, v, 0, 86400);
         }},
        {"--delete-seconds",
         [&](const std::string& f, const std::string& v) {
             s.lifecycle.delete_seconds = to_double(f, v, 0, 86400);
         }},
        {"--hibernate-seconds",
         [&](const std::string& f, const std::string& v) {
             s.lifecycle.hibernate_seconds = to_double(f, v, 0, 86400);
         }},
        {"--kyma-component-seconds",
         [&](const std::string& f, const std::string& v) {
             s.kyma.component_seconds = to_double(f, v, 0, 86400);
         }},
        {"--kyma-backoff-factor",
         [&](const std::string& f, const std::string& v) {
             s.kyma.backoff_factor = to_double(f, v, 0, 1000);
         }},
        {"--token",
         [&](const std::string& f, const std::string& v) {
             if (v.empty())
                 throw std::invalid_argument(f + ": the token must not be empty");
             s.token = v;
         }},
        {"--ca-out",
         [&](const std::string&, const std::string& v) {
             o.ca_out = v;
         }},
        {"--client-cert-out",
         [&](const std::string&, const std::string& v) {
             o.client_cert_out = v;
         }},
        {"--fail-rate",
         [&](const std::string& f, const std::string& v) {
             s.fail_rate = to_double(f, v, 0, 1);
         }},
        {"--latency-ms",
         [&](const std::string& f, const std::string& v) {
             s.latency_ms = static_cast<int>(to_int(f, v, 0, 600000));
         }},
        {"--seed",
         [&](const std::string&, const std::string& v) {
             s.lifecycle.seed = v;
         }},
        {"--seed-provider",
         [&](const std::string&, const std::string& v) {
             s.seed_provider = v;
         }},
        {"--seed-region",
         [&](const std::string&, const std::string& v) {
             s.seed_region = v;
         }},
        {"--dns-suffix",
         [&](const std::string&, const std::string& v) {
             s.lifecycle.dns_suffix = v;
         }},
        {"--director-client-id",
         [&](const std::string&, const std::string& v) {
             s.director.client_id = v;
         }},
        {"--director-client-secret",
         [&](const std::string&, const std::string& v) {
             s.director.client_secret = v;
         }},
        {"--director-token-seconds",
         [&](const std::string& f, const std::string& v) {
             s.director.token_seconds = to_double(f, v, 1, 864000);
         }},
        {"--watch-history",
         [&](const std::string& f, const std::string& v) {
             s.watch_history = static_cast<std::size_t>(to_int(f, v, 1, 10000000));
         }},
        {"--bookmark-seconds",
         [&](const std::string& f, const std::string& v) {
             s.bookmark_seconds = to_double(f, v, 0.01, 86400);
         }},
        {"--watch-timeout-seconds",
         [&](const std::string& f, const std::string& v) {
             s.watch_timeout_seconds = to_double(f, v, 0.01, 864000);
         }},
        {"--threads",
         [&](const std::string& f, const std::string& v) {
             s.threads = static_cast<int>(to_int(f, v, 4, 4096));
         }},
        {"--random-seed",
         [&](const std::string& f, const std::string& v) {
             s.random_seed = static_cast<std::uint64_t>(to_int(f, v, 0, 1LL << 62));
         }},
    };
    const std::map<std::string, std::function<void()>> switches = {
        {"--tls",
         [&] {
             s.tls = true;
         }},
        {"--watch-410-as-event",
         [&] {
             s.watch_expired_as_event = true;
         }},
        {"--no-default-landscape",
         [&] {
             s.default_landscape = false;
         }},
        {"--help",
         [&] {
             o.help = true;
         }},
        {"-h",
         [&] {
             o.help = true;
         }},
        {"--version",
         [&] {
             o.version = true;
         }},
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::optional<std::string> value;
        if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
        }
        if (auto sw = switches.find(flag); sw != switches.end() && !value) {
            sw->second();
            continue;
        }
        auto it = with_value.find(flag);
        if (it == with_value.end())
            throw std::invalid_argument("unknown flag \"" + args[i] + "\" (see --help)");
        if (!value) {
            if (i + 1 >= args.size())
                throw std::invalid_argument(flag + " needs a value");
            value = args[++i];
        }
        it->second(flag, *value);
    }
    if (!s.tls && (!o.client_cert_out.empty() || !o.ca_out.empty()))
        throw std::invalid_argument("--client-cert-out and --ca-out need --tls");
    return o;
}

int run_cli(int argc, char** argv) {
    CliOptions opts;
    try {
        opts = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::invalid_argument& e) {
        std::cerr << "kprov-sim: error: " << e.what() << "\n";
        return 2;
    }
    if (opts.help) {
        std::cout << usage();
        return 0;
    }
    if (opts.version) {
        std::cout << "kprov-sim 0.1.0\n";
        return 0;
    }
    // Block the stop signals in every thread (the server's threads inherit the mask) and take
    // them with sigwait below.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    Simulator sim(opts.sim);
    try {
        sim.start();
        if (!opts.kubeconfig_out.empty())
            write_file(opts.kubeconfig_out, sim.gardener_kubeconfig(), 0600);
        if (!opts.kcp_kubeconfig_out.empty())
            write_file(opts.kcp_kubeconfig_out, sim.kcp_kubeconfig(), 0600);
        if (!opts.ca_out.empty())
            write_file(opts.ca_out, sim.ca_pem(), 0644);
        if (!opts.client_cert_out.empty()) {
            CertPair client = sim.client_certificate("kprov-sim-admin");
            write_file(opts.client_cert_out + ".crt", client.cert_pem, 0644);
            write_file(opts.client_cert_out + ".key", client.key_pem, 0600);
        }
    } catch (const std::exception& e) {
        std::cerr << "kprov-sim: error: " << e.what() << "\n";
        return 1;
    }
    std::printf("%s\n", sim.url().c_str());
    std::fflush(stdout);
    std::cerr << "kprov-sim: serving the Gardener API, runtime clusters, the KCP and Director at "
              << sim.url() << " (seed " << opts.sim.lifecycle.seed
              << "); SIGINT or SIGTERM stops it\n";
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::cerr << "kprov-sim: stopping (signal " << sig << ")\n";
    sim.stop();
    return 0;
}

} // namespace kprov::sim
