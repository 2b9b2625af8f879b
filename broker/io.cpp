#include "broker/io.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>

namespace halo::broker {
namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

error_code timed_out() {
  return error_code(boost::system::errc::timed_out, boost::system::generic_category());
}

// One socket operation under a deadline: a timer whose handler cancels the socket's
// operations if it fires first. Cheaper than racing two awaitables (`||` spawns both into
// a parallel group per operation), and every path is one timer and one operation.
//
// The handler may already be queued (expired) when the operation completes; `done` tells
// it the operation is over so it never cancels a later one. While `done` is false the
// awaiting coroutine is suspended on an operation, so the socket is alive.
// An operation counts as timed out only when it ended aborted after the deadline fired:
// one that completed (bytes read, connected, refused) in the same tick keeps its result.
// cancel() reaches only the operation pending at that instant, so a sequence of steps
// (a whole write) checks expired() before each one.
class Deadline {
 public:
  Deadline(tcp::socket& s, Millis d)
      : timer_(s.get_executor(), d), state_(std::make_shared<State>()) {
    timer_.async_wait([st = state_, sock = &s](const error_code& ec) {
      if (ec || st->done) return;
      st->expired = true;
      error_code ignored;
      sock->cancel(ignored);
    });
  }
  ~Deadline() { finish({}); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  bool expired() const { return state_->expired; }
  // Call when the operation completed with `ec`; true when the deadline cut it short.
  bool finish(const error_code& ec) {
    if (!state_->done) {
      state_->done = true;
      timer_.cancel();
    }
    return state_->expired && ec == asio::error::operation_aborted;
  }

 private:
  struct State {
    bool done = false;
    bool expired = false;
  };
  asio::steady_timer timer_;
  std::shared_ptr<State> state_;
};

}  // namespace

bool is_timeout(const error_code& ec) { return ec == boost::system::errc::timed_out; }

asio::awaitable<std::pair<error_code, std::size_t>> read_some_for(tcp::socket& s,
                                                                  asio::mutable_buffer b,
                                                                  Millis deadline) {
  // Fast path: bytes already waiting need no timer.
  error_code ec;
  if (!s.non_blocking()) s.non_blocking(true, ec);  // the getter costs no syscall
  std::size_t n = s.read_some(b, ec);
  if (!ec || ec != asio::error::would_block) co_return std::pair{ec, n};
  Deadline d(s, deadline);
  auto [rec, rn] = co_await s.async_read_some(b, kTuple);
  if (d.finish(rec)) co_return std::pair{timed_out(), std::size_t{0}};
  co_return std::pair{rec, rn};
}

asio::awaitable<error_code> write_all_for(tcp::socket& s, asio::const_buffer b, Millis deadline) {
  // Fast path: most answers fit the socket buffer at once.
  error_code ec;
  if (!s.non_blocking()) s.non_blocking(true, ec);  // the getter costs no syscall
  std::size_t n = s.write_some(b, ec);
  if (!ec && n == b.size()) co_return error_code{};
  if (ec && ec != asio::error::would_block) co_return ec;
  b += n;
  Deadline d(s, deadline);
  while (b.size() > 0) {
    if (d.expired()) {
      d.finish(asio::error::operation_aborted);
      co_return timed_out();
    }
    auto [wec, wn] = co_await s.async_write_some(b, kTuple);
    if (wec) co_return d.finish(wec) ? timed_out() : wec;
    b += wn;
  }
  d.finish({});
  co_return error_code{};
}

asio::awaitable<error_code> write_all_for(tcp::socket& s, std::string_view text,
                                          Millis deadline) {
  co_return co_await write_all_for(s, asio::buffer(text.data(), text.size()), deadline);
}

asio::awaitable<error_code> connect_for(tcp::socket& s, const tcp::endpoint& ep, Millis deadline) {
  Deadline d(s, deadline);
  auto [ec] = co_await s.async_connect(ep, kTuple);
  if (d.finish(ec)) co_return timed_out();
  co_return ec;
}

}  // namespace halo::broker
