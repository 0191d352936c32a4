#!/usr/bin/env bash
# The Kyma benchmark (bench/README.md, "Installing Kyma"): bench/provision.sh with 100 runtimes
# that each get Kyma (five components of 0.2 s in kprov-sim's simulated installer), on SQLite and
# on a throwaway PostgreSQL. Beside the provisioning figures it reports how long after the sim's
# installer wrote Installed kprov left WaitingForInstallation (installedDelayMs), and the
# runtime-cluster requests per runtime. Extra arguments go to kprov-bench-provision.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=kyma exec bench/provision.sh -n 100 --kyma 0.2 "$@"
