#pragma once
// A small seccomp filter for the sandbox's process tree: ioctl(TIOCSTI) and
// ioctl(TIOCLINUX) fail with EPERM, so nothing inside can push keystrokes into the
// terminal it shares with the user's shell (which would run them after halo exits).
// Everything else is allowed; the filter is inherited by every descendant.

namespace halo::platform_linux {

// Needs no_new_privs (set before). Returns 0 or errno.
int deny_terminal_injection();

}  // namespace halo::platform_linux
