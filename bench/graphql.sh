#!/usr/bin/env bash
# GraphQL API throughput (bench/README.md, "GraphQL API"): requests per second and p99 latency
# of runtimeOperationStatus and runtimeStatus (without kubeconfig) with wrk against kprov serve
# over a store of RUNTIMES runtimes, beside the same wrk run against nginx serving a static file
# of the same size on the same machine.
#
# Each query runs against two serve processes over the same store: one as configured by
# default (answers kept while their runtime stands still, README "kprov serve"), one with
# KPROV_ANSWER_CACHE_MB=0, which parses, reads and executes every request.
#
#   bench/graphql.sh [BUILD_DIR]           (default: build)
# Environment: RUNTIMES (10000), DURATION (10s), CONNECTIONS (16), THREADS (2, wrk's),
#   TLS (0): 1 serves kprov and nginx over HTTPS (TLS 1.3, a throwaway EC P-256 certificate),
#   STORE_URL (default: a new SQLite file; a postgres:// URL must name an empty database),
#   WRITES (0): commits per second another process makes to a SQLite store during the runs
#   (bench/write_load.py), as running workers would.
# Needs: kprov, kprov-sim and kprov-bench-seed built in BUILD_DIR; wrk, nginx, sqlite3 or psql,
# curl (scripts/install-deps installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNTIMES=${RUNTIMES:-10000}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
WRITES=${WRITES:-0}
for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "graphql.sh: $tool is missing (scripts/install-deps)" >&2; exit 1; }
done
for bin in kprov kprov-sim kprov-bench-seed; do
  [ -x "$BUILD/$bin" ] || { echo "graphql.sh: $BUILD/$bin is not built" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/kprov-bench-graphql.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
export APP_DATABASE_SECRET_KEY=0123456789abcdef0123456789abcdef
STORE_URL=${STORE_URL:-sqlite://$WORK/kprov.db}
TLS=${TLS:-0}
SCHEME=http
if [ "$TLS" = 1 ]; then
  SCHEME=https
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  chmod 644 "$WORK/key.pem" "$WORK/cert.pem"
fi

# Waits for the first line of FILE that starts with PREFIX and prints the rest of it.
first_line() {
  local file=$1 prefix=$2 line
  for _ in $(seq 300); do
    line=$(grep -m1 "^$prefix" "$file" 2>/dev/null || true)
    [ -n "$line" ] && { echo "${line#"$prefix"}"; return 0; }
    sleep 0.1
  done
  echo "graphql.sh: no \"$prefix\" line in $file" >&2
  cat "$WORK"/*.log >&2 || true
  return 1
}

# 1. The store: RUNTIMES runtimes of two operations each, then every operation with its runtime
#    and the runtime's tenant, for the wrk script.
echo "seeding $RUNTIMES runtimes into ${STORE_URL%%\?*}" >&2
start=$(date +%s.%N)
"$BUILD/kprov-bench-seed" "$STORE_URL" "$RUNTIMES" 2 >/dev/null
seed_seconds=$(echo "$(date +%s.%N) - $start" | bc)
IDS_SQL="SELECT o.id, o.cluster_id, c.tenant FROM operation o JOIN cluster c ON c.id = o.cluster_id"
case "$STORE_URL" in
  sqlite://*) sqlite3 -separator ' ' "${STORE_URL#sqlite://}" "$IDS_SQL" >"$WORK/ids.txt" ;;
  *)
    psql -X -q -A -t -F ' ' "$STORE_URL" -c "$IDS_SQL" >"$WORK/ids.txt"
    # What an operator does after a bulk load: otherwise autovacuum finds the freshly seeded
    # tables during the measured runs and its work shows as 100-250 ms stalls in the p99.
    psql -X -q "$STORE_URL" -c "VACUUM ANALYZE"
    ;;
esac
echo "$(wc -l <"$WORK/ids.txt") operations seeded in ${seed_seconds}s" >&2

# 2. kprov-sim for the Gardener API, kprov serve over the store. Operations in progress stay
#    where they are (the seeded ones are not due for a year; no catch-up at start).
"$BUILD/kprov-sim" --listen 127.0.0.1:0 --kubeconfig-out "$WORK/garden.yaml" --project bench \
  >"$WORK/sim.out" 2>"$WORK/sim.log" &
PIDS+=($!)
first_line "$WORK/sim.out" "http" >/dev/null
# Starts kprov serve over the store, with KPROV_ANSWER_CACHE_MB=$2 when given (else kprov's
# default); sets SERVE_PID and API.
start_serve() {
  local name=$1 cache_mb=${2:-}
  local tls=()
  [ "$TLS" = 1 ] && tls=(KPROV_TLS_CERT="$WORK/cert.pem" KPROV_TLS_KEY="$WORK/key.pem")
  env "${tls[@]}" ${cache_mb:+KPROV_ANSWER_CACHE_MB=$cache_mb} APP_ENQUEUE_IN_PROGRESS_OPERATIONS=false \
  APP_RUNTIME_REGISTRATION_ENABLED=false APP_RUNTIME_DEREGISTRATION_ENABLED=false \
  XDG_CONFIG_HOME=$WORK/config \
    "$BUILD/kprov" serve --store "$STORE_URL" --gardener-kubeconfig "$WORK/garden.yaml" \
    --gardener-project bench --address 127.0.0.1:0 --metrics-address 127.0.0.1:0 \
    --log-level warn >"$WORK/$name.out" 2>"$WORK/$name.log" &
  SERVE_PID=$!
  PIDS+=($SERVE_PID)
  API=$(first_line "$WORK/$name.out" "api ")
}
start_serve serve-uncached 0
UNCACHED_PID=$SERVE_PID UNCACHED_API=$API
start_serve serve

# 3. A static file of the size of a runtimeStatus answer, served by nginx (one worker per core,
#    no access log, keep-alive as kprov's).
read -r op rt tenant < <(head -1 "$WORK/ids.txt")
sample=$(curl -sSk -H "Tenant: $tenant" -H 'Content-Type: application/json' \
  --data "{\"query\":\"query(\$id: String!) { runtimeStatus(id: \$id) { lastOperationStatus { id state } runtimeConfiguration { clusterConfig { name provider region machineType } } } }\",\"variables\":{\"id\":\"$rt\"}}" "$API")
case "$sample" in *'"errors"'*|'') echo "graphql.sh: kprov serve answered: $sample" >&2; exit 1 ;; esac
mkdir -p "$WORK/www"
chmod 755 "$WORK" "$WORK/www" # nginx's workers run as nobody when started as root
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 10000;
  client_body_temp_path $WORK/tmp;
  server {
    listen 127.0.0.1:$NGINX_PORT$([ "$TLS" = 1 ] && echo " ssl");
    $([ "$TLS" = 1 ] && echo "ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem; ssl_protocols TLSv1.2 TLSv1.3;")
    location / { root $WORK/www; default_type application/json; }
  }
}
CONF
mkdir -p "$WORK/tmp"
nginx -p "$WORK" -c "$WORK/nginx.conf" &
NGINX_PID=$!
PIDS+=($NGINX_PID)
sleep 0.5

# CPU time (clock ticks) the processes have used: what a request costs the server, whatever
# else the machine runs meanwhile.
cpu_ticks() {
  local total=0 pid
  for pid in "$@"; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

run_wrk() { # name, server pids, then wrk arguments; prints "name req/s p99 errors non2xx cpu"
  local name=$1 pids=$2; shift 2
  local before after requests rps p99 errors non2xx
  # shellcheck disable=SC2086
  before=$(cpu_ticks $pids)
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" >"$WORK/$name.wrk" 2>&1
  # shellcheck disable=SC2086
  after=$(cpu_ticks $pids)
  requests=$(awk '/requests in/ {print $1}' "$WORK/$name.wrk")
  rps=$(awk '/^Requests\/sec/ {print $2}' "$WORK/$name.wrk")
  p99=$(awk '$1 == "99%" {print $2}' "$WORK/$name.wrk")
  errors=$(awk -F': ' '/GraphQL answers with errors/ {print $2}' "$WORK/$name-check.wrk" \
    2>/dev/null || true)
  non2xx=$(awk '/Non-2xx/ {print $5}' "$WORK/$name.wrk")
  cpu_us=$(( (after - before) * 1000000 / $(getconf CLK_TCK) / requests ))
  printf '%s %s %s %s %s %s\n' "$name" "$rps" "$p99" "${errors:--}" "${non2xx:-0}" "$cpu_us"
}

# 4. Another process writing to the store meanwhile, when asked for.
if [ "$WRITES" != 0 ]; then
  case "$STORE_URL" in
    sqlite://*) ;;
    *) echo "graphql.sh: WRITES needs a SQLite store" >&2; exit 1 ;;
  esac
  python3 bench/write_load.py "${STORE_URL#sqlite://}" "$WRITES" &
  PIDS+=($!)
fi

# 5. The runs: the two queries on each serve, kprov's /healthz (HTTP alone), nginx's static
#    file.
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "$sample" >"$WORK/www/status.json"
  chmod 644 "$WORK/www/status.json"
  for serve in "" uncached; do
    pid=$SERVE_PID api=$API
    [ -n "$serve" ] && pid=$UNCACHED_PID api=$UNCACHED_API
    for mode in operation status; do
      name=$mode${serve:+-$serve}
      # A short run that reads every answer (errors counted), then the measured one.
      wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s bench/graphql_request.lua "$api" -- \
        "$mode" "$WORK/ids.txt" check >"$WORK/$name-check.wrk" 2>&1
      run_wrk "$name" "$pid" -s bench/graphql_request.lua "$api" -- "$mode" "$WORK/ids.txt"
    done
  done
  run_wrk healthz "$SERVE_PID" "${API%/graphql}/healthz"
  run_wrk nginx "$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')" \
    "$SCHEME://127.0.0.1:$NGINX_PORT/status.json"
} >"$WORK/results"

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "transport: $SCHEME"
echo "store: ${STORE_URL%%://*}, $RUNTIMES runtimes ($(wc -l <"$WORK/ids.txt") operations), $WRITES writes/s by another process; wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
echo
echo "load average before the runs: $LOAD"
echo
echo "| run | requests/s | p99 latency | server CPU per request | GraphQL errors | non-2xx |"
echo "|---|---|---|---|---|---|"
while read -r name rps p99 errors non2xx cpu; do
  echo "| $name | $rps | $p99 | ${cpu} µs | $errors | $non2xx |"
done <"$WORK/results"
nginx_rps=$(awk '$1 == "nginx" {print $2}' "$WORK/results")
for name in operation status operation-uncached status-uncached; do
  rps=$(awk -v n=$name '$1 == n {print $2}' "$WORK/results")
  echo "$name: $(echo "scale=2; $rps / $nginx_rps" | bc) of nginx's rate"
done
# How often the default serve reused an answer over all of its runs.
metrics=$(first_line "$WORK/serve.out" "metrics ")
curl -sS "$metrics" | awk '/^kprov_api_answer_cache_total/ {
  n[$1] = $2 } END { hit = n["kprov_api_answer_cache_total{result=\"hit\"}"];
  miss = n["kprov_api_answer_cache_total{result=\"miss\"}"];
  if (hit + miss > 0) printf "answers reused: %d of %d (%.1f %%)\n", hit, hit + miss, 100 * hit / (hit + miss) }'
