#pragma once
// One `halo run` session, platform-neutral (DESIGN.md, `halo run`):
//   1. start the sandbox with the chosen backend (auto: linux-netns, else env with the
//      reason); the backend reports what it actually holds;
//   2. print the enforcement line; refuse with exit 3 when it is below the policy's
//      enforcement.require;
//   3. hand the sandbox's listeners to a new broker, run it on its own thread;
//   4. run CMD, forwarding signals; when it exits, stop (drain) the broker;
//   5. write the session report and return CMD's status (128+N for signal N).
// If the broker fails, its listeners close with it: the sandbox then has no network.
#include <memory>
#include <string>

#include "policy/policy.h"
#include "sandbox-launch/launch_plan.h"

namespace halo::launch {

inline constexpr int kExitBelowRequire = 3;
// halo itself could not start the session (no backend started, broker failed).
inline constexpr int kExitHaloFailed = 125;

struct SessionOptions {
  std::shared_ptr<const policy::Policy> policy;
  LaunchPlan plan;
  Backend backend = Backend::automatic;
  std::string report_path;     // empty: no report
  std::string audit_path;      // broker audit log; empty: none
  std::string resolver_hosts;  // broker resolver hosts file; empty: /etc/hosts
  bool quiet = false;          // no enforcement line on stderr
};

// Returns the exit status for halo: CMD's; 3 when the enforcement is below
// enforcement.require (or --backend linux-netns is unavailable); 125 when halo itself
// could not start the session (no backend, broker not started) or lost the report.
int run_session(const SessionOptions& options);

}  // namespace halo::launch
