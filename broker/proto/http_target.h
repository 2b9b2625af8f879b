#pragma once
// Request targets a proxy accepts, parsed without touching the host text's meaning
// (normalization and the decision are policy::EgressRules' job).
//
//   authority-form (CONNECT):  "example.com:443", "[2001:db8::1]:443", "127.0.0.1:8080"
//   absolute-form (forward):   "http://example.com/path?q", "http://[::1]:8080/",
//                              "HTTP://Example.com" (path defaults to "/")
// Rejected: a missing or non-numeric or zero port in authority-form, userinfo ("u:p@h"),
// schemes other than http, an empty host, origin-form ("/path") sent to a proxy.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace halo::broker::proto {

struct Authority {
  std::string host;  // as sent, without brackets for IPv6
  std::uint16_t port = 0;
  bool bracketed = false;
  // "host:port" with brackets restored for IPv6; for logs and Host headers.
  std::string to_string() const;
};

struct AbsoluteTarget {
  Authority authority;      // port 80 when absent
  bool port_given = false;
  std::string path_and_query;  // origin-form to send upstream, "/" at least
  std::string path() const;    // without "?query", for logs
};

// Authority with a required port (CONNECT targets).
std::optional<Authority> parse_authority(std::string_view text);
// Authority with an optional port (Host header values); `default_port` when absent.
std::optional<Authority> parse_host_header(std::string_view text, std::uint16_t default_port);
std::optional<AbsoluteTarget> parse_absolute_target(std::string_view text);

// Same host (ASCII case-insensitive) and port.
bool same_authority(const Authority& a, const Authority& b);

}  // namespace halo::broker::proto
