// Codex (0.171): one requirements.toml, the enforced layer.
//
// Shape checked with the real CLI (VENDOR-FACTS.md 0.5, 2.2): permission profiles are
// the current mechanism, so the sandbox is a managed profile "halo" named in
// [allowed_permission_profiles] (a table) and default_permissions; allowed_sandbox_modes
// is kept for older clients and must include "read-only". Glob paths in a profile live
// in the ":workspace_roots" sub-table. Domains: "*.x" = subdomains only (the policy's
// meaning), "*" only in allow lists, deny wins; enforced by Codex's managed proxy when
// [experimental_network] is enabled.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"

namespace halo::render {

namespace {

// Linux expands glob deny rules by scanning; this caps the depth (Codex warns without it).
constexpr int kGlobScanMaxDepth = 6;

// Codex's docs call allowed_sandbox_modes "a compatibility constraint for clients before
// 0.138.0": older clients know no managed permission profiles (and ignore the tables).
constexpr Version kPermissionProfiles{0, 138, 0};

std::string glob_key(const std::string& p) {
  return p.find('/') == std::string::npos ? "**/" + p : p;
}

}  // namespace

AdapterResult render_codex(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::codex, p, t);
  const auto mode = p.sandbox.mode;
  const bool deny_default = p.egress.effective_default() == policy::DefaultAction::deny;
  const auto allows = allow_entries(p);
  const auto denies = deny_entries(p);

  std::string out = "# Rendered by halo from " + join_list(p.files, 8) +
                    ". Re-render instead of editing.\n";
  if (t.os == Os::windows) {
    out += "# Install as %ProgramData%\\OpenAI\\Codex\\requirements.toml\n";
  }

  std::vector<std::string> globs, plain;
  for (const auto& e : p.sandbox.protected_paths) (is_glob(e.path) ? globs : plain).push_back(e.path);

