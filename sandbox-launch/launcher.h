#pragma once
// The backend interface `halo run` drives; platform/<os>/ implements it (NetnsLauncher
// and EnvLauncher on Linux) and CMake picks the platform. Portable code sees only this.
//
// Lifetime of one Launcher, on one thread:
//   prepare()  creates the sandbox up to (not including) exec of CMD: on Linux the child
//              exists in its namespaces, its listeners were handed over, the filesystem
//              policy is in force. It also blocks the signals run() forwards in the
//              calling thread, so threads created after it (the broker's) inherit the
//              mask: create the broker only after prepare().
//   run()      lets CMD start with the extra environment and blocks until CMD exits,
//              forwarding signals sent to halo (not the terminal's, which CMD gets itself).
//   abandon()  ends a prepared sandbox without running CMD (refusal, broker failure).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sandbox-launch/enforcement.h"
#include "sandbox-launch/launch_plan.h"

namespace halo::launch {

// Listening sockets created for the session's broker; the receiver owns the fds.
struct Listeners {
  int proxy_fd = -1;
  std::vector<int> dns_udp_fds;
  std::vector<int> dns_tcp_fds;
  std::vector<std::pair<std::uint16_t, int>> forwards;  // loopback grant port, fd
};

struct Prepared {
  Enforcement enforcement;
  Listeners listeners;
  std::string proxy_address;  // "127.0.0.1:PORT" as CMD reaches the proxy
  bool in_sandbox_dns = false;  // resolv.conf inside names the session DNS
  std::vector<std::string> warnings;  // degraded but not open (e.g. resolv.conf not replaced)
};

struct ExitStatus {
  int code = 0;    // exit status when signal == 0
  int signal = 0;  // terminating signal, or 0
  // What a shell would report: the code, or 128+N for signal N.
  int shell_code() const { return signal != 0 ? 128 + signal : code; }
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual const char* name() const = 0;
  // On failure returns false with `why`: what is missing and how to fix it, one line.
  virtual bool prepare(const LaunchPlan& plan, Prepared& out, std::string& why) = 0;
  virtual ExitStatus run(const std::vector<std::string>& extra_env) = 0;
  virtual void abandon() = 0;
};

// Implemented by the platform backend CMake chose; null when the platform has no such
// backend. Backend::automatic is resolved by the caller (session.h), not here.
// `not_isolated_reason` (env backend): why the session runs without isolation; it is
// reported as a network reason.
std::unique_ptr<Launcher> make_launcher(Backend backend, const std::string& not_isolated_reason);

}  // namespace halo::launch
