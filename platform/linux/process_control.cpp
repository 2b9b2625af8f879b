#include "platform/linux/process_control.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace halo::platform_linux {
namespace {

constexpr int kForwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};

void ignore_handler(int) {}

}  // namespace

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kForwarded) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  return set;
}

void block_handled_signals(sigset_t& old) {
  sigset_t set = handled_signals();
  ::sigprocmask(SIG_BLOCK, &set, &old);
}

void reset_signals_for_exec(const sigset_t& mask) {
  // Handlers installed here (PID 1's) do not survive exec; dispositions the caller set to
  // SIG_IGN (nohup) do, on purpose. SIGPIPE is the exception: halo itself ignores it (a
  // reset peer must not end the session), and CMD gets the default back so `yes | head`
  // behaves as it does outside.
  ::signal(SIGPIPE, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
}

int wait_forwarding(pid_t pid, pid_t forward_to, bool reap_all) {
  // PID 1 of a namespace drops signals whose action is default; a handler keeps them
  // queued for sigtimedwait even though they are blocked.
  struct sigaction sa {};
  sa.sa_handler = ignore_handler;
  for (int s : kForwarded) ::sigaction(s, &sa, nullptr);
  ::sigaction(SIGCHLD, &sa, nullptr);

  const sigset_t set = handled_signals();
  const timespec tick{1, 0};  // re-check waitpid at least once a second
  for (;;) {
    for (;;) {
      int status = 0;
      pid_t r = ::waitpid(reap_all ? -1 : pid, &status, WNOHANG);
      if (r == pid) return status;
      if (r <= 0) {
        if (r < 0 && errno == ECHILD) return 0;
        break;
      }
    }
    siginfo_t info{};
    int sig = ::sigtimedwait(&set, &info, &tick);
    if (sig <= 0 || sig == SIGCHLD) continue;
    if (info.si_code <= 0 && forward_to > 0) ::kill(forward_to, sig);
  }
}

int drop_privileges() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  for (int cap = 0; cap <= 63; ++cap) {
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &hdr, data) != 0) return errno;
  return 0;
}

}  // namespace halo::platform_linux
