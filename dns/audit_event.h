#pragma once
// One audit record per DNS question, handed to the DNS filter's owner (the broker writes
// it into its JSON-lines audit log with transport "dns"). dns/ does not depend on broker/.
#include <chrono>
#include <functional>
#include <string>

#include "policy/egress_rules.h"

namespace halo::dns {

struct DnsAuditEvent {
  static constexpr const char* kTransport = "dns";
  std::string protocol;  // "udp" | "tcp"
  std::string client;    // "127.0.0.1:40000"
  std::string name;      // canonical when it normalized, else the escaped question text
  std::string qtype;     // "A", "AAAA", "TXT", "TYPE65280"
  policy::Verdict verdict = policy::Verdict::deny;
  std::string rule;      // Decision::rule(), or a fixed "dns: ..." text for DNS-only refusals
  std::string reason;    // policy::to_string(Reason), or "dns_malformed", "dns_ptr", ...
  std::string rcode;     // the answer's rcode ("NOERROR", "NXDOMAIN", ...) or "-" when dropped
  std::string answer;    // "synthetic 198.18.0.7", "real 192.0.2.1", "forwarded", "empty", ...
  bool forwarded = false;  // a query for this name went upstream
  std::chrono::nanoseconds decide_time{0};
  std::chrono::nanoseconds duration{0};
};

// Called on the filter's thread; must not block for long.
using DnsAuditSink = std::function<void(const DnsAuditEvent&)>;

}  // namespace halo::dns
