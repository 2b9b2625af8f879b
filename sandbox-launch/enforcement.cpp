#include "sandbox-launch/enforcement.h"

#include <algorithm>

namespace halo::launch {

const char* level_name(policy::EnforcementLevel l) {
  switch (l) {
    case policy::EnforcementLevel::full: return "full";
    case policy::EnforcementLevel::partial: return "partial";
    case policy::EnforcementLevel::none: return "none";
  }
  return "none";
}

policy::EnforcementLevel Enforcement::overall() const {
  return std::min(network.level, filesystem.level);
}

namespace {

std::string describe(const char* what, const DimensionEnforcement& d, bool with_reasons) {
  std::string out = std::string(what) + " " + level_name(d.level) + " (" + d.mechanism;
  if (with_reasons) {
    for (const auto& r : d.reasons) out += "; " + r;
  }
  return out + ")";
}

}  // namespace

std::string Enforcement::line() const {
  std::string out = "halo: " + describe("network", network, true) + ", " +
                    describe("filesystem", filesystem, true);
  if (!loopback_grants.empty()) {
    out += ", loopback grants";
    for (std::size_t i = 0; i < loopback_grants.size(); ++i)
      out += (i ? "," : " ") + std::to_string(loopback_grants[i]);
  }
  return out;
}

std::optional<std::string> Enforcement::shortfall(policy::EnforcementLevel require,
                                                  const std::string& require_where) const {
  std::vector<std::string> missing;
  if (network.level < require) missing.push_back(describe("network", network, true));
  if (filesystem.level < require) missing.push_back(describe("filesystem", filesystem, true));
  if (missing.empty()) return std::nullopt;
  std::string out = "halo: refusing to run: ";
  for (std::size_t i = 0; i < missing.size(); ++i) out += (i ? " and " : "") + missing[i];
  out += std::string(missing.size() == 1 ? " is" : " are") + " below enforcement.require " +
         level_name(require);
  if (!require_where.empty()) out += " (" + require_where + ")";
  out += "; fix what the reason names, or lower enforcement.require in the profile";
  return out;
}

}  // namespace halo::launch
