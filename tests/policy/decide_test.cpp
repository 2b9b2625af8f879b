// The decision table: each row names a case and asserts the verdict AND the rule.
#include "policy/egress_rules.h"

#include <gtest/gtest.h>

#include "policy/loader.h"
#include "tests/policy/nasty_hosts.h"

namespace halo::policy {
namespace {

constexpr const char* kPolicy = R"(egress:
  default: deny
  allowedDomains:
    - allowed.com
    - "*.wild.com"
    - api.both.com
    - xn--bcher-kva.example
    - "*.deep.example"
  deniedDomains:
    - pastebin.com
    - "*.bad.wild.com"
    - api.both.com
    - "*.evil.example"
  presets: [vcs]
  loopback: [8080, 5432]
  allowedAddresses: [10.20.0.0/16, "fd00:1::/48", 100.64.1.0/24]
)";

constexpr const char* A = "allowedDomains: allowed.com (test.yaml:4)";
constexpr const char* W = "allowedDomains: *.wild.com (test.yaml:5)";
constexpr const char* IDN = "allowedDomains: xn--bcher-kva.example (test.yaml:7)";
constexpr const char* DEEP = "allowedDomains: *.deep.example (test.yaml:8)";
constexpr const char* PB = "deniedDomains: pastebin.com (test.yaml:10)";
constexpr const char* BW = "deniedDomains: *.bad.wild.com (test.yaml:11)";
constexpr const char* BOTH = "deniedDomains: api.both.com (test.yaml:12)";
constexpr const char* EV = "deniedDomains: *.evil.example (test.yaml:13)";
constexpr const char* DEF = "default: deny";
constexpr const char* G8080 = "loopback grant: 8080 (test.yaml:15)";
constexpr const char* G5432 = "loopback grant: 5432 (test.yaml:15)";
constexpr const char* NET10 = "allowedAddresses: 10.20.0.0/16 (test.yaml:16)";
constexpr const char* ULA1 = "allowedAddresses: fd00:1::/48 (test.yaml:16)";
constexpr const char* CG1 = "allowedAddresses: 100.64.1.0/24 (test.yaml:16)";
constexpr int NOPORT = -1;

struct Row {
  const char* name;
  std::string host;
  int port;
  Verdict verdict;
  std::string rule;
};

const Verdict ALLOW = Verdict::allow;
const Verdict DENY = Verdict::deny;

std::string lng(int port) { return "loopback: port " + std::to_string(port) + " is not granted"; }
std::string addr(const char* a, const char* cls) { return std::string("address ") + a + " is " + cls; }
std::string malformed(const char* why) { return std::string("malformed host: ") + why; }

std::vector<Row> rows() {
  return {
      // --- names: exact, wildcard, apex, deny wins --------------------------------
      {"exact_allow", "allowed.com", 443, ALLOW, A},
      {"exact_allow_other_port", "allowed.com", 22, ALLOW, A},
      {"exact_allow_no_port", "allowed.com", NOPORT, ALLOW, A},
      {"exact_does_not_cover_subdomain", "www.allowed.com", 443, DENY, DEF},
      {"suffix_attack", "allowed.com.evil.com", 443, DENY, DEF},
      {"prefix_attack", "evilallowed.com", 443, DENY, DEF},
      {"prefix_attack_hyphen", "evil-allowed.com", 443, DENY, DEF},
      {"wildcard_subdomain", "api.wild.com", 443, ALLOW, W},
      {"wildcard_deep_subdomain", "a.b.c.wild.com", 443, ALLOW, W},
      {"wildcard_never_apex", "wild.com", 443, DENY, DEF},
      {"wildcard_not_suffix_string", "notwild.com", 443, DENY, DEF},
      {"wildcard_not_suffix_string_sub", "x.notwild.com", 443, DENY, DEF},
      {"deny_wildcard_beats_allow_wildcard", "x.bad.wild.com", 443, DENY, BW},
      {"deny_wildcard_deep", "a.b.bad.wild.com", 443, DENY, BW},
      {"deny_wildcard_apex_falls_to_allow", "bad.wild.com", 443, ALLOW, W},
      {"name_in_both_lists_denied", "api.both.com", 443, DENY, BOTH},
      {"both_sub_not_matched", "x.api.both.com", 443, DENY, DEF},
      {"deny_exact", "pastebin.com", 443, DENY, PB},
      {"deny_exact_no_port", "pastebin.com", NOPORT, DENY, PB},
      {"deny_exact_sub_not_covered", "www.pastebin.com", 443, DENY, DEF},
      {"deny_wildcard_evil", "x.evil.example", 80, DENY, EV},
      {"deny_wildcard_evil_apex_default", "evil.example", 80, DENY, DEF},
      {"deep_wildcard", "a.deep.example", 443, ALLOW, DEEP},
      {"deep_wildcard_apex", "deep.example", 443, DENY, DEF},
      {"single_label", "com", 443, DENY, DEF},
      {"unrelated", "example.org", 443, DENY, DEF},
      // --- presets ---------------------------------------------------------------
      {"preset_exact", "github.com", 443, ALLOW, "preset vcs: github.com"},
      {"preset_wildcard", "api.github.com", 443, ALLOW, "preset vcs: *.github.com"},
      {"preset_wildcard_deep", "a.b.github.com", 443, ALLOW, "preset vcs: *.github.com"},
      {"preset_raw", "raw.githubusercontent.com", 443, ALLOW, "preset vcs: *.githubusercontent.com"},
      {"preset_apex_not_in_list", "githubusercontent.com", 443, DENY, DEF},
      {"preset_suffix_attack", "github.com.evil.com", 443, DENY, DEF},
      {"preset_prefix_attack", "evilgithub.com", 443, DENY, DEF},
      {"preset_upper", "GitHub.COM", 443, ALLOW, "preset vcs: github.com"},
      // --- case, dots, IDN ---------------------------------------------------------
      {"upper_case", "ALLOWED.COM", 443, ALLOW, A},
      {"mixed_case_wildcard", "Api.Wild.Com", 443, ALLOW, W},
      {"trailing_dot", "allowed.com.", 443, ALLOW, A},
      {"trailing_dot_denied", "pastebin.com.", 443, DENY, PB},
      {"upper_trailing_dot_denied", "PASTEBIN.COM.", 443, DENY, PB},
      {"two_trailing_dots", "allowed.com..", 443, DENY, malformed("empty label")},
      {"leading_dot", ".allowed.com", 443, DENY, malformed("empty label")},
      {"empty_label", "allowed..com", 443, DENY, malformed("empty label")},
      {"empty_host", "", 443, DENY, malformed("empty host")},
      {"idn_unicode", "b\xc3\xbc" "cher.example", 443, ALLOW, IDN},
      {"idn_punycode", "xn--bcher-kva.example", 443, ALLOW, IDN},
      {"idn_upper", "B\xc3\x9c" "CHER.EXAMPLE", 443, ALLOW, IDN},
      {"idn_fullwidth_dot_denied", "pastebin\xef\xbc\x8e" "com", 443, DENY, PB},
      {"idn_fullwidth_letters_denied", "\xef\xbd\x90" "astebin.com", 443, DENY, PB},
      {"idn_zero_width_denied", "paste\xe2\x80\x8b" "bin.com", 443, DENY, PB},
      {"bad_punycode", "xn--zz-zzz.example", 443, DENY, malformed("not a valid A-label (punycode)")},
      {"underscore", "al_lowed.com", 443, DENY,
       malformed("character not allowed in a host name (letters, digits, '-' only)")},
      {"percent_encoding", "%70astebin.com", 443, DENY,
       malformed("character not allowed in a host name (letters, digits, '-' only)")},
      {"space", "allowed.com ", 443, DENY,
       malformed("character not allowed in a host name (letters, digits, '-' only)")},
      {"userinfo_in_host", "user@allowed.com", 443, DENY,
       malformed("character not allowed in a host name (letters, digits, '-' only)")},
      {"host_with_port_text", "allowed.com:443", 443, DENY,
       malformed("':' in host (a port, or an IPv6 address that is not valid?)")},
      {"leading_hyphen", "-allowed.com", 443, DENY, malformed("label starts or ends with '-'")},
      {"label_too_long", std::string(64, 'a') + ".com", 443, DENY, malformed("label longer than 63 octets")},
      {"name_too_long", std::string(63, 'a') + "." + std::string(63, 'a') + "." +
                             std::string(63, 'a') + "." + std::string(63, 'a'),
       443, DENY, malformed("name longer than 253 octets")},
      {"numeric_last_label", "allowed.123", 443, DENY,
       malformed("ends in a number but is not a valid IPv4 address")},
      {"port_zero", "allowed.com", 0, DENY, "bad port: port 0"},
      // --- localhost names ---------------------------------------------------------
      {"localhost_granted", "localhost", 8080, ALLOW, G8080},
      {"localhost_granted_other", "localhost", 5432, ALLOW, G5432},
      {"localhost_not_granted", "localhost", 22, DENY, lng(22)},
      {"localhost_upper", "LOCALHOST", 8080, ALLOW, G8080},
      {"localhost_trailing_dot", "localhost.", 8080, ALLOW, G8080},
      {"localhost_sub", "db.localhost", 8080, ALLOW, G8080},
      {"localhost_sub_not_granted", "db.localhost", 6379, DENY, lng(6379)},
      {"localhost_no_port", "localhost", NOPORT, DENY,
       "bad input: a loopback target needs a port (loopback is granted per port)"},
      {"localhost_lookalike", "localhost.example", 8080, DENY, DEF},
      {"notlocalhost", "notlocalhost", 8080, DENY, DEF},
  };
}

std::vector<Row> address_rows() {
  std::vector<Row> r;
  // Every encoding of 127.0.0.1, granted and ungranted ports.
  for (const char* h : {"127.0.0.1", "127.1", "0x7f.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433",
                        "0x7f000001", "017700000001", "127.0.1", "127.0.0.1.", "[::1]", "::1",
                        "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
                        "127.255.255.254", "127.10.20.30"}) {
    r.push_back({"loopback_granted", h, 8080, ALLOW, G8080});
    r.push_back({"loopback_not_granted", h, 9, DENY, lng(9)});
  }
  r.push_back({"loopback_literal_no_port", "127.0.0.1", NOPORT, DENY,
               "bad input: a loopback target needs a port (loopback is granted per port)"});
  // Metadata and link-local, in every form.
  const std::string meta = addr("169.254.169.254", "link-local");
  for (const char* h : {"169.254.169.254", "2852039166", "0xa9fea9fe", "0251.0376.0251.0376",
                        "169.254.43518"}) {
    r.push_back({"metadata", h, 80, DENY, meta});
  }
  for (const char* h : {"[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]", "[0:0:0:0:0:ffff:a9fe:a9fe]"}) {
    r.push_back({"metadata_mapped", h, 80, DENY,
                 "address 169.254.169.254 (embedded IPv4-mapped) is link-local"});
  }
  r.push_back({"metadata_nat64", "[64:ff9b::a9fe:a9fe]", 80, DENY,
               "address 169.254.169.254 (embedded NAT64) is link-local"});
  r.push_back({"metadata_6to4", "[2002:a9fe:a9fe::1]", 80, DENY,
               "address 169.254.169.254 (embedded 6to4) is link-local"});
  r.push_back({"link_local_v6", "[fe80::1]", 443, DENY, addr("fe80::1", "link-local")});
  // Private, CGNAT, ULA: only through allowedAddresses.
  r.push_back({"private_10_denied", "10.0.0.5", 443, DENY, addr("10.0.0.5", "private")});
  r.push_back({"private_10_int", "167772165", 443, DENY, addr("10.0.0.5", "private")});
  r.push_back({"private_10_granted", "10.20.3.4", 443, ALLOW, NET10});
  r.push_back({"private_10_granted_short", "10.20.772", 443, ALLOW, NET10});
  r.push_back({"private_10_granted_edge", "10.20.255.255", 443, ALLOW, NET10});
  r.push_back({"private_10_just_outside", "10.21.0.0", 443, DENY, addr("10.21.0.0", "private")});
  r.push_back({"private_172", "172.16.0.1", 443, DENY, addr("172.16.0.1", "private")});
  r.push_back({"private_172_31", "172.31.255.255", 443, DENY, addr("172.31.255.255", "private")});
  r.push_back({"public_172_32", "172.32.0.1", 443, DENY, DEF});
  r.push_back({"private_192_168", "192.168.1.1", 443, DENY, addr("192.168.1.1", "private")});
  r.push_back({"private_mapped", "[::ffff:10.0.0.5]", 443, DENY,
               "address 10.0.0.5 (embedded IPv4-mapped) is private"});
  r.push_back({"private_mapped_granted", "[::ffff:10.20.0.1]", 443, ALLOW, NET10});
  r.push_back({"cgnat_denied", "100.64.0.1", 443, DENY, addr("100.64.0.1", "CGNAT")});
  r.push_back({"cgnat_granted", "100.64.1.7", 443, ALLOW, CG1});
  r.push_back({"ula_denied", "[fd12::1]", 443, DENY, addr("fd12::1", "unique-local")});
  r.push_back({"ula_granted", "[fd00:1::5]", 443, ALLOW, ULA1});
  r.push_back({"benchmark_pool", "198.18.0.1", 443, DENY, addr("198.18.0.1", "private")});
  // Always denied.
  r.push_back({"unspecified_v4", "0.0.0.0", 80, DENY, addr("0.0.0.0", "unspecified")});
  r.push_back({"unspecified_v4_zero", "0", 80, DENY, addr("0.0.0.0", "unspecified")});
  r.push_back({"this_network", "0.1.2.3", 80, DENY, addr("0.1.2.3", "unspecified")});
  r.push_back({"unspecified_v6", "[::]", 80, DENY, addr("::", "unspecified")});
  r.push_back({"multicast_v4", "224.0.0.1", 80, DENY, addr("224.0.0.1", "multicast")});
  r.push_back({"multicast_v6", "[ff02::1]", 80, DENY, addr("ff02::1", "multicast")});
  r.push_back({"broadcast", "255.255.255.255", 80, DENY, addr("255.255.255.255", "reserved")});
  r.push_back({"class_e", "240.0.0.1", 80, DENY, addr("240.0.0.1", "reserved")});
  r.push_back({"ietf_protocol", "192.0.0.8", 80, DENY, addr("192.0.0.8", "reserved")});
  r.push_back({"v4_compatible", "[::10.0.0.5]", 80, DENY, addr("::10.0.0.5", "reserved")});
  r.push_back({"discard_prefix", "[100::1]", 80, DENY, addr("100::1", "reserved")});
  r.push_back({"site_local", "[fec0::1]", 80, DENY, addr("fec0::1", "reserved")});
  // Tunnelling forms judged by what they embed.
  r.push_back({"nat64_loopback", "[64:ff9b::7f00:1]", 9, DENY, lng(9)});
  r.push_back({"nat64_loopback_granted", "[64:ff9b::7f00:1]", 8080, ALLOW, G8080});
  r.push_back({"nat64_private", "[64:ff9b::a00:5]", 443, DENY,
               "address 10.0.0.5 (embedded NAT64) is private"});
  r.push_back({"nat64_local_use", "[64:ff9b:1:a00:0:1:808:808]", 443, DENY,
               addr("64:ff9b:1:a00:0:1:808:808", "reserved")});
  r.push_back({"sixtofour_private", "[2002:a00:5::1]", 443, DENY,
               "address 10.0.0.5 (embedded 6to4) is private"});
  r.push_back({"teredo_client_private", "[2001:0:c633:6401::f5ff:fffa]", 443, DENY,
               "address 10.0.0.5 (embedded Teredo) is private"});
  r.push_back({"teredo_server_metadata", "[2001:0:a9fe:a9fe::]", 443, DENY,
               "address 169.254.169.254 (embedded Teredo) is link-local"});
  // Public literals: no domain rule names them; the default decides.
  r.push_back({"public_v4_default", "198.51.100.7", 443, DENY, DEF});
  r.push_back({"public_v4_int_default", "3325256711", 443, DENY, DEF});
  r.push_back({"public_v6_default", "[2001:db8::7]", 443, DENY, DEF});
  r.push_back({"nat64_public_default", "[64:ff9b::c633:6407]", 443, DENY, DEF});
  // Malformed literals.
  r.push_back({"v4_five_parts", "1.2.3.4.5", 443, DENY,
               malformed("ends in a number but is not a valid IPv4 address")});
  r.push_back({"v4_part_256", "1.2.3.256", 443, DENY,
               malformed("ends in a number but is not a valid IPv4 address")});
  r.push_back({"v4_overflow", "4294967296", 443, DENY,
               malformed("ends in a number but is not a valid IPv4 address")});
  r.push_back({"v4_bad_octal", "08.0.0.1", 443, DENY,
               malformed("ends in a number but is not a valid IPv4 address")});
  r.push_back({"brackets_v4", "[127.0.0.1]", 8080, DENY, malformed("brackets hold IPv6 addresses only")});
  r.push_back({"v6_zone", "[fe80::1%25eth0]", 443, DENY, malformed("IPv6 zone identifiers are not allowed")});
  r.push_back({"v6_unterminated", "[::1", 8080, DENY, malformed("unterminated '[' in host")});
  r.push_back({"v6_garbage", "[::g]", 443, DENY, malformed("not a valid IPv6 address")});
  return r;
}

class DecideTable : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadResult r = load_profile_text("test.yaml", kPolicy, PresetEnvironment{});
    for (const auto& d : r.diagnostics.items) ADD_FAILURE() << d.to_string();
    ASSERT_TRUE(r.policy);
    policy_ = r.policy;
  }
  void check(const std::vector<Row>& table) {
    for (const auto& row : table) {
      SCOPED_TRACE(std::string(row.name) + " [" + row.host + "]:" + std::to_string(row.port));
      std::optional<std::uint16_t> port;
      if (row.port >= 0) port = static_cast<std::uint16_t>(row.port);
      Decision d = policy_->egress_rules().decide(row.host, port);
      EXPECT_EQ(to_string(d.verdict), std::string(to_string(row.verdict)));
      EXPECT_EQ(d.rule(), row.rule);
    }
  }
  std::shared_ptr<const Policy> policy_;
};

