// halo doctor's reader: fixture homes (a weakened one on disk, golden output), and homes
// built per test with a FIFO, a 2 MiB file, symlinks and secrets that must never show.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "policy/posture/posture.h"
#include "policy/posture/small_file.h"

namespace halo::posture {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = HALO_POSTURE_TESTS;

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Everything the report would print, one line per finding and per file.
std::string render(const PostureReport& r) {
  std::string out;
  for (const auto& f : r.findings) out += f.to_string() + "\n";
  for (const auto& f : r.files) out += "file " + f.path + ": " + f.status + "\n";
  return out;
}

class TempHome : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/halo-posture-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override { fs::remove_all(home_); }
  void write(const std::string& rel, const std::string& content) {
    fs::create_directories((home_ / rel).parent_path());
    std::ofstream(home_ / rel, std::ios::binary) << content;
  }
  fs::path home_;
};

TEST(Posture, WeakenedHomeMatchesGolden) {
  const PostureReport r = read_posture((kDir / "homes/weakened").string(), {});
  const std::string actual = render(r);
  const fs::path golden = kDir / "golden/weakened.txt";
  if (std::getenv("HALO_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << actual;
  EXPECT_EQ(read_text(golden), actual);
  EXPECT_EQ(r.findings.size(), 5u);
  EXPECT_EQ(actual.find("sk-"), std::string::npos) << "a secret or profile name leaked";
}

TEST_F(TempHome, CleanHomeHasNoFindings) {
  const PostureReport r = read_posture(home_.string(), {});
  EXPECT_TRUE(r.findings.empty());
  for (const auto& f : r.files) EXPECT_EQ(f.status, "absent") << f.path;
}

TEST_F(TempHome, FifoDoesNotHang) {
  fs::create_directories(home_ / ".codex");
  ASSERT_EQ(::mkfifo((home_ / ".codex/config.toml").c_str(), 0600), 0);
  // A symlink to the FIFO must not hang either.
  fs::create_directories(home_ / ".gemini");
  fs::create_symlink(home_ / ".codex/config.toml", home_ / ".gemini/settings.json");
  const auto start = std::chrono::steady_clock::now();
  const PostureReport r = read_posture(home_.string(), {});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  const std::string out = render(r);
  EXPECT_NE(out.find("file ~/.codex/config.toml: skipped: not a regular file\n"), std::string::npos) << out;
  EXPECT_NE(out.find("file ~/.gemini/settings.json: skipped: not a regular file (symlink followed)"),
            std::string::npos) << out;
  EXPECT_TRUE(r.findings.empty());
}

TEST_F(TempHome, TwoMebibyteFileIsSkipped) {
  // Valid JSON that would be a finding, padded past the cap: never parsed.
  std::string big = "{\"tools\": {\"sandbox\": false}, \"pad\": \"" + std::string(2 * 1024 * 1024, 'x') + "\"}";
  write(".gemini/settings.json", big);
  const PostureReport r = read_posture(home_.string(), {});
  EXPECT_TRUE(r.findings.empty());
  EXPECT_NE(render(r).find("file ~/.gemini/settings.json: skipped: larger than 1 MiB"), std::string::npos);
  const SmallFile f = read_small_file((home_ / ".gemini/settings.json").string(), kMaxPostureFileBytes);
  EXPECT_EQ(f.status, SmallFile::Status::too_large);
  EXPECT_TRUE(f.content.empty());
}

TEST_F(TempHome, SymlinkToRegularFileIsFollowed) {
  write("dotfiles/cursor-sandbox.json", "{\"type\": \"insecure_none\"}");
  fs::create_directories(home_ / ".cursor");
  fs::create_symlink(home_ / "dotfiles/cursor-sandbox.json", home_ / ".cursor/sandbox.json");
  // A dangling symlink is reported, not followed into an error.
  fs::create_directories(home_ / ".codex");
  fs::create_symlink(home_ / "nowhere.toml", home_ / ".codex/config.toml");
  const PostureReport r = read_posture(home_.string(), {});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].harness, "cursor");
  const std::string out = render(r);
  EXPECT_NE(out.find("file ~/.cursor/sandbox.json: read (symlink followed)"), std::string::npos) << out;
  EXPECT_NE(out.find("file ~/.codex/config.toml: absent (symlink followed)"), std::string::npos) << out;
}

