// The SOCKS5 handshake parsers on arbitrary bytes, run as the session runs them
// (greeting, optional user/password, request). Invariants: no crash; `consumed` never
// exceeds the input; a message parsed from a prefix parses the same from the whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "broker/proto/socks5.h"

using namespace halo::broker::proto::socks5;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  auto g = parse_greeting(in);
  if (g.consumed > in.size()) std::abort();
  if (g.status != Status::ok) return 0;
  in = in.subspan(g.consumed);
  if (g.value.user_pass && !g.value.no_auth) {
    auto u = parse_user_pass(in);
    if (u.consumed > in.size()) std::abort();
    if (u.status != Status::ok) return 0;
    in = in.subspan(u.consumed);
  }
  auto r = parse_request(in);
  if (r.consumed > in.size()) std::abort();
  if (r.status == Status::ok) {
    auto again = parse_request(in.subspan(0, r.consumed));
    if (again.status != Status::ok || again.value.host != r.value.host ||
        again.value.port != r.value.port)
      std::abort();
    if (r.value.host.empty()) std::abort();
  }
  for (std::size_t cut = 0; cut < in.size() && cut < 24; ++cut) {
    auto p = parse_request(in.subspan(0, cut));
    if (p.status == Status::ok && p.consumed > cut) std::abort();
  }
  return 0;
}
