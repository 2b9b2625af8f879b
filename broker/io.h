#pragma once
// Socket operations with a deadline, as coroutines that never throw: every read, write
// and connect the broker makes goes through one of these (STYLE: a deadline before
// every socket operation). Expiry gives std::errc::timed_out.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <string_view>
#include <system_error>
#include <utility>

#include "broker/limits.h"

namespace halo::broker {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

asio::awaitable<std::pair<error_code, std::size_t>> read_some_for(tcp::socket& s,
                                                                  asio::mutable_buffer b,
                                                                  Millis deadline);
asio::awaitable<error_code> write_all_for(tcp::socket& s, asio::const_buffer b, Millis deadline);
asio::awaitable<error_code> write_all_for(tcp::socket& s, std::string_view text, Millis deadline);
asio::awaitable<error_code> connect_for(tcp::socket& s, const tcp::endpoint& ep, Millis deadline);

bool is_timeout(const error_code& ec);

}  // namespace halo::broker
