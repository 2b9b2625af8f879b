// Claude Code (2.1.x): one managed-settings.json (policySettings, highest precedence).
//
// Dialect (VENDOR-FACTS.md 1.2): sandbox.network domains "*.x" = subdomains only, exact
// otherwise, "*" = every host, deny wins; no default-allow switch ("*" + deny list
// instead); allowUnixSockets is a path list, not a bool; one schema error anywhere in
// `sandbox` drops the whole block, so only keys of known type are written.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"
#include "policy/render/json_text.h"

namespace halo::render {

namespace {

const char* managed_path(Os os) {
  switch (os) {
    case Os::linux_os: return "etc/claude-code/managed-settings.json";
    case Os::macos: return "Library/Application Support/ClaudeCode/managed-settings.json";
    case Os::windows: return "Program Files/ClaudeCode/managed-settings.json";
  }
  return "";
}

const char* installs_at(Os os) {
  switch (os) {
    case Os::linux_os: return "/etc/claude-code/managed-settings.json";
    case Os::macos: return "/Library/Application Support/ClaudeCode/managed-settings.json";
    case Os::windows: return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
  }
  return "";
}

// Permission-rule path: "//abs" for absolute, "~/x" kept, a bare glob anywhere below cwd.
std::string rule_path(const std::string& p) {
  if (is_absolute(p)) return "/" + p;
  if (is_home_path(p)) return p;
  return p.find('/') == std::string::npos ? "**/" + p : p;
}

// Sandbox path: absolute and ~/ as written; a bare glob relative to the project root.
std::string sandbox_path(const std::string& p) {
  if (is_absolute(p) || is_home_path(p)) return p;
  return p.find('/') == std::string::npos ? "**/" + p : p;
}

}  // namespace

AdapterResult render_claude_code(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::claude_code, p, t);
  const bool sandbox_on = p.sandbox.mode != policy::SandboxMode::off;
  const bool deny_default = p.egress.effective_default() == policy::DefaultAction::deny;

  Json deny = Json::array();
  Json sandbox = Json::object();
  if (sandbox_on) {
    sandbox["enabled"] = true;
    sandbox["failIfUnavailable"] = p.require != EnforcementLevel::none;
    sandbox["allowUnsandboxedCommands"] = false;
  }

