#pragma once
// What every adapter shares: a builder for its AdapterResult, and the questions adapters
// ask the policy. Internal to policy/render.
#include <string>
#include <string_view>
#include <vector>

#include "policy/egress_rules.h"
#include "policy/render/render.h"

namespace halo::render {

// Accumulates one adapter's result. Reports for fields not in effect are ignored, so an
// adapter can state how it holds every field without testing each first.
class ResultBuilder {
 public:
  ResultBuilder(Harness h, const policy::Policy& p, const Target& t);

  void hold(Field f, Holder by, EnforcementLevel level, std::string mechanism);
  // Held natively; the level drops to partial and the reason becomes a warning.
  void hold_partial(Field f, std::string mechanism, std::string reason);
  // The broker holds it under `halo run` (level: broker_level(os)); warns with `why`
  // (the reason the harness itself cannot).
  void broker(Field f, std::string why);
  // Every egress field (default, allowed, presets, denied, loopback, addresses) by the broker.
  void broker_all_egress(const std::string& why);
  // Nobody holds it; warns with `why`.
  void none(Field f, std::string why);
  void warn(Field f, std::string reason);
  void warn(std::string reason);  // about the harness as a whole
  void file(std::string path, std::string installs_at, std::string content, bool managed = true);

  // gateway: reported as checked by the decision function; held by whoever holds egress.
  void gateway(Holder egress_holder);

  const policy::Policy& policy() const { return policy_; }
  const Target& target() const { return result_.target; }
  bool in_effect(Field f) const { return field_in_effect(policy_, f); }
  AdapterResult take();
  // For a harness that renders nothing when the policy turns the sandbox off: the mode is
  // held (off is off), the default has nothing to hold, nothing is required.
  AdapterResult take_sandbox_off();

 private:
  FieldReport* find(Field f);
  AdapterResult result_;
  const policy::Policy& policy_;
};

// --- Questions for the decision function (never re-implemented here) ---

// Does the policy allow the name (decided alone, without a port)?
bool policy_allows(const policy::Policy& p, std::string_view host);
// A name directly below `base` that no rule lists by name ("halo-unlisted-probe.BASE"),
// to ask what the policy decides for an unlisted subdomain.
std::string unlisted_subdomain(std::string_view base);
// A concrete name a pattern matches: "*.x" -> unlisted_subdomain(x), "x" -> "x".
std::string representative(const policy::DomainEntry& e);
// Is `name` equal to `base` or below it (label-wise)?
bool is_at_or_below(std::string_view name, std::string_view base);

// allowedDomains then the presets' domains, duplicates (same pattern) dropped.
std::vector<const policy::DomainEntry*> allow_entries(const policy::Policy& p);
std::vector<const policy::DomainEntry*> deny_entries(const policy::Policy& p);

// "a, b, c" (at most `max` items, then ", ... (N more)")
std::string join_list(const std::vector<std::string>& items, std::size_t max = 6);

// Path helpers for the policy's PathEntry text.
bool is_glob(std::string_view path);        // contains * ? [
bool is_home_path(std::string_view path);   // "~" or "~/..."
bool is_absolute(std::string_view path);    // "/..."

// A compact JSON text: two-space indent, insertion order kept, trailing newline.
// (Defined in json_text.cpp so nlohmann stays out of this header.)

// TOML text helpers: a basic string with escapes, and an inline array of strings.
std::string toml_string(std::string_view s);
std::string toml_string_array(const std::vector<std::string>& items);

}  // namespace halo::render
