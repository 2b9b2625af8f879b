#pragma once
// One accepted client connection, from first byte to close. The first byte tells the
// protocol: 0x05 SOCKS5, 0x04 SOCKS4 (refused), anything else an HTTP proxy request.
// A loopback-forward listener's sessions skip the sniff and tunnel straight to their port.
//
// Lifetime: owned by the coroutine co_spawned in start() (shared_from_this); registered
// with the Context so stop() can abort it. Threading: everything runs on the session's
// thread (the io_context its socket was accepted for); abort() posts there.
//
// Audit: every request, answer or tunnel ends in finish(), the one place an audit line
// is written and a decision's bytes and close reason are recorded.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <optional>
#include <string>

#include "broker/audit_log.h"
#include "broker/context.h"
#include "broker/io.h"
#include "broker/proto/http_head.h"
#include "broker/upstream.h"

namespace halo::broker {

class ClientSession final : public Abortable,
                            public std::enable_shared_from_this<ClientSession> {
 public:
  // `forward_port`: set for a loopback-forward listener's connection.
  // `peer`: the client's address as accept returned it.
  ClientSession(std::shared_ptr<Context> ctx, tcp::socket client, const tcp::endpoint& peer,
                std::optional<std::uint16_t> forward_port);
  ~ClientSession() override;

  static void start(std::shared_ptr<ClientSession> self);
  void abort() override;

 private:
  asio::awaitable<void> run();
  asio::awaitable<void> serve_http();
  asio::awaitable<void> serve_connect(const proto::RequestHead& req, AuditRecord& rec);
  // Returns whether the client connection stays open for another request.
  asio::awaitable<bool> serve_forward(const proto::RequestHead& req, AuditRecord& rec);
  asio::awaitable<void> serve_socks();
  asio::awaitable<void> serve_loopback_forward(std::uint16_t port);

  // Tunnel after a successful dial: relays and records bytes and close reason.
  asio::awaitable<void> tunnel(AuditRecord& rec);
  // Writes the success reply (CONNECT 200, SOCKS5 succeeded), tunnels, and finishes the
  // record (close_reason "client_gone" when the reply cannot be written).
  asio::awaitable<void> confirm_and_tunnel(std::string_view reply, AuditRecord& rec);
  // Reads more client bytes into in_ (bounded by max_head_bytes); n == 0 on EOF.
  asio::awaitable<std::pair<error_code, std::size_t>> fill(Millis deadline);
  // Writes an answer the broker makes itself, then closes without losing it (the client
  // may still be sending: read and discard briefly before the close).
  asio::awaitable<void> answer_and_close(std::string_view bytes);
  asio::awaitable<void> answer_http_failure(DialOutcome outcome, AuditRecord& rec);
  void finish(AuditRecord& rec);

  std::shared_ptr<Context> ctx_owner_;  // keeps the Context alive until the last session
  Context& ctx_;
  tcp::socket client_;
  tcp::socket upstream_;
  std::optional<std::uint16_t> forward_port_;
  std::string in_;  // client bytes read but not yet used; capped at max_head_bytes
  std::unique_ptr<char[]> read_buf_;  // fill()'s read buffer, uninitialized; gone in a tunnel
  std::string peer_;
  std::uint64_t registry_id_ = 0;
};

// 403/502/504 and the X-Halo-Decision value for a failed dial.
int http_status_for(DialOutcome o);

}  // namespace halo::broker
