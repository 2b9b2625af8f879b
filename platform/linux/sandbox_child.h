#pragma once
// The sandbox child: the process halo clones, which sets the sandbox up from inside and
// then becomes CMD (or, in a new PID namespace, PID 1 that runs CMD and reaps).
//
// Conversation with the parent over a SOCK_SEQPACKET socket (one message per line):
//   parent -> child  "m"                 uid/gid maps written (isolated mode only)
//   child  -> parent report + fds        "fd KIND PORT" per passed fd, in order;
//                                        "fs-level L", "fs-mechanism M", "fs-reason R",
//                                        "net-note N", "net-hole N", "resolv-conf 0|1",
//                                        "landlock-abi N", "pid-ns 0|1";
//                                        or "error WHY" and nothing else
//   parent -> child  "x" ENV...          run CMD; NUL-separated NAME=VALUE to add
//                    "q"                 abandon: exit without running CMD
//   child  -> parent "status CODE SIGNAL" just before PID 1 exits (PID-namespace mode)
#include <signal.h>

#include "sandbox-launch/launch_plan.h"

namespace halo::platform_linux {

struct ChildConfig {
  const launch::LaunchPlan* plan = nullptr;
  int sock = -1;                 // the child's end
  sigset_t original_mask{};      // restored before exec
  bool isolate = true;           // namespaces, listeners, mounts (false: env backend)
  bool new_pid_ns = false;       // this process is PID 1 of a new PID namespace
};

[[noreturn]] void sandbox_child_main(const ChildConfig& config);

}  // namespace halo::platform_linux
