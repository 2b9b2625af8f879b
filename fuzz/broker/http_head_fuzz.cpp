// Request and response heads, targets, the forward rewrite and chunked framing on
// arbitrary bytes. Invariants: no crash; a rewritten head parses again; a chunked body
// fed whole and fed in two pieces ends at the same place.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "broker/proto/chunked.h"
#include "broker/proto/http_head.h"
#include "broker/proto/http_rewrite.h"
#include "broker/proto/http_target.h"

using namespace halo::broker::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto end = find_head_end(in)) {
    std::string_view head = in.substr(0, *end);
    if (auto req = parse_request_head(head, 100)) {
      parse_authority(req.value->target);
      if (auto t = parse_absolute_target(req.value->target)) {
        std::string out = upstream_request_head(*req.value, *t);
        if (!parse_request_head(out, 200)) std::abort();
      }
    }
    Framing f;
    if (auto resp = parse_response_head(head, 100, "GET", f)) {
      std::string out = client_response_head(*resp.value, true);
      Framing g;
      if (!parse_response_head(out, 200, "GET", g)) std::abort();
    }
    in.remove_prefix(*end);
  }
  ChunkedScanner whole;
  auto a = whole.feed(in);
  ChunkedScanner split;
  std::size_t cut = in.size() / 2;
  auto b1 = split.feed(in.substr(0, cut));
  std::size_t consumed = b1.consumed;
  bool done = b1.done;
  const char* err = b1.error;
  if (!done && !err && b1.consumed == cut) {
    auto b2 = split.feed(in.substr(cut));
    consumed += b2.consumed;
    done = b2.done;
    err = b2.error;
  }
  if (a.done != done || (a.error == nullptr) != (err == nullptr)) std::abort();
  if (a.done && a.consumed != consumed) std::abort();
  return 0;
}
