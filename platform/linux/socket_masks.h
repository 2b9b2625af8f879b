#pragma once
// Host Unix sockets the sandbox must not reach. A pathname socket is a way around the
// network namespace when the daemon behind it acts for the client (systemd --user's
// private socket starts units in the host's namespaces; Docker, LXD, libvirt start
// containers; screen and tmux run commands in the user's sessions; WSL interop runs
// Windows programs). Landlock has no right for connect() on Unix sockets, so each one
// is masked by a mount inside the sandbox's mount namespace:
//   - whole directories that hold such sockets (host_socket_dirs) get an empty tmpfs;
//   - every socket found by a bounded walk of /run, /var/run and (when the sandbox's
//     /tmp is the host's) /tmp is covered by an empty file.
#include <string>
#include <vector>

namespace halo::platform_linux {

// Existing directories to mask whole: /run/user/UID (all of /run/user for uid 0),
// /run/screen, /run/WSL, /run/libvirt, and /tmp/tmux-UID when `host_tmp` (the sandbox
// sees the host's /tmp). A directory that holds `keep` (the workspace) or one of its
// ancestors is left out; the socket walk still covers it.
std::vector<std::string> host_socket_dirs(unsigned uid, bool host_tmp, const std::string& keep);

struct SocketWalk {
  std::vector<std::string> sockets;     // S_ISSOCK entries found (symlinks not followed)
  std::vector<std::string> incomplete;  // a bound was hit: what was not looked at
};

// Walks each root (its real path, once; only directories on the root's own filesystem
// or on tmpfs are entered, so FUSE and network mounts are never touched) up to
// `max_depth` levels and kSocketWalkMaxEntries entries per root.
SocketWalk find_sockets(const std::vector<std::string>& roots, int max_depth);

}  // namespace halo::platform_linux
