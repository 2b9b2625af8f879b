#include "sandbox-launch/session.h"

#include <chrono>
#include <exception>
#include <future>
#include <iostream>
#include <atomic>
#include <thread>

#include "broker/broker.h"
#include "sandbox-launch/launcher.h"
#include "sandbox-launch/proxy_env.h"
#include "sandbox-launch/session_report.h"

namespace halo::launch {
namespace {

// How long CMD's go signal waits for the broker thread to enter Broker::run().
constexpr std::chrono::seconds kBrokerStartTimeout{5};

broker::ListenerSet to_listener_set(Listeners l) {
  broker::ListenerSet set;
  set.proxy_fd = l.proxy_fd;
  set.dns_udp_fds = std::move(l.dns_udp_fds);
  set.dns_tcp_fds = std::move(l.dns_tcp_fds);
  for (auto& [port, fd] : l.forwards) set.loopback_forwards.push_back({port, fd});
  return set;
}

std::string require_where(const policy::Policy& p) {
  if (p.require_loc.file.empty()) return "the default";
  return p.require_loc.file + ":" + std::to_string(p.require_loc.line);
}

// Starts the sandbox with the backend asked for; auto falls back from linux-netns to env.
// On failure `exit_code` is kExitBelowRequire when an explicitly asked-for linux-netns is
// unavailable (an enforcement demand not met), kExitHaloFailed when nothing could start.
std::unique_ptr<Launcher> start_backend(const SessionOptions& o, Prepared& prepared,
                                        int& exit_code) {
  exit_code = kExitHaloFailed;
  std::string why;
  if (o.backend != Backend::env) {
    auto netns = make_launcher(Backend::linux_netns, "");
    if (netns && netns->prepare(o.plan, prepared, why)) return netns;
    if (!netns) why = "this platform has no linux-netns backend";
    if (o.backend == Backend::linux_netns) {
      std::cerr << "halo: refusing to run: --backend linux-netns is unavailable: " << why << "\n";
      exit_code = kExitBelowRequire;
      return nullptr;
    }
    why = "linux-netns unavailable: " + why;
  } else {
    why = "--backend env asked for";
  }
  prepared = Prepared{};
  auto env = make_launcher(Backend::env, why);
  std::string env_why;
  if (env && env->prepare(o.plan, prepared, env_why)) return env;
  std::cerr << "halo: cannot start the session: " << env_why << "\n";
  return nullptr;
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int run_session(const SessionOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  SessionRecord record;
  record.started_unix_ms = unix_ms();
  record.session_id = o.plan.session_id;
  record.command = o.plan.argv.empty() ? "" : o.plan.argv[0];
  record.require = o.policy->require;

  Prepared prepared;
  int start_failed = kExitHaloFailed;
  auto launcher = start_backend(o, prepared, start_failed);
  if (!launcher) return start_failed;
  record.enforcement = prepared.enforcement;
  // A refusal is one line that says everything; otherwise the enforcement line.
  if (auto refusal = prepared.enforcement.shortfall(o.policy->require, require_where(*o.policy))) {
    launcher->abandon();
    std::cerr << *refusal << "\n";
    return kExitBelowRequire;
  }
  if (!o.quiet) {
    std::cerr << prepared.enforcement.line() << "\n";
    for (const auto& w : prepared.warnings) std::cerr << "halo: warning: " << w << "\n";
  }

  broker::BrokerOptions bo;
  bo.policy = o.policy;
  bo.session_id = o.plan.session_id;
  bo.audit_path = o.audit_path;
  bo.resolver_hosts = o.resolver_hosts;
  bo.dns_mode = prepared.in_sandbox_dns ? broker::DnsMode::synthetic : broker::DnsMode::real;
  std::error_code ec;
  std::unique_ptr<broker::Broker> broker = broker::Broker::create(std::move(bo), ec);
  if (!broker) {
    launcher->abandon();
    std::cerr << "halo: cannot start the session: the broker did not start: " << ec.message()
              << "\n";
    return kExitHaloFailed;
  }
  broker->adopt(to_listener_set(std::move(prepared.listeners)));

  // The broker thread writes broker_error only before it ends; read after join().
  // CMD gets its go signal only once the broker thread is inside run() and has not
  // already failed (connections made before it accepts wait in the listen backlog).
  std::atomic<bool> stopping{false};
  std::atomic<bool> broker_ended{false};
  std::promise<void> entered;
  auto entered_f = entered.get_future();
  std::thread broker_thread([&] {
    entered.set_value();
    try {
      broker->run();
      if (!stopping) record.broker_error = "the broker stopped on its own";
    } catch (const std::exception& e) {
      record.broker_error = e.what();
    }
    broker_ended = true;
    if (!stopping)
      std::cerr << "halo: the broker stopped (" << record.broker_error
                << "); the sandbox has no network\n";
  });
  if (entered_f.wait_for(kBrokerStartTimeout) != std::future_status::ready || broker_ended) {
    stopping = true;
    broker->stop();
    broker_thread.join();
    launcher->abandon();
    std::cerr << "halo: cannot start the session: the broker did not start running"
              << (record.broker_error.empty() ? "" : " (" + record.broker_error + ")") << "\n";
    return kExitHaloFailed;
  }

  const ExitStatus status = launcher->run(
      session_environment(prepared.proxy_address, prepared.enforcement, o.plan.session_id));
  stopping = true;
  broker->stop();
  broker_thread.join();

  const broker::BrokerStats stats = broker->stats();
  record.exit = status;
  record.decisions = stats.decisions;
  record.allowed = stats.allowed;
  record.denied = stats.denied;
  for (const auto& d : stats.denials)
    record.denials.push_back({d.transport, d.host, d.port, d.rule});
  record.denials_dropped = stats.denials_dropped;
  record.losses = stats.losses;
  std::cerr << session_loss_warnings(record.losses);
  record.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - t0)
                           .count();
  if (!o.report_path.empty()) {
    if (auto err = write_session_report(o.report_path, record); !err.empty()) {
      std::cerr << "halo: session report not written: " << err << "\n";
      if (status.shell_code() == 0) return kExitHaloFailed;
    }
  }
  return status.shell_code();
}

}  // namespace halo::launch
