#pragma once
// Messages with file descriptors over a SOCK_SEQPACKET Unix socket (SCM_RIGHTS): how the
// sandbox child hands the listeners it created inside its network namespace to the
// parent's broker. One message is one send; sizes and fd counts are capped
// (linux_limits.h); every receive has a deadline.
#include <chrono>
#include <string>
#include <vector>

namespace halo::platform_linux {

// Sends `bytes` with `fds` attached; the caller keeps (and later closes) its fds.
// Returns 0 or an errno value.
int send_message(int sock, const std::string& bytes, const std::vector<int>& fds = {});

// Receives one message. Returns 0, ETIMEDOUT, EPIPE (peer closed), EMSGSIZE (truncated;
// received fds are closed) or another errno value. Received fds are close-on-exec.
int receive_message(int sock, std::chrono::milliseconds timeout, std::string& bytes,
                    std::vector<int>& fds);

}  // namespace halo::platform_linux
