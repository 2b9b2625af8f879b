#pragma once
// The byte relay of a tunnel (CONNECT, SOCKS5, loopback forward): both directions at
// once, each ending with a half-close (shutdown SHUT_WR) of the other side so a client
// that finishes sending still gets the whole answer; no byte lost or reordered. Each
// direction starts with a bounded buffer that exists only while bytes are in flight; on
// Linux, after Limits::splice_after_bytes it moves to splice(2) through a pipe (staying
// buffered when no pipe can be made or splice is refused).
//
// Deadlines: the tunnel closes when no byte moved either way for Limits::idle_deadline,
// and after Limits::max_tunnel_duration in any case.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string_view>

#include "broker/limits.h"

namespace halo::broker {

struct RelayResult {
  std::uint64_t up = 0;    // client -> upstream, including `pending`
  std::uint64_t down = 0;  // upstream -> client
  const char* close_reason = "";  // "done", "idle", "max_duration", "reset"
  bool spliced = false;
};

enum class RelayMode : std::uint8_t { automatic, buffered };

// `pending`: bytes the client already sent past its request (written upstream first).
boost::asio::awaitable<RelayResult> relay(boost::asio::ip::tcp::socket& client,
                                          boost::asio::ip::tcp::socket& upstream,
                                          std::string_view pending, const Limits& limits,
                                          RelayMode mode = RelayMode::automatic);

}  // namespace halo::broker
