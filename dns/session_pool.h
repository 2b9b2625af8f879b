#pragma once
// The session's synthetic address map. Under `halo run` an allowed name's A/AAAA answer is
// a session address from this pool instead of its real address; when the sandbox then
// connects to a session address, the broker asks lookup() for the name it stands for and
// decides and dials that name (real resolution and address checks happen only there, and
// real addresses never reach the sandbox).
//
//   IPv4: 198.18.0.0/15 (RFC 2544 benchmarking range), 198.18.0.1 upwards
//   IPv6: fd68:616c:6f00:5353::/64 (a fixed ULA /64), the same index in the low 32 bits
//
// Guarantees: one stable index per canonical name for the pool's lifetime (the name gets
// the v4 and v6 address of that index); at most `capacity` names, then assign() fails
// (and counts the refusal: full_refusals()); no eviction (an address once given out never
// comes to mean another name).
// Thread safety: every member may be called from any thread (one mutex; the DNS filter
// assigns, the broker's sessions look up).
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "policy/ip_address.h"

namespace halo::dns {

struct SessionAddresses {
  policy::IpAddress v4;
  policy::IpAddress v6;
};

class SessionAddressPool {
 public:
  static constexpr std::size_t kDefaultCapacity = 65536;
  static constexpr std::size_t kMaxCapacity = (1u << 17) - 2;  // the /15 without .0 and the top

  explicit SessionAddressPool(std::size_t capacity = kDefaultCapacity);
  SessionAddressPool(const SessionAddressPool&) = delete;
  SessionAddressPool& operator=(const SessionAddressPool&) = delete;

  // `name` must be canonical (policy::normalize_host output). nullopt when the pool is full.
  std::optional<SessionAddresses> assign(std::string_view name);
  // The name a session address stands for; nullopt for addresses not handed out.
  std::optional<std::string> lookup(const policy::IpAddress& address) const;
  // Is the address inside either session range (handed out or not)?
  static bool in_pool_range(const policy::IpAddress& address);

  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  // assign() calls refused because the pool was full, since construction.
  std::uint64_t full_refusals() const { return full_refusals_.load(std::memory_order_relaxed); }

  static const policy::Cidr& v4_range();
  static const policy::Cidr& v6_range();

 private:
  static std::optional<std::uint32_t> index_of(const policy::IpAddress& address);
  static SessionAddresses addresses_of(std::uint32_t index);

  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::uint32_t> by_name_;
  std::vector<std::string> by_index_;  // by_index_[i] is the name of index i + 1
  std::atomic<std::uint64_t> full_refusals_{0};
};

// "4.3.2.1.in-addr.arpa" -> 1.2.3.4; 32 nibbles + ".ip6.arpa" -> the IPv6 address.
// Case-insensitive; nullopt for anything else (partial zones included).
std::optional<policy::IpAddress> parse_reverse_name(std::string_view text);

}  // namespace halo::dns
