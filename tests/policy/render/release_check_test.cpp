// The release check catches every bypass token, catch-all allow, bad Codex writable root
// and silent drop. Each row tampers with a clean rendering and names what must be caught.
#include "policy/render/release_check.h"
#include "render_test_util.h"

namespace halo::render {
namespace {

const char* kPolicy =
    "sandbox: {protectedPaths: [~/.ssh]}\n"
    "egress: {default: deny, allowedDomains: [a.example]}\n";

struct Row {
  const char* name;
  Harness harness;
  const char* path;
  const char* content;
  const char* expect;  // substring of the reported problem
};

const Row kRows[] = {
    {"danger_full_access_mode", Harness::codex, "etc/codex/requirements.toml",
     "allowed_sandbox_modes = [\"read-only\", \"danger-full-access\"]\n", "danger-full-access"},
    {"danger_full_access_profile", Harness::codex, "etc/codex/requirements.toml",
     "default_permissions = \":danger-full-access\"\n", "danger-full-access"},
    {"network_access_true_under_deny", Harness::codex, "etc/codex/managed_config.toml",
     "[sandbox_workspace_write]\nnetwork_access = true\n", "network_access"},
    {"codex_star_allow_under_deny", Harness::codex, "etc/codex/requirements.toml",
     "[experimental_network.domains]\n\"*\" = \"allow\"\n", "default-deny"},
    {"codex_profile_network_without_proxy", Harness::codex, "etc/codex/requirements.toml",
     "[permissions.halo.network]\nenabled = true\n", "without [experimental_network]"},
    {"codex_dangerous_flag", Harness::codex, "etc/codex/requirements.toml",
     "[experimental_network]\ndangerously_allow_all_unix_sockets = true\n", "bypass"},
    {"codex_root_writable_root", Harness::codex, "etc/codex/requirements.toml",
     "[permissions.halo.filesystem]\n\"/\" = \"write\"\n", "writable root /"},
    {"codex_home_writable_root", Harness::codex, "etc/codex/requirements.toml",
     "[sandbox_workspace_write]\nwritable_roots = [\"~\"]\n", "writable root ~"},
    {"codex_root_over_protected_path", Harness::codex, "etc/codex/requirements.toml",
     "[permissions.halo.filesystem]\n\"~/.ssh/keys\" = \"write\"\n", "overlaps protected path"},
    {"claude_unsandboxed_commands", Harness::claude_code, "etc/claude-code/managed-settings.json",
     "{\"sandbox\": {\"enabled\": true, \"allowUnsandboxedCommands\": true}}", "bypass"},
    {"claude_excluded_commands", Harness::claude_code, "etc/claude-code/managed-settings.json",
     "{\"sandbox\": {\"enabled\": true, \"excludedCommands\": [\"curl\"]}}", "unsandboxed"},
    {"claude_sandbox_disabled", Harness::claude_code, "etc/claude-code/managed-settings.json",
     "{\"sandbox\": {\"enabled\": false}}", "false while the policy wants a sandbox"},
    {"claude_star_under_deny", Harness::claude_code, "etc/claude-code/managed-settings.json",
     "{\"sandbox\": {\"network\": {\"allowedDomains\": [\"*\"]}}}", "every host"},
    {"copilot_allow_bypass", Harness::copilot_cli, "etc/github-copilot/managed-settings.json",
     "{\"sandbox\": {\"enabled\": true, \"allowBypass\": true}}", "bypass"},
    {"copilot_outbound_without_hosts", Harness::copilot_cli, "etc/github-copilot/managed-settings.json",
     "{\"sandbox\": {\"userPolicy\": {\"network\": {\"allowOutbound\": true}}}}", "no allowedHosts"},
    {"cursor_insecure_none", Harness::cursor, "workspace/.cursor/sandbox.json",
     "{\"type\": \"insecure_none\"}", "insecure_none"},
    {"cursor_default_allow_under_deny", Harness::cursor, "workspace/.cursor/sandbox.json",
     "{\"networkPolicy\": {\"default\": \"allow\"}}", "default-deny"},
    {"opencode_webfetch_allow_under_deny", Harness::opencode, "etc/opencode/opencode.json",
     "{\"permission\": {\"webfetch\": \"allow\"}}", "default-deny"},
    {"bad_json", Harness::claude_code, "etc/claude-code/managed-settings.json", "{\"sandbox\": ", "not valid JSON"},
    {"bad_toml", Harness::codex, "etc/codex/requirements.toml", "[experimental_network\n", "not valid TOML"},
};

TEST(ReleaseCheck, CleanRenderPasses) {
  auto p = testing::load_yaml(kPolicy);
  ASSERT_NE(p, nullptr);
  for (Os os : {Os::linux_os, Os::macos, Os::windows}) {
    RenderRequest req;
    req.os = os;
    EXPECT_EQ(release_check(*p, render_all(*p, req)), std::vector<std::string>{}) << to_string(os);
  }
}

TEST(ReleaseCheck, CatchesTamperedFiles) {
  auto p = testing::load_yaml(kPolicy);
  ASSERT_NE(p, nullptr);
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    AdapterResult a = render_harness(row.harness, *p, Target{});
    a.files = {RenderedFile{row.path, "/" + std::string(row.path), true, row.content}};
    const auto problems = release_check(*p, a);
    bool found = false;
    std::string all;
    for (const auto& pr : problems) {
      all += pr + "\n";
      found = found || pr.find(row.expect) != std::string::npos;
    }
    EXPECT_TRUE(found) << "expected a problem containing '" << row.expect << "', got:\n" << all;
  }
}

TEST(ReleaseCheck, CatchesSilentDrop) {
  auto p = testing::load_yaml(kPolicy);
  ASSERT_NE(p, nullptr);
  {
    SCOPED_TRACE("field report removed");
    AdapterResult a = render_harness(Harness::claude_code, *p, Target{});
    std::erase_if(a.fields, [](const FieldReport& r) { return r.field == Field::protected_paths; });
    const auto problems = release_check(*p, a);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("sandbox.protectedPaths is in effect but not reported"), std::string::npos);
  }
  {
    SCOPED_TRACE("partial without a warning");
    AdapterResult a = render_harness(Harness::gemini_cli, *p, Target{});
    std::erase_if(a.warnings, [](const Warning& w) { return w.field == Field::protected_paths; });
    const auto problems = release_check(*p, a);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("without a warning"), std::string::npos);
  }
}

}  // namespace
}  // namespace halo::render
