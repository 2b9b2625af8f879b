#include "broker/broker_impl.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>
#include <thread>

#include "broker/client_session.h"
#include "dns/ares_resolver.h"

namespace halo::broker {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::string_view kOverloaded =
    "HTTP/1.1 503 Service Unavailable\r\nX-Halo-Decision: overload; reason=max_connections\r\n"
    "Content-Length: 0\r\nConnection: close\r\n\r\n";

bool out_of_descriptors(const boost::system::error_code& ec) {
  return ec == boost::system::errc::too_many_files_open ||
         ec == boost::system::errc::too_many_files_open_in_system ||
         ec == boost::system::errc::no_buffer_space ||
         ec == boost::system::errc::not_enough_memory;
}

// Sessions hold two sockets and two pipes each; let the process use what it is allowed.
void raise_descriptor_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

asio::awaitable<void> accept_loop(std::shared_ptr<Context> shared, tcp::acceptor& acc,
                                  std::optional<std::uint16_t> forward_port,
                                  std::vector<asio::any_io_executor> executors) {
  Context& ctx = *shared;
  std::size_t next = 0;
  asio::steady_timer backoff(acc.get_executor());
  for (;;) {
    // The session's thread: its socket is registered with that thread's io_context.
    tcp::socket sock(executors[next++ % executors.size()]);
    tcp::endpoint peer;  // from accept itself: no getpeername per connection
    auto [ec] = co_await acc.async_accept(sock, peer, kTuple);
    if (ec == asio::error::operation_aborted || !acc.is_open()) co_return;
    if (ec) {
      // EMFILE and friends: back off and re-arm; the listener never dies of it.
      if (out_of_descriptors(ec)) {
        const std::uint64_t so_far =
            ctx.descriptor_failures.fetch_add(1, std::memory_order_relaxed) + 1;
        if (so_far % 100 == 1)
          spdlog::warn("broker: accept: {} (backing off {} ms; {} times so far)", ec.message(),
                       ctx.limits.accept_backoff.count(), so_far);
      } else {
        spdlog::warn("broker: accept: {}", ec.message());
      }
      backoff.expires_after(ctx.limits.accept_backoff);
      co_await backoff.async_wait(kTuple);
      continue;
    }
    if (ctx.open_connections.load(std::memory_order_relaxed) >= ctx.limits.max_connections ||
        ctx.stopping.load(std::memory_order_relaxed)) {
      // Fast answer, never a queue: best effort, non-blocking, then close.
      ctx.overload_rejections.fetch_add(1, std::memory_order_relaxed);
      if (!forward_port)
        ::send(sock.native_handle(), kOverloaded.data(), kOverloaded.size(),
               MSG_DONTWAIT | MSG_NOSIGNAL);
      boost::system::error_code ignored;
      sock.close(ignored);
      continue;
    }
    ctx.open_connections.fetch_add(1, std::memory_order_relaxed);
    ClientSession::start(std::make_shared<ClientSession>(shared, std::move(sock), peer, forward_port));
  }
}

}  // namespace

std::optional<tcp::endpoint> parse_listen_address(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  unsigned p = static_cast<unsigned>(std::stoul(port));
  if (p > 65535) return std::nullopt;
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return std::nullopt;
  return tcp::endpoint(addr, static_cast<std::uint16_t>(p));
}

std::unique_ptr<Broker> Broker::create(BrokerOptions options, std::error_code& ec) {
  auto b = std::make_unique<BrokerImpl>(std::move(options));
  ec = b->init();
  if (ec) return nullptr;
  return b;
}

BrokerImpl::BrokerImpl(BrokerOptions options) : options_(std::move(options)) {}

BrokerImpl::~BrokerImpl() {
  for (int fd : dns_udp_fds_) ::close(fd);
  for (int fd : dns_tcp_fds_) ::close(fd);
}

std::error_code BrokerImpl::init() {
  if (!options_.policy || !options_.policy->rules) return std::make_error_code(std::errc::invalid_argument);
  raise_descriptor_limit();
  for (unsigned i = 1; i < std::max(1u, options_.threads); ++i)
    workers_.push_back(std::make_unique<asio::io_context>(1));
  dns::AresOptions ro;
  ro.hosts_file = options_.resolver_hosts;
  ro.server = options_.resolver_server;
  std::error_code ec;
  resolver_ = dns::make_ares_resolver(io_.get_executor(), ro, ec);
  if (ec) return ec;
  ec = audit_.open(options_.audit_path, options_.session_id);
  if (ec) return ec;
  ctx_ = std::make_shared<Context>(options_, *resolver_, audit_);
  return {};
}

std::error_code BrokerImpl::listen_proxy(const std::string& addr_port) {
  auto ep = parse_listen_address(addr_port);
  if (!ep) return std::make_error_code(std::errc::invalid_argument);
  auto l = std::make_unique<Listener>(Listener{tcp::acceptor(io_), std::nullopt});
  boost::system::error_code ec;
  l->acceptor.open(ep->protocol(), ec);
  if (!ec) l->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) l->acceptor.bind(*ep, ec);
  if (!ec) l->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return std::error_code(ec.value(), std::generic_category());
  proxy_port_ = l->acceptor.local_endpoint(ec).port();
  listeners_.push_back(std::move(l));
  return {};
}

std::error_code BrokerImpl::listen_dns(const std::string& addr_port) {
  // DNS filter (issue 4): UDP+TCP on addr_port, served by the filter (dns_hookup.cpp).
  if (auto ec = ensure_dns_filter()) return ec;
  return dns_filter_->listen(addr_port);
}

