// Fuzzes host normalization and decide with untrusted host text. Checks, beyond "no
// crash": normalization is idempotent, the canonical fast path agrees with it, and a host
// decides the same as its canonical form.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "policy/egress_rules.h"
#include "policy/host.h"
#include "policy/loader.h"

namespace {

const halo::policy::Policy& policy() {
  static auto r = halo::policy::load_profile_text(
      "fuzz.yaml",
      "egress:\n  default: deny\n  allowedDomains: [allowed.com, \"*.wild.com\"]\n"
      "  deniedDomains: [pastebin.com, \"*.bad.wild.com\"]\n  loopback: [8080]\n"
      "  allowedAddresses: [10.20.0.0/16]\n",
      {});
  if (!r.policy) std::abort();
  return *r.policy;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  auto h = halo::policy::normalize_host(raw);
  // The canonical fast path must agree with full normalization: a name it accepts is a
  // valid name that normalizes to itself.
  if (halo::policy::is_canonical_name(raw) &&
      (!h || h.host->kind != halo::policy::NormalizedHost::Kind::name || h.host->text != raw)) {
    std::abort();
  }
  const auto& rules = policy().egress_rules();
  auto d = rules.decide(raw, std::uint16_t{8080});
  (void)d.rule();
  if (h) {
    std::string text = h.host->text;
    if (h.host->kind == halo::policy::NormalizedHost::Kind::ip &&
        h.host->ip.family == halo::policy::IpAddress::Family::v6) {
      text = "[" + text + "]";
    }
    auto again = halo::policy::normalize_host(text);
    if (!again || again.host->text != h.host->text) std::abort();  // not idempotent
    auto d2 = rules.decide(text, std::uint16_t{8080});
    if (d2.verdict != d.verdict || d2.rule() != d.rule()) std::abort();
  } else if (d.allowed()) {
    std::abort();  // malformed input must never be allowed
  }
  return 0;
}
