#pragma once
// Pure HTTP/1.x head parsing for the proxy: no I/O, no Asio, separately fuzzable
// (fuzz/broker/http_head_fuzz.cpp). The broker hands it the bytes of one head, up to
// and including the blank line, and gets either a parsed head or a reason to answer 400.
//
// Accepted syntax (RFC 9112, strict where leniency enables request smuggling):
//   request-line  = method SP request-target SP "HTTP/1." ("0" | "1") CRLF
//   status-line   = "HTTP/1." ("0" | "1") SP 3DIGIT [SP reason] CRLF
//   field-line    = token ":" OWS value OWS CRLF
// Rejected: bare LF or CR line ends, obs-fold (a line starting with SP/HTAB), whitespace
// before the colon, control characters in values, more fields than the cap, a
// Content-Length that is not all digits or appears twice, Transfer-Encoding together with
// Content-Length, a Transfer-Encoding other than exactly "chunked", Transfer-Encoding on
// HTTP/1.0, more than one Host.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace halo::broker::proto {

struct Field {
  std::string name;  // as sent; compare with iequals
  std::string value;  // OWS trimmed
};

enum class BodyKind : std::uint8_t { none, length, chunked, until_close };

struct Framing {
  BodyKind kind = BodyKind::none;
  std::uint64_t length = 0;  // for BodyKind::length
};

struct RequestHead {
  std::string method;
  std::string target;
  int minor = 1;  // HTTP/1.<minor>
  std::vector<Field> fields;
  Framing body;
  bool keep_alive = true;  // after this request, per version and Connection/Proxy-Connection
  const Field* find(std::string_view name) const;
};

struct ResponseHead {
  int minor = 1;
  int status = 0;
  std::string reason;
  std::vector<Field> fields;
  bool keep_alive = true;
  const Field* find(std::string_view name) const;
};

struct ParseError {
  const char* reason = "";  // static text, safe for logs (never holds input bytes)
};

template <typename T>
struct Parsed {
  std::optional<T> value;
  ParseError error;
  explicit operator bool() const { return value.has_value(); }
};

// Index one past the blank line ending the head in `data`, or nullopt when it is not
// there yet. Only CRLF CRLF ends a head.
std::optional<std::size_t> find_head_end(std::string_view data);
// True when `data` (a head still arriving) already holds a line end other than CRLF, so
// the caller can answer 400 without waiting for a blank line that will never come.
bool has_bare_line_end(std::string_view data);

Parsed<RequestHead> parse_request_head(std::string_view head, std::size_t max_fields);
// `request_method` decides whether a body can follow (HEAD, CONNECT); framing per
// RFC 9112 6.3 goes in `framing`.
Parsed<ResponseHead> parse_response_head(std::string_view head, std::size_t max_fields,
                                         std::string_view request_method, Framing& framing);

bool iequals(std::string_view a, std::string_view b);

}  // namespace halo::broker::proto
