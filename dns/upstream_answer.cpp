// QueryHandler::finish: an upstream answer becomes the client's answer, after every name
// in it that a client could follow (CNAME/DNAME targets) was decided again.
#include <algorithm>

#include "dns/query_handler.h"
#include "policy/host.h"

namespace halo::dns {
namespace {

Rcode relayable(std::uint8_t upstream_rcode) {
  switch (upstream_rcode) {
    case 0: return Rcode::noerror;
    case 3: return Rcode::nxdomain;
    case 5: return Rcode::refused;
    default: return Rcode::servfail;
  }
}

std::optional<policy::IpAddress> address_of(const Record& rec) {
  policy::IpAddress a;
  if (rec.type == rrtype::A && rec.rdata.size() == 4) {
    a.family = policy::IpAddress::Family::v4;
  } else if (rec.type == rrtype::AAAA && rec.rdata.size() == 16) {
    a.family = policy::IpAddress::Family::v6;
  } else {
    return std::nullopt;
  }
  std::copy(rec.rdata.begin(), rec.rdata.end(), a.bytes.begin());
  return a;
}

// EgressRules::vet on the CNAME names alone: which name in the chain refuses it, if any.
// (With no addresses, everything vet rejects is a CNAME name.)
std::optional<policy::Decision> chain_refusal(const policy::EgressRules& rules,
                                              const policy::Decision& name_decision,
                                              const std::vector<std::string>& cnames) {
  if (cnames.empty()) return std::nullopt;
  const policy::VettedResolution v = rules.vet(name_decision, policy::Resolution{cnames, {}});
  if (v.rejected.empty()) return std::nullopt;
  return v.rejected.front();
}

std::vector<std::string> cname_targets(const std::vector<Record>& answers) {
  std::vector<std::string> out;
  for (const Record& rec : answers) {
    if (rec.type == rrtype::CNAME || rec.type == rrtype::DNAME) out.push_back(rec.target);
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> QueryHandler::finish(const PendingQuery& p, std::error_code ec,
                                               std::span<const std::uint8_t> upstream,
                                               DnsAuditEvent& audit) const {
  if (ec) {
    auto out = fail(p, Rcode::servfail, "upstream failed", audit);
    audit.forwarded = true;
    return out;
  }
  const ResponseParse parsed = parse_response(upstream);
  const Question& asked = p.query.question;
  if (!parsed.response || !parsed.response->question ||
      parsed.response->question->qtype != asked.qtype ||
      !wire_names_equal(parsed.response->question->wire_name, asked.wire_name)) {
    audit.answer = "upstream answer malformed or for another question";
    audit.rcode = to_string(Rcode::servfail);
    return answer(p.query, Rcode::servfail, {}, p.reply_limit);
  }
  return p.vet_addresses ? finish_real(p, *parsed.response, audit)
                         : finish_relay(p, *parsed.response, audit);
}

std::vector<std::uint8_t> QueryHandler::finish_real(const PendingQuery& p,
                                                    const ParsedResponse& r,
                                                    DnsAuditEvent& audit) const {
  const Rcode rcode = relayable(r.header.rcode());
  if (rcode != Rcode::noerror) {
    audit.answer = "upstream";
    audit.rcode = to_string(rcode);
    return answer(p.query, rcode, {}, p.reply_limit);
  }
  const std::vector<std::string> cnames = cname_targets(r.answers);
  std::vector<policy::IpAddress> addresses;
  std::uint32_t ttl = limits_.max_relayed_ttl_seconds;
  for (const Record& rec : r.answers) {
    if (rec.type != p.query.question.qtype) continue;
    if (auto a = address_of(rec)) {
      addresses.push_back(*a);
      ttl = std::min(ttl, rec.ttl);
    }
  }
  // DNS carries no port; addresses are vetted as for FilterLimits::real_mode_vet_port.
  policy::Decision name_decision = p.decision;
  name_decision.port = limits_.real_mode_vet_port;
  const policy::EgressRules& rules = policy_->egress_rules();
  policy::Decision verdict = p.decision;
  std::vector<policy::IpAddress> dialable;
  if (!addresses.empty()) {
    const policy::VettedResolution vetted =
        rules.vet(name_decision, policy::Resolution{cnames, addresses});
    verdict = vetted.decision;
    dialable = vetted.dialable;
  } else if (auto refused = chain_refusal(rules, name_decision, cnames)) {
    verdict = *refused;  // NODATA: the chain still has to be allowed
  }
  audit.verdict = verdict.verdict;
  audit.rule = verdict.rule();
  audit.reason = policy::to_string(verdict.reason);
  if (!verdict.allowed()) {
    audit.rcode = to_string(Rcode::nxdomain);
    return answer(p.query, Rcode::nxdomain, {}, p.reply_limit, true);
  }
  std::vector<Record> out;
  std::string shown;
  for (const policy::IpAddress& a : dialable) {
    const std::size_t n = a.family == policy::IpAddress::Family::v4 ? 4 : 16;
    out.push_back(Record{p.query.question.wire_name, p.query.question.qtype, kClassIn, ttl,
                         {a.bytes.begin(), a.bytes.begin() + static_cast<std::ptrdiff_t>(n)},
                         {}});
    if (shown.size() < 200) shown += (shown.empty() ? "" : ",") + a.to_string();
  }
  audit.answer = "real " + shown;
  audit.rcode = to_string(Rcode::noerror);
  return answer(p.query, Rcode::noerror, std::move(out), p.reply_limit);
}

std::vector<std::uint8_t> QueryHandler::finish_relay(const PendingQuery& p,
                                                     const ParsedResponse& r,
                                                     DnsAuditEvent& audit) const {
  if (auto refused = chain_refusal(policy_->egress_rules(), p.decision, cname_targets(r.answers))) {
    audit.verdict = policy::Verdict::deny;
    audit.rule = refused->rule();
    audit.reason = policy::to_string(refused->reason);
    audit.rcode = to_string(Rcode::nxdomain);
    return answer(p.query, Rcode::nxdomain, {}, p.reply_limit, true);
  }
  ResponseSpec spec;
  spec.query_header = p.query.header;
  spec.question = p.query.question;
  spec.rcode = relayable(r.header.rcode());
  spec.client_edns = p.query.edns;
  spec.our_udp_payload = limits_.max_udp_payload;
  const std::uint16_t qtype = p.query.question.qtype;
  for (const Record& rec : r.answers) {
    const bool keep = rec.type == rrtype::CNAME || rec.type == rrtype::DNAME ||
                      (rec.type == qtype && rec.type != rrtype::A && rec.type != rrtype::AAAA);
    if (!keep) continue;
    Record copy = rec;
    copy.ttl = std::min(copy.ttl, limits_.max_relayed_ttl_seconds);
    spec.answers.push_back(std::move(copy));
  }
  for (const Record& rec : r.authority) {
    if (rec.type != rrtype::SOA) continue;
    Record copy = rec;
    copy.ttl = std::min(copy.ttl, limits_.max_relayed_ttl_seconds);
    spec.authority.push_back(std::move(copy));
  }
  audit.answer = "forwarded " + std::to_string(spec.answers.size()) + " records";
  audit.rcode = to_string(spec.rcode);
  return build_response(spec, p.reply_limit);
}

}  // namespace halo::dns
