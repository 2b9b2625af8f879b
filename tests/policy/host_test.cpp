#include "policy/host.h"

#include <gtest/gtest.h>

#include "tests/policy/nasty_hosts.h"

namespace halo::policy {
namespace {

TEST(NormalizeHost, NastyCorpus) {
  for (const auto& row : testing::nasty_hosts()) {
    SCOPED_TRACE(row.name);
    HostResult r = normalize_host(row.raw);
    if (row.expected == nullptr) {
      EXPECT_FALSE(r) << "accepted as " << (r ? r.host->text : "");
      if (!r) {
        EXPECT_STRNE(r.error.reason, "");
      }
    } else {
      ASSERT_TRUE(r) << r.error.reason;
      EXPECT_EQ(r.host->text, row.expected);
    }
  }
}

// The one-pass fast path (is_canonical_name) accepts exactly the names that normalize to
// themselves, across the corpus and the label/length edges.
TEST(NormalizeHost, CanonicalFastPathAgreesWithNormalization) {
  std::vector<std::string> inputs = {"a", "a-b.c", "-a.b", "a-.b", "a..b", ".a", "a.", "a.b-",
                                     "a_b.c", "A.b", "0x1f", "1.2.3.4", "a.0x1g", "a.123",
                                     "xn--bcher-kva.example", std::string(63, 'a') + ".b",
                                     std::string(64, 'a') + ".b", "a b", "a/b", "a\x7f"};
  const std::string l63(63, 'a');
  const std::string n253 = l63 + "." + l63 + "." + l63 + "." + std::string(61, 'a');
  inputs.push_back(n253);                      // 253 octets: the longest name
  inputs.push_back(n253 + "a");                // 254
  inputs.push_back("b." + std::string(64, 'a'));  // last label over 63
  inputs.push_back("b." + l63);
  inputs.push_back(std::string("a\0b.c", 5));   // NUL inside
  inputs.push_back("b\xc3\xa9.example");        // UTF-8: normalizes to an A-label
  inputs.push_back("\x80.example");
  inputs.push_back("a.b:443");
  inputs.push_back("[::1]");
  for (const auto& row : testing::nasty_hosts()) inputs.emplace_back(row.raw);
  for (const auto& raw : inputs) {
    SCOPED_TRACE(raw);
    HostResult r = normalize_host(raw);
    bool self = r && r.host->kind == NormalizedHost::Kind::name && r.host->text == raw;
    if (is_canonical_name(raw)) {
      EXPECT_TRUE(self);
    } else if (raw.find("xn--") == std::string::npos) {
      EXPECT_FALSE(self);  // only A-labels leave the fast path while already canonical
    }
  }
}

TEST(NormalizeHost, NameLengthLimit) {
  std::string label(63, 'a');
  std::string name = label + "." + label + "." + label + "." + std::string(61, 'a');  // 253
  EXPECT_TRUE(normalize_host(name));
  EXPECT_FALSE(normalize_host(name + "a"));
  EXPECT_FALSE(normalize_host(std::string(5000, 'a')));
}

TEST(NormalizeHost, KindsAndCanonicalFastPath) {
  EXPECT_EQ(normalize_host("2130706433").host->kind, NormalizedHost::Kind::ip);
  EXPECT_EQ(normalize_host("Example.com").host->kind, NormalizedHost::Kind::name);
  EXPECT_TRUE(is_canonical_name("api.github.com"));
  EXPECT_FALSE(is_canonical_name("API.github.com"));
  EXPECT_FALSE(is_canonical_name("github.com."));
  EXPECT_FALSE(is_canonical_name("127.1"));
  EXPECT_FALSE(is_canonical_name("xn--bcher-kva.example"));  // needs the IDNA check
}

TEST(NormalizeHost, LocalhostNames) {
  EXPECT_TRUE(is_localhost_name("localhost"));
  EXPECT_TRUE(is_localhost_name("db.localhost"));
  EXPECT_FALSE(is_localhost_name("notlocalhost"));
  EXPECT_FALSE(is_localhost_name("localhost.example"));
  EXPECT_FALSE(is_localhost_name(".localhost"));
}

}  // namespace
}  // namespace halo::policy
