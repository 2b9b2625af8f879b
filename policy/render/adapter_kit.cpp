// ResultBuilder and the policy questions adapters share (adapter_kit.h).
#include "policy/render/adapter_kit.h"

#include <algorithm>
#include <cstdio>

namespace halo::render {

ResultBuilder::ResultBuilder(Harness h, const policy::Policy& p, const Target& t) : policy_(p) {
  result_.harness = h;
  result_.target = t;
}

FieldReport* ResultBuilder::find(Field f) {
  for (auto& r : result_.fields) {
    if (r.field == f) return &r;
  }
  return nullptr;
}

void ResultBuilder::hold(Field f, Holder by, EnforcementLevel level, std::string mechanism) {
  if (!in_effect(f)) return;
  if (FieldReport* r = find(f)) {
    // A second statement about one field can only lower what was claimed.
    r->level = std::min(r->level, level);
    if (!mechanism.empty() && mechanism != r->mechanism) r->mechanism += "; " + mechanism;
    return;
  }
  result_.fields.push_back(FieldReport{f, by, level, std::move(mechanism)});
}

void ResultBuilder::hold_partial(Field f, std::string mechanism, std::string reason) {
  if (!in_effect(f)) return;
  hold(f, Holder::native, EnforcementLevel::partial, std::move(mechanism));
  warn(f, std::move(reason));
}

void ResultBuilder::broker(Field f, std::string why) {
  if (!in_effect(f)) return;
  const Os os = result_.target.os;
  std::string mech = "halo broker under `halo run` (";
  mech += os == Os::linux_os ? "Linux network namespace: every connection leads through it)"
                             : "platform backend is partial here: proxy-aware clients only)";
  hold(f, Holder::broker, broker_level(os), mech);
  why += "; held by the halo broker only when the harness runs under `halo run`";
  if (os != Os::linux_os) why += " (partial on " + std::string(to_string(os)) + ")";
  warn(f, std::move(why));
}

void ResultBuilder::none(Field f, std::string why) {
  if (!in_effect(f)) return;
  hold(f, Holder::none, EnforcementLevel::none, "not held");
  warn(f, std::move(why));
}

void ResultBuilder::warn(Field f, std::string reason) {
  if (!in_effect(f)) return;
  result_.warnings.push_back(Warning{result_.harness, f, std::move(reason)});
}

void ResultBuilder::warn(std::string reason) {
  result_.warnings.push_back(Warning{result_.harness, std::nullopt, std::move(reason)});
}

void ResultBuilder::file(std::string path, std::string installs_at, std::string content,
                         bool managed) {
  result_.files.push_back(
      RenderedFile{std::move(path), std::move(installs_at), managed, std::move(content)});
}

void ResultBuilder::gateway(Holder egress_holder) {
  if (!in_effect(Field::gateway)) return;
  const auto d = policy_.egress_rules().decide(*policy_.gateway, std::nullopt);
  if (d.allowed()) {
    EnforcementLevel level = egress_holder == Holder::broker ? broker_level(result_.target.os)
                                                             : EnforcementLevel::full;
    hold(Field::gateway, egress_holder, level, "reachable: the policy allows it (" + d.rule() + ")");
    if (level < EnforcementLevel::full) {
      warn(Field::gateway, "reached through the halo broker, whose platform backend is partial on " +
                               std::string(to_string(result_.target.os)));
    }
  } else {
    none(Field::gateway, "the policy denies the gateway (" + d.rule() + ")");
  }
}

AdapterResult ResultBuilder::take() {
  // enforcement.require: say when this harness cannot reach it.
  if (in_effect(Field::require)) {
    const EnforcementLevel eff = result_.effective_level();
    if (eff < policy_.require) {
      warn(Field::require, std::string("this harness reaches ") + policy::to_string(eff) +
                               ", below enforcement.require " + policy::to_string(policy_.require) +
                               "; `halo run` refuses to start it (exit 3)");
    }
  }
  // Manifest order: the order of all_fields(), whatever order the adapter stated them in.
  std::vector<FieldReport> ordered;
  for (Field f : all_fields()) {
    if (const FieldReport* r = find(f)) ordered.push_back(*r);
  }
  result_.fields = std::move(ordered);
  return std::move(result_);
}

void ResultBuilder::broker_all_egress(const std::string& why) {
  for (Field f : {Field::egress_default, Field::allowed_domains, Field::presets,
                  Field::denied_domains, Field::loopback, Field::allowed_addresses}) {
    broker(f, why);
  }
}

AdapterResult ResultBuilder::take_sandbox_off() {
  hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
       "nothing rendered: the policy turns the sandbox off");
  hold(Field::egress_default, Holder::none, EnforcementLevel::full, "nothing to hold");
  hold(Field::require, Holder::native, EnforcementLevel::full, "nothing required");
  gateway(Holder::native);
  return take();
}

bool policy_allows(const policy::Policy& p, std::string_view host) {
  return p.egress_rules().decide(host, std::nullopt).allowed();
}

std::string unlisted_subdomain(std::string_view base) {
  return "halo-unlisted-probe." + std::string(base);
}

std::string representative(const policy::DomainEntry& e) {
  return e.wildcard() ? unlisted_subdomain(e.base()) : e.pattern;
}

bool is_at_or_below(std::string_view name, std::string_view base) {
  if (name == base) return true;
  return name.size() > base.size() && name.ends_with(base) &&
         name[name.size() - base.size() - 1] == '.';
}

namespace {

std::vector<const policy::DomainEntry*> unique(
    std::initializer_list<const std::vector<policy::DomainEntry>*> lists) {
  std::vector<const policy::DomainEntry*> out;
  for (const auto* list : lists) {
    for (const auto& e : *list) {
      bool seen = std::any_of(out.begin(), out.end(),
                              [&](const policy::DomainEntry* o) { return o->pattern == e.pattern; });
      if (!seen) out.push_back(&e);
    }
  }
  return out;
}

}  // namespace

std::vector<const policy::DomainEntry*> allow_entries(const policy::Policy& p) {
  return unique({&p.egress.allowed_domains, &p.egress.preset_domains});
}

std::vector<const policy::DomainEntry*> deny_entries(const policy::Policy& p) {
  return unique({&p.egress.denied_domains});
}

std::string join_list(const std::vector<std::string>& items, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (items.size() > max) out += ", ... (" + std::to_string(items.size() - max) + " more)";
  return out;
}

bool is_glob(std::string_view path) { return path.find_first_of("*?[") != std::string_view::npos; }
bool is_home_path(std::string_view path) { return path == "~" || path.starts_with("~/"); }
bool is_absolute(std::string_view path) { return path.starts_with('/'); }

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string toml_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += toml_string(items[i]);
  }
  out += "]";
  return out;
}

}  // namespace halo::render
