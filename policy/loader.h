#pragma once
// Loading a policy: YAML files -> wire structs (policy/profile_doc.h) -> extends chain and
// unit overlays merged -> validated -> an immutable Policy with its compiled EgressRules.
//
// Two ways in, as on the command line:
//   load_profile("examples/profiles/strict.yaml", env)
//   load_ring("examples/policy-dir", "ring1", "payments", env)
//     reads policy-dir/rings.yaml (ring -> profile name), policy-dir/profiles/NAME.yaml
//     and policy-dir/units/UNIT.yaml (an overlay of egress and sandbox).
// Exceptions never escape: every problem is a Diagnostic with file:line:column, and
// one error means no policy.
#include <memory>
#include <string>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/policy.h"
#include "policy/presets.h"

namespace halo::policy {

// A change a unit overlay makes that weakens the ring's policy.
struct Loosening {
  SourceLoc loc;
  std::string what;  // e.g. "adds writable root /opt/x", "switches egress.default deny -> allow"
};

struct LoadResult {
  std::shared_ptr<const Policy> policy;  // null when diagnostics hold an error
  Diagnostics diagnostics;
  std::vector<Loosening> loosenings;
};

LoadResult load_profile(const std::string& file, const PresetEnvironment& env);
LoadResult load_ring(const std::string& policy_dir, const std::string& ring,
                     const std::string& unit, const PresetEnvironment& env);

// Loads from YAML text (tests, fuzzers). `name` is used as the file name in locations;
// extends is not allowed here.
LoadResult load_profile_text(const std::string& name, const std::string& yaml,
                             const PresetEnvironment& env);

}  // namespace halo::policy
