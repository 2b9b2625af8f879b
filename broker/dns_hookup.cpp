// The broker's side of the DNS filter (issue 4): the filter (dns/dns_filter.h) serves the
// DNS sockets on its own thread; its audit events become broker audit lines (transport
// "dns") and count in the session's stats; under DnsMode::synthetic its session address
// pool is what Context::session_name maps CONNECT/SOCKS/forward targets back through; its
// drop and failure counters become BrokerStats::losses.dns_*.
#include <spdlog/spdlog.h>

#include "broker/broker_impl.h"

namespace halo::broker {

std::error_code BrokerImpl::ensure_dns_filter() {
  if (dns_filter_) return {};
  dns::DnsFilterOptions o;
  o.policy = options_.policy;
  o.mode = options_.dns_mode == DnsMode::synthetic ? dns::AnswerMode::synthetic
                                                    : dns::AnswerMode::real;
  o.upstream_server = options_.resolver_server;
  o.audit = [this](const dns::DnsAuditEvent& e) {
    const bool allowed = e.verdict == policy::Verdict::allow;
    ctx_->count_decision(allowed, dns::DnsAuditEvent::kTransport, e.name, 0, e.rule);
    if (!audit_.enabled()) return;
    AuditRecord r;
    r.start = std::chrono::steady_clock::now() -
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(e.duration);
    r.transport = dns::DnsAuditEvent::kTransport;
    r.client = e.client;
    r.host = e.name;
    r.qtype = e.qtype;
    r.rcode = e.rcode;
    r.verdict = policy::to_string(e.verdict);
    r.reason = e.reason;
    r.rule = e.rule;
    r.resolved = e.answer;
    r.decide_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(e.decide_time).count();
    r.close_reason = e.forwarded ? "forwarded" : "";
    audit_.write(r);
  };
  std::error_code ec;
  dns_filter_ = dns::DnsFilter::create(std::move(o), ec);
  if (!dns_filter_) {
    spdlog::error("broker: cannot set up the DNS filter: {}", ec.message());
    return ec ? ec : std::make_error_code(std::errc::invalid_argument);
  }
  return {};
}

void BrokerImpl::add_dns_losses(LossCounters& losses) const {
  const dns::DnsFilterStats d = dns_filter_->stats();
  losses.dns_dropped = d.dropped;
  losses.dns_rate_limited = d.rate_limited;
  losses.dns_pool_full = d.pool_full;
  losses.dns_tcp_refused = d.tcp_refused;
  losses.dns_send_failed = d.send_failed;
  losses.dns_accept_failures = d.accept_failed;
}

std::error_code BrokerImpl::wire_dns_filter() {
  if (auto ec = ensure_dns_filter()) return ec;
  dns_filter_->adopt(std::move(dns_udp_fds_), std::move(dns_tcp_fds_));  // ownership passes
  dns_udp_fds_.clear();
  dns_tcp_fds_.clear();
  if (options_.dns_mode == DnsMode::synthetic) {
    ctx_->session_name = [pool = dns_filter_->pool()](const policy::IpAddress& a) {
      return pool->lookup(a);
    };
  }
  dns_filter_->start();
  return {};
}

}  // namespace halo::broker
