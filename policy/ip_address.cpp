#include "policy/ip_address.h"

#include <arpa/inet.h>

#include <cstring>

namespace halo::policy {

IpAddress IpAddress::v4(std::uint32_t host_order) {
  IpAddress a;
  a.family = Family::v4;
  a.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<std::uint8_t>(host_order);
  return a;
}

std::uint32_t IpAddress::v4_value() const {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

std::optional<IpAddress> IpAddress::parse_strict(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  char buf[65];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  IpAddress a;
  if (text.find(':') != std::string_view::npos) {
    if (inet_pton(AF_INET6, buf, a.bytes.data()) != 1) return std::nullopt;
    a.family = Family::v6;
    return a;
  }
  std::uint8_t v4[4];
  if (inet_pton(AF_INET, buf, v4) != 1) return std::nullopt;
  a.family = Family::v4;
  std::memcpy(a.bytes.data(), v4, 4);
  return a;
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN];
  if (family == Family::v4) {
    inet_ntop(AF_INET, bytes.data(), buf, sizeof buf);
  } else {
    inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf);
  }
  return buf;
}

namespace {

// One inet_aton part: decimal, octal (leading 0) or hex (0x). Empty parts are invalid.
std::optional<std::uint64_t> parse_part(std::string_view p) {
  if (p.empty()) return std::nullopt;
  int base = 10;
  if (p.size() >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p.remove_prefix(2);
    if (p.empty()) return std::uint64_t{0};  // inet_aton accepts "0x" as 0
  } else if (p.size() >= 2 && p[0] == '0') {
    base = 8;
    p.remove_prefix(1);
  }
  std::uint64_t v = 0;
  for (char c : p) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    if (d >= base) return std::nullopt;
    v = v * base + d;
    if (v > 0xffffffffull) return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<IpAddress> parse_inet_aton(std::string_view text) {
  std::uint64_t parts[4];
  int n = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    std::string_view p = text.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (n == 4) return std::nullopt;
    auto v = parse_part(p);
    if (!v) return std::nullopt;
    parts[n++] = *v;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  std::uint64_t value = 0;
  switch (n) {
    case 1:
      value = parts[0];
      break;
    case 2:
      if (parts[0] > 0xff || parts[1] > 0xffffff) return std::nullopt;
      value = (parts[0] << 24) | parts[1];
      break;
    case 3:
      if (parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xffff) return std::nullopt;
      value = (parts[0] << 24) | (parts[1] << 16) | parts[2];
      break;
    case 4:
      for (int i = 0; i < 4; ++i) {
        if (parts[i] > 0xff) return std::nullopt;
      }
      value = (parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3];
      break;
    default:
      return std::nullopt;
  }
  if (value > 0xffffffffull) return std::nullopt;
  return IpAddress::v4(static_cast<std::uint32_t>(value));
}

std::optional<Cidr> Cidr::parse(std::string_view text) {
  std::size_t slash = text.find('/');
  auto addr = IpAddress::parse_strict(text.substr(0, slash));
  if (!addr) return std::nullopt;
  int max = addr->family == IpAddress::Family::v4 ? 32 : 128;
  int prefix = max;
  if (slash != std::string_view::npos) {
    std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3) return std::nullopt;
    prefix = 0;
    for (char c : p) {
      if (c < '0' || c > '9') return std::nullopt;
      prefix = prefix * 10 + (c - '0');
    }
    if (prefix > max) return std::nullopt;
  }
  Cidr c;
  c.base = *addr;
  c.prefix = static_cast<std::uint8_t>(prefix);
  // Host bits must be zero: "10.0.0.1/8" is almost always a typo for a host or a range.
  for (int bit = prefix; bit < max; ++bit) {
    if (c.base.bytes[bit / 8] & (0x80 >> (bit % 8))) return std::nullopt;
  }
  return c;
}

bool Cidr::contains(const IpAddress& a) const {
  if (a.family != base.family) return false;
  int full = prefix / 8;
  if (std::memcmp(a.bytes.data(), base.bytes.data(), full) != 0) return false;
  int rest = prefix % 8;
  if (rest == 0) return true;
  std::uint8_t mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a.bytes[full] & mask) == (base.bytes[full] & mask);
}

std::string Cidr::to_string() const {
  return base.to_string() + "/" + std::to_string(prefix);
}

const char* to_string(AddressClass c) {
  switch (c) {
    case AddressClass::public_address: return "public";
    case AddressClass::loopback: return "loopback";
    case AddressClass::private_use: return "private";
    case AddressClass::cgnat: return "CGNAT";
    case AddressClass::ula: return "unique-local";
    case AddressClass::link_local: return "link-local";
    case AddressClass::metadata: return "a cloud metadata endpoint";
    case AddressClass::multicast: return "multicast";
    case AddressClass::unspecified: return "unspecified";
    case AddressClass::reserved: return "reserved";
  }
  return "reserved";
}

