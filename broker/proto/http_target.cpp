#include "broker/proto/http_target.h"

#include <algorithm>
#include <cctype>

#include "broker/proto/http_head.h"

namespace halo::broker::proto {
namespace {

std::optional<std::uint16_t> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

// "host", "host:port", "[v6]", "[v6]:port"; port optional here.
std::optional<Authority> split_authority(std::string_view text, bool& port_given) {
  Authority a;
  port_given = false;
  if (text.empty()) return std::nullopt;
  if (text.find('@') != std::string_view::npos) return std::nullopt;  // userinfo
  std::string_view host, port;
  if (text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      port_given = true;
    }
    a.bracketed = true;
  } else {
    auto colon = text.rfind(':');
    if (colon != std::string_view::npos) {
      host = text.substr(0, colon);
      port = text.substr(colon + 1);
      port_given = true;
      if (host.find(':') != std::string_view::npos) return std::nullopt;  // unbracketed v6
    } else {
      host = text;
    }
  }
  if (host.empty()) return std::nullopt;
  for (unsigned char c : host) {
    if (c <= 0x20 || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '[' || c == ']')
      return std::nullopt;
  }
  if (port_given) {
    auto p = parse_port(port);
    if (!p) return std::nullopt;
    a.port = *p;
  }
  a.host = std::string(host);
  return a;
}

}  // namespace

std::string Authority::to_string() const {
  std::string out = bracketed ? "[" + host + "]" : host;
  out += ":" + std::to_string(port);
  return out;
}

std::string AbsoluteTarget::path() const {
  auto q = path_and_query.find('?');
  return q == std::string::npos ? path_and_query : path_and_query.substr(0, q);
}

std::optional<Authority> parse_authority(std::string_view text) {
  bool port_given = false;
  auto a = split_authority(text, port_given);
  if (!a || !port_given) return std::nullopt;
  return a;
}

std::optional<Authority> parse_host_header(std::string_view text, std::uint16_t default_port) {
  bool port_given = false;
  auto a = split_authority(text, port_given);
  if (!a) return std::nullopt;
  if (!port_given) a->port = default_port;
  return a;
}

std::optional<AbsoluteTarget> parse_absolute_target(std::string_view text) {
  constexpr std::string_view kScheme = "http://";
  if (text.size() < kScheme.size() || !iequals(text.substr(0, kScheme.size()), kScheme))
    return std::nullopt;
  std::string_view rest = text.substr(kScheme.size());
  auto end = rest.find_first_of("/?#");
  std::string_view auth = rest.substr(0, end);
  std::string_view tail = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  AbsoluteTarget t;
  auto a = split_authority(auth, t.port_given);
  if (!a) return std::nullopt;
  if (!t.port_given) a->port = 80;
  t.authority = std::move(*a);
  auto hash = tail.find('#');
  if (hash != std::string_view::npos) tail = tail.substr(0, hash);
  if (tail.empty() || tail.front() != '/') t.path_and_query = "/" + std::string(tail);
  else t.path_and_query = std::string(tail);
  return t;
}

bool same_authority(const Authority& a, const Authority& b) {
  return a.port == b.port && iequals(a.host, b.host);
}

}  // namespace halo::broker::proto
