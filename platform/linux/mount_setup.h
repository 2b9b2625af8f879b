#pragma once
// The sandbox child's view of the filesystem, built inside its own mount namespace
// (never visible to the host): a private /tmp and /dev/shm, a resolv.conf naming the
// session DNS bound over /etc/resolv.conf, protected paths masked, and /proc remounted
// for the new PID namespace. Each step reports what it could not do instead of failing
// the whole launch; the caller turns that into the enforcement report.
#include <string>
#include <vector>

namespace halo::platform_linux {

struct MountOutcome {
  std::vector<std::string> fs_reasons;   // filesystem not fully held
  std::vector<std::string> net_notes;    // DNS inside the sandbox degraded (never opens)
  bool resolv_conf = false;
  bool private_tmp = false;
  bool proc_private = false;
};

// Makes every mount private so nothing below propagates to the host. Returns errno or 0.
int make_mounts_private();

// Mounts a tmpfs over /tmp and /dev/shm; paths under /tmp listed in `keep` (the
// workspace, writable roots) are carried over into the new /tmp, those also listed in
// `read_only` as read-only mounts (the new /tmp itself is writable).
void mount_private_tmp(const std::vector<std::string>& keep,
                       const std::vector<std::string>& read_only, MountOutcome& out);

// Binds a read-only file holding `content` over /etc/resolv.conf.
void bind_resolv_conf(const std::string& content, MountOutcome& out);

// Makes each path unreadable: directories get an empty read-only mode-000 tmpfs, other
// files an empty read-only mode-000 file.
// Each failure adds "<what> PATH stays reachable: ERROR" to out.fs_reasons.
void mask_paths(const std::vector<std::string>& paths, MountOutcome& out,
                const char* what = "protected path");

// Unix sockets of host daemons that resolve names or open connections on a client's
// behalf (nscd, systemd-resolved, D-Bus, Docker, containerd, Podman) and exist here.
// Masked like protected paths, so nothing inside reaches the network through them.
std::vector<std::string> host_daemon_sockets(unsigned uid);

// Mounts a fresh procfs on /proc (the caller must be in a new PID namespace).
void mount_proc(MountOutcome& out);

}  // namespace halo::platform_linux
