// DnsFilterImpl serving: UDP datagrams, TCP connections, forwards to the upstream.
// Everything about what is answered lives in QueryHandler.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "dns/dns_filter_impl.h"

namespace halo::dns::detail {
namespace {

template <typename Endpoint>
std::string endpoint_text(const Endpoint& ep) {
  const auto a = ep.address();
  return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(ep.port());
}

}  // namespace

asio::awaitable<void> watchdog(std::shared_ptr<TcpConn> c) {
  while (c->sock.is_open()) {
    co_await c->timer.async_wait(kTuple);
    if (c->timer.expiry() <= Clock::now()) {
      boost::system::error_code ignored;
      c->sock.close(ignored);
    }
  }
}

void DnsFilterImpl::emit(DnsAuditEvent& audit, Clock::time_point start) {
  audit.duration = Clock::now() - start;
  (audit.verdict == policy::Verdict::allow ? n_.allowed : n_.denied)++;
  if (opts_.audit) opts_.audit(audit);
}

asio::awaitable<std::vector<std::uint8_t>> DnsFilterImpl::forward(Step& step,
                                                                  DnsAuditEvent& audit) {
  if (in_flight_.fetch_add(1) >= opts_.limits.max_upstream_in_flight) {
    in_flight_--;
    n_.upstream_busy++;
    co_return handler_.fail(step.pending, Rcode::servfail, "upstream busy", audit);
  }
  n_.forwarded++;
  auto initiate = [this](auto handler, std::vector<std::uint8_t> query) {
    auto ex = asio::get_associated_executor(handler, io_.get_executor());
    auto shared = std::make_shared<decltype(handler)>(std::move(handler));
    upstream_->send(std::move(query), [ex, shared](std::error_code ec, std::vector<std::uint8_t> a) {
      asio::post(ex, [shared, ec, a = std::move(a)]() mutable { (*shared)(ec, std::move(a)); });
    });
  };
  auto [ec, answer] =
      co_await asio::async_initiate<decltype(kTuple), void(std::error_code, std::vector<std::uint8_t>)>(
          initiate, kTuple, std::move(step.upstream_query));
  in_flight_--;
  if (ec) n_.upstream_failed++;
  co_return handler_.finish(step.pending, ec, answer, audit);
}

asio::awaitable<void> DnsFilterImpl::serve_udp(udp::socket& sock) {
  std::vector<std::uint8_t> buf(opts_.limits.max_udp_query + 1);
  for (;;) {
    udp::endpoint from;
    auto [ec, n] = co_await sock.async_receive_from(asio::buffer(buf), from, kTuple);
    if (ec == asio::error::operation_aborted || !sock.is_open()) co_return;
    if (ec) continue;  // e.g. ICMP port unreachable reported on the socket
    n_.queries++;
    if (n > opts_.limits.max_udp_query) {
      n_.dropped++;
      continue;
    }
    if (!bucket_.take()) {
      n_.rate_limited++;
      continue;
    }
    const auto start = Clock::now();
    DnsAuditEvent audit;
    audit.client = endpoint_text(from);
    Step step = handler_.begin({buf.data(), n}, Protocol::udp, audit);
    if (step.kind == Step::Kind::forward) {
      asio::co_spawn(sock.get_executor(),
                     forward_udp(sock, from, std::move(step), std::move(audit), start),
                     asio::detached);
      continue;
    }
    if (step.kind == Step::Kind::reply) {
      boost::system::error_code send_ec;  // non-blocking socket: a full buffer drops
      sock.send_to(asio::buffer(step.reply), from, 0, send_ec);
      if (send_ec) n_.send_failed++;
    } else {
      n_.dropped++;
    }
    emit(audit, start);
  }
}

asio::awaitable<void> DnsFilterImpl::forward_udp(udp::socket& sock, udp::endpoint to, Step step,
                                                 DnsAuditEvent audit, Clock::time_point start) {
  const std::vector<std::uint8_t> reply = co_await forward(step, audit);
  boost::system::error_code ec;
  if (sock.is_open()) sock.send_to(asio::buffer(reply), to, 0, ec);
  if (ec) n_.send_failed++;
  emit(audit, start);
}

asio::awaitable<void> DnsFilterImpl::serve_tcp(tcp::acceptor& acceptor) {
  asio::steady_timer backoff(acceptor.get_executor());
  for (;;) {
    auto [ec, sock] = co_await acceptor.async_accept(kTuple);
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) {  // EMFILE and friends: count, back off, then accept again
      n_.accept_failed++;
      backoff.expires_after(opts_.limits.accept_backoff);
      co_await backoff.async_wait(kTuple);
      continue;
    }
    if (tcp_conns_.load() >= opts_.limits.max_tcp_connections) {
      n_.tcp_refused++;
      boost::system::error_code ignored;
      sock.close(ignored);
      continue;
    }
    auto conn = std::make_shared<TcpConn>(std::move(sock));
    asio::co_spawn(acceptor.get_executor(), watchdog(conn), asio::detached);
    asio::co_spawn(acceptor.get_executor(), tcp_session(conn), asio::detached);
  }
}

