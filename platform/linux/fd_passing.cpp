#include "platform/linux/fd_passing.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "platform/linux/linux_limits.h"

namespace halo::platform_linux {

int send_message(int sock, const std::string& bytes, const std::vector<int>& fds) {
  if (bytes.size() > kMaxMessageBytes || fds.size() > kMaxPassedFds) return EMSGSIZE;
  char dummy = 0;
  iovec iov{};
  iov.iov_base = bytes.empty() ? &dummy : const_cast<char*>(bytes.data());
  iov.iov_len = bytes.empty() ? 1 : bytes.size();
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.assign(CMSG_SPACE(sizeof(int) * fds.size()), 0);
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    ssize_t n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (n >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int receive_message(int sock, std::chrono::milliseconds timeout, std::string& bytes,
                    std::vector<int>& fds) {
  bytes.clear();
  fds.clear();
  pollfd p{sock, POLLIN, 0};
  for (;;) {
    int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (r > 0) break;
    if (r == 0) return ETIMEDOUT;
    if (errno != EINTR) return errno;
  }
  std::vector<char> buf(kMaxMessageBytes);
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxPassedFds));
  iovec iov{buf.data(), buf.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const auto* data = reinterpret_cast<const int*>(CMSG_DATA(c));
    for (std::size_t i = 0; i < count; ++i) fds.push_back(data[i]);
  }
  if (n == 0 && fds.empty()) return EPIPE;
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    for (int fd : fds) ::close(fd);
    fds.clear();
    return EMSGSIZE;
  }
  bytes.assign(buf.data(), static_cast<std::size_t>(n));
  return 0;
}

}  // namespace halo::platform_linux
