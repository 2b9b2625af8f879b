#include "platform/linux/sandbox_child.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "platform/linux/fd_passing.h"
#include "platform/linux/landlock.h"
#include "platform/linux/linux_limits.h"
#include "platform/linux/loopback.h"
#include "platform/linux/mount_setup.h"
#include "platform/linux/process_control.h"
#include "platform/linux/seccomp_filter.h"
#include "platform/linux/socket_masks.h"
#include "sandbox-launch/proxy_env.h"

namespace halo::platform_linux {
namespace {

[[noreturn]] void fail(int sock, const std::string& why) {
  send_message(sock, "error " + why);
  ::_exit(120);
}

std::string strerr(int e) { return std::strerror(e); }

// Applies the filesystem policy that does not need mounts (Landlock) and describes the
// filesystem dimension as the report lines "fs-level", "fs-mechanism", "fs-reason".
std::string filesystem_report(const ChildConfig& c, const MountOutcome& mo) {
  const auto& fsp = c.plan->fs;
  std::string out;
  if (!fsp.active()) return "fs-level full\nfs-mechanism off\n";
  std::vector<std::string> reasons = mo.fs_reasons;
  for (const auto& n : fsp.notes) reasons.push_back(n);
  if (!c.isolate && !fsp.protected_paths.empty())
    reasons.push_back(std::to_string(fsp.protected_paths.size()) +
                      " protected paths stay readable (no mount namespace)");
  std::string mechanism = fsp.protected_paths.empty() || !c.isolate ? "" : "mount masks";
  bool held_writes = true;
  if (fsp.mode != policy::SandboxMode::off) {
    std::vector<std::string> writable = fsp.writable;
    writable.push_back("/tmp");
    writable.push_back("/dev/shm");
    if (!mo.private_tmp)
      reasons.push_back("no private /tmp: the host's /tmp and /dev/shm stay writable");
    LandlockResult ll = restrict_writes(writable);
    for (auto& r : ll.reasons) reasons.push_back(r);
    held_writes = ll.applied;
    out += "landlock-abi " + std::to_string(ll.abi) + "\n";
    if (ll.applied) mechanism = "landlock abi " + std::to_string(ll.abi);
  }
  if (mechanism.empty()) mechanism = "none";
  const char* level = reasons.empty() ? "full" : "partial";
  if (!held_writes && (fsp.protected_paths.empty() || !c.isolate)) level = "none";
  out += std::string("fs-level ") + level + "\nfs-mechanism " + mechanism + "\n";
  for (const auto& r : reasons) out += "fs-reason " + r + "\n";
  return out;
}

[[noreturn]] void exec_command(const ChildConfig& c, const std::vector<std::string>& env) {
  reset_signals_for_exec(c.original_mask);
  std::vector<char*> argv;
  for (const auto& a : c.plan->argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execvpe(argv[0], argv.data(), envp.data());
  const int e = errno;
  std::fprintf(stderr, "halo: cannot run %s: %s\n", argv[0], std::strerror(e));
  ::_exit(e == ENOENT ? 127 : 126);
}

}  // namespace

void sandbox_child_main(const ChildConfig& c) {
  const launch::LaunchPlan& plan = *c.plan;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  std::string report;
  std::vector<int> fds;
  MountOutcome mo;
  if (c.isolate) {
    std::string msg;
    std::vector<int> ignored;
    if (receive_message(c.sock, kMapTimeout, msg, ignored) != 0 || msg != "m") ::_exit(121);
    if (int e = bring_up_loopback()) fail(c.sock, "cannot bring lo up: " + strerr(e));
    std::vector<SandboxListener> listeners;
    std::string why;
    if (!create_listeners(plan.proxy_port, plan.dns_port, plan.loopback_grants, listeners, why))
      fail(c.sock, why);
    for (const auto& l : listeners) {
      report += "fd " + l.kind + " " + std::to_string(l.port) + "\n";
      fds.push_back(l.fd);
    }
    if (int e = make_mounts_private()) fail(c.sock, "cannot make mounts private: " + strerr(e));
    if (plan.fs.private_tmp) {
      std::vector<std::string> keep = plan.fs.writable;
      std::vector<std::string> read_only;
      if (std::find(keep.begin(), keep.end(), plan.cwd) == keep.end()) {
        keep.push_back(plan.cwd);
        read_only.push_back(plan.cwd);
      }
      mount_private_tmp(keep, read_only, mo);
    }
    bind_resolv_conf("nameserver 127.0.0.1\noptions attempts:2 timeout:2\n", mo);
    mask_paths(plan.fs.protected_paths, mo);
    // Host daemons that would resolve names or open connections for the sandbox.
    // A socket left reachable is a way out of the network namespace (e.g. Docker's),
    // so each failure is a network hole, not a DNS note.
    // Known sockets and socket directories first, then every socket a bounded walk of
    // /run (and the host's /tmp when it is not private) still finds (socket_masks.h).
    MountOutcome daemons;
    const bool host_tmp = !mo.private_tmp;
    mask_paths(host_socket_dirs(::getuid(), host_tmp, plan.cwd), daemons, "host socket directory");
    mask_paths(host_daemon_sockets(::getuid()), daemons, "host daemon socket");
    SocketWalk walk = find_sockets({"/run", "/var/run"}, kSocketWalkMaxDepth);
    if (host_tmp) {
      SocketWalk tmp = find_sockets({"/tmp"}, kSocketWalkTmpMaxDepth);
      walk.sockets.insert(walk.sockets.end(), tmp.sockets.begin(), tmp.sockets.end());
      walk.incomplete.insert(walk.incomplete.end(), tmp.incomplete.begin(), tmp.incomplete.end());
    }
    mask_paths(walk.sockets, daemons, "host socket");
    std::vector<std::string> net_holes = std::move(daemons.fs_reasons);
    for (auto& r : walk.incomplete) net_holes.push_back(std::move(r));
    // While the host's /proc stays (no PID namespace, or a fresh procfs could not be
    // mounted), /proc/PID/root of a host process of the same user reaches the masked host
    // sockets (and protected paths) again: a network hole, not only a filesystem one.
    if (c.new_pid_ns) {
      MountOutcome proc;
      mount_proc(proc);
      if (!proc.proc_private)
        net_holes.push_back("/proc not private (a fresh procfs could not be mounted): "
                            "/proc/PID/root of host processes reaches the host sockets masked "
                            "here");
      if (!plan.fs.protected_paths.empty())
        for (auto& r : proc.fs_reasons) mo.fs_reasons.push_back(r);
    } else {
      net_holes.push_back("no PID namespace: /proc/PID/root of host processes reaches the "
                          "host sockets masked here");
      if (!plan.fs.protected_paths.empty())
        mo.fs_reasons.push_back("no PID namespace: other processes' /proc/PID/root can reach "
                                "protected paths");
    }
    for (const auto& n : mo.net_notes) report += "net-note " + n + "\n";
    for (const auto& n : net_holes) report += "net-hole " + n + "\n";
    report += std::string("resolv-conf ") + (mo.resolv_conf ? "1" : "0") + "\n";
  }
  report += filesystem_report(c, mo);
  if (c.isolate) {
    if (int e = drop_privileges()) fail(c.sock, "cannot drop privileges: " + strerr(e));
  } else {
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  }
  if (int e = deny_terminal_injection())
    report += "fs-reason TIOCSTI not blocked (" + strerr(e) + "): a process can type into the "
              "user's terminal\n";
  report += std::string("pid-ns ") + (c.new_pid_ns ? "1" : "0") + "\n";
  if (send_message(c.sock, report, fds) != 0) ::_exit(122);
  for (int fd : fds) ::close(fd);

  std::string go;
  std::vector<int> ignored;
  for (;;) {
    int rc = receive_message(c.sock, std::chrono::hours(24), go, ignored);
    if (rc == 0) break;
    if (rc != ETIMEDOUT) ::_exit(123);
  }
  if (go.empty() || go[0] != 'x') ::_exit(124);
  std::vector<std::string> extra;
  for (std::size_t pos = 1; pos < go.size();) {
    std::size_t end = go.find('\0', pos);
    if (end == std::string::npos) end = go.size();
    if (end > pos) extra.push_back(go.substr(pos, end - pos));
    pos = end + 1;
  }
  const std::vector<std::string> env = launch::merge_environment(plan.base_env, extra);
  if (::chdir(plan.cwd.c_str()) != 0) {
    std::fprintf(stderr, "halo: cannot enter %s: %s\n", plan.cwd.c_str(), std::strerror(errno));
    ::_exit(126);
  }
  if (!c.new_pid_ns) exec_command(c, env);

  const pid_t cmd = ::fork();
  if (cmd < 0) ::_exit(125);
  if (cmd == 0) exec_command(c, env);
  const int status = wait_forwarding(cmd, cmd, true);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  send_message(c.sock, "status " + std::to_string(code) + " " + std::to_string(sig));
  ::_exit(sig != 0 ? 128 + sig : code);
}

}  // namespace halo::platform_linux
