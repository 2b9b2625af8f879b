// The seccomp filter refuses syscalls of a foreign ABI (i386 through `int $0x80`, x32)
// as well as ioctl(TIOCSTI) on the native ABI. Each row runs in a forked child that
// installs the filter and reports the raw syscall result.
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pty.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "platform/linux/seccomp_filter.h"

namespace halo::platform_linux {
namespace {

// Runs `call` in a child after installing the filter; returns the errno it reported
// (0 when the call succeeded), or -1 when the child did not exit normally.
int errno_under_filter(const std::function<long()>& call) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(200);
    if (deny_terminal_injection() != 0) ::_exit(201);
    const long r = call();
    ::_exit(r < 0 && r > -4096 ? static_cast<int>(-r) : 0);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

#if defined(__x86_64__)
// A raw syscall through the IA32 entry (AUDIT_ARCH_I386), from 64-bit code.
long ia32_syscall(long nr, long a = 0, long b = 0, long c = 0) {
  long ret = nr;
  asm volatile("int $0x80"
               : "+a"(ret)
               : "b"(a), "c"(b), "d"(c)
               : "r8", "r9", "r10", "r11", "memory");
  return ret;
}
constexpr long kIa32Getpid = 20;
constexpr long kIa32Ioctl = 54;
constexpr long kX32Bit = 0x40000000;
#endif

TEST(SeccompFilter, NativeTiocstiIsRefused) {
  int m = -1, s = -1;
  ASSERT_EQ(::openpty(&m, &s, nullptr, nullptr, nullptr), 0);
  char ch = 'x';
  EXPECT_EQ(errno_under_filter([&] { return ::syscall(SYS_ioctl, s, TIOCSTI, &ch) < 0 ? -errno : 0L; }),
            EPERM);
  EXPECT_EQ(errno_under_filter([] { return ::syscall(SYS_getpid) < 0 ? -errno : 0L; }), 0);
  ::close(m);
  ::close(s);
}

#if defined(__x86_64__)
TEST(SeccompFilter, ForeignAbisAreRefused) {
  int m = -1, s = -1;
  ASSERT_EQ(::openpty(&m, &s, nullptr, nullptr, nullptr), 0);
  // The byte TIOCSTI reads must sit below 4 GiB for a 32-bit caller.
  void* low = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                     -1, 0);
  ASSERT_NE(low, MAP_FAILED);
  static_cast<char*>(low)[0] = 'x';
  const long addr = reinterpret_cast<long>(low);
  struct Row {
    const char* name;
    std::function<long()> call;
  };
  const Row rows[] = {
      {"ia32 ioctl(TIOCSTI)", [&] { return ia32_syscall(kIa32Ioctl, s, TIOCSTI, addr); }},
      {"ia32 getpid", [] { return ia32_syscall(kIa32Getpid); }},
      {"x32 ioctl(TIOCSTI)",
       [&] { return ::syscall(SYS_ioctl | kX32Bit, s, TIOCSTI, low) < 0 ? -errno : 0L; }},
      {"x32 getpid", [] { return ::syscall(SYS_getpid | kX32Bit) < 0 ? -errno : 0L; }},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(errno_under_filter(row.call), EPERM);
  }
  ::munmap(low, 4096);
  ::close(m);
  ::close(s);
}
#endif

}  // namespace
}  // namespace halo::platform_linux
