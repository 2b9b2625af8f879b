#include "broker/proto/http_head.h"

#include <algorithm>
#include <cctype>

namespace halo::broker::proto {
namespace {

bool is_tchar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_tchar(c); });
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits `head` into CRLF-terminated lines; false on a bare CR or LF.
bool split_lines(std::string_view head, std::vector<std::string_view>& lines) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    char c = head[i];
    if (c == '\n') return false;  // LF without CR before it
    if (c == '\r') {
      if (i + 1 >= head.size() || head[i + 1] != '\n') return false;
      lines.push_back(head.substr(start, i - start));
      ++i;
      start = i + 1;
    }
  }
  return start == head.size();
}

bool parse_version(std::string_view v, int& minor) {
  if (v == "HTTP/1.1") { minor = 1; return true; }
  if (v == "HTTP/1.0") { minor = 0; return true; }
  return false;
}

// Field lines after the start line; the last line must be the empty one.
const char* parse_fields(const std::vector<std::string_view>& lines, std::size_t max_fields,
                         std::vector<Field>& out) {
  if (lines.size() < 2 || !lines.back().empty()) return "head does not end with a blank line";
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) return "empty line inside the head";
    if (line.front() == ' ' || line.front() == '\t') return "obsolete line folding";
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return "field line without a colon";
    std::string_view name = line.substr(0, colon);
    if (!is_token(name)) return "invalid field name";
    std::string_view value = trim_ows(line.substr(colon + 1));
    for (unsigned char c : value) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) return "control character in a field value";
    }
    if (out.size() >= max_fields) return "too many header fields";
    out.push_back(Field{std::string(name), std::string(value)});
  }
  return nullptr;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Content-Length / Transfer-Encoding per RFC 9112 6.3, strict.
const char* body_framing(const std::vector<Field>& fields, int minor, Framing& framing,
                         bool response) {
  const Field* cl = nullptr;
  const Field* te = nullptr;
  for (const auto& f : fields) {
    if (iequals(f.name, "content-length")) {
      if (cl) return "duplicate Content-Length";
      if (!all_digits(f.value)) return "invalid Content-Length";
      cl = &f;
    } else if (iequals(f.name, "transfer-encoding")) {
      if (te) return "duplicate Transfer-Encoding";
      te = &f;
    }
  }
  if (te) {
    if (cl) return "Content-Length together with Transfer-Encoding";
    if (minor == 0 && !response) return "Transfer-Encoding on HTTP/1.0";
    if (!iequals(te->value, "chunked")) {
      if (!response) return "unsupported Transfer-Encoding";
      framing = Framing{BodyKind::until_close, 0};
      return nullptr;
    }
    framing = Framing{BodyKind::chunked, 0};
    return nullptr;
  }
  if (cl) {
    std::uint64_t n = 0;
    for (char c : cl->value) n = n * 10 + static_cast<std::uint64_t>(c - '0');
    framing = Framing{n == 0 && !response ? BodyKind::none : BodyKind::length, n};
    return nullptr;
  }
  framing = Framing{response ? BodyKind::until_close : BodyKind::none, 0};
  return nullptr;
}

