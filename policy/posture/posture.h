#pragma once
// Reading the per-user files and environment that can weaken a harness's posture below
// what the rendered managed files turned on (`halo doctor`):
//   ~/.codex/config.toml (or $CODEX_HOME/config.toml) and $CODEX_HOME/*.config.toml:
//       sandbox_mode = "danger-full-access" or default_permissions = ":danger-full-access"
//       at the top level or in any [profiles.<name>] table
//   ~/.gemini/settings.json: tools.sandbox = false (or {"enabled": false})
//   ~/.cursor/sandbox.json: type = "insecure_none"
//   environment: GEMINI_SANDBOX=false|0, OPENCODE_PERMISSION, OPENCODE_TEST_MANAGED_CONFIG_DIR,
//       CODEX_HOME
//
// Guarantees: a file is opened only when it is a regular file of at most
// kMaxPostureFileBytes (symlinks are followed, then the opened file is checked again),
// always O_NONBLOCK so a FIFO cannot hang the read; nothing is ever written; no content
// of any file or variable is ever put in a finding or a status (not even a profile name
// or a parser message, which could quote it).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace halo::posture {

inline constexpr std::size_t kMaxPostureFileBytes = 1024 * 1024;  // 1 MiB
inline constexpr std::size_t kMaxCodexProfileFiles = 64;           // $CODEX_HOME/*.config.toml

struct Finding {
  std::string harness;  // "codex", "gemini-cli", "cursor", "opencode"
  std::string problem;
  std::string fix;
  // "posture:<harness>: <problem>; fix: <fix>"
  std::string to_string() const;
};

struct CheckedFile {
  std::string path;    // shown with "~/" for paths under the home directory
  std::string status;  // "read", "absent", "not a regular file", "larger than 1 MiB", ...
};

struct PostureReport {
  std::vector<Finding> findings;
  std::vector<CheckedFile> files;
};

// `home`: the home directory to read; `env`: the environment variables to judge.
PostureReport read_posture(const std::string& home, const std::map<std::string, std::string>& env);

}  // namespace halo::posture
