#pragma once
// What `halo run` asks a backend to start: the command, its environment and working
// directory, the sockets the broker needs inside the sandbox, and the filesystem policy
// with every path already expanded (absolute, `~` replaced, globs matched at start).
//
// A LaunchPlan is plain data: platform backends (platform/<os>/) read it and never see
// the Policy; make_plan() is the one place that turns a Policy into a plan.
#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.h"

namespace halo::launch {

enum class Backend : std::uint8_t { automatic, linux_netns, env };
const char* to_string(Backend b);  // "auto" | "linux-netns" | "env"

struct FilesystemPlan {
  policy::SandboxMode mode = policy::SandboxMode::off;
  // Writable for the whole process tree (workspace-write: cwd + writableRoots). The
  // private /tmp is not listed here; it is always writable when mode != off.
  std::vector<std::string> writable;
  // Existing files and directories that must become unreadable (globs already matched).
  std::vector<std::string> protected_paths;
  // Protected entries that named nothing existing at start (reported, nothing to mask).
  std::vector<std::string> protected_missing;
  // Reasons the expansion itself fell short (e.g. glob walk cap reached).
  std::vector<std::string> notes;
  bool private_tmp = false;
  bool active() const { return mode != policy::SandboxMode::off || !protected_paths.empty(); }
};

struct LaunchPlan {
  std::vector<std::string> argv;  // CMD ARGS..., argv[0] looked up in PATH
  std::string cwd;                // absolute
  std::string home;               // absolute; what `~` meant
  std::vector<std::string> base_env;  // the caller's environment, NAME=VALUE
  std::string session_id;

  // Sockets inside the sandbox (netns backend): all on loopback.
  std::uint16_t proxy_port = 3128;  // HTTP proxy and SOCKS5 on one port
  std::uint16_t dns_port = 53;
  std::vector<std::uint16_t> loopback_grants;  // sorted, unique

  FilesystemPlan fs;
};

struct PlanInputs {
  std::vector<std::string> argv;
  std::string cwd;
  std::string home;
  std::vector<std::string> base_env;
  std::string session_id;  // empty: make_plan picks a random one
};

// Caps on the start-up glob walk for relative protected patterns (".env*", "*.pem"),
// which are matched against what exists under the working directory.
inline constexpr std::size_t kGlobWalkMaxEntries = 20000;
inline constexpr int kGlobWalkMaxDepth = 8;

LaunchPlan make_plan(const policy::Policy& policy, PlanInputs inputs);

// "~" and "~/x" -> home-relative; anything else unchanged.
std::string expand_home(const std::string& path, const std::string& home);

// fnmatch-style match of one path component: '*' any run, '?' one char, no '/'.
bool glob_match(std::string_view pattern, std::string_view name);

// A fresh random session id (16 hex digits).
std::string new_session_id();

}  // namespace halo::launch
