// QueryHandler::begin: parse, decide, answer locally or prepare the upstream query.
#include "dns/query_handler.h"

#include <algorithm>

#include "policy/host.h"

namespace halo::dns {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint16_t kEdeBlocked = 15;  // RFC 8914: blocked by the operator's policy

void deny(DnsAuditEvent& audit, std::string rule, std::string reason) {
  audit.verdict = policy::Verdict::deny;
  audit.rule = std::move(rule);
  audit.reason = std::move(reason);
}

std::vector<std::uint8_t> address_rdata(const policy::IpAddress& a) {
  const std::size_t n = a.family == policy::IpAddress::Family::v4 ? 4 : 16;
  return {a.bytes.begin(), a.bytes.begin() + static_cast<std::ptrdiff_t>(n)};
}

}  // namespace

QueryHandler::QueryHandler(std::shared_ptr<const policy::Policy> policy,
                           std::shared_ptr<SessionAddressPool> pool, AnswerMode mode,
                           FilterLimits limits)
    : policy_(std::move(policy)),
      pool_(pool ? std::move(pool)
                 : std::make_shared<SessionAddressPool>(limits.max_session_names)),
      mode_(mode),
      limits_(limits) {}

std::size_t QueryHandler::reply_limit(const ParsedQuery& q, Protocol protocol) const {
  if (protocol == Protocol::tcp) return limits_.max_response;
  if (!q.edns) return limits_.plain_udp_payload;
  return std::clamp<std::size_t>(q.edns->udp_payload, limits_.min_udp_payload,
                                 limits_.max_udp_payload);
}

std::vector<std::uint8_t> QueryHandler::answer(const ParsedQuery& q, Rcode rcode,
                                               std::vector<Record> answers, std::size_t limit,
                                               bool blocked) const {
  ResponseSpec spec;
  spec.query_header = q.header;
  spec.question = q.question;
  spec.rcode = rcode;
  spec.answers = std::move(answers);
  spec.client_edns = q.edns;
  spec.our_udp_payload = limits_.max_udp_payload;
  if (blocked) spec.extended_error = kEdeBlocked;
  return build_response(spec, limit);
}

Step QueryHandler::begin(std::span<const std::uint8_t> msg, Protocol protocol,
                         DnsAuditEvent& audit) const {
  Step step;
  audit.protocol = protocol == Protocol::udp ? "udp" : "tcp";
  audit.rcode = "-";
  // 1. Parse.
  QueryParse parsed = parse_query(msg);
  if (!parsed.query) {
    deny(audit, std::string("dns: malformed query: ") + to_string(parsed.error), "dns_malformed");
    if (!parsed.header || parsed.error == ParseError::is_response) {
      audit.answer = "dropped";
      return step;  // nothing to answer, or a reflected answer: never reply
    }
    ResponseSpec spec;
    spec.query_header = *parsed.header;
    spec.rcode = parsed.error == ParseError::bad_opcode ? Rcode::notimp : Rcode::formerr;
    step.kind = Step::Kind::reply;
    step.reply = build_response(spec, limits_.plain_udp_payload);
    audit.rcode = to_string(spec.rcode);
    return step;
  }
  const ParsedQuery& q = *parsed.query;
  const std::size_t limit = reply_limit(q, protocol);
  audit.name = q.question.name;
  audit.qtype = type_name(q.question.qtype);
  step.kind = Step::Kind::reply;
  auto reply = [&](Rcode rcode, std::vector<Record> answers = {}, bool blocked = false) {
    step.reply = answer(q, rcode, std::move(answers), limit, blocked);
    audit.rcode = to_string(rcode);
    return std::move(step);
  };
  if (q.edns && q.edns->version != 0) {
    deny(audit, "dns: EDNS version " + std::to_string(q.edns->version) + " not supported",
         "dns_malformed");
    return reply(Rcode::badvers);
  }
  if (q.question.qclass != kClassIn) {
    deny(audit, "dns: only class IN is answered", "dns_refused");
    return reply(Rcode::refused);
  }
  // 2. PTR: session addresses only.
  if (q.question.qtype == rrtype::PTR) {
    const auto address = parse_reverse_name(q.question.name);
    const auto name = address ? pool_->lookup(*address) : std::nullopt;
    if (!name) {
      deny(audit, "dns: PTR is answered for session addresses only", "dns_ptr");
      return reply(Rcode::refused);
    }
    audit.verdict = policy::Verdict::allow;
    audit.rule = "dns: session address of " + *name;
    audit.reason = "dns_ptr";
    audit.answer = *name;
    Record rec{q.question.wire_name, rrtype::PTR, kClassIn, limits_.synthetic_ttl_seconds,
               rdata_name(text_to_wire(*name).value_or(std::string(1, '\0'))), *name};
    return reply(Rcode::noerror, {std::move(rec)});
  }
  // 3. The one decision.
  const auto t0 = Clock::now();
  const policy::HostResult host = policy::normalize_host(q.question.name);
  const policy::EgressRules& rules = policy_->egress_rules();
  const policy::Decision decision =
      host ? rules.decide(*host.host, std::nullopt) : rules.decide(q.question.name, std::nullopt);
  audit.decide_time = Clock::now() - t0;
  if (host) audit.name = host.host->text;
  audit.verdict = decision.verdict;
  audit.rule = decision.rule();
  audit.reason = policy::to_string(decision.reason);
  if (!decision.allowed()) return reply(Rcode::nxdomain, {}, true);
  if (host.host->kind == policy::NormalizedHost::Kind::ip) {
    deny(audit, "dns: an IP literal is not a name", "dns_ip_literal");
    return reply(Rcode::nxdomain);
  }
  // 4. Allowed.
  const std::uint16_t qtype = q.question.qtype;
  if (qtype == rrtype::HTTPS || qtype == rrtype::SVCB || qtype == rrtype::ANY) {
    audit.answer = "empty";
    return reply(Rcode::noerror);
  }
  if (qtype == rrtype::OPT || qtype == 251 || qtype == 252) {  // OPT, IXFR, AXFR
    deny(audit, "dns: " + type_name(qtype) + " is not answered", "dns_refused");
    return reply(Rcode::refused);
  }
  const bool address_type = qtype == rrtype::A || qtype == rrtype::AAAA;
  if (address_type && mode_ == AnswerMode::synthetic) {
    const auto assigned = pool_->assign(host.host->text);
    if (!assigned) {
      audit.answer = "session address pool full";
      return reply(Rcode::servfail);
    }
    const policy::IpAddress& a = qtype == rrtype::A ? assigned->v4 : assigned->v6;
    audit.answer = "synthetic " + a.to_string();
    return reply(Rcode::noerror, {Record{q.question.wire_name, qtype, kClassIn,
                                         limits_.synthetic_ttl_seconds, address_rdata(a), {}}});
  }
  step.kind = Step::Kind::forward;
  step.upstream_query =
      build_query(q.header.id, q.question.wire_name, qtype, kClassIn, limits_.max_udp_payload);
  step.pending = PendingQuery{q, decision, host.host->text, limit, address_type, Clock::now()};
  audit.forwarded = true;
  return step;
}

std::vector<std::uint8_t> QueryHandler::fail(const PendingQuery& p, Rcode rcode, const char* why,
                                              DnsAuditEvent& audit) const {
  audit.answer = why;
  audit.forwarded = false;
  audit.rcode = to_string(rcode);
  return answer(p.query, rcode, {}, p.reply_limit);
}

}  // namespace halo::dns
