#pragma once
// Every cap and deadline the broker applies, with its named default. One header so a
// reader can see the whole envelope of what a session may cost. No Asio here: the CLI
// and sandbox-launch include it through broker.h.
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace halo::broker {

using Millis = std::chrono::milliseconds;

struct Limits {
  // Request and response heads (HTTP): total bytes up to and including the blank line,
  // and the number of header fields. Beyond either: 431/400 and close.
  static constexpr std::size_t kMaxHeadBytes = 64 * 1024;
  static constexpr std::size_t kMaxHeaderCount = 100;
  std::size_t max_head_bytes = kMaxHeadBytes;
  std::size_t max_header_count = kMaxHeaderCount;

  // Time allowed to receive a whole request head (slowloris), counted from the first
  // byte of that request (or from accept for the first one), and for a SOCKS5 handshake.
  static constexpr Millis kHeadReadDeadline{10'000};
  Millis head_read_deadline = kHeadReadDeadline;

  // A kept-alive client connection with no request in flight is closed after this.
  static constexpr Millis kKeepAliveIdle{30'000};
  Millis keep_alive_idle = kKeepAliveIdle;

  // Name resolution (all of A, AAAA and the CNAME chain) for one request.
  static constexpr Millis kResolveDeadline{5'000};
  Millis resolve_deadline = kResolveDeadline;

  // Dialing the upstream: across every vetted address (IPv6 and IPv4 both tried), and
  // per address attempt. Expiry answers 504.
  static constexpr Millis kConnectDeadline{10'000};
  static constexpr Millis kConnectAttemptDeadline{3'000};
  Millis connect_deadline = kConnectDeadline;
  Millis connect_attempt_deadline = kConnectAttemptDeadline;

  // A tunnel (or a forwarded response) with no byte moving in either direction is
  // closed after this.
  static constexpr Millis kIdleDeadline{300'000};
  Millis idle_deadline = kIdleDeadline;
  // A tunnel is closed after this long however busy it is (a peer trickling one byte per
  // idle period would otherwise hold its descriptors, pipes and slot forever).
  static constexpr Millis kMaxTunnelDuration{24LL * 3600 * 1000};
  Millis max_tunnel_duration = kMaxTunnelDuration;

  // Writing an answer (403/502/...) or a response chunk to a stalled peer.
  static constexpr Millis kWriteDeadline{30'000};
  Millis write_deadline = kWriteDeadline;

  // Open client connections. Beyond it a new connection gets a fast 503 and is closed.
  static constexpr std::size_t kMaxConnections = 4096;
  std::size_t max_connections = kMaxConnections;

  // When accept fails for lack of descriptors (EMFILE/ENFILE/ENOBUFS/ENOMEM) the
  // listener sleeps this long and re-arms instead of dying.
  static constexpr Millis kAcceptBackoff{100};
  Millis accept_backoff = kAcceptBackoff;

  // Relay buffers: bytes per direction in the buffered fallback, and the pipe size
  // used by splice(2).
  static constexpr std::size_t kRelayBufferBytes = 64 * 1024;
  std::size_t relay_buffer_bytes = kRelayBufferBytes;
  // A direction starts buffered (the buffer exists only while bytes are in flight, so
  // idle tunnels hold none) and switches to splice(2) once this many bytes have passed:
  // short exchanges never pay for two pipes, bulk transfers skip the user-space copy.
  static constexpr std::size_t kSpliceAfterBytes = 64 * 1024;
  std::size_t splice_after_bytes = kSpliceAfterBytes;
  // Pipe capacity per spliced direction (pages are taken only while bytes sit in it).
  static constexpr std::size_t kSplicePipeBytes = 1024 * 1024;
  std::size_t splice_pipe_bytes = kSplicePipeBytes;

  // stop(): sessions in flight get this long to finish before they are cut.
  static constexpr Millis kDrainDeadline{5'000};
  Millis drain_deadline = kDrainDeadline;

  // BrokerStats::denials keeps this many entries; later denials are counted only.
  static constexpr std::size_t kMaxReportedDenials = 1000;
  std::size_t max_reported_denials = kMaxReportedDenials;

  // SOCKS5 user/password fields and the domain ATYP are bounded by the wire format
  // (255 octets each); nothing else to cap there.
};

}  // namespace halo::broker
