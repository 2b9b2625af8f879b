#include "policy/path_rules.h"

#include <gtest/gtest.h>

namespace halo::policy {
namespace {

TEST(PathRules, WritableRootsAccepted) {
  for (const char* ok : {"/opt/build-cache", "~/.cache/build", "/var/tmp/job", "/srv/data", "/opt"}) {
    SCOPED_TRACE(ok);
    auto p = check_writable_root(ok);
    EXPECT_FALSE(p) << p->message;
  }
}

TEST(PathRules, Overlap) {
  struct Row {
    const char* name;
    const char* a;
    const char* b;
    bool overlap;
  };
  const Row rows[] = {
      {"same", "~/.ssh", "~/.ssh", true},
      {"under", "~/.ssh/keys", "~/.ssh", true},
      {"over", "~", "~/.ssh", true},
      {"linux_home_form", "/home/alice/.ssh", "~/.ssh", true},
      {"mac_home_form", "/Users/alice/.ssh", "~/.ssh", true},
      {"root_home_form", "/root/.ssh", "~/.ssh", true},
      {"case_insensitive", "/Users/alice/.SSH", "~/.ssh", true},
      {"sibling", "~/.sshx", "~/.ssh", false},
      {"different_trees", "/opt/cache", "~/.ssh", false},
      {"name_pattern_matches_leaf", "/opt/app/.env.local", ".env*", true},
      {"name_pattern_not_leaf", "/opt/app", ".env*", false},
      {"glob_component", "~/.config/gh", "~/.config/*", true},
      {"trailing_slash", "/opt/cache/", "/opt/cache", true},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(paths_overlap(r.a, r.b), r.overlap);
    EXPECT_EQ(paths_overlap(r.b, r.a), r.overlap);
  }
}

TEST(PathRules, HomeRelative) {
  EXPECT_EQ(home_relative("/home/alice/x/y"), "~/x/y");
  EXPECT_EQ(home_relative("/Users/bob"), "~");
  EXPECT_EQ(home_relative("/root"), "~");
  EXPECT_EQ(home_relative("/rooted/x"), "/rooted/x");
  EXPECT_EQ(home_relative("/home"), "/home");
}

}  // namespace
}  // namespace halo::policy
