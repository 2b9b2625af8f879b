// Golden files: one rich policy (rich.yaml, every field set) x six adapters x three OSes,
// byte-exact, plus each OS's manifest.json. HALO_UPDATE_GOLDEN=1 rewrites them (then
// review the diff like code).
#include <cstdlib>
#include <filesystem>

#include "policy/render/release_check.h"
#include "render_test_util.h"

namespace halo::render {
namespace {

namespace fs = std::filesystem;
using testing::load_yaml;
using testing::read_file;

void compare_or_update(const fs::path& golden, const std::string& actual) {
  if (std::getenv("HALO_UPDATE_GOLDEN")) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with HALO_UPDATE_GOLDEN=1";
  EXPECT_EQ(read_file(golden.string()), actual) << "differs from " << golden;
}

class Golden : public ::testing::TestWithParam<Os> {};

TEST_P(Golden, RichPolicyAllSixAdaptersByteExact) {
  auto p = load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  RenderRequest req;
  req.os = GetParam();
  const RenderResult r = render_all(*p, req);
  ASSERT_EQ(r.adapters.size(), 6u);
  EXPECT_TRUE(release_check(*p, r).empty());
  const fs::path dir = fs::path(HALO_RENDER_TESTS) / "golden" / to_string(GetParam());
  std::size_t files = 0;
  for (const auto& a : r.adapters) {
    SCOPED_TRACE(to_string(a.harness));
    for (const auto& f : a.files) {
      compare_or_update(dir / f.path, f.content);
      ++files;
    }
  }
  // Gemini renders only on macOS; everything else always has its one file.
  EXPECT_EQ(files, GetParam() == Os::macos ? 6u : 5u);
  compare_or_update(dir / "manifest.json", manifest_json(*p, r));
}

TEST_P(Golden, RenderingIsDeterministic) {
  auto p = load_yaml(testing::rich_yaml(), "rich.yaml");
  ASSERT_NE(p, nullptr);
  RenderRequest req;
  req.os = GetParam();
  EXPECT_EQ(manifest_json(*p, render_all(*p, req)), manifest_json(*p, render_all(*p, req)));
}

INSTANTIATE_TEST_SUITE_P(Oses, Golden, ::testing::Values(Os::linux_os, Os::macos, Os::windows),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace halo::render
