// One invalid fixture per validation rule (tests/fixtures/invalid/<defect>.yaml): each
// must be rejected whole, with an error at the right line that says why.
#include <gtest/gtest.h>

#include <filesystem>

#include "policy/loader.h"

#ifndef HALO_FIXTURES
#error "HALO_FIXTURES must name tests/fixtures"
#endif

namespace halo::policy {
namespace {

struct Row {
  const char* defect;    // fixture file name without .yaml
  int line;              // line the (first) error points at
  const char* fragment;  // text the error must contain
};

const Row kRows[] = {
    {"writable_root_slash", 2, "makes the whole disk writable"},
    {"writable_root_home_tilde", 2, "whole home directory"},
    {"writable_root_glob", 2, "a glob"},
    {"writable_root_home_dir", 2, "a home directory"},
    {"writable_root_users_dir", 2, "a home directory"},
    {"writable_root_system_dir", 2, "the system directory /var"},
    {"writable_root_ancestor_of_system", 2, "the system directory /private"},
    {"writable_root_under_etc", 2, "lies under /etc"},
    {"writable_root_under_usr", 2, "lies under /usr"},
    {"writable_root_relative", 2, "relative"},
    {"writable_root_drive_letter", 2, "drive-letter"},
    {"writable_root_dotdot", 2, "'..'"},
    {"writable_root_over_protected", 2, "overlaps the protected path '~/work/.secrets'"},
    {"writable_root_under_protected", 2, "overlaps the protected path '~/.ssh'"},
    {"writable_root_under_protected_case", 2, "overlaps the protected path '~/.ssh'"},
    {"writable_root_with_read_only", 3, "with mode read-only"},
    {"mode_off_with_egress", 2, "mode off together with egress rules"},
    {"mode_off_with_paths", 2, "mode off together with sandbox paths"},
    {"mode_unknown", 2, "not a sandbox mode"},
    {"modes_disagree", 4, "disagrees with sandbox.mode"},
    {"domain_bare_star", 2, "a bare '*'"},
    {"domain_url", 2, "a URL"},
    {"domain_port", 2, "has a port"},
    {"domain_path", 2, "has a path"},
    {"domain_upper_case", 2, "upper case"},
    {"domain_middle_wildcard", 2, "only as a leading '*.'"},
    {"domain_partial_wildcard", 2, "only as a leading '*.'"},
    {"domain_trailing_wildcard", 2, "only as a leading '*.'"},
    {"domain_trailing_dot", 2, "ends with a dot"},
    {"domain_ip_literal", 2, "an IP address"},
    {"domain_unicode_not_canonical", 2, "write 'xn--bcher-kva.example'"},
    {"domain_localhost", 2, "loopback is granted per port"},
    {"domain_underscore", 2, "not a valid host name"},
    {"preset_unknown", 2, "unknown preset 'everything'"},
    {"preset_path_in_egress", 2, "is a path preset"},
    {"default_allow_with_allowlist", 2, "default allow together with an allowlist"},
    {"default_allow_with_presets", 2, "default allow together with an allowlist"},
    {"default_unknown", 2, "is not allow or deny"},
    {"gateway_denied", 4, "denies its own model gateway"},
    {"gateway_denied_explicitly", 4, "deniedDomains: ai.acme.example"},
    {"unknown_top_key", 1, "did you mean 'egress'"},
    {"unknown_egress_key", 2, "did you mean 'allowedDomains'"},
    {"unknown_sandbox_key", 2, "did you mean 'writableRoots'"},
    {"duplicate_key", 3, "duplicate key"},
    {"loopback_not_a_port", 2, "not a port number"},
    {"loopback_port_range", 2, "not a port number"},
    {"address_not_cidr", 2, "not an address range"},
    {"address_host_bits", 2, "not an address range"},
    {"address_covers_loopback", 2, "covers 127.0.0.0/8"},
    {"address_metadata", 2, "covers 169.254.0.0/16"},
    {"address_mapped_form", 2, "covers ::ffff:0.0.0.0/96"},
    {"require_unknown", 2, "not an enforcement level"},
    {"list_not_a_list", 2, "must be a list"},
    {"not_yaml", 2, "not valid YAML"},
    {"not_a_mapping", 1, "must be a mapping"},
    {"protected_relative_with_slash", 2, "relative with a '/'"},
    {"extends_cycle_a", 1, "extends cycle"},
    {"extends_missing", 1, "no such file"},
    {"gateway_not_canonical", 1, "write 'ai.acme.example'"},
};

TEST(ValidateFixtures, EachDefectRejectedWithLineAndReason) {
  for (const auto& row : kRows) {
    SCOPED_TRACE(row.defect);
    std::string file = std::string(HALO_FIXTURES) + "/invalid/" + row.defect + ".yaml";
    LoadResult r = load_profile(file, PresetEnvironment{});
    EXPECT_FALSE(r.policy) << "accepted";
    ASSERT_TRUE(r.diagnostics.has_errors());
    bool found = false;
    for (const auto& d : r.diagnostics.items) {
      if (d.severity != Diagnostic::Severity::error) continue;
      std::string s = d.to_string();
      if (s.find(row.fragment) != std::string::npos) {
        found = true;
        EXPECT_EQ(d.loc.line, row.line) << s;
        EXPECT_GT(d.loc.column, 0) << s;
      }
    }
    std::string all;
    for (const auto& d : r.diagnostics.items) all += d.to_string() + "\n";
    EXPECT_TRUE(found) << "no error containing '" << row.fragment << "' in:\n" << all;
  }
}

TEST(ValidateFixtures, EveryFixtureFileHasARow) {
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(HALO_FIXTURES) + "/invalid")) {
    std::string stem = e.path().stem().string();
    if (stem == "extends_cycle_b") continue;  // the other half of extends_cycle_a
    ++files;
    bool listed = false;
    for (const auto& row : kRows) listed |= stem == row.defect;
    EXPECT_TRUE(listed) << stem;
  }
  EXPECT_EQ(files, std::size(kRows));
}

