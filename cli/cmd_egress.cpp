// halo egress test URL|HOST[:PORT]: the decision, the rule that made it, and per harness
// the mechanism that enforces it on --os with the warnings that qualify it; exit 0 allow,
// 1 deny, 2 bad input or invalid policy.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/egress_rules.h"
#include "policy/host.h"
#include "policy/render/harness_enforcement.h"
#include "policy/target.h"

namespace halo::cli {
namespace {

struct EgressTestArgs {
  PolicyArgs policy;
  std::string target;
  bool json = false;
  std::string os = "linux";
  std::vector<std::string> harnesses;
};

void run_egress_test(const EgressTestArgs& a) {
  policy::TargetResult t = policy::parse_target(a.target);
  if (!t.target) {
    std::cerr << "halo: bad target: " << t.error << "\n";
    throw Exit{2};
  }
  auto pol = a.policy.load_or_exit();
  const auto& rules = pol->egress_rules();
  policy::Decision d = rules.decide(t.target->host, t.target->port);
  // Bad input, not a verdict: a loopback target without a port, or a malformed host.
  bool bad_input = d.reason == policy::Reason::port_required;
  policy::HostResult h = policy::normalize_host(t.target->host);
  std::string shown = h ? (h.host->kind == policy::NormalizedHost::Kind::ip &&
                                   h.host->ip.family == policy::IpAddress::Family::v6
                               ? "[" + h.host->text + "]"
                               : h.host->text)
                        : std::string("(malformed)");
  if (t.target->port) shown += ":" + std::to_string(*t.target->port);

  auto os = render::parse_os(a.os);
  if (!os) {
    std::cerr << "halo: --os must be linux, macos or windows, not '" << a.os << "'\n";
    throw Exit{2};
  }
  std::vector<render::Harness> which;
  for (const auto& name : a.harnesses) {
    auto h = render::parse_harness(name);
    if (!h) {
      std::cerr << "halo: unknown harness '" << name << "'\n";
      throw Exit{2};
    }
    which.push_back(*h);
  }
  std::vector<render::HarnessEnforcement> per;
  if (!bad_input) per = render::harness_enforcement(*pol, d, *os, which);

  if (a.json) {
    nlohmann::json j;
    j["target"] = shown;
    j["host"] = h ? h.host->text : "";
    j["port"] = t.target->port ? nlohmann::json(*t.target->port) : nlohmann::json(nullptr);
    j["verdict"] = bad_input ? "error" : policy::to_string(d.verdict);
    j["reason"] = policy::to_string(d.reason);
    j["rule"] = d.rule();
    j["source"] = d.source();
    j["os"] = render::to_string(*os);
    j["harnesses"] = nlohmann::json::array();
    for (const auto& e : per) {
      j["harnesses"].push_back({{"harness", render::to_string(e.harness)},
                                {"field", render::to_string(e.field)},
                                {"held_by", render::to_string(e.held_by)},
                                {"level", policy::to_string(e.level)},
                                {"mechanism", e.mechanism},
                                {"warnings", e.warnings}});
    }
    std::cout << j.dump(2) << "\n";
  } else if (bad_input) {
    std::cerr << "halo: bad target: " << d.rule() << "\n";
  } else {
    std::cout << policy::to_string(d.verdict) << "  " << shown << "  " << d.rule() << "\n";
    for (const auto& e : per) {
      std::string name = render::to_string(e.harness);
      name.resize(12, ' ');
      std::cout << "  " << name << render::to_string(e.held_by) << " " << policy::to_string(e.level)
                << "  " << e.mechanism << "\n";
      for (const auto& w : e.warnings) std::cout << "                ! " << w << "\n";
    }
  }
  if (bad_input) throw Exit{2};
  if (!d.allowed()) throw Exit{1};
}

}  // namespace

void add_egress_command(CLI::App& app) {
  auto* egress = app.add_subcommand("egress", "Egress policy tools");
  egress->require_subcommand(1);
  auto args = std::make_shared<EgressTestArgs>();
  auto* test = egress->add_subcommand(
      "test", "Decide URL|HOST[:PORT] with the policy: exit 0 allow, 1 deny, 2 bad input");
  test->add_option("target", args->target, "URL or HOST[:PORT]")->required();
  args->policy.add_to(test);
  test->add_flag("--json", args->json, "Print the decision as JSON");
  test->add_option("--os", args->os, "Platform for the per-harness lines: linux (default), macos, windows");
  test->add_option("--harness", args->harnesses, "Only these harnesses (repeatable; default all six)");
  test->callback([args] { run_egress_test(*args); });
}

}  // namespace halo::cli
