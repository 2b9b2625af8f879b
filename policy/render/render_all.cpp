// Dispatch to the six adapters and render a whole request (render.h).
#include <algorithm>

#include "policy/render/adapters.h"
#include "policy/render/render.h"

namespace halo::render {

AdapterResult render_harness(Harness h, const policy::Policy& p, const Target& target) {
  switch (h) {
    case Harness::claude_code: return render_claude_code(p, target);
    case Harness::codex: return render_codex(p, target);
    case Harness::gemini_cli: return render_gemini_cli(p, target);
    case Harness::copilot_cli: return render_copilot_cli(p, target);
    case Harness::opencode: return render_opencode(p, target);
    case Harness::cursor: return render_cursor(p, target);
  }
  return render_claude_code(p, target);
}

RenderResult render_all(const policy::Policy& p, const RenderRequest& request) {
  RenderResult out;
  out.request = request;
  std::vector<Harness> which = request.harnesses;
  if (which.empty()) which.assign(all_harnesses().begin(), all_harnesses().end());
  for (Harness h : all_harnesses()) {
    if (std::find(which.begin(), which.end(), h) == which.end()) continue;
    Target t;
    t.os = request.os;
    t.via_broker = request.via_broker;
    t.broker_port = request.broker_port;
    for (const auto& [ph, v] : request.pins) {
      if (ph == h) t.pin = v;
    }
    out.adapters.push_back(render_harness(h, p, t));
  }
  return out;
}

}  // namespace halo::render
