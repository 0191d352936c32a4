#!/usr/bin/env bash
# Times `kprov list` and `kprov status` as whole processes (hyperfine) on a SQLite store holding
# RUNTIMES runtimes (default 100000) with 5 operations each. Results: bench/README.md, "list and
# status at 100,000 runtimes".
#
#   bench/list_status.sh [BUILD_DIR] [RUNTIMES]
#
# Seeding goes through the Store API (one transaction per write) and takes minutes, so the store
# is kept at $KPROV_BENCH_DB (default /dev/shm/kprov-bench-RUNTIMES.db) and reused by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNTIMES=${2:-100000}
KPROV=$BUILD/kprov
DB=${KPROV_BENCH_DB:-/dev/shm/kprov-bench-$RUNTIMES.db}
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 1; }
cmake --build "$BUILD" --target kprov kprov-bench-seed >/dev/null

if [ ! -s "$DB.id" ]; then
  rm -f "$DB" "$DB.key" "$DB-wal" "$DB-shm"
  echo "seeding $RUNTIMES runtimes into $DB ..." >&2
  "$BUILD/kprov-bench-seed" "sqlite://$DB" "$RUNTIMES" >"$DB.id.tmp"
  mv "$DB.id.tmp" "$DB.id"
fi
ID=$(cat "$DB.id")

# No user configuration may leak in.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export HOME=$SCRATCH XDG_CONFIG_HOME=$SCRATCH/config XDG_STATE_HOME=$SCRATCH/state
unset KPROV_STORE APP_DATABASE_HOST APP_DATABSE_HOST APP_DATABASE_SECRET_KEY
STORE="--store sqlite://$DB"

hyperfine -N --warmup 5 --runs "${RUNS:-100}" --export-markdown "$SCRATCH/results.md" \
  -n "list" "$KPROV list $STORE" \
  -n "status" "$KPROV status $ID $STORE" \
  -n "list -o json" "$KPROV list -o json $STORE" \
  -n "list --state Failed" "$KPROV list --state Failed $STORE" \
  -n "list -l team=team-7" "$KPROV list -l team=team-7 $STORE" \
  -n "status -o json" "$KPROV status $ID -o json $STORE" \
  -n "history" "$KPROV history $ID $STORE" \
  -n "version (process start)" "$KPROV version" >&2
cat "$SCRATCH/results.md"
