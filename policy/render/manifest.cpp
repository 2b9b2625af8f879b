// manifest.json (render.h): what was rendered, and for every harness and policy field who
// holds it, how well, and why not better.
#include "policy/render/json_text.h"
#include "policy/render/render.h"

namespace halo::render {

namespace {

Json field_json(const AdapterResult& a, const FieldReport& r) {
  Json j = Json::object();
  j["held_by"] = to_string(r.held_by);
  j["level"] = policy::to_string(r.level);
  j["mechanism"] = r.mechanism;
  Json w = Json::array();
  for (const auto& warning : a.warnings) {
    if (warning.field == r.field) w.push_back(warning.reason);
  }
  j["warnings"] = w;
  return j;
}

Json harness_json(const policy::Policy& p, const AdapterResult& a) {
  Json j = Json::object();
  j["name"] = display_name(a.harness);
  j["pin"] = a.target.pin ? Json(a.target.pin->to_string()) : Json(nullptr);
  Json files = Json::array();
  for (const auto& f : a.files) {
    files.push_back(Json::object(
        {{"path", f.path}, {"installs_at", f.installs_at}, {"managed", f.managed}}));
  }
  j["files"] = files;
  j["native_level"] = policy::to_string(a.native_level());
  j["effective_level"] = policy::to_string(a.effective_level());
  j["meets_require"] = a.effective_level() >= p.require;
  Json fields = Json::object();
  for (const auto& r : a.fields) fields[to_string(r.field)] = field_json(a, r);
  j["fields"] = fields;
  Json general = Json::array();
  for (const auto& w : a.warnings) {
    if (!w.field) general.push_back(w.reason);
  }
  j["warnings"] = general;
  return j;
}

}  // namespace

std::string manifest_json(const policy::Policy& p, const RenderResult& r) {
  Json m = Json::object();
  m["halo_manifest"] = 1;
  m["profile"] = p.name;
  m["policy_files"] = p.files;
  m["os"] = to_string(r.request.os);
  m["via_broker"] = r.request.via_broker;
  if (r.request.via_broker) m["broker_port"] = r.request.broker_port;
  m["require"] = policy::to_string(p.require);
  m["held_by"] = Json::object({
      {"native", "the harness's own managed configuration, rendered here"},
      {"broker", "the halo broker, only while the harness runs under `halo run` (or, where "
                 "the mechanism says so, behind `halo broker` via --via-broker)"},
      {"none", "nothing holds it"},
  });
  Json hs = Json::object();
  for (const auto& a : r.adapters) hs[to_string(a.harness)] = harness_json(p, a);
  m["harnesses"] = hs;
  return json_text(m);
}

}  // namespace halo::render
