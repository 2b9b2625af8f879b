#pragma once
// What `halo egress test` is asked about: a URL or HOST[:PORT], split into host and port.
//   "https://user:pw@api.example.com/x?q=1" -> host "api.example.com", port 443
//   "example.com:8443", "[2001:db8::1]:443", "::1" (bare IPv6, no port), "example.com"
// The userinfo, path, query and fragment are dropped and never printed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace halo::policy {

struct Target {
  std::string host;  // raw host text, brackets removed from IPv6 literals only after decide
  std::optional<std::uint16_t> port;
  std::string scheme;  // lower case, empty for HOST[:PORT]
};

struct TargetResult {
  std::optional<Target> target;
  std::string error;  // why the input is not a URL or HOST[:PORT]
};

TargetResult parse_target(std::string_view input);

// Port for a URL scheme: http 80, https 443, ws 80, wss 443, ftp 21, ssh 22, git 9418.
std::optional<std::uint16_t> default_port(std::string_view scheme);

}  // namespace halo::policy
