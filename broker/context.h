#pragma once
// What every session of one Broker shares: options, the compiled rules, the resolver,
// the audit log, counters, and the registry stop() uses to cut sessions after the drain
// deadline. Internal to broker/ (pulls in Asio).
//
// Threading: everything here is safe from any thread (atomics, or a mutex inside).
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "broker/audit_log.h"
#include "broker/broker.h"
#include "dns/resolver.h"
#include "policy/egress_rules.h"

namespace halo::broker {

// A session the broker can cut short (stop() past the drain deadline).
class Abortable {
 public:
  virtual ~Abortable() = default;
  virtual void abort() = 0;  // any thread; posts to the session's own strand
};

class Context {
 public:
  Context(const BrokerOptions& options, dns::Resolver& resolver, AuditLog& audit)
      : options(options), limits(options.limits), rules(options.policy->egress_rules()),
        resolver(resolver), audit(audit) {}

  const BrokerOptions& options;
  const Limits& limits;
  const policy::EgressRules& rules;
  dns::Resolver& resolver;
  AuditLog& audit;

  // DNS FILTER HOOK (issue 4): under DnsMode::synthetic the filter hands out session
  // addresses (198.18.0.0/15, a ULA /64) for allowed names. When set, a CONNECT/SOCKS/
  // forward target that is such an address is mapped back to its name here before the
  // decision (dns::SessionAddressPool::lookup). Unset: session addresses are decided as
  // the private addresses they are (denied). BrokerImpl::wire_dns_filter() sets it.
  std::function<std::optional<std::string>(const policy::IpAddress&)> session_name;

  std::atomic<std::size_t> open_connections{0};
  // Reported in BrokerStats::losses (never silent): connections closed at the cap or while
  // draining with the fast 503, and accepts that failed for lack of descriptors/memory
  // (summed over every listener and worker).
  std::atomic<std::uint64_t> overload_rejections{0};
  std::atomic<std::uint64_t> descriptor_failures{0};
  std::atomic<bool> stopping{false};

  // Records the verdict of one decision in the stats (and the denial list, capped).
  void count_decision(bool allowed, const char* transport, const std::string& host,
                      std::uint16_t port, const std::string& rule);
  // Decisions, denials, and the broker's own losses (the audit log's write failures and
  // the counters above). The DNS filter's losses are added by BrokerImpl::stats().
  BrokerStats stats() const;

  std::uint64_t add_session(std::weak_ptr<Abortable> s);
  void remove_session(std::uint64_t id);
  void abort_all();

 private:
  mutable std::mutex mu_;
  BrokerStats stats_;
  std::uint64_t next_session_ = 1;
  std::unordered_map<std::uint64_t, std::weak_ptr<Abortable>> sessions_;
};

}  // namespace halo::broker
