#pragma once
// Private to dns/: the Asio implementation of DnsFilter (dns/dns_filter.h), split over
// dns_filter.cpp (serving UDP and TCP) and dns_filter_setup.cpp (sockets, lifecycle).
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <atomic>
#include <mutex>
#include <thread>

#include "dns/dns_filter.h"

namespace halo::dns::detail {

namespace asio = boost::asio;
using asio::ip::tcp;
using asio::ip::udp;
using Clock = std::chrono::steady_clock;
inline constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// Queries over all clients: `rate` per second, `burst` deep. Over it, callers drop.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}
  bool take() {
    std::lock_guard lock(mu_);
    const auto now = Clock::now();
    tokens_ = std::min(burst_, tokens_ + rate_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  std::mutex mu_;
  const double rate_, burst_;
  double tokens_;
  Clock::time_point last_ = Clock::now();
};

struct Counters {
  std::atomic<std::uint64_t> queries{0}, allowed{0}, denied{0}, dropped{0}, rate_limited{0},
      forwarded{0}, upstream_failed{0}, upstream_busy{0}, tcp_refused{0}, send_failed{0},
      accept_failed{0};
};

// One TCP client and the deadline that closes it (the Asio timeouts pattern: the
// watchdog closes the socket when the expiry passes; each operation re-arms it).
struct TcpConn {
  explicit TcpConn(tcp::socket s) : sock(std::move(s)), timer(sock.get_executor()) {}
  tcp::socket sock;
  asio::steady_timer timer;
};

asio::awaitable<void> watchdog(std::shared_ptr<TcpConn> c);

class DnsFilterImpl final : public DnsFilter {
 public:
  DnsFilterImpl(DnsFilterOptions o, std::shared_ptr<Upstream> upstream)
      : opts_(std::move(o)),
        handler_(opts_.policy, opts_.pool, opts_.mode, opts_.limits),
        bucket_(opts_.limits.max_queries_per_second, opts_.limits.query_burst),
        upstream_(std::move(upstream)) {}

  ~DnsFilterImpl() override { stop(); }


  std::error_code listen(const std::string& addr_port) override;
  void adopt(std::vector<int> udp_fds, std::vector<int> tcp_fds) override;
  std::optional<std::uint16_t> bound_port() const override { return port_; }
  void start() override;
  void stop() override;
  DnsFilterStats stats() const override;
  std::shared_ptr<SessionAddressPool> pool() const override { return handler_.pool(); }

 private:
  asio::awaitable<void> serve_udp(udp::socket& sock);
  asio::awaitable<void> forward_udp(udp::socket& sock, udp::endpoint to, Step step,
                                    DnsAuditEvent audit, Clock::time_point start);
  asio::awaitable<void> serve_tcp(tcp::acceptor& acceptor);
  asio::awaitable<void> tcp_session(std::shared_ptr<TcpConn> c);
  asio::awaitable<std::vector<std::uint8_t>> forward(Step& step, DnsAuditEvent& audit);
  void emit(DnsAuditEvent& audit, Clock::time_point start);

  DnsFilterOptions opts_;
  QueryHandler handler_;
  TokenBucket bucket_;
  Counters n_;
  std::atomic<std::size_t> in_flight_{0}, tcp_conns_{0};
  std::optional<std::uint16_t> port_;
  std::atomic<bool> started_{false}, stopped_{false};
  std::vector<std::thread> threads_;
  // Declared in this order so that sockets and then the upstream (whose callbacks post
  // into io_) are destroyed before io_.
  asio::io_context io_;
  std::vector<std::unique_ptr<udp::socket>> udp_;
  std::vector<std::unique_ptr<tcp::acceptor>> tcp_;
  std::shared_ptr<Upstream> upstream_;
};

}  // namespace halo::dns::detail
