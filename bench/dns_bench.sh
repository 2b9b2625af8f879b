#!/usr/bin/env bash
# DNS filter load bench: queries per second for allowed names (answered with synthesized
# session addresses, no upstream) and for denied names (NXDOMAIN), with dnsperf.
#   bench/dns_bench.sh SERVER [SECONDS]
# SERVER is the halo_dns_serve binary (tests/dns/dns_serve.cpp) or the halo binary (then
# `halo broker --dns` is benched). Everything on 127.0.0.1, ephemeral ports; bounded by
# SECONDS per run (default 5); the server started here is stopped by its PID.
set -euo pipefail
server=${1:?path to halo_dns_serve or halo}; secs=${2:-5}
command -v dnsperf >/dev/null || { echo "dns_bench: dnsperf not installed (apt-get install dnsperf)"; exit 77; }
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cat >"$work/profile.yaml" <<'YAML'
egress:
  default: deny
  allowedDomains: ["*.allowed.bench"]
  deniedDomains: ["*.denied.bench"]
YAML
for i in $(seq 1 2000); do echo "host$i.allowed.bench A"; done >"$work/allowed.txt"
for i in $(seq 1 1000); do echo "leak$i.denied.bench TXT"; echo "x$i.unlisted.example A"; done >"$work/denied.txt"

# `halo broker` runs with its default limits: the filter's token bucket drops UDP queries
# over FilterLimits::max_queries_per_second (50000), and each drop costs dnsperf a 2 s
# timeout slot, so the broker run is paced just under the limit (DNS_BENCH_QPS to change).
pace=
if [ "$(basename "$server")" = halo ]; then
  pace="-Q ${DNS_BENCH_QPS:-45000}"
fi
if [ "$(basename "$server")" = halo ]; then
  "$server" broker --profile "$work/profile.yaml" --listen 127.0.0.1:0 --dns 127.0.0.1:0 \
    --resolver-server 127.0.0.1:9 >"$work/out" 2>"$work/err" &
else
  "$server" --profile "$work/profile.yaml" --listen 127.0.0.1:0 --upstream 127.0.0.1:9 \
    --max-qps 10000000 >"$work/out" 2>"$work/err" &
fi
pid=$!
port=
for _ in $(seq 1 100); do
  port=$( { grep -oE '^port [0-9]+' "$work/out"; grep -oE 'DNS on [^ ]+:[0-9]+' "$work/err"; } 2>/dev/null \
         | head -1 | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "dns_bench: server did not report its port"; cat "$work/err"; exit 1; }

run() {
  local label=$1 file=$2
  dnsperf -s 127.0.0.1 -p "$port" -d "$file" -l "$secs" -c 4 -q 200 -t 2 $pace >"$work/$label.out" 2>&1 || true
  local qps lost lat
  qps=$(awk '/Queries per second/ {print $4}' "$work/$label.out")
  lost=$(awk '/Queries lost/ {print $3, $4}' "$work/$label.out")
  lat=$(awk '/Average Latency/ {print $4}' "$work/$label.out")
  echo "dns_bench: $label: ${qps:-?} qps, lost ${lost:-?}, average latency ${lat:-?} s"
  grep -E 'Response codes' "$work/$label.out" | sed 's/^ */dns_bench:   /'
}
run allowed-synthetic "$work/allowed.txt"
run denied-nxdomain "$work/denied.txt"
