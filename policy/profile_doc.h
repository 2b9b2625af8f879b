#pragma once
// The on-disk shape of a profile or unit file, kept apart from the compiled Policy.
// parse_profile_doc reads YAML text into these structs, recording file:line:column for
// every value, and reports (never throws) syntax errors, wrong types, duplicate and
// unknown keys. Accepted keys:
//
//   profile: extends, description, sandbox{mode, writableRoots, protectedPaths},
//            permissions{sandbox}, egress{default, allowedDomains, presets, deniedDomains,
//            loopback, allowedAddresses}, enforcement{require}, gateway
//   unit:    description, sandbox{...}, egress{...}
#include <optional>
#include <string>
#include <vector>

#include "policy/diagnostics.h"

namespace halo::policy {

struct LocatedString {
  std::string value;
  SourceLoc loc;
};
using LocatedList = std::vector<LocatedString>;

struct SandboxDoc {
  std::optional<LocatedString> mode;
  std::optional<LocatedList> writable_roots;
  std::optional<LocatedList> protected_paths;
};

struct EgressDoc {
  std::optional<LocatedString> default_action;
  std::optional<LocatedList> allowed_domains;
  std::optional<LocatedList> presets;
  std::optional<LocatedList> denied_domains;
  std::optional<LocatedList> loopback;  // integers, checked when compiled
  std::optional<LocatedList> allowed_addresses;
};

struct ProfileDoc {
  std::string file;
  std::optional<LocatedString> extends;
  std::optional<SandboxDoc> sandbox;
  std::optional<LocatedString> permissions_sandbox;
  std::optional<EgressDoc> egress;
  std::optional<LocatedString> require;
  std::optional<LocatedString> gateway;
};

enum class DocKind { profile, unit };

// Returns nullopt when the text is not YAML or not a mapping at the top; other problems
// are added to `diags` and the document is returned with what could be read.
std::optional<ProfileDoc> parse_profile_doc(const std::string& file, const std::string& text,
                                            DocKind kind, Diagnostics& diags);

// Closest known key within edit distance 2, for "did you mean" hints; empty if none.
std::string closest_key(std::string_view key, const std::vector<std::string_view>& known);

}  // namespace halo::policy
