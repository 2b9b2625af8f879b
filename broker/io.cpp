#include "broker/io.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace halo::broker {
namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
}  // namespace

using namespace asio::experimental::awaitable_operators;

bool is_timeout(const error_code& ec) { return ec == boost::system::errc::timed_out; }

asio::awaitable<std::pair<error_code, std::size_t>> read_some_for(tcp::socket& s,
                                                                  asio::mutable_buffer b,
                                                                  Millis deadline) {
  // Fast path: bytes already waiting need no timer.
  error_code ec;
  if (!s.non_blocking()) s.non_blocking(true, ec);  // the getter costs no syscall
  std::size_t n = s.read_some(b, ec);
  if (!ec || ec != asio::error::would_block) co_return std::pair{ec, n};
  asio::steady_timer t(co_await asio::this_coro::executor, deadline);
  auto r = co_await (s.async_read_some(b, kTuple) || t.async_wait(kTuple));
  if (r.index() == 1) co_return std::pair{error_code(boost::system::errc::timed_out,
                                                     boost::system::generic_category()),
                                          std::size_t{0}};
  auto [rec, rn] = std::get<0>(r);
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
  asio::steady_timer t(co_await asio::this_coro::executor, deadline);
  auto r = co_await (asio::async_write(s, b, kTuple) || t.async_wait(kTuple));
  if (r.index() == 1)
    co_return error_code(boost::system::errc::timed_out, boost::system::generic_category());
  co_return std::get<0>(std::get<0>(r));
}

asio::awaitable<error_code> write_all_for(tcp::socket& s, std::string_view text,
                                          Millis deadline) {
  co_return co_await write_all_for(s, asio::buffer(text.data(), text.size()), deadline);
}

asio::awaitable<error_code> connect_for(tcp::socket& s, const tcp::endpoint& ep, Millis deadline) {
  asio::steady_timer t(co_await asio::this_coro::executor, deadline);
  auto r = co_await (s.async_connect(ep, kTuple) || t.async_wait(kTuple));
  if (r.index() == 1)
    co_return error_code(boost::system::errc::timed_out, boost::system::generic_category());
  co_return std::get<0>(std::get<0>(r));
}

}  // namespace halo::broker