void BrokerImpl::adopt(ListenerSet set) {
  auto adopt_tcp = [&](int fd, std::optional<std::uint16_t> forward) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
      spdlog::error("broker: adopted descriptor {} is not a socket", fd);
      ::close(fd);
      return;
    }
    auto l = std::make_unique<Listener>(Listener{tcp::acceptor(io_), forward});
    boost::system::error_code ec;
    l->acceptor.assign(ss.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd, ec);
    if (ec) {
      spdlog::error("broker: cannot adopt listener {}: {}", fd, ec.message());
      ::close(fd);
      return;
    }
    if (!forward) proxy_port_ = l->acceptor.local_endpoint(ec).port();
    listeners_.push_back(std::move(l));
  };
  if (set.proxy_fd >= 0) adopt_tcp(set.proxy_fd, std::nullopt);
  for (const auto& f : set.loopback_forwards) adopt_tcp(f.fd, f.port);
  for (int fd : set.dns_udp_fds) dns_udp_fds_.push_back(fd);
  for (int fd : set.dns_tcp_fds) dns_tcp_fds_.push_back(fd);
}

std::optional<std::uint16_t> BrokerImpl::bound_proxy_port() const { return proxy_port_; }
std::optional<std::uint16_t> BrokerImpl::bound_dns_port() const {
  return dns_filter_ ? dns_filter_->bound_port() : std::nullopt;
}

void BrokerImpl::run() {
  if (!dns_udp_fds_.empty() || !dns_tcp_fds_.empty() || dns_filter_) {
    if (auto ec = wire_dns_filter()) {
      spdlog::error("broker: refusing to run: the DNS filter for {} adopted DNS socket(s) "
                    "could not start ({})",
                    dns_udp_fds_.size() + dns_tcp_fds_.size(), ec.message());
      return;
    }
  }
  // Held until run() returns; begin_drain() ends the run with io_.stop().
  auto work = asio::make_work_guard(io_);
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> worker_guards;
  for (auto& w : workers_) worker_guards.push_back(asio::make_work_guard(*w));
  for (auto& l : listeners_) {
    asio::co_spawn(io_, accept_loop(ctx_, l->acceptor, l->forward_port, {io_.get_executor()}),
                   asio::detached);
    boost::system::error_code ec;
    auto protocol = l->acceptor.local_endpoint(ec).protocol();
    for (auto& w : workers_) {
      int fd = ::dup(l->acceptor.native_handle());
      auto copy = std::make_unique<Listener>(Listener{tcp::acceptor(*w), l->forward_port});
      if (fd >= 0) copy->acceptor.assign(protocol, fd, ec);
      if (fd < 0 || ec) {
        if (fd >= 0) ::close(fd);
        spdlog::warn("broker: worker listener: {}; that worker gets no connections", ec.message());
        continue;
      }
      asio::co_spawn(*w, accept_loop(ctx_, copy->acceptor, l->forward_port, {w->get_executor()}),
                     asio::detached);
      worker_listeners_.push_back(std::move(copy));
    }
  }
  running_ = true;
  std::vector<std::thread> threads;
  for (auto& w : workers_) threads.emplace_back([&w] { w->run(); });
  if (stop_requested_) asio::post(io_, [this] { begin_drain(); });
  io_.run();
  for (auto& t : threads) t.join();
  if (dns_filter_) dns_filter_->stop();
  running_ = false;
}

void BrokerImpl::stop() {
  if (stop_requested_.exchange(true)) return;
  asio::post(io_, [this] { begin_drain(); });
}

void BrokerImpl::begin_drain() {
  if (ctx_->stopping.exchange(true)) return;
  if (dns_filter_) dns_filter_->stop();  // DNS has no sessions to drain
  for (auto& l : listeners_) {
    boost::system::error_code ec;
    l->acceptor.close(ec);
  }
  for (auto& l : worker_listeners_) {  // each closed on its own thread
    asio::post(l->acceptor.get_executor(), [a = &l->acceptor] {
      boost::system::error_code ec;
      a->close(ec);
    });
  }
  auto deadline = std::chrono::steady_clock::now() + options_.limits.drain_deadline;
  auto timer = std::make_shared<asio::steady_timer>(io_);
  auto aborted = std::make_shared<bool>(false);
  auto tick = std::make_shared<std::function<void()>>();
  *tick = [this, timer, deadline, aborted, tick] {
    auto now = std::chrono::steady_clock::now();
    if (ctx_->open_connections.load() == 0 || (*aborted && now > deadline + Millis(500))) {
      io_.stop();
      for (auto& w : workers_) w->stop();
      *tick = nullptr;  // break the self-reference
      return;
    }
    if (!*aborted && now >= deadline) {
      spdlog::info("broker: drain deadline passed, closing {} session(s)",
                   ctx_->open_connections.load());
      ctx_->abort_all();
      *aborted = true;
    }
    timer->expires_after(Millis(20));
    timer->async_wait([tick](const boost::system::error_code&) {
      if (*tick) (*tick)();
    });
  };
  (*tick)();
}

BrokerStats BrokerImpl::stats() const {
  BrokerStats s = ctx_ ? ctx_->stats() : BrokerStats{};
  if (dns_filter_) add_dns_losses(s.losses);
  return s;
}

}  // namespace halo::broker
