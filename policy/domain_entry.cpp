#include "policy/policy.h"

namespace halo::policy {

std::string_view DomainEntry::base() const {
  std::string_view p = pattern;
  if (wildcard()) p.remove_prefix(2);
  return p;
}

const char* to_string(SandboxMode m) {
  switch (m) {
    case SandboxMode::off: return "off";
    case SandboxMode::workspace_write: return "workspace-write";
    case SandboxMode::read_only: return "read-only";
  }
  return "?";
}

const char* to_string(DefaultAction d) { return d == DefaultAction::allow ? "allow" : "deny"; }

const char* to_string(EnforcementLevel l) {
  switch (l) {
    case EnforcementLevel::none: return "none";
    case EnforcementLevel::partial: return "partial";
    case EnforcementLevel::full: return "full";
  }
  return "?";
}

DefaultAction EgressPolicy::effective_default() const {
  if (default_action) return *default_action;
  // Loopback grants open host ports, not the network, so they do not count here.
  bool anything_allowed =
      !allowed_domains.empty() || !presets.empty() || !allowed_addresses.empty();
  return anything_allowed ? DefaultAction::deny : DefaultAction::allow;
}

bool EgressPolicy::restricted() const {
  return effective_default() == DefaultAction::deny || !denied_domains.empty();
}

bool EgressPolicy::any_field_set() const {
  return default_action.has_value() || !allowed_domains.empty() || !presets.empty() ||
         !denied_domains.empty() || !loopback.empty() || !allowed_addresses.empty();
}

}  // namespace halo::policy
