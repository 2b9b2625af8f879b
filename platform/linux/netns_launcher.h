#pragma once
// The Linux backends behind launch::Launcher.
//
// NetnsLauncher (linux-netns): CMD runs in new user, network, mount and (where allowed)
// PID namespaces. Inside there is only `lo`; the broker's listeners are created there
// and handed out, so every network path leads through the broker or nowhere.
//
// EnvLauncher (env): no namespaces. The proxy listens on the host's 127.0.0.1 and CMD
// gets proxy variables only; Landlock still limits writes where the kernel has it.
// Network is partial by construction: clients that ignore the variables go direct.
#include <memory>
#include <string>

#include "platform/linux/sandbox_process.h"
#include "sandbox-launch/launcher.h"

namespace halo::platform_linux {

// Network enforcement from the child's report: `partial` with one reason per host daemon
// socket that could not be masked (each names the socket); in_sandbox_dns only from
// whether resolv.conf was replaced.
void apply_network_report(const ChildReport& report, launch::Prepared& out);

class NetnsLauncher final : public launch::Launcher {
 public:
  const char* name() const override { return "linux-netns"; }
  bool prepare(const launch::LaunchPlan& plan, launch::Prepared& out, std::string& why) override;
  launch::ExitStatus run(const std::vector<std::string>& extra_env) override;
  void abandon() override;

 private:
  SandboxProcess process_;
};

class EnvLauncher final : public launch::Launcher {
 public:
  // `why_not_isolated`: why the session is not under linux-netns (shown as a reason).
  explicit EnvLauncher(std::string why_not_isolated) : why_(std::move(why_not_isolated)) {}
  const char* name() const override { return "env"; }
  bool prepare(const launch::LaunchPlan& plan, launch::Prepared& out, std::string& why) override;
  launch::ExitStatus run(const std::vector<std::string>& extra_env) override;
  void abandon() override;

 private:
  std::string why_;
  SandboxProcess process_;
};

}  // namespace halo::platform_linux
