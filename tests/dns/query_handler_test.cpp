// dns/query_handler.h: every question is decided by EgressRules::decide; denied names
// never produce an upstream query. Rows assert the verdict, the rule and the answer.
#include "dns/query_handler.h"

#include <gtest/gtest.h>

#include "dns_test_util.h"

namespace halo::dns {
namespace {

using test::Bytes;

struct Fixture {
  explicit Fixture(AnswerMode mode = AnswerMode::synthetic, FilterLimits limits = {})
      : policy(test::policy_from(test::kTestPolicy)),
        pool(std::make_shared<SessionAddressPool>(limits.max_session_names)),
        handler(policy, pool, mode, limits) {}
  std::shared_ptr<const policy::Policy> policy;
  std::shared_ptr<SessionAddressPool> pool;
  QueryHandler handler;
};

struct Row {
  const char* name;
  std::string qname;
  std::uint16_t qtype;
  Step::Kind kind;
  Rcode rcode;  // for replies
  policy::Verdict verdict;
  std::string rule_contains;
  std::size_t answers = 0;
};

TEST(QueryHandler, DecidesEveryQuestionWithTheOneDecision) {
  using K = Step::Kind;
  using V = policy::Verdict;
  const std::vector<Row> rows = {
      {"allowed A synthesized", "allowed.test", rrtype::A, K::reply, Rcode::noerror, V::allow,
       "allowedDomains: allowed.test", 1},
      {"allowed AAAA synthesized", "allowed.test", rrtype::AAAA, K::reply, Rcode::noerror,
       V::allow, "allowedDomains", 1},
      {"mixed case, trailing dot", "ALLOWED.Test.", rrtype::A, K::reply, Rcode::noerror,
       V::allow, "allowedDomains", 1},
      {"wildcard subdomain", "a.b.wild.test", rrtype::A, K::reply, Rcode::noerror, V::allow,
       "*.wild.test", 1},
      {"wildcard never the apex", "wild.test", rrtype::A, K::reply, Rcode::nxdomain, V::deny,
       "default: deny", 0},
      {"denied wins over wildcard", "bad.wild.test", rrtype::A, K::reply, Rcode::nxdomain,
       V::deny, "deniedDomains: bad.wild.test", 0},
      {"unknown name default deny", "exfil-data.attacker.example", rrtype::TXT, K::reply,
       Rcode::nxdomain, V::deny, "default: deny", 0},
      {"underscore label is malformed", "_dmarc.allowed.test", rrtype::TXT, K::reply,
       Rcode::nxdomain, V::deny, "", 0},
      {"dot inside a label is malformed", "x\\.y.allowed.test", rrtype::A, K::reply,
       Rcode::nxdomain, V::deny, "", 0},
      {"root", "", rrtype::NS, K::reply, Rcode::nxdomain, V::deny, "", 0},
      {"IP literal as a name", "127.0.0.1", rrtype::A, K::reply, Rcode::nxdomain, V::deny, "",
       0},
      {"HTTPS empty", "allowed.test", rrtype::HTTPS, K::reply, Rcode::noerror, V::allow,
       "allowedDomains", 0},
      {"SVCB empty", "allowed.test", rrtype::SVCB, K::reply, Rcode::noerror, V::allow,
       "allowedDomains", 0},
      {"ANY empty", "allowed.test", rrtype::ANY, K::reply, Rcode::noerror, V::allow,
       "allowedDomains", 0},
      {"AXFR refused", "allowed.test", 252, K::reply, Rcode::refused, V::deny, "AXFR", 0},
      {"TXT forwarded", "allowed.test", rrtype::TXT, K::forward, Rcode::noerror, V::allow,
       "allowedDomains", 0},
      {"MX forwarded", "x.wild.test", rrtype::MX, K::forward, Rcode::noerror, V::allow,
       "*.wild.test", 0},
      {"PTR for an unknown address refused", "1.2.0.192.in-addr.arpa", rrtype::PTR, K::reply,
       Rcode::refused, V::deny, "session addresses only", 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    Fixture f;
    Bytes msg;
    if (row.qname.find('\\') != std::string::npos) {  // a label with a literal dot
      msg = build_query(9, std::string("\3x.y\7allowed\4test\0", 18), row.qtype, kClassIn, 0);
    } else {
      msg = test::query(row.qname, row.qtype, 9);
    }
    DnsAuditEvent audit;
    const Step step = f.handler.begin(msg, Protocol::udp, audit);
    ASSERT_EQ(step.kind, row.kind);
    EXPECT_EQ(audit.verdict, row.verdict);
    EXPECT_NE(audit.rule.find(row.rule_contains), std::string::npos) << audit.rule;
    EXPECT_EQ(audit.qtype, type_name(row.qtype));
    if (row.kind == Step::Kind::reply) {
      const ParsedResponse r = test::answer_of(step.reply);
      EXPECT_EQ(r.header.id, 9);
      EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(row.rcode));
      EXPECT_EQ(r.answers.size(), row.answers);
      EXPECT_EQ(audit.rcode, to_string(row.rcode));
      EXPECT_FALSE(audit.forwarded);
    } else {
      EXPECT_TRUE(audit.forwarded);
      const auto up = parse_query(step.upstream_query);
      ASSERT_TRUE(up.query);
      EXPECT_EQ(up.query->question.qtype, row.qtype);
    }
    if (row.verdict == policy::Verdict::deny) {
      EXPECT_TRUE(step.upstream_query.empty()) << "a denied name must never go upstream";
    }
  }
}

TEST(QueryHandler, SyntheticAnswersAreStableAndPtrMapsBack) {
  Fixture f;
  DnsAuditEvent audit;
  const auto a1 = test::answer_of(f.handler.begin(test::query("allowed.test", rrtype::A), Protocol::udp, audit).reply);
  const auto a2 = test::answer_of(f.handler.begin(test::query("Allowed.Test", rrtype::A), Protocol::tcp, audit).reply);
  ASSERT_EQ(a1.answers.size(), 1u);
  EXPECT_EQ(a1.answers[0].rdata, a2.answers[0].rdata);
  EXPECT_EQ(a1.answers[0].ttl, FilterLimits{}.synthetic_ttl_seconds);
  EXPECT_EQ(a1.answers[0].rdata, (std::vector<std::uint8_t>{198, 18, 0, 1}));
  const auto ptr = f.handler.begin(test::query("1.0.18.198.in-addr.arpa", rrtype::PTR), Protocol::udp, audit);
  const auto p = test::answer_of(ptr.reply);
  ASSERT_EQ(p.answers.size(), 1u);
  EXPECT_EQ(p.answers[0].target, "allowed.test");
  EXPECT_EQ(audit.verdict, policy::Verdict::allow);
}

TEST(QueryHandler, MalformedInputAnswersFormerrOrDrops) {
  Fixture f;
  DnsAuditEvent audit;
  Bytes response = test::query("allowed.test", rrtype::A);
  response[2] |= 0x80;  // QR
  EXPECT_EQ(f.handler.begin(response, Protocol::udp, audit).kind, Step::Kind::drop);
  EXPECT_EQ(f.handler.begin(Bytes(5, 0), Protocol::udp, audit).kind, Step::Kind::drop);
  Bytes cut = test::query("allowed.test", rrtype::A, 77);
  cut.resize(cut.size() - 3);
  const Step s = f.handler.begin(cut, Protocol::udp, audit);
  ASSERT_EQ(s.kind, Step::Kind::reply);
  const auto r = test::answer_of(s.reply);
  EXPECT_EQ(r.header.id, 77);
  EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(Rcode::formerr));
  EXPECT_EQ(audit.reason, "dns_malformed");
  Bytes notify = test::query("allowed.test", rrtype::SOA);
  notify[2] = 0x20;  // opcode NOTIFY
  EXPECT_EQ(test::answer_of(f.handler.begin(notify, Protocol::udp, audit).reply).header.rcode(),
            static_cast<std::uint8_t>(Rcode::notimp));
}

TEST(QueryHandler, PoolFullIsServfail) {
  FilterLimits limits;
  limits.max_session_names = 1;
  Fixture f(AnswerMode::synthetic, limits);
  DnsAuditEvent audit;
  f.handler.begin(test::query("allowed.test", rrtype::A), Protocol::udp, audit);
  const auto r = test::answer_of(f.handler.begin(test::query("x.wild.test", rrtype::A), Protocol::udp, audit).reply);
  EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(Rcode::servfail));
}

