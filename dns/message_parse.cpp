// Parsing half of dns/message.h: queries from clients and answers from upstream.
#include <cstring>

#include "dns/message.h"

namespace halo::dns {
namespace {

// A bounds-checked cursor over one message.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> msg) : msg_(msg) {}

  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return msg_.size() - pos_; }

  bool u16(std::uint16_t& out) {
    if (remaining() < 2) return false;
    out = static_cast<std::uint16_t>((msg_[pos_] << 8) | msg_[pos_ + 1]);
    pos_ += 2;
    return true;
  }
  bool u32(std::uint32_t& out) {
    std::uint16_t hi = 0, lo = 0;
    if (!u16(hi) || !u16(lo)) return false;
    out = (std::uint32_t{hi} << 16) | lo;
    return true;
  }
  bool skip(std::size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }

  // Reads a possibly compressed name into `wire` (uncompressed). Every pointer must point
  // before the lowest offset read so far for this name: offsets strictly decrease, so a
  // loop cannot exist, and hops are bounded by the message size.
  ParseError name(std::string& wire) {
    wire.clear();
    std::size_t p = pos_;
    std::size_t lowest = pos_;
    bool jumped = false;
    for (;;) {
      if (p >= msg_.size()) return ParseError::truncated;
      const std::uint8_t len = msg_[p];
      if ((len & 0xC0) == 0xC0) {
        if (p + 1 >= msg_.size()) return ParseError::truncated;
        const std::size_t target = (std::size_t{len & 0x3Fu} << 8) | msg_[p + 1];
        if (target >= lowest) return ParseError::compression_loop;
        if (!jumped) pos_ = p + 2;
        jumped = true;
        lowest = target;
        p = target;
        continue;
      }
      if ((len & 0xC0) != 0) return ParseError::bad_label;
      if (wire.size() + 1 + len > kMaxNameWire) return ParseError::name_too_long;
      if (len == 0) {
        wire.push_back('\0');
        if (!jumped) pos_ = p + 1;
        return ParseError::none;
      }
      if (p + 1 + len > msg_.size()) return ParseError::truncated;
      wire.append(reinterpret_cast<const char*>(msg_.data() + p), 1 + len);
      p += 1 + len;
    }
  }

  std::span<const std::uint8_t> bytes(std::size_t n) const { return msg_.subspan(pos_, n); }

 private:
  std::span<const std::uint8_t> msg_;
  std::size_t pos_ = 0;
};

bool read_header(Reader& r, Header& h) {
  return r.u16(h.id) && r.u16(h.flags) && r.u16(h.qdcount) && r.u16(h.ancount) &&
         r.u16(h.nscount) && r.u16(h.arcount);
}

ParseError read_question(Reader& r, Question& q) {
  if (auto e = r.name(q.wire_name); e != ParseError::none) return e;
  if (!r.u16(q.qtype) || !r.u16(q.qclass)) return ParseError::truncated;
  q.name = wire_to_text(q.wire_name);
  return ParseError::none;
}

void append_name_rdata(std::vector<std::uint8_t>& out, const std::string& wire) {
  out.insert(out.end(), wire.begin(), wire.end());
}

// RDATA with the names of well-known types decompressed (RFC 3597 section 4: only these
// may carry compression pointers). `end` is where the RDATA must end.
ParseError read_rdata(Reader& r, Record& rec, std::size_t rdlength) {
  const std::size_t end = r.pos() + rdlength;
  if (r.remaining() < rdlength) return ParseError::truncated;
  std::string name;
  auto read_target = [&]() -> ParseError {
    if (auto e = r.name(name); e != ParseError::none) return e;
    if (r.pos() > end) return ParseError::truncated;
    append_name_rdata(rec.rdata, name);
    rec.target = wire_to_text(name);
    return ParseError::none;
  };
  auto copy_fixed = [&](std::size_t n) -> bool {
    if (r.pos() + n > end) return false;
    auto b = r.bytes(n);
    rec.rdata.insert(rec.rdata.end(), b.begin(), b.end());
    return r.skip(n);
  };
  ParseError e = ParseError::none;
  switch (rec.type) {
    case rrtype::CNAME: case rrtype::DNAME: case rrtype::NS: case rrtype::PTR:
      e = read_target();
      break;
    case rrtype::MX:
      e = copy_fixed(2) ? read_target() : ParseError::truncated;
      break;
    case rrtype::SRV:
      e = copy_fixed(6) ? read_target() : ParseError::truncated;
      break;
    case rrtype::SOA:
      if ((e = read_target()) != ParseError::none) break;
      if ((e = read_target()) != ParseError::none) break;
      rec.target.clear();
      e = copy_fixed(20) ? ParseError::none : ParseError::truncated;
      break;
    default:
      e = copy_fixed(rdlength) ? ParseError::none : ParseError::truncated;
  }
  if (e != ParseError::none) return e;
  return r.pos() == end ? ParseError::none : ParseError::truncated;
}

