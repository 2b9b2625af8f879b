#!/usr/bin/env bash
# One run on this machine: CONNECT setup latency (sequential), connections per second at
# 50 concurrent, one-tunnel throughput, and RSS (idle, and with 1000 idle tunnels)
# through `halo broker`, through Squid (installed from Debian if missing, configured with
# an equivalent domain ACL) and directly. Loopback only; every process started here is
# stopped by its PID; every step is bounded.
#
#   bench/broker_compare.sh [BUILD_DIR]      (default: build)
# Knobs: N_LAT (2000), CONC (50), SECS (5), BYTES (1 GiB), IDLE (1000), RUNS (3),
#        HALO_THREADS (the broker's --threads; default: the broker's own default),
#        LOGGED=1 (both proxies log every connection: halo --audit, Squid's access_log through
#        its default logfile daemon; default: neither logs)
set -euo pipefail
BUILD=${1:-build}
HALO=$BUILD/cli/halo
LOAD=$BUILD/bench/load_client
N_LAT=${N_LAT:-2000}; CONC=${CONC:-50}; SECS=${SECS:-5}; BYTES=${BYTES:-1073741824}
IDLE=${IDLE:-1000}; RUNS=${RUNS:-3}
[ -x "$HALO" ] && [ -x "$LOAD" ] || { echo "build halo and load_client first ($BUILD)"; exit 2; }

if ! command -v squid >/dev/null; then
  echo "installing squid from the Debian archive..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends squid >/dev/null
fi
SQUID=$(command -v squid)

WORK=$(mktemp -d /tmp/halo-bench.XXXXXX)
chmod 777 "$WORK"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  exec 3>&- 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

# Upstreams: echo and source servers, alive while fd 3 stays open.
mkfifo "$WORK/serve.in"
"$LOAD" serve < "$WORK/serve.in" > "$WORK/serve.out" &
PIDS+=($!)
exec 3>"$WORK/serve.in"
for _ in $(seq 50); do [ -s "$WORK/serve.out" ] && grep -q source "$WORK/serve.out" && break; sleep 0.1; done
ECHO=$(awk '/echo/ {print $2}' "$WORK/serve.out")
SOURCE=$(awk '/source/ {print $2}' "$WORK/serve.out")

# The same rule for both proxies: only bench.test (a hosts-file name for 127.0.0.1), only
# the two upstream ports.
echo "127.0.0.1 bench.test" > "$WORK/hosts"
cat > "$WORK/profile.yaml" <<YAML
egress:
  default: deny
  allowedDomains: [bench.test]
  loopback: [$ECHO, $SOURCE]
YAML
"$HALO" broker --profile "$WORK/profile.yaml" --listen 127.0.0.1:0 --resolver-hosts "$WORK/hosts" \
  --log-level error --max-connections 20000 ${HALO_THREADS:+--threads "$HALO_THREADS"} \
  ${LOGGED:+--audit "$WORK/halo-audit.jsonl"} 2> "$WORK/halo.err" &
HALO_PID=$!; PIDS+=($HALO_PID)
for _ in $(seq 100); do grep -q "listening on" "$WORK/halo.err" && break; sleep 0.1; done
HALO_PORT=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$WORK/halo.err" | cut -d: -f2)

SQUID_PORT=$(free_port)
cat > "$WORK/squid.conf" <<CONF
http_port 127.0.0.1:$SQUID_PORT
hosts_file $WORK/hosts
acl bench dstdomain bench.test
acl bench_ports port $ECHO $SOURCE
acl CONNECT method CONNECT
http_access allow CONNECT bench bench_ports
http_access deny all
cache deny all
$( [ -n "${LOGGED:-}" ] && echo "access_log daemon:$WORK/squid-access.log squid" || echo "access_log none")
cache_store_log none
cache_log $WORK/squid-cache.log
pid_filename none
coredump_dir $WORK
max_filedescriptors 16384
dns_nameservers 127.0.0.1
CONF
"$SQUID" -N -f "$WORK/squid.conf" 2> "$WORK/squid.err" &
SQUID_PID=$!; PIDS+=($SQUID_PID)
for _ in $(seq 100); do (exec 9<>/dev/tcp/127.0.0.1/$SQUID_PORT) 2>/dev/null && break; sleep 0.1; done
sleep 1
SQUID_VERSION=$("$SQUID" -v | head -1 | awk '{print $4}')

declare -A R
HALO_IDLE=$(rss_kib $HALO_PID); SQUID_IDLE=$(rss_kib $SQUID_PID)

cpu_ticks() { [ -n "$1" ] && awk '{print $14+$15}' "/proc/$1/stat" || echo 0; }

