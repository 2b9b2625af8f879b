#pragma once
// Helpers for the render tests: policies from YAML text (no machine-derived preset hosts),
// and the rendered files parsed back.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <toml++/toml.h>

#include "policy/loader.h"
#include "policy/render/json_text.h"
#include "policy/render/render.h"

namespace halo::render::testing {

inline std::shared_ptr<const policy::Policy> load_yaml(const std::string& yaml,
                                                       const std::string& name = "test.yaml") {
  policy::PresetEnvironment env;  // empty: goldens must not depend on this machine
  auto r = policy::load_profile_text(name, yaml, env);
  std::string diags;
  for (const auto& d : r.diagnostics.items) diags += d.to_string() + "\n";
  EXPECT_NE(r.policy, nullptr) << diags;
  return r.policy;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string rich_yaml() { return read_file(std::string(HALO_RENDER_TESTS) + "/rich.yaml"); }

inline const RenderedFile* only_file(const AdapterResult& a) {
  return a.files.size() == 1 ? &a.files[0] : nullptr;
}

inline Json json_of(const AdapterResult& a) {
  const RenderedFile* f = only_file(a);
  if (!f) return Json();
  return Json::parse(f->content);
}

inline toml::table toml_of(const AdapterResult& a) {
  const RenderedFile* f = only_file(a);
  return f ? toml::parse(f->content) : toml::table{};
}

inline bool has_warning(const AdapterResult& a, Field f, const std::string& needle) {
  for (const auto& w : a.warnings) {
    if (w.field == f && w.reason.find(needle) != std::string::npos) return true;
  }
  return false;
}

inline bool contains(const Json& arr, const std::string& s) {
  if (!arr.is_array()) return false;
  for (const auto& e : arr) {
    if (e == s) return true;
  }
  return false;
}

}  // namespace halo::render::testing
