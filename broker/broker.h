#pragma once
// The session broker's public face: no Asio or Beast in this header, so the CLI and
// sandbox-launch can include it cheaply.
//
// One Broker per session. It accepts on listening sockets it is given (adopted file
// descriptors, e.g. created inside a sandbox's network namespace and passed over
// SCM_RIGHTS) or that it binds itself (`halo broker --listen`), decides every request with
// the policy's one EgressRules::decide, resolves, checks and dials from the host, relays,
// and writes one audit line per decision.
//
// Threading: create(), then run() blocks on the caller's thread (plus worker threads it
// owns) until stop() is called from any thread or a signal handler thread; stop() drains.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "broker/limits.h"
#include "policy/policy.h"

namespace halo::broker {

// Listening sockets the broker serves. Ownership of every fd passes to the broker.
struct ListenerSet {
  int proxy_fd = -1;  // HTTP proxy (CONNECT, absolute-form) and SOCKS5, told apart by first byte
  std::vector<int> dns_udp_fds;  // DNS over UDP (issue: DNS filter)
  std::vector<int> dns_tcp_fds;  // DNS over TCP
  struct Forward {
    std::uint16_t port = 0;  // loopback grant: connections are forwarded to host 127.0.0.1:port
    int fd = -1;
  };
  std::vector<Forward> loopback_forwards;
};

enum class DnsMode : std::uint8_t { synthetic, real };

struct BrokerOptions {
  std::shared_ptr<const policy::Policy> policy;
  std::string session_id;          // appears in every audit line
  std::string audit_path;          // empty: no audit file; "-": stderr
  std::string resolver_hosts;      // hosts file for the resolver; empty: /etc/hosts
  std::string resolver_server;     // "IP:PORT"; empty: servers from /etc/resolv.conf
  DnsMode dns_mode = DnsMode::real;
  Limits limits;                   // named defaults in broker/limits.h
  unsigned threads = 2;
};

// What the broker (and its DNS filter) could not do and counted instead: nothing is
// dropped silently. The session report carries every counter under its key (0 included);
// `halo broker`'s stop summary and `halo run` print a sentence for each non-zero one.
struct LossCounters {
  std::uint64_t audit_write_failures = 0;  // audit lines not (fully) written to the audit file
  std::uint64_t overload_rejections = 0;   // connections closed at max_connections (fast 503)
  std::uint64_t accept_descriptor_failures = 0;  // accepts failed: EMFILE, ENFILE, ENOBUFS, ENOMEM
  std::uint64_t dns_dropped = 0;           // DNS messages read but never answered
  std::uint64_t dns_rate_limited = 0;      // DNS queries over the filter's token bucket
  std::uint64_t dns_pool_full = 0;         // synthetic answers refused (SERVFAIL): pool full
  std::uint64_t dns_tcp_refused = 0;       // DNS TCP connections over max_tcp_connections
  std::uint64_t dns_send_failed = 0;       // DNS answers that could not be sent
  std::uint64_t dns_accept_failures = 0;   // DNS TCP accepts that failed (EMFILE and friends)

  // Calls f(key, value, what) for every counter in a fixed order: the one list the report,
  // the summaries and the tests walk. `key` is the report's JSON key; `what` completes the
  // sentence "N <what>".
  template <typename F>
  void for_each(F&& f) const {
    static_assert(sizeof(LossCounters) == 9 * sizeof(std::uint64_t),
                  "a counter was added to LossCounters but not to for_each()");
    f("audit_lines_not_written", audit_write_failures, "audit line(s) could not be written");
    f("connections_refused_at_cap", overload_rejections,
      "connection(s) refused at the connection cap or while draining (fast 503)");
    f("accept_descriptor_failures", accept_descriptor_failures,
      "accept(s) failed for lack of file descriptors or memory");
    f("dns_dropped", dns_dropped, "DNS message(s) dropped unanswered (malformed or oversize)");
    f("dns_rate_limited", dns_rate_limited, "DNS query(ies) dropped by the rate limit");
    f("dns_pool_full", dns_pool_full,
      "DNS answer(s) refused because the session address pool was full (SERVFAIL)");
    f("dns_tcp_refused", dns_tcp_refused, "DNS TCP connection(s) refused at the connection cap");
    f("dns_send_failed", dns_send_failed, "DNS answer(s) could not be sent");
    f("dns_accept_failures", dns_accept_failures, "DNS TCP accept(s) failed");
  }
  std::uint64_t total() const {
    std::uint64_t n = 0;
    for_each([&n](const char*, std::uint64_t v, const char*) { n += v; });
    return n;
  }
};

// Counts a session report needs; a snapshot, safe to read after run() returns.
struct BrokerStats {
  std::uint64_t decisions = 0;
  std::uint64_t allowed = 0;
  std::uint64_t denied = 0;
  struct Denial {
    std::string transport;  // "connect", "http", "socks5", "dns", "forward"
    std::string host;
    std::uint16_t port = 0;
    std::string rule;
  };
  std::vector<Denial> denials;  // capped at Limits::max_reported_denials, then counted only
  std::uint64_t denials_dropped = 0;
  LossCounters losses;
};

class Broker {
 public:
  static std::unique_ptr<Broker> create(BrokerOptions options, std::error_code& ec);
  virtual ~Broker() = default;

  // Binds and listens on "ADDR:PORT" (port 0 picks one; bound_* report it).
  virtual std::error_code listen_proxy(const std::string& addr_port) = 0;
  virtual std::error_code listen_dns(const std::string& addr_port) = 0;
  // Adopts sockets created elsewhere (already bound and, for TCP, listening).
  virtual void adopt(ListenerSet listeners) = 0;

  virtual std::optional<std::uint16_t> bound_proxy_port() const = 0;
  virtual std::optional<std::uint16_t> bound_dns_port() const = 0;

  virtual void run() = 0;   // blocks until stop()
  virtual void stop() = 0;  // idempotent, any thread
  virtual BrokerStats stats() const = 0;
};

}  // namespace halo::broker
