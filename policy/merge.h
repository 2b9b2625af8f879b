#pragma once
// Building a Policy from documents: each file of an extends chain, then each unit, is
// applied on top of what came before. deniedDomains and protectedPaths union (restrictions
// accumulate); allowedDomains, presets, writableRoots, loopback and allowedAddresses
// replace; single values replace. Entry checks run here so errors name the line.
#include <vector>

#include "policy/diagnostics.h"
#include "policy/loader.h"
#include "policy/policy.h"
#include "policy/presets.h"
#include "policy/profile_doc.h"

namespace halo::policy {

void apply_doc(const ProfileDoc& doc, const std::vector<PresetDefinition>& presets,
               Policy& acc, Diagnostics& diags);

// What `after` (the ring's policy with a unit applied) opens that `before` did not.
std::vector<Loosening> find_loosenings(const Policy& before, const Policy& after,
                                       const SourceLoc& unit);

}  // namespace halo::policy
