#!/usr/bin/env bash
# Checks what scripts/package wrote into DIR, as an operator would use it:
#   - lintian finds no error in the .deb; the package installs (dpkg -i, as root);
#   - systemd-analyze verify accepts kprov-serve.service and kprov-watch.service;
#   - the OCI image unpacks (umoci) and, in a chroot of its root with nothing else present, runs
#     `kprov version`, kprov-sim, and `kprov serve` against it answering /readyz, /metrics and a
#     GraphQL query, as the image's non-root user;
#   - promtool accepts deploy/prometheus's rules; deploy/kubernetes's manifests parse and carry
#     probes and security context (check_deploy.py);
#   - the README's first-runtime block runs with the package's kprov and kprov-sim, from
#     /usr/share/kprov.
# Needs root (dpkg -i, chroot). Usage: tests/package/package_test.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(cd "${1:?usage: tests/package/package_test.sh DIR}" && pwd)
deb=$(ls "$dir"/kprov_*_amd64.deb)
image=$(ls "$dir"/kprov-*.oci.tar)
version=$(basename "$image" .oci.tar); version=${version#kprov-}
work=$(mktemp -d /tmp/kprov-package-test.XXXXXX)
pids=()
installed=no
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
  # The machine is left as it was (KPROV_PACKAGE_KEEP=1 keeps the package installed).
  if [ "$installed" = yes ] && [ "${KPROV_PACKAGE_KEEP:-0}" != 1 ]; then
    dpkg --purge kprov >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
fail() { echo "package test: FAILED: $*" >&2; exit 1; }
# The first line of FILE once it has one (a server's URL), within 20 s.
first_line() {
  for _ in $(seq 200); do [ -s "$1" ] && { head -1 "$1"; return; }; sleep 0.1; done
  fail "nothing in $1"
}

echo "== lintian $(basename "$deb")"
lintian --fail-on error --tag-display-limit 0 "$deb" | tee "$work/lintian.txt"
echo "lintian: $(grep -c '^E:' "$work/lintian.txt" || true) errors, $(grep -c '^W:' "$work/lintian.txt" || true) warnings"

echo "== install the package"
installed=yes
# dpkg -i reinstalls the same version (a rebuilt package); apt pulls in what it depends on.
if ! dpkg -i "$deb" >"$work/dpkg.log" 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q >>"$work/dpkg.log" 2>&1 ||
    { cat "$work/dpkg.log"; fail "the package does not install"; }
fi
[ "$(dpkg-query -W -f='${db:Status-Abbrev}' kprov)" = "ii " ] || fail "kprov is not installed"
[ "$(/usr/bin/kprov version)" != "" ] || fail "the installed kprov prints no version"
getent passwd kprov >/dev/null || fail "no system user kprov"

echo "== systemd-analyze verify"
systemd-analyze verify /lib/systemd/system/kprov-serve.service /lib/systemd/system/kprov-watch.service
echo "both units verify"

echo "== the image in a chroot"
mkdir -p "$work/layout"
tar -xf "$image" -C "$work/layout"
umoci unpack --image "$work/layout:$version" "$work/bundle" >/dev/null
root=$work/bundle/rootfs
user=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["user"]["uid"])' \
  "$work/bundle/config.json")
[ "$user" != 0 ] || fail "the image runs as root"
entry=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["args"][0])' \
  "$work/bundle/config.json")
[ "$entry" = /usr/bin/kprov ] || fail "the entrypoint is $entry"
in_image() { env -i HOME=/home/kprov PATH=/usr/bin "$@"; }
in_image /usr/sbin/chroot --userspec="$user:$user" "$root" /usr/bin/kprov version | tee "$work/version"
grep -q "$version" "$work/version" || fail "kprov version does not say $version"
# (env, chroot and the program exec one another: $! is the program's pid.)
env -i HOME=/home/kprov PATH=/usr/bin /usr/sbin/chroot --userspec="$user:$user" "$root" \
  /usr/bin/kprov-sim --listen 127.0.0.1:0 --kubeconfig-out /tmp/garden.kubeconfig \
  --project kyma-dev >"$root/tmp/sim.url" 2>"$work/sim.log" &
pids+=($!)
sim_url=$(first_line "$root/tmp/sim.url")
echo "kprov-sim in the image serves $sim_url"
env -i HOME=/home/kprov PATH=/usr/bin XDG_STATE_HOME=/tmp/state \
  APP_GARDENER_KUBECONFIG_PATH=/tmp/garden.kubeconfig APP_GARDENER_PROJECT=kyma-dev \
  APP_RUNTIME_REGISTRATION_ENABLED=false APP_RUNTIME_DEREGISTRATION_ENABLED=false \
  KPROV_LOG_FORMAT=json /usr/sbin/chroot --userspec="$user:$user" "$root" /usr/bin/kprov serve \
  --address 127.0.0.1:0 --metrics-address 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
pids+=("$serve_pid")
for _ in $(seq 200); do [ "$(wc -l <"$work/serve.out")" -ge 2 ] && break; sleep 0.1; done
api=$(sed -n 's/^api //p' "$work/serve.out")
metrics=$(sed -n 's/^metrics //p' "$work/serve.out")
[ -n "$api" ] && [ -n "$metrics" ] || { cat "$work/serve.log"; fail "kprov serve in the image printed no URLs"; }
[ "$(curl -fsS "${metrics%/metrics}/readyz")" = ok ] || fail "/readyz of serve in the image"
curl -fsS "$metrics" | grep -q '^kprov_workers 4' || fail "/metrics of serve in the image"
answer=$(curl -fsS "$api" -H 'Content-Type: application/json' -d '{"query": "{ __typename }"}')
[ "$answer" = '{"data":{"__typename":"Query"}}' ] || fail "GraphQL answer: $answer"
kill -TERM "$serve_pid"
wait "$serve_pid" || { cat "$work/serve.log"; fail "kprov serve in the image did not stop cleanly"; }
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$work/serve.log" ||
  fail "serve's log lines are not JSON"
echo "kprov version, kprov-sim and kprov serve ran in the image's root alone"
echo "image: $(du -k "$image" | cut -f1) KiB archive, $(du -sk "$root" | cut -f1) KiB unpacked"

echo "== promtool check rules"
promtool=$(command -v promtool || echo /opt/prometheus/usr/bin/promtool)
"$promtool" check rules deploy/prometheus/kprov-rules.yaml

echo "== deploy/kubernetes manifests"
/usr/bin/python3 tests/package/check_deploy.py

echo "== the README's first runtime, with the package's kprov and kprov-sim"
python3 - README.md >"$work/using.sh" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("## Using kprov")
begin = lines.index("```sh", start) + 1
end = lines.index("```", begin)
print("set -e\ncd /usr/share/kprov")
print("\n".join(lines[begin:end]))
PY
grep -q 'kprov provision -f examples/gcp.yaml --wait' "$work/using.sh" || fail "no quick start found"
mkdir -p "$work/home"
env -i PATH=/usr/bin:/bin HOME="$work/home" TMPDIR="$work/home" \
  XDG_STATE_HOME="$work/home/state" XDG_CONFIG_HOME="$work/home/config" \
  bash "$work/using.sh" >"$work/using.out" 2>"$work/using.err" ||
  { cat "$work/using.out" "$work/using.err"; fail "the README's first runtime"; }
grep -q Succeeded "$work/using.out" || fail "the README's first runtime did not succeed"
echo "the README's first runtime ran with /usr/bin/kprov and /usr/bin/kprov-sim"
echo "== package test passed"
