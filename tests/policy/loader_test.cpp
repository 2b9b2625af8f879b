// Loading: extends chains, merge rules, rings and units, loosening, presets from the
// machine's configuration.
#include "policy/loader.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "policy/egress_rules.h"
#include "policy/merge.h"
#include "policy/profile_doc.h"

namespace halo::policy {
namespace {

const std::string kExamples = HALO_EXAMPLES;
const std::string kFixtures = HALO_FIXTURES;

bool has_domain(const std::vector<DomainEntry>& v, const std::string& p) {
  return std::any_of(v.begin(), v.end(), [&](const DomainEntry& e) { return e.pattern == p; });
}
bool has_path(const std::vector<PathEntry>& v, const std::string& p) {
  return std::any_of(v.begin(), v.end(), [&](const PathEntry& e) { return e.path == p; });
}

TEST(Loader, ExtendsChainMerges) {
  LoadResult r = load_profile(kExamples + "/profiles/strict.yaml", {});
  for (const auto& d : r.diagnostics.items) ADD_FAILURE() << d.to_string();
  ASSERT_TRUE(r.policy);
  const Policy& p = *r.policy;
  ASSERT_EQ(p.files.size(), 2u);
  EXPECT_NE(p.files[0].find("base.yaml"), std::string::npos);
  // deniedDomains union: base's three plus strict's one
  EXPECT_EQ(p.egress.denied_domains.size(), 4u);
  EXPECT_TRUE(has_domain(p.egress.denied_domains, "pastebin.com"));
  EXPECT_TRUE(has_domain(p.egress.denied_domains, "gist.github.com"));
  // presets replace
  ASSERT_EQ(p.egress.presets.size(), 1u);
  EXPECT_EQ(p.egress.presets[0].name, "vcs");
  // allowedDomains inherited when the child does not set them
  EXPECT_TRUE(has_domain(p.egress.allowed_domains, "ai.acme.example"));
  // protectedPaths union, credentials preset expanded
  EXPECT_TRUE(has_path(p.sandbox.protected_paths, "~/.ssh"));
  EXPECT_TRUE(has_path(p.sandbox.protected_paths, "~/.config/acme"));
  // the decision names the file and line of the rule, in the parent file
  Decision d = p.egress_rules().decide("pastebin.com", std::uint16_t{443});
  EXPECT_EQ(d.rule(), "deniedDomains: pastebin.com (" + kExamples + "/profiles/base.yaml:11)");
  d = p.egress_rules().decide("gist.github.com", std::uint16_t{443});
  EXPECT_EQ(d.rule(), "deniedDomains: gist.github.com (" + kExamples + "/profiles/strict.yaml:7)");
}

TEST(Loader, ChildReplacesAllowlistAndRoots) {
  LoadResult r = load_profile(kExamples + "/profiles/dev.yaml", {});
  ASSERT_TRUE(r.policy);
  const Policy& p = *r.policy;
  EXPECT_EQ(p.sandbox.writable_roots.size(), 2u);
  EXPECT_EQ(p.egress.presets.size(), 3u);
  EXPECT_EQ(p.egress.loopback.size(), 2u);
  EXPECT_TRUE(p.egress_rules().decide("db.internal.acme.example", std::uint16_t{443}).allowed());
  EXPECT_TRUE(p.egress_rules().decide("localhost", std::uint16_t{5432}).allowed());
}

TEST(Loader, RingAndUnit) {
  LoadResult r = load_ring(kExamples + "/policy-dir", "ring1", "payments", {});
  for (const auto& d : r.diagnostics.items) ADD_FAILURE() << d.to_string();
  ASSERT_TRUE(r.policy);
  EXPECT_TRUE(r.loosenings.empty());
  EXPECT_EQ(r.policy->name, "ring ring1, unit payments");
  EXPECT_FALSE(r.policy->egress_rules().decide("bucket.s3.amazonaws.com", std::uint16_t{443}).allowed());
  EXPECT_TRUE(has_path(r.policy->sandbox.protected_paths, "~/.payments-keys"));
  EXPECT_TRUE(has_path(r.policy->sandbox.protected_paths, "~/.ssh"));  // union kept
}

TEST(Loader, UnitLooseningsAreReportedWithLines) {
  LoadResult r = load_ring(kExamples + "/policy-dir", "ring1", "ml", {});
  ASSERT_TRUE(r.policy);
  ASSERT_EQ(r.loosenings.size(), 2u);
  EXPECT_EQ(r.loosenings[0].what, "adds writable root /scratch/ml");
  EXPECT_EQ(r.loosenings[0].loc.line, 6);
  EXPECT_EQ(r.loosenings[1].what, "adds allowed domain datasets.acme.example");
}

TEST(Loader, LooseningKinds) {
  Policy before;
  before.egress.default_action = DefaultAction::deny;
  before.egress.denied_domains.push_back({"pastebin.com", "deniedDomains", {}});
  before.sandbox.protected_paths.push_back({"~/.ssh", {}});
  before.sandbox.mode = SandboxMode::read_only;
  Policy after;
  after.egress.default_action = DefaultAction::allow;
  after.sandbox.mode = SandboxMode::workspace_write;
  after.egress.loopback.push_back({8080, {}});
  auto l = find_loosenings(before, after, SourceLoc{"u.yaml", 1, 1});
  std::vector<std::string> what;
  for (const auto& x : l) what.push_back(x.what);
  EXPECT_NE(std::find(what.begin(), what.end(), "switches egress.default deny -> allow"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "drops denied domain pastebin.com"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "drops protected path ~/.ssh"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "weakens sandbox.mode read-only -> workspace-write"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "adds loopback grant 8080"), what.end());
}

TEST(Loader, UnknownRingAndUnit) {
  LoadResult r = load_ring(kExamples + "/policy-dir", "ring9", "", {});
  EXPECT_FALSE(r.policy);
  EXPECT_NE(r.diagnostics.items.at(0).to_string().find("rings here: ring0, ring1, ring2"), std::string::npos);
  r = load_ring(kExamples + "/policy-dir", "ring1", "nope", {});
  EXPECT_FALSE(r.policy);
}

TEST(Loader, UnitMayNotSetProfileKeys) {
  Diagnostics d;
  auto doc = parse_profile_doc("u.yaml", "gateway: x.example\n", DocKind::unit, d);
  EXPECT_TRUE(d.has_errors());
}

TEST(Presets, MachineConfigurationGivesNpmAndAptHosts) {
  PresetEnvironment env =
      discover_preset_environment(kFixtures + "/machine", kFixtures + "/machine/home");
  ASSERT_EQ(env.npm_registry_hosts.size(), 1u);
  EXPECT_EQ(env.npm_registry_hosts[0], "npm.mirror.example");
  EXPECT_EQ(env.apt_hosts, (std::vector<std::string>{"deb.mirror.example", "security.mirror.example"}));
  EXPECT_TRUE(env.notes.empty());
  LoadResult r = load_profile_text("t.yaml", "egress:\n  presets: [package-registries]\n", env);
  ASSERT_TRUE(r.policy);
  Decision d = r.policy->egress_rules().decide("npm.mirror.example", std::uint16_t{443});
  EXPECT_EQ(d.rule(), "preset package-registries: npm.mirror.example");
  EXPECT_TRUE(r.policy->egress_rules().decide("deb.mirror.example", std::uint16_t{80}).allowed());
}

TEST(Presets, MissingConfigurationIsAWarningNotASilentGap) {
  PresetEnvironment env = discover_preset_environment(kFixtures + "/no-such-root", "");
  EXPECT_TRUE(env.npm_registry_hosts.empty());
  EXPECT_EQ(env.notes.size(), 2u);
  LoadResult r = load_profile_text("t.yaml", "egress:\n  presets: [package-registries]\n", env);
  ASSERT_TRUE(r.policy);
  EXPECT_EQ(r.diagnostics.items.size(), 2u);
  EXPECT_EQ(r.diagnostics.items[0].severity, Diagnostic::Severity::warning);
}

TEST(Presets, EveryPresetDomainIsAValidPattern) {
  for (const auto& p : builtin_presets({})) {
    SCOPED_TRACE(p.name);
    EXPECT_FALSE(p.description.empty());
    EXPECT_TRUE(p.domains.empty() != p.paths.empty());
  }
  // Loading a policy that names every egress preset validates every preset entry.
  LoadResult r = load_profile_text(
      "t.yaml", "egress:\n  presets: [vcs, package-registries, model-providers]\n", {});
  EXPECT_TRUE(r.policy);
}

}  // namespace
}  // namespace halo::policy
