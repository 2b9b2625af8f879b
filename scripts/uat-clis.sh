#!/usr/bin/env bash
# make uat-clis: validate halo's rendered files with the real harness CLIs' own offline
# checks (VENDOR-FACTS.md section 9). Not part of `make test`: it installs Claude Code,
# Codex, Gemini CLI, Copilot CLI and OpenCode from the npm registry (the one npm is
# configured with; no host is named here) into a scratch folder.
#
# Each CLI reads its managed file from a fixed system path (/etc/...). The file is put
# there inside a private mount namespace (an overlay over /etc that only the checking
# process sees), so the real /etc is never touched. Needs root (unshare -m, mount).
#
# Every check has a negative control: a deliberately broken file must be reported, or the
# check itself is not trusted. Exit 0 only when every rendered file passes and every
# control fails as it should.
#
# usage: scripts/uat-clis.sh HALO_BINARY [SCRATCH_DIR]
set -uo pipefail

HALO=${1:?usage: uat-clis.sh HALO_BINARY [SCRATCH_DIR]}
HALO=$(realpath "$HALO")
SCRATCH=${2:-${TMPDIR:-/tmp}/halo-uat-clis}
REPO=$(cd "$(dirname "$0")/.." && pwd)
TIMEOUT=90
PACKAGES=(@anthropic-ai/claude-code @openai/codex @google/gemini-cli @github/copilot opencode-ai)

if [ "$(id -u)" != 0 ]; then echo "uat-clis: needs root (private mount namespaces)"; exit 2; fi
for tool in npm node unshare mount; do
  command -v "$tool" >/dev/null || { echo "uat-clis: $tool not found"; exit 2; }
done

mkdir -p "$SCRATCH/npm" "$SCRATCH/work"
NPM_DIR=$SCRATCH/npm
BIN=$NPM_DIR/node_modules/.bin
if [ ! -x "$BIN/claude" ] || [ ! -x "$BIN/codex" ] || [ ! -x "$BIN/gemini" ] || \
   [ ! -x "$BIN/copilot" ] || [ ! -x "$BIN/opencode" ]; then
  echo "uat-clis: installing ${PACKAGES[*]} into $NPM_DIR"
  [ -f "$NPM_DIR/package.json" ] || echo '{"name":"halo-uat-clis","private":true}' >"$NPM_DIR/package.json"
  (cd "$NPM_DIR" && npm install --no-save --no-audit --no-fund "${PACKAGES[@]}" >"$SCRATCH/npm-install.log" 2>&1) ||
    { echo "uat-clis: npm install failed (see $SCRATCH/npm-install.log)"; exit 2; }
fi
echo "uat-clis: versions: claude $("$BIN/claude" --version 2>/dev/null | head -1)," \
  "codex $("$BIN/codex" --version 2>/dev/null | head -1)," \
  "gemini $("$BIN/gemini" --version 2>/dev/null | head -1)," \
  "copilot $("$BIN/copilot" --version 2>/dev/null | head -1)," \
  "opencode $("$BIN/opencode" --version 2>/dev/null | head -1)"

PASS=0
FAIL=0
report() {  # report ok|bad NAME DETAIL
  if [ "$1" = ok ]; then PASS=$((PASS + 1)); echo "PASS  $2"; else FAIL=$((FAIL + 1)); echo "FAIL  $2"; fi
  if [ -n "${3:-}" ]; then printf '%s\n' "$3" | sed 's/^/      /' | head -12; fi
}

# with_etc_file REL_PATH FILE CMD...: run CMD with FILE visible at /etc/REL_PATH only.
with_etc_file() {
  local rel=$1 file=$2
  shift 2
  local ov
  ov=$(mktemp -d "$SCRATCH/work/ov.XXXXXX")
  mkdir -p "$ov/upper/$(dirname "$rel")" "$ov/work"
  cp "$file" "$ov/upper/$rel"
  chmod 0755 "$ov/upper/$(dirname "$rel")"
  chmod 0644 "$ov/upper/$rel"
  unshare -m --propagation private sh -c '
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0/upper,workdir=$0/work" /etc || exit 97
    shift; exec "$@"' "$ov" _ "$@"
  local rc=$?
  rm -rf "$ov"
  return $rc
}

