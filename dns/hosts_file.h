#pragma once
// /etc/hosts syntax: "ADDRESS NAME [ALIAS...]" per line, '#' starts a comment. Lines
// whose address does not parse strictly (or carries a zone, "fe80::1%eth0") are skipped.
// Names are kept lower case without a trailing dot. Pure; used by AresResolver, which
// answers from this table before asking DNS.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "policy/ip_address.h"

namespace halo::dns {

class HostsTable {
 public:
  static HostsTable parse(std::string_view text);
  // Empty when the file cannot be read.
  static HostsTable load(const std::string& path);
  const std::vector<policy::IpAddress>* find(std::string_view name) const;
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, std::vector<policy::IpAddress>> names_;
};

}  // namespace halo::dns