TEST_F(DecideTable, Names) { check(rows()); }
TEST_F(DecideTable, Addresses) { check(address_rows()); }

TEST_F(DecideTable, AtLeast150Rows) { EXPECT_GE(rows().size() + address_rows().size(), 150u); }

// Every nasty host that normalizes decides exactly as its canonical form does.
TEST_F(DecideTable, NastyCorpusDecidesAsCanonical) {
  const auto& rules = policy_->egress_rules();
  for (const auto& n : testing::nasty_hosts()) {
    SCOPED_TRACE(n.name);
    Decision raw = rules.decide(n.raw, std::uint16_t{8080});
    if (n.expected == nullptr) {
      EXPECT_EQ(raw.verdict, Verdict::deny);
      EXPECT_EQ(raw.reason, Reason::malformed_host);
    } else {
      Decision canon = rules.decide(n.expected, std::uint16_t{8080});
      EXPECT_EQ(raw.verdict, canon.verdict);
      EXPECT_EQ(raw.rule(), canon.rule());
    }
  }
}

TEST_F(DecideTable, CheckAddressForResolvedNames) {
  const auto& rules = policy_->egress_rules();
  struct A {
    const char* name;
    const char* ip;
    std::uint16_t port;
    Verdict v;
    std::string rule;
  };
  std::vector<A> table = {
      {"public", "198.51.100.7", 443, ALLOW, addr("198.51.100.7", "public")},
      {"rebind_loopback", "127.0.0.1", 443, DENY, lng(443)},
      {"rebind_loopback_granted", "127.0.0.1", 8080, ALLOW, G8080},
      {"rebind_private", "10.0.0.5", 443, DENY, addr("10.0.0.5", "private")},
      {"rebind_metadata", "169.254.169.254", 80, DENY, addr("169.254.169.254", "link-local")},
      {"rebind_mapped", "::ffff:10.0.0.5", 443, DENY,
       "address 10.0.0.5 (embedded IPv4-mapped) is private"},
      {"granted_range", "10.20.0.9", 443, ALLOW, NET10},
      {"public_v6", "2001:db8::1", 443, ALLOW, addr("2001:db8::1", "public")},
  };
  for (const auto& row : table) {
    SCOPED_TRACE(row.name);
    Decision d = rules.check_address(*IpAddress::parse_strict(row.ip), row.port);
    EXPECT_EQ(d.verdict, row.v);
    EXPECT_EQ(d.rule(), row.rule);
  }
}

