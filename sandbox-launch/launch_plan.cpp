#include "sandbox-launch/launch_plan.h"

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <system_error>

namespace halo::launch {
namespace fs = std::filesystem;

const char* to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::linux_netns: return "linux-netns";
    case Backend::env: return "env";
  }
  return "auto";
}

std::string expand_home(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.size() >= 2 && path[0] == '~' && path[1] == '/') return home + path.substr(1);
  return path;
}

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative wildcard match with one backtrack point; linear in practice.
  std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::string new_session_id() {
  std::random_device rd;
  std::uint64_t v = (std::uint64_t{rd()} << 32) ^ rd();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = kHex[v & 0xf];
  return out;
}

namespace {

bool has_glob(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

std::string lexical(const std::string& p) { return fs::path(p).lexically_normal().string(); }

// Expands an absolute pattern component by component ("/home/u/*.pem").
void expand_absolute(const std::string& pattern, std::set<std::string>& out) {
  fs::path pat(pattern);
  std::vector<fs::path> current{fs::path("/")};
  for (const auto& part : pat.relative_path()) {
    std::vector<fs::path> next;
    const std::string comp = part.string();
    for (const auto& base : current) {
      if (!has_glob(comp)) {
        next.push_back(base / part);
        continue;
      }
      std::error_code ec;
      for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        if (glob_match(comp, it->path().filename().string())) next.push_back(it->path());
      }
    }
    current = std::move(next);
    if (current.empty()) return;
  }
  for (const auto& p : current) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) out.insert(lexical(p.string()));
  }
}

// Matches bare name patterns (".env*", "*.pem") against every entry under `root` in one
// walk, bounded by kGlobWalkMaxEntries / kGlobWalkMaxDepth; symlinks are not followed, a
// matching directory is masked whole (not descended), .git is not descended.
// found[i] gets pattern i's hits.
void expand_relative(const std::vector<std::string>& patterns, const std::string& root,
                     std::vector<std::set<std::string>>& found, std::vector<std::string>& notes) {
  found.assign(patterns.size(), {});
  if (patterns.empty()) return;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  std::size_t seen = 0;
  for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (++seen > kGlobWalkMaxEntries) {
      notes.push_back("protectedPaths patterns matched only the first " +
                      std::to_string(kGlobWalkMaxEntries) + " entries under " + root);
      return;
    }
    const std::string name = it->path().filename().string();
    bool matched = false;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (glob_match(patterns[i], name)) {
        found[i].insert(lexical(it->path().string()));
        matched = true;
      }
    }
    // Git's own store names its files itself (objects by hash): nothing there can match a
    // user's name pattern, and it is often most of a repository's entries.
    std::error_code dec;
    if ((matched && it->is_directory(dec)) || it.depth() >= kGlobWalkMaxDepth ||
        (name == ".git" && it->is_directory(dec)))
      it.disable_recursion_pending();
  }
}

// Why a working directory is too broad to be the writable workspace, or null.
const char* broad_workspace(const std::string& cwd, const std::string& home) {
  if (cwd == "/") return "makes the whole filesystem writable";
  if (!home.empty() && (cwd == home || home.rfind(cwd + "/", 0) == 0))
    return "makes the whole home directory writable";
  for (const char* sys : {"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/proc",
                          "/sys", "/dev"}) {
    if (cwd == sys || cwd.rfind(std::string(sys) + "/", 0) == 0) return "is a system directory";
  }
  for (const char* top : {"/home", "/var", "/opt", "/root", "/srv", "/mnt"}) {
    if (cwd == top) return "holds far more than one project";
  }
  return nullptr;
}

}  // namespace

LaunchPlan make_plan(const policy::Policy& policy, PlanInputs in) {
  LaunchPlan plan;
  plan.argv = std::move(in.argv);
  plan.cwd = lexical(in.cwd);
  plan.home = in.home;
  plan.base_env = std::move(in.base_env);
  plan.session_id = in.session_id.empty() ? new_session_id() : std::move(in.session_id);

  std::set<std::uint16_t> grants;
  for (const auto& g : policy.egress.loopback) grants.insert(g.port);
  plan.loopback_grants.assign(grants.begin(), grants.end());
  while (grants.count(plan.proxy_port) || plan.proxy_port == plan.dns_port) ++plan.proxy_port;

  auto& fsp = plan.fs;
  fsp.mode = policy.sandbox.mode;
  fsp.private_tmp = fsp.mode != policy::SandboxMode::off;
  if (fsp.mode == policy::SandboxMode::workspace_write) {
    if (const char* why = broad_workspace(plan.cwd, plan.home))
      fsp.notes.push_back("the working directory " + plan.cwd + " is the workspace and " + why +
                          "; run halo from the project directory");
    fsp.writable.push_back(plan.cwd);
    for (const auto& r : policy.sandbox.writable_roots)
      fsp.writable.push_back(lexical(expand_home(r.path, plan.home)));
  }

  // Bare names (".env*") are matched in one walk of the workspace; the rest directly.
  std::vector<std::string> bare;
  std::vector<const policy::PathEntry*> bare_entries;
  std::set<std::string> masked;
  for (const auto& entry : policy.sandbox.protected_paths) {
    const std::string p = expand_home(entry.path, plan.home);
    if (!p.empty() && p[0] != '/' && p.find('/') == std::string::npos) {
      bare.push_back(p);
      bare_entries.push_back(&entry);
      continue;
    }
    std::set<std::string> found;
    if (p.empty() || p[0] != '/') {
      expand_absolute(plan.cwd + "/" + p, found);
    } else if (has_glob(p)) {
      expand_absolute(p, found);
    } else {
      std::error_code ec;
      if (fs::exists(fs::symlink_status(p, ec))) found.insert(lexical(p));
    }
    if (found.empty()) fsp.protected_missing.push_back(entry.path);
    masked.insert(found.begin(), found.end());
  }
  std::vector<std::set<std::string>> bare_found;
  expand_relative(bare, plan.cwd, bare_found, fsp.notes);
  for (std::size_t i = 0; i < bare.size(); ++i) {
    if (bare_found[i].empty()) fsp.protected_missing.push_back(bare_entries[i]->path);
    masked.insert(bare_found[i].begin(), bare_found[i].end());
  }
  fsp.protected_paths.assign(masked.begin(), masked.end());
  return plan;
}

}  // namespace halo::launch
