#include "broker/relay.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <chrono>
#include <memory>
#include <vector>

#include "broker/io.h"

namespace halo::broker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

struct Shared {
  Clock::time_point started = Clock::now();
  Clock::time_point last_activity = started;
  bool idle_expired = false;  // the idle deadline or the duration cap closed the tunnel
  bool duration_expired = false;  // ... the duration cap
  bool broken = false;  // a direction failed: both sides are being torn down
  int live_pumps = 2;
};

// A pipe for splice; closes itself.
struct Pipe {
  int r = -1, w = -1;
  ~Pipe() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
  bool open(std::size_t size) {
    int p[2];
    if (::pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) return false;
    r = p[0];
    w = p[1];
    ::fcntl(w, F_SETPIPE_SZ, static_cast<int>(size));
    return true;
  }
};

void tear_down(tcp::socket& a, tcp::socket& b) {
  ::shutdown(a.native_handle(), SHUT_RDWR);
  ::shutdown(b.native_handle(), SHUT_RDWR);
}

// Moves bytes from -> to until EOF (then half-closes `to`) or an error (then tears both
// down so the other direction ends too). Buffered first; spliced once the direction has
// carried Limits::splice_after_bytes (when `try_splice`).
asio::awaitable<void> pump(tcp::socket& from, tcp::socket& to, std::uint64_t& count, Shared& st,
                           const Limits& limits, bool try_splice, bool& spliced) {
  const int in = from.native_handle();
  const int out = to.native_handle();
  Pipe pipe;
  bool use_splice = false;
  std::unique_ptr<char[]> buf;  // buffered mode: exists only while bytes are in flight
  std::size_t held = 0;  // bytes in the pipe or buffer not yet written
  std::size_t off = 0;   // buffered mode: write offset into buf
  bool eof = false;
  for (;;) {
    if (st.broken || st.idle_expired) break;
    if (!use_splice && try_splice && count >= limits.splice_after_bytes && held == 0) {
      if (pipe.open(limits.splice_pipe_bytes)) {
        use_splice = true;
        spliced = true;
        buf.reset();
      } else {
        try_splice = false;  // no pipe to be had (EMFILE): stay buffered
      }
    }
    // Fill.
    if (!eof && held == 0) {
      if (!use_splice && !buf) buf = std::make_unique_for_overwrite<char[]>(limits.relay_buffer_bytes);
      ssize_t n = use_splice ? ::splice(in, nullptr, pipe.w, nullptr, limits.splice_pipe_bytes,
                                        SPLICE_F_MOVE | SPLICE_F_NONBLOCK)
                             : ::recv(in, buf.get(), limits.relay_buffer_bytes, MSG_DONTWAIT);
      if (n > 0) {
        held = static_cast<std::size_t>(n);
        off = 0;
        count += held;
        st.last_activity = Clock::now();
      } else if (n == 0) {
        eof = true;
      } else if (errno == EAGAIN || errno == EINTR) {
        buf.reset();  // nothing in flight: an idle direction holds no buffer
        auto [ec] = co_await from.async_wait(tcp::socket::wait_read, kTuple);
        if (ec) break;
        continue;
      } else if (use_splice && errno == EINVAL) {
        use_splice = false;  // splice refused for this socket: buffered from here on
        try_splice = false;
        continue;
      } else {
        st.broken = true;
        break;
      }
    }
    // Drain.
    while (held > 0) {
      ssize_t m = use_splice ? ::splice(pipe.r, nullptr, out, nullptr, held,
                                        SPLICE_F_MOVE | SPLICE_F_NONBLOCK)
                             : ::send(out, buf.get() + off, held, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (m > 0) {
        held -= static_cast<std::size_t>(m);
        off += static_cast<std::size_t>(m);
        st.last_activity = Clock::now();
      } else if (m < 0 && (errno == EAGAIN || errno == EINTR)) {
        auto [ec] = co_await to.async_wait(tcp::socket::wait_write, kTuple);
        if (ec || st.broken || st.idle_expired) break;
      } else {
        st.broken = true;
        break;
      }
    }
    if (st.broken || (held > 0)) break;
    if (eof) {
      ::shutdown(out, SHUT_WR);
      co_return;
    }
  }
  if (!st.idle_expired) st.broken = true;
  tear_down(from, to);
}

// The idle deadline and the duration cap: one timer whose handler re-arms itself while
// bytes move and tears the tunnel down when none moved for `idle` or it has lived `cap`.
// A handler that runs after the relay ended (live_pumps == 0) touches nothing but the
// shared state it holds.
void arm_watchdog(std::shared_ptr<Shared> st, std::shared_ptr<asio::steady_timer> timer,
                  tcp::socket* a, tcp::socket* b, Millis idle, Millis cap) {
  timer->expires_at(std::min(st->last_activity + idle, st->started + cap));
  timer->async_wait([st, timer, a, b, idle, cap](const error_code& ec) {
    if (ec || st->live_pumps == 0) return;
    const auto now = Clock::now();
    const bool over_cap = now >= st->started + cap;
    if (over_cap || now >= st->last_activity + idle) {
      st->idle_expired = true;
      st->duration_expired = over_cap;
      tear_down(*a, *b);
      return;
    }
    arm_watchdog(st, timer, a, b, idle, cap);
  });
}

}  // namespace