TEST_F(DecideTable, VetResolutionCnameAndRebinding) {
  const auto& rules = policy_->egress_rules();
  Decision name = rules.decide("allowed.com", std::uint16_t{443});
  ASSERT_TRUE(name.allowed());
  std::vector<IpAddress> addrs = {*IpAddress::parse_strict("198.51.100.7"),
                                  *IpAddress::parse_strict("127.0.0.1"),
                                  *IpAddress::parse_strict("10.0.0.5")};
  std::vector<std::string> no_cnames;
  VettedResolution v = rules.vet(name, {no_cnames, addrs});
  EXPECT_TRUE(v.decision.allowed());
  ASSERT_EQ(v.dialable.size(), 1u);
  EXPECT_EQ(v.dialable[0].to_string(), "198.51.100.7");
  EXPECT_EQ(v.rejected.size(), 2u);

  // Only bad addresses: denied with the first reason.
  std::vector<IpAddress> bad = {*IpAddress::parse_strict("127.0.0.1")};
  v = rules.vet(name, {no_cnames, bad});
  EXPECT_FALSE(v.decision.allowed());
  EXPECT_EQ(v.decision.rule(), lng(443));

  // A CNAME through a denied name denies everything.
  std::vector<std::string> via_denied = {"cdn.example.net", "x.evil.example"};
  v = rules.vet(name, {via_denied, addrs});
  EXPECT_FALSE(v.decision.allowed());
  EXPECT_EQ(v.decision.rule(), EV);
  EXPECT_TRUE(v.dialable.empty());

  // A CNAME to a name that merely falls to the default is fine (CDNs).
  std::vector<std::string> via_cdn = {"allowed.cdn.example.net"};
  v = rules.vet(name, {via_cdn, addrs});
  EXPECT_TRUE(v.decision.allowed());

  // A CNAME into localhost is judged like 127.0.0.1: refused unless the port is granted.
  std::vector<std::string> via_local = {"localhost"};
  v = rules.vet(name, {via_local, addrs});
  EXPECT_FALSE(v.decision.allowed());
  EXPECT_EQ(v.decision.rule(), lng(443));
  Decision granted = rules.decide("allowed.com", std::uint16_t{8080});
  std::vector<IpAddress> loop = {*IpAddress::parse_strict("127.0.0.1")};
  v = rules.vet(granted, {via_local, loop});
  EXPECT_TRUE(v.decision.allowed());

  // No addresses at all.
  std::vector<IpAddress> none;
  v = rules.vet(name, {no_cnames, none});
  EXPECT_EQ(v.decision.reason, Reason::no_address);

  // A denied name is never vetted into an allow.
  Decision denied = rules.decide("pastebin.com", std::uint16_t{443});
  v = rules.vet(denied, {no_cnames, addrs});
  EXPECT_FALSE(v.decision.allowed());
  EXPECT_TRUE(v.dialable.empty());
}