// An upstream answer for `q` with the given records.
Bytes upstream_answer(const Bytes& upstream_query, std::vector<Record> answers,
                      std::uint8_t rcode = 0) {
  const auto q = parse_query(upstream_query);
  EXPECT_TRUE(q.query);
  ResponseSpec spec;
  spec.query_header = q.query->header;
  spec.question = q.query->question;
  spec.rcode = static_cast<Rcode>(rcode);
  spec.answers = std::move(answers);
  return build_response(spec, 65535);
}

Record cname(const std::string& owner, const std::string& target) {
  const auto t = *text_to_wire(target);
  return Record{*text_to_wire(owner), rrtype::CNAME, kClassIn, 600, rdata_name(t), target};
}

Record txt(const std::string& owner, std::string text) {
  Record r{*text_to_wire(owner), rrtype::TXT, kClassIn, 9999, {}, {}};
  r.rdata.push_back(static_cast<std::uint8_t>(text.size()));
  r.rdata.insert(r.rdata.end(), text.begin(), text.end());
  return r;
}

Record a(const std::string& owner, std::array<std::uint8_t, 4> v) {
  return Record{*text_to_wire(owner), rrtype::A, kClassIn, 60, {v.begin(), v.end()}, {}};
}

TEST(QueryHandler, RelayDecidesEveryCnameTarget) {
  struct RelayRow {
    const char* name;
    std::vector<Record> answers;
    Rcode rcode;
    policy::Verdict verdict;
    std::size_t relayed;
  };
  const std::vector<RelayRow> rows = {
      {"plain TXT relayed, TTL capped", {txt("allowed.test", "v=1")}, Rcode::noerror,
       policy::Verdict::allow, 1},
      {"chain to an allowed name", {cname("allowed.test", "cname-ok.test"), txt("cname-ok.test", "x")},
       Rcode::noerror, policy::Verdict::allow, 2},
      {"chain into a denied name", {cname("allowed.test", "bad.wild.test"), txt("bad.wild.test", "x")},
       Rcode::nxdomain, policy::Verdict::deny, 0},
      {"chain through an unlisted name (a CDN) is followed, as vet does",
       {cname("allowed.test", "cdn.elsewhere.example"), txt("cdn.elsewhere.example", "x")},
       Rcode::noerror, policy::Verdict::allow, 2},
      {"chain through a denied name after an unlisted one",
       {cname("allowed.test", "cdn.elsewhere.example"), cname("cdn.elsewhere.example", "bad.wild.test"),
        txt("bad.wild.test", "x")},
       Rcode::nxdomain, policy::Verdict::deny, 0},
      {"chain into a malformed name",
       {cname("allowed.test", "a_b.example"), txt("a_b.example", "x")},
       Rcode::nxdomain, policy::Verdict::deny, 0},
      {"stray A records never relayed", {txt("allowed.test", "v=1"), a("allowed.test", {192, 0, 2, 1})},
       Rcode::noerror, policy::Verdict::allow, 1},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    Fixture f;
    DnsAuditEvent audit;
    Step step = f.handler.begin(test::query("allowed.test", rrtype::TXT), Protocol::udp, audit);
    ASSERT_EQ(step.kind, Step::Kind::forward);
    const Bytes up = upstream_answer(step.upstream_query, row.answers);
    const auto r = test::answer_of(f.handler.finish(step.pending, {}, up, audit));
    EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(row.rcode));
    EXPECT_EQ(r.answers.size(), row.relayed);
    EXPECT_EQ(audit.verdict, row.verdict);
    for (const auto& rec : r.answers) {
      EXPECT_LE(rec.ttl, FilterLimits{}.max_relayed_ttl_seconds);
      EXPECT_NE(rec.type, rrtype::A);
    }
  }
}

