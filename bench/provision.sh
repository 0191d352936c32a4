#!/usr/bin/env bash
# The engine benchmark (bench/README.md, "Provisioning throughput"): N runtimes (default 1000)
# through `kprov watch` against kprov-sim with a 2 s shoot creation, on SQLite and on a
# throwaway PostgreSQL. Release build in build-release/. Extra arguments go to
# kprov-bench-provision (e.g. -n 200 --workers 16).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-release}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target kprov kprov-sim kprov-bench-provision
out=${BENCH_OUT:-bench/results}
name=${BENCH_NAME:-provision} # the results' file names: <name>-sqlite.json, <name>-postgres.json
mkdir -p "$out"

echo "== SQLite"
"$BUILD/kprov-bench-provision" --json "$out/$name-sqlite.json" "$@"

echo "== PostgreSQL"
. tests/postgres.sh
trap pg_stop EXIT
pg_start >/dev/null
"$BUILD/kprov-bench-provision" --store "$KPROV_TEST_PG_URI" --json "$out/$name-postgres.json" "$@"
