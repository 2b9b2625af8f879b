// dns/message.h: parsing hostile queries, building answers, names. Table tests with named
// rows; the wire bytes are written out by hand so the parser is not tested against itself.
#include "dns/message.h"

#include <gtest/gtest.h>

#include "dns_test_util.h"

namespace halo::dns {
namespace {

using test::Bytes;

// Header for a query: id 0xabcd, flags, counts.
Bytes header(std::uint16_t flags, std::uint16_t qd, std::uint16_t an = 0, std::uint16_t ns = 0,
             std::uint16_t ar = 0) {
  return {0xab, 0xcd, static_cast<std::uint8_t>(flags >> 8), static_cast<std::uint8_t>(flags),
          0, static_cast<std::uint8_t>(qd), 0, static_cast<std::uint8_t>(an),
          0, static_cast<std::uint8_t>(ns), 0, static_cast<std::uint8_t>(ar)};
}

Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const Bytes kQName = {3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0};
const Bytes kTypeA = {0, 1, 0, 1};
const Bytes kOpt1232 = {0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0};

struct QueryRow {
  const char* name;
  Bytes msg;
  ParseError error;
};

TEST(ParseQuery, RejectsHostileInputByName) {
  const std::vector<QueryRow> rows = {
      {"plain A query", cat(cat(header(0x0100, 1), kQName), kTypeA), ParseError::none},
      {"with OPT", cat(cat(cat(header(0x0100, 1, 0, 0, 1), kQName), kTypeA), kOpt1232),
       ParseError::none},
      {"empty", {}, ParseError::short_header},
      {"eleven octets", Bytes(11, 0), ParseError::short_header},
      {"response as query", cat(cat(header(0x8100, 1), kQName), kTypeA), ParseError::is_response},
      {"opcode NOTIFY", cat(cat(header(0x2000, 1), kQName), kTypeA), ParseError::bad_opcode},
      {"qdcount 0", header(0x0100, 0), ParseError::bad_qdcount},
      {"qdcount 2", cat(cat(cat(cat(header(0x0100, 2), kQName), kTypeA), kQName), kTypeA),
       ParseError::bad_qdcount},
      {"answer in query", cat(cat(header(0x0100, 1, 1), kQName), kTypeA),
       ParseError::unexpected_records},
      {"name cut short", cat(header(0x0100, 1), {3, 'w', 'w'}), ParseError::truncated},
      {"no root label", cat(header(0x0100, 1), {3, 'w', 'w', 'w'}), ParseError::truncated},
      {"type cut short", cat(cat(header(0x0100, 1), kQName), {0, 1, 0}), ParseError::truncated},
      {"label type 0x40", cat(cat(header(0x0100, 1), {0x41, 'a', 0}), kTypeA),
       ParseError::bad_label},
      {"label type 0x80", cat(cat(header(0x0100, 1), {0x81, 'a', 0}), kTypeA),
       ParseError::bad_label},
      {"pointer to itself", cat(cat(header(0x0100, 1), {0xC0, 12}), kTypeA),
       ParseError::compression_loop},
      {"pointer forwards", cat(cat(header(0x0100, 1), {0xC0, 14, 0}), kTypeA),
       ParseError::compression_loop},
      {"pointer into own labels", cat(cat(header(0x0100, 1), {1, 'a', 0xC0, 12}), kTypeA),
       ParseError::compression_loop},
      {"pointer cut short", cat(header(0x0100, 1), {0xC0}), ParseError::truncated},
      {"name over 255 octets",
       [] {
         Bytes b = header(0x0100, 1);
         for (int i = 0; i < 5; ++i) {
           b.push_back(63);
           b.insert(b.end(), 63, 'a');
         }
         b.push_back(0);
         return cat(b, kTypeA);
       }(),
       ParseError::name_too_long},
      {"two OPT records",
       cat(cat(cat(cat(header(0x0100, 1, 0, 0, 2), kQName), kTypeA), kOpt1232), kOpt1232),
       ParseError::bad_edns},
      {"OPT with a name",
       cat(cat(cat(header(0x0100, 1, 0, 0, 1), kQName), kTypeA),
           {1, 'x', 0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0}),
       ParseError::bad_edns},
      {"OPT rdata cut short",
       cat(cat(cat(header(0x0100, 1, 0, 0, 1), kQName), kTypeA), {0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 9}),
       ParseError::truncated},
      {"arcount claims a record", cat(cat(header(0x0100, 1, 0, 0, 1), kQName), kTypeA),
       ParseError::truncated},
      {"trailing garbage", cat(cat(cat(header(0x0100, 1), kQName), kTypeA), {0xff}),
       ParseError::trailing_data},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const QueryParse p = parse_query(row.msg);
    EXPECT_EQ(p.error, row.error) << to_string(p.error);
    EXPECT_EQ(p.query.has_value(), row.error == ParseError::none);
    EXPECT_EQ(p.header.has_value(), row.msg.size() >= kHeaderSize);
  }
}

TEST(ParseQuery, KeepsCaseAndReadsEdns) {
  const Bytes msg = cat(cat(cat(header(0x0100, 1, 0, 0, 1),
                                {3, 'W', 'w', 'W', 7, 'E', 'x', 'a', 'm', 'p', 'l', 'e', 0}),
                            {0, 28, 0, 1}),
                        {0, 0, 41, 0x10, 0x00, 0, 1, 0x80, 0, 0, 0});
  const QueryParse p = parse_query(msg);
  ASSERT_TRUE(p.query);
  EXPECT_EQ(p.query->header.id, 0xabcd);
  EXPECT_EQ(p.query->question.name, "WwW.Example");
  EXPECT_EQ(p.query->question.qtype, rrtype::AAAA);
  ASSERT_TRUE(p.query->edns);
  EXPECT_EQ(p.query->edns->udp_payload, 4096);
  EXPECT_EQ(p.query->edns->version, 1);
  EXPECT_TRUE(p.query->edns->dnssec_ok);
}

struct TextRow {
  const char* name;
  Bytes wire;
  std::string text;
};

TEST(WireToText, EscapesEverythingThatCouldHideALabelBoundary) {
  const std::vector<TextRow> rows = {
      {"root", {0}, ""},
      {"plain", {1, 'a', 2, 'b', 'c', 0}, "a.bc"},
      {"dot inside a label", {3, 'a', '.', 'b', 3, 'c', 'o', 'm', 0}, "a\\.b.com"},
      {"backslash", {1, '\\', 0}, "\\\\"},
      {"nul and high bytes", {2, 0, 0xff, 0}, "\\000\\255"},
      {"space", {3, 'a', ' ', 'b', 0}, "a\\032b"},
      {"underscore kept", {4, '_', 's', 'r', 'v', 0}, "_srv"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(wire_to_text({reinterpret_cast<const char*>(row.wire.data()), row.wire.size()}),
              row.text);
  }
}

TEST(TextToWire, RejectsBadNames) {
  EXPECT_EQ(text_to_wire("a.bc"), std::string("\1a\2bc\0", 6));
  EXPECT_EQ(text_to_wire("a.bc."), std::string("\1a\2bc\0", 6));
  EXPECT_EQ(text_to_wire(""), std::string(1, '\0'));
  EXPECT_FALSE(text_to_wire("a..b"));
  EXPECT_FALSE(text_to_wire(std::string(64, 'a') + ".com"));
  std::string long_name;
  for (int i = 0; i < 5; ++i) long_name += std::string(60, 'a') + ".";
  EXPECT_FALSE(text_to_wire(long_name + "com"));
}

TEST(BuildResponse, EchoesQuestionCompressesOwnerAndAddsOpt) {
  const auto q = parse_query(test::query("WWW.allowed.test", rrtype::A, 7, 1232));
  ASSERT_TRUE(q.query);
  ResponseSpec spec;
  spec.query_header = q.query->header;
  spec.question = q.query->question;
  spec.client_edns = q.query->edns;
  spec.extended_error = 15;
  spec.answers.push_back(Record{q.query->question.wire_name, rrtype::A, kClassIn, 30,
                                {198, 18, 0, 1}, {}});
  const Bytes out = build_response(spec, 512);
  const ParsedResponse r = test::answer_of(out);
  EXPECT_EQ(r.header.id, 7);
  EXPECT_TRUE(r.header.qr());
  EXPECT_TRUE(r.header.rd());
  EXPECT_FALSE(r.header.tc());
  ASSERT_TRUE(r.question);
  EXPECT_EQ(r.question->name, "WWW.allowed.test");
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.answers[0].rdata, (std::vector<std::uint8_t>{198, 18, 0, 1}));
  ASSERT_TRUE(r.edns);
  EXPECT_EQ(r.edns->udp_payload, 1232);
  // header 12 + question 22 + answer (pointer 2 + 10 + 4) + OPT 11 + EDE 6
  EXPECT_EQ(out.size(), 12u + 22 + 16 + 11 + 6);
}

TEST(BuildResponse, SetsTcAndDropsRecordsWhenOverTheLimit) {
  const auto q = parse_query(test::query("allowed.test", rrtype::TXT));
  ASSERT_TRUE(q.query);
  ResponseSpec spec;
  spec.query_header = q.query->header;
  spec.question = q.query->question;
  for (int i = 0; i < 10; ++i) {
    Record txt{q.query->question.wire_name, rrtype::TXT, kClassIn, 60, {}, {}};
    txt.rdata.push_back(100);
    txt.rdata.insert(txt.rdata.end(), 100, 'x');
    spec.answers.push_back(std::move(txt));
  }
  const ParsedResponse small = test::answer_of(build_response(spec, 512));
  EXPECT_TRUE(small.header.tc());
  EXPECT_TRUE(small.answers.empty());
  const ParsedResponse big = test::answer_of(build_response(spec, 65535));
  EXPECT_FALSE(big.header.tc());
  EXPECT_EQ(big.answers.size(), 10u);
}

TEST(BuildResponse, BadversNeedsTheOptUpperBits) {
  const auto q = parse_query(test::query("allowed.test", rrtype::A, 1, 1232));
  ASSERT_TRUE(q.query);
  ResponseSpec spec;
  spec.query_header = q.query->header;
  spec.question = q.query->question;
  spec.client_edns = q.query->edns;
  spec.rcode = Rcode::badvers;
  const Bytes out = build_response(spec, 512);
  EXPECT_EQ(out[3] & 0xF, 0);  // header rcode: low 4 bits of 16
  EXPECT_EQ(out[out.size() - 11 + 5], 1);  // OPT TTL's first octet: extended rcode 1
}

TEST(ParseResponse, DecompressesNamesInRdata) {
  // www.example -> CNAME web.example (compressed to "web" + pointer to "example").
  Bytes msg = {0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0};
  msg = cat(msg, kQName);                  // offset 12: www(4) example(8) 0
  msg = cat(msg, {0, 5, 0, 1});            // CNAME IN
  msg = cat(msg, {0xC0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 6, 3, 'w', 'e', 'b', 0xC0, 16});
  const ParsedResponse r = test::answer_of(msg);
  ASSERT_EQ(r.answers.size(), 1u);
  EXPECT_EQ(r.answers[0].target, "web.example");
  EXPECT_EQ(r.answers[0].rdata.size(), 13u);  // uncompressed
}

TEST(ParseResponse, RejectsRdataOverrunningItsLength) {
  Bytes msg = {0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0};
  msg = cat(cat(msg, kQName), {0, 5, 0, 1});
  msg = cat(msg, {0xC0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 3, 'w', 'e', 'b', 0});
  EXPECT_FALSE(parse_response(msg).response);
}

TEST(TypeName, MnemonicsAndRfc3597) {
  EXPECT_EQ(type_name(rrtype::HTTPS), "HTTPS");
  EXPECT_EQ(type_name(65280), "TYPE65280");
}

}  // namespace
}  // namespace halo::dns
