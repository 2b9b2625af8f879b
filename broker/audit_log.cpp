#include "broker/audit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <system_error>

#include <spdlog/spdlog.h>

namespace halo::broker {
namespace {

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));  // UTF-8 passes through
        }
    }
  }
  out.push_back('"');
}

void field(std::string& out, const char* name, std::string_view value) {
  out.push_back(',');
  append_json_string(out, name);
  out.push_back(':');
  append_json_string(out, value);
}

void field(std::string& out, const char* name, std::int64_t value) {
  out.push_back(',');
  append_json_string(out, name);
  out.push_back(':');
  out += std::to_string(value);
}

std::string iso_time(std::chrono::system_clock::time_point t) {
  auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - secs).count();
  std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

AuditLog::~AuditLog() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

std::error_code AuditLog::open(const std::string& path, std::string session_id) {
  session_ = std::move(session_id);
  path_ = path == "-" ? "stderr" : path;
  if (path.empty()) return {};
  if (path == "-") {
    fd_ = STDERR_FILENO;
    return {};
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd_ < 0) return {errno, std::generic_category()};
  owned_ = true;
  return {};
}

std::string AuditLog::format(const AuditRecord& r, const std::string& session_id) {
  std::string out = "{\"time\":";
  out.reserve(512);
  append_json_string(out, iso_time(r.time));
  field(out, "session", session_id);
  field(out, "transport", r.transport);
  field(out, "client", r.client);
  field(out, "host", r.host);
  field(out, "port", static_cast<std::int64_t>(r.port));
  if (!r.method.empty()) field(out, "method", r.method);
  if (!r.path.empty()) field(out, "path", r.path);
  if (!r.qtype.empty()) field(out, "qtype", r.qtype);
  if (!r.rcode.empty()) field(out, "rcode", r.rcode);
  field(out, "verdict", r.verdict);
  field(out, "reason", r.reason);
  field(out, "rule", r.rule);
  field(out, "resolved", r.resolved);
  field(out, "status", static_cast<std::int64_t>(r.status));
  field(out, "decide_ns", r.decide_ns);
  field(out, "resolve_us", r.resolve_us);
  field(out, "connect_us", r.connect_us);
  field(out, "bytes_up", static_cast<std::int64_t>(r.bytes_up));
  field(out, "bytes_down", static_cast<std::int64_t>(r.bytes_down));
  auto dur = std::chrono::steady_clock::now() - r.start;
  field(out, "duration_ms", std::chrono::duration_cast<std::chrono::milliseconds>(dur).count());
  field(out, "close_reason", r.close_reason);
  out += "}\n";
  return out;
}

void AuditLog::write(const AuditRecord& r) {
  if (fd_ < 0) return;
  std::string line = format(r, session_);
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // a full disk must not stop the relay: count it, say so once
      const int err = n < 0 ? errno : EIO;
      if (failures_.fetch_add(1, std::memory_order_relaxed) == 0)
        spdlog::error("audit: cannot write to {}: {} (further failures are counted, not logged)",
                      path_, std::generic_category().message(err));
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace halo::broker
