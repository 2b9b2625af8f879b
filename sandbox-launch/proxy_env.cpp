#include "sandbox-launch/proxy_env.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace halo::launch {

std::vector<std::string> session_environment(const std::string& proxy_address,
                                             const Enforcement& enforcement,
                                             const std::string& session_id) {
  const std::string http = "http://" + proxy_address;
  const std::string socks = "socks5h://" + proxy_address;
  const std::string no_proxy = enforcement.loopback_grants.empty() ? "localhost,127.0.0.1,::1" : "";
  std::vector<std::string> env;
  for (const char* name : {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"})
    env.push_back(std::string(name) + "=" + http);
  for (const char* name : {"ALL_PROXY", "all_proxy"}) env.push_back(std::string(name) + "=" + socks);
  for (const char* name : {"NO_PROXY", "no_proxy"}) env.push_back(std::string(name) + "=" + no_proxy);
  env.push_back("HALO_SESSION=" + session_id);
  env.push_back(std::string("HALO_ENFORCEMENT=") + level_name(enforcement.overall()));
  env.push_back(std::string("HALO_ENFORCEMENT_NETWORK=") + level_name(enforcement.network.level));
  env.push_back(std::string("HALO_ENFORCEMENT_FILESYSTEM=") +
                level_name(enforcement.filesystem.level));
  return env;
}

namespace {

std::string env_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

bool is_proxy_variable(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  static const std::set<std::string> kNames{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                            "NO_PROXY",   "FTP_PROXY",   "RSYNC_PROXY"};
  return kNames.count(name) != 0;
}

}  // namespace

std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::vector<std::string>& extra) {
  std::set<std::string> overridden;
  for (const auto& e : extra) overridden.insert(env_name(e));
  std::vector<std::string> out;
  out.reserve(base.size() + extra.size());
  for (const auto& e : base) {
    if (e.find('=') != std::string::npos) {
      const std::string name = env_name(e);
      if (overridden.count(name) || is_proxy_variable(name)) continue;
    }
    out.push_back(e);
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

}  // namespace halo::launch
