// read_posture (posture.h): per-user files and environment that weaken a harness.
#include "policy/posture/posture.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "policy/posture/small_file.h"

namespace halo::posture {

namespace {

namespace fs = std::filesystem;

class Reader {
 public:
  Reader(std::string home, const std::map<std::string, std::string>& env)
      : home_(std::move(home)), env_(env) {}

  PostureReport run() {
    environment();
    codex();
    gemini();
    cursor();
    return std::move(report_);
  }

 private:
  void find(std::string harness, std::string problem, std::string fix) {
    report_.findings.push_back(Finding{std::move(harness), std::move(problem), std::move(fix)});
  }

  const std::string* var(const std::string& name) const {
    auto it = env_.find(name);
    return it == env_.end() ? nullptr : &it->second;
  }

  // "~/x" for paths under the home directory.
  std::string shown(const std::string& path) const {
    if (!home_.empty() && path.size() > home_.size() && path.starts_with(home_) &&
        path[home_.size()] == '/') {
      return "~" + path.substr(home_.size());
    }
    return path;
  }

  // Reads the file and records its status; returns the content only when it was read.
  std::optional<std::string> read(const std::string& path) {
    SmallFile f = read_small_file(path, kMaxPostureFileBytes);
    std::string status = describe(f.status);
    if (f.symlink) status += " (symlink followed)";
    report_.files.push_back(CheckedFile{shown(path), status});
    if (f.status != SmallFile::Status::read) return std::nullopt;
    return std::move(f.content);
  }

  void unparsable(const std::string& what) { report_.files.back().status = "read; " + what; }

  void environment() {
    if (const auto* v = var("GEMINI_SANDBOX"); v && (*v == "false" || *v == "0")) {
      find("gemini-cli", "GEMINI_SANDBOX=" + *v + " turns the sandbox off and overrides every settings file",
           "unset GEMINI_SANDBOX");
    }
    if (const auto* v = var("OPENCODE_PERMISSION"); v && !v->empty()) {
      find("opencode", "OPENCODE_PERMISSION is set and overrides the managed permission rules (value not shown)",
           "unset OPENCODE_PERMISSION");
    }
    if (const auto* v = var("OPENCODE_TEST_MANAGED_CONFIG_DIR"); v && !v->empty()) {
      find("opencode", "OPENCODE_TEST_MANAGED_CONFIG_DIR is set and moves the managed config directory away "
                       "from the rendered one",
           "unset OPENCODE_TEST_MANAGED_CONFIG_DIR");
    }
    if (const auto* v = var("CODEX_HOME"); v && !v->empty()) {
      find("codex", "CODEX_HOME is set: Codex reads its user config and profiles from that directory "
                    "(checked below)",
           "unset CODEX_HOME unless the directory is meant to be used");
    }
  }

  static bool danger(const toml::node_view<const toml::node>& t) {
    return t["sandbox_mode"].value<std::string>() == "danger-full-access" ||
           t["default_permissions"].value<std::string>() == ":danger-full-access";
  }

  void codex_file(const std::string& path) {
    auto text = read(path);
    if (!text) return;
    toml::table t;
    try {
      t = toml::parse(*text);
    } catch (const toml::parse_error& e) {
      // The parser's message can quote the file; only the line is kept.
      unparsable("not valid TOML (line " + std::to_string(e.source().begin.line) + ")");
      return;
    }
    const toml::node_view<const toml::node> root{static_cast<const toml::node&>(t)};
    if (danger(root)) {
      find("codex", shown(path) + " sets full access (sandbox_mode = \"danger-full-access\" or "
                                  "default_permissions = \":danger-full-access\") at the top level",
           "remove it, or set sandbox_mode = \"workspace-write\"; requirements.toml "
           "allowed_sandbox_modes is the enforced control");
    }
    std::size_t bad = 0, total = 0;
    if (const auto* profiles = t["profiles"].as_table()) {
      for (const auto& [name, prof] : *profiles) {
        ++total;
        if (danger(toml::node_view<const toml::node>{prof})) ++bad;
      }
    }
    if (bad) {
      find("codex", shown(path) + " sets full access in " + std::to_string(bad) + " of " +
                        std::to_string(total) + " [profiles.*] tables (any --profile can select one)",
           "remove sandbox_mode = \"danger-full-access\" from those profiles");
    }
  }

  void codex() {
    const std::string* ch = var("CODEX_HOME");
    const std::string dir = ch && !ch->empty() ? *ch : home_ + "/.codex";
    codex_file(dir + "/config.toml");
    // Codex 0.171 layers $CODEX_HOME/<name>.config.toml for --profile <name>.
    std::vector<std::string> profiles;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.ends_with(".config.toml") && name != "config.toml") profiles.push_back(it->path().string());
      if (profiles.size() >= kMaxCodexProfileFiles) break;
    }
    std::sort(profiles.begin(), profiles.end());
    for (const auto& p : profiles) codex_file(p);
  }

  std::optional<nlohmann::json> json_file(const std::string& path) {
    auto text = read(path);
    if (!text) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false,
                                             /*ignore_comments=*/true);
    if (j.is_discarded() || !j.is_object()) {
      unparsable("not a JSON object");
      return std::nullopt;
    }
    return j;
  }

  void gemini() {
    const std::string path = home_ + "/.gemini/settings.json";
    auto j = json_file(path);
    if (!j) return;
    const auto tools = j->find("tools");
    if (tools == j->end() || !tools->is_object()) return;
    const auto sb = tools->find("sandbox");
    if (sb == tools->end()) return;
    const bool off = (sb->is_boolean() && !sb->get<bool>()) ||
                     (sb->is_object() && sb->contains("enabled") && (*sb)["enabled"] == false);
    if (off) {
      find("gemini-cli", shown(path) + " sets tools.sandbox = false",
           "remove tools.sandbox from the user settings (the system settings file sets it)");
    }
  }

  void cursor() {
    const std::string path = home_ + "/.cursor/sandbox.json";
    auto j = json_file(path);
    if (!j) return;
    auto type = j->find("type");
    if (type != j->end() && *type == "insecure_none") {
      find("cursor", shown(path) + " sets type = \"insecure_none\" (no sandbox)",
           "remove \"type\" or set it to \"workspace_readwrite\"");
    }
  }

  std::string home_;
  const std::map<std::string, std::string>& env_;
  PostureReport report_;
};

}  // namespace

std::string Finding::to_string() const {
  return "posture:" + harness + ": " + problem + "; fix: " + fix;
}

PostureReport read_posture(const std::string& home, const std::map<std::string, std::string>& env) {
  return Reader(home, env).run();
}

}  // namespace halo::posture
