// decide_name against a test oracle that matches the plainest way (every rule, every
// name, no hashing, no Bloom filter), over thousands of rules and names drawn from a small
// label set so that exact and wildcard rules, allow and deny, overlap at every depth. A
// false negative of the table or its filter (a rule present but not seen) fails here.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "policy/egress_rules.h"

namespace halo::policy {
namespace {

std::string random_name(std::mt19937& rng, int max_labels) {
  static const char* kLabels[] = {"a", "b", "api", "cdn", "x1", "mail", "dev", "ex-1", "z"};
  static const char* kTops[] = {"com", "org", "test"};
  std::string s = kTops[rng() % 3];
  const int n = 1 + static_cast<int>(rng() % max_labels);
  for (int i = 0; i < n; ++i) s = std::string(kLabels[rng() % 9]) + "." + s;
  return s;
}

bool matches(const DomainEntry& e, const std::string& name) {
  if (!e.wildcard()) return e.pattern == name;
  const std::string_view base = e.base();
  return name.size() > base.size() + 1 && name.ends_with(base) &&
         name[name.size() - base.size() - 1] == '.';
}

// The most specific matching rule: the exact one, else the wildcard with the longest base.
const DomainEntry* best(const std::vector<DomainEntry>& rules, const std::string& name) {
  const DomainEntry* out = nullptr;
  for (const auto& e : rules) {
    if (!matches(e, name)) continue;
    if (out == nullptr) {
      out = &e;
    } else if (!e.wildcard() && out->wildcard()) {
      out = &e;
    } else if (e.wildcard() && out->wildcard() && e.base().size() > out->base().size()) {
      out = &e;
    }
  }
  return out;
}

TEST(DecideOracle, AgreesWithALinearMatcherOverThousandsOfRules) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    EgressPolicy e;
    e.default_action = DefaultAction::deny;
    std::set<std::string> seen;
    while (seen.size() < 3000) {
      std::string p = random_name(rng, 3);
      if (rng() % 2) p = "*." + p;
      if (!seen.insert(p).second) continue;
      DomainEntry d{p, rng() % 4 == 0 ? "deniedDomains" : "allowedDomains", {}};
      (d.origin == "deniedDomains" ? e.denied_domains : e.allowed_domains).push_back(d);
    }
    const EgressRules rules(e);
    int allowed = 0, denied_by_rule = 0;
    for (int i = 0; i < 8000; ++i) {
      const std::string name = random_name(rng, 5);
      SCOPED_TRACE(name);
      const Decision d = rules.decide_name(name, std::uint16_t{443});
      const DomainEntry* deny = best(e.denied_domains, name);
      const DomainEntry* allow = best(e.allowed_domains, name);
      if (deny) {
        ASSERT_EQ(d.reason, Reason::denied_domain);
        ASSERT_EQ(d.domain->pattern, deny->pattern);
        ++denied_by_rule;
      } else if (allow) {
        ASSERT_EQ(d.reason, Reason::allowed_domain);
        ASSERT_EQ(d.domain->pattern, allow->pattern);
        ++allowed;
      } else {
        ASSERT_EQ(d.reason, Reason::default_action);
        ASSERT_FALSE(d.allowed());
      }
    }
    // The draw must exercise every branch, or the comparison proves little.
    EXPECT_GT(allowed, 500);
    EXPECT_GT(denied_by_rule, 500);
  }
}

}  // namespace
}  // namespace halo::policy
