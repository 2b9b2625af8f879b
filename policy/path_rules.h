#pragma once
// Rules for sandbox paths, shared by validation and the renderers' release check (Codex
// writable_roots obey the same rules as writableRoots).
//
// A writable root is absolute ("/opt/build-cache") or home-relative ("~/.cache/x"). It must
// not be "/", "~", a glob, relative, a drive letter, a home directory or a system directory
// or an ancestor of one, or anything under /etc /usr /bin /sbin /System (and the other
// OS-owned trees listed in path_rules.cpp).
// A protected path is absolute, home-relative, or a name pattern matched anywhere
// (".env*", "*.pem").
// Overlap is judged case-insensitively (macOS and Windows file systems are) and in both
// forms: "/Users/alice/.ssh" and "/home/alice/.ssh" overlap "~/.ssh".
#include <optional>
#include <string>
#include <string_view>

namespace halo::policy {

struct PathProblem {
  std::string message;
  std::string fix;
};

std::optional<PathProblem> check_writable_root(std::string_view root);
std::optional<PathProblem> check_protected_path(std::string_view path);

// True when one path is the other or lies under it (after the normalisations above).
// Name patterns (no '/') never overlap a root by prefix; see glob_matches_under.
bool paths_overlap(std::string_view a, std::string_view b);

// "/home/alice/x" -> "~/x", "/Users/bob" -> "~", "/root/.ssh" -> "~/.ssh"; else unchanged.
std::string home_relative(std::string_view path);

bool has_glob(std::string_view s);

}  // namespace halo::policy
