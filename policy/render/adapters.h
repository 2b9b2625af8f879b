#pragma once
// The six adapters, each a pure function of (policy, target). render_harness() in
// render.h dispatches to them; tests call them directly.
#include "policy/render/render.h"

namespace halo::render {

AdapterResult render_claude_code(const policy::Policy& p, const Target& t);
AdapterResult render_codex(const policy::Policy& p, const Target& t);
AdapterResult render_gemini_cli(const policy::Policy& p, const Target& t);
AdapterResult render_copilot_cli(const policy::Policy& p, const Target& t);
AdapterResult render_opencode(const policy::Policy& p, const Target& t);
AdapterResult render_cursor(const policy::Policy& p, const Target& t);

}  // namespace halo::render
