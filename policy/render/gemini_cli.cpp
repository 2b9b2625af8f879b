// Gemini CLI (0.61): the system settings file, macOS only.
//
// Gemini cannot limit egress by host: a sandbox's network is all or nothing, and there is
// no proxy setting (only HTTPS_PROXY and GEMINI_SANDBOX_PROXY_COMMAND in the environment).
// Its egress is held by the halo broker under `halo run`. The sandbox (tools.sandbox) is
// rendered on macOS, where Seatbelt ships with the OS; elsewhere it needs Docker or
// Podman and an image, which a policy cannot assume. The lock is weak: GEMINI_SANDBOX and
// --sandbox override every settings file, and the system file is skipped unless it and
// every parent directory are root-owned and not group/other-writable.
#include "policy/render/adapter_kit.h"
#include "policy/render/adapters.h"
#include "policy/render/json_text.h"

namespace halo::render {

AdapterResult render_gemini_cli(const policy::Policy& p, const Target& t) {
  ResultBuilder b(Harness::gemini_cli, p, t);
  const bool sandbox_on = p.sandbox.mode != policy::SandboxMode::off;
  const std::string weak =
      "GEMINI_SANDBOX and --sandbox override the system settings file";

  if (t.os == Os::macos && sandbox_on) {
    Json sb = Json::object();
    sb["enabled"] = true;
    sb["command"] = "sandbox-exec";
    if (!p.sandbox.writable_roots.empty()) {
      Json paths = Json::array();
      for (const auto& r : p.sandbox.writable_roots) paths.push_back(r.path);
      sb["allowedPaths"] = paths;
    }
    Json settings = Json::object();
    settings["tools"] = Json::object({{"sandbox", sb}});
    b.file("Library/Application Support/GeminiCli/settings.json",
           "/Library/Application Support/GeminiCli/settings.json", json_text(settings));
    b.warn("install the system settings file root-owned, mode 0644, in root-owned directories "
           "that are not group/other-writable, or Gemini CLI skips it");
    if (p.sandbox.mode == policy::SandboxMode::read_only) {
      b.hold_partial(Field::sandbox_mode, "tools.sandbox (Seatbelt)",
                     "read-only needs SEATBELT_PROFILE=strict-proxied in the environment (no "
                     "settings key selects the profile); " + weak);
    } else {
      b.hold_partial(Field::sandbox_mode, "tools.sandbox (Seatbelt)", weak);
    }
    b.hold_partial(Field::writable_roots, "tools.sandbox.allowedPaths", weak);
  } else if (sandbox_on) {
    const std::string why = std::string("no sandbox rendered on ") + to_string(t.os) +
                            ": Gemini CLI's sandbox there needs Docker or Podman and an image; "
                            "under `halo run` the platform backend confines the shell";
    b.none(Field::sandbox_mode, why);
    b.none(Field::writable_roots, why);
    b.warn(std::string("no file rendered for ") + to_string(t.os));
  } else {
    b.hold(Field::sandbox_mode, Holder::native, EnforcementLevel::full,
           "nothing rendered: the policy turns the sandbox off");
  }
  b.none(Field::protected_paths,
         "Gemini CLI has no setting that denies paths to shell commands (.geminiignore covers "
         "only its own tools)");

  const std::string no_egress =
      "Gemini CLI cannot limit egress by host (a sandbox's network is all or nothing)";
  b.broker_all_egress(no_egress);
  b.broker(Field::require, "Gemini CLI has no fail-if-unavailable switch; `halo run` refuses "
                           "to start below enforcement.require");
  b.gateway(Holder::broker);
  if (t.via_broker) {
    b.warn("Gemini CLI has no proxy setting: start it with GEMINI_SANDBOX_PROXY_COMMAND or "
           "HTTPS_PROXY=http://127.0.0.1:" + std::to_string(t.broker_port) +
           " to reach the halo broker (on macOS with SEATBELT_PROFILE=restrictive-proxied)");
  }
  return b.take();
}

}  // namespace halo::render
