// Dialect translations, one named row per case: wildcards, apex, default allow, globs,
// paths, modes and pins. Each row renders a small policy and asserts on the parsed file
// and on the field's level and warning.
#include <functional>

#include "policy/render/adapters.h"
#include "render_test_util.h"

namespace halo::render {
namespace {

using testing::contains;
using testing::has_warning;
using testing::json_of;
using testing::toml_of;

struct Row {
  const char* name;
  Harness harness;
  Os os;
  const char* yaml;
  std::function<void(const policy::Policy&, const AdapterResult&)> check;
  std::optional<Version> pin = std::nullopt;
};

EnforcementLevel level(const AdapterResult& a, Field f) {
  const FieldReport* r = a.report(f);
  return r ? r->level : EnforcementLevel::none;
}

const std::vector<Row>& rows() {
  static const std::vector<Row> kRows = {
      // --- wildcards and apex ---
      {"claude_wildcard_is_subdomains_only_kept_as_is", Harness::claude_code, Os::linux_os,
       "egress: {allowedDomains: ['*.acme.example']}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_EQ(j["sandbox"]["network"]["allowedDomains"], Json::array({"*.acme.example"}));
         EXPECT_EQ(j["sandbox"]["network"]["allowManagedDomainsOnly"], true);
         EXPECT_EQ(level(a, Field::allowed_domains), EnforcementLevel::full);
       }},
      {"codex_wildcard_single_star_not_double", Harness::codex, Os::linux_os,
       "egress: {allowedDomains: ['*.acme.example'], deniedDomains: [bad.acme.example]}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["experimental_network"]["domains"]["*.acme.example"].value<std::string>(), "allow");
         EXPECT_FALSE(t["experimental_network"]["domains"]["**.acme.example"]);
         EXPECT_EQ(t["experimental_network"]["domains"]["bad.acme.example"].value<std::string>(), "deny");
       }},
      {"cursor_wildcard_apex_denied_when_policy_denies_apex", Harness::cursor, Os::linux_os,
       "egress: {allowedDomains: ['*.acme.example']}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_TRUE(contains(j["networkPolicy"]["allow"], "*.acme.example"));
         EXPECT_TRUE(contains(j["networkPolicy"]["deny"], "acme.example"));
         EXPECT_TRUE(has_warning(a, Field::allowed_domains, "apex"));
       }},
      {"cursor_wildcard_apex_kept_when_policy_allows_apex", Harness::cursor, Os::linux_os,
       "egress: {allowedDomains: ['*.acme.example', acme.example]}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_FALSE(contains(j["networkPolicy"]["deny"], "acme.example"));
         EXPECT_FALSE(has_warning(a, Field::allowed_domains, "apex"));
       }},
      {"cursor_denied_wildcard_overblocks_allowed_apex", Harness::cursor, Os::linux_os,
       "egress: {default: allow, deniedDomains: ['*.evil.example']}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::denied_domains), EnforcementLevel::partial);
         EXPECT_TRUE(has_warning(a, Field::denied_domains, "evil.example"));
       }},
      {"copilot_blocked_host_overblocks_allowed_subdomain", Harness::copilot_cli, Os::linux_os,
       "egress: {allowedDomains: [api.partner.example], deniedDomains: [partner.example]}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_TRUE(contains(j["sandbox"]["userPolicy"]["network"]["blockedHosts"], "partner.example"));
         EXPECT_EQ(level(a, Field::denied_domains), EnforcementLevel::partial);
         EXPECT_TRUE(has_warning(a, Field::denied_domains, "api.partner.example"));
       }},
      {"copilot_blocked_host_exact_when_nothing_below_is_allowed", Harness::copilot_cli, Os::linux_os,
       "egress: {allowedDomains: [ok.example], deniedDomains: [pastebin.com]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::denied_domains), EnforcementLevel::full);
       }},
      {"copilot_blocked_host_overblocks_under_default_allow", Harness::copilot_cli, Os::linux_os,
       "egress: {default: allow, deniedDomains: [pastebin.com]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::denied_domains), EnforcementLevel::partial);
         EXPECT_TRUE(has_warning(a, Field::denied_domains, "*.pastebin.com (unlisted)"));
       }},
      // --- default allow / deny ---
      {"claude_default_allow_is_star_plus_deny_list", Harness::claude_code, Os::linux_os,
       "egress: {default: allow, deniedDomains: [pastebin.com]}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_EQ(j["sandbox"]["network"]["allowedDomains"], Json::array({"*"}));
         EXPECT_EQ(j["sandbox"]["network"]["deniedDomains"], Json::array({"pastebin.com"}));
         EXPECT_TRUE(contains(j["permissions"]["deny"], "WebFetch(domain:pastebin.com)"));
       }},
      {"claude_default_deny_empty_list_blocks_all", Harness::claude_code, Os::linux_os,
       "egress: {default: deny}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_EQ(j["sandbox"]["network"]["allowedDomains"], Json::array());
         EXPECT_EQ(j["sandbox"]["network"]["allowManagedDomainsOnly"], true);
       }},
      {"codex_default_allow_is_star_allow", Harness::codex, Os::linux_os,
       "egress: {default: allow, deniedDomains: [pastebin.com]}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["experimental_network"]["domains"]["*"].value<std::string>(), "allow");
         EXPECT_EQ(t["permissions"]["halo"]["network"]["enabled"].value<bool>(), true);
       }},
      {"codex_default_deny_nothing_allowed_turns_network_off", Harness::codex, Os::linux_os,
       "egress: {default: deny}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["permissions"]["halo"]["network"]["enabled"].value<bool>(), false);
         EXPECT_FALSE(t["experimental_network"]["domains"]["*"]);
       }},
      {"copilot_default_allow_outbound_with_empty_allowlist", Harness::copilot_cli, Os::linux_os,
       "egress: {default: allow}\n",
       [](const auto&, const AdapterResult& a) {
         auto n = json_of(a)["sandbox"]["userPolicy"]["network"];
         EXPECT_EQ(n["allowOutbound"], true);
         EXPECT_EQ(n["allowedHosts"], Json::array());
       }},
      {"copilot_default_deny_nothing_allowed_no_outbound", Harness::copilot_cli, Os::linux_os,
       "egress: {default: deny}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(json_of(a)["sandbox"]["userPolicy"]["network"]["allowOutbound"], false);
       }},
      {"cursor_default_allow", Harness::cursor, Os::linux_os, "egress: {default: allow}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(json_of(a)["networkPolicy"]["default"], "allow");
       }},
      {"opencode_webfetch_deny_under_default_deny", Harness::opencode, Os::linux_os,
       "egress: {allowedDomains: [a.example]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(json_of(a)["permission"]["webfetch"], "deny");
         EXPECT_TRUE(has_warning(a, Field::allowed_domains, "stricter"));
         EXPECT_EQ(a.report(Field::allowed_domains)->held_by, Holder::broker);
       }},
      {"opencode_webfetch_ask_under_default_allow_with_denies", Harness::opencode, Os::linux_os,
       "egress: {default: allow, deniedDomains: [pastebin.com]}\n",
       [](const auto&, const AdapterResult& a) { EXPECT_EQ(json_of(a)["permission"]["webfetch"], "ask"); }},
      {"gemini_egress_held_by_broker_full_on_linux", Harness::gemini_cli, Os::linux_os,
       "egress: {allowedDomains: [a.example]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(a.report(Field::allowed_domains)->held_by, Holder::broker);
         EXPECT_EQ(level(a, Field::allowed_domains), EnforcementLevel::full);
         EXPECT_TRUE(a.files.empty());
       }},
      {"gemini_egress_held_by_broker_partial_on_macos", Harness::gemini_cli, Os::macos,
       "egress: {allowedDomains: [a.example]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::allowed_domains), EnforcementLevel::partial);
         EXPECT_EQ(json_of(a)["tools"]["sandbox"]["command"], "sandbox-exec");
       }},
      // --- globs and paths ---
      {"claude_glob_partial_on_linux", Harness::claude_code, Os::linux_os,
       "sandbox: {protectedPaths: ['.env*']}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_TRUE(contains(j["sandbox"]["filesystem"]["denyRead"], "**/.env*"));
         EXPECT_TRUE(contains(j["permissions"]["deny"], "Read(**/.env*)"));
         EXPECT_EQ(level(a, Field::protected_paths), EnforcementLevel::partial);
       }},
      {"claude_glob_full_on_macos", Harness::claude_code, Os::macos,
       "sandbox: {protectedPaths: ['.env*']}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::protected_paths), EnforcementLevel::full);
       }},
      {"claude_absolute_path_rule_needs_double_slash", Harness::claude_code, Os::linux_os,
       "sandbox: {protectedPaths: [/srv/secrets, ~/.ssh]}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_TRUE(contains(j["permissions"]["deny"], "Read(//srv/secrets/**)"));
         EXPECT_TRUE(contains(j["permissions"]["deny"], "Edit(~/.ssh/**)"));
         EXPECT_TRUE(contains(j["sandbox"]["filesystem"]["denyRead"], "/srv/secrets"));
       }},
      {"claude_windows_has_no_allow_write", Harness::claude_code, Os::windows,
       "sandbox: {writableRoots: [/opt/build-cache]}\n",
       [](const auto&, const AdapterResult& a) {
         auto j = json_of(a);
         EXPECT_FALSE(j["sandbox"].contains("filesystem"));
         EXPECT_EQ(a.report(Field::writable_roots)->held_by, Holder::none);
         EXPECT_EQ(a.files[0].installs_at, "C:\\Program Files\\ClaudeCode\\managed-settings.json");
       }},
      {"codex_glob_in_workspace_roots_table", Harness::codex, Os::linux_os,
       "sandbox: {protectedPaths: ['.env*', ~/.ssh]}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         auto fs = t["permissions"]["halo"]["filesystem"];
         EXPECT_EQ(fs[":workspace_roots"]["**/.env*"].value<std::string>(), "none");
         EXPECT_EQ(fs["~/.ssh"].value<std::string>(), "none");
         EXPECT_TRUE(fs["glob_scan_max_depth"]);
         EXPECT_EQ(level(a, Field::protected_paths), EnforcementLevel::partial);
       }},
      {"codex_writable_root_is_profile_write", Harness::codex, Os::linux_os,
       "sandbox: {writableRoots: [/opt/build-cache]}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["permissions"]["halo"]["filesystem"]["/opt/build-cache"].value<std::string>(), "write");
       }},
      {"copilot_glob_not_rendered_as_denied_path", Harness::copilot_cli, Os::linux_os,
       "sandbox: {protectedPaths: ['.env*', ~/.aws]}\n",
       [](const auto&, const AdapterResult& a) {
         auto fs = json_of(a)["sandbox"]["userPolicy"]["filesystem"];
         EXPECT_EQ(fs["deniedPaths"], Json::array({"~/.aws"}));
         EXPECT_TRUE(has_warning(a, Field::protected_paths, ".env*"));
       }},
      {"opencode_glob_matches_any_depth", Harness::opencode, Os::linux_os,
       "sandbox: {protectedPaths: ['.env*', ~/.ssh]}\n",
       [](const auto&, const AdapterResult& a) {
         auto perm = json_of(a)["permission"];
         EXPECT_EQ(perm["read"]["*/.env*"], "deny");
         EXPECT_EQ(perm["external_directory"]["~/.ssh/*"], "deny");
         // The last matching rule wins: the catch-all comes first.
         EXPECT_EQ(perm["external_directory"].begin().key(), "*");
       }},
      // --- modes ---
      {"codex_read_only_mode", Harness::codex, Os::linux_os, "sandbox: {mode: read-only}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["allowed_sandbox_modes"][0].value<std::string>(), "read-only");
         EXPECT_EQ(t["allowed_sandbox_modes"].as_array()->size(), 1u);
         EXPECT_EQ(t["default_permissions"].value<std::string>(), ":read-only");
       }},
      {"codex_workspace_write_keeps_read_only_allowed", Harness::codex, Os::linux_os,
       "sandbox: {mode: workspace-write}\n",
       [](const auto&, const AdapterResult& a) {
         auto t = toml_of(a);
         EXPECT_EQ(t["allowed_sandbox_modes"][0].value<std::string>(), "read-only");
         EXPECT_EQ(t["allowed_permission_profiles"][":read-only"].value<bool>(), true);
       }},
      {"claude_read_only_denies_edit_partial", Harness::claude_code, Os::linux_os,
       "sandbox: {mode: read-only}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_TRUE(contains(json_of(a)["permissions"]["deny"], "Edit"));
         EXPECT_EQ(level(a, Field::sandbox_mode), EnforcementLevel::partial);
       }},
      {"cursor_read_only_type", Harness::cursor, Os::linux_os, "sandbox: {mode: read-only}\n",
       [](const auto&, const AdapterResult& a) { EXPECT_EQ(json_of(a)["type"], "workspace_readonly"); }},
      // --- pins ---
      {"copilot_pin_below_1_0_93_renders_nothing", Harness::copilot_cli, Os::linux_os,
       "egress: {allowedDomains: [a.example]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_TRUE(a.files.empty());
         EXPECT_EQ(a.report(Field::allowed_domains)->held_by, Holder::broker);
       },
       Version{1, 0, 92}},
      {"codex_pin_before_permission_profiles_is_partial", Harness::codex, Os::linux_os,
       "sandbox: {writableRoots: [/opt/build-cache]}\n",
       [](const auto&, const AdapterResult& a) {
         EXPECT_EQ(level(a, Field::sandbox_mode), EnforcementLevel::partial);
         EXPECT_TRUE(has_warning(a, Field::writable_roots, "0.137.0"));
         EXPECT_EQ(toml_of(a)["allowed_sandbox_modes"][0].value<std::string>(), "read-only");
       },
       Version{0, 137, 0}},
      {"copilot_pin_1_0_93_renders_sandbox", Harness::copilot_cli, Os::linux_os,
       "egress: {allowedDomains: [a.example]}\n",
       [](const auto&, const AdapterResult& a) {
         ASSERT_EQ(a.files.size(), 1u);
         EXPECT_EQ(json_of(a)["sandbox"]["allowBypass"], false);
       },
       Version{1, 0, 93}},
  };
  return kRows;
}

