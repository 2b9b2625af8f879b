// The whole query policy on hostile input: the first part of the input is a client query,
// the rest the upstream's answer to it. Properties: no crash/UB/leak; a question that is
// forwarded was allowed by the decision; every answer parses.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

#include "dns/query_handler.h"
#include "policy/loader.h"

using namespace halo::dns;

namespace {
std::shared_ptr<const halo::policy::Policy> fuzz_policy() {
  static const auto p = halo::policy::load_profile_text(
      "fuzz.yaml",
      "egress:\n  default: deny\n  allowedDomains: [a.test, \"*.w.test\"]\n"
      "  deniedDomains: [x.w.test]\n  loopback: [443]\n",
      halo::policy::PresetEnvironment{}).policy;
  if (!p) std::abort();
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const QueryHandler synthetic(fuzz_policy(), nullptr, AnswerMode::synthetic, {});
  static const QueryHandler real(fuzz_policy(), nullptr, AnswerMode::real, {});
  if (size < 2) return 0;
  const std::size_t split = std::min<std::size_t>(size - 2, (data[0] << 8) | data[1]);
  const std::span<const std::uint8_t> query(data + 2, split);
  const std::span<const std::uint8_t> upstream(data + 2 + split, size - 2 - split);
  for (const QueryHandler* h : {&synthetic, &real}) {
    for (Protocol proto : {Protocol::udp, Protocol::tcp}) {
      DnsAuditEvent audit;
      const Step step = h->begin(query, proto, audit);
      if (step.kind == Step::Kind::reply && !parse_response(step.reply).response) std::abort();
      if (step.kind != Step::Kind::forward) continue;
      if (audit.verdict != halo::policy::Verdict::allow) std::abort();
      const auto out = h->finish(step.pending, {}, upstream, audit);
      if (!parse_response(out).response) std::abort();
      if (proto == Protocol::udp && out.size() > FilterLimits{}.max_udp_payload) std::abort();
    }
  }
  return 0;
}
