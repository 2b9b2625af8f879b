#pragma once
// For `halo egress test`: given one decision of the policy, which mechanism enforces it
// in each harness, how well, and the warnings that qualify it. The decision is mapped to
// the policy field that made it (deniedDomains, allowedDomains, presets, default,
// loopback, allowedAddresses) and each adapter's report for that field is returned.
#include <string>
#include <vector>

#include "policy/egress_rules.h"
#include "policy/render/render.h"

namespace halo::render {

struct HarnessEnforcement {
  Harness harness;
  Field field;  // the policy field behind the decision
  Holder held_by = Holder::none;
  EnforcementLevel level = EnforcementLevel::none;
  std::string mechanism;
  std::vector<std::string> warnings;  // the field's warnings for this harness
};

// The field a decision came from.
Field decision_field(const policy::Decision& d);

// One entry per harness in `which` (empty = all six), in all_harnesses() order.
std::vector<HarnessEnforcement> harness_enforcement(const policy::Policy& p,
                                                    const policy::Decision& d, Os os,
                                                    const std::vector<Harness>& which = {});

}  // namespace halo::render
