#pragma once
// Child lifetime on Linux: which signals halo forwards, waiting for a child while
// forwarding them, dropping privileges before exec.
//
// Forwarding rule: a signal *sent* to halo (kill, si_code <= 0) is passed on to CMD; one
// the terminal generated (si_code SI_KERNEL: ^C, ^\, hang-up) is not, because the
// terminal delivers it to CMD's process group itself. Job-control signals (SIGTSTP,
// SIGCONT, SIGTTIN, SIGTTOU) keep their default actions so ^Z stops halo and CMD together.
#include <signal.h>
#include <sys/types.h>

namespace halo::platform_linux {

// SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM and SIGCHLD.
sigset_t handled_signals();

// Blocks handled_signals() in the calling thread; `old` gets the previous mask.
void block_handled_signals(sigset_t& old);

// Restores `mask` (call in a child before exec); dispositions the caller of halo ignored
// stay ignored, as they would without halo.
void reset_signals_for_exec(const sigset_t& mask);

// Waits until `pid` exits, forwarding signals to `forward_to`; with `reap_all` (the
// sandbox's PID 1) also reaps every other child. Handled signals must be blocked.
// Returns the raw wait status of `pid`.
int wait_forwarding(pid_t pid, pid_t forward_to, bool reap_all);

// Sets no_new_privs and drops every capability (bounding, ambient, effective,
// permitted, inheritable), so CMD runs unprivileged even as uid 0 in its user namespace.
// Returns 0 or errno.
int drop_privileges();

}  // namespace halo::platform_linux
