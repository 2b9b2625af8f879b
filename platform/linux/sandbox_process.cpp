#include "platform/linux/sandbox_process.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "platform/linux/fd_passing.h"
#include "platform/linux/linux_limits.h"
#include "platform/linux/process_control.h"
#include "platform/linux/sandbox_child.h"

namespace halo::platform_linux {
namespace {

std::string read_sysctl(const char* path) {
  std::ifstream in(path);
  std::string v;
  in >> v;
  return v;
}

bool write_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  int e = errno;
  ::close(fd);
  errno = e;
  return ok;
}

// fork() semantics with namespace flags: no new stack, the child returns 0.
pid_t clone_with(unsigned long flags) {
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

}  // namespace

std::string userns_hint(int err) {
  if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0")
    return "unprivileged user namespaces are disabled; fix: sysctl -w "
           "kernel.unprivileged_userns_clone=1";
  if (read_sysctl("/proc/sys/user/max_user_namespaces") == "0")
    return "user namespaces are disabled; fix: sysctl -w user.max_user_namespaces=15000";
  if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1")
    return "AppArmor restricts unprivileged user namespaces; fix: sysctl -w "
           "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for halo "
           "with 'userns,'";
  return std::string("user namespaces unavailable (") + std::strerror(err) +
         "); fix: allow clone(CLONE_NEWUSER) (container seccomp profile or runtime), or run "
         "with --backend env and enforcement.require: partial";
}

SandboxProcess::~SandboxProcess() {
  if (pid_ > 0) abandon();
  if (sock_ >= 0) ::close(sock_);
}

bool SandboxProcess::write_maps(std::string& why) {
  const std::string proc = "/proc/" + std::to_string(pid_) + "/";
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (uid == 0 && write_file(proc + "uid_map", "0 0 4294967295\n") &&
      write_file(proc + "gid_map", "0 0 4294967295\n"))
    return true;
  // Unprivileged (or root in a container whose own map is narrower): map just ourselves.
  write_file(proc + "setgroups", "deny\n");
  if (!write_file(proc + "uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") ||
      !write_file(proc + "gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n")) {
    why = "cannot write the sandbox's uid/gid map: " + std::string(std::strerror(errno)) + "; " +
          userns_hint(errno);
    return false;
  }
  return true;
}

void SandboxProcess::parse_report(const std::string& text, std::vector<int>& fds,
                                  ChildReport& out) {
  std::istringstream in(text);
  std::string line;
  std::size_t next_fd = 0;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "fd" && next_fd < fds.size()) {
      SandboxListener l;
      std::istringstream v(value);
      v >> l.kind >> l.port;
      l.fd = fds[next_fd];
      fds[next_fd++] = -1;
      out.listeners.push_back(l);
    } else if (key == "fs-level") {
      out.fs_level = value;
    } else if (key == "fs-mechanism") {
      out.fs_mechanism = value;
    } else if (key == "fs-reason") {
      out.fs_reasons.push_back(value);
    } else if (key == "net-note") {
      out.net_notes.push_back(value);
    } else if (key == "net-hole") {
      out.net_holes.push_back(value);
    } else if (key == "resolv-conf") {
      out.resolv_conf = value == "1";
    } else if (key == "landlock-abi") {
      out.landlock_abi = std::atoi(value.c_str());
    } else if (key == "pid-ns") {
      out.pid_ns = value == "1";
    }
  }
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
}

bool SandboxProcess::start(const launch::LaunchPlan& plan, bool isolate, ChildReport& report,
                           std::string& why) {
  block_handled_signals(old_mask_);
  mask_saved_ = true;
  // On failure the caller may try another backend: leave the mask as it was found.
  if (start_child(plan, isolate, report, why)) return true;
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  mask_saved_ = false;
  return false;
}

bool SandboxProcess::start_child(const launch::LaunchPlan& plan, bool isolate,
                                 ChildReport& report, std::string& why) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    why = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  ChildConfig config;
  config.plan = &plan;
  config.sock = sv[1];
  config.original_mask = old_mask_;
  config.isolate = isolate;
  const unsigned long ns = CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS;
  unsigned long flags = isolate ? ns | CLONE_NEWPID : 0;
  pid_t pid = clone_with(flags);
  if (pid < 0 && isolate) {
    flags = ns;  // some runtimes refuse a PID namespace but allow the rest
    pid = clone_with(flags);
  }
  if (pid < 0) {
    const int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    why = userns_hint(e);
    return false;
  }
  if (pid == 0) {
    ::close(sv[0]);
    config.new_pid_ns = (flags & CLONE_NEWPID) != 0;
    sandbox_child_main(config);
  }
  pid_ = pid;
  sock_ = sv[0];
  ::close(sv[1]);
  if (isolate) {
    if (!write_maps(why)) {
      abandon();
      return false;
    }
    send_message(sock_, "m");
  }
  std::string text;
  std::vector<int> fds;
  if (int rc = receive_message(sock_, kSetupTimeout, text, fds); rc != 0) {
    why = std::string("the sandbox did not start: ") + std::strerror(rc);
    abandon();
    return false;
  }
  if (text.rfind("error ", 0) == 0) {
    why = text.substr(6);
    if (why.find("Operation not permitted") != std::string::npos) why += "; " + userns_hint(EPERM);
    for (int fd : fds) ::close(fd);
    abandon();
    return false;
  }
  parse_report(text, fds, report);
  return true;
}

launch::ExitStatus SandboxProcess::run(const std::vector<std::string>& extra_env) {
  std::string go = "x";
  for (const auto& e : extra_env) go += e + std::string(1, '\0');
  launch::ExitStatus st;
  if (send_message(sock_, go) != 0) {
    abandon();
    st.code = 125;
    return st;
  }
  const int status = wait_forwarding(pid_, pid_, false);
  pid_ = -1;
  st.code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  st.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  // PID 1 of the sandbox cannot die of CMD's signal; it says what CMD died of instead.
  std::string text;
  std::vector<int> fds;
  if (receive_message(sock_, std::chrono::milliseconds(0), text, fds) == 0 &&
      text.rfind("status ", 0) == 0) {
    std::istringstream in(text.substr(7));
    in >> st.code >> st.signal;
  }
  for (int fd : fds) ::close(fd);
  if (mask_saved_) ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  return st;
}

void SandboxProcess::abandon() {
  if (pid_ <= 0) return;
  if (sock_ >= 0) send_message(sock_, "q");
  const auto deadline = std::chrono::steady_clock::now() + kAbandonTimeout;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
}

}  // namespace halo::platform_linux
