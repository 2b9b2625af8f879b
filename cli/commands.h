#pragma once
// One function per `halo` subcommand; each adds itself to the app and sets its callback.
// The callbacks throw cli::Exit to end with a status; main() is the one place that
// catches it (and start-up exceptions) and turns them into an exit code.
#include <CLI/CLI.hpp>

namespace halo::cli {

struct Exit {
  int code;
};

void add_validate_command(CLI::App& app);
void add_egress_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_render_command(CLI::App& app);
void add_doctor_command(CLI::App& app);
void add_broker_command(CLI::App& app);

}  // namespace halo::cli
