#include "dns/session_pool.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace halo::dns {
namespace {

constexpr std::uint32_t kV4Base = (198u << 24) | (18u << 16);  // 198.18.0.0
constexpr std::array<std::uint8_t, 8> kV6Prefix = {0xfd, 0x68, 0x61, 0x6c, 0x6f, 0x00, 0x53, 0x53};

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

SessionAddressPool::SessionAddressPool(std::size_t capacity)
    : capacity_(std::min(capacity, kMaxCapacity)) {}

const policy::Cidr& SessionAddressPool::v4_range() {
  static const policy::Cidr r{policy::IpAddress::v4(kV4Base), 15};
  return r;
}

const policy::Cidr& SessionAddressPool::v6_range() {
  static const policy::Cidr r = [] {
    policy::IpAddress a;
    a.family = policy::IpAddress::Family::v6;
    std::copy(kV6Prefix.begin(), kV6Prefix.end(), a.bytes.begin());
    return policy::Cidr{a, 64};
  }();
  return r;
}

SessionAddresses SessionAddressPool::addresses_of(std::uint32_t index) {
  SessionAddresses out;
  out.v4 = policy::IpAddress::v4(kV4Base + index);
  out.v6 = v6_range().base;
  out.v6.bytes[12] = static_cast<std::uint8_t>(index >> 24);
  out.v6.bytes[13] = static_cast<std::uint8_t>(index >> 16);
  out.v6.bytes[14] = static_cast<std::uint8_t>(index >> 8);
  out.v6.bytes[15] = static_cast<std::uint8_t>(index);
  return out;
}

std::optional<std::uint32_t> SessionAddressPool::index_of(const policy::IpAddress& a) {
  if (a.family == policy::IpAddress::Family::v4) {
    if (!v4_range().contains(a)) return std::nullopt;
    return a.v4_value() - kV4Base;
  }
  if (!v6_range().contains(a)) return std::nullopt;
  if (a.bytes[8] | a.bytes[9] | a.bytes[10] | a.bytes[11]) return std::nullopt;
  return (std::uint32_t{a.bytes[12]} << 24) | (std::uint32_t{a.bytes[13]} << 16) |
         (std::uint32_t{a.bytes[14]} << 8) | a.bytes[15];
}

bool SessionAddressPool::in_pool_range(const policy::IpAddress& a) {
  return v4_range().contains(a) || v6_range().contains(a);
}

std::optional<SessionAddresses> SessionAddressPool::assign(std::string_view name) {
  std::lock_guard lock(mu_);
  if (auto it = by_name_.find(std::string(name)); it != by_name_.end())
    return addresses_of(it->second);
  if (by_index_.size() >= capacity_) {
    full_refusals_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  by_index_.emplace_back(name);
  const auto index = static_cast<std::uint32_t>(by_index_.size());  // 1-based: skips .0
  by_name_.emplace(std::string(name), index);
  return addresses_of(index);
}

std::optional<std::string> SessionAddressPool::lookup(const policy::IpAddress& a) const {
  const auto index = index_of(a);
  if (!index || *index == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  if (*index > by_index_.size()) return std::nullopt;
  return by_index_[*index - 1];
}

std::size_t SessionAddressPool::size() const {
  std::lock_guard lock(mu_);
  return by_index_.size();
}

std::optional<policy::IpAddress> parse_reverse_name(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  constexpr std::string_view v4_zone = ".in-addr.arpa", v6_zone = ".ip6.arpa";
  if (text.size() > v4_zone.size() && ieq(text.substr(text.size() - v4_zone.size()), v4_zone)) {
    text.remove_suffix(v4_zone.size());
    std::uint32_t value = 0;
    int parts = 0;
    for (;;) {
      const auto dot = text.find('.');
      const auto label = text.substr(0, dot);
      if (parts == 4 || label.empty() || label.size() > 3) return std::nullopt;
      if (label.size() > 1 && label[0] == '0') return std::nullopt;
      unsigned v = 0;
      for (char c : label) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<unsigned>(c - '0');
      }
      if (v > 255) return std::nullopt;
      value |= v << (8 * parts);  // least significant octet first
      ++parts;
      if (dot == std::string_view::npos) break;
      text.remove_prefix(dot + 1);
    }
    if (parts != 4) return std::nullopt;
    return policy::IpAddress::v4(value);
  }
  if (text.size() == 64 + v6_zone.size() - 1 &&
      ieq(text.substr(text.size() - v6_zone.size()), v6_zone)) {
    policy::IpAddress a;
    a.family = policy::IpAddress::Family::v6;
    for (int i = 0; i < 32; ++i) {
      const int v = hex_value(text[static_cast<std::size_t>(2 * i)]);
      if (v < 0 || text[static_cast<std::size_t>(2 * i + 1)] != '.') return std::nullopt;
      const int nibble = 31 - i;  // first label is the lowest nibble
      a.bytes[static_cast<std::size_t>(nibble / 2)] |=
          static_cast<std::uint8_t>(nibble % 2 ? v : v << 4);
    }
    return a;
  }
  return std::nullopt;
}

}  // namespace halo::dns
