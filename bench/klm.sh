#!/usr/bin/env bash
# The Kyma Lifecycle Manager benchmark (bench/README.md, "Installing Kyma through Kyma Lifecycle
# Manager"): bench/provision.sh with 100 runtimes that each get a Kyma of five modules, which
# kprov-sim's simulated KLM makes Ready 0.2 s after it first sees them, on SQLite and on a
# throwaway PostgreSQL. Beside the provisioning figures it reports how long after the sim's KLM
# set the Kyma Ready kprov left WaitingForKymaReady (kymaReadyDelayMs), and the KCP requests per
# runtime. Extra arguments go to kprov-bench-provision.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=klm exec bench/provision.sh -n 100 --klm 0.2 "$@"
