#pragma once
// Reaching an upstream for one request: normalize -> (session address mapped back to its
// name) -> decide -> resolve -> vet every address and CNAME -> dial the vetted addresses,
// IPv6 and IPv4 interleaved, within the connect deadline. The only way a session gets an
// upstream socket, so no path can dial an address the policy did not pass.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "broker/audit_log.h"
#include "broker/context.h"

namespace halo::broker {

enum class DialOutcome : std::uint8_t {
  connected,
  denied,       // the policy said no (name, CNAME or every address)
  dns_failed,   // no such name, no address, or the resolver failed
  refused,      // every vetted address refused
  unreachable,  // network or host unreachable
  timeout,      // the connect deadline passed
};

const char* to_string(DialOutcome o);

// The audit's stand-in for a host that did not normalize: the text after any '@', cut to
// 64 bytes, every byte outside [A-Za-z0-9.-_:[]] as '?', with the original length.
std::string malformed_host_label(std::string_view raw);

// Fills `audit` (host, verdict, reason, rule, resolved, decide/resolve/connect times) and
// counts the decision in the broker's stats. On `connected`, `out` is open and non-blocking.
boost::asio::awaitable<DialOutcome> dial_upstream(Context& ctx, std::string_view raw_host,
                                                  std::uint16_t port, const char* transport,
                                                  boost::asio::ip::tcp::socket& out,
                                                  AuditRecord& audit);

}  // namespace halo::broker
