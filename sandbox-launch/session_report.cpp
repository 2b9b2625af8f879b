#include "sandbox-launch/session_report.h"

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

namespace halo::launch {
namespace {

nlohmann::json dimension(const DimensionEnforcement& d) {
  return {{"level", level_name(d.level)}, {"mechanism", d.mechanism}, {"reasons", d.reasons}};
}

nlohmann::json losses(const broker::LossCounters& l) {
  nlohmann::json out = nlohmann::json::object();
  l.for_each([&out](const char* key, std::uint64_t value, const char*) { out[key] = value; });
  return out;
}

}  // namespace

std::string session_loss_warnings(const broker::LossCounters& l) {
  std::string out;
  l.for_each([&out](const char*, std::uint64_t value, const char* what) {
    if (value != 0) out += "halo: warning: " + std::to_string(value) + " " + what + "\n";
  });
  return out;
}

std::string session_report_json(const SessionRecord& r) {
  nlohmann::json denied = nlohmann::json::array();
  for (const auto& d : r.denials)
    denied.push_back(
        {{"transport", d.transport}, {"host", d.host}, {"port", d.port}, {"rule", d.rule}});
  nlohmann::json j = {
      {"session", r.session_id},
      {"command", r.command},
      {"backend", r.enforcement.backend},
      {"enforcement",
       {{"network", dimension(r.enforcement.network)},
        {"filesystem", dimension(r.enforcement.filesystem)},
        {"overall", level_name(r.enforcement.overall())},
        {"require", level_name(r.require)},
        {"loopback_grants", r.enforcement.loopback_grants}}},
      {"exit",
       {{"status", r.exit.shell_code()}, {"code", r.exit.code}, {"signal", r.exit.signal}}},
      {"decisions", {{"total", r.decisions}, {"allowed", r.allowed}, {"denied", r.denied}}},
      {"denied", denied},
      {"denials_not_listed", r.denials_dropped},
      {"losses", losses(r.losses)},
      {"started_unix_ms", r.started_unix_ms},
      {"duration_ms", r.duration_ms},
  };
  if (!r.broker_error.empty()) j["broker_error"] = r.broker_error;
  return j.dump(2) + "\n";
}

std::string write_session_report(const std::string& path, const SessionRecord& r) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return "cannot write " + tmp;
    out << session_report_json(r);
    if (!out.flush()) return "cannot write " + tmp;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return "cannot rename " + tmp + " to " + path;
  return {};
}

}  // namespace halo::launch
