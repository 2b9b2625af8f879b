// harness_enforcement: which mechanism holds one decision in each harness.
#include "policy/render/harness_enforcement.h"
#include "render_test_util.h"

namespace halo::render {
namespace {

struct Row {
  const char* name;
  const char* target;
  std::optional<std::uint16_t> port;
  policy::Verdict verdict;
  Field field;
};

const Row kRows[] = {
    {"denied_domain", "pastebin.com", 443, policy::Verdict::deny, Field::denied_domains},
    {"allowed_domain", "api.acme.example", 443, policy::Verdict::allow, Field::allowed_domains},
    {"preset_domain", "api.github.com", 443, policy::Verdict::allow, Field::presets},
    {"default_deny", "unlisted.example", 443, policy::Verdict::deny, Field::egress_default},
    {"loopback_grant", "127.0.0.1", 8080, policy::Verdict::allow, Field::loopback},
    {"loopback_no_grant", "localhost", 9999, policy::Verdict::deny, Field::loopback},
    {"private_address_granted", "10.20.1.2", 443, policy::Verdict::allow, Field::allowed_addresses},
};

TEST(HarnessEnforcement, MapsDecisionToFieldPerHarness) {
  auto p = testing::load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    const auto d = p->egress_rules().decide(row.target, row.port);
    EXPECT_EQ(d.verdict, row.verdict) << d.rule();
    EXPECT_EQ(decision_field(d), row.field);
    const auto per = harness_enforcement(*p, d, Os::linux_os);
    ASSERT_EQ(per.size(), 6u);
    for (const auto& e : per) {
      SCOPED_TRACE(to_string(e.harness));
      EXPECT_EQ(e.field, row.field);
      EXPECT_FALSE(e.mechanism.empty());
      if (e.level != EnforcementLevel::full) EXPECT_FALSE(e.warnings.empty());
    }
  }
}

TEST(HarnessEnforcement, BrokerHoldsGeminiAndOpenCodeEgress) {
  auto p = testing::load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  const auto d = p->egress_rules().decide("pastebin.com", 443);
  for (Os os : {Os::linux_os, Os::macos}) {
    for (const auto& e : harness_enforcement(*p, d, os, {Harness::gemini_cli, Harness::opencode})) {
      EXPECT_EQ(e.held_by, Holder::broker);
      EXPECT_EQ(e.level, os == Os::linux_os ? EnforcementLevel::full : EnforcementLevel::partial);
    }
  }
  const auto claude = harness_enforcement(*p, d, Os::linux_os, {Harness::claude_code});
  ASSERT_EQ(claude.size(), 1u);
  EXPECT_EQ(claude[0].held_by, Holder::native);
  EXPECT_NE(claude[0].mechanism.find("deniedDomains"), std::string::npos);
}

TEST(HarnessEnforcement, NoAddressGrantsFallsBackToDefault) {
  auto p = testing::load_yaml("egress: {allowedDomains: [a.example]}\n");
  ASSERT_NE(p, nullptr);
  const auto d = p->egress_rules().decide("10.1.2.3", 443);
  EXPECT_FALSE(d.allowed());
  for (const auto& e : harness_enforcement(*p, d, Os::linux_os)) EXPECT_EQ(e.field, Field::egress_default);
}

}  // namespace
}  // namespace halo::render