namespace {

constexpr bool in4(std::uint32_t a, std::uint32_t net, int prefix) {
  std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  return (a & mask) == net;
}

AddressClass classify_v4(std::uint32_t a) {
  if (in4(a, 0x00000000, 8)) return AddressClass::unspecified;   // 0/8
  if (in4(a, 0x7f000000, 8)) return AddressClass::loopback;      // 127/8
  if (in4(a, 0x0a000000, 8)) return AddressClass::private_use;   // 10/8
  if (in4(a, 0xac100000, 12)) return AddressClass::private_use;  // 172.16/12
  if (in4(a, 0xc0a80000, 16)) return AddressClass::private_use;  // 192.168/16
  if (in4(a, 0xc6120000, 15)) return AddressClass::private_use;  // 198.18/15
  if (in4(a, 0x64400000, 10)) return AddressClass::cgnat;        // 100.64/10
  if (in4(a, 0xa9fe0000, 16)) return AddressClass::link_local;   // 169.254/16
  if (a == 0xa83f8110) return AddressClass::metadata;             // 168.63.129.16 (Azure)
  if (in4(a, 0xe0000000, 4)) return AddressClass::multicast;     // 224/4
  if (in4(a, 0xf0000000, 4)) return AddressClass::reserved;      // 240/4 incl. broadcast
  if (in4(a, 0xc0000000, 24)) return AddressClass::reserved;     // 192.0.0/24 IETF
  if (in4(a, 0xc0586300, 24)) return AddressClass::reserved;     // 192.88.99/24 6to4 relay
  return AddressClass::public_address;
}

// Stricter classes first: a Teredo address is judged by whichever embedded address
// is stricter.
int strictness(AddressClass c) {
  switch (c) {
    case AddressClass::public_address: return 0;
    case AddressClass::private_use:
    case AddressClass::cgnat:
    case AddressClass::ula: return 1;
    case AddressClass::loopback: return 2;
    default: return 3;
  }
}

bool starts(const IpAddress& a, std::initializer_list<std::uint8_t> prefix) {
  std::size_t i = 0;
  for (auto b : prefix) {
    if (a.bytes[i++] != b) return false;
  }
  return true;
}

IpAddress v4_at(const IpAddress& a, int offset, bool invert = false) {
  std::uint32_t v = (std::uint32_t{a.bytes[offset]} << 24) |
                    (std::uint32_t{a.bytes[offset + 1]} << 16) |
                    (std::uint32_t{a.bytes[offset + 2]} << 8) | a.bytes[offset + 3];
  return IpAddress::v4(invert ? ~v : v);
}

AddressClass classify_v6_plain(const IpAddress& a) {
  bool all_zero_but_last = true;
  for (int i = 0; i < 15; ++i) all_zero_but_last &= a.bytes[i] == 0;
  if (all_zero_but_last && a.bytes[15] == 0) return AddressClass::unspecified;
  if (all_zero_but_last && a.bytes[15] == 1) return AddressClass::loopback;
  if (a.bytes[0] == 0xff) return AddressClass::multicast;
  if (a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80) return AddressClass::link_local;
  if (a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0xc0) return AddressClass::reserved;  // site-local
  static constexpr std::array<std::uint8_t, 16> kAwsMetadataV6 = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0,
                                                                   0,    0,    0,    0,    0, 0, 0x02, 0x54};
  if (a.bytes == kAwsMetadataV6) return AddressClass::metadata;  // fd00:ec2::254
  if ((a.bytes[0] & 0xfe) == 0xfc) return AddressClass::ula;
  if (starts(a, {0x01, 0x00, 0, 0, 0, 0, 0, 0})) return AddressClass::reserved;  // 100::/64
  // ::/96 (IPv4-compatible, deprecated) and the rest of ::/8.
  if (a.bytes[0] == 0) return AddressClass::reserved;
  // 2001:2::/48 benchmarking, 2001:10::/28 ORCHID.
  if (starts(a, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00})) return AddressClass::reserved;
  if (starts(a, {0x20, 0x01, 0x00}) && (a.bytes[3] & 0xf0) == 0x10) return AddressClass::reserved;
  return AddressClass::public_address;
}

}  // namespace

AddressJudgement judge_address(const IpAddress& a) {
  AddressJudgement j;
  j.judged = a;
  if (a.family == IpAddress::Family::v4) {
    j.cls = classify_v4(a.v4_value());
    return j;
  }
  // ::ffff:0:0/96 IPv4-mapped
  if (starts(a, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff})) {
    j.judged = v4_at(a, 12);
    j.cls = classify_v4(j.judged.v4_value());
    j.embedding = "IPv4-mapped";
    return j;
  }
  // 64:ff9b:1::/48 local-use NAT64: where the IPv4 sits depends on the operator's prefix
  // length (RFC 6052), so nothing can be judged from it; never reachable.
  if (starts(a, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01})) {
    j.cls = AddressClass::reserved;
    return j;
  }
  // 64:ff9b::/96 well-known NAT64
  if (starts(a, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0})) {
    j.judged = v4_at(a, 12);
    j.cls = classify_v4(j.judged.v4_value());
    j.embedding = "NAT64";
    return j;
  }
  // 2002::/16 6to4: the IPv4 address is in bytes 2..5
  if (starts(a, {0x20, 0x02})) {
    j.judged = v4_at(a, 2);
    j.cls = classify_v4(j.judged.v4_value());
    j.embedding = "6to4";
    return j;
  }
  // 2001::/32 Teredo: server in bytes 4..7, client (inverted) in bytes 12..15
  if (starts(a, {0x20, 0x01, 0x00, 0x00})) {
    IpAddress server = v4_at(a, 4);
    IpAddress client = v4_at(a, 12, true);
    AddressClass sc = classify_v4(server.v4_value());
    AddressClass cc = classify_v4(client.v4_value());
    j.embedding = "Teredo";
    if (strictness(cc) > strictness(sc)) {
      j.cls = cc;
      j.judged = client;
    } else {
      j.cls = sc;
      j.judged = server;
    }
    return j;
  }
  j.cls = classify_v6_plain(a);
  return j;
}

bool always_denied(AddressClass c) {
  return c == AddressClass::link_local || c == AddressClass::metadata || c == AddressClass::multicast ||
         c == AddressClass::unspecified || c == AddressClass::reserved;
}

bool needs_address_grant(AddressClass c) {
  return c == AddressClass::private_use || c == AddressClass::cgnat || c == AddressClass::ula;
}

}  // namespace halo::policy
