// Fuzzes the policy loader with untrusted YAML: it must never crash, hang or throw, and a
// policy it accepts must answer decide() for a few fixed hosts.
#include <cstdint>
#include <string>

#include "policy/egress_rules.h"
#include "policy/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = halo::policy::load_profile_text("fuzz.yaml", text, {});
  for (const auto& d : r.diagnostics.items) (void)d.to_string();
  if (r.policy) {
    const auto& rules = r.policy->egress_rules();
    for (const char* h : {"example.com", "127.0.0.1", "169.254.169.254", "a.b.example.org"}) {
      (void)rules.decide(h, std::uint16_t{443}).rule();
    }
  }
  return 0;
}
