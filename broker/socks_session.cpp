// SOCKS5 side of ClientSession: method negotiation (no-auth, or user/password accepted
// without being kept), CONNECT only, ATYP domain/IPv4/IPv6; BIND and UDP ASSOCIATE get
// "command not supported". The whole handshake shares one head_read_deadline.
#include <array>
#include <chrono>
#include <span>

#include "broker/client_session.h"
#include "broker/proto/socks5.h"

namespace halo::broker {
namespace {

namespace s5 = proto::socks5;
using Clock = std::chrono::steady_clock;

s5::Reply reply_for(DialOutcome o) {
  switch (o) {
    case DialOutcome::connected: return s5::Reply::succeeded;
    case DialOutcome::denied: return s5::Reply::not_allowed;
    case DialOutcome::refused: return s5::Reply::connection_refused;
    case DialOutcome::timeout: return s5::Reply::ttl_expired;
    case DialOutcome::dns_failed: return s5::Reply::host_unreachable;
    case DialOutcome::unreachable: return s5::Reply::network_unreachable;
  }
  return s5::Reply::general_failure;
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

template <std::size_t N>
std::string_view view_of(const std::array<std::uint8_t, N>& a) {
  return {reinterpret_cast<const char*>(a.data()), N};
}

}  // namespace

asio::awaitable<void> ClientSession::serve_socks() {
  AuditRecord rec;
  rec.client = peer_;
  rec.transport = "socks5";
  auto due = Clock::now() + ctx_.limits.head_read_deadline;
  auto invalid = [&](const char* reason, const char* why) {
    rec.verdict = "invalid";
    rec.reason = reason;
    rec.rule = why;
    rec.close_reason = "bad_request";
  };
  // Parses with `parse` until it has a whole message, reading more as needed.
  auto need = [&](auto parse)
      -> asio::awaitable<decltype(parse(std::span<const std::uint8_t>{}))> {
    for (;;) {
      auto r = parse(bytes_of(in_));
      if (r.status != s5::Status::need_more) co_return r;
      auto left = std::chrono::duration_cast<Millis>(due - Clock::now());
      if (left <= Millis(0)) co_return r;
      auto [ec, n] = co_await fill(left);
      if (ec || n == 0) co_return r;
    }
  };

  auto greeting = co_await need(s5::parse_greeting);
  if (greeting.status != s5::Status::ok) {
    invalid("bad_request", greeting.status == s5::Status::error ? greeting.error
                                                                 : "incomplete SOCKS5 greeting");
    co_await answer_and_close({});
    finish(rec);
    co_return;
  }
  in_.erase(0, greeting.consumed);
  std::uint8_t method = greeting.value.no_auth     ? s5::kMethodNoAuth
                        : greeting.value.user_pass ? s5::kMethodUserPass
                                                   : s5::kMethodNone;
  std::array<std::uint8_t, 2> choice{s5::kVersion, method};
  if (method == s5::kMethodNone) {
    invalid("bad_request", "no acceptable SOCKS5 authentication method");
    co_await answer_and_close(view_of(choice));
    finish(rec);
    co_return;
  }
  error_code ec = co_await write_all_for(client_, view_of(choice), ctx_.limits.write_deadline);
  if (ec) co_return;
  if (method == s5::kMethodUserPass) {
    auto auth = co_await need(s5::parse_user_pass);
    if (auth.status != s5::Status::ok) {
      invalid("bad_request", "malformed SOCKS5 user/password");
      co_await answer_and_close(view_of(std::array<std::uint8_t, 2>{1, 1}));
      finish(rec);
      co_return;
    }
    // Erase the credentials from memory as soon as they are parsed; never kept or logged.
    std::fill(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(auth.consumed), '\0');
    in_.erase(0, auth.consumed);
    ec = co_await write_all_for(client_, view_of(std::array<std::uint8_t, 2>{1, 0}),
                                ctx_.limits.write_deadline);
    if (ec) co_return;
  }

  auto request = co_await need(s5::parse_request);
  if (request.status != s5::Status::ok) {
    invalid("bad_request", request.status == s5::Status::error ? request.error
                                                                : "incomplete SOCKS5 request");
    rec.status = static_cast<int>(request.reply);
    if (request.status == s5::Status::error) co_await answer_and_close(view_of(s5::reply(request.reply)));
    else co_await answer_and_close({});
    finish(rec);
    co_return;
  }
  in_.erase(0, request.consumed);
  const s5::Request& req = request.value;
  rec.host = req.host;
  rec.port = req.port;
  if (req.command != s5::Command::connect) {
    invalid("command_not_supported", req.command == s5::Command::bind
                                         ? "SOCKS5 BIND is not supported"
                                         : "SOCKS5 UDP ASSOCIATE is not supported");
    rec.status = static_cast<int>(s5::Reply::command_not_supported);
    co_await answer_and_close(view_of(s5::reply(s5::Reply::command_not_supported)));
    finish(rec);
    co_return;
  }
  std::string host = req.atyp == 4 ? "[" + req.host + "]" : req.host;
  DialOutcome o = co_await dial_upstream(ctx_, host, req.port, "socks5", upstream_, rec);
  s5::Reply code = reply_for(o);
  rec.status = static_cast<int>(code);
  if (o != DialOutcome::connected) {
    if (rec.close_reason.empty() || o == DialOutcome::denied) rec.close_reason = to_string(o);
    co_await answer_and_close(view_of(s5::reply(code)));
    finish(rec);
    co_return;
  }
  co_await confirm_and_tunnel(view_of(s5::reply(code)), rec);
}

}  // namespace halo::broker
