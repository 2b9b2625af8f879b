#include "broker/proto/socks5.h"

#include <cstdio>

namespace halo::broker::proto::socks5 {
namespace {

template <typename T>
Result<T> error(Reply reply, const char* why) {
  Result<T> r;
  r.status = Status::error;
  r.reply = reply;
  r.error = why;
  return r;
}

std::string ipv4_text(const std::uint8_t* b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
  return buf;
}

// Full (uncompressed) form; policy normalization canonicalizes it.
std::string ipv6_text(const std::uint8_t* b) {
  char buf[40];
  int n = 0;
  for (int i = 0; i < 8; ++i) {
    n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), i ? ":%x" : "%x",
                       (b[2 * i] << 8) | b[2 * i + 1]);
  }
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

Result<Greeting> parse_greeting(std::span<const std::uint8_t> d) {
  Result<Greeting> r;
  if (d.size() < 2) return r;
  if (d[0] != kVersion) return error<Greeting>(Reply::general_failure, "not SOCKS version 5");
  std::size_t n = d[1];
  if (n == 0) return error<Greeting>(Reply::general_failure, "no authentication methods");
  if (d.size() < 2 + n) return r;
  for (std::size_t i = 0; i < n; ++i) {
    if (d[2 + i] == kMethodNoAuth) r.value.no_auth = true;
    if (d[2 + i] == kMethodUserPass) r.value.user_pass = true;
  }
  r.status = Status::ok;
  r.consumed = 2 + n;
  return r;
}

Result<bool> parse_user_pass(std::span<const std::uint8_t> d) {
  Result<bool> r;
  if (d.size() < 2) return r;
  if (d[0] != 1) return error<bool>(Reply::general_failure, "bad user/password version");
  std::size_t ulen = d[1];
  if (ulen == 0) return error<bool>(Reply::general_failure, "empty user name");
  if (d.size() < 2 + ulen + 1) return r;
  std::size_t plen = d[2 + ulen];
  if (d.size() < 3 + ulen + plen) return r;
  r.status = Status::ok;
  r.consumed = 3 + ulen + plen;
  r.value = true;
  return r;
}

Result<Request> parse_request(std::span<const std::uint8_t> d) {
  Result<Request> r;
  if (d.size() < 4) return r;
  if (d[0] != kVersion) return error<Request>(Reply::general_failure, "not SOCKS version 5");
  std::uint8_t cmd = d[1];
  if (cmd < 1 || cmd > 3) return error<Request>(Reply::command_not_supported, "unknown command");
  if (d[2] != 0) return error<Request>(Reply::general_failure, "reserved byte not zero");
  std::uint8_t atyp = d[3];
  std::size_t addr_len = 0;
  std::size_t head = 4;
  switch (atyp) {
    case 1: addr_len = 4; break;
    case 4: addr_len = 16; break;
    case 3:
      if (d.size() < 5) return r;
      addr_len = d[4];
      head = 5;
      if (addr_len == 0) return error<Request>(Reply::general_failure, "empty domain name");
      break;
    default:
      return error<Request>(Reply::address_type_not_supported, "unknown address type");
  }
  if (d.size() < head + addr_len + 2) return r;
  const std::uint8_t* a = d.data() + head;
  Request req;
  req.command = static_cast<Command>(cmd);
  req.atyp = atyp;
  if (atyp == 1) {
    req.host = ipv4_text(a);
  } else if (atyp == 4) {
    req.host = ipv6_text(a);
  } else {
    req.host.assign(reinterpret_cast<const char*>(a), addr_len);
    for (char c : req.host) {
      if (c == '\0') return error<Request>(Reply::general_failure, "NUL in domain name");
    }
  }
  req.port = static_cast<std::uint16_t>((a[addr_len] << 8) | a[addr_len + 1]);
  r.status = Status::ok;
  r.consumed = head + addr_len + 2;
  r.value = std::move(req);
  return r;
}

std::array<std::uint8_t, 10> reply(Reply code) {
  return {kVersion, static_cast<std::uint8_t>(code), 0, 1, 0, 0, 0, 0, 0, 0};
}

std::array<std::uint8_t, 8> socks4_rejected() { return {0, 0x5b, 0, 0, 0, 0, 0, 0}; }

}  // namespace halo::broker::proto::socks5
