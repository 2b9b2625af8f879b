#include "platform/linux/socket_masks.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <set>

#include "platform/linux/linux_limits.h"

namespace halo::platform_linux {
namespace {

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// True when `dir` is `path` or one of its ancestors.
bool covers(const std::string& dir, const std::string& path) {
  if (path.empty()) return false;
  if (path == dir) return true;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

bool on_tmpfs(int fd) {
  struct statfs sf {};
  return ::fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

struct Walker {
  int max_depth;
  dev_t root_dev;
  std::size_t seen = 0;
  bool too_many = false;  // entry bound hit: the walk stopped
  bool too_deep = false;  // a directory at the depth bound was not entered
  std::vector<std::string>& out;

  void walk(int dir_fd, const std::string& path, int depth) {
    DIR* d = ::fdopendir(dir_fd);
    if (!d) {
      ::close(dir_fd);
      return;
    }
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++seen > kSocketWalkMaxEntries) {
        too_many = true;
        break;
      }
      struct stat st {};
      if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      const std::string child = path + "/" + name;
      if (S_ISSOCK(st.st_mode)) {
        out.push_back(child);
      } else if (S_ISDIR(st.st_mode)) {
        const int fd = ::openat(::dirfd(d), name.c_str(),
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;  // unreadable: its sockets are out of reach for us too
        // Another filesystem that is not tmpfs (overlay, FUSE, NFS) is never entered, and
        // so does not count against the depth bound either.
        if ((st.st_dev != root_dev && !on_tmpfs(fd)) || depth + 1 >= max_depth) {
          if (st.st_dev == root_dev || on_tmpfs(fd)) too_deep = true;
          ::close(fd);
          continue;
        }
        walk(fd, child, depth + 1);
      }
      if (too_many) break;
    }
    ::closedir(d);
  }
};

}  // namespace

std::vector<std::string> host_socket_dirs(unsigned uid, bool host_tmp, const std::string& keep) {
  std::vector<std::string> candidates;
  candidates.push_back(uid == 0 ? "/run/user" : "/run/user/" + std::to_string(uid));
  candidates.insert(candidates.end(), {"/run/screen", "/var/run/screen", "/run/WSL",
                                       "/run/libvirt", "/var/run/libvirt"});
  if (host_tmp) candidates.push_back("/tmp/tmux-" + std::to_string(uid));
  std::vector<std::string> found;
  std::set<std::string> real_seen;
  for (const auto& c : candidates) {
    char real[PATH_MAX];
    if (!::realpath(c.c_str(), real) || !is_dir(real)) continue;
    if (!real_seen.insert(real).second) continue;
    if (covers(real, keep)) continue;
    found.push_back(real);
  }
  return found;
}

SocketWalk find_sockets(const std::vector<std::string>& roots, int max_depth) {
  SocketWalk result;
  std::set<std::string> real_seen;
  for (const auto& r : roots) {
    char real[PATH_MAX];
    if (!::realpath(r.c_str(), real)) continue;
    if (!real_seen.insert(real).second) continue;
    const int fd = ::open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      continue;
    }
    Walker w{max_depth, st.st_dev, 0, false, false, result.sockets};
    w.walk(fd, real, 0);
    if (w.too_many || w.too_deep)
      result.incomplete.push_back(std::string("socket walk of ") + real + " stopped at its bound (depth " +
                                  std::to_string(max_depth) + ", " +
                                  std::to_string(kSocketWalkMaxEntries) +
                                  " entries): sockets beyond it are not masked");
  }
  return result;
}

}  // namespace halo::platform_linux
