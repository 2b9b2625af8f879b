// halo egress test URL|HOST[:PORT]: the decision, the rule that made it; exit 0 allow,
// 1 deny, 2 bad input or invalid policy.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/egress_rules.h"
#include "policy/host.h"
#include "policy/target.h"

namespace halo::cli {
namespace {

struct EgressTestArgs {
  PolicyArgs policy;
  std::string target;
  bool json = false;
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

  if (a.json) {
    nlohmann::json j;
    j["target"] = shown;
    j["host"] = h ? h.host->text : "";
    j["port"] = t.target->port ? nlohmann::json(*t.target->port) : nlohmann::json(nullptr);
    j["verdict"] = bad_input ? "error" : policy::to_string(d.verdict);
    j["reason"] = policy::to_string(d.reason);
    j["rule"] = d.rule();
    j["source"] = d.source();
    std::cout << j.dump(2) << "\n";
  } else if (bad_input) {
    std::cerr << "halo: bad target: " << d.rule() << "\n";
  } else {
    std::cout << policy::to_string(d.verdict) << "  " << shown << "  " << d.rule() << "\n";
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
  test->callback([args] { run_egress_test(*args); });
}

}  // namespace halo::cli
