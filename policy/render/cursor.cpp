// Cursor CLI: no system-wide file exists. Team policy lives in the admin dashboard; on
// disk there are only ~/.cursor/sandbox.json and <workspace>/.cursor/sandbox.json. halo
// renders the per-repo file (a template to commit or to copy into the dashboard) and
// says that it is not a lock.
//
// Dialect (vendor docs, VENDOR-FACTS.md 6): networkPolicy.allow "*.x" matches every
// subdomain AND the apex x; deny has the highest priority. So for an allowed "*.x" whose
// apex the policy does not allow (asked of the decision function), x is added to deny;
// a denied "*.x" also denies x, stricter than the policy when it allows x. Loopback,
// private and metadata addresses are blocked by the sandbox, so a local broker cannot be
// chained and loopback grants are held by the broker only under `halo run`.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"
#include "policy/render/json_text.h"

namespace halo::render {

AdapterResult render_cursor(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::cursor, p, t);
  const bool deny_default = p.egress.effective_default() == policy::DefaultAction::deny;
  const std::string not_managed =
      "Cursor has no system-wide file (only the team-admin dashboard locks it); the rendered "
      "per-repo .cursor/sandbox.json is unioned with ~/.cursor/sandbox.json, so a user can add "
      "allow entries";
  b.warn("nothing system-wide rendered: commit workspace/.cursor/sandbox.json to the repo or "
         "copy it into the team-admin dashboard; per-user files are ~/.cursor/sandbox.json and "
         "~/.cursor/cli-config.json");

  if (p.sandbox.mode == policy::SandboxMode::off) {
    return b.take_sandbox_off();
  }

  Json cfg = Json::object();
  const bool ro = p.sandbox.mode == policy::SandboxMode::read_only;
  cfg["type"] = ro ? "workspace_readonly" : "workspace_readwrite";
  if (!p.sandbox.writable_roots.empty()) {
    Json roots = Json::array();
    for (const auto& r : p.sandbox.writable_roots) roots.push_back(r.path);
    cfg["additionalReadwritePaths"] = roots;
  }
  b.hold_partial(Field::sandbox_mode, std::string("type: ") + (ro ? "workspace_readonly" : "workspace_readwrite"),
                 not_managed);
  b.hold_partial(Field::writable_roots, "additionalReadwritePaths", not_managed);
  b.none(Field::protected_paths, "Cursor's sandbox has no denied-paths key and keeps ~/.ssh "
                                 "readable; Read() deny rules in ~/.cursor/cli-config.json hold "
                                 "its own tools only");

  Json allow = Json::array(), deny = Json::array();
  std::vector<std::string> apex_added, apex_overblocked;
  if (deny_default) {
    for (const auto* e : allow_entries(p)) {
      allow.push_back(e->pattern);
      const std::string apex(e->base());
      if (e->wildcard() && !policy_allows(p, apex)) {
        apex_added.push_back(apex);
      }
    }
  }
  for (const auto& a : p.egress.allowed_addresses) allow.push_back(a.text);
  for (const auto* e : deny_entries(p)) {
    deny.push_back(e->pattern);
    const std::string apex(e->base());
    if (e->wildcard() && policy_allows(p, apex)) apex_overblocked.push_back(apex);
  }
  for (const auto& a : apex_added) {
    bool present = false;
    for (const auto& d : deny) present = present || d == a;
    if (!present) deny.push_back(a);
  }
  Json np = Json::object();
  np["default"] = deny_default ? "deny" : "allow";
  np["allow"] = allow;
  np["deny"] = deny;
  cfg["networkPolicy"] = np;

  b.hold_partial(Field::egress_default, std::string("networkPolicy.default: ") +
                                            (deny_default ? "deny" : "allow"),
                 not_managed);
  b.hold(Field::allowed_domains, Holder::native, EnforcementLevel::full, "networkPolicy.allow");
  b.hold(Field::presets, Holder::native, EnforcementLevel::full, "networkPolicy.allow (presets expanded)");
  if (!apex_added.empty()) {
    b.warn(Field::allowed_domains, "Cursor's \"*.x\" also matches the apex x, which the policy "
                                   "denies: added to networkPolicy.deny: " + join_list(apex_added));
  }
  if (!apex_overblocked.empty()) {
    b.hold_partial(Field::denied_domains, "networkPolicy.deny",
                   "Cursor's \"*.x\" also matches the apex, so denying it also denies " +
                       join_list(apex_overblocked) + ", which the policy allows");
  } else {
    b.hold(Field::denied_domains, Holder::native, EnforcementLevel::full, "networkPolicy.deny");
  }
  b.hold_partial(Field::allowed_addresses, "networkPolicy.allow (CIDR)",
                 "Cursor blocks private ranges by default; whether an allow entry reopens them "
                 "is not documented");
  b.broker(Field::loopback, "Cursor's sandbox blocks loopback, and no setting grants one port");
  b.broker(Field::require, "Cursor falls back to approval prompts where its sandbox is "
                           "unsupported; `halo run` refuses to start below enforcement.require");
  b.gateway(Holder::native);
  if (t.via_broker) {
    b.warn("Cursor cannot be chained to the halo broker: its sandbox blocks loopback");
  }
  b.file("workspace/.cursor/sandbox.json", "<workspace>/.cursor/sandbox.json", json_text(cfg),
         /*managed=*/false);
  return b.take();
}

}  // namespace halo::render
