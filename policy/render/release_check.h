#pragma once
// The release check, run on every render (halo render refuses to write when it fails):
//   1. every rendered file parses (JSON or TOML);
//   2. nothing rendered carries a bypass token or amounts to full access:
//      danger-full-access, external-sandbox, insecure_none, allowUnsandboxedCommands: true,
//      allowBypass: true, dangerously_* = true, excludedCommands; and under a default-deny
//      policy no catch-all allow ("*" in an allow list, default "allow", webfetch "allow",
//      allowOutbound without allowedHosts, network_access = true, a profile network
//      enabled without the managed proxy);
//   3. Codex writable roots obey the writableRoots rules (policy/path_rules.h) and overlap
//      no protected path;
//   4. no silent drop: every field in effect has a report, and every report below full
//      carries at least one warning naming the harness and the reason.
// Returns one line per problem, "HARNESS: FILE: what" (empty = pass).
#include <string>
#include <vector>

#include "policy/render/render.h"

namespace halo::render {

std::vector<std::string> release_check(const policy::Policy& p, const AdapterResult& a);
std::vector<std::string> release_check(const policy::Policy& p, const RenderResult& r);

}  // namespace halo::render
