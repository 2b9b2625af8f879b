#include "policy/host.h"

#include <idn2.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace halo::policy {
namespace {

constexpr std::size_t kMaxRawHost = 1024;  // longer input is not a host; refuse before IDNA
constexpr std::size_t kMaxName = 253;
constexpr std::size_t kMaxLabel = 63;

HostResult fail(const char* why) {
  HostResult r;
  r.error.reason = why;
  return r;
}

HostResult ok_ip(const IpAddress& ip) {
  HostResult r;
  NormalizedHost h;
  h.kind = NormalizedHost::Kind::ip;
  h.ip = ip;
  h.text = ip.to_string();
  r.host = std::move(h);
  return r;
}

bool is_ldh(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

// WHATWG "ends in a number": the last label is all decimal digits, or 0x followed by hex.
bool numeric_label(std::string_view label) {
  if (label.empty()) return false;
  if (label.size() >= 2 && label[0] == '0' && label[1] == 'x') {
    for (char c : label.substr(2)) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
  }
  for (char c : label) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view last_label(std::string_view name) {
  auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// Checks an all-ASCII, lower-case name without a trailing dot. Returns null when valid.
const char* check_ldh(std::string_view name) {
  if (name.empty()) return "empty host";
  if (name.size() > kMaxName) return "name longer than 253 octets";
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::size_t end = dot == std::string_view::npos ? name.size() : dot;
    std::string_view label = name.substr(start, end - start);
    if (label.empty()) return "empty label";
    if (label.size() > kMaxLabel) return "label longer than 63 octets";
    for (char c : label) {
      if (!is_ldh(c)) return "character not allowed in a host name (letters, digits, '-' only)";
    }
    if (label.front() == '-' || label.back() == '-') return "label starts or ends with '-'";
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return nullptr;
}

// check_ldh(name) == nullptr in one pass over the bytes, for the hot path (a request's
// host is nearly always canonical already). Keep the two in step: the tests and the
// fuzzer hold them to the same answer through is_canonical_name and normalize_host.
// Byte classes for ldh_valid: a table, not comparisons, so mixed letters and digits do not
// cost a mispredicted branch each.
enum : std::uint8_t { kBad = 0, kAlnum = 1, kHyphen = 2, kDot = 3 };
constexpr std::array<std::uint8_t, 256> kLdhClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kAlnum;
  for (int c = '0'; c <= '9'; ++c) t[c] = kAlnum;
  t['-'] = kHyphen;
  t['.'] = kDot;
  return t;
}();

bool ldh_valid(std::string_view name) {
  if (name.empty() || name.size() > kMaxName) return false;
  std::size_t label = 0;     // length of the label so far
  std::uint8_t prev = kDot;  // class of the previous byte
  unsigned bad = 0;
  for (unsigned char c : name) {
    const std::uint8_t k = kLdhClass[c];
    if (k == kDot) {
      // an empty label, or one that ends with '-'
      bad |= static_cast<unsigned>(prev == kDot) | static_cast<unsigned>(prev == kHyphen);
      label = 0;
    } else {
      // a byte outside LDH, a label that starts with '-', a label over 63 octets
      bad |= static_cast<unsigned>(k == kBad) | static_cast<unsigned>(k == kHyphen && prev == kDot);
      bad |= static_cast<unsigned>(++label > kMaxLabel);
    }
    prev = k;
  }
  return bad == 0 && prev == kAlnum;
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

// A-labels ("xn--...") must decode and re-encode to themselves (no invalid punycode, no
// disguised non-canonical forms).
bool alabels_roundtrip(const std::string& name) {
  char* u = nullptr;
  if (idn2_to_unicode_8z8z(name.c_str(), &u, 0) != IDN2_OK) return false;
  std::unique_ptr<char, FreeDeleter> unicode(u);
  char* a = nullptr;
  if (idn2_to_ascii_8z(unicode.get(), &a, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) != IDN2_OK) {
    return false;
  }
  std::unique_ptr<char, FreeDeleter> ascii(a);
  return name == ascii.get();
}

}  // namespace

bool is_canonical_name(std::string_view raw) {
  if (!ldh_valid(raw)) return false;
  if (numeric_label(last_label(raw))) return false;
  if (raw.find("xn--") != std::string_view::npos) return false;  // needs the IDNA check
  return true;
}

bool is_localhost_name(std::string_view name) {
  constexpr std::string_view kLocal = "localhost";
  if (name == kLocal) return true;
  return name.size() > kLocal.size() + 1 && name.ends_with(".localhost");
}

HostResult normalize_host(std::string_view raw) {
  if (raw.empty()) return fail("empty host");
  if (raw.size() > kMaxRawHost) return fail("host longer than 1024 octets");
  for (unsigned char c : raw) {
    if (c == 0) return fail("NUL byte in host");
  }

  if (raw.front() == '[') {
    if (raw.size() < 3 || raw.back() != ']') return fail("unterminated '[' in host");
    std::string_view inner = raw.substr(1, raw.size() - 2);
    if (inner.find(':') == std::string_view::npos) return fail("brackets hold IPv6 addresses only");
    if (inner.find('%') != std::string_view::npos) return fail("IPv6 zone identifiers are not allowed");
    auto ip = IpAddress::parse_strict(inner);
    if (!ip) return fail("not a valid IPv6 address");
    return ok_ip(*ip);
  }
  if (raw.find(':') != std::string_view::npos) {
    if (raw.find('%') != std::string_view::npos) return fail("IPv6 zone identifiers are not allowed");
    auto ip = IpAddress::parse_strict(raw);
    if (!ip || ip->family != IpAddress::Family::v6) {
      return fail("':' in host (a port, or an IPv6 address that is not valid?)");
    }
    return ok_ip(*ip);
  }

  bool ascii = true;
  for (unsigned char c : raw) ascii &= c < 0x80;

  std::string name;
  if (ascii) {
    name.assign(raw);
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (name.back() == '.') name.pop_back();
  } else {
    std::string input(raw);
    if (input.back() == '.') input.pop_back();
    if (input.empty()) return fail("empty host");
    char* out = nullptr;
    int rc = idn2_to_ascii_8z(input.c_str(), &out,
                              IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT | IDN2_USE_STD3_ASCII_RULES);
    if (rc != IDN2_OK) return fail("not a valid internationalized name (IDNA/UTS #46)");
    std::unique_ptr<char, FreeDeleter> holder(out);
    name = holder.get();
    // UTS #46 maps ideographic and fullwidth dots to '.', so a trailing one may remain.
    if (!name.empty() && name.back() == '.') name.pop_back();
  }

  if (name.empty()) return fail("empty host");
  std::string_view last = last_label(name);
  if (numeric_label(last)) {
    auto ip = parse_inet_aton(name);
    if (!ip) return fail("ends in a number but is not a valid IPv4 address");
    return ok_ip(*ip);
  }
  if (const char* why = check_ldh(name)) return fail(why);
  if (name.find("xn--") != std::string::npos && !alabels_roundtrip(name)) {
    return fail("not a valid A-label (punycode)");
  }
  HostResult r;
  NormalizedHost h;
  h.kind = NormalizedHost::Kind::name;
  h.text = std::move(name);
  r.host = std::move(h);
  return r;
}

}  // namespace halo::policy
