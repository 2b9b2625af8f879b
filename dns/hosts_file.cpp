#include "dns/hosts_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace halo::dns {

HostsTable HostsTable::parse(std::string_view text) {
  HostsTable t;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    auto hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
    if (words.size() < 2) continue;
    auto ip = policy::IpAddress::parse_strict(words[0]);
    if (!ip) continue;
    for (std::size_t w = 1; w < words.size(); ++w) {
      std::string name(words[w]);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (!name.empty() && name.back() == '.') name.pop_back();
      if (name.empty()) continue;
      auto& list = t.names_[name];
      if (std::find(list.begin(), list.end(), *ip) == list.end()) list.push_back(*ip);
    }
  }
  return t;
}

HostsTable HostsTable::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str());
}

const std::vector<policy::IpAddress>* HostsTable::find(std::string_view name) const {
  auto it = names_.find(std::string(name));
  return it == names_.end() ? nullptr : &it->second;
}

}  // namespace halo::dns
