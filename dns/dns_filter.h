#pragma once
// The DNS filter server: DNS over UDP and TCP (RFC 1035 framing, TCP length prefix) in
// front of QueryHandler (dns/query_handler.h holds what is answered and why). No Asio in
// this header, so the CLI and the broker's public side include it cheaply.
//
// It serves sockets it is given (adopted fds, e.g. created inside a sandbox's network
// namespace; ownership passes to the filter) or that it binds itself (listen("ADDR:PORT"):
// UDP and TCP on the same port; port 0 picks one, bound_port() reports it).
//
// Limits (dns/filter_limits.h): oversized datagrams dropped; a TCP length prefix over
// max_tcp_query closes the connection; a token bucket over all queries (UDP over the rate:
// dropped; TCP: connection closed); at most max_upstream_in_flight forwards (then
// SERVFAIL); at most max_tcp_connections; deadlines on every TCP read and write and on
// the upstream. Every question answered or dropped after parsing yields one audit event.
//
// Threading: create(), listen()/adopt(), then start() runs the filter on `threads` threads
// of its own (default 1; the session pool is shared with the broker and locks itself);
// stop() from any thread is idempotent and joins; the destructor stops.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "dns/audit_event.h"
#include "dns/filter_limits.h"
#include "dns/query_handler.h"
#include "dns/session_pool.h"
#include "dns/upstream.h"
#include "policy/policy.h"

namespace halo::dns {

struct DnsFilterOptions {
  std::shared_ptr<const policy::Policy> policy;  // required
  std::shared_ptr<SessionAddressPool> pool;      // shared with the broker; null: made here
  AnswerMode mode = AnswerMode::synthetic;
  std::string upstream_server;         // "IP:PORT"; empty: servers from /etc/resolv.conf
  std::shared_ptr<Upstream> upstream;  // tests: a fake; null: AresUpstream(upstream_server)
  FilterLimits limits;
  DnsAuditSink audit;  // may be empty
  unsigned threads = 1;
};

// A snapshot of counters since create().
struct DnsFilterStats {
  std::uint64_t queries = 0;        // messages read (UDP datagrams, TCP frames)
  std::uint64_t allowed = 0;        // audit events with verdict allow
  std::uint64_t denied = 0;         // audit events with verdict deny (malformed included)
  std::uint64_t dropped = 0;        // read but not answered (no header, response, oversize)
  std::uint64_t rate_limited = 0;   // over the token bucket
  std::uint64_t forwarded = 0;      // sent upstream
  std::uint64_t upstream_failed = 0;
  std::uint64_t upstream_busy = 0;  // over max_upstream_in_flight
  std::uint64_t tcp_refused = 0;    // over max_tcp_connections
  std::uint64_t send_failed = 0;
  std::uint64_t accept_failed = 0;  // TCP accepts that failed (EMFILE and friends), backed off
  std::uint64_t pool_full = 0;      // synthetic A/AAAA answered SERVFAIL: session pool full
};

class DnsFilter {
 public:
  // Fails (ec set) without a policy or when the c-ares upstream cannot be set up.
  static std::unique_ptr<DnsFilter> create(DnsFilterOptions options, std::error_code& ec);
  virtual ~DnsFilter() = default;

  virtual std::error_code listen(const std::string& addr_port) = 0;
  virtual void adopt(std::vector<int> udp_fds, std::vector<int> tcp_fds) = 0;
  virtual std::optional<std::uint16_t> bound_port() const = 0;

  virtual void start() = 0;
  virtual void stop() = 0;
  virtual DnsFilterStats stats() const = 0;
  virtual std::shared_ptr<SessionAddressPool> pool() const = 0;
};

// "127.0.0.1:53", "[::1]:5353", "localhost" is not accepted (an address, not a name).
struct HostPort {
  std::string address;
  std::uint16_t port = 0;
};
std::optional<HostPort> parse_addr_port(const std::string& text);

}  // namespace halo::dns
