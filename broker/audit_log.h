#pragma once
// The broker's audit trail: one JSON line per decision (and one per refused or malformed
// request), written by a session's single close path. No Asio.
//
// Fields: time, session, transport, client, host, port, method, path (never the query),
// verdict, reason, rule, resolved, status, decide_ns, resolve_us, connect_us, bytes_up,
// bytes_down, duration_ms, close_reason. Never credentials, Proxy-Authorization, query
// strings or bodies: nothing here takes them.
//
// Thread safety: write() may be called from any thread; each line goes out in one
// write(2) on an O_APPEND descriptor.
//
// Failures: a line that cannot be written whole (full disk, EIO, a short write) never
// stops the caller; it is counted (write_failures(), reported in BrokerStats::losses),
// and the first failure logs one error naming the path and the errno text (never the
// record).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <system_error>

namespace halo::broker {

struct AuditRecord {
  std::chrono::system_clock::time_point time = std::chrono::system_clock::now();
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::string transport;  // "connect", "http", "socks5", "forward"
  std::string client;     // peer address of the client connection
  std::string host;       // as the decision saw it (canonical when it parsed)
  std::uint16_t port = 0;
  std::string method;     // HTTP forward only
  std::string path;       // HTTP forward only, query removed
  std::string qtype;      // DNS only: the question's type ("A", "TXT", "TYPE65280")
  std::string rcode;      // DNS only: the answer's rcode ("NXDOMAIN"), "-" when dropped
  std::string verdict;    // "allow", "deny", "invalid" (malformed or refused command)
  std::string reason;     // machine code: a policy::Reason, or e.g. "bad_request"
  std::string rule;       // the rule that decided, or the parse error
  std::string resolved;   // the address dialed (or last tried)
  int status = 0;         // HTTP status answered, or the SOCKS reply code
  std::int64_t decide_ns = -1;  // normalize + decide: tens of ns, so not in µs
  std::int64_t resolve_us = -1;
  std::int64_t connect_us = -1;
  std::uint64_t bytes_up = 0;    // client -> upstream, after the request head
  std::uint64_t bytes_down = 0;  // upstream -> client
  std::string close_reason;
};

class AuditLog {
 public:
  AuditLog() = default;
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // "" disables the log, "-" is stderr, anything else is a file opened for append.
  std::error_code open(const std::string& path, std::string session_id);
  bool enabled() const { return fd_ >= 0; }
  void write(const AuditRecord& r);
  // Lines that could not be written (or only in part) since open().
  std::uint64_t write_failures() const { return failures_.load(std::memory_order_relaxed); }

  // Exposed for tests: the JSON line (with trailing newline) for a record.
  static std::string format(const AuditRecord& r, const std::string& session_id);

 private:
  int fd_ = -1;
  bool owned_ = false;
  std::string path_;  // for the one error message
  std::string session_;
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace halo::broker
