#pragma once
// SOCKS5 (RFC 1928) and its username/password sub-negotiation (RFC 1929), as pure
// incremental parsers: give them the bytes received so far, get "need more", a parsed
// message with the bytes it used, or an error with the reply code to send. Pure; fuzzed
// in fuzz/broker/socks5_fuzz.cpp.
//
//   greeting  = VER(5) NMETHODS(1..255) METHODS...
//   userpass  = VER(1) ULEN(1..255) UNAME PLEN(0..255) PASSWD
//   request   = VER(5) CMD RSV(0) ATYP ADDR PORT(2)   ATYP 1 = IPv4, 3 = domain, 4 = IPv6
// Credentials are checked for shape only and never kept: halo's SOCKS port is
// per-session, the policy decides what may be reached.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace halo::broker::proto::socks5 {

inline constexpr std::uint8_t kVersion = 5;
inline constexpr std::uint8_t kMethodNoAuth = 0x00;
inline constexpr std::uint8_t kMethodUserPass = 0x02;
inline constexpr std::uint8_t kMethodNone = 0xff;

enum class Reply : std::uint8_t {
  succeeded = 0x00,
  general_failure = 0x01,
  not_allowed = 0x02,
  network_unreachable = 0x03,
  host_unreachable = 0x04,
  connection_refused = 0x05,
  ttl_expired = 0x06,
  command_not_supported = 0x07,
  address_type_not_supported = 0x08,
};

enum class Status : std::uint8_t { need_more, ok, error };

struct Greeting {
  bool no_auth = false;
  bool user_pass = false;
};

enum class Command : std::uint8_t { connect = 1, bind = 2, udp_associate = 3 };

struct Request {
  Command command = Command::connect;
  std::uint8_t atyp = 0;
  std::string host;  // domain as sent, or the address in text form (v6 without brackets)
  std::uint16_t port = 0;
};

template <typename T>
struct Result {
  Status status = Status::need_more;
  std::size_t consumed = 0;
  T value{};
  Reply reply = Reply::general_failure;  // for Status::error: what to answer (if anything)
  const char* error = "";                // static text for logs
};

Result<Greeting> parse_greeting(std::span<const std::uint8_t> data);
// Credentials are not returned: only whether the frame was well formed.
Result<bool> parse_user_pass(std::span<const std::uint8_t> data);
// Parses any command; the caller refuses BIND and UDP ASSOCIATE with
// command_not_supported.
Result<Request> parse_request(std::span<const std::uint8_t> data);

// VER REP RSV ATYP(1) 0.0.0.0 PORT 0.
std::array<std::uint8_t, 10> reply(Reply code);
// SOCKS4 "request rejected" (VN 0, CD 91), for a client that spoke version 4.
std::array<std::uint8_t, 8> socks4_rejected();

}  // namespace halo::broker::proto::socks5