fresh_home() { local h; h=$(mktemp -d "$SCRATCH/work/home.XXXXXX"); echo "$h"; }

check_claude() {  # FILE NAME [expect_bad]
  local home out
  home=$(fresh_home)
  out=$(cd "$home" && with_etc_file claude-code/managed-settings.json "$1" \
        env HOME="$home" timeout $TIMEOUT "$BIN/claude" -p x </dev/null 2>&1)
  local bad
  bad=$(printf '%s\n' "$out" | grep -E "invalid entries|Failed schema|Unable to read managed|Invalid permission rule|was skipped|This field was ignored")
  # Positive evidence that Claude got past loading settings: the login check, or (with
  # failIfUnavailable and no bubblewrap here) the refusal the rendered file asked for.
  if [ -z "$bad" ] && ! printf '%s' "$out" | grep -E "Not logged in|refusing to start without a working sandbox" >/dev/null; then
    bad="claude did not reach its login check: $(printf '%s' "$out" | head -3)"
  fi
  verdict "$2" "${3:-}" "$bad" "$out"
}

check_codex() {
  local home out
  home=$(fresh_home)
  out=$(cd "$home" && with_etc_file codex/requirements.toml "$1" \
        env CODEX_HOME="$home" HOME="$home" timeout $TIMEOUT "$BIN/codex" doctor --json 2>/dev/null)
  local bad
  bad=$(printf '%s' "$out" | node -e '
    let s = require("fs").readFileSync(0, "utf8"); s = s.slice(s.indexOf("{"));
    let c; try { c = JSON.parse(s).checks["config.load"]; } catch (e) { console.log("doctor output not JSON"); process.exit(0); }
    if (c.status !== "ok") console.log("config.load " + c.status + ": " + JSON.stringify(c.details));')
  verdict "$2" "${3:-}" "$bad" "$out"
}

check_gemini() {
  local home out
  home=$(fresh_home)
  # GEMINI_SANDBOX=false: parse and validate the settings without starting Seatbelt
  # (sandbox-exec does not exist on Linux).
  out=$(cd "$home" && with_etc_file gemini-cli/settings.json "$1" \
        env HOME="$home" GEMINI_SANDBOX=false timeout $TIMEOUT "$BIN/gemini" mcp list 2>&1)
  local bad
  bad=$(printf '%s\n' "$out" | grep -E -A3 "Invalid configuration|Error in|Security Warning|Skipping system settings")
  if [ -z "$bad" ] && ! printf '%s' "$out" | grep "No MCP servers configured" >/dev/null; then
    bad="gemini did not finish: $(printf '%s' "$out" | head -3)"
  fi
  verdict "$2" "${3:-}" "$bad" "$out"
}

check_copilot() {
  local home out sdk runtime
  home=$(fresh_home)
  runtime=$(ls "$NPM_DIR"/node_modules/@github/copilot-linux-x64/copilot 2>/dev/null | head -1)
  # The SDK unpacks on first run into the user's cache.
  HOME="$home" timeout $TIMEOUT "$BIN/copilot" --version >/dev/null 2>&1
  sdk=$(ls -d "$home"/.cache/copilot/pkg/linux-x64/*/copilot-sdk 2>/dev/null | head -1)
  if [ -z "$sdk" ] || [ -z "$runtime" ]; then verdict "$2" "${3:-}" "copilot SDK or runtime not found" ""; return; fi
  out=$(cd "$home" && HOME="$home" timeout $TIMEOUT node "$REPO/scripts/uat-copilot-validate.mjs" "$sdk" "$runtime" "$1" 2>&1)
  local bad
  bad=$(printf '%s\n' "$out" | grep -E "^(INVALID|DIAGNOSTIC|DROPPED|ERROR)")
  verdict "$2" "${3:-}" "$bad" "$out"
}

check_opencode() {
  local home out dir
  home=$(fresh_home)
  dir=$(mktemp -d "$SCRATCH/work/oc.XXXXXX")
  cp "$1" "$dir/opencode.json"
  mkdir -p "$home/project"
  out=$(cd "$home/project" && HOME="$home" OPENCODE_TEST_MANAGED_CONFIG_DIR="$dir" \
        timeout $TIMEOUT "$BIN/opencode" debug config 2>&1)
  local rc=$? bad=""
  if [ $rc != 0 ]; then bad=$(printf '%s\n' "$out" | grep -E -A2 "Error|invalid|Expected" | head -6); [ -n "$bad" ] || bad="exit $rc"; fi
  if [ $rc = 0 ] && ! printf '%s' "$out" | grep '"permission"' >/dev/null; then bad="managed permission not in the resolved config"; fi
  rm -rf "$dir"
  verdict "$2" "${3:-}" "$bad" "$out"
}

# Codex enforcement, not just loading: `codex sandbox` runs commands under the rendered
# requirements (no login needed). /opt and /srv are private tmpfs mounts of this namespace,
# so the rich policy's roots and protected paths exist without touching the machine. Only
# denied and unlisted names are fetched: Codex's proxy refuses them without dialing.
check_codex_enforcement() {  # FILE NAME
  local home out
  home=$(fresh_home)
  mkdir -p "$home/.ssh" "$home/.aws" "$home/.cache/halo-build" "$home/.codex" "$home/project"
  echo key >"$home/.ssh/id"
  echo env >"$home/project/.env"
  local probe='
    t() { if sh -c "$2" >/dev/null 2>&1; then echo "$1 yes"; else echo "$1 no"; fi; }
    t write-opt-root "touch /opt/build-cache/x"
    t write-home-root "touch $HOME/.cache/halo-build/x"
    t write-workspace "touch ./x"
    t write-outside "touch /opt/elsewhere"
    t read-ssh "cat $HOME/.ssh/id"
    t read-srv-secrets "cat /srv/secrets/f"
    t read-env-glob "cat .env"
    for h in pastebin.com deep.sub.pastebin.com partner.example unlisted.example; do
      printf "fetch-%s " "$h"; curl -s -m 8 -o /dev/null -D - "http://$h/" | tr -d "\r" | sed -n "s/^x-proxy-error: //p"
    done'
  out=$(with_etc_file codex/requirements.toml "$1" sh -c '
    mount -t tmpfs tmpfs /opt && mkdir -p /opt/build-cache &&
    mount -t tmpfs tmpfs /srv && mkdir -p /srv/secrets && echo s >/srv/secrets/f &&
    cd "$0/project" && HOME="$0" CODEX_HOME="$0/.codex" timeout '"$TIMEOUT"' "$1" sandbox -- sh -c "$2"' \
    "$home" "$BIN/codex" "$probe" 2>&1 | grep -v '^WARNING')
  local want='write-opt-root yes
write-home-root yes
write-workspace yes
write-outside no
read-ssh no
read-srv-secrets no
read-env-glob no
fetch-pastebin.com blocked-by-denylist
fetch-deep.sub.pastebin.com blocked-by-denylist
fetch-partner.example blocked-by-denylist
fetch-unlisted.example blocked-by-allowlist'
  if [ "$out" = "$want" ]; then report ok "$2" "$(printf '%s' "$out" | tr '\n' ';')"; else report bad "$2" "$(diff <(echo "$want") <(echo "$out"))"; fi
}

verdict() {  # NAME EXPECT_BAD BAD_TEXT FULL_OUTPUT
  if [ -n "$2" ]; then
    if [ -n "$3" ]; then report ok "$1 (control: error reported)" "$3"; else report bad "$1 (control: error NOT reported)" "$4"; fi
  else
    if [ -z "$3" ]; then report ok "$1"; else report bad "$1" "$3"; fi
  fi
}

# Render the policies under test.
OUT=$SCRATCH/rendered
rm -rf "$OUT"; mkdir -p "$OUT"
POLICIES=("$REPO/tests/policy/render/rich.yaml")
for f in "$REPO"/examples/profiles/*.yaml; do [ -f "$f" ] && POLICIES+=("$f"); done
SETS=()
for pol in "${POLICIES[@]}"; do
  name=$(basename "$pol" .yaml)
  for os in linux macos windows; do
    for via in "" --via-broker; do
      dest="$OUT/$name-$os${via:+-via-broker}"
      if ! "$HALO" render --profile "$pol" --os "$os" --out "$dest" $via >"$dest.log" 2>&1; then
        report bad "render $name $os $via" "$(cat "$dest.log")"
        continue
      fi
      SETS+=("$dest")
    done
  done
done
echo "uat-clis: rendered ${#SETS[@]} sets from ${#POLICIES[@]} policies"

for set in "${SETS[@]}"; do
  label=$(basename "$set")
  for f in "$set/etc/claude-code/managed-settings.json" \
           "$set/Library/Application Support/ClaudeCode/managed-settings.json" \
           "$set/Program Files/ClaudeCode/managed-settings.json"; do
    [ -f "$f" ] && check_claude "$f" "claude-code  $label"
  done
  for f in "$set/etc/codex/requirements.toml" "$set/ProgramData/OpenAI/Codex/requirements.toml"; do
    [ -f "$f" ] && check_codex "$f" "codex        $label"
  done
  f="$set/Library/Application Support/GeminiCli/settings.json"
  [ -f "$f" ] && check_gemini "$f" "gemini-cli   $label"
  for f in "$set/etc/github-copilot/managed-settings.json" \
           "$set/Library/Application Support/GitHubCopilot/managed-settings.json" \
           "$set/Program Files/GitHubCopilot/managed-settings.json"; do
    [ -f "$f" ] && check_copilot "$f" "copilot-cli  $label"
  done
  for f in "$set/etc/opencode/opencode.json" "$set/Library/Application Support/opencode/opencode.json" \
           "$set/ProgramData/opencode/opencode.json"; do
    [ -f "$f" ] && check_opencode "$f" "opencode     $label"
  done
done
if [ -f "$OUT/rich-linux/etc/codex/requirements.toml" ]; then
  check_codex_enforcement "$OUT/rich-linux/etc/codex/requirements.toml" "codex        rich-linux enforced by codex sandbox"
fi
echo "uat-clis: cursor: no installable CLI (no npm or Debian package); its file is checked by halo's release check only"

# Negative controls: each check must catch a known-bad file.
CTL=$SCRATCH/controls
mkdir -p "$CTL"
echo '{"sandbox":{"enabled":true,"network":{"allowUnixSockets":true}}, "permissions":{"deny":["Read(~/.ssh)"]}}' >"$CTL/claude.json"
echo '{"permissions":{"deny":["Bogus(x"]}}' >"$CTL/claude-rule.json"
printf '[experimental_network]\nenabled = true\n[experimental_network.domains]\n"x.example" = "block"\n' >"$CTL/codex.toml"
echo '{"tools":{"sandbox":{"enabled":"yes","command":"sandbox-exec"}}}' >"$CTL/gemini.json"
echo '{"sandbox":{"enabled":"yes"}}' >"$CTL/copilot.json"
echo '{"sandbox":{"enabled":true,"userPolicy":{"network":{"allowedHosts":["**.x.example","ok.example"]}}}}' >"$CTL/copilot-drop.json"
echo '{"permission":{"webfetch":{"*.x.example":"allow"}}}' >"$CTL/opencode.json"
check_claude "$CTL/claude.json" "claude-code  control (bad sandbox field)" bad
check_claude "$CTL/claude-rule.json" "claude-code  control (bad permission rule)" bad
check_codex "$CTL/codex.toml" "codex        control" bad
check_gemini "$CTL/gemini.json" "gemini-cli   control" bad
check_copilot "$CTL/copilot.json" "copilot-cli  control (wrong type)" bad
check_copilot "$CTL/copilot-drop.json" "copilot-cli  control (silently dropped host)" bad
check_opencode "$CTL/opencode.json" "opencode     control" bad

rm -rf "$SCRATCH/work"
echo "uat-clis: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
