#!/usr/bin/env bash
# The Kyma benchmark (bench/README.md, "Installing Kyma"): N runtimes (default 100) with Kyma
# (five components of 0.2 s in kprov-sim's simulated installer) through `kprov watch`, on SQLite
# and on a throwaway PostgreSQL. Reports, beside the provisioning figures, how long after the
# sim's installer wrote Installed kprov left WaitingForInstallation (installedDelayMs) and the
# runtime-cluster requests per runtime. Extra arguments go to kprov-bench-provision.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-release}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target kprov kprov-sim kprov-bench-provision
out=${BENCH_OUT:-bench/results}
mkdir -p "$out"

echo "== SQLite"
"$BUILD/kprov-bench-provision" -n 100 --kyma 0.2 --json "$out/kyma-sqlite.json" "$@"

echo "== PostgreSQL"
. tests/postgres.sh
trap pg_stop EXIT
pg_start >/dev/null
"$BUILD/kprov-bench-provision" -n 100 --kyma 0.2 --store "$KPROV_TEST_PG_URI" \
  --json "$out/kyma-postgres.json" "$@"
