#pragma once
// Validation: every bypass-shaped value or combination is an error (DESIGN.md, Validate).
// Entry checks run while each file is read (so errors point at the line that has them);
// combination checks run once on the merged policy.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/policy.h"
#include "policy/presets.h"

namespace halo::policy {

struct EntryProblem {
  std::string message;
  std::string fix;
};

// A domain-list entry: "example.com" or "*.example.com", canonical lower-case A-labels.
// Rejects a bare "*", URLs, ports, paths, upper case, middle or trailing wildcards, IP
// literals, trailing dots, localhost names and anything normalize_host would change.
std::optional<EntryProblem> check_domain_pattern(std::string_view entry);

// An allowedAddresses entry: a CIDR range wholly outside loopback, link-local, multicast,
// unspecified and reserved space.
std::optional<EntryProblem> check_address_range(std::string_view entry);

// Combination checks on the merged policy (rules already compiled).
void validate_policy(const Policy& policy, Diagnostics& diags);

}  // namespace halo::policy
