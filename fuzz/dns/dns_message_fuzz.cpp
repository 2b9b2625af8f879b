// Hostile bytes as a client query and as an upstream answer: parse, rebuild, re-parse.
// Properties: no crash/UB/leak; whatever parses re-builds into a message that parses
// again with the same question; a built answer never exceeds its limit.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "dns/message.h"
#include "dns/session_pool.h"

using namespace halo::dns;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> msg(data, size);
  const QueryParse q = parse_query(msg);
  if (q.query) {
    ResponseSpec spec;
    spec.query_header = q.query->header;
    spec.question = q.query->question;
    spec.client_edns = q.query->edns;
    spec.extended_error = 15;
    spec.answers.push_back(Record{q.query->question.wire_name, rrtype::A, kClassIn, 30,
                                  {198, 18, 0, 1}, {}});
    const auto out = build_response(spec, 512);
    if (out.size() > 512) std::abort();
    const ResponseParse again = parse_response(out);
    if (!again.response || !again.response->question ||
        !wire_names_equal(again.response->question->wire_name, q.query->question.wire_name))
      std::abort();
    (void)parse_reverse_name(q.query->question.name);
    (void)text_to_wire(q.query->question.name);
  }
  const ResponseParse r = parse_response(msg);
  if (r.response && r.response->question) {
    ResponseSpec spec;
    spec.query_header = r.response->header;
    spec.question = r.response->question;
    spec.answers = r.response->answers;
    spec.authority = r.response->authority;
    const std::size_t limit = 1232;
    const auto out = build_response(spec, limit);
    if (out.size() > limit) std::abort();
    const ResponseParse again = parse_response(out);
    if (!again.response) std::abort();
  }
  return 0;
}
