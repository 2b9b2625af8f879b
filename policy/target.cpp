#include "policy/target.h"

#include <charconv>

namespace halo::policy {
namespace {

TargetResult fail(std::string why) {
  TargetResult r;
  r.error = std::move(why);
  return r;
}

std::optional<std::uint16_t> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

// "host", "host:port", "[v6]", "[v6]:port", bare "v6".
TargetResult split_authority(std::string_view a, std::string scheme) {
  Target t;
  t.scheme = std::move(scheme);
  if (a.empty()) return fail("no host");
  if (a.front() == '[') {
    auto close = a.find(']');
    if (close == std::string_view::npos) return fail("unterminated '['");
    t.host = std::string(a.substr(0, close + 1));
    std::string_view rest = a.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return fail("unexpected text after ']'");
      t.port = parse_port(rest.substr(1));
      if (!t.port) return fail("port must be a number from 1 to 65535");
    }
  } else {
    auto first = a.find(':');
    auto last = a.rfind(':');
    if (first != std::string_view::npos && first != last) {
      t.host = std::string(a);  // bare IPv6 literal: no port possible
    } else if (first != std::string_view::npos) {
      t.host = std::string(a.substr(0, first));
      t.port = parse_port(a.substr(first + 1));
      if (!t.port) return fail("port must be a number from 1 to 65535");
    } else {
      t.host = std::string(a);
    }
  }
  if (t.host.empty()) return fail("no host");
  TargetResult r;
  r.target = std::move(t);
  return r;
}

}  // namespace

std::optional<std::uint16_t> default_port(std::string_view s) {
  if (s == "http" || s == "ws") return 80;
  if (s == "https" || s == "wss") return 443;
  if (s == "ftp") return 21;
  if (s == "ssh") return 22;
  if (s == "git") return 9418;
  return std::nullopt;
}

TargetResult parse_target(std::string_view in) {
  if (in.empty()) return fail("empty target");
  if (in.size() > 8192) return fail("target longer than 8 KiB");
  auto sep = in.find("://");
  if (sep == std::string_view::npos) {
    if (in.find_first_of("/?#@") != std::string_view::npos) {
      return fail("not a URL or HOST[:PORT] (a URL needs a scheme such as https://)");
    }
    return split_authority(in, "");
  }
  std::string scheme(in.substr(0, sep));
  for (char& c : scheme) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
      return fail("not a URL scheme");
    }
  }
  std::string_view rest = in.substr(sep + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  auto at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);  // userinfo is never the host
  TargetResult r = split_authority(authority, scheme);
  if (!r.target) return r;
  if (!r.target->port) {
    r.target->port = default_port(scheme);
    if (!r.target->port) return fail("unknown scheme '" + scheme + "' and no port; give HOST:PORT");
  }
  return r;
}

}  // namespace halo::policy
