#pragma once
// Landlock write limits for the sandbox's process tree: everything may be read; only the
// listed roots may be written (files created, changed, truncated, removed, renamed into).
// Reads of protected paths are held by mount masking (mount_setup.h), not here.
#include <string>
#include <vector>

namespace halo::platform_linux {

// The Landlock ABI version the running kernel offers; 0 when Landlock is unavailable
// (not built in, not in the LSM list, or blocked by seccomp).
int landlock_abi();

struct LandlockResult {
  bool applied = false;
  int abi = 0;
  std::vector<std::string> reasons;  // what is not held (missing ABI features, bad roots)
};

// Restricts the calling thread (and every later child) so that only `writable` (full
// write access) and the device/proc files a shell needs (/dev, /proc: write existing
// files only) can be written. Sets no_new_privs first (Landlock needs it).
// Must run single-threaded in the sandbox child before exec.
LandlockResult restrict_writes(const std::vector<std::string>& writable);

}  // namespace halo::platform_linux
