#pragma once
// EgressRules::decide is halo's one decision function. The broker (CONNECT, HTTP forward,
// SOCKS5), the DNS filter, validation, `halo egress test` and every renderer ask it;
// nothing else matches hosts against rules.
//
// Evaluation order (DESIGN.md, Decide):
//   1. Normalize the host (policy/host.h). Malformed -> deny.
//   2. IP literal: judged by its address (step 4) and then allowedAddresses / default.
//   3. Name: a deniedDomains match wins; then localhost names (loopback grant for the
//      port or deny); then allowedDomains and presets; then the default.
//   4. check_address: every address the broker would dial. Loopback needs a grant for the
//      port; private, CGNAT and ULA need an allowedAddresses entry; link-local (metadata),
//      multicast, unspecified and reserved are always denied; IPv4-mapped, NAT64, 6to4
//      and Teredo forms are judged by the IPv4 they embed.
//
// Patterns: "example.com" matches exactly that name; "*.example.com" matches any name
// below example.com at any depth and never example.com itself.
//
// Thread safety: immutable after construction; decide() may be called from any thread.
// decide_name() and check_address() do not allocate.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/host.h"
#include "policy/ip_address.h"
#include "policy/policy.h"

namespace halo::policy {

enum class Verdict : std::uint8_t { allow, deny };

enum class Reason : std::uint8_t {
  denied_domain,      // deny: a deniedDomains pattern matched
  allowed_domain,     // allow: an allowedDomains or preset pattern matched
  default_action,     // allow or deny: nothing matched, egress.default decided
  loopback_grant,     // allow: loopback target on a granted port
  loopback_no_grant,  // deny: loopback target, port not granted
  address_denied,     // deny: link-local, multicast, unspecified or reserved
  address_private,    // deny: private/CGNAT/ULA without an allowedAddresses entry
  address_granted,    // allow: allowedAddresses entry covers the address
  address_public,     // allow: a public address (check_address on a resolved name)
  no_address,         // deny: the answer held no address (or none survived)
  malformed_host,     // deny: not a valid name nor an IP literal
  bad_port,           // deny: port 0
  port_required,      // deny: loopback target asked without a port (bad input)
};

const char* to_string(Verdict v);  // "allow" | "deny"
const char* to_string(Reason r);   // stable machine code, e.g. "denied_domain"

struct Decision {
  Verdict verdict = Verdict::deny;
  Reason reason = Reason::malformed_host;
  const DomainEntry* domain = nullptr;        // denied_domain, allowed_domain
  const LoopbackGrant* grant = nullptr;       // loopback_grant
  const AddressGrant* address_grant = nullptr;  // address_granted
  AddressJudgement address{};                 // address_* reasons, loopback by literal
  bool has_address = false;
  DefaultAction default_action = DefaultAction::deny;  // default_action
  std::uint16_t port = 0;
  const char* detail = "";  // static text for malformed_host and friends

  bool allowed() const { return verdict == Verdict::allow; }
  // The rule that made it, e.g. "deniedDomains: pastebin.com (profiles/base.yaml:14)",
  // "preset vcs: *.github.com", "default: deny", "loopback grant: 8080",
  // "address 10.1.2.3 is private".
  std::string rule() const;
  // "profiles/base.yaml:14" where the rule came from a file, else "".
  std::string source() const;
};

// What the broker learned when it resolved an allowed name.
struct Resolution {
  std::span<const std::string> cnames;    // every name in the CNAME chain, in order
  std::span<const IpAddress> addresses;  // every address the answer held
};

struct VettedResolution {
  Decision decision;                  // allow only when at least one address survived
  std::vector<IpAddress> dialable;    // addresses that passed check_address, answer order
  std::vector<Decision> rejected;     // one per refused address or CNAME name
};

class EgressRules {
 public:
  // Compiles the policy's egress block. `egress` must outlive nothing: entries are copied.
  // `host_addresses` are this host's own addresses: judged like loopback (grant needed).
  explicit EgressRules(const EgressPolicy& egress, std::span<const IpAddress> host_addresses = {});
  EgressRules(const EgressRules&) = delete;
  EgressRules& operator=(const EgressRules&) = delete;

