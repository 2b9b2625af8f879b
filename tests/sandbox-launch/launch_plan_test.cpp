// make_plan, glob matching, the proxy environment and the enforcement line: pure
// functions, table tests with named rows.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "policy/loader.h"
#include "sandbox-launch/enforcement.h"
#include "sandbox-launch/launch_plan.h"
#include "sandbox-launch/proxy_env.h"

namespace halo::launch {
namespace {

namespace fs = std::filesystem;

TEST(GlobMatch, Rows) {
  struct Row {
    const char* name;
    const char* pattern;
    const char* text;
    bool match;
  } rows[] = {
      {"exact", ".env", ".env", true},
      {"star suffix", ".env*", ".env.local", true},
      {"star matches empty", ".env*", ".env", true},
      {"prefix differs", ".env*", "x.env", false},
      {"extension", "*.pem", "server.pem", true},
      {"extension mismatch", "*.pem", "server.pem.bak", false},
      {"question mark", "id_?sa", "id_rsa", true},
      {"two stars", "*key*", "my-key-file", true},
      {"empty pattern", "", "x", false},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(glob_match(r.pattern, r.text), r.match);
  }
}

TEST(ExpandHome, Rows) {
  EXPECT_EQ(expand_home("~", "/home/u"), "/home/u");
  EXPECT_EQ(expand_home("~/.ssh", "/home/u"), "/home/u/.ssh");
  EXPECT_EQ(expand_home("/etc/x", "/home/u"), "/etc/x");
  EXPECT_EQ(expand_home("~other/x", "/home/u"), "~other/x");
}

class MakePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/halo-plan-XXXXXX";
    root_ = ::mkdtemp(t);
    home_ = root_ + "/home";
    ws_ = root_ + "/ws";
    fs::create_directories(home_ + "/.ssh");
    fs::create_directories(ws_ + "/sub/deeper");
    std::ofstream(ws_ + "/.env") << "x";
    std::ofstream(ws_ + "/sub/.env.local") << "x";
    std::ofstream(ws_ + "/sub/deeper/cert.pem") << "x";
    std::ofstream(ws_ + "/notes.txt") << "x";
    fs::create_directories(ws_ + "/.git/objects/ab");
    std::ofstream(ws_ + "/.git/objects/ab/.env-not-a-secret") << "x";
  }
  void TearDown() override { fs::remove_all(root_); }

  std::shared_ptr<const policy::Policy> load(const std::string& yaml) {
    auto r = policy::load_profile_text("test.yaml", yaml, policy::PresetEnvironment{});
    EXPECT_TRUE(r.policy) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].to_string());
    return r.policy;
  }

  LaunchPlan plan(const std::string& yaml) {
    auto p = load(yaml);
    if (!p) return {};
    PlanInputs in;
    in.argv = {"true"};
    in.cwd = ws_;
    in.home = home_;
    return make_plan(*p, in);
  }

  std::string root_, home_, ws_;
};