asio::awaitable<void> DnsFilterImpl::tcp_session(std::shared_ptr<TcpConn> c) {
  tcp_conns_++;
  std::string client;
  if (boost::system::error_code ec; true) {
    const auto ep = c->sock.remote_endpoint(ec);
    if (!ec) client = endpoint_text(ep);
  }
  std::vector<std::uint8_t> body;
  for (std::size_t i = 0; i < opts_.limits.max_tcp_queries_per_connection; ++i) {
    c->timer.expires_after(i == 0 ? opts_.limits.tcp_io_timeout : opts_.limits.tcp_idle_timeout);
    std::uint8_t prefix[2];
    auto [ec, n] = co_await asio::async_read(c->sock, asio::buffer(prefix), kTuple);
    if (ec) break;
    const std::size_t len = (std::size_t{prefix[0]} << 8) | prefix[1];
    n_.queries++;
    if (len > opts_.limits.max_tcp_query) {
      n_.dropped++;
      break;
    }
    c->timer.expires_after(opts_.limits.tcp_io_timeout);
    body.resize(len);
    auto [ec2, n2] = co_await asio::async_read(c->sock, asio::buffer(body), kTuple);
    if (ec2) break;
    if (!bucket_.take()) {
      n_.rate_limited++;
      break;
    }
    const auto start = Clock::now();
    DnsAuditEvent audit;
    audit.client = client;
    Step step = handler_.begin(body, Protocol::tcp, audit);
    std::vector<std::uint8_t> reply;
    if (step.kind == Step::Kind::forward) {
      // The upstream bounds its own wait (timeout x tries); keep the client that long.
      c->timer.expires_after(opts_.limits.upstream_timeout * opts_.limits.upstream_tries +
                             opts_.limits.tcp_io_timeout);
      reply = co_await forward(step, audit);
    } else if (step.kind == Step::Kind::reply) {
      reply = std::move(step.reply);
    } else {
      n_.dropped++;
      emit(audit, start);
      break;
    }
    c->timer.expires_after(opts_.limits.tcp_io_timeout);
    const std::uint8_t out_prefix[2] = {static_cast<std::uint8_t>(reply.size() >> 8),
                                        static_cast<std::uint8_t>(reply.size())};
    const std::array<asio::const_buffer, 2> bufs{asio::buffer(out_prefix), asio::buffer(reply)};
    auto [ec3, n3] = co_await asio::async_write(c->sock, bufs, kTuple);
    emit(audit, start);
    if (ec3) {
      n_.send_failed++;
      break;
    }
  }
  boost::system::error_code ignored;
  c->sock.close(ignored);
  c->timer.cancel();
  tcp_conns_--;
}

DnsFilterStats DnsFilterImpl::stats() const {
  DnsFilterStats s;
  s.queries = n_.queries;
  s.allowed = n_.allowed;
  s.denied = n_.denied;
  s.dropped = n_.dropped;
  s.rate_limited = n_.rate_limited;
  s.forwarded = n_.forwarded;
  s.upstream_failed = n_.upstream_failed;
  s.upstream_busy = n_.upstream_busy;
  s.tcp_refused = n_.tcp_refused;
  s.send_failed = n_.send_failed;
  s.accept_failed = n_.accept_failed;
  s.pool_full = handler_.pool()->full_refusals();
  return s;
}

}  // namespace halo::dns::detail
