// Copilot CLI (1.0.93+): managed-settings.json, key `sandbox` (composes across layers in
// the most restrictive direction: booleans force-on/deny-wins, grants intersect, deny
// lists union).
//
// Dialect (VENDOR-FACTS.md 4): allowedHosts exact or "*.x" = strict subdomains (the
// policy's meaning); a non-empty list denies everything else. blockedHosts: a plain "x"
// also blocks every subdomain of x, so a policy that denies x but allows something under
// it cannot be rendered exactly. Invalid host entries are dropped silently by Copilot,
// so only canonical names go in.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"
#include "policy/render/json_text.h"

namespace halo::render {

namespace {

// Copilot's managed sandbox reached all users in 1.0.93; older clients are locked out
// while the key is set.
constexpr Version kMinSandbox{1, 0, 93};

const char* managed_path(Os os) {
  switch (os) {
    case Os::linux_os: return "etc/github-copilot/managed-settings.json";
    case Os::macos: return "Library/Application Support/GitHubCopilot/managed-settings.json";
    case Os::windows: return "Program Files/GitHubCopilot/managed-settings.json";
  }
  return "";
}

const char* installs_at(Os os) {
  switch (os) {
    case Os::linux_os: return "/etc/github-copilot/managed-settings.json";
    case Os::macos: return "/Library/Application Support/GitHubCopilot/managed-settings.json";
    case Os::windows: return "%ProgramFiles%\\GitHubCopilot\\managed-settings.json";
  }
  return "";
}

// Names the policy allows that Copilot's blockedHosts entry `x` would block: the allow
// patterns below x, and (asked of the decision function) an unlisted subdomain of x.
std::vector<std::string> overblocked(const policy::Policy& p, const policy::DomainEntry& deny) {
  std::vector<std::string> out;
  const std::string_view x = deny.pattern;
  for (const auto* a : allow_entries(p)) {
    std::string probe = representative(*a);
    if (probe != x && is_at_or_below(probe, x) && policy_allows(p, probe)) out.push_back(a->pattern);
  }
  if (policy_allows(p, unlisted_subdomain(x))) out.push_back("*." + std::string(x) + " (unlisted)");
  return out;
}

}  // namespace

AdapterResult render_copilot_cli(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::copilot_cli, p, t);
  const bool deny_default = p.egress.effective_default() == policy::DefaultAction::deny;

  if (t.pin && *t.pin < kMinSandbox) {
    const std::string why = "pinned Copilot CLI " + t.pin->to_string() +
                            " predates the managed sandbox (1.0.93); rendering it would lock "
                            "these clients out, so nothing is rendered";
    for (Field f : {Field::sandbox_mode, Field::writable_roots, Field::protected_paths}) b.none(f, why);
    for (Field f : {Field::egress_default, Field::allowed_domains, Field::presets,
                    Field::denied_domains, Field::loopback, Field::allowed_addresses, Field::require}) {
      b.broker(f, why);
    }
    b.gateway(Holder::broker);
    return b.take();
  }
  if (p.sandbox.mode == policy::SandboxMode::off) {
    return b.take_sandbox_off();
  }
  if (t.os != Os::linux_os) {
    b.warn(std::string("the managed file path on ") + to_string(t.os) +
           " comes from the shared Copilot managed-settings channel and is not confirmed for "
           "the CLI; MDM delivery is the documented alternative");
  }

  Json fsj = Json::object();
  Json rw = Json::array();
  if (p.sandbox.mode == policy::SandboxMode::read_only) {
    fsj["addCurrentWorkingDirectory"] = false;
  }
  for (const auto& r : p.sandbox.writable_roots) rw.push_back(r.path);
  fsj["readwritePaths"] = rw;
  Json denied_paths = Json::array();
  std::vector<std::string> globs;
  for (const auto& e : p.sandbox.protected_paths) {
    if (is_glob(e.path)) globs.push_back(e.path); else denied_paths.push_back(e.path);
  }
  if (!denied_paths.empty()) fsj["deniedPaths"] = denied_paths;