  // sandbox.mode
  if (!sandbox_on) {
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "nothing rendered: the policy turns the sandbox off");
  } else if (p.sandbox.mode == policy::SandboxMode::read_only) {
    deny.push_back("Edit");
    b.hold_partial(Field::sandbox_mode, "permissions.deny Edit + sandbox.enabled",
                   "Claude Code's sandbox has no read-only switch: the Edit tool is denied, but "
                   "shell commands can still write the project directory");
  } else if (t.os == Os::windows) {
    b.hold_partial(Field::sandbox_mode, "sandbox.enabled",
                   "the Windows sandbox is deny-list only: commands write wherever the user "
                   "can, minus sandbox.filesystem.denyWrite");
  } else {
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "sandbox.enabled, allowUnsandboxedCommands: false");
  }

  // sandbox.writableRoots
  Json fs = Json::object();
  if (!p.sandbox.writable_roots.empty()) {
    if (t.os == Os::windows) {
      b.none(Field::writable_roots,
             "the Windows sandbox rejects filesystem.allowWrite (deny-list only); writable "
             "roots are not rendered");
    } else {
      Json roots = Json::array();
      for (const auto& r : p.sandbox.writable_roots) roots.push_back(r.path);
      fs["allowWrite"] = roots;
      b.hold(Field::writable_roots, Holder::native, EnforcementLevel::full,
             "sandbox.filesystem.allowWrite");
    }
  }

  // sandbox.protectedPaths: sandbox deny lists for shell commands, permission rules for
  // the file tools.
  if (!p.sandbox.protected_paths.empty()) {
    Json deny_read = Json::array(), deny_write = Json::array();
    std::vector<std::string> globs;
    for (const auto& e : p.sandbox.protected_paths) {
      deny_read.push_back(sandbox_path(e.path));
      deny_write.push_back(sandbox_path(e.path));
      const std::string rp = rule_path(e.path);
      deny.push_back("Read(" + rp + ")");
      deny.push_back("Edit(" + rp + ")");
      if (is_glob(e.path)) {
        globs.push_back(e.path);
      } else {
        deny.push_back("Read(" + rp + "/**)");
        deny.push_back("Edit(" + rp + "/**)");
      }
    }
    fs["denyRead"] = deny_read;
    fs["denyWrite"] = deny_write;
    if (!globs.empty() && t.os == Os::linux_os) {
      b.hold_partial(Field::protected_paths,
                     "sandbox.filesystem.denyRead/denyWrite, permissions.deny Read()/Edit()",
                     "on Linux the sandbox skips globs in denyWrite and expands denyRead globs "
                     "once at start, so " + join_list(globs) +
                         " is protected from shell commands only for files that already exist "
                         "(the file tools are denied in full)");
    } else {
      b.hold(Field::protected_paths, Holder::native, EnforcementLevel::full,
             "sandbox.filesystem.denyRead/denyWrite, permissions.deny Read()/Edit()");
    }
  }
  if (!fs.empty() && sandbox_on) sandbox["filesystem"] = fs;

  // egress: one network block; the WebFetch tool runs outside the sandbox and follows
  // permission rules instead.
  Json net = Json::object();
  Json allowed = Json::array(), denied = Json::array();
  if (deny_default) {
    for (const auto* e : allow_entries(p)) allowed.push_back(e->pattern);
  } else {
    allowed.push_back("*");
  }
  for (const auto* e : deny_entries(p)) {
    denied.push_back(e->pattern);
    deny.push_back("WebFetch(domain:" + e->pattern + ")");
  }
  net["allowedDomains"] = allowed;
  net["deniedDomains"] = denied;
  net["allowManagedDomainsOnly"] = true;
  if (t.via_broker) net["httpProxyPort"] = t.broker_port;

  const Holder egress_holder = t.via_broker ? Holder::broker : Holder::native;
  const std::string via = "sandbox.network.httpProxyPort " + std::to_string(t.broker_port) +
                          " -> halo broker (run `halo broker --listen 127.0.0.1:" +
                          std::to_string(t.broker_port) + "`)";
  auto egress = [&](Field f, const std::string& key) {
    b.hold(f, egress_holder, EnforcementLevel::full, t.via_broker ? via : key);
  };
  if (!sandbox_on) {
    // Validation forbids egress rules with mode off; a bare default still needs a word.
    b.none(Field::egress_default, "the sandbox is off, so Claude Code does not limit egress");
  } else if (deny_default) {
    b.hold_partial(Field::egress_default,
                   t.via_broker ? via : "sandbox.network.allowManagedDomainsOnly",
                   "the WebFetch tool runs outside the sandbox: hosts not listed prompt the "
                   "user instead of being refused");
  } else {
    egress(Field::egress_default, "sandbox.network.allowedDomains [\"*\"] (no default-allow "
                                  "switch exists)");
  }
  egress(Field::allowed_domains, "sandbox.network.allowedDomains");
  egress(Field::presets, "sandbox.network.allowedDomains (presets expanded)");
  egress(Field::denied_domains, "sandbox.network.deniedDomains, permissions.deny WebFetch(domain:)");
  if (t.via_broker) {
    b.warn(Field::egress_default, "with httpProxyPort set Claude Code's sandbox sends all "
                                  "traffic to the halo broker, which must be listening");
  }
  b.broker(Field::loopback, "Claude Code cannot grant a single loopback port (a \"localhost\" "
                            "entry would open every port)");
  b.broker(Field::allowed_addresses,
           "sandbox.network.allowedDomains takes host names, not address ranges");
  if (sandbox_on) sandbox["network"] = net;

  b.hold(Field::require, Holder::native, EnforcementLevel::full,
         p.require == EnforcementLevel::none ? "nothing required"
                                             : "sandbox.failIfUnavailable: true");
  b.gateway(egress_holder);

  Json settings = Json::object();
  Json perms = Json::object();
  perms["deny"] = deny;
  perms["disableBypassPermissionsMode"] = "disable";
  settings["permissions"] = perms;
  if (sandbox_on) settings["sandbox"] = sandbox;
  b.file(managed_path(t.os), installs_at(t.os), json_text(settings));
  return b.take();
}

}  // namespace halo::render
