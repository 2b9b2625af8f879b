#include "policy/profile_doc.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

namespace halo::policy {
namespace {

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  YAML::Mark m = n.Mark();
  return SourceLoc{file, m.line + 1, m.column + 1};
}

// Walks one mapping: checks every key is known and appears once, hands each known
// (key, value) to `on`. Unknown keys are errors: a typo must not weaken a policy.
template <typename F>
void each_key(const std::string& file, const YAML::Node& map, const std::string& where,
              const std::vector<std::string_view>& known, Diagnostics& diags, F on) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    // Copies: yaml-cpp's iterator hands out a temporary pair; references into it dangle.
    const YAML::Node k = it->first;
    const YAML::Node v = it->second;
    if (!k.IsScalar()) {
      diags.error(loc_of(file, k), where, "keys must be plain words");
      continue;
    }
    std::string key = k.Scalar();
    std::string field = where.empty() ? key : where + "." + key;
    if (!seen.insert(key).second) {
      diags.error(loc_of(file, k), field, "duplicate key", "keep one of them");
      continue;
    }
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string hint = closest_key(key, known);
      std::string list;
      for (auto kk : known) list += (list.empty() ? "" : ", ") + std::string(kk);
      diags.error(loc_of(file, k), field, "unknown key (a typo must not weaken a policy)",
                  hint.empty() ? "known keys here: " + list : "did you mean '" + hint + "'?");
      continue;
    }
    on(key, field, k, v);
  }
}

std::optional<LocatedString> scalar(const std::string& file, const YAML::Node& v,
                                    const std::string& field, Diagnostics& diags) {
  if (!v.IsScalar()) {
    diags.error(loc_of(file, v), field, "must be a single value");
    return std::nullopt;
  }
  return LocatedString{v.Scalar(), loc_of(file, v)};
}

std::optional<LocatedList> list(const std::string& file, const YAML::Node& v,
                                const std::string& field, Diagnostics& diags) {
  if (v.IsNull()) return LocatedList{};  // "key:" with nothing is an empty list
  if (!v.IsSequence()) {
    diags.error(loc_of(file, v), field, "must be a list", "write [a, b] or one '- item' per line");
    return std::nullopt;
  }
  LocatedList out;
  std::size_t i = 0;
  for (const auto& item : v) {
    std::string f = field + "[" + std::to_string(i++) + "]";
    if (!item.IsScalar()) {
      diags.error(loc_of(file, item), f, "list items must be single values");
      continue;
    }
    out.push_back({item.Scalar(), loc_of(file, item)});
  }
  return out;
}

bool require_map(const std::string& file, const YAML::Node& v, const std::string& field,
                 Diagnostics& diags) {
  if (v.IsMap()) return true;
  if (v.IsNull()) return false;  // "sandbox:" alone: nothing set
  diags.error(loc_of(file, v), field, "must be a mapping of keys");
  return false;
}

SandboxDoc parse_sandbox(const std::string& file, const YAML::Node& v, Diagnostics& diags) {
  SandboxDoc d;
  if (!require_map(file, v, "sandbox", diags)) return d;
  each_key(file, v, "sandbox", {"mode", "writableRoots", "protectedPaths"}, diags,
           [&](const std::string& key, const std::string& field, const YAML::Node&,
               const YAML::Node& val) {
             if (key == "mode") d.mode = scalar(file, val, field, diags);
             if (key == "writableRoots") d.writable_roots = list(file, val, field, diags);
             if (key == "protectedPaths") d.protected_paths = list(file, val, field, diags);
           });
  return d;
}

EgressDoc parse_egress(const std::string& file, const YAML::Node& v, Diagnostics& diags) {
  EgressDoc d;
  if (!require_map(file, v, "egress", diags)) return d;
  each_key(file, v, "egress",
           {"default", "allowedDomains", "presets", "deniedDomains", "loopback",
            "allowedAddresses"},
           diags,
           [&](const std::string& key, const std::string& field, const YAML::Node&,
               const YAML::Node& val) {
             if (key == "default") d.default_action = scalar(file, val, field, diags);
             if (key == "allowedDomains") d.allowed_domains = list(file, val, field, diags);
             if (key == "presets") d.presets = list(file, val, field, diags);
             if (key == "deniedDomains") d.denied_domains = list(file, val, field, diags);
             if (key == "loopback") d.loopback = list(file, val, field, diags);
             if (key == "allowedAddresses") d.allowed_addresses = list(file, val, field, diags);
           });
  return d;
}

}  // namespace

std::string closest_key(std::string_view key, const std::vector<std::string_view>& known) {
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        char ca = static_cast<char>(std::tolower(static_cast<unsigned char>(a[i - 1])));
        char cb = static_cast<char>(std::tolower(static_cast<unsigned char>(b[j - 1])));
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca == cb ? 0 : 1)});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  std::size_t best_d = 3;
  for (auto k : known) {
    std::size_t d = distance(key, k);
    if (d < best_d) {
      best_d = d;
      best = std::string(k);
    }
  }
  return best;
}

std::optional<ProfileDoc> parse_profile_doc(const std::string& file, const std::string& text,
                                            DocKind kind, Diagnostics& diags) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "", "not valid YAML: " + e.msg);
    return std::nullopt;
  }
  ProfileDoc doc;
  doc.file = file;
  if (root.IsNull()) return doc;  // an empty file is an empty policy
  if (!root.IsMap()) {
    diags.error(loc_of(file, root), "", "a policy file must be a mapping of keys");
    return std::nullopt;
  }
  std::vector<std::string_view> known =
      kind == DocKind::profile
          ? std::vector<std::string_view>{"extends", "description", "sandbox", "permissions",
                                          "egress", "enforcement", "gateway"}
          : std::vector<std::string_view>{"description", "sandbox", "egress"};
  try {
    each_key(file, root, "", known, diags,
             [&](const std::string& key, const std::string& field, const YAML::Node&,
                 const YAML::Node& val) {
               if (key == "extends") doc.extends = scalar(file, val, field, diags);
               if (key == "description") scalar(file, val, field, diags);
               if (key == "gateway") doc.gateway = scalar(file, val, field, diags);
               if (key == "sandbox") doc.sandbox = parse_sandbox(file, val, diags);
               if (key == "egress") doc.egress = parse_egress(file, val, diags);
               if (key == "permissions" && require_map(file, val, field, diags)) {
                 each_key(file, val, "permissions", {"sandbox"}, diags,
                          [&](const std::string&, const std::string& f, const YAML::Node&,
                              const YAML::Node& v) {
                            doc.permissions_sandbox = scalar(file, v, f, diags);
                          });
               }
               if (key == "enforcement" && require_map(file, val, field, diags)) {
                 each_key(file, val, "enforcement", {"require"}, diags,
                          [&](const std::string&, const std::string& f, const YAML::Node&,
                              const YAML::Node& v) { doc.require = scalar(file, v, f, diags); });
               }
             });
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "", e.msg);
    return std::nullopt;
  }
  return doc;
}

}  // namespace halo::policy
