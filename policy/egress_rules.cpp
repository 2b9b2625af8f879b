#include "policy/egress_rules.h"

namespace halo::policy {

std::size_t EgressRules::Hash::operator()(std::string_view s) const noexcept {
  // FNV-1a over 8-byte words would be faster still; std::hash is already a few ns for
  // host-sized strings and keeps the table's behaviour conventional.
  return std::hash<std::string_view>{}(s);
}

EgressRules::EgressRules(const EgressPolicy& egress) {
  entries_.reserve(egress.denied_domains.size() + egress.allowed_domains.size() +
                   egress.preset_domains.size());
  for (const auto& e : egress.denied_domains) entries_.push_back(e);
  std::size_t denied = entries_.size();
  for (const auto& e : egress.allowed_domains) entries_.push_back(e);
  for (const auto& e : egress.preset_domains) entries_.push_back(e);
  slots_.reserve(entries_.size());
  for (std::size_t i = 0; i < entries_.size(); ++i) add(entries_[i], i < denied);
  loopback_ = egress.loopback;
  addresses_ = egress.allowed_addresses;
  default_ = egress.effective_default();
}

void EgressRules::add(const DomainEntry& e, bool deny) {
  Slot& slot = slots_[std::string(e.base())];
  const DomainEntry** target = deny ? (e.wildcard() ? &slot.deny_wild : &slot.deny_exact)
                                    : (e.wildcard() ? &slot.allow_wild : &slot.allow_exact);
  if (*target == nullptr) *target = &e;  // the first one written names the decision
}

Decision EgressRules::decide(std::string_view raw_host, std::optional<std::uint16_t> port) const {
  if (is_canonical_name(raw_host)) return decide_name(raw_host, port);
  HostResult h = normalize_host(raw_host);
  if (!h) {
    Decision d;
    d.verdict = Verdict::deny;
    d.reason = Reason::malformed_host;
    d.detail = h.error.reason;
    d.port = port.value_or(0);
    return d;
  }
  return decide(*h.host, port);
}

Decision EgressRules::decide(const NormalizedHost& host, std::optional<std::uint16_t> port) const {
  if (host.kind == NormalizedHost::Kind::ip) return decide_ip(host.ip, port);
  return decide_name(host.text, port);
}

Decision EgressRules::loopback(std::optional<std::uint16_t> port, const AddressJudgement* j) const {
  Decision d;
  if (j != nullptr) {
    d.address = *j;
    d.has_address = true;
  }
  if (!port) {
    d.verdict = Verdict::deny;
    d.reason = Reason::port_required;
    d.detail = "a loopback target needs a port (loopback is granted per port)";
    return d;
  }
  d.port = *port;
  for (const auto& g : loopback_) {
    if (g.port == *port) {
      d.verdict = Verdict::allow;
      d.reason = Reason::loopback_grant;
      d.grant = &g;
      return d;
    }
  }
  d.verdict = Verdict::deny;
  d.reason = Reason::loopback_no_grant;
  return d;
}

Decision EgressRules::decide_name(std::string_view name, std::optional<std::uint16_t> port) const {
  Decision d;
  d.port = port.value_or(0);
  if (port && *port == 0) {
    d.verdict = Verdict::deny;
    d.reason = Reason::bad_port;
    d.detail = "port 0";
    return d;
  }
  // One probe per suffix: "a.b.example.com", "b.example.com", "example.com", "com".
  // The whole name can match exact rules; a proper suffix can match wildcard rules only.
  const DomainEntry* deny = nullptr;
  const DomainEntry* allow = nullptr;
  std::string_view key = name;
  bool whole = true;
  while (true) {
    auto it = slots_.find(key);
    if (it != slots_.end()) {
      const Slot& s = it->second;
      if (whole) {
        if (deny == nullptr) deny = s.deny_exact;
        if (allow == nullptr) allow = s.allow_exact;
      } else {
        if (deny == nullptr) deny = s.deny_wild;
        if (allow == nullptr) allow = s.allow_wild;
      }
      if (deny != nullptr) break;  // deny wins; no need to look further
    }
    auto dot = key.find('.');
    if (dot == std::string_view::npos) break;
    key.remove_prefix(dot + 1);
    whole = false;
  }
  if (deny != nullptr) {
    d.verdict = Verdict::deny;
    d.reason = Reason::denied_domain;
    d.domain = deny;
    return d;
  }
  if (is_localhost_name(name)) return loopback(port, nullptr);
  if (allow != nullptr) {
    d.verdict = Verdict::allow;
    d.reason = Reason::allowed_domain;
    d.domain = allow;
    return d;
  }
  d.reason = Reason::default_action;
  d.default_action = default_;
  d.verdict = default_ == DefaultAction::allow ? Verdict::allow : Verdict::deny;
  return d;
}

Decision EgressRules::check_address(const IpAddress& address, std::uint16_t port) const {
  Decision d;
  d.port = port;
  d.address = judge_address(address);
  d.has_address = true;
  const AddressClass cls = d.address.cls;
  if (cls == AddressClass::loopback) return loopback(port, &d.address);
  if (port == 0) {
    d.verdict = Verdict::deny;
    d.reason = Reason::bad_port;
    d.detail = "port 0";
    return d;
  }
  if (always_denied(cls)) {
    d.verdict = Verdict::deny;
    d.reason = Reason::address_denied;
    return d;
  }
  if (needs_address_grant(cls)) {
    for (const auto& g : addresses_) {
      if (g.range.contains(d.address.judged) || g.range.contains(address)) {
        d.verdict = Verdict::allow;
        d.reason = Reason::address_granted;
        d.address_grant = &g;
        return d;
      }
    }
    d.verdict = Verdict::deny;
    d.reason = Reason::address_private;
    return d;
  }
  d.verdict = Verdict::allow;
  d.reason = Reason::address_public;
  return d;
}

Decision EgressRules::decide_ip(const IpAddress& ip, std::optional<std::uint16_t> port) const {
  AddressJudgement j = judge_address(ip);
  if (j.cls == AddressClass::loopback) return loopback(port, &j);
  Decision d = check_address(ip, port.value_or(1));
  d.port = port.value_or(0);
  if (!d.allowed() || d.address_grant != nullptr) return d;
  // A public literal: an allowedAddresses entry names it on purpose, else the default.
  for (const auto& g : addresses_) {
    if (g.range.contains(ip) || g.range.contains(j.judged)) {
      d.address_grant = &g;
      return d;
    }
  }
  d.reason = Reason::default_action;
  d.default_action = default_;
  d.verdict = default_ == DefaultAction::allow ? Verdict::allow : Verdict::deny;
  return d;
}

// (vet) A CNAME to a localhost name is refused even where the port is granted: a grant
// is for asking for loopback by name or literal, not for being redirected there.
VettedResolution EgressRules::vet(const Decision& name_decision, const Resolution& answer) const {
  VettedResolution out;
  out.decision = name_decision;
  if (!name_decision.allowed()) return out;
  const std::optional<std::uint16_t> port =
      name_decision.port ? std::optional<std::uint16_t>(name_decision.port) : std::nullopt;
  for (const auto& cname : answer.cnames) {
    Decision c = decide(cname, port);
    bool refused = c.reason == Reason::denied_domain || c.reason == Reason::malformed_host ||
                   c.reason == Reason::loopback_no_grant || c.reason == Reason::loopback_grant ||
                   c.reason == Reason::port_required;
    if (refused) {
      c.verdict = Verdict::deny;
      out.rejected.push_back(c);
      out.decision = c;  // a chain through a denied name is denied
      return out;
    }
  }
  for (const auto& a : answer.addresses) {
    Decision c = check_address(a, name_decision.port);
    if (c.allowed()) {
      out.dialable.push_back(a);
    } else {
      out.rejected.push_back(c);
    }
  }
  if (out.dialable.empty()) {
    out.decision = out.rejected.empty() ? name_decision : out.rejected.front();
    if (out.rejected.empty()) {
      out.decision.verdict = Verdict::deny;
      out.decision.reason = Reason::no_address;
      out.decision.detail = "the name resolved to no address";
    }
  }
  return out;
}

}  // namespace halo::policy
