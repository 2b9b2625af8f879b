// Absolute-form forwarding ("GET http://host/path HTTP/1.1" to the proxy): decide and dial
// like CONNECT, send the request in origin-form with hop-by-hop and Proxy-* fields
// removed, relay the body with its framing checked, then the response the same way.
// One upstream connection per request ("Connection: close" upstream), so every request
// on a kept-alive client connection is decided, resolved and dialed on its own.
#include <vector>

#include "broker/client_session.h"
#include "broker/proto/chunked.h"
#include "broker/proto/http_rewrite.h"
#include "broker/proto/http_target.h"

namespace halo::broker {
namespace {

struct BodyCopy {
  error_code ec;
  const char* error = nullptr;  // framing error text
};

// Copies one message body from `from` to `to`, starting with the bytes already read into
// `pending` (what is left of `pending` after the body stays there, e.g. a pipelined
// request). Bounded memory: one relay buffer.
asio::awaitable<BodyCopy> copy_body(tcp::socket& from, std::string& pending, tcp::socket& to,
                                    const proto::Framing& framing, const Limits& lim,
                                    std::uint64_t& count) {
  BodyCopy out;
  if (framing.kind == proto::BodyKind::none) co_return out;
  std::vector<char> buf;
  std::uint64_t remaining = framing.length;
  proto::ChunkedScanner chunks(lim.max_head_bytes);

  // Forwards the prefix of `data` that belongs to the body; returns how much that was and
  // whether the body is complete.
  auto take = [&](std::string_view data, bool& done) -> std::size_t {
    done = false;
    switch (framing.kind) {
      case proto::BodyKind::length: {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, data.size()));
        remaining -= n;
        done = remaining == 0;
        return n;
      }
      case proto::BodyKind::chunked: {
        auto step = chunks.feed(data);
        if (step.error) out.error = step.error;
        done = step.done;
        return step.consumed;
      }
      default:
        return data.size();
    }
  };

  bool done = false;
  std::size_t n = take(pending, done);
  if (out.error) co_return out;
  if (n > 0) {
    out.ec = co_await write_all_for(to, std::string_view(pending.data(), n), lim.write_deadline);
    count += n;
    pending.erase(0, n);
    if (out.ec) co_return out;
  }
  if (done) co_return out;
  buf.resize(lim.relay_buffer_bytes);
  for (;;) {
    auto [ec, got] = co_await read_some_for(from, asio::buffer(buf), lim.idle_deadline);
    if (ec == asio::error::eof || (!ec && got == 0)) {
      if (framing.kind != proto::BodyKind::until_close) out.error = "connection closed inside a body";
      co_return out;
    }
    if (ec) {
      out.ec = ec;
      co_return out;
    }
    std::string_view data(buf.data(), got);
    std::size_t used = take(data, done);
    if (used > 0) {
      out.ec = co_await write_all_for(to, data.substr(0, used), lim.write_deadline);
      count += used;
      if (out.ec) co_return out;
    }
    if (out.error) co_return out;
    if (done) {
      pending.append(data.substr(used));
      co_return out;
    }
  }
}

}  // namespace