TEST_F(MakePlanTest, ProtectedPathsExpandAgainstWhatExists) {
  auto p = plan(
      "sandbox:\n  mode: workspace-write\n  protectedPaths: ['~/.ssh', '~/.aws', '.env*', '*.pem']\n");
  std::vector<std::string> want = {home_ + "/.ssh", ws_ + "/.env", ws_ + "/sub/.env.local",
                                   ws_ + "/sub/deeper/cert.pem"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(p.fs.protected_paths, want);
  EXPECT_EQ(p.fs.protected_missing, std::vector<std::string>{"~/.aws"});
}

TEST_F(MakePlanTest, WorkspaceWriteListsCwdAndRoots) {
  auto p = plan("sandbox:\n  mode: workspace-write\n  writableRoots: [/opt/build-cache]\n");
  EXPECT_EQ(p.fs.mode, policy::SandboxMode::workspace_write);
  EXPECT_EQ(p.fs.writable, (std::vector<std::string>{ws_, "/opt/build-cache"}));
  EXPECT_TRUE(p.fs.private_tmp);
}

TEST_F(MakePlanTest, BroadWorkspaceIsNoted) {
  auto p = load("sandbox:\n  mode: workspace-write\n");
  ASSERT_TRUE(p);
  struct Row {
    const char* name;
    std::string cwd;
    bool noted;
  } rows[] = {
      {"root", "/", true},
      {"home itself", home_, true},
      {"ancestor of home", root_, true},
      {"system dir", "/usr/lib", true},
      {"/var itself", "/var", true},
      {"project", ws_, false},
      {"project under /var", "/var/tmp/project", false},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    PlanInputs in;
    in.argv = {"true"};
    in.cwd = r.cwd;
    in.home = home_;
    auto plan = make_plan(*p, in);
    EXPECT_EQ(!plan.fs.notes.empty(), r.noted);
  }
}

TEST_F(MakePlanTest, ReadOnlyListsNothingWritable) {
  auto p = plan("sandbox:\n  mode: read-only\n");
  EXPECT_TRUE(p.fs.writable.empty());
  EXPECT_TRUE(p.fs.private_tmp);
}

TEST_F(MakePlanTest, ProxyPortAvoidsLoopbackGrants) {
  auto p = plan("egress:\n  loopback: [3128, 8080, 3129]\n");
  EXPECT_EQ(p.loopback_grants, (std::vector<std::uint16_t>{3128, 3129, 8080}));
  EXPECT_EQ(p.proxy_port, 3130);
  EXPECT_EQ(p.session_id.size(), 16u);
}

Enforcement sample(bool grants) {
  Enforcement e;
  e.backend = "linux-netns";
  e.network = {policy::EnforcementLevel::full, "linux-netns", {}};
  e.filesystem = {policy::EnforcementLevel::full, "landlock abi 6", {}};
  if (grants) e.loopback_grants = {8080, 5432};
  return e;
}

TEST(EnforcementLine, Rows) {
  EXPECT_EQ(sample(true).line(),
            "halo: network full (linux-netns), filesystem full (landlock abi 6), loopback grants "
            "8080,5432");
  Enforcement env = sample(false);
  env.network = {policy::EnforcementLevel::partial, "env", {"--backend env asked for"}};
  EXPECT_EQ(env.line(),
            "halo: network partial (env; --backend env asked for), filesystem full (landlock abi 6)");
}

TEST(EnforcementShortfall, Rows) {
  Enforcement e = sample(false);
  EXPECT_FALSE(e.shortfall(policy::EnforcementLevel::full, "p.yaml:3"));
  e.network = {policy::EnforcementLevel::partial, "env", {"--backend env asked for"}};
  auto s = e.shortfall(policy::EnforcementLevel::full, "p.yaml:3");
  ASSERT_TRUE(s);
  EXPECT_NE(s->find("network partial (env; --backend env asked for)"), std::string::npos) << *s;
  EXPECT_NE(s->find("below enforcement.require full (p.yaml:3)"), std::string::npos) << *s;
  EXPECT_FALSE(e.shortfall(policy::EnforcementLevel::partial, ""));
  EXPECT_EQ(e.overall(), policy::EnforcementLevel::partial);
}

std::string get(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& e : env)
    if (e.rfind(name + "=", 0) == 0) return e.substr(name.size() + 1);
  return "<unset>";
}

TEST(SessionEnvironment, ProxyVariablesInBothCases) {
  auto env = session_environment("127.0.0.1:3128", sample(false), "abc");
  for (const char* n : {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(get(env, n), "http://127.0.0.1:3128");
  }
  EXPECT_EQ(get(env, "ALL_PROXY"), "socks5h://127.0.0.1:3128");
  EXPECT_EQ(get(env, "all_proxy"), "socks5h://127.0.0.1:3128");
  EXPECT_EQ(get(env, "NO_PROXY"), "localhost,127.0.0.1,::1");
  EXPECT_EQ(get(env, "HALO_SESSION"), "abc");
  EXPECT_EQ(get(env, "HALO_ENFORCEMENT"), "full");
}

TEST(SessionEnvironment, LoopbackNotBypassedWhenGranted) {
  auto env = session_environment("127.0.0.1:3128", sample(true), "abc");
  EXPECT_EQ(get(env, "NO_PROXY"), "");
  EXPECT_EQ(get(env, "no_proxy"), "");
}

TEST(MergeEnvironment, ExtraWinsAndOldProxiesGo) {
  auto out = merge_environment({"PATH=/bin", "https_proxy=http://evil:1", "Ftp_Proxy=x",
                                "HALO_SESSION=old", "odd"},
                               {"HALO_SESSION=new", "HTTP_PROXY=http://127.0.0.1:1"});
  EXPECT_EQ(out, (std::vector<std::string>{"PATH=/bin", "odd", "HALO_SESSION=new",
                                           "HTTP_PROXY=http://127.0.0.1:1"}));
}

}  // namespace
}  // namespace halo::launch