TEST(DecideDefaults, UnsetDefaultDeniesWhenSomethingIsAllowed) {
  auto r = load_profile_text("t.yaml", "egress:\n  allowedDomains: [a.example]\n", {});
  ASSERT_TRUE(r.policy);
  Decision d = r.policy->egress_rules().decide("b.example", std::uint16_t{443});
  EXPECT_EQ(d.rule(), "default: deny");
}

TEST(DecideDefaults, NoEgressPolicyAllowsPublicOnly) {
  auto r = load_profile_text("t.yaml", "egress:\n  deniedDomains: [pastebin.com]\n", {});
  ASSERT_TRUE(r.policy);
  const auto& rules = r.policy->egress_rules();
  EXPECT_EQ(rules.decide("b.example", std::uint16_t{443}).rule(), "default: allow");
  EXPECT_EQ(rules.decide("pastebin.com", std::uint16_t{443}).rule(),
            "deniedDomains: pastebin.com (t.yaml:2)");
  // default allow never opens loopback, private or metadata addresses
  EXPECT_FALSE(rules.decide("127.0.0.1", std::uint16_t{80}).allowed());
  EXPECT_FALSE(rules.decide("localhost", std::uint16_t{80}).allowed());
  EXPECT_FALSE(rules.decide("10.0.0.5", std::uint16_t{80}).allowed());
  EXPECT_FALSE(rules.decide("169.254.169.254", std::uint16_t{80}).allowed());
  EXPECT_TRUE(rules.decide("198.51.100.7", std::uint16_t{80}).allowed());
}

