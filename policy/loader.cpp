#include "policy/loader.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "policy/egress_rules.h"
#include "policy/merge.h"
#include "policy/profile_doc.h"
#include "policy/validate.h"

namespace halo::policy {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxPolicyFile = 1 << 20;  // 1 MiB: a policy is a page of YAML
constexpr int kMaxExtendsDepth = 16;

std::optional<std::string> read_policy_file(const std::string& path, const SourceLoc& from,
                                            const std::string& field, Diagnostics& diags) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    diags.error(from.file.empty() ? SourceLoc{path} : from, field, "cannot read '" + path + "': no such file");
    return std::nullopt;
  }
  if (!fs::is_regular_file(st)) {
    diags.error(from.file.empty() ? SourceLoc{path} : from, field, "'" + path + "' is not a regular file");
    return std::nullopt;
  }
  if (fs::file_size(path, ec) > kMaxPolicyFile) {
    diags.error(SourceLoc{path}, field, "larger than 1 MiB; not a policy file");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.error(from.file.empty() ? SourceLoc{path} : from, field, "cannot open '" + path + "'");
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads `file` and its extends chain, root ancestor first, into `chain`.
bool load_chain(const std::string& file, const SourceLoc& from, std::vector<std::string>& stack,
                std::vector<ProfileDoc>& chain, Diagnostics& diags) {
  std::error_code ec;
  std::string key = fs::weakly_canonical(file, ec).string();
  if (ec) key = file;
  for (const auto& s : stack) {
    if (s == key) {
      std::string cycle;
      for (const auto& x : stack) cycle += x + " -> ";
      diags.error(from, "extends", "extends cycle: " + cycle + key, "remove one of the extends");
      return false;
    }
  }
  if (static_cast<int>(stack.size()) >= kMaxExtendsDepth) {
    diags.error(from, "extends", "extends chain deeper than 16 files", "flatten the chain");
    return false;
  }
  auto text = read_policy_file(file, from, "extends", diags);
  if (!text) return false;
  auto doc = parse_profile_doc(file, *text, DocKind::profile, diags);
  if (!doc) return false;
  stack.push_back(key);
  bool ok = true;
  if (doc->extends) {
    fs::path parent = fs::path(file).parent_path() / doc->extends->value;
    ok = load_chain(parent.lexically_normal().string(), doc->extends->loc, stack, chain, diags);
  }
  stack.pop_back();
  chain.push_back(std::move(*doc));
  return ok;
}

void finish(Policy& p, const std::vector<PresetDefinition>& presets, const PresetEnvironment& env,
            LoadResult& out) {
  p.egress.preset_domains.clear();
  for (const auto& ref : p.egress.presets) {
    const PresetDefinition* def = find_preset(presets, ref.name);
    if (def == nullptr) continue;
    for (const auto& d : def->domains) {
      p.egress.preset_domains.push_back({d, "preset " + ref.name, ref.loc});
    }
    if (ref.name == "package-registries") {
      for (const auto& note : env.notes) out.diagnostics.warning(ref.loc, "egress.presets", note);
    }
  }
  p.rules = std::make_shared<const EgressRules>(p.egress, env.host_addresses);
  validate_policy(p, out.diagnostics);
  if (!out.diagnostics.has_errors()) out.policy = std::make_shared<const Policy>(std::move(p));
}

}  // namespace

LoadResult load_profile(const std::string& file, const PresetEnvironment& env) {
  LoadResult out;
  auto presets = builtin_presets(env);
  std::vector<std::string> stack;
  std::vector<ProfileDoc> chain;
  if (!load_chain(file, SourceLoc{}, stack, chain, out.diagnostics)) return out;
  Policy p;
  p.name = file;
  for (const auto& doc : chain) apply_doc(doc, presets, p, out.diagnostics);
  if (out.diagnostics.has_errors()) return out;
  finish(p, presets, env, out);
  return out;
}

LoadResult load_profile_text(const std::string& name, const std::string& yaml,
                             const PresetEnvironment& env) {
  LoadResult out;
  auto presets = builtin_presets(env);
  auto doc = parse_profile_doc(name, yaml, DocKind::profile, out.diagnostics);
  if (!doc) return out;
  if (doc->extends) {
    out.diagnostics.error(doc->extends->loc, "extends", "extends is not available here");
    return out;
  }
  Policy p;
  p.name = name;
  apply_doc(*doc, presets, p, out.diagnostics);
  if (out.diagnostics.has_errors()) return out;
  finish(p, presets, env, out);
  return out;
}

LoadResult load_ring(const std::string& policy_dir, const std::string& ring,
                     const std::string& unit, const PresetEnvironment& env) {
  LoadResult out;
  fs::path dir(policy_dir);
  std::string rings_file = (dir / "rings.yaml").lexically_normal().string();
  auto text = read_policy_file(rings_file, SourceLoc{}, "rings", out.diagnostics);
  if (!text) return out;
  YAML::Node rings;
  try {
    rings = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    out.diagnostics.error(SourceLoc{rings_file, e.mark.line + 1, e.mark.column + 1}, "",
                          "not valid YAML: " + e.msg);
    return out;
  }
  if (!rings.IsMap()) {
    out.diagnostics.error(SourceLoc{rings_file, 1, 1}, "", "rings.yaml must map ring names to profiles",
                          "e.g. 'ring0: strict' for profiles/strict.yaml");
    return out;
  }
  std::string profile_name;
  SourceLoc ring_loc{rings_file};
  std::string names;
  for (const auto& kv : rings) {
    std::string name = kv.first.Scalar();
    names += (names.empty() ? "" : ", ") + name;
    if (name == ring) {
      if (!kv.second.IsScalar()) {
        out.diagnostics.error(SourceLoc{rings_file, kv.second.Mark().line + 1, kv.second.Mark().column + 1},
                              ring, "must name a profile");
        return out;
      }
      profile_name = kv.second.Scalar();
      ring_loc.line = kv.second.Mark().line + 1;
      ring_loc.column = kv.second.Mark().column + 1;
    }
  }
  if (profile_name.empty()) {
    out.diagnostics.error(SourceLoc{rings_file}, "", "unknown ring '" + ring + "'", "rings here: " + names);
    return out;
  }
  fs::path profile = profile_name.find('/') != std::string::npos || profile_name.ends_with(".yaml")
                         ? dir / profile_name
                         : dir / "profiles" / (profile_name + ".yaml");
  auto presets = builtin_presets(env);
  std::vector<std::string> stack;
  std::vector<ProfileDoc> chain;
  if (!load_chain(profile.lexically_normal().string(), ring_loc, stack, chain, out.diagnostics)) {
    return out;
  }
  Policy p;
  p.name = "ring " + ring + (unit.empty() ? "" : ", unit " + unit);
  for (const auto& doc : chain) apply_doc(doc, presets, p, out.diagnostics);
  if (!unit.empty()) {
    std::string unit_file = (dir / "units" / (unit + ".yaml")).lexically_normal().string();
    auto utext = read_policy_file(unit_file, SourceLoc{}, "unit", out.diagnostics);
    if (!utext) return out;
    auto udoc = parse_profile_doc(unit_file, *utext, DocKind::unit, out.diagnostics);
    if (!udoc) return out;
    Policy before = p;
    apply_doc(*udoc, presets, p, out.diagnostics);
    out.loosenings = find_loosenings(before, p, SourceLoc{unit_file, 1, 1});
  }
  if (out.diagnostics.has_errors()) return out;
  finish(p, presets, env, out);
  return out;
}

}  // namespace halo::policy
