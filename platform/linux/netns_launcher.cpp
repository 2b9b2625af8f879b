#include "platform/linux/netns_launcher.h"

#include <unistd.h>

namespace halo::platform_linux {
namespace {

policy::EnforcementLevel parse_level(const std::string& s) {
  if (s == "full") return policy::EnforcementLevel::full;
  if (s == "partial") return policy::EnforcementLevel::partial;
  return policy::EnforcementLevel::none;
}

void fill_filesystem(const ChildReport& r, launch::DimensionEnforcement& fs) {
  fs.level = parse_level(r.fs_level);
  fs.mechanism = r.fs_mechanism;
  fs.reasons = r.fs_reasons;
}

}  // namespace

bool NetnsLauncher::prepare(const launch::LaunchPlan& plan, launch::Prepared& out,
                            std::string& why) {
  ChildReport report;
  if (!process_.start(plan, true, report, why)) return false;
  for (const auto& l : report.listeners) {
    if (l.kind == "proxy") {
      out.listeners.proxy_fd = l.fd;
    } else if (l.kind == "dns-udp") {
      out.listeners.dns_udp_fds.push_back(l.fd);
    } else if (l.kind == "dns-tcp") {
      out.listeners.dns_tcp_fds.push_back(l.fd);
    } else if (l.kind == "forward") {
      out.listeners.forwards.emplace_back(l.port, l.fd);
    } else {
      ::close(l.fd);
    }
  }
  if (out.listeners.proxy_fd < 0) {
    why = "the sandbox handed over no proxy listener";
    process_.abandon();
    return false;
  }
  out.enforcement.backend = name();
  out.enforcement.loopback_grants = plan.loopback_grants;
  fill_filesystem(report, out.enforcement.filesystem);
  apply_network_report(report, out);
  out.proxy_address = "127.0.0.1:" + std::to_string(plan.proxy_port);
  return true;
}

void apply_network_report(const ChildReport& report, launch::Prepared& out) {
  auto& net = out.enforcement.network;
  net.mechanism = "linux-netns";
  net.level = report.net_holes.empty() ? policy::EnforcementLevel::full
                                       : policy::EnforcementLevel::partial;
  for (const auto& h : report.net_holes) net.reasons.push_back(h);
  out.in_sandbox_dns = report.resolv_conf;
  for (const auto& n : report.net_notes) out.warnings.push_back(n);
}

launch::ExitStatus NetnsLauncher::run(const std::vector<std::string>& extra_env) {
  return process_.run(extra_env);
}

void NetnsLauncher::abandon() { process_.abandon(); }

bool EnvLauncher::prepare(const launch::LaunchPlan& plan, launch::Prepared& out,
                          std::string& why) {
  std::uint16_t port = 0;
  const int fd = listen_host_loopback(port, why);
  if (fd < 0) return false;
  ChildReport report;
  if (!process_.start(plan, false, report, why)) {
    ::close(fd);
    return false;
  }
  out.listeners.proxy_fd = fd;
  auto& e = out.enforcement;
  e.backend = name();
  e.network.level = policy::EnforcementLevel::partial;
  e.network.mechanism = "env";
  if (!why_.empty()) e.network.reasons.push_back(why_);
  e.network.reasons.push_back(
      "proxy variables only: clients that ignore them reach the network directly");
  if (!plan.loopback_grants.empty())
    e.network.reasons.push_back("every host loopback port is reachable, not just the grants");
  e.loopback_grants = plan.loopback_grants;
  fill_filesystem(report, e.filesystem);
  out.proxy_address = "127.0.0.1:" + std::to_string(port);
  return true;
}

launch::ExitStatus EnvLauncher::run(const std::vector<std::string>& extra_env) {
  return process_.run(extra_env);
}

void EnvLauncher::abandon() { process_.abandon(); }

}  // namespace halo::platform_linux
