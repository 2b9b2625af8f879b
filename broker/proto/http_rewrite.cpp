#include "broker/proto/http_rewrite.h"

namespace halo::broker::proto {
namespace {

bool listed_in_connection(std::string_view name, const std::vector<Field>& fields) {
  for (const auto& f : fields) {
    if (!iequals(f.name, "connection")) continue;
    std::string_view v = f.value;
    while (!v.empty()) {
      auto comma = v.find(',');
      std::string_view item = v.substr(0, comma);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      if (iequals(item, name)) return true;
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  return false;
}

// Header values never carry CR/LF (the parser rejected control characters), so fields
// can be written back as they came.
void append_field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

}  // namespace

bool is_hop_by_hop(std::string_view name, const std::vector<Field>& fields) {
  static constexpr std::string_view kHop[] = {"connection", "keep-alive", "te", "trailer",
                                              "upgrade"};
  for (auto h : kHop) {
    if (iequals(name, h)) return true;
  }
  if (name.size() >= 6 && iequals(name.substr(0, 6), "proxy-")) return true;
  if (iequals(name, "transfer-encoding") || iequals(name, "content-length")) return false;
  return listed_in_connection(name, fields);
}

std::string upstream_request_head(const RequestHead& req, const AbsoluteTarget& target) {
  std::string out;
  out.reserve(256);
  out.append(req.method).append(" ").append(target.path_and_query).append(" HTTP/1.1\r\n");
  std::string host = target.authority.bracketed ? "[" + target.authority.host + "]"
                                                : target.authority.host;
  if (target.port_given && target.authority.port != 80)
    host += ":" + std::to_string(target.authority.port);
  append_field(out, "Host", host);
  for (const auto& f : req.fields) {
    if (iequals(f.name, "host") || is_hop_by_hop(f.name, req.fields)) continue;
    append_field(out, f.name, f.value);
  }
  append_field(out, "Connection", "close");
  out.append("\r\n");
  return out;
}

std::string client_response_head(const ResponseHead& resp, bool keep_alive) {
  std::string out;
  out.reserve(256);
  out.append("HTTP/1.1 ").append(std::to_string(resp.status));
  out.append(" ").append(resp.reason).append("\r\n");
  for (const auto& f : resp.fields) {
    if (is_hop_by_hop(f.name, resp.fields)) continue;
    append_field(out, f.name, f.value);
  }
  append_field(out, "Connection", keep_alive ? "keep-alive" : "close");
  out.append("\r\n");
  return out;
}

std::string broker_answer(int status, std::string_view reason, std::string_view decision,
                          std::string_view body, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
  out.append(reason).append("\r\n");
  if (!decision.empty()) {
    std::string clean(decision);
    for (char& c : clean) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    append_field(out, "X-Halo-Decision", clean);
  }
  append_field(out, "Content-Type", "text/plain; charset=utf-8");
  append_field(out, "Content-Length", std::to_string(body.size()));
  append_field(out, "Connection", keep_alive ? "keep-alive" : "close");
  out.append("\r\n").append(body);
  return out;
}

}  // namespace halo::broker::proto