TEST(Validate, OneBadRuleRejectsTheWholeFileAndAllErrorsAreReported) {
  LoadResult r = load_profile_text("t.yaml",
                                   "egress:\n"
                                   "  allowedDomains: [good.example, BAD.example, also-good.example]\n"
                                   "  deniedDomains: [\"*\", pastebin.com]\n"
                                   "  loopback: [80, x]\n",
                                   {});
  EXPECT_FALSE(r.policy);
  EXPECT_EQ(r.diagnostics.error_count(), 3u);
  for (const auto& d : r.diagnostics.items) EXPECT_FALSE(d.fix.empty()) << d.to_string();
}

TEST(Validate, ErrorFormat) {
  LoadResult r = load_profile_text("p.yaml", "egress:\n  allowedDomains: [API.example.com]\n", {});
  ASSERT_EQ(r.diagnostics.items.size(), 1u);
  EXPECT_EQ(r.diagnostics.items[0].to_string(),
            "p.yaml:2:20: error: allowedDomains[0]: 'API.example.com': upper case; host names "
            "are written in lower case (fix: write 'api.example.com')");
}

TEST(Validate, NameInBothListsIsValid) {
  LoadResult r = load_profile_text(
      "t.yaml", "egress:\n  allowedDomains: [a.example]\n  deniedDomains: [a.example]\n", {});
  EXPECT_TRUE(r.policy);
}

TEST(Validate, GatewayAllowedIsFine) {
  LoadResult r = load_profile_text(
      "t.yaml", "egress:\n  allowedDomains: [ai.acme.example]\ngateway: ai.acme.example\n", {});
  EXPECT_TRUE(r.policy);
}

}  // namespace
}  // namespace halo::policy
