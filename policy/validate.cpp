#include "policy/validate.h"

#include "policy/egress_rules.h"
#include "policy/host.h"
#include "policy/path_rules.h"

namespace halo::policy {

std::optional<EntryProblem> check_domain_pattern(std::string_view e) {
  if (e.empty()) return EntryProblem{"empty entry", "remove it"};
  if (e == "*" || e == "*.") {
    return EntryProblem{"a bare '*' matches every host", "use egress.default instead"};
  }
  if (auto scheme = e.find("://"); scheme != std::string_view::npos) {
    std::string_view host = e.substr(scheme + 3);
    host = host.substr(0, host.find_first_of("/:?#"));
    return EntryProblem{"a URL; domain lists hold host names", "write '" + std::string(host) + "'"};
  }
  if (e.find('/') != std::string_view::npos) {
    return EntryProblem{"has a path; domain lists hold host names",
                        "write '" + std::string(e.substr(0, e.find('/'))) + "'"};
  }
  if (e.find(':') != std::string_view::npos) {
    if (IpAddress::parse_strict(e)) {
      return EntryProblem{"an IP address; domain lists hold names", "use egress.allowedAddresses"};
    }
    return EntryProblem{"has a port; rules apply to every port of a host",
                        "write '" + std::string(e.substr(0, e.find(':'))) + "'"};
  }
  for (char c : e) {
    if (c >= 'A' && c <= 'Z') {
      std::string fixed(e);
      for (char& x : fixed) {
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
      }
      return EntryProblem{"upper case; host names are written in lower case",
                          "write '" + fixed + "'"};
    }
  }
  std::string_view base = e;
  if (e.starts_with("*.")) base.remove_prefix(2);
  if (base.find('*') != std::string_view::npos) {
    return EntryProblem{"a wildcard is allowed only as a leading '*.'",
                        "write '*.example.com' (subdomains) or 'example.com' (exactly)"};
  }
  if (!base.empty() && base.back() == '.') {
    return EntryProblem{"ends with a dot", "write '" + std::string(e.substr(0, e.size() - 1)) + "'"};
  }
  HostResult h = normalize_host(base);
  if (!h) return EntryProblem{std::string("not a valid host name: ") + h.error.reason, ""};
  if (h.host->kind == NormalizedHost::Kind::ip) {
    return EntryProblem{"an IP address; domain lists hold names", "use egress.allowedAddresses"};
  }
  if (h.host->text != base) {
    std::string fixed = (e.starts_with("*.") ? "*." : "") + h.host->text;
    return EntryProblem{"not in canonical form", "write '" + fixed + "'"};
  }
  if (is_localhost_name(base) || base == "localhost") {
    return EntryProblem{"loopback is granted per port, not by name", "use egress.loopback: [PORT]"};
  }
  return std::nullopt;
}

std::optional<EntryProblem> check_address_range(std::string_view entry) {
  auto c = Cidr::parse(entry);
  if (!c) {
    return EntryProblem{"not an address range (with host bits zero)",
                        "write e.g. 10.20.0.0/16 or fd00:1::/48"};
  }
  // Probe the range's first and last address and the special ranges inside it.
  static const char* const kForbidden[] = {"127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4",
                                           "240.0.0.0/4", "0.0.0.0/8",     "::1/128",
                                           "fe80::/10",   "ff00::/8",     "::/128",
                                           "::ffff:0:0/96", "64:ff9b::/96", "2002::/16",
                                           "2001::/32"};
  for (const char* f : kForbidden) {
    auto bad = Cidr::parse(f);
    if (!bad || bad->base.family != c->base.family) continue;
    if (c->contains(bad->base) || bad->contains(c->base)) {
      return EntryProblem{"covers " + bad->to_string() +
                              " (loopback is granted per port; link-local, multicast, "
                              "unspecified and reserved addresses are never reachable)",
                          "name only the private range you need, e.g. 10.20.0.0/16"};
    }
  }
  return std::nullopt;
}

void validate_policy(const Policy& p, Diagnostics& diags) {
  const auto& sb = p.sandbox;
  const auto& eg = p.egress;
  if (sb.mode == SandboxMode::off) {
    if (eg.any_field_set()) {
      diags.error(sb.mode_loc, "sandbox.mode",
                  "mode off together with egress rules: the shell would run outside every rule "
                  "the profile states",
                  "set mode to workspace-write or read-only, or remove the egress block");
    }
    if (!sb.writable_roots.empty() || !sb.protected_paths.empty()) {
      diags.error(sb.mode_loc, "sandbox.mode",
                  "mode off together with sandbox paths: nothing would hold them",
                  "set mode to workspace-write or read-only, or remove the paths");
    }
  }
  if (sb.mode == SandboxMode::read_only) {
    for (const auto& r : sb.writable_roots) {
      diags.error(r.loc, "sandbox.writableRoots",
                  "a writable root with mode read-only: '" + r.path + "'",
                  "remove it, or use mode workspace-write");
    }
  }
  for (const auto& r : sb.writable_roots) {
    for (const auto& pp : sb.protected_paths) {
      if (paths_overlap(r.path, pp.path)) {
        diags.error(r.loc, "sandbox.writableRoots",
                    "'" + r.path + "' overlaps the protected path '" + pp.path + "' (" +
                        pp.loc.short_form() + ")",
                    "choose a root that neither contains nor lies inside a protected path");
      }
    }
  }
  if (eg.default_action == DefaultAction::allow &&
      (!eg.allowed_domains.empty() || !eg.presets.empty())) {
    diags.error(eg.default_loc, "egress.default",
                "default allow together with an allowlist: the allowlist would mean nothing",
                "use default: deny with the allowlist, or remove allowedDomains and presets");
  }
  if (p.gateway && eg.restricted() && p.rules) {
    Decision d = p.rules->decide(*p.gateway, std::uint16_t{443});
    if (!d.allowed()) {
      diags.error(p.gateway_loc, "gateway",
                  "the policy denies its own model gateway '" + *p.gateway + "' (" + d.rule() + ")",
                  "add '" + *p.gateway + "' to egress.allowedDomains or remove the deny rule");
    }
  }
}

}  // namespace halo::policy
