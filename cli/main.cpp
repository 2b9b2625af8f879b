// halo: the command line. Argument parsing and subcommand wiring only; the work lives in
// the libraries.
#include <csignal>
#include <iostream>

#include "cli/commands.h"
#include "cli/version.h"

int main(int argc, char** argv) {
  // A peer that resets a relayed connection (or a closed audit pipe) must cost one
  // connection, never the process: writes report EPIPE instead of raising SIGPIPE.
  // halo run's child restores the default disposition before exec.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"halo: one egress and sandbox policy for AI coding agents' shells", "halo"};
  app.set_version_flag("--version", std::string("halo ") + halo::cli::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  halo::cli::add_validate_command(app);
  halo::cli::add_egress_command(app);
#ifdef HALO_HAVE_RUN
  halo::cli::add_run_command(app);
#endif
  halo::cli::add_render_command(app);
  halo::cli::add_doctor_command(app);
  halo::cli::add_broker_command(app);

  auto* help = app.add_subcommand("help", "Show help for halo or one of its commands");
  std::string topic;
  help->add_option("command", topic, "The command to explain");
  help->callback([&] {
    // The formatter directly: App::help() would describe the selected "help" subcommand.
    auto formatter = app.get_formatter();
    if (topic.empty()) {
      std::cout << formatter->make_help(&app, "halo", CLI::AppFormatMode::Normal);
      return;
    }
    for (auto* sub : app.get_subcommands({})) {
      if (sub->get_name() == topic) {
        std::cout << formatter->make_help(sub, "halo " + topic, CLI::AppFormatMode::Sub);
        return;
      }
    }
    std::cerr << "halo: unknown command '" << topic << "'; try 'halo help'\n";
    throw halo::cli::Exit{2};
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // CLI11 reports which command and option; add where to look.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "halo: " << e.what() << "\n"
              << "      run 'halo help' or 'halo COMMAND --help'\n";
    return 2;
  } catch (const halo::cli::Exit& e) {
    return e.code;
  } catch (const std::exception& e) {
    std::cerr << "halo: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