ParseError read_record(Reader& r, Record& rec, std::uint16_t& rdlength_out) {
  if (auto e = r.name(rec.wire_name); e != ParseError::none) return e;
  std::uint16_t rdlength = 0;
  if (!r.u16(rec.type) || !r.u16(rec.rclass) || !r.u32(rec.ttl) || !r.u16(rdlength))
    return ParseError::truncated;
  rdlength_out = rdlength;
  return ParseError::none;
}

// An OPT record's fixed fields (RFC 6891 6.1.2): class is the payload size, TTL holds
// extended rcode, version and the DO bit.
Edns edns_from(const Record& rec) {
  Edns e;
  e.udp_payload = rec.rclass;
  e.version = static_cast<std::uint8_t>((rec.ttl >> 16) & 0xFF);
  e.dnssec_ok = (rec.ttl & 0x8000) != 0;
  return e;
}

// Reads `count` records into `out` (or, for the additional section, only the OPT).
ParseError read_section(Reader& r, std::uint16_t count, std::vector<Record>* out,
                        std::optional<Edns>* edns) {
  if (count > kMaxRecordsPerSection) return ParseError::too_many_records;
  for (std::uint16_t i = 0; i < count; ++i) {
    Record rec;
    std::uint16_t rdlength = 0;
    if (auto e = read_record(r, rec, rdlength); e != ParseError::none) return e;
    if (rec.type == rrtype::OPT && edns != nullptr) {
      if (edns->has_value() || rec.wire_name != std::string(1, '\0')) return ParseError::bad_edns;
      *edns = edns_from(rec);
      if (!r.skip(rdlength)) return ParseError::truncated;
      continue;
    }
    if (out == nullptr) {
      if (!r.skip(rdlength)) return ParseError::truncated;
      continue;
    }
    if (auto e = read_rdata(r, rec, rdlength); e != ParseError::none) return e;
    out->push_back(std::move(rec));
  }
  return ParseError::none;
}

}  // namespace

QueryParse parse_query(std::span<const std::uint8_t> msg) {
  QueryParse out;
  Reader r(msg);
  Header h;
  if (!read_header(r, h)) {
    out.error = ParseError::short_header;
    return out;
  }
  out.header = h;
  auto fail = [&](ParseError e) {
    out.error = e;
    return out;
  };
  if (h.qr()) return fail(ParseError::is_response);
  if (h.opcode() != 0) return fail(ParseError::bad_opcode);
  if (h.qdcount != 1) return fail(ParseError::bad_qdcount);
  if (h.ancount != 0 || h.nscount != 0) return fail(ParseError::unexpected_records);
  ParsedQuery q;
  q.header = h;
  if (auto e = read_question(r, q.question); e != ParseError::none) return fail(e);
  if (auto e = read_section(r, h.arcount, nullptr, &q.edns); e != ParseError::none)
    return fail(e);
  if (r.remaining() != 0) return fail(ParseError::trailing_data);
  out.query = std::move(q);
  return out;
}

ResponseParse parse_response(std::span<const std::uint8_t> msg) {
  ResponseParse out;
  Reader r(msg);
  ParsedResponse p;
  if (!read_header(r, p.header)) {
    out.error = ParseError::short_header;
    return out;
  }
  auto fail = [&](ParseError e) {
    out.error = e;
    return out;
  };
  if (p.header.qdcount > 1) return fail(ParseError::bad_qdcount);
  if (p.header.qdcount == 1) {
    Question q;
    if (auto e = read_question(r, q); e != ParseError::none) return fail(e);
    p.question = std::move(q);
  }
  if (auto e = read_section(r, p.header.ancount, &p.answers, nullptr); e != ParseError::none)
    return fail(e);
  if (auto e = read_section(r, p.header.nscount, &p.authority, nullptr); e != ParseError::none)
    return fail(e);
  if (auto e = read_section(r, p.header.arcount, nullptr, &p.edns); e != ParseError::none)
    return fail(e);
  out.response = std::move(p);
  return out;
}

}  // namespace halo::dns