TEST(Dialect, NamedRows) {
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    auto p = testing::load_yaml(row.yaml, std::string(row.name) + ".yaml");
    ASSERT_NE(p, nullptr);
    Target t;
    t.os = row.os;
    t.pin = row.pin;
    row.check(*p, render_harness(row.harness, *p, t));
  }
}

TEST(Dialect, ViaBrokerChainsWhereTheHarnessCan) {
  auto p = testing::load_yaml("egress: {allowedDomains: [a.example]}\n");
  ASSERT_NE(p, nullptr);
  Target t;
  t.via_broker = true;
  t.broker_port = 3128;
  EXPECT_EQ(json_of(render_claude_code(*p, t))["sandbox"]["network"]["httpProxyPort"], 3128);
  EXPECT_EQ(json_of(render_copilot_cli(*p, t))["sandbox"]["userPolicy"]["network"]["proxy"]["url"],
            "http://127.0.0.1:3128");
  EXPECT_EQ(toml_of(render_codex(*p, t))["experimental_network"]["allow_upstream_proxy"].value<bool>(), true);
  const AdapterResult cursor = render_cursor(*p, t);
  bool warned = false;
  for (const auto& w : cursor.warnings) warned = warned || w.reason.find("cannot be chained") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Dialect, VersionParse) {
  EXPECT_EQ(Version::parse("1.0.93"), (Version{1, 0, 93}));
  EXPECT_EQ(Version::parse("v2.1"), (Version{2, 1, 0}));
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("1..2"));
  EXPECT_FALSE(Version::parse("1.2.3.4"));
  EXPECT_FALSE(Version::parse("1.x"));
  EXPECT_LT(*Version::parse("1.0.92"), *Version::parse("1.0.93"));
}

}  // namespace
}  // namespace halo::render