  // Raw host text (from a request, a SOCKS frame, a DNS question or the command line).
  // `port` empty: decide the name alone (halo egress test HOST, DNS).
  Decision decide(std::string_view raw_host, std::optional<std::uint16_t> port) const;
  Decision decide(const NormalizedHost& host, std::optional<std::uint16_t> port) const;
  // `name` must be canonical (is_canonical_name or normalize_host output). No allocation.
  Decision decide_name(std::string_view name, std::optional<std::uint16_t> port) const;
  // Step 4 for one address the broker would dial. No allocation.
  Decision check_address(const IpAddress& address, std::uint16_t port) const;
  // Step 4 for a whole answer: every CNAME name is decided and one that a deniedDomains
  // rule matches, that is malformed or that is a localhost name on an ungranted port
  // denies the whole answer
  // (a name that only falls to the default does not: CDNs answer through CNAMEs);
  // every address is checked; allow with the surviving addresses, or deny naming why.
  VettedResolution vet(const Decision& name_decision, const Resolution& answer) const;

  std::size_t rule_count() const { return entries_.size(); }

 private:
  // Rules are keyed by their base name ("*.example.com" -> "example.com"). A flat,
  // open-addressed table of key hashes; the hash is computed right to left so one pass
  // over a name yields the hash of every suffix that starts at a label boundary.
  struct Slot {
    std::uint32_t key_offset = 0;  // into keys_
    std::uint32_t key_length = 0;
    const DomainEntry* deny_exact = nullptr;
    const DomainEntry* deny_wild = nullptr;
    const DomainEntry* allow_exact = nullptr;
    const DomainEntry* allow_wild = nullptr;
  };
  struct Bucket {
    std::uint64_t hash = 0;
    std::uint32_t slot = 0;  // index + 1 into slots_; 0 = empty
    std::uint32_t length = 0;
  };
  void add(const DomainEntry& e, bool deny);
  void rebuild_table();
  const Slot* find(std::string_view key, std::uint64_t hash) const;
  // A Bloom filter of key hashes in front of the table: most suffixes of most names are no
  // key, and the filter (about 16 bits per key, L1-sized at 10 000 rules) answers that
  // without touching the table. False positives only cost the probe they would have cost.
  bool maybe_key(std::uint64_t hash) const;
  Decision decide_ip(const IpAddress& ip, std::optional<std::uint16_t> port) const;
  // The helpers below fill `d` in place: every public function builds one named Decision
  // and returns it, so it is constructed in the caller's slot (copying a partly written
  // Decision out of a temporary stalled on store forwarding, ~15 ns a decision).
  // `d` decided by egress.default (nothing else matched).
  void by_default(Decision& d) const;
  // The allowedAddresses entry covering the address or the IPv4 it embeds, if any.
  const AddressGrant* address_grant_for(const IpAddress& address, const IpAddress& embedded) const;
  // `d` is a loopback target (its address, if any, already set): the grant for the port.
  void loopback(Decision& d, std::optional<std::uint16_t> port) const;

  std::vector<DomainEntry> entries_;  // owns every pattern; slots_ point into it
  std::string keys_;                  // every distinct key, back to back
  std::vector<Slot> slots_;
  std::vector<Bucket> table_;  // power-of-two size, at most half full
  std::vector<std::uint64_t> bloom_;  // power-of-two count of bits
  std::uint64_t bloom_mask_ = 0;      // bit count - 1
  std::uint64_t mask_ = 0;
  std::size_t min_key_ = ~std::size_t{0};  // shortest key: shorter suffixes are not probed
  std::size_t max_key_ = 0;                // longest key: longer suffixes are not probed
  std::vector<LoopbackGrant> loopback_;
  std::vector<AddressGrant> addresses_;
  std::vector<IpAddress> host_addresses_;
  DefaultAction default_ = DefaultAction::deny;
};

}  // namespace halo::policy
