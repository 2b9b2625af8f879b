#include "broker/client_session.h"

#include <sys/socket.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "broker/proto/http_rewrite.h"
#include "broker/proto/socks5.h"
#include "broker/relay.h"

namespace halo::broker {

ClientSession::ClientSession(std::shared_ptr<Context> ctx, tcp::socket client,
                             const tcp::endpoint& peer, std::optional<std::uint16_t> forward_port)
    : ctx_owner_(std::move(ctx)),
      ctx_(*ctx_owner_),
      client_(std::move(client)),
      upstream_(client_.get_executor()),
      forward_port_(forward_port) {
  peer_ = peer.address().is_v6() ? "[" + peer.address().to_string() + "]" : peer.address().to_string();
  peer_ += ":" + std::to_string(peer.port());
  error_code ec;
  client_.set_option(tcp::no_delay(true), ec);
}

ClientSession::~ClientSession() {
  ctx_.remove_session(registry_id_);
  ctx_.open_connections.fetch_sub(1, std::memory_order_relaxed);
}

void ClientSession::start(std::shared_ptr<ClientSession> self) {
  self->registry_id_ = self->ctx_.add_session(self);
  auto ex = self->client_.get_executor();
  asio::co_spawn(ex, [self]() -> asio::awaitable<void> { co_await self->run(); },
                 [](std::exception_ptr e) {
                   if (!e) return;
                   try {
                     std::rethrow_exception(e);
                   } catch (const std::exception& ex) {
                     spdlog::error("broker: session ended by exception: {}", ex.what());
                   }
                 });
}

void ClientSession::abort() {
  asio::post(client_.get_executor(), [self = shared_from_this()] {
    error_code ec;
    ::shutdown(self->client_.native_handle(), SHUT_RDWR);
    ::shutdown(self->upstream_.native_handle(), SHUT_RDWR);
    self->client_.cancel(ec);
    self->upstream_.cancel(ec);
  });
}

asio::awaitable<void> ClientSession::run() {
  if (forward_port_) {
    co_await serve_loopback_forward(*forward_port_);
    co_return;
  }
  auto [ec, n] = co_await fill(ctx_.limits.head_read_deadline);
  if (ec || n == 0) co_return;  // closed or silent before its first byte: nothing decided
  auto first = static_cast<unsigned char>(in_[0]);
  if (first == proto::socks5::kVersion) {
    co_await serve_socks();
  } else if (first == 4) {
    AuditRecord rec;
    rec.client = peer_;
    rec.transport = "socks4";
    rec.verdict = "invalid";
    rec.reason = "unsupported_protocol";
    rec.rule = "SOCKS4 is not supported; use SOCKS5 (socks5h://)";
    rec.status = 0x5b;
    auto reply = proto::socks5::socks4_rejected();
    co_await answer_and_close(std::string_view(reinterpret_cast<const char*>(reply.data()),
                                               reply.size()));
    rec.close_reason = "refused";
    finish(rec);
  } else {
    co_await serve_http();
  }
}

asio::awaitable<std::pair<error_code, std::size_t>> ClientSession::fill(Millis deadline) {
  std::size_t cap = ctx_.limits.max_head_bytes;
  std::size_t old = in_.size();
  if (old >= cap) co_return std::pair{error_code(asio::error::no_buffer_space), std::size_t{0}};
  constexpr std::size_t kReadChunk = 16 * 1024;
  std::size_t want = std::min<std::size_t>(cap - old, kReadChunk);
  // Read into an uninitialized buffer and append what came: no zero-filling per read.
  if (!read_buf_) read_buf_ = std::make_unique_for_overwrite<char[]>(kReadChunk);
  if (deadline <= Millis(0)) deadline = Millis(1);
  auto [ec, n] = co_await read_some_for(client_, asio::buffer(read_buf_.get(), want), deadline);
  if (!ec) in_.append(read_buf_.get(), n);
  if (ec == asio::error::eof) co_return std::pair{error_code{}, std::size_t{0}};
  co_return std::pair{ec, ec ? 0 : n};
}

asio::awaitable<void> ClientSession::answer_and_close(std::string_view bytes) {
  error_code ec = co_await write_all_for(client_, bytes, ctx_.limits.write_deadline);
  if (!ec) {
    client_.shutdown(tcp::socket::shutdown_send, ec);
    // Drain what the client still sends (bounded in bytes and time), so closing does not
    // reset the connection before the answer is read.
    char sink[4096];
    std::size_t drained = 0;
    while (drained < 64 * 1024) {
      auto [rec, n] = co_await read_some_for(client_, asio::buffer(sink), Millis(500));
      if (rec || n == 0) break;
      drained += n;
    }
  }
  client_.close(ec);
  upstream_.close(ec);
}

int http_status_for(DialOutcome o) {
  switch (o) {
    case DialOutcome::connected: return 200;
    case DialOutcome::denied: return 403;
    case DialOutcome::timeout: return 504;
    case DialOutcome::dns_failed:
    case DialOutcome::refused:
    case DialOutcome::unreachable: return 502;
  }
  return 502;
}

asio::awaitable<void> ClientSession::answer_http_failure(DialOutcome outcome, AuditRecord& rec) {
  int status = http_status_for(outcome);
  rec.status = status;
  std::string answer;
  if (outcome == DialOutcome::denied) {
    std::string decision = "deny; reason=" + rec.reason + "; rule=" + rec.rule;
    answer = proto::broker_answer(403, "Forbidden", decision,
                                  "halo: " + rec.host + ":" + std::to_string(rec.port) +
                                      " denied by " + rec.rule + "\n");
    rec.close_reason = "denied";
  } else {
    const char* why = outcome == DialOutcome::dns_failed ? "could not resolve the host"
                      : outcome == DialOutcome::refused  ? "the upstream refused the connection"
                      : outcome == DialOutcome::timeout  ? "connecting to the upstream timed out"
                                                         : "the upstream is unreachable";
    answer = proto::broker_answer(status, status == 504 ? "Gateway Timeout" : "Bad Gateway", "",
                                  std::string("halo: ") + why + "\n");
    if (rec.close_reason.empty()) rec.close_reason = to_string(outcome);
  }
  co_await answer_and_close(answer);
}

asio::awaitable<void> ClientSession::tunnel(AuditRecord& rec) {
  // Bytes the client sent past its request go upstream first. Copied to an exact-size
  // string: the read buffer's capacity must not live on for the whole tunnel.
  std::string pending(in_);
  in_.clear();
  in_.shrink_to_fit();
  read_buf_.reset();
  RelayResult r = co_await relay(client_, upstream_, pending, ctx_.limits);
  rec.bytes_up = r.up;
  rec.bytes_down = r.down;
  rec.close_reason = r.close_reason;
  error_code ec;
  client_.close(ec);
  upstream_.close(ec);
}

asio::awaitable<void> ClientSession::confirm_and_tunnel(std::string_view reply,
                                                      AuditRecord& rec) {
  error_code ec = co_await write_all_for(client_, reply, ctx_.limits.write_deadline);
  if (ec) {
    rec.close_reason = "client_gone";
  } else {
    co_await tunnel(rec);
  }
  finish(rec);
}

asio::awaitable<void> ClientSession::serve_loopback_forward(std::uint16_t port) {
  AuditRecord rec;
  rec.client = peer_;
  rec.transport = "forward";
  DialOutcome o = co_await dial_upstream(ctx_, "127.0.0.1", port, "forward", upstream_, rec);
  if (o != DialOutcome::connected) {
    if (rec.close_reason.empty()) rec.close_reason = to_string(o);
    error_code ec;
    client_.close(ec);
    finish(rec);
    co_return;
  }
  co_await tunnel(rec);
  finish(rec);
}

void ClientSession::finish(AuditRecord& rec) {
  if (rec.client.empty()) rec.client = peer_;
  ctx_.audit.write(rec);
  spdlog::debug("broker: {} {}:{} {} ({}) status {} up {} down {} {}", rec.transport, rec.host,
                rec.port, rec.verdict, rec.rule, rec.status, rec.bytes_up, rec.bytes_down,
                rec.close_reason);
}

}  // namespace halo::broker
