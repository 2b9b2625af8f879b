#include "policy/merge.h"

#include <algorithm>
#include <charconv>

#include "policy/host.h"
#include "policy/path_rules.h"
#include "policy/validate.h"

namespace halo::policy {
namespace {

std::optional<SandboxMode> parse_mode(std::string_view s) {
  if (s == "off") return SandboxMode::off;
  if (s == "workspace-write") return SandboxMode::workspace_write;
  if (s == "read-only") return SandboxMode::read_only;
  return std::nullopt;
}

std::vector<DomainEntry> domains(const LocatedList& list, const char* field, Diagnostics& diags) {
  std::vector<DomainEntry> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& e = list[i];
    if (auto problem = check_domain_pattern(e.value)) {
      diags.error(e.loc, std::string(field) + "[" + std::to_string(i) + "]",
                  "'" + e.value + "': " + problem->message, problem->fix);
      continue;
    }
    out.push_back({e.value, field, e.loc});
  }
  return out;
}

void add_path_union(std::vector<PathEntry>& acc, PathEntry e) {
  for (const auto& x : acc) {
    if (x.path == e.path) return;
  }
  acc.push_back(std::move(e));
}

void apply_sandbox(const SandboxDoc& sd, const std::optional<LocatedString>& permissions,
                   const std::vector<PresetDefinition>& presets, Policy& acc, Diagnostics& diags) {
  auto set_mode = [&](const LocatedString& m, const char* field) {
    auto mode = parse_mode(m.value);
    if (!mode) {
      diags.error(m.loc, field, "'" + m.value + "' is not a sandbox mode",
                  "use off, workspace-write or read-only");
      return;
    }
    acc.sandbox.mode = *mode;
    acc.sandbox.mode_set = true;
    acc.sandbox.mode_loc = m.loc;
  };
  if (sd.mode) set_mode(*sd.mode, "sandbox.mode");
  if (permissions) {
    if (sd.mode && sd.mode->value != permissions->value) {
      diags.error(permissions->loc, "permissions.sandbox",
                  "'" + permissions->value + "' disagrees with sandbox.mode '" + sd.mode->value +
                      "' (" + sd.mode->loc.short_form() + "); they are one setting",
                  "keep one of them");
    } else {
      set_mode(*permissions, "permissions.sandbox");
    }
  }
  if (sd.writable_roots) {
    acc.sandbox.writable_roots.clear();
    for (std::size_t i = 0; i < sd.writable_roots->size(); ++i) {
      const auto& r = (*sd.writable_roots)[i];
      std::string field = "sandbox.writableRoots[" + std::to_string(i) + "]";
      if (auto problem = check_writable_root(r.value)) {
        diags.error(r.loc, field, "'" + r.value + "' " + problem->message, problem->fix);
        continue;
      }
      acc.sandbox.writable_roots.push_back({r.value, r.loc});
    }
  }
  if (sd.protected_paths) {
    for (std::size_t i = 0; i < sd.protected_paths->size(); ++i) {
      const auto& p = (*sd.protected_paths)[i];
      std::string field = "sandbox.protectedPaths[" + std::to_string(i) + "]";
      if (const PresetDefinition* preset = find_preset(presets, p.value);
          preset && !preset->paths.empty()) {
        for (const auto& path : preset->paths) add_path_union(acc.sandbox.protected_paths, {path, p.loc});
        continue;
      }
      if (auto problem = check_protected_path(p.value)) {
        diags.error(p.loc, field, "'" + p.value + "' " + problem->message, problem->fix);
        continue;
      }
      add_path_union(acc.sandbox.protected_paths, {p.value, p.loc});
    }
  }
}

void apply_egress(const EgressDoc& ed, const std::vector<PresetDefinition>& presets, Policy& acc,
                  Diagnostics& diags) {
  auto& eg = acc.egress;
  if (ed.default_action) {
    const auto& d = *ed.default_action;
    if (d.value == "allow" || d.value == "deny") {
      eg.default_action = d.value == "allow" ? DefaultAction::allow : DefaultAction::deny;
      eg.default_loc = d.loc;
    } else {
      diags.error(d.loc, "egress.default", "'" + d.value + "' is not allow or deny", "use allow or deny");
    }
  }
  if (ed.allowed_domains) eg.allowed_domains = domains(*ed.allowed_domains, "allowedDomains", diags);
  if (ed.denied_domains) {
    for (auto& e : domains(*ed.denied_domains, "deniedDomains", diags)) {
      bool dup = std::any_of(eg.denied_domains.begin(), eg.denied_domains.end(),
                             [&](const DomainEntry& x) { return x.pattern == e.pattern; });
      if (!dup) eg.denied_domains.push_back(std::move(e));
    }
  }
  if (ed.presets) {
    eg.presets.clear();
    for (std::size_t i = 0; i < ed.presets->size(); ++i) {
      const auto& p = (*ed.presets)[i];
      std::string field = "egress.presets[" + std::to_string(i) + "]";
      const PresetDefinition* def = find_preset(presets, p.value);
      if (def == nullptr || def->paths.size() > 0) {
        std::string names;
        for (const auto& d : presets) {
          if (d.paths.empty()) names += (names.empty() ? "" : ", ") + d.name;
        }
        diags.error(p.loc, field,
                    def ? "'" + p.value + "' is a path preset (use it in sandbox.protectedPaths)"
                        : "unknown preset '" + p.value + "'",
                    "egress presets: " + names);
        continue;
      }
      eg.presets.push_back({p.value, p.loc});
    }
  }
  if (ed.loopback) {
    eg.loopback.clear();
    for (std::size_t i = 0; i < ed.loopback->size(); ++i) {
      const auto& p = (*ed.loopback)[i];
      unsigned port = 0;
      auto [ptr, ec] = std::from_chars(p.value.data(), p.value.data() + p.value.size(), port);
      if (ec != std::errc() || ptr != p.value.data() + p.value.size() || port == 0 || port > 65535) {
        diags.error(p.loc, "egress.loopback[" + std::to_string(i) + "]",
                    "'" + p.value + "' is not a port number (1-65535)",
                    "loopback grants are port numbers, e.g. [8080, 5432]");
        continue;
      }
      eg.loopback.push_back({static_cast<std::uint16_t>(port), p.loc});
    }
  }
  if (ed.allowed_addresses) {
    eg.allowed_addresses.clear();
    for (std::size_t i = 0; i < ed.allowed_addresses->size(); ++i) {
      const auto& a = (*ed.allowed_addresses)[i];
      if (auto problem = check_address_range(a.value)) {
        diags.error(a.loc, "egress.allowedAddresses[" + std::to_string(i) + "]",
                    "'" + a.value + "' " + problem->message, problem->fix);
        continue;
      }
      eg.allowed_addresses.push_back({*Cidr::parse(a.value), a.value, a.loc});
    }
  }
}

}  // namespace

