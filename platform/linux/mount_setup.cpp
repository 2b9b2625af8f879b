#include "platform/linux/mount_setup.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "platform/linux/linux_limits.h"

namespace halo::platform_linux {
namespace {

constexpr unsigned kOpenTreeClone = 1;
constexpr unsigned kAtRecursive = 0x8000;
constexpr unsigned kMoveMountFEmptyPath = 0x4;
constexpr unsigned kMountAttrRdonly = 0x1;
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

struct MountAttr {
  std::uint64_t attr_set, attr_clr, propagation, userns_fd;
};

std::string err(const std::string& what, int e) { return what + ": " + std::strerror(e); }

// Read-only remount of a bind mount, keeping the flags the kernel may have locked.
int remount_readonly(const char* target) {
  struct statvfs sv {};
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
  if (::statvfs(target, &sv) == 0) {
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  }
  return ::mount(nullptr, target, nullptr, flags, nullptr) == 0 ? 0 : errno;
}

// A fresh file in /tmp with `content` and `mode`; empty string on failure.
std::string staging_file(const std::string& content, mode_t mode) {
  char name[] = "/tmp/.halo-stage-XXXXXX";
  int fd = ::mkstemp(name);
  if (fd < 0) return {};
  bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ok = ok && ::fchmod(fd, mode) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(name);
    return {};
  }
  return name;
}

void mkdir_p(const std::string& path) {
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = path.find('/', pos + 1);
    ::mkdir(path.substr(0, pos).c_str(), 0755);
  }
}

bool under_tmp(const std::string& p) { return p.rfind("/tmp/", 0) == 0; }

}  // namespace

int make_mounts_private() {
  return ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 ? 0 : errno;
}

void mount_private_tmp(const std::vector<std::string>& keep_in,
                       const std::vector<std::string>& read_only, MountOutcome& out) {
  std::vector<std::string> keep;
  for (const auto& k : keep_in) {
    if (k == "/tmp") return;  // the workspace is /tmp itself: it stays the host's
    if (under_tmp(k)) keep.push_back(k);
  }
  std::sort(keep.begin(), keep.end());
  // Drop entries nested in an earlier one; they come along with it.
  std::vector<std::string> roots;
  for (const auto& k : keep)
    if (roots.empty() || k.rfind(roots.back() + "/", 0) != 0) roots.push_back(k);

  std::vector<std::pair<std::string, int>> trees;
  for (const auto& k : roots) {
    int fd = static_cast<int>(::syscall(SYS_open_tree, AT_FDCWD, k.c_str(),
                                        kOpenTreeClone | kAtRecursive | O_CLOEXEC));
    if (fd < 0) {
      if (errno == ENOENT) continue;
      out.fs_reasons.push_back(err("private /tmp not mounted (cannot carry " + k + " over)", errno));
      for (auto& t : trees) ::close(t.second);
      return;
    }
    // A tree kept visible but not writable (read-only mode's workspace) must not become
    // writable through the private /tmp's Landlock rule: make the clone read-only.
    if (std::find(read_only.begin(), read_only.end(), k) != read_only.end()) {
      MountAttr attr{kMountAttrRdonly, 0, 0, 0};
      if (::syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | kAtRecursive, &attr,
                    sizeof attr) != 0) {
        out.fs_reasons.push_back(err("private /tmp not mounted (cannot make " + k + " read-only)", errno));
        ::close(fd);
        for (auto& t : trees) ::close(t.second);
        return;
      }
    }
    trees.emplace_back(k, fd);
  }
  if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, kPrivateTmpOptions) != 0) {
    out.fs_reasons.push_back(err("private /tmp not mounted", errno));
    for (auto& t : trees) ::close(t.second);
    return;
  }
  out.private_tmp = true;
  for (auto& [path, fd] : trees) {
    mkdir_p(path);
    if (::syscall(SYS_move_mount, fd, "", AT_FDCWD, path.c_str(), kMoveMountFEmptyPath) != 0)
      out.fs_reasons.push_back(err("workspace " + path + " lost under the private /tmp", errno));
    ::close(fd);
  }
  struct stat st {};
  if (::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
      ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, kPrivateTmpOptions) != 0)
    out.fs_reasons.push_back(err("private /dev/shm not mounted", errno));
}

void bind_resolv_conf(const std::string& content, MountOutcome& out) {
  const std::string stage = staging_file(content, 0644);
  if (stage.empty()) {
    out.net_notes.push_back(err("resolv.conf not replaced", errno));
    return;
  }
  if (::mount(stage.c_str(), "/etc/resolv.conf", nullptr, MS_BIND, nullptr) != 0) {
    out.net_notes.push_back(err("resolv.conf not replaced (names resolve nowhere)", errno));
  } else {
    remount_readonly("/etc/resolv.conf");
    out.resolv_conf = true;
  }
  ::unlink(stage.c_str());
}

void mask_paths(const std::vector<std::string>& paths, MountOutcome& out, const char* what) {
  if (paths.empty()) return;
  std::string empty_file;
  for (const auto& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;  // vanished or a dangling link: nothing to read
    int rc = 0;
    if (S_ISDIR(st.st_mode)) {
      rc = ::mount("tmpfs", p.c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   kMaskDirOptions) == 0 ? 0 : errno;
    } else {
      if (empty_file.empty()) empty_file = staging_file("", 0);
      if (empty_file.empty()) {
        rc = errno ? errno : EIO;
      } else if (::mount(empty_file.c_str(), p.c_str(), nullptr, MS_BIND, nullptr) != 0) {
        rc = errno;
      } else {
        rc = remount_readonly(p.c_str());
      }
    }
    if (rc != 0) out.fs_reasons.push_back(err(std::string(what) + " " + p + " stays reachable", rc));
  }
  if (!empty_file.empty()) ::unlink(empty_file.c_str());
}

std::vector<std::string> host_daemon_sockets(unsigned uid) {
  const std::string user = "/run/user/" + std::to_string(uid);
  const std::string candidates[] = {
      "/run/nscd/socket",
      "/var/run/nscd/socket",
      "/run/systemd/resolve/io.systemd.Resolve",
      "/run/systemd/resolve/io.systemd.Resolve.Monitor",
      "/run/dbus/system_bus_socket",
      "/var/run/dbus/system_bus_socket",
      "/run/docker.sock",
      "/var/run/docker.sock",
      "/run/containerd/containerd.sock",
      "/run/podman/podman.sock",
      "/run/snapd.socket",
      "/var/snap/lxd/common/lxd/unix.socket",
      "/var/lib/lxd/unix.socket",
      "/var/lib/incus/unix.socket",
      "/var/lib/incus/unix.socket.user",
      user + "/bus",
      user + "/docker.sock",
      user + "/podman/podman.sock",
  };
  std::vector<std::string> found;
  for (const auto& c : candidates) {
    struct stat st {};
    if (::stat(c.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) found.push_back(c);
  }
  return found;
}

void mount_proc(MountOutcome& out) {
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) {
    out.proc_private = true;
    return;
  }
  out.fs_reasons.push_back(
      err("/proc not private: other processes' /proc/PID/root can reach protected paths", errno));
}

}  // namespace halo::platform_linux
