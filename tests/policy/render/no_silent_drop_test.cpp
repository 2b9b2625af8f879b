// No silent drop: for every policy field, every adapter, every OS (with and without
// --via-broker, with an old Copilot pin), the field is either rendered (held at full) or
// carries a warning naming the harness and the reason. The release check enforces the
// same rule at render time; this test walks the fields one by one so a new field or a
// new adapter that forgets one fails here by name.
#include "policy/render/release_check.h"
#include "render_test_util.h"

namespace halo::render {
namespace {

struct Row {
  const char* name;
  Field field;  // the field the row exercises
  const char* yaml;
};

const Row kRows[] = {
    {"mode_workspace_write", Field::sandbox_mode, "sandbox: {mode: workspace-write}\n"},
    {"mode_read_only", Field::sandbox_mode, "sandbox: {mode: read-only}\n"},
    {"mode_off", Field::sandbox_mode, "sandbox: {mode: 'off'}\n"},
    {"writable_roots", Field::writable_roots, "sandbox: {writableRoots: [/opt/build-cache]}\n"},
    {"protected_home", Field::protected_paths, "sandbox: {protectedPaths: [~/.ssh]}\n"},
    {"protected_absolute", Field::protected_paths, "sandbox: {protectedPaths: [/srv/secrets]}\n"},
    {"protected_glob", Field::protected_paths, "sandbox: {protectedPaths: ['.env*']}\n"},
    {"default_allow", Field::egress_default, "egress: {default: allow}\n"},
    {"default_deny", Field::egress_default, "egress: {default: deny}\n"},
    {"allowed_domains", Field::allowed_domains, "egress: {allowedDomains: [a.example, '*.b.example']}\n"},
    {"presets", Field::presets, "egress: {presets: [vcs]}\n"},
    {"denied_domains", Field::denied_domains, "egress: {deniedDomains: [c.example, '*.d.example']}\n"},
    {"loopback", Field::loopback, "egress: {default: deny, loopback: [8080]}\n"},
    {"allowed_addresses", Field::allowed_addresses, "egress: {default: deny, allowedAddresses: [10.20.0.0/16]}\n"},
    {"require_none", Field::require, "enforcement: {require: none}\n"},
    {"require_partial", Field::require, "enforcement: {require: partial}\n"},
    {"require_full", Field::require, "enforcement: {require: full}\n"},
    {"gateway", Field::gateway, "egress: {allowedDomains: [ai.acme.example]}\ngateway: ai.acme.example\n"},
};

void expect_accounted(const policy::Policy& p, const AdapterResult& a) {
  for (Field f : all_fields()) {
    if (!field_in_effect(p, f)) continue;
    SCOPED_TRACE(to_string(f));
    const FieldReport* r = a.report(f);
    ASSERT_NE(r, nullptr) << "silently dropped";
    if (r->level != EnforcementLevel::full) {
      bool warned = false;
      for (const auto& w : a.warnings) {
        if (w.field == f) {
          warned = true;
          EXPECT_FALSE(w.reason.empty());
          EXPECT_EQ(w.to_string().rfind(std::string(to_string(a.harness)) + ": ", 0), 0u);
        }
      }
      EXPECT_TRUE(warned) << "held at " << policy::to_string(r->level) << " without a warning";
    }
  }
}

TEST(NoSilentDrop, EveryFieldEveryAdapterEveryOs) {
  std::size_t renders = 0;
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    auto p = testing::load_yaml(row.yaml, std::string(row.name) + ".yaml");
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(field_in_effect(*p, row.field));
    for (Os os : {Os::linux_os, Os::macos, Os::windows}) {
      for (bool via : {false, true}) {
        for (Harness h : all_harnesses()) {
          SCOPED_TRACE(std::string(to_string(os)) + (via ? " via-broker " : " ") + to_string(h));
          Target t;
          t.os = os;
          t.via_broker = via;
          const AdapterResult a = render_harness(h, *p, t);
          expect_accounted(*p, a);
          EXPECT_EQ(release_check(*p, a), std::vector<std::string>{});
          ++renders;
        }
      }
    }
  }
  EXPECT_EQ(renders, std::size(kRows) * 3 * 2 * 6);
}

TEST(NoSilentDrop, RichPolicyAllFieldsInEffect) {
  auto p = testing::load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  for (Field f : all_fields()) EXPECT_TRUE(field_in_effect(*p, f)) << to_string(f);
  for (Os os : {Os::linux_os, Os::macos, Os::windows}) {
    for (Harness h : all_harnesses()) {
      SCOPED_TRACE(std::string(to_string(os)) + " " + to_string(h));
      Target t;
      t.os = os;
      const AdapterResult a = render_harness(h, *p, t);
      EXPECT_EQ(a.fields.size(), all_fields().size());
      expect_accounted(*p, a);
    }
  }
}

TEST(NoSilentDrop, OldCopilotPinWarnsForEveryField) {
  auto p = testing::load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  Target t;
  t.pin = Version{1, 0, 92};
  const AdapterResult a = render_harness(Harness::copilot_cli, *p, t);
  EXPECT_TRUE(a.files.empty());
  expect_accounted(*p, a);
  for (const auto& r : a.fields) {
    if (r.field == Field::gateway) continue;
    EXPECT_NE(r.held_by, Holder::native) << to_string(r.field);
    EXPECT_TRUE(testing::has_warning(a, r.field, "1.0.92")) << to_string(r.field);
  }
}

}  // namespace
}  // namespace halo::render
