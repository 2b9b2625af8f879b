#include <charconv>

#include "dns/dns_filter.h"

namespace halo::dns {

std::optional<HostPort> parse_addr_port(const std::string& text) {
  std::string_view s = text;
  HostPort out;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return std::nullopt;
    out.address = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string_view::npos || s.find(':') != colon) return std::nullopt;
    out.address = std::string(s.substr(0, colon));
    port = s.substr(colon + 1);
  }
  unsigned value = 0;
  const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (out.address.empty() || port.empty() || ec != std::errc() ||
      p != port.data() + port.size() || value > 65535)
    return std::nullopt;
  out.port = static_cast<std::uint16_t>(value);
  return out;
}

}  // namespace halo::dns
