// DnsFilterImpl lifecycle: binding or adopting sockets, threads, stop, and create().
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "dns/ares_upstream.h"
#include "dns/dns_filter_impl.h"

namespace halo::dns {
namespace detail {
namespace {

// The family of a socket we were handed, from the kernel.
std::optional<int> socket_family(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return std::nullopt;
  return ss.ss_family;
}

}  // namespace

std::error_code DnsFilterImpl::listen(const std::string& addr_port) {
  const auto hp = parse_addr_port(addr_port);
  if (!hp) return std::make_error_code(std::errc::invalid_argument);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(hp->address, ec);
  if (ec) return std::make_error_code(std::errc::invalid_argument);
  // UDP first (port 0 picks one), then TCP on the same port; a busy TCP port with an
  // ephemeral UDP pick is retried a few times.
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto u = std::make_unique<udp::socket>(io_);
    const udp::endpoint uep(address, hp->port);
    u->open(uep.protocol(), ec);
    if (!ec) u->bind(uep, ec);
    if (ec) return ec;
    const std::uint16_t port = u->local_endpoint(ec).port();
    if (ec) return ec;
    auto t = std::make_unique<tcp::acceptor>(io_);
    const tcp::endpoint tep(address, port);
    t->open(tep.protocol(), ec);
    if (!ec) t->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) t->bind(tep, ec);
    if (!ec) t->listen(asio::socket_base::max_listen_connections, ec);
    if (ec && hp->port == 0 && ec == asio::error::address_in_use) continue;
    if (ec) return ec;
    u->non_blocking(true, ec);
    if (ec) return ec;
    udp_.push_back(std::move(u));
    tcp_.push_back(std::move(t));
    if (!port_) port_ = port;
    return {};
  }
  return std::make_error_code(std::errc::address_in_use);
}

void DnsFilterImpl::adopt(std::vector<int> udp_fds, std::vector<int> tcp_fds) {
  boost::system::error_code ec;
  for (int fd : udp_fds) {
    const auto family = socket_family(fd);
    auto u = std::make_unique<udp::socket>(io_);
    u->assign(family == AF_INET6 ? udp::v6() : udp::v4(), fd, ec);
    if (ec) {
      ::close(fd);  // ownership passed to us either way
      continue;
    }
    u->non_blocking(true, ec);
    if (!port_) {
      const auto ep = u->local_endpoint(ec);
      if (!ec) port_ = ep.port();
    }
    udp_.push_back(std::move(u));
  }
  for (int fd : tcp_fds) {
    const auto family = socket_family(fd);
    auto t = std::make_unique<tcp::acceptor>(io_);
    t->assign(family == AF_INET6 ? tcp::v6() : tcp::v4(), fd, ec);
    if (ec) {
      ::close(fd);
      continue;
    }
    t->listen(asio::socket_base::max_listen_connections, ec);  // no-op when already listening
    tcp_.push_back(std::move(t));
  }
}

void DnsFilterImpl::start() {
  if (started_.exchange(true)) return;
  for (auto& u : udp_) asio::co_spawn(io_, serve_udp(*u), asio::detached);
  for (auto& t : tcp_) asio::co_spawn(io_, serve_tcp(*t), asio::detached);
  const unsigned n = std::max(1u, opts_.threads);
  for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { io_.run(); });
}

void DnsFilterImpl::stop() {
  if (stopped_.exchange(true)) return;
  io_.stop();
  for (auto& t : threads_) {
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();  // stop() from a handler: the thread ends when run() returns
    } else if (t.joinable()) {
      t.join();
    }
  }
}

}  // namespace detail

std::unique_ptr<DnsFilter> DnsFilter::create(DnsFilterOptions options, std::error_code& ec) {
  if (!options.policy || !options.policy->rules) {
    ec = std::make_error_code(std::errc::invalid_argument);
    return nullptr;
  }
  std::shared_ptr<Upstream> upstream = options.upstream;
  if (!upstream) {
    upstream = AresUpstream::create(options.upstream_server, options.limits.upstream_timeout,
                                    options.limits.upstream_tries, ec);
    if (!upstream) return nullptr;
  }
  return std::make_unique<detail::DnsFilterImpl>(std::move(options), std::move(upstream));
}

}  // namespace halo::dns
