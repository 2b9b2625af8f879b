// halo run: start CMD in a sandbox whose only network is a per-session broker
// (DESIGN.md, `halo run`). Argument parsing only; the session lives in sandbox-launch/
// and the backend in platform/<os>/.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "sandbox-launch/launch_plan.h"
#include "sandbox-launch/session.h"

extern char** environ;

namespace halo::cli {
namespace {

struct RunArgs {
  PolicyArgs policy;
  std::string report;
  std::string audit;
  std::string backend = "auto";
  std::string resolver_hosts;
  std::string log_level = "warn";
  bool quiet = false;
  std::vector<std::string> command;
};

launch::Backend parse_backend(const std::string& b) {
  if (b == "linux-netns") return launch::Backend::linux_netns;
  if (b == "env") return launch::Backend::env;
  return launch::Backend::automatic;
}

void run(RunArgs& a) {
  // The broker logs through spdlog; never onto CMD's stdout.
  auto logger = std::make_shared<spdlog::logger>(
      "halo", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(a.log_level));

  launch::SessionOptions o;
  o.policy = a.policy.load_or_exit();
  o.backend = parse_backend(a.backend);
  o.report_path = a.report;
  o.audit_path = a.audit;
  o.resolver_hosts = a.resolver_hosts;
  o.quiet = a.quiet;

  launch::PlanInputs in;
  in.argv = a.command;
  std::error_code ec;
  in.cwd = std::filesystem::current_path(ec).string();
  if (ec) {
    std::cerr << "halo: cannot read the working directory: " << ec.message() << "\n";
    throw Exit{2};
  }
  in.home = home_directory();
  for (char** e = environ; e && *e; ++e) in.base_env.emplace_back(*e);
  o.plan = launch::make_plan(*o.policy, std::move(in));
  throw Exit{launch::run_session(o)};
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Run CMD in a sandbox whose only network is this session's broker: "
             "halo run --profile F -- CMD ARGS...\n"
             "Exit: CMD's status (128+N for signal N); 2 usage or invalid policy; 3 "
             "enforcement below enforcement.require (or --backend linux-netns unavailable); "
             "125 the session could not start (sandbox or broker).");
  args->policy.add_to(cmd);
  cmd->add_option("--report", args->report, "Write the session report (JSON) here on exit");
  cmd->add_option("--audit", args->audit, "Broker audit log (JSON lines); '-' for stderr");
  cmd->add_option("--backend", args->backend, "auto (default), linux-netns or env")
      ->check(CLI::IsMember({"auto", "linux-netns", "env"}));
  cmd->add_option("--resolver-hosts", args->resolver_hosts,
                  "Hosts file the broker resolves from first (default /etc/hosts)");
  cmd->add_option("--log-level", args->log_level, "Broker log level (default warn)");
  cmd->add_flag("--quiet", args->quiet, "No enforcement line on stderr");
  cmd->add_option("command", args->command, "CMD ARGS... (after --)")->required();
  cmd->callback([args] { run(*args); });
}

}  // namespace halo::cli
