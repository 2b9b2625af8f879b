#pragma once
// The DNS wire format (RFC 1035, EDNS0 per RFC 6891) as pure functions over bytes: no I/O,
// no clock, no allocation beyond the values returned. Safe on hostile input: every read
// is bounds-checked, compression pointers must point strictly backwards of every label
// already read for the name (so loops are impossible) and names stop at 255 octets.
// The DNS filter parses queries and upstream answers here and builds every answer here;
// a libFuzzer target (fuzz/dns/) runs these functions under ASan/UBSan.
//
// Names travel in two forms:
//   wire  "\x03www\x07Example\x03com\x00"  uncompressed, original case (echoed to clients,
//         which may use 0x20 case randomisation)
//   text  "www.Example.com"  presentation form without the trailing dot; bytes outside
//         [A-Za-z0-9_-] are escaped as "\." or "\DDD", so text never hides a label
//         boundary and such names are judged malformed by policy::normalize_host.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace halo::dns {

namespace rrtype {
inline constexpr std::uint16_t A = 1, NS = 2, CNAME = 5, SOA = 6, PTR = 12, MX = 15, TXT = 16,
                               AAAA = 28, SRV = 33, DNAME = 39, OPT = 41, SVCB = 64,
                               HTTPS = 65, ANY = 255, CAA = 257;
}
inline constexpr std::uint16_t kClassIn = 1;

enum class Rcode : std::uint16_t {
  noerror = 0, formerr = 1, servfail = 2, nxdomain = 3, notimp = 4, refused = 5,
  badvers = 16,  // extended (EDNS0): needs an OPT record to carry its upper bits
};
const char* to_string(Rcode r);  // "NOERROR", "FORMERR", ...

// "A", "AAAA", "HTTPS", ... or "TYPE12345" (RFC 3597) for types without a mnemonic.
std::string type_name(std::uint16_t type);

struct Header {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;
  std::uint16_t qdcount = 0, ancount = 0, nscount = 0, arcount = 0;

  bool qr() const { return flags & 0x8000; }
  std::uint8_t opcode() const { return (flags >> 11) & 0xF; }
  bool tc() const { return flags & 0x0200; }
  bool rd() const { return flags & 0x0100; }
  std::uint8_t rcode() const { return flags & 0xF; }
};

struct Question {
  std::string wire_name;  // uncompressed, original case, with the root label
  std::string name;       // text form (see above); "" for the root
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
};

struct Edns {
  std::uint16_t udp_payload = 512;  // the requester's UDP payload size
  std::uint8_t version = 0;
  bool dnssec_ok = false;
};

enum class ParseError : std::uint8_t {
  none,
  short_header,        // fewer than 12 octets: not answerable, drop
  is_response,         // QR set: never answered (no reflection loops), drop
  bad_opcode,          // not QUERY: NOTIMP
  bad_qdcount,         // qdcount != 1: FORMERR
  unexpected_records,  // answer or authority records in a query: FORMERR
  truncated,           // the message ends inside a field: FORMERR
  bad_label,           // 0x40/0x80 label types: FORMERR
  compression_loop,    // a pointer that does not point strictly backwards: FORMERR
  name_too_long,       // more than 255 octets: FORMERR
  bad_edns,            // two OPT records, or OPT with a non-root owner: FORMERR
  trailing_data,       // octets after the last record: FORMERR
  too_many_records,    // a section over kMaxRecordsPerSection: FORMERR
};
const char* to_string(ParseError e);  // stable text, e.g. "compression loop"

inline constexpr std::size_t kHeaderSize = 12;
inline constexpr std::size_t kMaxNameWire = 255;
inline constexpr std::size_t kMaxRecordsPerSection = 512;

struct ParsedQuery {
  Header header;
  Question question;
  std::optional<Edns> edns;
};

struct QueryParse {
  std::optional<ParsedQuery> query;  // set when error == none
  ParseError error = ParseError::none;
  std::optional<Header> header;  // set whenever 12 octets were there (answer with its id)
};

// A query from a client. Exactly one question, no answer/authority records, at most one
// OPT in the additional section (other additional records are skipped).
QueryParse parse_query(std::span<const std::uint8_t> msg);

// One resource record; names in RDATA of CNAME, DNAME, NS, PTR, MX, SRV and SOA are
// decompressed so the record can be written into another message as is.
struct Record {
  std::string wire_name;
  std::uint16_t type = 0;
  std::uint16_t rclass = kClassIn;
  std::uint32_t ttl = 0;
  std::vector<std::uint8_t> rdata;
  std::string target;  // text of the name a CNAME/DNAME/NS/PTR/MX/SRV points to, else ""
};

struct ParsedResponse {
  Header header;
  std::optional<Question> question;
  std::vector<Record> answers;
  std::vector<Record> authority;
  std::optional<Edns> edns;
};

struct ResponseParse {
  std::optional<ParsedResponse> response;
  ParseError error = ParseError::none;
};

// An upstream answer. Additional records other than OPT are dropped (glue never reaches
// a client). qdcount must be 0 or 1.
ResponseParse parse_response(std::span<const std::uint8_t> msg);

// Names.
std::string wire_to_text(std::string_view wire);  // "" for the root
// "www.example.com" -> wire; nullopt for empty labels, labels over 63 or names over 255.
// Text escapes are not interpreted (callers pass canonical names).
std::optional<std::string> text_to_wire(std::string_view text);
bool wire_names_equal(std::string_view a, std::string_view b);  // ASCII case-insensitive

// What an answer holds; the builder writes header, question, answers, authority, then an
// OPT record when the query had one.
struct ResponseSpec {
  Header query_header;               // id, opcode and RD are echoed
  std::optional<Question> question;  // echoed when known
  Rcode rcode = Rcode::noerror;
  std::vector<Record> answers;
  std::vector<Record> authority;
  bool authoritative = false;
  std::optional<Edns> client_edns;       // the query's OPT; when set, an OPT is added
  std::uint16_t our_udp_payload = 1232;  // advertised in our OPT
  std::optional<std::uint16_t> extended_error;  // RFC 8914 EDE info code, e.g. 17 Filtered
};

// Builds the answer. When it would exceed `limit` octets the answer and authority
// sections are left out and TC is set (RFC 1035 4.2.1 / RFC 2181 9), so the client
// retries over TCP. The owner name equal to the question is compressed to a pointer.
std::vector<std::uint8_t> build_response(const ResponseSpec& spec, std::size_t limit);

// A query for an upstream server: one question, RD set, an OPT advertising
// `udp_payload` when non-zero.
std::vector<std::uint8_t> build_query(std::uint16_t id, std::string_view wire_name,
                                      std::uint16_t qtype, std::uint16_t qclass,
                                      std::uint16_t udp_payload);

// RDATA helpers.
std::vector<std::uint8_t> rdata_name(std::string_view wire_name);  // PTR/CNAME RDATA

}  // namespace halo::dns