asio::awaitable<RelayResult> relay(tcp::socket& client, tcp::socket& upstream,
                                   std::string_view pending, const Limits& limits,
                                   RelayMode mode) {
  RelayResult result;
  error_code ec;
  if (!client.non_blocking()) client.non_blocking(true, ec);
  if (!upstream.non_blocking()) upstream.non_blocking(true, ec);
  if (!pending.empty()) {
    ec = co_await write_all_for(upstream, pending, limits.write_deadline);
    if (ec) {
      result.close_reason = "reset";
      co_return result;
    }
    result.up += pending.size();
  }
  auto ex = co_await asio::this_coro::executor;
  auto st = std::make_shared<Shared>();
  auto watchdog = std::make_shared<asio::steady_timer>(ex);
  arm_watchdog(st, watchdog, &client, &upstream, limits.idle_deadline,
               limits.max_tunnel_duration);
  const bool try_splice = mode == RelayMode::automatic;
  bool s1 = false, s2 = false;
  // Downstream runs as its own coroutine; upstream runs here. Everything below stays on
  // this session's executor (one thread), so the flags need no synchronization. The
  // relay's frame (sockets, counts, `down_done`) outlives the spawned pump: it waits for it.
  // Each pump, as it ends, counts itself out of live_pumps, so a watchdog handler that runs
  // after both ended (before this coroutine resumes) leaves the close reason alone. A pump
  // that throws (allocation failure) breaks the tunnel so the other one ends too; the
  // exception is rethrown once both are over.
  asio::steady_timer down_done(ex, asio::steady_timer::time_point::max());
  bool down_finished = false;
  std::exception_ptr down_failure;
  asio::co_spawn(ex, pump(upstream, client, result.down, *st, limits, try_splice, s2),
                 [&down_finished, &down_done, &down_failure, &client, &upstream,
                  st](std::exception_ptr e) {
                   --st->live_pumps;
                   if (e) {
                     down_failure = e;
                     st->broken = true;
                     tear_down(client, upstream);
                   }
                   down_finished = true;
                   down_done.cancel();
                 });
  std::exception_ptr failure;
  try {
    co_await pump(client, upstream, result.up, *st, limits, try_splice, s1);
  } catch (...) {
    failure = std::current_exception();
    st->broken = true;
    tear_down(client, upstream);
  }
  --st->live_pumps;
  if (!down_finished) co_await down_done.async_wait(kTuple);
  st->live_pumps = 0;
  watchdog->cancel();
  if (!failure) failure = down_failure;
  if (failure) std::rethrow_exception(failure);
  result.spliced = s1 || s2;
  result.close_reason = st->duration_expired ? "max_duration"
                        : st->idle_expired    ? "idle"
                        : st->broken          ? "reset"
                                              : "done";
  co_return result;
}

}  // namespace halo::broker