TEST(DecideHostAddresses, ThisHostsOwnAddressesNeedALoopbackGrant) {
  EgressPolicy e;
  e.default_action = DefaultAction::allow;
  e.loopback.push_back({8080, {"t.yaml", 3, 5}});
  std::vector<IpAddress> host = {*IpAddress::parse_strict("198.51.100.9"),
                                 *IpAddress::parse_strict("2001:db8::9")};
  EgressRules rules(e, host);
  Decision d = rules.check_address(host[0], 22);
  EXPECT_FALSE(d.allowed());
  EXPECT_EQ(d.rule(), "address 198.51.100.9 is this host's own: port 22 is not granted");
  EXPECT_TRUE(rules.check_address(host[0], 8080).allowed());
  EXPECT_FALSE(rules.decide("[2001:db8::9]", std::uint16_t{22}).allowed());
  EXPECT_FALSE(rules.decide("[::ffff:198.51.100.9]", std::uint16_t{22}).allowed());
  EXPECT_TRUE(rules.decide("198.51.100.10", std::uint16_t{22}).allowed());
}

TEST(DecideMetadata, CloudMetadataOutsideLinkLocalIsAlwaysDenied) {
  auto r = load_profile_text("t.yaml", "egress:\n  allowedAddresses: [fd00::/8]\n", {});
  ASSERT_TRUE(r.policy);
  const auto& rules = r.policy->egress_rules();
  EXPECT_EQ(rules.decide("168.63.129.16", std::uint16_t{80}).rule(),
            "address 168.63.129.16 is a cloud metadata endpoint");
  EXPECT_EQ(rules.decide("[fd00:ec2::254]", std::uint16_t{80}).rule(),
            "address fd00:ec2::254 is a cloud metadata endpoint");
  EXPECT_TRUE(rules.decide("[fd00:ec2::253]", std::uint16_t{80}).allowed());
}

TEST(DecideDefaults, PublicRangeInAllowedAddressesOpensLiteralsOnly) {
  auto r = load_profile_text(
      "t.yaml", "egress:\n  default: deny\n  allowedAddresses: [198.51.100.0/24]\n", {});
  ASSERT_TRUE(r.policy);
  const auto& rules = r.policy->egress_rules();
  Decision d = rules.decide("198.51.100.7", std::uint16_t{443});
  EXPECT_TRUE(d.allowed());
  EXPECT_EQ(d.rule(), "allowedAddresses: 198.51.100.0/24 (t.yaml:3)");
  EXPECT_EQ(rules.decide("198.51.101.7", std::uint16_t{443}).rule(), "default: deny");
  EXPECT_EQ(rules.decide("example.com", std::uint16_t{443}).rule(), "default: deny");
}

}  // namespace
}  // namespace halo::policy
