// Names, parsing and small queries for the render vocabulary (render.h).
#include <algorithm>
#include <array>
#include <charconv>

#include "policy/render/render.h"

namespace halo::render {

namespace {

constexpr std::array kHarnesses = {Harness::claude_code, Harness::codex,    Harness::gemini_cli,
                                   Harness::copilot_cli, Harness::opencode, Harness::cursor};

constexpr std::array kFields = {Field::sandbox_mode,    Field::writable_roots,
                                Field::protected_paths, Field::egress_default,
                                Field::allowed_domains, Field::presets,
                                Field::denied_domains,  Field::loopback,
                                Field::allowed_addresses, Field::require,
                                Field::gateway};

}  // namespace

const char* to_string(Os os) {
  switch (os) {
    case Os::linux_os: return "linux";
    case Os::macos: return "macos";
    case Os::windows: return "windows";
  }
  return "linux";
}

std::optional<Os> parse_os(std::string_view text) {
  for (Os os : {Os::linux_os, Os::macos, Os::windows}) {
    if (text == to_string(os)) return os;
  }
  return std::nullopt;
}

const char* to_string(Harness h) {
  switch (h) {
    case Harness::claude_code: return "claude-code";
    case Harness::codex: return "codex";
    case Harness::gemini_cli: return "gemini-cli";
    case Harness::copilot_cli: return "copilot-cli";
    case Harness::opencode: return "opencode";
    case Harness::cursor: return "cursor";
  }
  return "?";
}

const char* display_name(Harness h) {
  switch (h) {
    case Harness::claude_code: return "Claude Code";
    case Harness::codex: return "Codex";
    case Harness::gemini_cli: return "Gemini CLI";
    case Harness::copilot_cli: return "Copilot CLI";
    case Harness::opencode: return "OpenCode";
    case Harness::cursor: return "Cursor CLI";
  }
  return "?";
}

std::optional<Harness> parse_harness(std::string_view text) {
  for (Harness h : kHarnesses) {
    if (text == to_string(h)) return h;
  }
  return std::nullopt;
}

std::span<const Harness> all_harnesses() { return kHarnesses; }

const char* to_string(Field f) {
  switch (f) {
    case Field::sandbox_mode: return "sandbox.mode";
    case Field::writable_roots: return "sandbox.writableRoots";
    case Field::protected_paths: return "sandbox.protectedPaths";
    case Field::egress_default: return "egress.default";
    case Field::allowed_domains: return "egress.allowedDomains";
    case Field::presets: return "egress.presets";
    case Field::denied_domains: return "egress.deniedDomains";
    case Field::loopback: return "egress.loopback";
    case Field::allowed_addresses: return "egress.allowedAddresses";
    case Field::require: return "enforcement.require";
    case Field::gateway: return "gateway";
  }
  return "?";
}

std::span<const Field> all_fields() { return kFields; }

bool field_in_effect(const policy::Policy& p, Field f) {
  switch (f) {
    case Field::sandbox_mode: return true;
    case Field::writable_roots: return !p.sandbox.writable_roots.empty();
    case Field::protected_paths: return !p.sandbox.protected_paths.empty();
    case Field::egress_default: return true;
    case Field::allowed_domains: return !p.egress.allowed_domains.empty();
    case Field::presets: return !p.egress.presets.empty();
    case Field::denied_domains: return !p.egress.denied_domains.empty();
    case Field::loopback: return !p.egress.loopback.empty();
    case Field::allowed_addresses: return !p.egress.allowed_addresses.empty();
    case Field::require: return true;
    case Field::gateway: return p.gateway.has_value();
  }
  return false;
}

const char* to_string(Holder h) {
  switch (h) {
    case Holder::native: return "native";
    case Holder::broker: return "broker";
    case Holder::none: return "none";
  }
  return "none";
}

std::optional<Version> Version::parse(std::string_view text) {
  if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) text.remove_prefix(1);
  Version v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  std::size_t i = 0;
  while (true) {
    if (i == 3 || text.empty()) return std::nullopt;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *parts[i]);
    if (ec != std::errc{} || *parts[i] < 0) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    ++i;
    if (text.empty()) return v;
    if (text[0] != '.') return std::nullopt;
    text.remove_prefix(1);
  }
}

std::string Version::to_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string Warning::to_string() const {
  std::string out = render::to_string(harness);
  out += ": ";
  if (field) {
    out += render::to_string(*field);
    out += ": ";
  }
  out += reason;
  return out;
}

const FieldReport* AdapterResult::report(Field f) const {
  auto it = std::find_if(fields.begin(), fields.end(),
                         [f](const FieldReport& r) { return r.field == f; });
  return it == fields.end() ? nullptr : &*it;
}

EnforcementLevel AdapterResult::native_level() const {
  EnforcementLevel out = EnforcementLevel::full;
  for (const auto& r : fields) {
    EnforcementLevel l = r.held_by == Holder::native ? r.level : EnforcementLevel::none;
    out = std::min(out, l);
  }
  return out;
}

EnforcementLevel AdapterResult::effective_level() const {
  EnforcementLevel out = EnforcementLevel::full;
  for (const auto& r : fields) out = std::min(out, r.level);
  return out;
}

EnforcementLevel broker_level(Os os) {
  return os == Os::linux_os ? EnforcementLevel::full : EnforcementLevel::partial;
}

}  // namespace halo::render
