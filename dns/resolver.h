#pragma once
// Resolver: the role the broker asks to turn an allowed name into addresses it will
// vet and dial. No Asio here; the c-ares implementation is dns/ares_resolver.h.
//
// A lookup gives every address of the answer (A and AAAA) and every name of the CNAME
// chain, so the caller can check them all with policy::EgressRules::vet before dialing.
#include <chrono>
#include <functional>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "policy/ip_address.h"

namespace halo::dns {

struct ResolveResult {
  enum class Status : std::uint8_t {
    ok,         // at least one address
    not_found,  // NXDOMAIN, or no A/AAAA data
    timeout,    // the deadline passed first
    failure,    // server failure, refused, no servers, shut down
  };
  Status status = Status::failure;
  std::vector<std::string> cnames;              // chain targets in order, lower case, no dot
  std::vector<policy::IpAddress> addresses;     // answer order, IPv6 and IPv4 mixed
  std::string error;                            // short text for logs; never user data
  bool from_hosts_file = false;
};

const char* to_string(ResolveResult::Status s);

class Resolver {
 public:
  using Callback = std::function<void(ResolveResult)>;
  virtual ~Resolver() = default;
  // Looks up A and AAAA for `name` (canonical: lower case, no trailing dot), hosts file
  // first, then DNS. `done` is called exactly once, on the resolver's own strand, never
  // inside this call, at the latest when `deadline` has passed.
  virtual void resolve(std::string name, std::chrono::milliseconds deadline, Callback done) = 0;
  // The answer when it needs no query (localhost names, the hosts file), on the caller's
  // thread without waiting; nullopt when only resolve() can tell.
  virtual std::optional<ResolveResult> lookup_local(std::string_view name) const {
    (void)name;
    return std::nullopt;
  }
};

}  // namespace halo::dns
