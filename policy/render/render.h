#pragma once
// Rendering one policy into each harness's own managed configuration.
//
// An adapter is a pure function (Policy, Target) -> AdapterResult: the files to write
// (relative paths under the output directory, with where they belong on the target OS),
// and for every policy field that is in effect, who holds it (the harness's native
// mechanism, the halo broker under `halo run`, or nobody), how well (full, partial,
// none) and the warnings that say why. Nothing a harness cannot hold is dropped
// silently: a field held at less than full always carries at least one warning that
// names the harness and the reason (release_check.h verifies this on every render).
//
// Adapters never match hosts themselves: where a dialect differs from the policy's
// meaning (Cursor's "*.x" also matches the apex, Copilot's blockedHosts also blocks
// subdomains, ...) they ask the policy's one decision function (EgressRules::decide)
// what the policy says about the hosts the dialect would add or remove.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy.h"

namespace halo::render {

using policy::EnforcementLevel;

enum class Os : std::uint8_t { linux_os, macos, windows };
const char* to_string(Os os);  // "linux" | "macos" | "windows"
std::optional<Os> parse_os(std::string_view text);

enum class Harness : std::uint8_t { claude_code, codex, gemini_cli, copilot_cli, opencode, cursor };
// "claude-code" | "codex" | "gemini-cli" | "copilot-cli" | "opencode" | "cursor"
const char* to_string(Harness h);
const char* display_name(Harness h);  // "Claude Code", "Codex", ...
std::optional<Harness> parse_harness(std::string_view text);
std::span<const Harness> all_harnesses();

// The policy fields every adapter must account for, in manifest order.
enum class Field : std::uint8_t {
  sandbox_mode,       // sandbox.mode
  writable_roots,     // sandbox.writableRoots
  protected_paths,    // sandbox.protectedPaths
  egress_default,     // egress.default
  allowed_domains,    // egress.allowedDomains
  presets,            // egress.presets
  denied_domains,     // egress.deniedDomains
  loopback,           // egress.loopback
  allowed_addresses,  // egress.allowedAddresses
  require,            // enforcement.require
  gateway,            // gateway
};
const char* to_string(Field f);  // the policy's own spelling, e.g. "egress.deniedDomains"
std::span<const Field> all_fields();
// Is the field in effect? sandbox.mode, egress.default and enforcement.require always are
// (their defaults apply); lists when non-empty; gateway when given.
bool field_in_effect(const policy::Policy& p, Field f);

enum class Holder : std::uint8_t { native, broker, none };
const char* to_string(Holder h);  // "native" | "broker" | "none"

// A harness version, "1.0.93" (missing parts are 0).
struct Version {
  int major = 0, minor = 0, patch = 0;
  static std::optional<Version> parse(std::string_view text);
  std::string to_string() const;
  auto operator<=>(const Version&) const = default;
};

// Where and how the rendered files will be used.
struct Target {
  Os os = Os::linux_os;
  std::optional<Version> pin;  // the harness version the files are for; empty = current
  bool via_broker = false;     // point the harness's own sandbox at the local broker
  std::uint16_t broker_port = 8877;  // the broker's loopback HTTP proxy port for via_broker
};

struct Warning {
  Harness harness;
  std::optional<Field> field;  // empty for a warning about the harness as a whole
  std::string reason;
  // "copilot-cli: egress.deniedDomains: REASON" or "cursor: REASON"
  std::string to_string() const;
};

struct FieldReport {
  Field field;
  Holder held_by = Holder::none;
  EnforcementLevel level = EnforcementLevel::none;
  std::string mechanism;  // e.g. "sandbox.network.deniedDomains", or why nothing holds it
};

struct RenderedFile {
  std::string path;         // relative to the output directory, '/'-separated
  std::string installs_at;  // where it belongs on the target OS
  bool managed = true;      // false: a per-user or per-repo file, weaker than a managed one
  std::string content;
};

struct AdapterResult {
  Harness harness;
  Target target;
  std::vector<RenderedFile> files;
  std::vector<FieldReport> fields;  // one per field in effect, in all_fields() order
  std::vector<Warning> warnings;

  const FieldReport* report(Field f) const;
  // The lowest level over the fields in effect, counting only native holding / counting
  // the broker too.
  EnforcementLevel native_level() const;
  EnforcementLevel effective_level() const;
};

// What the broker reaches for egress fields under `halo run` on each platform backend:
// Linux (network namespace, every path leads through the broker) full; macOS (Seatbelt)
// and Windows partial.
EnforcementLevel broker_level(Os os);

// One adapter. `target.pin` is this harness's pin.
AdapterResult render_harness(Harness h, const policy::Policy& p, const Target& target);

struct RenderRequest {
  Os os = Os::linux_os;
  std::vector<Harness> harnesses;  // empty = all six
  std::vector<std::pair<Harness, Version>> pins;
  bool via_broker = false;
  std::uint16_t broker_port = 8877;
};

struct RenderResult {
  RenderRequest request;
  std::vector<AdapterResult> adapters;
};

RenderResult render_all(const policy::Policy& p, const RenderRequest& request);

// manifest.json for a render: per harness the files, per field held_by / level /
// mechanism / warnings, the harness's native and effective level. Byte-stable.
std::string manifest_json(const policy::Policy& p, const RenderResult& r);

}  // namespace halo::render
