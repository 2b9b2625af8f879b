#pragma once
// The DNS filter's policy, as pure functions of bytes in and bytes out (no I/O, no Asio),
// so it is table-tested and fuzzed without sockets. For each client message:
//
//   1. Parse (dns/message.h). No header, or a response: drop. Not QUERY: NOTIMP. Any other
//      defect: FORMERR. EDNS version > 0: BADVERS. Class not IN: REFUSED.
//   2. PTR: answered with the name for a session address (dns/session_pool.h); every other
//      PTR is REFUSED. Never forwarded.
//   3. Every other question: policy::normalize_host then policy::EgressRules::decide(host,
//      no port) — the one decision function. Deny (malformed names included): NXDOMAIN
//      with an Extended DNS Error "Blocked", and nothing goes upstream. IP literals as
//      names: NXDOMAIN.
//   4. Allowed: HTTPS/SVCB/ANY get an empty NOERROR (clients fall back to A/AAAA).
//      A/AAAA in synthetic mode: the name's session address, TTL FilterLimits::
//      synthetic_ttl_seconds, no upstream lookup (pool full: SERVFAIL). A/AAAA in real mode
//      and every other type: Step::forward with a fresh query for the upstream; finish()
//      turns the upstream answer into the client's answer:
//        real A/AAAA: CNAME names and addresses vetted (EgressRules::vet, as for port
//                     FilterLimits::real_mode_vet_port); only dialable addresses are
//                     answered, under the question name;
//        other types: the CNAME/DNAME targets vetted the same way (vet refuses a chain
//                     through a denied, malformed or loopback name: NXDOMAIN); only
//                     records of the asked type and CNAME/DNAME are relayed (never A or
//                     AAAA), SOA in authority; TTLs capped.
//   UDP answers that do not fit the client's size (512, or its EDNS0 size capped at
//   FilterLimits::max_udp_payload) are sent empty with TC set.
//
// Thread safety: const members may be called from any thread (the pool locks itself).
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "dns/audit_event.h"
#include "dns/filter_limits.h"
#include "dns/message.h"
#include "dns/session_pool.h"
#include "policy/egress_rules.h"
#include "policy/policy.h"

namespace halo::dns {

enum class AnswerMode : std::uint8_t { synthetic, real };
enum class Protocol : std::uint8_t { udp, tcp };

// A question waiting for its upstream answer.
struct PendingQuery {
  ParsedQuery query;
  policy::Decision decision;  // the name's decision (allow)
  std::string name;           // canonical name
  std::size_t reply_limit = 512;
  bool vet_addresses = false;  // real-mode A/AAAA
  std::chrono::steady_clock::time_point started{};
};

struct Step {
  enum class Kind : std::uint8_t { reply, drop, forward };
  Kind kind = Kind::drop;
  std::vector<std::uint8_t> reply;           // Kind::reply
  std::vector<std::uint8_t> upstream_query;  // Kind::forward: the query to send upstream
  PendingQuery pending;                      // Kind::forward
};

class QueryHandler {
 public:
  QueryHandler(std::shared_ptr<const policy::Policy> policy,
               std::shared_ptr<SessionAddressPool> pool, AnswerMode mode, FilterLimits limits);

  // Steps 1-4 up to the upstream query. Fills `audit` (name, type, verdict, rule, rcode);
  // for Kind::forward the rcode is completed by finish() or fail().
  Step begin(std::span<const std::uint8_t> msg, Protocol protocol, DnsAuditEvent& audit) const;

  // The client's answer from the upstream's answer (`ec` set: SERVFAIL).
  std::vector<std::uint8_t> finish(const PendingQuery& pending, std::error_code ec,
                                   std::span<const std::uint8_t> upstream,
                                   DnsAuditEvent& audit) const;

  // An answer for a forward that was not sent (overload): `rcode` with `why` audited.
  std::vector<std::uint8_t> fail(const PendingQuery& pending, Rcode rcode, const char* why,
                                 DnsAuditEvent& audit) const;

  AnswerMode mode() const { return mode_; }
  const FilterLimits& limits() const { return limits_; }
  const std::shared_ptr<SessionAddressPool>& pool() const { return pool_; }

 private:
  std::vector<std::uint8_t> answer(const ParsedQuery& q, Rcode rcode, std::vector<Record> answers,
                                   std::size_t limit, bool blocked = false) const;
  std::vector<std::uint8_t> finish_real(const PendingQuery& p, const ParsedResponse& r,
                                        DnsAuditEvent& audit) const;
  std::vector<std::uint8_t> finish_relay(const PendingQuery& p, const ParsedResponse& r,
                                         DnsAuditEvent& audit) const;
  std::size_t reply_limit(const ParsedQuery& q, Protocol protocol) const;

  std::shared_ptr<const policy::Policy> policy_;
  std::shared_ptr<SessionAddressPool> pool_;
  AnswerMode mode_;
  FilterLimits limits_;
};

}  // namespace halo::dns
