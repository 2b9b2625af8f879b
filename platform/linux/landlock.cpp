#include "platform/linux/landlock.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace halo::platform_linux {
namespace {

// Debian 12's <linux/landlock.h> stops at ABI 2; the constants are stable kernel ABI.
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kRemoveDir = 1ULL << 4;
constexpr std::uint64_t kRemoveFile = 1ULL << 5;
constexpr std::uint64_t kMakeChar = 1ULL << 6;
constexpr std::uint64_t kMakeDir = 1ULL << 7;
constexpr std::uint64_t kMakeReg = 1ULL << 8;
constexpr std::uint64_t kMakeSock = 1ULL << 9;
constexpr std::uint64_t kMakeFifo = 1ULL << 10;
constexpr std::uint64_t kMakeBlock = 1ULL << 11;
constexpr std::uint64_t kMakeSym = 1ULL << 12;
constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6
constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

long ll_create(const RulesetAttr* attr, std::size_t size, unsigned flags) {
  return ::syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

}  // namespace

int landlock_abi() {
  long v = ll_create(nullptr, 0, kCreateRulesetVersion);
  return v < 0 ? 0 : static_cast<int>(v);
}

LandlockResult restrict_writes(const std::vector<std::string>& writable) {
  LandlockResult r;
  r.abi = landlock_abi();
  if (r.abi < 1) {
    r.reasons.push_back("Landlock unavailable: writes are not limited (needs Linux 5.13+ "
                        "with landlock in the lsm= boot list)");
    return r;
  }
  std::uint64_t handled = kWriteFile | kRemoveDir | kRemoveFile | kMakeChar | kMakeDir |
                          kMakeReg | kMakeSock | kMakeFifo | kMakeBlock | kMakeSym;
  if (r.abi >= 2) {
    handled |= kRefer;
  } else {
    r.reasons.push_back("landlock abi 1: renames between directories are refused everywhere");
  }
  if (r.abi >= 3) {
    handled |= kTruncate;
  } else {
    r.reasons.push_back("landlock abi " + std::to_string(r.abi) +
                        ": truncate() outside the writable roots is not limited (needs abi 3)");
  }
  RulesetAttr attr{handled, 0, 0};
  std::size_t size = sizeof(std::uint64_t);
  if (r.abi >= 4) size = 2 * sizeof(std::uint64_t);
  if (r.abi >= 6) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    size = sizeof(RulesetAttr);
  }
  int ruleset = static_cast<int>(ll_create(&attr, size, 0));
  if (ruleset < 0) {
    r.reasons.push_back(std::string("landlock_create_ruleset failed: ") + std::strerror(errno));
    return r;
  }
  auto add = [&](const std::string& path, std::uint64_t access) {
    int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return;  // nothing there: nothing can be written either
    if (fd < 0) {
      r.reasons.push_back("writable root " + path + " not held: " + std::strerror(errno));
      return;
    }
    PathBeneathAttr rule{access & handled, fd};
    if (::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) != 0)
      r.reasons.push_back("writable root " + path + " not held: " + std::strerror(errno));
    ::close(fd);
  };
  for (const auto& w : writable) add(w, handled);
  // Shells write to /dev/null, terminals and /proc/self files; nothing may be created there.
  add("/dev", kWriteFile | kTruncate);
  add("/proc", kWriteFile | kTruncate);

  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    r.reasons.push_back(std::string("landlock_restrict_self failed: ") + std::strerror(errno));
    ::close(ruleset);
    return r;
  }
  ::close(ruleset);
  r.applied = true;
  return r;
}

}  // namespace halo::platform_linux
