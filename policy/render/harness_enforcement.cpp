// Per-harness enforcement of one decision (harness_enforcement.h).
#include "policy/render/harness_enforcement.h"

#include <algorithm>

namespace halo::render {

Field decision_field(const policy::Decision& d) {
  using policy::Reason;
  switch (d.reason) {
    case Reason::denied_domain: return Field::denied_domains;
    case Reason::allowed_domain:
      return d.domain && d.domain->origin.starts_with("preset") ? Field::presets
                                                                 : Field::allowed_domains;
    case Reason::loopback_grant:
    case Reason::loopback_no_grant: return Field::loopback;
    case Reason::address_denied:
    case Reason::address_private:
    case Reason::address_granted: return Field::allowed_addresses;
    default: return Field::egress_default;
  }
}

std::vector<HarnessEnforcement> harness_enforcement(const policy::Policy& p,
                                                    const policy::Decision& d, Os os,
                                                    const std::vector<Harness>& which) {
  std::vector<HarnessEnforcement> out;
  const Field wanted = decision_field(d);
  for (Harness h : all_harnesses()) {
    if (!which.empty() && std::find(which.begin(), which.end(), h) == which.end()) continue;
    Target t;
    t.os = os;
    const AdapterResult a = render_harness(h, p, t);
    // A loopback or address decision with no grants in the policy is the default's doing.
    Field f = a.report(wanted) ? wanted : Field::egress_default;
    HarnessEnforcement e{h, f};
    if (const FieldReport* r = a.report(f)) {
      e.held_by = r->held_by;
      e.level = r->level;
      e.mechanism = r->mechanism;
    }
    for (const auto& w : a.warnings) {
      if (w.field == f) e.warnings.push_back(w.reason);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace halo::render