TEST_F(TempHome, SecretsNeverAppear) {
  // An unparsable file whose parser message would quote the secret, a profile named
  // like a secret, and an environment variable holding one.
  write(".codex/config.toml", "token = \"sk-LEAK-TOML-1\"\nsandbox_mode = sk-LEAK-TOML-2\n");
  write(".codex/sk-LEAK-FILE.config.toml.bak", "sandbox_mode = \"danger-full-access\"\n");
  write(".gemini/settings.json", "{\"key\": \"sk-LEAK-JSON-1\", tools: sk-LEAK-JSON-2");
  write(".cursor/sandbox.json", "{\"type\": \"sk-LEAK-TYPE\"}");
  const PostureReport r = read_posture(
      home_.string(), {{"OPENCODE_PERMISSION", "{\"bash\":\"sk-LEAK-ENV\"}"}, {"GEMINI_SANDBOX", "true"}});
  const std::string out = render(r);
  EXPECT_EQ(out.find("sk-LEAK"), std::string::npos) << out;
  EXPECT_NE(out.find("file ~/.codex/config.toml: read; not valid TOML (line 2)"), std::string::npos) << out;
  EXPECT_NE(out.find("file ~/.gemini/settings.json: read; not a JSON object"), std::string::npos) << out;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].harness, "opencode");
}

TEST_F(TempHome, EnvironmentOverrides) {
  fs::path codex_home = home_ / "elsewhere";
  write("elsewhere/config.toml", "[profiles.a]\nsandbox_mode = \"danger-full-access\"\n");
  write("elsewhere/quick.config.toml", "sandbox_mode = \"danger-full-access\"\n");
  write(".codex/config.toml", "sandbox_mode = \"danger-full-access\"\n");  // not read: CODEX_HOME wins
  const PostureReport r = read_posture(home_.string(), {{"GEMINI_SANDBOX", "false"},
                                                        {"OPENCODE_PERMISSION", "{}"},
                                                        {"OPENCODE_TEST_MANAGED_CONFIG_DIR", "/tmp/x"},
                                                        {"CODEX_HOME", codex_home.string()}});
  const std::string out = render(r);
  EXPECT_NE(out.find("posture:gemini-cli: GEMINI_SANDBOX=false turns the sandbox off"), std::string::npos) << out;
  EXPECT_NE(out.find("posture:opencode: OPENCODE_PERMISSION is set"), std::string::npos) << out;
  EXPECT_NE(out.find("posture:opencode: OPENCODE_TEST_MANAGED_CONFIG_DIR is set"), std::string::npos) << out;
  EXPECT_NE(out.find("posture:codex: CODEX_HOME is set"), std::string::npos) << out;
  EXPECT_NE(out.find("~/elsewhere/config.toml sets full access in 1 of 1 [profiles.*]"), std::string::npos) << out;
  EXPECT_NE(out.find("~/elsewhere/quick.config.toml sets full access"), std::string::npos) << out;
  EXPECT_EQ(out.find("~/.codex/config.toml"), std::string::npos) << out;
  EXPECT_EQ(r.findings.size(), 6u);
}

TEST_F(TempHome, NeverWrites) {
  write(".cursor/sandbox.json", "{\"type\": \"insecure_none\"}");
  write(".codex/config.toml", "sandbox_mode = \"danger-full-access\"\n");
  const auto before_c = fs::last_write_time(home_ / ".cursor/sandbox.json");
  const auto before_x = fs::last_write_time(home_ / ".codex/config.toml");
  read_posture(home_.string(), {});
  EXPECT_EQ(fs::last_write_time(home_ / ".cursor/sandbox.json"), before_c);
  EXPECT_EQ(fs::last_write_time(home_ / ".codex/config.toml"), before_x);
  EXPECT_EQ(read_text(home_ / ".codex/config.toml"), "sandbox_mode = \"danger-full-access\"\n");
}

}  // namespace
}  // namespace halo::posture
