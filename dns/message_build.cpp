// Building half of dns/message.h, plus the name and mnemonic helpers.
#include <cstdio>

#include "dns/message.h"

namespace halo::dns {
namespace {

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) {
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
    out_.push_back(static_cast<std::uint8_t>(v));
  }
  void u32(std::uint32_t v) {
    u16(static_cast<std::uint16_t>(v >> 16));
    u16(static_cast<std::uint16_t>(v));
  }
  void raw(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }
  void raw(const std::vector<std::uint8_t>& b) { out_.insert(out_.end(), b.begin(), b.end()); }
  std::size_t size() const { return out_.size(); }
  void truncate(std::size_t n) { out_.resize(n); }
  void patch16(std::size_t at, std::uint16_t v) {
    out_[at] = static_cast<std::uint8_t>(v >> 8);
    out_[at + 1] = static_cast<std::uint8_t>(v);
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

constexpr std::size_t kQuestionOffset = kHeaderSize;

std::size_t opt_size(const ResponseSpec& spec) {
  if (!spec.client_edns) return 0;
  return 11 + (spec.extended_error ? 6 : 0);
}

void write_record(Writer& w, const Record& rec, const std::optional<Question>& q) {
  if (q && !q->wire_name.empty() && wire_names_equal(rec.wire_name, q->wire_name)) {
    w.u16(static_cast<std::uint16_t>(0xC000 | kQuestionOffset));
  } else {
    w.raw(rec.wire_name);
  }
  w.u16(rec.type);
  w.u16(rec.rclass);
  w.u32(rec.ttl);
  w.u16(static_cast<std::uint16_t>(rec.rdata.size()));
  w.raw(rec.rdata);
}

void write_opt(Writer& w, const ResponseSpec& spec) {
  const auto rcode = static_cast<std::uint16_t>(spec.rcode);
  w.u8(0);  // root owner
  w.u16(rrtype::OPT);
  w.u16(spec.our_udp_payload);
  w.u32(static_cast<std::uint32_t>((rcode >> 4) & 0xFF) << 24);  // ext rcode, version 0, DO 0
  if (spec.extended_error) {
    w.u16(6);   // RDLEN
    w.u16(15);  // option code: Extended DNS Error
    w.u16(2);
    w.u16(*spec.extended_error);
  } else {
    w.u16(0);
  }
}

}  // namespace

std::vector<std::uint8_t> build_response(const ResponseSpec& spec, std::size_t limit) {
  Writer w;
  const Header& qh = spec.query_header;
  std::uint16_t flags = 0x8000;                                 // QR
  flags |= static_cast<std::uint16_t>(qh.opcode() & 0xF) << 11;  // opcode echoed
  if (spec.authoritative) flags |= 0x0400;
  if (qh.rd()) flags |= 0x0100;
  flags |= 0x0080;  // RA: we answer recursive questions
  flags |= static_cast<std::uint16_t>(spec.rcode) & 0xF;
  w.u16(qh.id);
  w.u16(flags);
  w.u16(spec.question ? 1 : 0);
  w.u16(0);  // ancount, patched
  w.u16(0);  // nscount, patched
  w.u16(spec.client_edns ? 1 : 0);
  if (spec.question) {
    w.raw(spec.question->wire_name);
    w.u16(spec.question->qtype);
    w.u16(spec.question->qclass);
  }
  const std::size_t sections_start = w.size();
  const std::size_t reserve = opt_size(spec);
  bool truncated = false;
  std::uint16_t counts[2] = {0, 0};
  const std::vector<Record>* sections[2] = {&spec.answers, &spec.authority};
  for (int s = 0; s < 2 && !truncated; ++s) {
    for (const Record& rec : *sections[s]) {
      write_record(w, rec, spec.question);
      if (w.size() + reserve > limit) {
        truncated = true;
        break;
      }
      ++counts[s];
    }
  }
  if (truncated) {
    // RFC 2181 9: a truncated answer carries no partial RRsets; the client retries on TCP.
    w.truncate(sections_start);
    counts[0] = counts[1] = 0;
    w.patch16(2, flags | 0x0200);
  }
  w.patch16(6, counts[0]);
  w.patch16(8, counts[1]);
  if (spec.client_edns) write_opt(w, spec);
  return w.take();
}

std::vector<std::uint8_t> build_query(std::uint16_t id, std::string_view wire_name,
                                      std::uint16_t qtype, std::uint16_t qclass,
                                      std::uint16_t udp_payload) {
  Writer w;
  w.u16(id);
  w.u16(0x0100);  // RD
  w.u16(1);
  w.u16(0);
  w.u16(0);
  w.u16(udp_payload ? 1 : 0);
  w.raw(wire_name);
  w.u16(qtype);
  w.u16(qclass);
  if (udp_payload) {
    w.u8(0);
    w.u16(rrtype::OPT);
    w.u16(udp_payload);
    w.u32(0);
    w.u16(0);
  }
  return w.take();
}

std::vector<std::uint8_t> rdata_name(std::string_view wire_name) {
  return {wire_name.begin(), wire_name.end()};
}

std::string wire_to_text(std::string_view wire) {
  std::string out;
  std::size_t p = 0;
  while (p < wire.size()) {
    const auto len = static_cast<std::uint8_t>(wire[p]);
    if (len == 0 || p + 1 + len > wire.size()) break;
    if (!out.empty()) out.push_back('.');
    for (std::size_t i = p + 1; i <= p + len; ++i) {
      const auto c = static_cast<unsigned char>(wire[i]);
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (plain) {
        out.push_back(static_cast<char>(c));
      } else if (c == '.' || c == '\\') {
        out.push_back('\\');
        out.push_back(static_cast<char>(c));
      } else {
        char buf[5];
        std::snprintf(buf, sizeof buf, "\\%03u", c);
        out.append(buf);
      }
    }
    p += 1 + len;
  }
  return out;
}

std::optional<std::string> text_to_wire(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  std::string wire;
  while (!text.empty()) {
    const auto dot = text.find('.');
    const auto label = text.substr(0, dot);
    if (label.empty() || label.size() > 63) return std::nullopt;
    wire.push_back(static_cast<char>(label.size()));
    wire.append(label);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
    if (text.empty()) return std::nullopt;  // "a..": an empty last label
  }
  wire.push_back('\0');
  if (wire.size() > kMaxNameWire) return std::nullopt;
  return wire;
}

bool wire_names_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

const char* to_string(Rcode r) {
  switch (r) {
    case Rcode::noerror: return "NOERROR";
    case Rcode::formerr: return "FORMERR";
    case Rcode::servfail: return "SERVFAIL";
    case Rcode::nxdomain: return "NXDOMAIN";
    case Rcode::notimp: return "NOTIMP";
    case Rcode::refused: return "REFUSED";
    case Rcode::badvers: return "BADVERS";
  }
  return "RCODE?";
}

const char* to_string(ParseError e) {
  switch (e) {
    case ParseError::none: return "none";
    case ParseError::short_header: return "shorter than a header";
    case ParseError::is_response: return "a response sent as a query";
    case ParseError::bad_opcode: return "opcode is not QUERY";
    case ParseError::bad_qdcount: return "question count is not 1";
    case ParseError::unexpected_records: return "answer or authority records in a query";
    case ParseError::truncated: return "truncated";
    case ParseError::bad_label: return "bad label type";
    case ParseError::compression_loop: return "compression pointer does not point backwards";
    case ParseError::name_too_long: return "name longer than 255 octets";
    case ParseError::bad_edns: return "bad OPT record";
    case ParseError::trailing_data: return "data after the last record";
    case ParseError::too_many_records: return "too many records";
  }
  return "unknown";
}

std::string type_name(std::uint16_t type) {
  switch (type) {
    case rrtype::A: return "A";
    case rrtype::NS: return "NS";
    case rrtype::CNAME: return "CNAME";
    case rrtype::SOA: return "SOA";
    case rrtype::PTR: return "PTR";
    case rrtype::MX: return "MX";
    case rrtype::TXT: return "TXT";
    case rrtype::AAAA: return "AAAA";
    case rrtype::SRV: return "SRV";
    case rrtype::DNAME: return "DNAME";
    case rrtype::OPT: return "OPT";
    case rrtype::SVCB: return "SVCB";
    case rrtype::HTTPS: return "HTTPS";
    case rrtype::ANY: return "ANY";
    case 251: return "IXFR";
    case 252: return "AXFR";
    case rrtype::CAA: return "CAA";
  }
  return "TYPE" + std::to_string(type);
}

}  // namespace halo::dns
