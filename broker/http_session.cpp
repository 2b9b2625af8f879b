// HTTP proxy side of ClientSession: the request-head loop (each request on a kept-alive
// connection decided on its own) and CONNECT tunnels. Absolute-form forwarding is in
// http_forward.cpp.
#include <chrono>

#include "broker/client_session.h"
#include "broker/proto/http_rewrite.h"
#include "broker/proto/http_target.h"

namespace halo::broker {
namespace {

using Clock = std::chrono::steady_clock;

void mark_invalid(AuditRecord& rec, int status, const char* reason, std::string rule) {
  rec.verdict = "invalid";
  rec.reason = reason;
  rec.rule = std::move(rule);
  rec.status = status;
  rec.close_reason = "bad_request";
}

}  // namespace

asio::awaitable<void> ClientSession::serve_http() {
  const Limits& lim = ctx_.limits;
  bool first = true;
  for (;;) {
    AuditRecord rec;
    rec.client = peer_;
    rec.transport = "http";
    // Slowloris: the whole head must arrive within head_read_deadline of its first byte
    // (of accept, for the first request); between requests the connection may idle for
    // keep_alive_idle.
    auto head_due = Clock::now() + lim.head_read_deadline;
    std::optional<std::size_t> end;
    while (!(end = proto::find_head_end(in_))) {
      if (proto::has_bare_line_end(in_)) {
        mark_invalid(rec, 400, "bad_request", "bare CR or LF in the head");
        co_await answer_and_close(proto::broker_answer(
            400, "Bad Request", "", "halo: bad request: bare CR or LF in the head\n"));
        finish(rec);
        co_return;
      }
      if (in_.size() >= lim.max_head_bytes) {
        mark_invalid(rec, 431, "head_too_large", "request head larger than the limit");
        co_await answer_and_close(proto::broker_answer(
            431, "Request Header Fields Too Large", "", "halo: request head too large\n"));
        finish(rec);
        co_return;
      }
      Millis wait = (in_.empty() && !first)
                        ? lim.keep_alive_idle
                        : std::chrono::duration_cast<Millis>(head_due - Clock::now());
      if (wait <= Millis(0)) {
        mark_invalid(rec, 408, "head_timeout", "request head not received in time");
        co_await answer_and_close(
            proto::broker_answer(408, "Request Timeout", "", "halo: request head timeout\n"));
        finish(rec);
        co_return;
      }
      bool was_empty = in_.empty();
      auto [ec, n] = co_await fill(wait);
      if (ec && is_timeout(ec) && !in_.empty()) continue;  // loop reports the head timeout
      if (ec || n == 0) {
        if (!in_.empty()) {
          mark_invalid(rec, 0, "client_closed", "client closed inside a request head");
          finish(rec);
        }
        co_return;  // idle keep-alive connection closed, or never spoke again
      }
      if (was_empty && !first) head_due = Clock::now() + lim.head_read_deadline;
    }
    first = false;
    if (*end > lim.max_head_bytes) {
      mark_invalid(rec, 431, "head_too_large", "request head larger than the limit");
      co_await answer_and_close(proto::broker_answer(431, "Request Header Fields Too Large", "",
                                                     "halo: request head too large\n"));
      finish(rec);
      co_return;
    }
    auto parsed = proto::parse_request_head(std::string_view(in_).substr(0, *end),
                                            lim.max_header_count);
    if (!parsed) {
      mark_invalid(rec, 400, "bad_request", parsed.error.reason);
      co_await answer_and_close(proto::broker_answer(
          400, "Bad Request", "", std::string("halo: bad request: ") + parsed.error.reason + "\n"));
      finish(rec);
      co_return;
    }
    in_.erase(0, *end);
    const proto::RequestHead& req = *parsed.value;
    if (proto::iequals(req.method, "CONNECT")) {
      co_await serve_connect(req, rec);
      co_return;
    }
    bool keep = co_await serve_forward(req, rec);
    if (!keep || ctx_.stopping.load(std::memory_order_relaxed)) co_return;
  }
}

asio::awaitable<void> ClientSession::serve_connect(const proto::RequestHead& req,
                                                   AuditRecord& rec) {
  rec.transport = "connect";
  rec.method = "CONNECT";
  auto auth = proto::parse_authority(req.target);
  if (!auth) {
    mark_invalid(rec, 400, "bad_request", "CONNECT target is not host:port");
    co_await answer_and_close(
        proto::broker_answer(400, "Bad Request", "", "halo: CONNECT needs host:port\n"));
    finish(rec);
    co_return;
  }
  if (req.body.kind != proto::BodyKind::none) {
    mark_invalid(rec, 400, "bad_request", "CONNECT with a body");
    co_await answer_and_close(
        proto::broker_answer(400, "Bad Request", "", "halo: CONNECT must not carry a body\n"));
    finish(rec);
    co_return;
  }
  std::string host = auth->bracketed ? "[" + auth->host + "]" : auth->host;
  DialOutcome o = co_await dial_upstream(ctx_, host, auth->port, "connect", upstream_, rec);
  if (o != DialOutcome::connected) {
    co_await answer_http_failure(o, rec);
    finish(rec);
    co_return;
  }
  rec.status = 200;
  co_await confirm_and_tunnel("HTTP/1.1 200 Connection established\r\n\r\n", rec);
}

}  // namespace halo::broker
