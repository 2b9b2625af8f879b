#include "dns/ares_upstream.h"

#include <ares.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace halo::dns {

struct AresUpstream::State {
  ares_channel channel = nullptr;
  int wake_fd = -1;
  std::mutex mu;
  std::deque<std::pair<std::vector<std::uint8_t>, Callback>> queue;  // guarded by mu
  std::atomic<bool> stopping{false};
  std::thread thread;

  void wake() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
  }
  void run();
};

namespace {

std::error_code error_from(int status) {
  switch (status) {
    case ARES_ETIMEOUT: return std::make_error_code(std::errc::timed_out);
    case ARES_EDESTRUCTION:
    case ARES_ECANCELLED: return std::make_error_code(std::errc::operation_canceled);
    case ARES_ECONNREFUSED: return std::make_error_code(std::errc::connection_refused);
    default: return std::make_error_code(std::errc::io_error);
  }
}

void on_answer(void* arg, int status, int /*timeouts*/, unsigned char* abuf, int alen) {
  std::unique_ptr<Upstream::Callback> done(static_cast<Upstream::Callback*>(arg));
  if (status == ARES_SUCCESS && abuf != nullptr && alen > 0) {
    (*done)({}, std::vector<std::uint8_t>(abuf, abuf + alen));
  } else {
    (*done)(error_from(status == ARES_SUCCESS ? ARES_EBADRESP : status), {});
  }
}

}  // namespace

// The channel's one thread: sends what was queued, waits on c-ares's sockets and the wake
// fd (never longer than c-ares's next timeout), and lets c-ares process both.
void AresUpstream::State::run() {
  while (!stopping.load()) {
    std::deque<std::pair<std::vector<std::uint8_t>, Callback>> todo;
    {
      std::lock_guard lock(mu);
      todo.swap(queue);
    }
    for (auto& [query, done] : todo) {
      ares_send(channel, query.data(), static_cast<int>(query.size()), on_answer,
                new Callback(std::move(done)));
    }
    ares_socket_t socks[ARES_GETSOCK_MAXNUM];
    const int mask = ares_getsock(channel, socks, ARES_GETSOCK_MAXNUM);
    std::vector<pollfd> fds{{wake_fd, POLLIN, 0}};
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
      short events = 0;
      if (ARES_GETSOCK_READABLE(mask, i)) events |= POLLIN;
      if (ARES_GETSOCK_WRITABLE(mask, i)) events |= POLLOUT;
      if (events) fds.push_back({socks[i], events, 0});
    }
    timeval max{1, 0}, tv{};
    const timeval* next = ares_timeout(channel, &max, &tv);
    const int ms = static_cast<int>(next->tv_sec * 1000 + next->tv_usec / 1000) + 1;
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      std::uint64_t n = 0;
      [[maybe_unused]] auto r = ::read(wake_fd, &n, sizeof n);
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      const bool rd = fds[i].revents & (POLLIN | POLLERR | POLLHUP);
      const bool wr = fds[i].revents & POLLOUT;
      if (rd || wr)
        ares_process_fd(channel, rd ? fds[i].fd : ARES_SOCKET_BAD, wr ? fds[i].fd : ARES_SOCKET_BAD);
    }
    ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timeouts
  }
}

std::unique_ptr<AresUpstream> AresUpstream::create(const std::string& server,
                                                   std::chrono::milliseconds timeout, int tries,
                                                   std::error_code& ec) {
  static const int library = ares_library_init(ARES_LIB_INIT_ALL);
  if (library != ARES_SUCCESS) {
    ec = std::make_error_code(std::errc::io_error);
    return nullptr;
  }
  auto state = std::make_unique<State>();
  ares_options opts{};
  opts.timeout = static_cast<int>(timeout.count());
  opts.tries = tries;
  opts.flags = ARES_FLAG_NOCHECKRESP;  // relay SERVFAIL/REFUSED instead of a bare error
  const int mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_FLAGS;
  if (ares_init_options(&state->channel, &opts, mask) != ARES_SUCCESS) {
    ec = std::make_error_code(std::errc::io_error);
    return nullptr;
  }
  if (!server.empty() && ares_set_servers_ports_csv(state->channel, server.c_str()) != ARES_SUCCESS) {
    ares_destroy(state->channel);
    ec = std::make_error_code(std::errc::invalid_argument);
    return nullptr;
  }
  state->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (state->wake_fd < 0) {
    ares_destroy(state->channel);
    ec = std::error_code(errno, std::system_category());
    return nullptr;
  }
  State* raw = state.get();
  state->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<AresUpstream>(new AresUpstream(std::move(state)));
}

AresUpstream::AresUpstream(std::unique_ptr<State> state) : state_(std::move(state)) {}

AresUpstream::~AresUpstream() {
  state_->stopping.store(true);
  state_->wake();
  state_->thread.join();
  ares_destroy(state_->channel);  // pending queries: callbacks with ARES_EDESTRUCTION
  for (auto& [query, done] : state_->queue) done(std::make_error_code(std::errc::operation_canceled), {});
  ::close(state_->wake_fd);
}

void AresUpstream::send(std::vector<std::uint8_t> query, Callback done) {
  {
    std::lock_guard lock(state_->mu);
    state_->queue.emplace_back(std::move(query), std::move(done));
  }
  state_->wake();
}

}  // namespace halo::dns
