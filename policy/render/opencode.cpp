// OpenCode (1.18): the managed config directory's opencode.json, `permission` only.
//
// OpenCode has no sandbox: bash is never confined, so path rules hold only its own
// tools, and egress is held by the halo broker under `halo run`. webfetch takes an
// action, not a host pattern. Rule engine: the last matching rule wins, "*" crosses "/",
// patterns are relative to the worktree; paths outside it go through external_directory
// (pattern "<dir>/*"). The lock is weak: OPENCODE_PERMISSION is merged after the managed
// file and OPENCODE_TEST_MANAGED_CONFIG_DIR moves the managed directory.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"
#include "policy/render/json_text.h"

namespace halo::render {

namespace {

const char* managed_dir(Os os) {
  switch (os) {
    case Os::linux_os: return "etc/opencode";
    case Os::macos: return "Library/Application Support/opencode";
    case Os::windows: return "ProgramData/opencode";
  }
  return "";
}

const char* installs_at(Os os) {
  switch (os) {
    case Os::linux_os: return "/etc/opencode/opencode.json";
    case Os::macos: return "/Library/Application Support/opencode/opencode.json";
    case Os::windows: return "%ProgramData%\\opencode\\opencode.json";
  }
  return "";
}

}  // namespace

AdapterResult render_opencode(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::opencode, p, t);
  const std::string tools_only =
      "OpenCode has no sandbox: only its own tools follow permission rules, bash is "
      "unconfined, and OPENCODE_PERMISSION overrides the managed file";

  Json perm = Json::object();
  Json read = Json::object(), edit = Json::object(), ext = Json::object();
  if (p.sandbox.mode == policy::SandboxMode::read_only) edit["*"] = "deny";
  if (p.sandbox.mode != policy::SandboxMode::off) ext["*"] = "ask";
  for (const auto& r : p.sandbox.writable_roots) ext[r.path + "/*"] = "allow";
  for (const auto& e : p.sandbox.protected_paths) {
    if (is_glob(e.path) && e.path.find('/') == std::string::npos) {
      for (const std::string& pat : {e.path, "*/" + e.path}) {
        read[pat] = "deny";
        edit[pat] = "deny";
      }
    } else {
      // Outside the worktree: external_directory is checked first.
      ext[e.path] = "deny";
      ext[e.path + "/*"] = "deny";
    }
  }

  // webfetch: one action for every URL.
  const bool deny_default = p.egress.effective_default() == policy::DefaultAction::deny;
  std::string webfetch = "allow";
  if (deny_default) {
    webfetch = "deny";
  } else if (!p.egress.denied_domains.empty()) {
    webfetch = "ask";
  }
  perm["webfetch"] = webfetch;
  if (!read.empty()) perm["read"] = read;
  if (!edit.empty()) perm["edit"] = edit;
  if (!ext.empty()) perm["external_directory"] = ext;

  if (p.sandbox.mode == policy::SandboxMode::off) {
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "nothing rendered: the policy turns the sandbox off");
  } else {
    b.hold_partial(Field::sandbox_mode,
                   p.sandbox.mode == policy::SandboxMode::read_only
                       ? "permission.edit \"*\": deny, external_directory \"*\": ask"
                       : "permission.external_directory \"*\": ask",
                   tools_only);
  }
  b.hold_partial(Field::writable_roots, "permission.external_directory \"ROOT/*\": allow", tools_only);
  b.hold_partial(Field::protected_paths, "permission.read/edit/external_directory deny", tools_only);

  std::string why = "OpenCode cannot limit egress by host (webfetch is \"" + webfetch +
                    "\" for every URL and bash is unconfined)";
  b.broker_all_egress(why);
  if (deny_default && !allow_entries(p).empty()) {
    b.warn(Field::allowed_domains, "webfetch is denied outright, stricter than the policy: the "
                                   "fetch tool cannot reach allowed hosts either");
  }
  b.broker(Field::require, "OpenCode has no fail-if-unavailable switch; `halo run` refuses to "
                           "start below enforcement.require");
  b.gateway(Holder::broker);
  if (t.via_broker) {
    b.warn("OpenCode has no proxy setting: start it with HTTPS_PROXY=http://127.0.0.1:" +
           std::to_string(t.broker_port) + " to send its fetches through the halo broker");
  }

  Json cfg = Json::object({{"permission", perm}});
  b.file(std::string(managed_dir(t.os)) + "/opencode.json", installs_at(t.os), json_text(cfg));
  return b.take();
}

}  // namespace halo::render
