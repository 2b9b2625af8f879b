#pragma once
// Named defaults for the Linux backend: every wait on the child has a deadline, every
// message a cap.
#include <chrono>
#include <cstddef>

namespace halo::platform_linux {

// How long the parent waits for the child's set-up report (namespaces, listeners,
// mounts, Landlock) before it gives up and kills the child.
inline constexpr std::chrono::milliseconds kSetupTimeout{10000};
// How long the child waits for the parent to write its uid/gid maps.
inline constexpr std::chrono::milliseconds kMapTimeout{5000};
// How long abandon() waits for the child to leave before SIGKILL.
inline constexpr std::chrono::milliseconds kAbandonTimeout{1000};
// Largest control message on the parent/child socket, and most fds in one message.
inline constexpr std::size_t kMaxMessageBytes = 64 * 1024;
inline constexpr std::size_t kMaxPassedFds = 250;
// Loopback grants beyond this many are refused (two listeners each, v4 and v6).
inline constexpr std::size_t kMaxLoopbackGrants = 100;
// Listen backlog for every listener created inside the sandbox.
inline constexpr int kListenBacklog = 512;
// Size of each tmpfs halo mounts: the private /tmp and /dev/shm, and the masks.
inline constexpr const char* kPrivateTmpOptions = "mode=1777,size=50%";
inline constexpr const char* kMaskDirOptions = "mode=000,size=4k,nr_inodes=2";

}  // namespace halo::platform_linux

namespace halo::platform_linux {

// The start-up walk for Unix sockets to mask (/run, /var/run, and /tmp when it is not
// private): how deep it descends and how many entries it looks at per root. Beyond
// either bound network is `partial` with the reason.
inline constexpr int kSocketWalkMaxDepth = 6;
inline constexpr int kSocketWalkTmpMaxDepth = 3;
inline constexpr std::size_t kSocketWalkMaxEntries = 20000;

}  // namespace halo::platform_linux