  // sandbox.mode
  if (mode == policy::SandboxMode::off) {
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "nothing rendered: the policy turns the sandbox off (Codex keeps its own default)");
  } else if (mode == policy::SandboxMode::read_only) {
    out += "\nallowed_sandbox_modes = [\"read-only\"]\n";
    out += "default_permissions = \":read-only\"\n";
    out += "\n[allowed_permission_profiles]\n\":read-only\" = true\n";
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "allowed_sandbox_modes [read-only], allowed_permission_profiles :read-only");
  } else {
    out += "\nallowed_sandbox_modes = [\"read-only\", \"workspace-write\"]\n";
    out += "default_permissions = \"halo\"\n";
    out += "\n[allowed_permission_profiles]\n\":read-only\" = true\n\"halo\" = true\n";
    out += "\n[permissions.halo.filesystem]\n\":root\" = \"read\"\n";
    out += "\":workspace_roots\" = { \".\" = \"write\"";
    for (const auto& g : globs) out += ", " + toml_string(glob_key(g)) + " = \"none\"";
    out += " }\n\":tmpdir\" = \"write\"\n\":slash_tmp\" = \"write\"\n";
    for (const auto& r : p.sandbox.writable_roots) out += toml_string(r.path) + " = \"write\"\n";
    for (const auto& x : plain) out += toml_string(x) + " = \"none\"\n";
    if (!globs.empty()) out += "glob_scan_max_depth = " + std::to_string(kGlobScanMaxDepth) + "\n";
    const bool net = !(deny_default && allows.empty());
    out += "\n[permissions.halo.network]\nenabled = ";
    out += net ? "true\n" : "false\n";
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "managed permission profile \"halo\" (default_permissions), allowed_sandbox_modes");
  }

  // sandbox.writableRoots
  if (mode == policy::SandboxMode::workspace_write) {
    b.hold(Field::writable_roots, Holder::native, EnforcementLevel::full,
           "[permissions.halo.filesystem] \"ROOT\" = \"write\"");
    b.warn(Field::writable_roots, "Codex's Linux sandbox fails at session start when a "
                                  "writable root does not exist: create them first");
  }
  if (t.pin && *t.pin < kPermissionProfiles && mode == policy::SandboxMode::workspace_write) {
    const std::string old = "pinned Codex " + t.pin->to_string() +
                            " predates managed permission profiles (0.138.0, per Codex's "
                            "compatibility note): ";
    b.hold_partial(Field::sandbox_mode, "allowed_sandbox_modes",
                   old + "only allowed_sandbox_modes holds the mode");
    b.hold_partial(Field::writable_roots, "not held",
                   old + "the extra writable roots are not granted (stricter than the policy)");
  }

  // sandbox.protectedPaths: the deny_read floor applies to every profile.
  if (!p.sandbox.protected_paths.empty()) {
    std::vector<std::string> floor;
    for (const auto& e : p.sandbox.protected_paths) {
      floor.push_back(is_glob(e.path) ? glob_key(e.path) : e.path);
    }
    out += "\n[permissions.filesystem]\ndeny_read = " + toml_string_array(floor) + "\n";
    if (!globs.empty() && t.os != Os::macos) {
      b.hold_partial(Field::protected_paths, "[permissions.filesystem] deny_read",
                     "outside macOS Codex expands glob rules (" + join_list(globs) +
                         ") by scanning at most " + std::to_string(kGlobScanMaxDepth) +
                         " directories deep; deeper or later files are not covered");
    } else {
      b.hold(Field::protected_paths, Holder::native, EnforcementLevel::full,
             "[permissions.filesystem] deny_read");
    }
  }

  // egress: the managed network proxy.
  out += "\n[experimental_network]\nenabled = true\nmanaged_allowed_domains_only = true\n";
  out += "allow_local_binding = false\n";
  if (t.via_broker) out += "allow_upstream_proxy = true\n";
  out += "\n[experimental_network.domains]\n";
  if (!deny_default) out += "\"*\" = \"allow\"\n";
  if (deny_default) {
    for (const auto* e : allows) out += toml_string(e->pattern) + " = \"allow\"\n";
  }
  for (const auto* e : denies) out += toml_string(e->pattern) + " = \"deny\"\n";

  const std::string proxy = "[experimental_network.domains] (Codex managed proxy)";
  b.hold(Field::egress_default, Holder::native, EnforcementLevel::full,
         deny_default ? "managed_allowed_domains_only + allowlist" : "\"*\" = \"allow\"");
  b.hold(Field::allowed_domains, Holder::native, EnforcementLevel::full, proxy);
  b.hold(Field::presets, Holder::native, EnforcementLevel::full, proxy + ", presets expanded");
  b.hold(Field::denied_domains, Holder::native, EnforcementLevel::full, proxy + " = \"deny\"");
  b.warn("[experimental_network] is documented as experimental and the first Codex version "
         "that enforces it is not documented; older versions ignore the table");
  if (t.via_broker) {
    b.warn("allow_upstream_proxy is on: start Codex with HTTPS_PROXY=http://127.0.0.1:" +
           std::to_string(t.broker_port) + " so its proxy chains to the halo broker");
  }
  b.broker(Field::loopback, "Codex's proxy opens loopback by name or literal for every port "
                            "(allow_local_binding), never one port");
  b.broker(Field::allowed_addresses, "Codex's domain table takes names and literals, not "
                                     "address ranges; private ranges stay blocked");
  b.hold(Field::require, Holder::native, EnforcementLevel::full,
         "Codex fails the command when its sandbox cannot start");
  b.gateway(Holder::native);

  if (t.os == Os::windows) {
    b.file("ProgramData/OpenAI/Codex/requirements.toml",
           "%ProgramData%\\OpenAI\\Codex\\requirements.toml", out);
  } else {
    b.file("etc/codex/requirements.toml", "/etc/codex/requirements.toml", out);
  }
  return b.take();
}

}  // namespace halo::render
