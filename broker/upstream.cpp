#include "broker/upstream.h"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstring>

#include "broker/io.h"

namespace halo::broker {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t micros_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count();
}

// The resolver's callback arrives on its strand; resume the session on its own executor.
asio::awaitable<dns::ResolveResult> resolve(dns::Resolver& r, std::string name, Millis deadline) {
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable),
                                          void(dns::ResolveResult)>(
      [&r, deadline](auto handler, std::string name) {
        auto h = std::make_shared<decltype(handler)>(std::move(handler));
        r.resolve(std::move(name), deadline, [h](dns::ResolveResult res) {
          auto ex = asio::get_associated_executor(*h);
          asio::post(ex, [h, res = std::move(res)]() mutable { (*h)(std::move(res)); });
        });
      },
      asio::use_awaitable, std::move(name));
}

tcp::endpoint endpoint_of(const policy::IpAddress& a, std::uint16_t port) {
  if (a.family == policy::IpAddress::Family::v4) {
    asio::ip::address_v4::bytes_type b;
    std::memcpy(b.data(), a.bytes.data(), 4);
    return {asio::ip::address_v4(b), port};
  }
  asio::ip::address_v6::bytes_type b;
  std::memcpy(b.data(), a.bytes.data(), 16);
  return {asio::ip::address_v6(b), port};
}

// IPv6 and IPv4 alternate, starting with the family the answer listed first.
std::vector<policy::IpAddress> interleave(const std::vector<policy::IpAddress>& in) {
  std::vector<policy::IpAddress> v6, v4, out;
  for (const auto& a : in) (a.family == policy::IpAddress::Family::v6 ? v6 : v4).push_back(a);
  bool six_first = !in.empty() && in.front().family == policy::IpAddress::Family::v6;
  auto& first = six_first ? v6 : v4;
  auto& second = six_first ? v4 : v6;
  for (std::size_t i = 0; i < std::max(first.size(), second.size()); ++i) {
    if (i < first.size()) out.push_back(first[i]);
    if (i < second.size()) out.push_back(second[i]);
  }
  return out;
}

DialOutcome deny(Context& ctx, const policy::Decision& d, const char* transport,
                 AuditRecord& audit) {
  audit.verdict = "deny";
  audit.reason = policy::to_string(d.reason);
  audit.rule = d.rule();
  ctx.count_decision(false, transport, audit.host, audit.port, audit.rule);
  return DialOutcome::denied;
}

}  // namespace

const char* to_string(DialOutcome o) {
  switch (o) {
    case DialOutcome::connected: return "connected";
    case DialOutcome::denied: return "denied";
    case DialOutcome::dns_failed: return "dns_failed";
    case DialOutcome::refused: return "refused";
    case DialOutcome::unreachable: return "unreachable";
    case DialOutcome::timeout: return "timeout";
  }
  return "unreachable";
}

namespace {

std::int64_t nanos_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

}  // namespace

std::string malformed_host_label(std::string_view raw) {
  std::string_view shown = raw;
  if (auto at = shown.rfind('@'); at != std::string_view::npos) shown.remove_prefix(at + 1);
  std::string out;
  for (char c : shown.substr(0, 64)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_' || c == '[' || c == ']' || c == ':';
    out.push_back(ok ? c : '?');
  }
  return "(malformed, " + std::to_string(raw.size()) + " bytes) " + out;
}

