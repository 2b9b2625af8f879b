// Release check (release_check.h).
#include "policy/render/release_check.h"

#include <toml++/toml.h>

#include "policy/path_rules.h"
#include "policy/render/json_text.h"

namespace halo::render {

namespace {

struct Checker {
  const policy::Policy& policy;
  const AdapterResult& result;
  const RenderedFile* file = nullptr;
  bool deny_default = false;
  std::vector<std::string> problems;

  void fail(const std::string& what) {
    std::string line = to_string(result.harness);
    if (file) line += ": " + file->path;
    problems.push_back(line + ": " + what);
  }

  void bypass_string(std::string_view s, const std::string& where) {
    for (std::string_view token : {"danger-full-access", ":danger-full-access", "external-sandbox",
                                   "insecure_none"}) {
      if (s == token) fail(where + " carries bypass token \"" + std::string(token) + "\"");
    }
  }

  void walk_json(const Json& j, const std::string& where) {
    if (j.is_string()) {
      bypass_string(j.get<std::string>(), where);
      return;
    }
    if (j.is_array()) {
      for (const auto& e : j) walk_json(e, where);
      return;
    }
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const Json& v = it.value();
      const std::string at = where.empty() ? k : where + "." + k;
      if ((k == "allowUnsandboxedCommands" || k == "allowBypass") && v == true) {
        fail(at + ": true is a bypass");
      }
      if (k == "excludedCommands" && v.is_array() && !v.empty()) fail(at + " runs commands unsandboxed");
      if (k == "enabled" && v == false && where.ends_with("sandbox") &&
          policy.sandbox.mode != policy::SandboxMode::off) {
        fail(at + ": false while the policy wants a sandbox");
      }
      if (deny_default) {
        const bool allow_list = k == "allowedDomains" || k == "allowedHosts" || k == "allow";
        if (allow_list && v.is_array()) {
          for (const auto& e : v) {
            if (e == "*") fail(at + " allows every host under a default-deny policy");
          }
        }
        if ((k == "default" || k == "webfetch") && v == "allow") {
          fail(at + ": \"allow\" under a default-deny policy");
        }
        if (k == "allowOutbound" && v == true) {
          auto hosts = j.find("allowedHosts");
          if (hosts == j.end() || hosts->empty()) fail(at + ": true with no allowedHosts under default deny");
        }
      }
      walk_json(v, at);
    }
  }

  void walk_toml(const toml::node& n, const std::string& where) {
    if (auto s = n.value<std::string>()) {
      bypass_string(*s, where);
      return;
    }
    if (const auto* arr = n.as_array()) {
      for (const auto& e : *arr) walk_toml(e, where);
      return;
    }
    const auto* tbl = n.as_table();
    if (!tbl) return;
    for (const auto& [key, v] : *tbl) {
      const std::string k(key.str());
      const std::string at = where.empty() ? k : where + "." + k;
      const auto b = v.value<bool>();
      if (k.starts_with("dangerously_") && b && *b) fail(at + " = true is a bypass");
      if (deny_default && k == "network_access" && b && *b) {
        fail(at + " = true under a default-deny policy");
      }
      if (deny_default && k == "*" && v.value<std::string>() == "allow") {
        fail(at + " = \"allow\" under a default-deny policy");
      }
      walk_toml(v, at);
    }
  }

  void codex_roots(const toml::table& t) {
    std::vector<std::string> roots;
    if (const auto* perms = t["permissions"].as_table()) {
      for (const auto& [name, prof] : *perms) {
        const auto* fs = prof.as_table() ? (*prof.as_table())["filesystem"].as_table() : nullptr;
        if (fs) {
          for (const auto& [path, access] : *fs) {
            if (access.value<std::string>() == "write" && !path.str().starts_with(":")) {
              roots.emplace_back(path.str());
            }
          }
        }
        // A profile's network on without the managed proxy is plain open network.
        const auto* net = prof.as_table() ? (*prof.as_table())["network"].as_table() : nullptr;
        if (deny_default && net && (*net)["enabled"].value<bool>() == true &&
            t["experimental_network"]["enabled"].value<bool>() != true) {
          fail("permissions." + std::string(name.str()) +
               ".network enabled without [experimental_network] under default deny");
        }
      }
    }
    if (const auto* arr = t["sandbox_workspace_write"]["writable_roots"].as_array()) {
      for (const auto& e : *arr) {
        if (auto s = e.value<std::string>()) roots.push_back(*s);
      }
    }
    for (const auto& r : roots) {
      if (auto problem = policy::check_writable_root(r)) {
        fail("writable root " + r + ": " + problem->message);
      }
      for (const auto& pp : policy.sandbox.protected_paths) {
        if (policy::paths_overlap(r, pp.path)) fail("writable root " + r + " overlaps protected path " + pp.path);
      }
    }
  }

  void check_file(const RenderedFile& f) {
    file = &f;
    for (std::string_view token : {"danger-full-access", "insecure_none"}) {
      if (f.content.find(token) != std::string::npos) fail("text contains \"" + std::string(token) + "\"");
    }
    if (f.path.ends_with(".json")) {
      Json j = Json::parse(f.content, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        fail("not valid JSON");
      } else {
        walk_json(j, "");
      }
    } else if (f.path.ends_with(".toml")) {
      // toml++ is built with exceptions: a parse error is the one thrown here.
      try {
        const toml::table t = toml::parse(f.content);
        walk_toml(t, "");
        if (result.harness == Harness::codex) codex_roots(t);
      } catch (const toml::parse_error& e) {
        fail("not valid TOML (line " + std::to_string(e.source().begin.line) + ")");
      }
    } else {
      fail("unknown file type");
    }
    file = nullptr;
  }

  void no_silent_drop() {
    for (Field f : all_fields()) {
      if (!field_in_effect(policy, f)) continue;
      const FieldReport* r = result.report(f);
      if (!r) {
        fail(std::string(to_string(f)) + " is in effect but not reported (silent drop)");
        continue;
      }
      if (r->level == EnforcementLevel::full) continue;
      bool warned = false;
      for (const auto& w : result.warnings) warned = warned || (w.field == f && !w.reason.empty());
      if (!warned) {
        fail(std::string(to_string(f)) + " held at " + policy::to_string(r->level) +
             " without a warning (silent drop)");
      }
    }
  }
};

}  // namespace

std::vector<std::string> release_check(const policy::Policy& p, const AdapterResult& a) {
  Checker c{p, a};
  c.deny_default = p.egress.effective_default() == policy::DefaultAction::deny;
  for (const auto& f : a.files) c.check_file(f);
  c.no_silent_drop();
  return c.problems;
}

std::vector<std::string> release_check(const policy::Policy& p, const RenderResult& r) {
  std::vector<std::string> out;
  for (const auto& a : r.adapters) {
    auto more = release_check(p, a);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace halo::render
