#pragma once
// Named defaults for every cap and deadline the DNS filter applies (one place, so a
// reviewer can see all of them at once). All limits are per filter instance.
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace halo::dns {

struct FilterLimits {
  // Wire sizes.
  std::size_t max_udp_query = 4096;        // larger datagrams are dropped unread
  std::size_t max_tcp_query = 4096;        // a larger TCP length prefix closes the connection
  std::uint16_t plain_udp_payload = 512;   // RFC 1035 answer size without EDNS0
  std::uint16_t max_udp_payload = 1232;    // cap on the EDNS0 size we honour (DNS flag day 2020)
  std::uint16_t min_udp_payload = 512;     // EDNS0 sizes below this are treated as 512
  std::size_t max_response = 65535;        // TCP answer cap (the length prefix's range)

  // Synthetic answers.
  std::uint32_t synthetic_ttl_seconds = 30;  // short: the map lives as long as the session
  std::uint32_t max_relayed_ttl_seconds = 300;  // relayed/real answers are capped to this
  std::size_t max_session_names = 65536;     // names the session pool maps, then SERVFAIL
  // Real mode: DNS carries no port, so answered addresses are vetted (EgressRules::vet) as
  // if for this port; a loopback answer is given only when this port has a loopback grant.
  std::uint16_t real_mode_vet_port = 443;

  // Rate and concurrency. Over the rate, UDP queries are dropped (counted, not audited).
  std::uint32_t max_queries_per_second = 50000;  // token bucket refill, all clients
  std::uint32_t query_burst = 5000;              // token bucket depth
  std::size_t max_upstream_in_flight = 128;      // more forwards answer SERVFAIL
  std::size_t max_tcp_connections = 64;          // more are accepted and closed at once
  std::size_t max_tcp_queries_per_connection = 1000;

  // Deadlines.
  std::chrono::milliseconds tcp_idle_timeout{10000};  // between queries on one connection
  std::chrono::milliseconds tcp_io_timeout{5000};     // one frame read or answer write
  std::chrono::milliseconds upstream_timeout{2000};   // per try, c-ares
  int upstream_tries = 2;
  std::chrono::milliseconds accept_backoff{100};      // after EMFILE and friends
};

}  // namespace halo::dns
