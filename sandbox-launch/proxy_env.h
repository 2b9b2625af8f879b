#pragma once
// The environment `halo run` gives CMD: proxy variables in both cases, NO_PROXY, and the
// HALO_* variables; plus merging them over the caller's environment.
#include <string>
#include <vector>

#include "sandbox-launch/enforcement.h"

namespace halo::launch {

// HTTP_PROXY/HTTPS_PROXY (http://ADDR), ALL_PROXY (socks5h://ADDR), NO_PROXY (loopback
// only when there are no loopback grants, so proxy-aware clients reach granted ports
// through the broker), each in upper and lower case; HALO_SESSION, HALO_ENFORCEMENT (the
// lower of the two levels), HALO_ENFORCEMENT_NETWORK, HALO_ENFORCEMENT_FILESYSTEM.
std::vector<std::string> session_environment(const std::string& proxy_address,
                                             const Enforcement& enforcement,
                                             const std::string& session_id);

// `base` with every NAME that `extra` sets (or that is a proxy variable) removed, then
// `extra` appended. NAME=VALUE strings; entries without '=' are kept as they are.
std::vector<std::string> merge_environment(const std::vector<std::string>& base,
                                           const std::vector<std::string>& extra);

}  // namespace halo::launch
