#include "policy/presets.h"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <yaml-cpp/yaml.h>

#include <cstring>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "policy/host.h"

namespace halo::policy {

extern const char* const kPresetsYaml;

namespace {

constexpr std::uintmax_t kMaxConfigFile = 1 << 20;  // package-manager files are small

std::string read_small_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return {};
  auto size = std::filesystem::file_size(p, ec);
  if (ec || size > kMaxConfigFile) return {};
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "https://user:pw@mirror.example:8443/path/" -> "mirror.example" (canonical), or "".
std::string host_of_url(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  auto at = rest.rfind('@');
  if (at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (!rest.empty() && rest.front() == '[') return {};  // an IP literal is not a domain rule
  rest = rest.substr(0, rest.find(':'));
  HostResult h = normalize_host(rest);
  if (!h || h.host->kind != NormalizedHost::Kind::name) return {};
  return h.host->text;
}

void add_unique(std::vector<std::string>& v, std::string s) {
  if (s.empty()) return;
  for (const auto& x : v) {
    if (x == s) return;
  }
  v.push_back(std::move(s));
}

// npmrc is "key = value" lines; later files and the environment take precedence, the way
// npm reads them (project < user < global is reversed in npm; we only need the value).
std::string npmrc_registry(const std::string& text) {
  std::istringstream in(text);
  std::string line, found;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    auto trim = [](std::string& s) {
      s.erase(0, s.find_first_not_of(" \t\r"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
    };
    trim(key);
    trim(value);
    if (key == "registry") found = value;
  }
  return found;
}

// With no registry configured, npm uses the default compiled into it; read that from the
// installed npm's own definitions rather than writing a host into halo.
std::string npm_builtin_registry(const std::filesystem::path& root) {
  for (const char* dir : {"usr/lib/node_modules/npm", "usr/local/lib/node_modules/npm",
                          "usr/share/nodejs/npm"}) {
    std::string text = read_small_file(
        root / dir / "node_modules/@npmcli/config/lib/definitions/definitions.js");
    auto at = text.find("new Definition('registry'");
    if (at == std::string::npos) continue;
    auto def = text.find("default:", at);
    if (def == std::string::npos || def - at > 200) continue;
    auto q1 = text.find('\'', def);
    auto q2 = q1 == std::string::npos ? q1 : text.find('\'', q1 + 1);
    if (q2 == std::string::npos) continue;
    return text.substr(q1 + 1, q2 - q1 - 1);
  }
  return {};
}

void apt_hosts_from(const std::string& text, std::vector<std::string>& out) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      // one-line "deb [opts] URI suite" and deb822 "URIs: URI URI"
      if (w.find("://") != std::string::npos) add_unique(out, host_of_url(w));
    }
  }
}

std::vector<IpAddress> host_interface_addresses() {
  std::vector<IpAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    IpAddress a;
    if (i->ifa_addr->sa_family == AF_INET) {
      a.family = IpAddress::Family::v4;
      std::memcpy(a.bytes.data(), &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      a.family = IpAddress::Family::v6;
      std::memcpy(a.bytes.data(), &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, 16);
    } else {
      continue;
    }
    AddressClass c = judge_address(a).cls;
    if (c == AddressClass::loopback || always_denied(c)) continue;  // already never dialed
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  freeifaddrs(list);
  return out;
}

}  // namespace

PresetEnvironment discover_preset_environment(const std::string& root, const std::string& home) {
  namespace fs = std::filesystem;
  PresetEnvironment env;
  fs::path r(root.empty() ? "/" : root);

  std::string registry;
  for (const fs::path& p : {r / "etc/npmrc", r / "usr/etc/npmrc", r / "usr/local/etc/npmrc"}) {
    std::string v = npmrc_registry(read_small_file(p));
    if (!v.empty()) registry = v;
  }
  if (!home.empty()) {
    std::string v = npmrc_registry(read_small_file(fs::path(home) / ".npmrc"));
    if (!v.empty()) registry = v;
  }
  if (const char* e = std::getenv("NPM_CONFIG_REGISTRY"); e && *e && root == "/") registry = e;
  if (const char* e = std::getenv("npm_config_registry"); e && *e && root == "/") registry = e;
  if (registry.empty()) registry = npm_builtin_registry(r);
  add_unique(env.npm_registry_hosts, host_of_url(registry));
  if (env.npm_registry_hosts.empty()) {
    env.notes.push_back(
        "package-registries: no npm registry found in $NPM_CONFIG_REGISTRY, ~/.npmrc, "
        "/etc/npmrc or the installed npm; the preset holds no npm host (add the registry to egress.allowedDomains "
        "or to an npmrc)");
  }

  apt_hosts_from(read_small_file(r / "etc/apt/sources.list"), env.apt_hosts);
  std::error_code ec;
  fs::path dir = r / "etc/apt/sources.list.d";
  if (fs::is_directory(dir, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      auto ext = e.path().extension();
      if (ext == ".list" || ext == ".sources") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) apt_hosts_from(read_small_file(f), env.apt_hosts);
  }
  if (env.apt_hosts.empty()) {
    env.notes.push_back(
        "package-registries: no apt sources found under /etc/apt; the preset holds no Debian "
        "archive host");
  }
  if (root == "/") env.host_addresses = host_interface_addresses();
  return env;
}

namespace {

struct BuiltinPreset {
  PresetDefinition def;
  std::vector<std::string> machine;  // "npm-registry", "apt-archives"
};

// presets.yaml is compiled in; parse it once per process.
const std::vector<BuiltinPreset>& parsed_presets() {
  static const std::vector<BuiltinPreset> parsed = [] {
    std::vector<BuiltinPreset> out;
    YAML::Node root = YAML::Load(kPresetsYaml);  // a parse error here is a build bug
    for (const auto& kv : root) {
      BuiltinPreset b;
      b.def.name = kv.first.as<std::string>();
      const YAML::Node& body = kv.second;
      if (body["description"]) b.def.description = body["description"].as<std::string>();
      if (body["domains"]) {
        for (const auto& d : body["domains"]) b.def.domains.push_back(d.as<std::string>());
      }
      if (body["paths"]) {
        for (const auto& d : body["paths"]) b.def.paths.push_back(d.as<std::string>());
      }
      if (body["machine"]) {
        for (const auto& m : body["machine"]) b.machine.push_back(m.as<std::string>());
      }
      out.push_back(std::move(b));
    }
    return out;
  }();
  return parsed;
}

}  // namespace

std::vector<PresetDefinition> builtin_presets(const PresetEnvironment& env) {
  std::vector<PresetDefinition> out;
  for (const auto& b : parsed_presets()) {
    PresetDefinition p = b.def;
    for (const auto& what : b.machine) {
      const auto& hosts = what == "npm-registry" ? env.npm_registry_hosts : env.apt_hosts;
      for (const auto& h : hosts) add_unique(p.domains, h);
    }
    out.push_back(std::move(p));
  }
  return out;
}

const PresetDefinition* find_preset(const std::vector<PresetDefinition>& all,
                                    std::string_view name) {
  for (const auto& p : all) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace halo::policy
