#pragma once
// The policy-selecting options every command shares:
//   --profile FILE | --ring R [--unit U] [--policy-dir D]
// and the one way commands load a policy: diagnostics to stderr as
// "FILE:LINE:COL: error: ...", exit 2 when the policy is invalid.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "policy/loader.h"
#include "policy/policy.h"

namespace halo::cli {

struct PolicyArgs {
  std::string profile;
  std::string ring;
  std::string unit;
  std::string policy_dir = ".";
  bool no_loosening = false;

  // Adds --profile, --ring, --unit, --policy-dir (and --no-loosening when asked).
  void add_to(CLI::App* cmd, bool with_no_loosening = false);

  // Loads and validates; prints every diagnostic to stderr; throws Exit{2} when the
  // policy is invalid, when neither --profile nor --ring was given, or (with
  // --no-loosening) when a unit loosens the ring's policy. Warnings and loosenings are
  // printed either way.
  std::shared_ptr<const policy::Policy> load_or_exit() const;

  // Same, returning the full result (validate prints its own summary).
  policy::LoadResult load() const;
};

// $HOME, or the passwd entry's home directory.
std::string home_directory();

}  // namespace halo::cli