asio::awaitable<bool> ClientSession::serve_forward(const proto::RequestHead& req,
                                                   AuditRecord& rec) {
  const Limits& lim = ctx_.limits;
  rec.method = req.method;
  auto bad = [&](const char* why) -> asio::awaitable<bool> {
    rec.verdict = "invalid";
    rec.reason = "bad_request";
    rec.rule = why;
    rec.status = 400;
    rec.close_reason = "bad_request";
    co_await answer_and_close(
        proto::broker_answer(400, "Bad Request", "", std::string("halo: bad request: ") + why + "\n"));
    finish(rec);
    co_return false;
  };
  auto target = proto::parse_absolute_target(req.target);
  if (!target) co_return co_await bad("the request target is not an absolute http:// URI");
  rec.path = target->path();
  rec.host = target->authority.host;
  rec.port = target->authority.port;
  if (const auto* host = req.find("host")) {
    auto h = proto::parse_host_header(host->value, 80);
    if (!h || !proto::same_authority(*h, target->authority))
      co_return co_await bad("Host does not match the request target");
  } else if (req.minor == 1) {
    co_return co_await bad("HTTP/1.1 request without Host");
  }
  if (req.body.kind == proto::BodyKind::chunked) {
    // Bad chunking already in hand is refused before anything is dialed or sent.
    proto::ChunkedScanner probe(lim.max_head_bytes);
    if (const char* err = probe.feed(in_).error) co_return co_await bad(err);
  }
  std::string host = target->authority.bracketed ? "[" + target->authority.host + "]"
                                                 : target->authority.host;
  DialOutcome o = co_await dial_upstream(ctx_, host, target->authority.port, "http", upstream_, rec);
  if (o != DialOutcome::connected) {
    co_await answer_http_failure(o, rec);
    finish(rec);
    co_return false;
  }
  auto close_both = [&] {
    error_code ec;
    upstream_.close(ec);
    client_.close(ec);
  };

  error_code ec = co_await write_all_for(upstream_, proto::upstream_request_head(req, *target),
                                         lim.write_deadline);
  BodyCopy up;
  if (!ec) up = co_await copy_body(client_, in_, upstream_, req.body, lim, rec.bytes_up);
  if (up.error) {
    rec.status = 400;
    rec.close_reason = up.error;
    upstream_.close(ec);
    co_await answer_and_close(proto::broker_answer(
        400, "Bad Request", "", std::string("halo: bad request body: ") + up.error + "\n"));
    finish(rec);
    co_return false;
  }
  if (ec || up.ec) {
    rec.status = 502;
    rec.close_reason = "upstream write failed";
    upstream_.close(ec);
    co_await answer_and_close(
        proto::broker_answer(502, "Bad Gateway", "", "halo: the upstream closed the request\n"));
    finish(rec);
    co_return false;
  }

  // Response head (interim 1xx answers are passed on and the next head read).
  std::string resp_in;
  for (;;) {
    std::optional<std::size_t> end;
    while (!(end = proto::find_head_end(resp_in))) {
      if (resp_in.size() >= lim.max_head_bytes) break;
      std::size_t old = resp_in.size();
      std::size_t want = std::min<std::size_t>(lim.max_head_bytes - old, 16 * 1024);
      resp_in.resize(old + want);
      auto [rec_ec, n] = co_await read_some_for(upstream_, asio::buffer(resp_in.data() + old, want),
                                                lim.idle_deadline);
      resp_in.resize(old + (rec_ec ? 0 : n));
      if (rec_ec || n == 0) break;
    }
    proto::Framing framing;
    std::optional<proto::ResponseHead> resp;
    if (end) {
      auto parsed = proto::parse_response_head(std::string_view(resp_in).substr(0, *end),
                                               lim.max_header_count, req.method, framing);
      if (parsed) resp = std::move(*parsed.value);
    }
    if (!resp || resp->status == 101) {
      rec.status = 502;
      rec.close_reason = "bad or missing response from the upstream";
      upstream_.close(ec);
      co_await answer_and_close(proto::broker_answer(
          502, "Bad Gateway", "", "halo: the upstream sent no valid response\n"));
      finish(rec);
      co_return false;
    }
    resp_in.erase(0, *end);
    if (resp->status / 100 == 1) {
      ec = co_await write_all_for(client_, proto::client_response_head(*resp, true),
                                  lim.write_deadline);
      if (ec) break;
      continue;
    }
    bool keep = req.keep_alive && framing.kind != proto::BodyKind::until_close &&
                !ctx_.stopping.load(std::memory_order_relaxed);
    rec.status = resp->status;
    ec = co_await write_all_for(client_, proto::client_response_head(*resp, keep),
                                lim.write_deadline);
    if (ec) break;
    BodyCopy down = co_await copy_body(upstream_, resp_in, client_, framing, lim, rec.bytes_down);
    upstream_.close(ec);
    if (down.error || down.ec) {
      rec.close_reason = down.error ? std::string(down.error)
                                    : "response relay failed: " + down.ec.message();
      close_both();
      finish(rec);
      co_return false;
    }
    rec.close_reason = keep ? "done" : "done, close";
    if (!keep) {
      client_.shutdown(tcp::socket::shutdown_send, ec);
      client_.close(ec);
    }
    finish(rec);
    co_return keep;
  }
  rec.close_reason = "client write failed";
  close_both();
  finish(rec);
  co_return false;
}

}  // namespace halo::broker