asio::awaitable<DialOutcome> dial_upstream(Context& ctx, std::string_view raw_host,
                                           std::uint16_t port, const char* transport,
                                           tcp::socket& out, AuditRecord& audit) {
  auto t0 = Clock::now();
  audit.port = port;
  policy::HostResult hr = policy::normalize_host(raw_host);
  if (!hr) {
    // Untrusted bytes that are not a host (a SOCKS domain may be "user:pw@host"): the audit
    // and the report get a sanitized stand-in, never the raw text.
    audit.host = malformed_host_label(raw_host);
    auto d = ctx.rules.decide(raw_host, port);
    audit.decide_ns = nanos_since(t0);
    co_return deny(ctx, d, transport, audit);
  }
  policy::NormalizedHost host = std::move(*hr.host);
  // DNS FILTER HOOK (issue 4): a session address stands for the name it was handed out for.
  if (host.kind == policy::NormalizedHost::Kind::ip && ctx.session_name) {
    if (auto name = ctx.session_name(host.ip)) {
      if (auto mapped = policy::normalize_host(*name)) host = std::move(*mapped.host);
    }
  }
  audit.host = host.text;
  policy::Decision d = ctx.rules.decide(host, port);
  audit.decide_ns = nanos_since(t0);
  if (!d.allowed()) co_return deny(ctx, d, transport, audit);
  audit.reason = policy::to_string(d.reason);
  audit.rule = d.rule();

  std::vector<policy::IpAddress> dialable;
  if (host.kind == policy::NormalizedHost::Kind::ip) {
    dialable.push_back(host.ip);
  } else {
    auto tr = Clock::now();
    // Hosts-file and localhost answers need no query and no hop to the resolver's strand.
    std::optional<dns::ResolveResult> local = ctx.resolver.lookup_local(host.text);
    dns::ResolveResult rr;
    if (local) rr = std::move(*local);
    else rr = co_await resolve(ctx.resolver, host.text, ctx.limits.resolve_deadline);
    audit.resolve_us = micros_since(tr);
    if (rr.status != dns::ResolveResult::Status::ok) {
      audit.verdict = "allow";
      audit.close_reason = std::string("resolve ") + dns::to_string(rr.status) +
                           (rr.error.empty() ? "" : ": " + rr.error);
      ctx.count_decision(true, transport, audit.host, port, audit.rule);
      co_return DialOutcome::dns_failed;
    }
    policy::Resolution answer{rr.cnames, rr.addresses};
    policy::VettedResolution v = ctx.rules.vet(d, answer);
    if (!v.decision.allowed()) {
      if (!rr.addresses.empty()) audit.resolved = rr.addresses.front().to_string();
      co_return deny(ctx, v.decision, transport, audit);
    }
    dialable = interleave(v.dialable);
  }
  audit.verdict = "allow";
  ctx.count_decision(true, transport, audit.host, port, audit.rule);
  const std::string name_rule = audit.rule;

  auto tc = Clock::now();
  auto overall = tc + ctx.limits.connect_deadline;
  DialOutcome last = DialOutcome::unreachable;
  for (const auto& addr : dialable) {
    auto left = std::chrono::duration_cast<Millis>(overall - Clock::now());
    if (left <= Millis(0)) {
      last = DialOutcome::timeout;
      break;
    }
    tcp::endpoint ep = endpoint_of(addr, port);
    audit.resolved = addr.to_string();
    if (host.kind == policy::NormalizedHost::Kind::name) {
      // A name's rule let it be looked up; an address grant (allowedAddresses, or a
      // loopback grant for an answer of this host) let this address be dialed: name both.
      policy::Decision a = ctx.rules.check_address(addr, port);
      audit.rule = a.reason == policy::Reason::address_granted ||
                           a.reason == policy::Reason::loopback_grant
                       ? name_rule + " + " + a.rule()
                       : name_rule;
    }
    error_code ec;
    if (out.is_open()) out.close(ec);
    out.open(ep.protocol(), ec);
    if (ec) {
      audit.close_reason = "socket: " + ec.message();
      last = DialOutcome::unreachable;
      continue;
    }
    ec = co_await connect_for(out, ep, std::min(left, ctx.limits.connect_attempt_deadline));
    if (!ec) {
      audit.connect_us = micros_since(tc);
      out.set_option(tcp::no_delay(true), ec);
      out.non_blocking(true, ec);
      co_return DialOutcome::connected;
    }
    audit.close_reason = "connect: " + ec.message();
    if (is_timeout(ec)) last = DialOutcome::timeout;
    else if (ec == asio::error::connection_refused) last = DialOutcome::refused;
    else last = DialOutcome::unreachable;
    out.close(ec);
  }
  audit.connect_us = micros_since(tc);
  co_return last;
}

}  // namespace halo::broker
