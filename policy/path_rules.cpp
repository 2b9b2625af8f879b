#include "policy/path_rules.h"

#include <fnmatch.h>

#include <array>
#include <vector>

namespace halo::policy {
namespace {

// Trees the OS owns: a writable root may be neither one of them nor an ancestor of one.
constexpr std::array<std::string_view, 25> kSystemDirs = {
    "/bin",  "/boot",    "/dev",  "/etc",    "/home",   "/lib",      "/lib32",
    "/lib64", "/libx32", "/proc", "/root",   "/run",    "/sbin",     "/sys",
    "/usr",  "/var",     "/snap", "/Users",  "/System", "/Library",  "/Applications",
    "/private", "/Volumes", "/cores", "/nix"};
// Trees nothing may be made writable under.
constexpr std::array<std::string_view, 12> kNeverUnder = {
    "/etc", "/usr", "/bin", "/sbin", "/System", "/boot", "/dev", "/proc", "/sys", "/lib",
    "/lib64", "/Library"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Collapses "//", drops a trailing "/" (but keeps "/" itself).
std::string tidy(std::string_view p) {
  std::string out;
  for (char c : p) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::vector<std::string_view> components(std::string_view p) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < p.size()) {
    std::size_t slash = p.find('/', start);
    if (slash == std::string_view::npos) slash = p.size();
    if (slash > start) out.push_back(p.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

bool is_under_or_equal(std::string_view child, std::string_view parent) {
  if (parent == "/") return true;
  if (child == parent) return true;
  return child.size() > parent.size() && child.starts_with(parent) && child[parent.size()] == '/';
}

bool drive_letter(std::string_view p) {
  return p.size() >= 2 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) &&
         p[1] == ':';
}

std::optional<PathProblem> common_syntax(std::string_view p) {
  if (p.empty()) return PathProblem{"empty path", ""};
  if (drive_letter(p) || p.find('\\') != std::string_view::npos) {
    return PathProblem{"a drive-letter or backslash path", "write an absolute POSIX path or ~/path"};
  }
  for (auto c : components(p)) {
    if (c == ".." || c == ".") {
      return PathProblem{"contains '.' or '..' components", "write the path without them"};
    }
  }
  return std::nullopt;
}

}  // namespace

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

std::string home_relative(std::string_view path) {
  std::string p = tidy(path);
  auto strip = [&](std::string_view prefix, bool has_user) -> std::optional<std::string> {
    if (!p.starts_with(prefix)) return std::nullopt;
    std::string_view rest = std::string_view(p).substr(prefix.size());
    if (has_user) {
      if (rest.empty() || rest[0] == '/') return std::nullopt;
      auto slash = rest.find('/');
      if (slash == std::string_view::npos) return std::string("~");
      return "~" + std::string(rest.substr(slash));
    }
    if (rest.empty()) return std::string("~");
    if (rest[0] != '/') return std::nullopt;
    return "~" + std::string(rest);
  };
  if (auto s = strip("/home/", true)) return *s;
  if (auto s = strip("/Users/", true)) return *s;
  if (auto s = strip("/root", false)) return *s;
  return p;
}

std::optional<PathProblem> check_writable_root(std::string_view raw) {
  if (auto e = common_syntax(raw)) return e;
  std::string root = tidy(raw);
  if (root == "/") return PathProblem{"makes the whole disk writable", "name a directory for the job"};
  if (root == "~") return PathProblem{"makes the whole home directory writable", "name a directory under ~/"};
  if (has_glob(root)) return PathProblem{"a glob; writable roots are literal directories", "name each directory"};
  if (root[0] != '/' && !root.starts_with("~/")) {
    return PathProblem{"relative; writable roots are absolute or start with ~/",
                       "write /abs/path or ~/path (the workspace is always writable)"};
  }
  std::string rel = home_relative(root);
  if (rel == "~") return PathProblem{"a home directory", "name a directory under it"};
  if (root[0] == '/') {
    std::string lr = lower(root);
    for (auto sys : kSystemDirs) {
      std::string ls = lower(sys);
      if (is_under_or_equal(ls, lr)) {
        return PathProblem{"is " + std::string(sys == root ? "" : "an ancestor of ") +
                               "the system directory " + std::string(sys),
                           "name a directory of your own, e.g. /opt/build-cache"};
      }
    }
    for (auto sys : kNeverUnder) {
      if (is_under_or_equal(lr, lower(sys))) {
        return PathProblem{"lies under " + std::string(sys) + ", which the OS owns",
                           "name a directory of your own, e.g. /opt/build-cache"};
      }
    }
  }
  return std::nullopt;
}

std::optional<PathProblem> check_protected_path(std::string_view raw) {
  if (auto e = common_syntax(raw)) return e;
  std::string p = tidy(raw);
  if (p == "/" || p == "~") return PathProblem{"protects everything; the shell could not run", ""};
  if (p[0] == '/' || p.starts_with("~/")) return std::nullopt;
  if (p.find('/') != std::string::npos) {
    return PathProblem{"relative with a '/'; protected paths are absolute, ~/path or a name "
                       "pattern such as .env* matched anywhere",
                       "write /abs/path or ~/path"};
  }
  return std::nullopt;  // a name pattern, matched in every directory
}

bool paths_overlap(std::string_view a_raw, std::string_view b_raw) {
  std::string a = lower(home_relative(a_raw));
  std::string b = lower(home_relative(b_raw));
  bool a_name = a.find('/') == std::string::npos && a != "~";
  bool b_name = b.find('/') == std::string::npos && b != "~";
  if (a_name || b_name) {
    // A name pattern overlaps a path whose last component it matches.
    const std::string& pat = a_name ? a : b;
    const std::string& path = a_name ? b : a;
    auto comps = components(path);
    return !comps.empty() && fnmatch(pat.c_str(), std::string(comps.back()).c_str(), 0) == 0;
  }
  // Compare literal prefixes: a glob component ends the comparison at that depth.
  auto ca = components(a);
  auto cb = components(b);
  std::size_t n = std::min(ca.size(), cb.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::string x(ca[i]), y(cb[i]);
    if (has_glob(x) || has_glob(y)) {
      return fnmatch(x.c_str(), y.c_str(), 0) == 0 || fnmatch(y.c_str(), x.c_str(), 0) == 0;
    }
    if (x != y) return false;
  }
  bool a_abs = !a.empty() && a[0] == '/';
  bool b_abs = !b.empty() && b[0] == '/';
  return a_abs == b_abs;  // "~/x" and "/x" never overlap
}

}  // namespace halo::policy
