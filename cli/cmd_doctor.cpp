// halo doctor: per-user harness files and environment variables that weaken the posture
// the managed files set. Reads only (never rewrites), never prints file or variable
// content. Exit 0 when nothing weakens the posture, 1 when something does.
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/posture/posture.h"

namespace halo::cli {
namespace {

struct DoctorArgs {
  bool json = false;
  std::string home;
};

// Only the variables the posture reader judges; nothing else leaves the process.
std::map<std::string, std::string> judged_environment() {
  std::map<std::string, std::string> env;
  for (const char* name : {"GEMINI_SANDBOX", "OPENCODE_PERMISSION", "OPENCODE_TEST_MANAGED_CONFIG_DIR",
                           "CODEX_HOME"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  return env;
}

void run_doctor(const DoctorArgs& a) {
  const std::string home = a.home.empty() ? home_directory() : a.home;
  const posture::PostureReport r = posture::read_posture(home, judged_environment());
  if (a.json) {
    nlohmann::json j;
    j["findings"] = nlohmann::json::array();
    for (const auto& f : r.findings) {
      j["findings"].push_back({{"harness", f.harness}, {"problem", f.problem}, {"fix", f.fix}});
    }
    j["files"] = nlohmann::json::array();
    for (const auto& f : r.files) j["files"].push_back({{"path", f.path}, {"status", f.status}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (const auto& f : r.findings) std::cout << f.to_string() << "\n";
    for (const auto& f : r.files) {
      if (f.status != "read" && f.status != "absent") std::cout << "note: " << f.path << ": " << f.status << "\n";
    }
    std::cout << "halo doctor: " << r.findings.size() << " finding"
              << (r.findings.size() == 1 ? "" : "s") << " (" << r.files.size()
              << " files and the environment checked)\n";
  }
  if (!r.findings.empty()) throw Exit{1};
}

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  auto* cmd = app.add_subcommand(
      "doctor", "Find per-user harness settings and environment that weaken the posture (exit 1 if any)");
  cmd->add_flag("--json", args->json, "Print findings and checked files as JSON");
  cmd->add_option("--home", args->home, "Home directory to check (default: $HOME)");
  cmd->callback([args] { run_doctor(*args); });
}

}  // namespace halo::cli