  b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
         p.sandbox.mode == policy::SandboxMode::read_only
             ? "sandbox.enabled, allowBypass: false, readwritePaths [] + addCurrentWorkingDirectory: false"
             : "sandbox.enabled, allowBypass: false");
  b.hold(Field::writable_roots, Holder::native, EnforcementLevel::full,
         "sandbox.userPolicy.filesystem.readwritePaths (a managed list can only shrink the grant)");
  if (!globs.empty()) {
    b.hold_partial(Field::protected_paths, "sandbox.userPolicy.filesystem.deniedPaths",
                   "deniedPaths takes paths, not globs: " + join_list(globs) + " is not rendered");
  } else {
    b.hold(Field::protected_paths, Holder::native, EnforcementLevel::full,
           "sandbox.userPolicy.filesystem.deniedPaths");
  }

  // Network.
  Json net = Json::object();
  Json allowed = Json::array(), blocked = Json::array();
  const auto allows = allow_entries(p);
  if (deny_default) {
    for (const auto* e : allows) allowed.push_back(e->pattern);
  }
  net["allowOutbound"] = !(deny_default && allows.empty());
  net["allowLocalNetwork"] = false;
  net["allowedHosts"] = allowed;
  std::vector<std::string> over;
  for (const auto* e : deny_entries(p)) {
    blocked.push_back(e->pattern);
    if (!e->wildcard()) {
      for (auto& o : overblocked(p, *e)) over.push_back(o + " under " + e->pattern);
    }
  }
  net["blockedHosts"] = blocked;
  if (t.via_broker) {
    net["proxy"] = Json::object({{"url", "http://127.0.0.1:" + std::to_string(t.broker_port)}});
  }

  const std::string mech = "sandbox.userPolicy.network";
  if (t.os == Os::windows) {
    const std::string why = "on Windows only programs that honour the sandbox proxy are held";
    b.hold_partial(Field::egress_default, mech + ".allowOutbound/allowedHosts", why);
    b.hold_partial(Field::allowed_domains, mech + ".allowedHosts", why);
    b.hold_partial(Field::presets, mech + ".allowedHosts (presets expanded)", why);
    b.hold_partial(Field::denied_domains, mech + ".blockedHosts", why);
  } else {
    b.hold(Field::egress_default, Holder::native, EnforcementLevel::full,
           deny_default ? (allows.empty() ? mech + ".allowOutbound: false" : mech + ".allowedHosts (non-empty)")
                        : mech + ".allowOutbound: true, empty allowedHosts");
    b.hold(Field::allowed_domains, Holder::native, EnforcementLevel::full, mech + ".allowedHosts");
    b.hold(Field::presets, Holder::native, EnforcementLevel::full, mech + ".allowedHosts (presets expanded)");
    b.hold(Field::denied_domains, Holder::native, EnforcementLevel::full, mech + ".blockedHosts");
  }
  if (!over.empty()) {
    b.hold_partial(Field::denied_domains, mech + ".blockedHosts",
                   "blockedHosts also blocks subdomains, stricter than the policy, which allows " +
                       join_list(over));
  }
  if (t.via_broker) {
    b.warn(Field::egress_default, "sandbox traffic goes upstream through the halo broker at "
                                  "127.0.0.1:" + std::to_string(t.broker_port) +
                                  ", which must be listening");
  }
  b.broker(Field::loopback, "allowLocalNetwork would open every loopback port; it stays off");
  b.broker(Field::allowed_addresses, "allowedHosts takes names and single addresses, not ranges");
  b.hold(Field::require, Holder::native, EnforcementLevel::full,
         p.require == EnforcementLevel::none ? "nothing required" : "sandbox.failIfUnavailable: true");
  b.gateway(Holder::native);

  Json sandbox = Json::object();
  sandbox["enabled"] = true;
  sandbox["failIfUnavailable"] = p.require != EnforcementLevel::none;
  sandbox["allowBypass"] = false;
  sandbox["userPolicy"] = Json::object({{"filesystem", fsj}, {"network", net}});
  Json settings = Json::object({{"sandbox", sandbox}});
  b.file(managed_path(t.os), installs_at(t.os), json_text(settings));
  return b.take();
}

}  // namespace halo::render
