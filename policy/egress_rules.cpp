#include "policy/egress_rules.h"

#include <cstring>

namespace halo::policy {

namespace {

constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15ull;
// The Bloom filter's bits come from a different mix than the table index.
constexpr std::uint64_t kBloomSalt = 0x5851f42d4c957f2dull;

// A label's hash, eight bytes at a time (labels are at most 63 octets).
inline std::uint64_t label_hash(const char* p, std::size_t len) {
  std::uint64_t h = kSeed ^ len;
  while (len >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    p += 8;
    len -= 8;
  }
  if (len > 0) {
    // The tail in fixed-size loads (a variable-length memcpy is a byte loop).
    std::uint64_t w = 0;
    unsigned shift = 0;
    if (len & 4) {
      std::uint32_t x;
      std::memcpy(&x, p, 4);
      w = x;
      p += 4;
      shift = 32;
    }
    if (len & 2) {
      std::uint16_t x;
      std::memcpy(&x, p, 2);
      w |= std::uint64_t{x} << shift;
      p += 2;
      shift += 16;
    }
    if (len & 1) w |= std::uint64_t{static_cast<unsigned char>(*p)} << shift;
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
  }
  return h;
}

// Folds one more label (to the left) into the hash of the suffix after it.
inline std::uint64_t fold(std::uint64_t suffix, std::uint64_t label) {
  return ((suffix << 17 | suffix >> 47) ^ label) * 0x9fb21c651e98df25ull;
}

// The hash of a whole name, built right to left label by label: equal to the value
// decide_name reaches at the same suffix.
std::uint64_t hash_right_to_left(std::string_view s) {
  std::uint64_t h = kSeed;
  std::size_t end = s.size();
  while (true) {
    std::size_t dot = s.rfind('.', end == 0 ? 0 : end - 1);
    std::size_t start = dot == std::string_view::npos ? 0 : dot + 1;
    if (end == 0) break;
    h = fold(h, label_hash(s.data() + start, end - start));
    if (dot == std::string_view::npos) break;
    end = dot;
  }
  return h;
}

std::uint64_t spread(std::uint64_t h) {
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ull;
  h ^= h >> 27;
  return h;
}

}  // namespace

EgressRules::EgressRules(const EgressPolicy& egress, std::span<const IpAddress> host_addresses)
    : host_addresses_(host_addresses.begin(), host_addresses.end()) {
  entries_.reserve(egress.denied_domains.size() + egress.allowed_domains.size() +
                   egress.preset_domains.size());
  for (const auto& e : egress.denied_domains) entries_.push_back(e);
  std::size_t denied = entries_.size();
  for (const auto& e : egress.allowed_domains) entries_.push_back(e);
  for (const auto& e : egress.preset_domains) entries_.push_back(e);
  slots_.reserve(entries_.size());
  std::size_t size = 16;
  while (size < entries_.size() * 2 + 2) size <<= 1;
  table_.assign(size, Bucket{});
  mask_ = size - 1;
  std::size_t bits = 512;
  while (bits < entries_.size() * 16) bits <<= 1;
  bloom_.assign(bits / 64, 0);
  bloom_mask_ = bits - 1;
  for (std::size_t i = 0; i < entries_.size(); ++i) add(entries_[i], i < denied);
  loopback_ = egress.loopback;
  addresses_ = egress.allowed_addresses;
  default_ = egress.effective_default();
}

inline bool EgressRules::maybe_key(std::uint64_t hash) const {
  const std::uint64_t m = spread(hash ^ kBloomSalt);
  const std::uint64_t a = m & bloom_mask_;
  const std::uint64_t b = (m >> 32) & bloom_mask_;
  return ((bloom_[a >> 6] >> (a & 63)) & (bloom_[b >> 6] >> (b & 63)) & 1u) != 0;
}

const EgressRules::Slot* EgressRules::find(std::string_view key, std::uint64_t hash) const {
  for (std::uint64_t i = spread(hash) & mask_;; i = (i + 1) & mask_) {
    const Bucket& b = table_[i];
    if (b.slot == 0) return nullptr;
    if (b.hash == hash && b.length == key.size()) {
      const Slot& s = slots_[b.slot - 1];
      if (std::string_view(keys_).substr(s.key_offset, s.key_length) == key) return &s;
    }
  }
}

void EgressRules::add(const DomainEntry& e, bool deny) {
  std::string_view key = e.base();
  std::uint64_t hash = hash_right_to_left(key);
  const Slot* existing = find(key, hash);
  Slot* slot = const_cast<Slot*>(existing);
  if (slot == nullptr) {
    Slot s;
    s.key_offset = static_cast<std::uint32_t>(keys_.size());
    s.key_length = static_cast<std::uint32_t>(key.size());
    keys_.append(key);
    slots_.push_back(s);
    for (std::uint64_t i = spread(hash) & mask_;; i = (i + 1) & mask_) {
      if (table_[i].slot == 0) {
        table_[i] = Bucket{hash, static_cast<std::uint32_t>(slots_.size()),
                           static_cast<std::uint32_t>(key.size())};
        break;
      }
    }
    slot = &slots_.back();
    const std::uint64_t m = spread(hash ^ kBloomSalt);
    const std::uint64_t a = m & bloom_mask_;
    const std::uint64_t b = (m >> 32) & bloom_mask_;
    bloom_[a >> 6] |= std::uint64_t{1} << (a & 63);
    bloom_[b >> 6] |= std::uint64_t{1} << (b & 63);
    min_key_ = std::min(min_key_, key.size());
    max_key_ = std::max(max_key_, key.size());
  }
  const DomainEntry** target = deny ? (e.wildcard() ? &slot->deny_wild : &slot->deny_exact)
                                    : (e.wildcard() ? &slot->allow_wild : &slot->allow_exact);
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

void EgressRules::loopback(Decision& d, std::optional<std::uint16_t> port) const {
  if (!port) {
    d.verdict = Verdict::deny;
    d.reason = Reason::port_required;
    d.detail = "a loopback target needs a port (loopback is granted per port)";
    d.port = 0;
    return;
  }
  d.port = *port;
  for (const auto& g : loopback_) {
    if (g.port == *port) {
      d.verdict = Verdict::allow;
      d.reason = Reason::loopback_grant;
      d.grant = &g;
      return;
    }
  }
  d.verdict = Verdict::deny;
  d.reason = Reason::loopback_no_grant;
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
  // One probe per suffix that starts at a label boundary: "a.b.example.com" (exact rules),
  // then "b.example.com", "example.com", "com" (wildcard rules). Hashing right to left
  // gives every suffix's hash in one pass; suffixes shorter or longer than any key are not
  // probed. Longer suffixes are seen later, so the most specific match names the decision.
  const DomainEntry* deny = nullptr;
  const DomainEntry* allow = nullptr;
  if (!slots_.empty() && !name.empty()) {
    const std::size_t n = name.size();
    std::uint64_t h = kSeed;
    std::size_t end = n;
    while (const void* dot = memrchr(name.data(), '.', end)) {
      std::size_t i = static_cast<const char*>(dot) - name.data();
      h = fold(h, label_hash(name.data() + i + 1, end - i - 1));
      end = i;
      std::size_t len = n - i - 1;
      if (len >= min_key_ && len <= max_key_ && maybe_key(h)) {
        if (const Slot* s = find(name.substr(i + 1), h)) {
          if (s->deny_wild) deny = s->deny_wild;
          if (s->allow_wild) allow = s->allow_wild;
        }
      }
    }
    h = fold(h, label_hash(name.data(), end));
    if (n >= min_key_ && n <= max_key_ && maybe_key(h)) {
      if (const Slot* s = find(name, h)) {
        if (s->deny_exact) deny = s->deny_exact;
        if (s->allow_exact) allow = s->allow_exact;
      }
    }
  }
  if (deny != nullptr) {
    d.verdict = Verdict::deny;
    d.reason = Reason::denied_domain;
    d.domain = deny;
    return d;
  }
  if (is_localhost_name(name)) {
    loopback(d, port);
  } else if (allow != nullptr) {
    d.verdict = Verdict::allow;
    d.reason = Reason::allowed_domain;
    d.domain = allow;
  } else {
    by_default(d);
  }
  return d;
}

void EgressRules::by_default(Decision& d) const {
  d.reason = Reason::default_action;
  d.default_action = default_;
  d.verdict = default_ == DefaultAction::allow ? Verdict::allow : Verdict::deny;
}

const AddressGrant* EgressRules::address_grant_for(const IpAddress& address,
                                                   const IpAddress& embedded) const {
  for (const auto& g : addresses_) {
    if (g.range.contains(address) || g.range.contains(embedded)) return &g;
  }
  return nullptr;
}

Decision EgressRules::check_address(const IpAddress& address, std::uint16_t port) const {
  Decision d;
  d.port = port;
  d.address = judge_address(address);
  d.has_address = true;
  const AddressClass cls = d.address.cls;
  if (cls == AddressClass::loopback) {
    loopback(d, port);
    return d;
  }
  // The broker dials from this host: its own addresses reach its services like loopback.
  for (const auto& h : host_addresses_) {
    if (h == address || h == d.address.judged) {
      loopback(d, port);
      return d;
    }
  }
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
    if (const AddressGrant* g = address_grant_for(address, d.address.judged)) {
      d.verdict = Verdict::allow;
      d.reason = Reason::address_granted;
      d.address_grant = g;
      return d;
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
  const AddressJudgement j = judge_address(ip);
  if (j.cls == AddressClass::loopback) {
    Decision d;
    d.address = j;
    d.has_address = true;
    loopback(d, port);
    return d;
  }
  Decision d = check_address(ip, port.value_or(1));
  d.port = port.value_or(0);
  if (!d.allowed() || d.address_grant != nullptr) return d;
  // A public literal: an allowedAddresses entry names it on purpose, else the default.
  if (const AddressGrant* g = address_grant_for(ip, j.judged)) {
    d.reason = Reason::address_granted;
    d.address_grant = g;
  } else {
    by_default(d);
  }
  return d;
}

// (vet) A CNAME to a localhost name is judged like an answer of 127.0.0.1: allowed only
// on a granted port (DESIGN.md Decide 3: any name that resolves to loopback needs the grant).
VettedResolution EgressRules::vet(const Decision& name_decision, const Resolution& answer) const {
  VettedResolution out;
  out.decision = name_decision;
  if (!name_decision.allowed()) return out;
  const std::optional<std::uint16_t> port =
      name_decision.port ? std::optional<std::uint16_t>(name_decision.port) : std::nullopt;
  for (const auto& cname : answer.cnames) {
    Decision c = decide(cname, port);
    bool refused = c.reason == Reason::denied_domain || c.reason == Reason::malformed_host ||
                   c.reason == Reason::loopback_no_grant || c.reason == Reason::port_required;
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
