#pragma once
// What a started sandbox actually holds, per dimension (DESIGN.md, Enforcement levels),
// with the reasons for anything short of full. Built by the backend from what the
// kernel accepted, not from what was asked.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace halo::launch {

struct DimensionEnforcement {
  policy::EnforcementLevel level = policy::EnforcementLevel::none;
  std::string mechanism;             // "linux-netns", "env", "landlock abi 6", "off", ...
  std::vector<std::string> reasons;  // why not full; empty when full
};

struct Enforcement {
  std::string backend;  // "linux-netns" | "env"
  DimensionEnforcement network;
  DimensionEnforcement filesystem;
  std::vector<std::uint16_t> loopback_grants;

  // The lower of the two levels.
  policy::EnforcementLevel overall() const;

  // The start line, without trailing newline, e.g.
  // "halo: network full (linux-netns), filesystem full (landlock abi 6), loopback grants 8080"
  std::string line() const;

  // Empty when both dimensions reach `require`; otherwise the one refusal line (what is
  // missing, and how to fix it where the reasons say so).
  std::optional<std::string> shortfall(policy::EnforcementLevel require,
                                       const std::string& require_where) const;
};

// "full" | "partial" | "none" (policy::to_string lives in halo_policy; this one is
// header-light for platform code).
const char* level_name(policy::EnforcementLevel l);

}  // namespace halo::launch