// Does a Connection-like field list `token` (comma separated, case-insensitive)?
bool lists_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    auto comma = value.find(',');
    std::string_view item = trim_ows(value.substr(0, comma));
    if (iequals(item, token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

bool keep_alive_of(const std::vector<Field>& fields, int minor) {
  bool close = false, keep = false;
  for (const auto& f : fields) {
    if (iequals(f.name, "connection") || iequals(f.name, "proxy-connection")) {
      close = close || lists_token(f.value, "close");
      keep = keep || lists_token(f.value, "keep-alive");
    }
  }
  if (close) return false;
  return minor == 1 || keep;
}

const Field* find_in(const std::vector<Field>& fields, std::string_view name) {
  for (const auto& f : fields) {
    if (iequals(f.name, name)) return &f;
  }
  return nullptr;
}

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

const Field* RequestHead::find(std::string_view name) const { return find_in(fields, name); }
const Field* ResponseHead::find(std::string_view name) const { return find_in(fields, name); }

std::optional<std::size_t> find_head_end(std::string_view data) {
  auto pos = data.find("\r\n\r\n");
  if (pos == std::string_view::npos) return std::nullopt;
  return pos + 4;
}

bool has_bare_line_end(std::string_view data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')) return true;
    if (data[i] == '\r' && i + 1 < data.size() && data[i + 1] != '\n') return true;
  }
  return false;
}

Parsed<RequestHead> parse_request_head(std::string_view head, std::size_t max_fields) {
  Parsed<RequestHead> out;
  std::vector<std::string_view> lines;
  if (!split_lines(head, lines)) return {std::nullopt, {"bare CR or LF in the head"}};
  if (lines.empty()) return {std::nullopt, {"empty head"}};
  std::string_view start = lines[0];
  auto sp1 = start.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : start.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || start.find(' ', sp2 + 1) != std::string_view::npos)
    return {std::nullopt, {"malformed request line"}};
  RequestHead req;
  std::string_view method = start.substr(0, sp1);
  std::string_view target = start.substr(sp1 + 1, sp2 - sp1 - 1);
  if (!is_token(method)) return {std::nullopt, {"invalid method"}};
  if (target.empty()) return {std::nullopt, {"empty request target"}};
  for (unsigned char c : target) {
    if (c <= 0x20 || c >= 0x7f) return {std::nullopt, {"invalid byte in request target"}};
  }
  if (!parse_version(start.substr(sp2 + 1), req.minor))
    return {std::nullopt, {"unsupported HTTP version"}};
  req.method = std::string(method);
  req.target = std::string(target);
  if (const char* err = parse_fields(lines, max_fields, req.fields)) return {std::nullopt, {err}};
  if (const char* err = body_framing(req.fields, req.minor, req.body, false))
    return {std::nullopt, {err}};
  int hosts = 0;
  for (const auto& f : req.fields) hosts += iequals(f.name, "host") ? 1 : 0;
  if (hosts > 1) return {std::nullopt, {"more than one Host"}};
  req.keep_alive = keep_alive_of(req.fields, req.minor);
  out.value = std::move(req);
  return out;
}

Parsed<ResponseHead> parse_response_head(std::string_view head, std::size_t max_fields,
                                         std::string_view request_method, Framing& framing) {
  std::vector<std::string_view> lines;
  if (!split_lines(head, lines)) return {std::nullopt, {"bare CR or LF in the response head"}};
  if (lines.empty()) return {std::nullopt, {"empty response head"}};
  std::string_view start = lines[0];
  ResponseHead resp;
  if (start.size() < 12 || !parse_version(start.substr(0, 8), resp.minor) || start[8] != ' ')
    return {std::nullopt, {"malformed status line"}};
  std::string_view code = start.substr(9, 3);
  // Three digits, the first 1-5 (RFC 9110 15): "001" or "999" is not a status to relay.
  if (!std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      code[0] < '1' || code[0] > '5')
    return {std::nullopt, {"malformed status code"}};
  if (start.size() > 12 && start[12] != ' ') return {std::nullopt, {"malformed status line"}};
  resp.status = (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
  if (start.size() > 13) resp.reason = std::string(start.substr(13));
  if (const char* err = parse_fields(lines, max_fields, resp.fields)) return {std::nullopt, {err}};
  if (const char* err = body_framing(resp.fields, resp.minor, framing, true))
    return {std::nullopt, {err}};
  if (iequals(request_method, "HEAD") || resp.status / 100 == 1 || resp.status == 204 ||
      resp.status == 304) {
    framing = Framing{BodyKind::none, 0};
  }
  resp.keep_alive = keep_alive_of(resp.fields, resp.minor);
  return {std::move(resp), {}};
}

}  // namespace halo::broker::proto
