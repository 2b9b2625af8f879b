// halo validate: load, merge and validate a policy; exit 0 valid, 2 invalid.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/egress_rules.h"

namespace halo::cli {

void add_validate_command(CLI::App& app) {
  auto args = std::make_shared<PolicyArgs>();
  auto* cmd = app.add_subcommand("validate", "Check a policy: every error with FILE:LINE:COL");
  args->add_to(cmd, /*with_no_loosening=*/true);
  cmd->callback([args] {
    auto policy = args->load_or_exit();
    const auto& eg = policy->egress;
    std::cout << "valid: " << policy->name;
    if (policy->files.size() > 1) {
      std::cout << " (";
      for (std::size_t i = 0; i < policy->files.size(); ++i) {
        std::cout << (i ? " + " : "") << policy->files[i];
      }
      std::cout << ")";
    }
    std::cout << "\n  sandbox " << policy::to_string(policy->sandbox.mode) << ", "
              << policy->sandbox.writable_roots.size() << " writable roots, "
              << policy->sandbox.protected_paths.size() << " protected paths\n"
              << "  egress default " << policy::to_string(eg.effective_default())
              << (eg.default_action ? "" : " (unset)") << ", " << eg.allowed_domains.size()
              << " allowed, " << eg.presets.size() << " presets ("
              << eg.preset_domains.size() << " hosts), " << eg.denied_domains.size()
              << " denied, " << eg.loopback.size() << " loopback grants, "
              << eg.allowed_addresses.size() << " address ranges\n"
              << "  enforcement require " << policy::to_string(policy->require) << "\n";
  });
}

}  // namespace halo::cli
