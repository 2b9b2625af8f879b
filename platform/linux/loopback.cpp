#include "platform/linux/loopback.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/linux/linux_limits.h"

namespace halo::platform_linux {

int bring_up_loopback() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  int rc = 0;
  if (::ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
    rc = errno;
  } else {
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (::ioctl(s, SIOCSIFFLAGS, &ifr) != 0) rc = errno;
  }
  ::close(s);
  return rc;
}

namespace {

// One socket bound to loopback; -1 with errno set on failure.
int bind_loopback(int family, int type, std::uint16_t port) {
  int fd = ::socket(family, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (family == AF_INET) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    a.sin6_addr = in6addr_loopback;
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc == 0 && type == SOCK_STREAM) rc = ::listen(fd, kListenBacklog);
  if (rc != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace

bool create_listeners(std::uint16_t proxy_port, std::uint16_t dns_port,
                      const std::vector<std::uint16_t>& grants,
                      std::vector<SandboxListener>& out, std::string& why) {
  auto fail = [&](const std::string& what) {
    why = what + ": " + std::strerror(errno);
    for (auto& l : out) ::close(l.fd);
    out.clear();
    return false;
  };
  if (grants.size() > kMaxLoopbackGrants) {
    errno = E2BIG;
    return fail("more than " + std::to_string(kMaxLoopbackGrants) + " loopback grants");
  }
  int fd = bind_loopback(AF_INET, SOCK_STREAM, proxy_port);
  if (fd < 0) return fail("proxy listener 127.0.0.1:" + std::to_string(proxy_port));
  out.push_back({"proxy", proxy_port, fd});
  fd = bind_loopback(AF_INET, SOCK_DGRAM, dns_port);
  if (fd < 0) return fail("DNS listener 127.0.0.1:" + std::to_string(dns_port) + "/udp");
  out.push_back({"dns-udp", dns_port, fd});
  fd = bind_loopback(AF_INET, SOCK_STREAM, dns_port);
  if (fd < 0) return fail("DNS listener 127.0.0.1:" + std::to_string(dns_port) + "/tcp");
  out.push_back({"dns-tcp", dns_port, fd});
  for (std::uint16_t port : grants) {
    fd = bind_loopback(AF_INET, SOCK_STREAM, port);
    if (fd < 0) return fail("loopback grant listener 127.0.0.1:" + std::to_string(port));
    out.push_back({"forward", port, fd});
    fd = bind_loopback(AF_INET6, SOCK_STREAM, port);
    if (fd >= 0) out.push_back({"forward", port, fd});  // no IPv6: 127.0.0.1 is enough
  }
  return true;
}

int listen_host_loopback(std::uint16_t& port, std::string& why) {
  int fd = bind_loopback(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    why = std::string("proxy listener on 127.0.0.1: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

}  // namespace halo::platform_linux
