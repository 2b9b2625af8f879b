#!/usr/bin/env bash
# Runs every *_fuzz binary under DIR for SECONDS each, with its corpus seeds if any.
# Fails on the first crash; bounded in time, stops by itself.
set -euo pipefail
dir=${1:?fuzz build dir}; secs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
status=0
while IFS= read -r bin; do
  name=$(basename "$bin")
  corpus=$(mktemp -d)
  [ -d "$here/corpus/$name" ] && cp -r "$here/corpus/$name/." "$corpus/"
  echo "fuzz: $name for ${secs}s"
  # Crash inputs go to a temporary folder, never into the source tree; the log's tail
  # prints the input (bytes and base64) so it can be replayed.
  if ! "$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$corpus.artifact-" -print_final_stats=0 "$corpus" >"$corpus.log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$corpus.log"; status=1
  else
    grep -E '^(#[0-9]+\s+DONE|Done)' "$corpus.log" | tail -1 || true
  fi
  rm -rf "$corpus" "$corpus.log" "$corpus".artifact-*
done < <(find "$dir" -type f -name '*_fuzz' -perm -u+x | sort)
exit $status
