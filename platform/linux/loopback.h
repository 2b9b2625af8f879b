#pragma once
// The network inside the sandbox: `lo` brought up (ioctl, no external tools) and the
// broker's listening sockets bound on it. Run in the child, inside its network namespace.
#include <cstdint>
#include <string>
#include <vector>

namespace halo::platform_linux {

// Sets IFF_UP on "lo". Returns 0 or errno.
int bring_up_loopback();

struct SandboxListener {
  std::string kind;  // "proxy", "dns-udp", "dns-tcp", "forward"
  std::uint16_t port = 0;
  int fd = -1;
};

// Binds and (TCP) listens: the proxy on 127.0.0.1:proxy_port, DNS on 127.0.0.1:dns_port
// (UDP and TCP), and one listener per loopback grant on 127.0.0.1 and, where IPv6 is
// up, ::1. On failure closes what it made and returns false with `why`.
bool create_listeners(std::uint16_t proxy_port, std::uint16_t dns_port,
                      const std::vector<std::uint16_t>& grants,
                      std::vector<SandboxListener>& out, std::string& why);

// Binds a TCP listener on 127.0.0.1 port 0 in the caller's own network namespace (the
// env backend). Returns the fd and sets `port`, or -1 with `why`.
int listen_host_loopback(std::uint16_t& port, std::string& why);

}  // namespace halo::platform_linux