void apply_doc(const ProfileDoc& doc, const std::vector<PresetDefinition>& presets, Policy& acc,
               Diagnostics& diags) {
  acc.files.push_back(doc.file);
  if (doc.sandbox || doc.permissions_sandbox) {
    apply_sandbox(doc.sandbox.value_or(SandboxDoc{}), doc.permissions_sandbox, presets, acc, diags);
  }
  if (doc.egress) apply_egress(*doc.egress, presets, acc, diags);
  if (doc.require) {
    const auto& r = *doc.require;
    if (r.value == "full") {
      acc.require = EnforcementLevel::full;
    } else if (r.value == "partial") {
      acc.require = EnforcementLevel::partial;
    } else if (r.value == "none") {
      acc.require = EnforcementLevel::none;
    } else {
      diags.error(r.loc, "enforcement.require", "'" + r.value + "' is not an enforcement level",
                  "use full, partial or none");
    }
    acc.require_loc = r.loc;
  }
  if (doc.gateway) {
    const auto& g = *doc.gateway;
    HostResult h = normalize_host(g.value);
    if (!h || h.host->kind != NormalizedHost::Kind::name || h.host->text != g.value) {
      diags.error(g.loc, "gateway", "'" + g.value + "' is not a canonical host name",
                  h && h.host->kind == NormalizedHost::Kind::name ? "write '" + h.host->text + "'"
                                                                  : "");
    } else {
      acc.gateway = g.value;
      acc.gateway_loc = g.loc;
    }
  }
}

std::vector<Loosening> find_loosenings(const Policy& before, const Policy& after,
                                       const SourceLoc& unit) {
  std::vector<Loosening> out;
  // Each loosening points at the line that makes it where there is one.
  auto add = [&](std::string what, const SourceLoc& at = {}) {
    out.push_back({at.file.empty() ? unit : at, std::move(what)});
  };
  if (before.egress.effective_default() == DefaultAction::deny &&
      after.egress.effective_default() == DefaultAction::allow) {
    add("switches egress.default deny -> allow", after.egress.default_loc);
  }
  auto rank = [](SandboxMode m) {
    return m == SandboxMode::read_only ? 2 : m == SandboxMode::workspace_write ? 1 : 0;
  };
  if (rank(after.sandbox.mode) < rank(before.sandbox.mode)) {
    add(std::string("weakens sandbox.mode ") + to_string(before.sandbox.mode) + " -> " +
        to_string(after.sandbox.mode), after.sandbox.mode_loc);
  }
  auto has_domain = [](const std::vector<DomainEntry>& v, const std::string& p) {
    return std::any_of(v.begin(), v.end(), [&](const DomainEntry& e) { return e.pattern == p; });
  };
  auto has_path = [](const std::vector<PathEntry>& v, const std::string& p) {
    return std::any_of(v.begin(), v.end(), [&](const PathEntry& e) { return e.path == p; });
  };
  for (const auto& d : before.egress.denied_domains) {
    if (!has_domain(after.egress.denied_domains, d.pattern)) add("drops denied domain " + d.pattern);
  }
  for (const auto& p : before.sandbox.protected_paths) {
    if (!has_path(after.sandbox.protected_paths, p.path)) add("drops protected path " + p.path);
  }
  for (const auto& r : after.sandbox.writable_roots) {
    if (!has_path(before.sandbox.writable_roots, r.path)) add("adds writable root " + r.path, r.loc);
  }
  for (const auto& d : after.egress.allowed_domains) {
    if (!has_domain(before.egress.allowed_domains, d.pattern)) add("adds allowed domain " + d.pattern, d.loc);
  }
  for (const auto& p : after.egress.presets) {
    bool had = std::any_of(before.egress.presets.begin(), before.egress.presets.end(),
                           [&](const PresetRef& x) { return x.name == p.name; });
    if (!had) add("adds preset " + p.name, p.loc);
  }
  for (const auto& g : after.egress.loopback) {
    bool had = std::any_of(before.egress.loopback.begin(), before.egress.loopback.end(),
                           [&](const LoopbackGrant& x) { return x.port == g.port; });
    if (!had) add("adds loopback grant " + std::to_string(g.port), g.loc);
  }
  for (const auto& a : after.egress.allowed_addresses) {
    bool had = std::any_of(before.egress.allowed_addresses.begin(),
                           before.egress.allowed_addresses.end(),
                           [&](const AddressGrant& x) { return x.text == a.text; });
    if (!had) add("adds allowed address range " + a.text, a.loc);
  }
  return out;
}

}  // namespace halo::policy
