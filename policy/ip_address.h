#pragma once
// IP addresses and CIDR ranges as plain values, and the classification the decision
// function applies to every address it would let the broker dial (DESIGN.md, Decide 4).
//
// Accepted syntax:
//   IpAddress::parse_strict  "192.0.2.1", "2001:db8::1", "::ffff:10.0.0.1" (dotted quad / RFC 4291 text)
//   parse_inet_aton          every form inet_aton(3) accepts: "127.1", "0x7f.1", "017700000001",
//                            "2130706433"; each part decimal, octal (leading 0) or hex (0x)
//   Cidr::parse              "10.20.0.0/16", "fd00::/8", a bare address is a /32 or /128
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace halo::policy {

struct IpAddress {
  enum class Family : std::uint8_t { v4, v6 };
  Family family = Family::v4;
  // v4: bytes[0..3] in network order; v6: all 16 bytes.
  std::array<std::uint8_t, 16> bytes{};

  static IpAddress v4(std::uint32_t host_order);
  static std::optional<IpAddress> parse_strict(std::string_view text);
  std::uint32_t v4_value() const;  // host order; only for family v4
  std::string to_string() const;   // canonical: dotted quad, or RFC 5952 for v6
  bool operator==(const IpAddress&) const = default;
};

// inet_aton(3) semantics without its leniencies about trailing garbage.
std::optional<IpAddress> parse_inet_aton(std::string_view text);

struct Cidr {
  IpAddress base;
  std::uint8_t prefix = 0;
  static std::optional<Cidr> parse(std::string_view text);
  bool contains(const IpAddress& a) const;
  std::string to_string() const;
};

enum class AddressClass : std::uint8_t {
  public_address,
  loopback,     // 127/8, ::1
  private_use,  // 10/8, 172.16/12, 192.168/16, 198.18/15 (benchmarking, halo's session pool)
  cgnat,        // 100.64/10
  ula,          // fc00::/7
  link_local,   // 169.254/16 (incl. metadata 169.254.169.254), fe80::/10
  metadata,     // cloud metadata endpoints outside link-local: 168.63.129.16, fd00:ec2::254
  multicast,    // 224/4, ff00::/8
  unspecified,  // 0/8, ::
  reserved,     // 240/4 and broadcast, 192.0.0/24, 100::/64, fec0::/10, ::/96 compat,
                // 64:ff9b:1::/48 (local-use NAT64: its layout is the operator's), ...
};

const char* to_string(AddressClass c);

// How an address is judged: its own class, or for IPv4-mapped, NAT64 and 6to4 the class
// of the IPv4 address it embeds; Teredo carries two and the stricter one counts.
struct AddressJudgement {
  AddressClass cls = AddressClass::public_address;
  IpAddress judged;  // the address whose class this is (the embedded v4 where there is one)
  const char* embedding = nullptr;  // "IPv4-mapped", "NAT64", "6to4", "Teredo" or null
};

AddressJudgement judge_address(const IpAddress& a);

// Is the class one that no policy can open (link-local, metadata, multicast, unspecified,
// reserved)?
bool always_denied(AddressClass c);
// Does the class need an allowedAddresses entry (private, CGNAT, ULA)?
bool needs_address_grant(AddressClass c);

}  // namespace halo::policy
