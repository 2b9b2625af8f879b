#pragma once
// The resolved, validated policy: what every consumer (broker, DNS filter, renderers,
// `halo run`, `halo egress test`) reads. Built only by the loader (policy/loader.h) after
// the extends chain and unit overlays are merged and validation passed; immutable after.
//
// Each rule keeps where it was written, so a decision can name "deniedDomains:
// pastebin.com (profiles/base.yaml:14)".
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/ip_address.h"

namespace halo::policy {

class EgressRules;

enum class SandboxMode : std::uint8_t { off, workspace_write, read_only };
enum class DefaultAction : std::uint8_t { allow, deny };
enum class EnforcementLevel : std::uint8_t { none = 0, partial = 1, full = 2 };

const char* to_string(SandboxMode m);        // "off" | "workspace-write" | "read-only"
const char* to_string(DefaultAction d);      // "allow" | "deny"
const char* to_string(EnforcementLevel l);   // "none" | "partial" | "full"

struct PathEntry {
  std::string path;  // as written: absolute, "~/..." or (protectedPaths only) a glob like ".env*"
  SourceLoc loc;
};

// A domain pattern: "example.com" (exactly that name) or "*.example.com" (any name
// under example.com, at any depth, never example.com itself).
struct DomainEntry {
  std::string pattern;  // canonical (lower case A-labels), possibly with a leading "*."
  std::string origin;   // "allowedDomains", "deniedDomains" or "preset vcs"
  SourceLoc loc;
  bool wildcard() const { return pattern.size() > 2 && pattern[0] == '*' && pattern[1] == '.'; }
  // "*.example.com" -> "example.com"; "example.com" -> "example.com"
  std::string_view base() const;
};

struct PresetRef {
  std::string name;  // "vcs", "package-registries", "model-providers"
  SourceLoc loc;
};

struct LoopbackGrant {
  std::uint16_t port = 0;
  SourceLoc loc;
};

struct AddressGrant {
  Cidr range;
  std::string text;  // as written
  SourceLoc loc;
};

struct SandboxPolicy {
  SandboxMode mode = SandboxMode::workspace_write;
  bool mode_set = false;  // false: mode is the default, nothing in the files named it
  SourceLoc mode_loc;
  std::vector<PathEntry> writable_roots;
  std::vector<PathEntry> protected_paths;  // the "credentials" preset already expanded
};

struct EgressPolicy {
  std::optional<DefaultAction> default_action;  // as written; see effective_default()
  SourceLoc default_loc;
  std::vector<DomainEntry> allowed_domains;  // as written in allowedDomains
  std::vector<PresetRef> presets;
  std::vector<DomainEntry> preset_domains;  // presets expanded (origin "preset NAME")
  std::vector<DomainEntry> denied_domains;
  std::vector<LoopbackGrant> loopback;
  std::vector<AddressGrant> allowed_addresses;

  // Unset means deny when anything is allowed, allow otherwise.
  DefaultAction effective_default() const;
  // Does this policy restrict egress at all (default deny in effect, or any deny rule)?
  bool restricted() const;
  bool any_field_set() const;
};

struct Policy {
  std::string name;                // the profile file, or "ring R" / "ring R, unit U"
  std::vector<std::string> files;  // the extends chain root first, the named file, then units
  SandboxPolicy sandbox;
  EgressPolicy egress;
  EnforcementLevel require = EnforcementLevel::full;
  SourceLoc require_loc;
  std::optional<std::string> gateway;
  SourceLoc gateway_loc;

  // The compiled decision function; built once when the policy is loaded.
  std::shared_ptr<const EgressRules> rules;
  const EgressRules& egress_rules() const { return *rules; }
};

}  // namespace halo::policy