measure() {  # name, echo target, source target, proxy IP:PORT ("" direct), proxy pid
  local name=$1 echo_to=$2 src_to=$3 proxy=$4 pid=${5:-}
  local pargs=(); [ -n "$proxy" ] && pargs=(--proxy "$proxy")
  timeout 120 "$LOAD" latency --to "$echo_to" "${pargs[@]}" -n 200 >/dev/null  # warm up
  local out; out=$(timeout 300 "$LOAD" latency --to "$echo_to" "${pargs[@]}" -n "$N_LAT")
  R[$name.p50]=$(json "$out" p50_us); R[$name.p99]=$(json "$out" p99_us)
  local rates=() tps=() cpus=()
  for _ in $(seq "$RUNS"); do
    local t0; t0=$(cpu_ticks "$pid")
    out=$(timeout 120 "$LOAD" rate --to "$echo_to" "${pargs[@]}" -c "$CONC" -d "$SECS")
    local t1; t1=$(cpu_ticks "$pid")
    rates+=("$(json "$out" conns_per_s)")
    # The proxy's own CPU (user + system, clock ticks) per connection served: what a
    # connection costs the proxy, whoever else is contending for these cores.
    cpus+=("$(python3 -c "import sys; print((int(sys.argv[2])-int(sys.argv[1]))*1e6/$(getconf CLK_TCK)/max(1,int(sys.argv[3])))" "$t0" "$t1" "$(json "$out" conns)")")
    out=$(timeout 120 "$LOAD" throughput --to "$src_to" "${pargs[@]}" --bytes "$BYTES")
    tps+=("$(json "$out" mb_per_s)")
  done
  R[$name.rate]=$(median "${rates[@]}"); R[$name.tput]=$(median "${tps[@]}")
  if [ -n "$pid" ]; then R[$name.cpu]=$(median "${cpus[@]}"); fi
}

idle_tunnels() {  # name pid proxy
  local name=$1 pid=$2 proxy=$3
  timeout 300 "$LOAD" idle --to "bench.test:$ECHO" --proxy "$proxy" -n "$IDLE" --hold 4 > "$WORK/idle.out" &
  local lp=$!
  for _ in $(seq 600); do grep -q ready "$WORK/idle.out" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  R[$name.rss_idle_tunnels]=$(rss_kib "$pid")
  R[$name.held]=$(awk '/ready/ {print $2}' "$WORK/idle.out")
  wait $lp || true
}

echo "measuring direct..." >&2
measure direct "127.0.0.1:$ECHO" "127.0.0.1:$SOURCE" ""
echo "measuring halo broker..." >&2
measure halo "bench.test:$ECHO" "bench.test:$SOURCE" "127.0.0.1:$HALO_PORT" "$HALO_PID"
idle_tunnels halo $HALO_PID "127.0.0.1:$HALO_PORT"
R[halo.rss_peak]=$(awk '/VmHWM/ {print $2}' /proc/$HALO_PID/status)
echo "measuring squid $SQUID_VERSION..." >&2
measure squid "bench.test:$ECHO" "bench.test:$SOURCE" "127.0.0.1:$SQUID_PORT" "$SQUID_PID"
idle_tunnels squid $SQUID_PID "127.0.0.1:$SQUID_PORT"
R[squid.rss_peak]=$(awk '/VmHWM/ {print $2}' /proc/$SQUID_PID/status)

python3 - "$HALO_IDLE" "$SQUID_IDLE" "$SQUID_VERSION" "$IDLE" <<PY
import sys
halo_idle, squid_idle, sv, idle = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
R = {$(for k in "${!R[@]}"; do printf '"%s": %s, ' "$k" "${R[$k]}"; done)}
def row(name, key, fmt="{:.0f}"):
    return fmt.format(R[key]) if key in R else "-"
print(f"| metric | direct | halo broker | squid {sv} |")
print("|---|---:|---:|---:|")
print(f"| CONNECT+echo p50 (us, sequential) | {R['direct.p50']:.0f} | {R['halo.p50']:.0f} | {R['squid.p50']:.0f} |")
print(f"| CONNECT+echo p99 (us) | {R['direct.p99']:.0f} | {R['halo.p99']:.0f} | {R['squid.p99']:.0f} |")
print(f"| conns/s at 50 concurrent | {R['direct.rate']:.0f} | {R['halo.rate']:.0f} | {R['squid.rate']:.0f} |")
print(f"| proxy CPU per connection (us) | - | {R['halo.cpu']:.1f} | {R['squid.cpu']:.1f} |")
print(f"| one-tunnel throughput (MB/s) | {R['direct.tput']:.0f} | {R['halo.tput']:.0f} | {R['squid.tput']:.0f} |")
print(f"| RSS idle (MiB) | - | {halo_idle/1024:.1f} | {squid_idle/1024:.1f} |")
print(f"| RSS with {idle} idle tunnels (MiB) | - | {R['halo.rss_idle_tunnels']/1024:.1f} (held {R['halo.held']:.0f}) | {R['squid.rss_idle_tunnels']/1024:.1f} (held {R['squid.held']:.0f}) |")
print(f"| peak RSS over the run (MiB) | - | {R['halo.rss_peak']/1024:.1f} | {R['squid.rss_peak']/1024:.1f} |")
print()
print(f"added p50 over direct: halo {R['halo.p50']-R['direct.p50']:.0f} us (target <= 100), squid {R['squid.p50']-R['direct.p50']:.0f} us")
print(f"conns/s: halo/squid = {R['halo.rate']/R['squid.rate']:.2f}x (target >= 2x); halo/direct = {R['halo.rate']/R['direct.rate']:.2f}")
print(f"proxy CPU per connection: squid/halo = {R['squid.cpu']/R['halo.cpu']:.2f}x (connections one core can carry: halo {1e6/R['halo.cpu']:.0f}/s, squid {1e6/R['squid.cpu']:.0f}/s)")
print(f"throughput: halo/direct = {100*R['halo.tput']/R['direct.tput']:.0f}% (target >= 60%); squid/direct = {100*R['squid.tput']/R['direct.tput']:.0f}%")
print(f"RSS: halo idle {halo_idle/1024:.1f} MiB (target <= 8), with {idle} tunnels {R['halo.rss_idle_tunnels']/1024:.1f} MiB (target <= 32)")
PY
