#pragma once
// A small seccomp filter for the sandbox's process tree: ioctl(TIOCSTI) and
// ioctl(TIOCLINUX) fail with EPERM, so nothing inside can push keystrokes into the
// terminal it shares with the user's shell (which would run them after halo exits).
// Syscalls of any other ABI than the native one (i386/IA32 emulation via `int $0x80`,
// x32 with bit 30 set in the number, arm32 compat) fail with EPERM: refusing the foreign
// ABI entirely is simpler and safer than re-listing ioctl for each (a 32-bit binary
// cannot run in the sandbox). Everything else is allowed; the filter is inherited by
// every descendant.

namespace halo::platform_linux {

// Needs no_new_privs (set before). Returns 0 or errno.
int deny_terminal_injection();

}  // namespace halo::platform_linux