TEST(QueryHandler, UpstreamFailureAndMismatchAreServfail) {
  Fixture f;
  DnsAuditEvent audit;
  Step step = f.handler.begin(test::query("allowed.test", rrtype::TXT), Protocol::udp, audit);
  auto r = test::answer_of(f.handler.finish(step.pending, std::make_error_code(std::errc::timed_out), {}, audit));
  EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(Rcode::servfail));
  const Bytes other = upstream_answer(test::query("cname-ok.test", rrtype::TXT), {});
  r = test::answer_of(f.handler.finish(step.pending, {}, other, audit));
  EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(Rcode::servfail));
}

TEST(QueryHandler, RealModeVetsAddresses) {
  struct RealRow {
    const char* name;
    std::vector<Record> answers;
    Rcode rcode;
    std::size_t addresses;
  };
  const std::vector<RealRow> rows = {
      {"public address answered", {a("allowed.test", {192, 0, 2, 10})}, Rcode::noerror, 1},
      {"metadata address dropped", {a("allowed.test", {169, 254, 169, 254}), a("allowed.test", {192, 0, 2, 10})},
       Rcode::noerror, 1},
      {"only a private address", {a("allowed.test", {10, 1, 2, 3})}, Rcode::nxdomain, 0},
      {"chain into a denied name", {cname("allowed.test", "bad.wild.test"), a("bad.wild.test", {192, 0, 2, 1})},
       Rcode::nxdomain, 0},
      {"NODATA stays NODATA", {}, Rcode::noerror, 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    Fixture f(AnswerMode::real);
    DnsAuditEvent audit;
    Step step = f.handler.begin(test::query("allowed.test", rrtype::A), Protocol::udp, audit);
    ASSERT_EQ(step.kind, Step::Kind::forward);
    const auto r = test::answer_of(
        f.handler.finish(step.pending, {}, upstream_answer(step.upstream_query, row.answers), audit));
    EXPECT_EQ(r.header.rcode(), static_cast<std::uint8_t>(row.rcode)) << audit.rule;
    EXPECT_EQ(r.answers.size(), row.addresses);
    for (const auto& rec : r.answers) EXPECT_EQ(rec.wire_name, *text_to_wire("allowed.test"));
  }
}

TEST(QueryHandler, UdpSizeFollowsEdnsWithinCaps) {
  Fixture f;
  DnsAuditEvent audit;
  Step step = f.handler.begin(test::query("allowed.test", rrtype::TXT, 1, 4096), Protocol::udp, audit);
  EXPECT_EQ(step.pending.reply_limit, FilterLimits{}.max_udp_payload);
  step = f.handler.begin(test::query("allowed.test", rrtype::TXT, 1, 100), Protocol::udp, audit);
  EXPECT_EQ(step.pending.reply_limit, 512u);
  step = f.handler.begin(test::query("allowed.test", rrtype::TXT), Protocol::tcp, audit);
  EXPECT_EQ(step.pending.reply_limit, 65535u);
}

}  // namespace
}  // namespace halo::dns
