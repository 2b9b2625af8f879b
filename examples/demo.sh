#!/usr/bin/env bash
# `make demo`: the main job on the bundled example profile, as a user would run it.
set -uo pipefail
halo=${1:-build/cli/halo}
cd "$(dirname "$0")/.."
profile=examples/profiles/dev.yaml
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; echo "(exit $?)"; }

echo "halo demo: one policy, one decision function. Profile: $profile"
sed -n '1,40p' "$profile"

run "$halo" validate --profile "$profile"
run "$halo" validate --ring ring1 --unit ml --policy-dir examples/policy-dir --no-loosening

for target in https://api.github.com/repos https://pastebin.com/raw/x example.org:443 \
              localhost:5432 127.1:6379 http://169.254.169.254/latest/meta-data \
              http://2852039166/ 10.20.1.2:443 10.0.0.5:443 'https://allowed.com@evil.example/'; do
  run "$halo" egress test "$target" --profile "$profile"
done
run "$halo" egress test https://pastebin.com/ --profile "$profile" --json

if "$halo" help render >/dev/null 2>&1; then
  out=$(mktemp -d)
  run "$halo" render --profile "$profile" --os linux --out "$out"
  say "find $out -type f"; find "$out" -type f | sort
fi
if "$halo" help run >/dev/null 2>&1; then
  # Inside: the proxy answers a denied CONNECT with 403 and names the rule; nothing else leaves.
  run "$halo" run --profile "$profile" -- sh -c 'echo "inside: HALO_ENFORCEMENT=$HALO_ENFORCEMENT"
    curl -s -o /dev/null -w "CONNECT pastebin.com:443 -> %{http_connect}\n" https://pastebin.com/
    curl -s -D - -o /dev/null http://pastebin.com/ | grep -i "^x-halo-decision"
    python3 -c "import socket; s=socket.socket(); s.settimeout(2); s.connect((\"198.51.100.7\", 80))" 2>&1 | tail -1'
fi
exit 0
