#!/usr/bin/env bash
# halo render, halo egress test (per-harness lines) and halo doctor end to end.
# usage: cli_test.sh HALO_BINARY REPO_DIR
set -uo pipefail
halo=$1
repo=$2
rich=$repo/tests/policy/render/rich.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {  # NAME EXPECTED_EXIT REGEX -- CMD...
  local name=$1 want=$2 re=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" = "$want" ] && printf '%s\n' "$out" | grep -E -- "$re" >/dev/null; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc (want $want), output:"
    printf '%s\n' "$out" | head -20
  fi
}
refute() {  # NAME REGEX -- CMD...
  local name=$1 re=$2
  shift 3
  if "$@" 2>&1 | grep -E -- "$re" >/dev/null; then fail=$((fail + 1)); echo "FAIL $name: output matches $re"; else pass=$((pass + 1)); fi
}

check render_linux 0 'halo render: 5 files and manifest.json for 6 harnesses \(linux\)' -- "$halo" render --profile "$rich" --os linux --out "$tmp/linux"
check render_files 0 'etc/codex/requirements.toml' -- find "$tmp/linux" -type f
check render_manifest 0 '"effective_level"' -- cat "$tmp/linux/manifest.json"
check render_macos_gemini 0 'gemini-cli: .*GeminiCli/settings.json' -- "$halo" render --profile "$rich" --os macos --out "$tmp/macos"
check render_one_harness 0 'for 1 harnesses' -- "$halo" render --profile "$rich" --os windows --out "$tmp/win" --harness codex
check render_pin_old_copilot 0 'copilot-cli: .*\(no file\)' -- "$halo" render --profile "$rich" --os linux --out "$tmp/pin" --pin copilot-cli=1.0.90
check render_via_broker 0 'httpProxyPort' -- bash -c "'$halo' render --profile '$rich' --os linux --out '$tmp/via' --via-broker --broker-port 3128 >/dev/null && cat '$tmp/via/etc/claude-code/managed-settings.json'"
check render_bad_os 2 '--os must be' -- "$halo" render --profile "$rich" --os beos --out "$tmp/x"
check render_bad_pin 2 'HARNESS=VERSION' -- "$halo" render --profile "$rich" --os linux --out "$tmp/x" --pin copilot-cli
check render_bad_harness 2 'unknown harness' -- "$halo" render --profile "$rich" --os linux --out "$tmp/x" --harness vim

check egress_per_harness 1 '^  gemini-cli  broker full  halo broker' -- "$halo" egress test https://pastebin.com/ --profile "$rich"
check egress_os_macos 1 'gemini-cli  broker partial' -- "$halo" egress test https://pastebin.com/ --profile "$rich" --os macos
check egress_claude_mech 1 'claude-code native full  sandbox.network.deniedDomains' -- "$halo" egress test pastebin.com:443 --profile "$rich"
check egress_json 0 '"held_by": "native"' -- "$halo" egress test https://api.github.com/ --profile "$rich" --json --harness codex
check egress_bad_os 2 '--os must be' -- "$halo" egress test github.com --profile "$rich" --os plan9

home=$repo/tests/policy/posture/homes/weakened
check doctor_findings 1 '^posture:cursor: ~/.cursor/sandbox.json sets type = "insecure_none"' -- "$halo" doctor --home "$home"
check doctor_json 1 '"harness": "gemini-cli"' -- "$halo" doctor --home "$home" --json
refute doctor_no_secrets 'sk-' -- "$halo" doctor --home "$home" --json
check doctor_env 1 'posture:gemini-cli: GEMINI_SANDBOX=false' -- env GEMINI_SANDBOX=false "$halo" doctor --home "$tmp"
refute doctor_env_value 'LEAKME' -- env OPENCODE_PERMISSION='{"x":"LEAKME"}' "$halo" doctor --home "$tmp"
mkdir -p "$tmp/fifohome/.codex" && mkfifo "$tmp/fifohome/.codex/config.toml"
check doctor_fifo 0 'not a regular file' -- timeout 10 "$halo" doctor --home "$tmp/fifohome"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
