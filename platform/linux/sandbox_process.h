#pragma once
// The parent's handle on one sandbox child (sandbox_child.h): clones it, writes its
// uid/gid maps, collects its set-up report and listeners, releases or abandons it, and
// waits for it while forwarding signals.
//
// Threading: start() must be called while the process is single-threaded (the child is
// a fork of it); everything else on the thread that called start().
#include <sys/types.h>

#include <string>
#include <vector>

#include "platform/linux/loopback.h"
#include "sandbox-launch/launcher.h"

namespace halo::platform_linux {

struct ChildReport {
  std::vector<SandboxListener> listeners;
  std::string fs_level = "none";
  std::string fs_mechanism = "none";
  std::vector<std::string> fs_reasons;
  std::vector<std::string> net_notes;  // resolv.conf not replaced (DNS degraded)
  std::vector<std::string> net_holes;  // a host daemon socket left reachable: network partial
  bool resolv_conf = false;            // resolv.conf inside names the session DNS
  int landlock_abi = 0;
  bool pid_ns = false;
};

class SandboxProcess {
 public:
  SandboxProcess() = default;
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;
  ~SandboxProcess();

  // isolate: new user, network, mount (and, where allowed, PID) namespaces.
  // Returns false with `why` (what failed and how to fix it).
  bool start(const launch::LaunchPlan& plan, bool isolate, ChildReport& report, std::string& why);
  launch::ExitStatus run(const std::vector<std::string>& extra_env);
  void abandon();

 private:
  bool start_child(const launch::LaunchPlan& plan, bool isolate, ChildReport& report,
                   std::string& why);
  bool write_maps(std::string& why);
  void parse_report(const std::string& text, std::vector<int>& fds, ChildReport& out);

  pid_t pid_ = -1;
  int sock_ = -1;
  sigset_t old_mask_{};
  bool mask_saved_ = false;
};

// Why user namespaces may be unavailable, and the setting that fixes it, from the
// sysctls and AppArmor knobs this kernel has. `err` is clone's errno.
std::string userns_hint(int err);

}  // namespace halo::platform_linux
