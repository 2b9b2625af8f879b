#include "platform/linux/seccomp_filter.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>

namespace halo::platform_linux {
namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
constexpr unsigned kArch = 0;
#endif

constexpr unsigned kTiocLinux = 0x541C;
// __X32_SYSCALL_BIT (x86_64 x32 ABI).
constexpr unsigned kX32Bit = 0x40000000;

}  // namespace

int deny_terminal_injection() {
  if (kArch == 0) return ENOSYS;
  constexpr unsigned kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  const sock_filter prog[] = {
      // Any other syscall ABI (i386 through `int $0x80` or IA32 emulation on x86_64,
      // arm32 compat on aarch64) is refused outright: its numbers and ioctl requests
      // differ, and one ABI is all a sandboxed tool chain needs.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, kDeny),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      // x32 shares AUDIT_ARCH_X86_64 but sets bit 30 in nr; refuse it entirely (on
      // aarch64 no valid nr has that bit, so the check costs nothing there).
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kX32Bit, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, kDeny),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // The request is an unsigned int: compare the low 32 bits of args[1].
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kTiocLinux, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, kDeny),
  };
  sock_fprog fprog{static_cast<unsigned short>(sizeof prog / sizeof prog[0]),
                   const_cast<sock_filter*>(prog)};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) return errno;
  return 0;
}

}  // namespace halo::platform_linux
