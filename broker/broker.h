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
