#pragma once
// BrokerImpl: the Broker of broker.h on Boost.Asio. Owns the io_context and its worker
// threads, the resolver, the audit log, the listeners, and the Context the sessions share.
//
// Threading: one io_context per thread (see io_/workers_); sessions stay on the thread
// they were accepted for.
// Lifetime: create() -> listen_proxy()/adopt() -> run() (blocks) ... stop() from any
// thread -> listeners close, sessions get Limits::drain_deadline to finish, the rest are
// aborted, run() returns.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/audit_log.h"
#include "broker/broker.h"
#include "broker/context.h"
#include "dns/dns_filter.h"
#include "dns/resolver.h"

namespace halo::broker {

class BrokerImpl final : public Broker {
 public:
  explicit BrokerImpl(BrokerOptions options);
  ~BrokerImpl() override;
  std::error_code init();

  std::error_code listen_proxy(const std::string& addr_port) override;
  std::error_code listen_dns(const std::string& addr_port) override;
  void adopt(ListenerSet listeners) override;
  std::optional<std::uint16_t> bound_proxy_port() const override;
  std::optional<std::uint16_t> bound_dns_port() const override;
  void run() override;
  void stop() override;
  BrokerStats stats() const override;

  // For tests: the io_context the broker runs on.
  boost::asio::io_context& io() { return io_; }

 private:
  struct Listener {
    boost::asio::ip::tcp::acceptor acceptor;
    std::optional<std::uint16_t> forward_port;  // loopback-forward listener
  };
  void start_accepting(Listener& l);
  void begin_drain();
  // DNS filter (issue 4; broker/dns_hookup.cpp). ensure_dns_filter() creates it once
  // (audit into audit_, counts into ctx_); wire_dns_filter() hands it the adopted DNS fds,
  // sets ctx_->session_name to its pool's lookup (synthetic mode) and starts it.
  std::error_code ensure_dns_filter();
  std::error_code wire_dns_filter();
  // Folds the filter's drop and failure counters into `losses` (dns_hookup.cpp).
  void add_dns_losses(LossCounters& losses) const;

  // Declaration order is destruction order reversed: the io_context goes last, so the
  // session frames it still holds are destroyed while the Context they share lives
  // (sessions hold it by shared_ptr).
  BrokerOptions options_;
  // io_ runs on the caller of run(): listeners, the resolver, the drain, and sessions.
  // workers_ (threads - 1 of them) each run on one thread of their own and take sessions
  // round-robin, so a session's work never hops threads (no strand needed).
  boost::asio::io_context io_{1};
  std::vector<std::unique_ptr<boost::asio::io_context>> workers_;
  std::unique_ptr<dns::Resolver> resolver_;
  AuditLog audit_;
  std::shared_ptr<Context> ctx_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  // One more acceptor per worker on a dup of each listening socket: a connection is
  // accepted by the thread that serves it (no hand-off between threads).
  std::vector<std::unique_ptr<Listener>> worker_listeners_;
  std::optional<std::uint16_t> proxy_port_;
  std::vector<int> dns_udp_fds_;
  std::vector<int> dns_tcp_fds_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> running_{false};
  // Last, so it is destroyed (its threads joined) before ctx_ and audit_ it reports into.
  std::unique_ptr<dns::DnsFilter> dns_filter_;
};

// "127.0.0.1:8080", "[::1]:0", "0.0.0.0:3128" -> endpoint; nullopt when malformed.
std::optional<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& text);

}  // namespace halo::broker
