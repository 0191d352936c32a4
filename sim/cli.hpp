#pragma once
// The kprov-sim command line: flag parsing and the run loop (start, write the kubeconfig and
// other files, print the URL as the first line of stdout, serve until SIGINT/SIGTERM).

#include "sim.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace kprov::sim {

struct CliOptions {
    SimOptions sim;
    std::string kubeconfig_out;     ///< --kubeconfig-out FILE
    std::string kcp_kubeconfig_out; ///< --kcp-kubeconfig-out FILE
    std::string client_cert_out;    ///< --client-cert-out PREFIX (PREFIX.crt, PREFIX.key)
    std::string ca_out;             ///< --ca-out FILE
    bool help = false;
    bool version = false;
};

/// Parses the arguments (without argv[0]); "--flag value" and "--flag=value" both work.
/// Throws std::invalid_argument with a message fit for the user.
CliOptions parse_cli(const std::vector<std::string>& args);

/// The --help text.
std::string usage();

/// Runs kprov-sim; returns the process exit code (0 after a clean stop, 1 on a start failure,
/// 2 on a usage error).
int run_cli(int argc, char** argv);

} // namespace kprov::sim
