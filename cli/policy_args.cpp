#include "cli/policy_args.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"

namespace halo::cli {

std::string home_directory() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return {};
}

void PolicyArgs::add_to(CLI::App* cmd, bool with_no_loosening) {
  auto* profile_opt = cmd->add_option("--profile", profile, "Policy file (YAML)");
  auto* ring_opt = cmd->add_option("--ring", ring, "Ring name in the policy directory's rings.yaml");
  cmd->add_option("--unit", unit, "Unit overlay (units/UNIT.yaml), with --ring")->needs(ring_opt);
  cmd->add_option("--policy-dir", policy_dir, "Policy directory for --ring (default: .)")
      ->needs(ring_opt);
  profile_opt->excludes(ring_opt);
  if (with_no_loosening) {
    cmd->add_flag("--no-loosening", no_loosening, "Treat a unit that loosens the ring's policy as an error");
  }
}

policy::LoadResult PolicyArgs::load() const {
  auto env = policy::discover_preset_environment("/", home_directory());
  if (!profile.empty()) return policy::load_profile(profile, env);
  if (!ring.empty()) return policy::load_ring(policy_dir, ring, unit, env);
  policy::LoadResult r;
  r.diagnostics.error({}, "", "no policy given", "use --profile FILE or --ring R [--unit U]");
  return r;
}

std::shared_ptr<const policy::Policy> PolicyArgs::load_or_exit() const {
  if (profile.empty() && ring.empty()) {
    std::cerr << "halo: no policy given; use --profile FILE or --ring R [--unit U] [--policy-dir D]\n";
    throw Exit{2};
  }
  policy::LoadResult r = load();
  for (const auto& d : r.diagnostics.items) std::cerr << d.to_string() << "\n";
  for (const auto& l : r.loosenings) {
    std::cerr << l.loc.long_form() << ": " << (no_loosening ? "error" : "warning")
              << ": loosening: " << l.what << "\n";
  }
  if (!r.policy) {
    std::cerr << "halo: policy rejected (" << r.diagnostics.error_count() << " error"
              << (r.diagnostics.error_count() == 1 ? "" : "s") << ")\n";
    throw Exit{2};
  }
  if (no_loosening && !r.loosenings.empty()) {
    std::cerr << "halo: policy rejected: the unit loosens the ring's policy (--no-loosening)\n";
    throw Exit{2};
  }
  return r.policy;
}

}  // namespace halo::cli
