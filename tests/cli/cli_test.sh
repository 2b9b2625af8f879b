#!/usr/bin/env bash
# The halo command line as a user meets it: exit codes, messages, JSON, no secrets echoed.
# usage: cli_test.sh HALO SOURCE_DIR
set -uo pipefail
halo=${1:?halo binary}; src=${2:?source dir}
ex="$src/examples"; fx="$src/tests/fixtures"
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# check NAME EXPECTED_RC GREP_PATTERN -- CMD...   (pattern matched against stdout+stderr)
check() {
  local name=$1 want=$2 pattern=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want"; echo "$out" | head -20; fail=$((fail+1)); return
  fi
  if [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: output lacks /$pattern/"; echo "$out" | head -20; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
# refute NAME PATTERN -- CMD...: the output must NOT contain PATTERN
refute() {
  local name=$1 pattern=$2; shift 3
  local out; out=$("$@" 2>&1)
  if grep -qE -- "$pattern" <<<"$out"; then echo "FAIL $name: output contains /$pattern/"; fail=$((fail+1)); else pass=$((pass+1)); fi
}

P="--profile $ex/profiles/dev.yaml"
check version 0 '^halo [0-9]' -- "$halo" --version
check help 0 'validate' -- "$halo" help
check help_command 0 'egress' -- "$halo" help egress
check no_command 2 'halo help' -- "$halo"
check unknown_command 2 '' -- "$halo" frobnicate
check no_policy 2 'use --profile' -- "$halo" validate
check profile_and_ring 2 'excludes' -- "$halo" validate --profile x.yaml --ring r

check validate_ok 0 '^valid: ' -- "$halo" validate $P
check validate_ring_unit 0 'ring ring1, unit payments' -- "$halo" validate --ring ring1 --unit payments --policy-dir "$ex/policy-dir"
check validate_loosening_warns 0 'warning: loosening: adds writable root /scratch/ml' -- "$halo" validate --ring ring1 --unit ml --policy-dir "$ex/policy-dir"
check validate_no_loosening 2 'error: loosening: adds allowed domain datasets.acme.example' -- "$halo" validate --ring ring1 --unit ml --policy-dir "$ex/policy-dir" --no-loosening
check validate_invalid 2 'domain_upper_case.yaml:2:[0-9]+: error: allowedDomains\[0\]' -- "$halo" validate --profile "$fx/invalid/domain_upper_case.yaml"
check validate_invalid_count 2 'policy rejected \(1 error\)' -- "$halo" validate --profile "$fx/invalid/writable_root_slash.yaml"
check validate_missing_file 2 'no such file' -- "$halo" validate --profile "$tmp/none.yaml"

check allow_url 0 '^allow  api.github.com:443  preset vcs: \*\.github\.com' -- "$halo" egress test https://api.github.com/repos $P
check deny_named_rule 1 "^deny  pastebin.com:443  deniedDomains: pastebin.com \(.*base.yaml:11\)" -- "$halo" egress test https://pastebin.com/raw/x $P
check deny_default 1 '^deny  example.org:443  default: deny' -- "$halo" egress test example.org:443 $P
check loopback_grant 0 'loopback grant: 5432' -- "$halo" egress test 127.1:5432 $P
check loopback_no_grant 1 'loopback: port 6379 is not granted' -- "$halo" egress test localhost:6379 $P
check loopback_no_port_bad_input 2 'needs a port' -- "$halo" egress test localhost $P
check metadata 1 'address 169.254.169.254 is link-local' -- "$halo" egress test http://169.254.169.254/latest/meta-data $P
check metadata_int 1 'link-local' -- "$halo" egress test http://2852039166/ $P
check private_granted 0 'allowedAddresses: 10.20.0.0/16' -- "$halo" egress test 10.20.1.2:443 $P
check private_denied 1 'address 10.0.0.5 is private' -- "$halo" egress test 10.0.0.5:443 $P
check name_only 0 '^allow  github.com  preset vcs: github.com' -- "$halo" egress test github.com $P
check malformed 1 'malformed host' -- "$halo" egress test 'allowed..com:443' $P
check bad_target 2 'bad target' -- "$halo" egress test 'example.com:99999' $P
check bad_target_path 2 'needs a scheme' -- "$halo" egress test 'example.com/x' $P
check invalid_policy 2 'error:' -- "$halo" egress test github.com --profile "$fx/invalid/domain_url.yaml"
check json 1 '"rule": "deniedDomains: pastebin.com' -- "$halo" egress test https://pastebin.com/ $P --json
check json_verdict 0 '"verdict": "allow"' -- "$halo" egress test https://github.com/ $P --json
check ring 1 'deniedDomains: gist.github.com' -- "$halo" egress test https://gist.github.com/ --ring ring0 --policy-dir "$ex/policy-dir"

# The broker has no client authentication: beyond loopback only on request.
check broker_refuses_open_proxy 2 'refusing a non-loopback listen address' -- "$halo" broker $P --listen 0.0.0.0:0
check broker_refuses_open_dns 2 'refusing a non-loopback listen address' -- "$halo" broker $P --listen 127.0.0.1:0 --dns 0.0.0.0:0

# Secrets in the target never come back out.
refute no_userinfo 'hunter2|alice' -- "$halo" egress test 'https://alice:hunter2@github.com/x' $P
refute no_query 'token=|SECRET' -- "$halo" egress test 'https://github.com/x?token=SECRET' $P --json
refute no_fragment 'frag' -- "$halo" egress test 'https://github.com/x#frag' $P

# Machine-derived preset hosts: taken from an npmrc, its token never printed.
printf 'registry = https://npm.mirror.example/repo/\n//npm.mirror.example/:_authToken=SECRET-TOKEN\n' > "$tmp/.npmrc"
printf 'egress:\n  presets: [package-registries]\n' > "$tmp/p.yaml"
check npm_mirror 0 'preset package-registries: npm.mirror.example' -- env HOME="$tmp" NPM_CONFIG_REGISTRY= npm_config_registry= "$halo" egress test npm.mirror.example:443 --profile "$tmp/p.yaml"
refute npm_token 'SECRET-TOKEN' -- env HOME="$tmp" "$halo" egress test npm.mirror.example:443 --profile "$tmp/p.yaml"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
