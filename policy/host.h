#pragma once
// Host normalization: the one place raw host text becomes something `decide` can match.
//
//   "Example.COM."        -> name "example.com"
//   "bücher.example"      -> name "xn--bcher-kva.example"   (UTS #46 via libidn2)
//   "127.1", "0x7f.1", "2130706433" -> ipv4 127.0.0.1 (inet_aton forms; last label numeric)
//   "[::ffff:127.0.0.1]"  -> ipv6 ::ffff:127.0.0.1  (brackets hold IPv6 only)
//   "a..b", "-a.com", "a_b.com", "1.2.3.4.5", "[1.2.3.4]" -> malformed, with a reason
//
// Names are LDH labels of 1-63 octets, at most 253 octets in all, after one trailing dot
// is dropped. Nothing is guessed: input that is neither a valid name nor an IP literal
// is malformed and the decision denies it.
#include <optional>
#include <string>
#include <string_view>

#include "policy/ip_address.h"

namespace halo::policy {

struct NormalizedHost {
  enum class Kind : std::uint8_t { name, ip };
  Kind kind = Kind::name;
  std::string text;  // canonical name, or canonical IP text (v6 without brackets)
  IpAddress ip;      // valid when kind == ip
};

struct HostError {
  const char* reason = "";  // static text, e.g. "empty label", "label longer than 63 octets"
};

// Returns the canonical host or why it is malformed. Never throws.
struct HostResult {
  std::optional<NormalizedHost> host;
  HostError error;
  explicit operator bool() const { return host.has_value(); }
};
HostResult normalize_host(std::string_view raw);

// Fast path for text that is already canonical ASCII (as the broker sees most of the
// time): true when `raw` is a canonical LDH name that normalize_host would return as is.
bool is_canonical_name(std::string_view raw);

// True for "localhost" and every name under ".localhost" (RFC 6761).
bool is_localhost_name(std::string_view canonical_name);

}  // namespace halo::policy
