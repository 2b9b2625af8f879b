#pragma once
// Presets are data: policy/presets.yaml (compiled into the binary) names each preset's
// hosts with their sources in comments. Two hosts are not written there: the npm
// registry and the Debian archives are taken from the machine's own package-manager
// configuration, because most organisations use a mirror.
#include <string>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/policy.h"

namespace halo::policy {

// What the machine's configuration says, discovered once at start-up.
struct PresetEnvironment {
  std::vector<std::string> npm_registry_hosts;  // from $NPM_CONFIG_REGISTRY, ~/.npmrc, /etc/npmrc
  std::vector<std::string> apt_hosts;           // from /etc/apt/sources.list{,.d/*}
  std::vector<std::string> notes;               // what could not be found, for warnings
  // This host's own interface addresses (getifaddrs): the broker dials from this host, so
  // they are judged like loopback (reached only through a loopback grant). Discovered once
  // at start-up; a later change of address is not seen.
  std::vector<IpAddress> host_addresses;
};

// Reads the files under `root` (normally "/") and `home` (normally $HOME); never throws.
// Host addresses are read only when `root` is "/".
PresetEnvironment discover_preset_environment(const std::string& root, const std::string& home);

struct PresetDefinition {
  std::string name;
  std::string description;
  std::vector<std::string> domains;  // canonical patterns
  std::vector<std::string> paths;    // for path presets ("credentials")
};

// All presets known to this build, with the machine-derived hosts added.
std::vector<PresetDefinition> builtin_presets(const PresetEnvironment& env);
const PresetDefinition* find_preset(const std::vector<PresetDefinition>& all,
                                    std::string_view name);

}  // namespace halo::policy
