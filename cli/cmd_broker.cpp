// halo broker: run the session broker as a standalone proxy (HTTP CONNECT and forward,
// SOCKS5, on one port) until SIGINT/SIGTERM, which drain it.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "cli/commands.h"
#include "cli/policy_args.h"
#include "policy/ip_address.h"

namespace halo::cli {
namespace {

// "127.0.0.1:P", "[::1]:P", "localhost:P" (and every 127/8 address) are loopback.
bool listen_is_loopback(const std::string& addr_port) {
  std::string host = addr_port.substr(0, addr_port.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  auto ip = policy::IpAddress::parse_strict(host);
  return ip && policy::judge_address(*ip).cls == policy::AddressClass::loopback;
}

struct BrokerArgs {
  PolicyArgs policy;
  std::string listen;
  bool allow_remote = false;
  std::string dns;
  std::string dns_mode = "synthetic";
  std::string audit;
  std::string resolver_hosts;
  std::string resolver_server;
  std::string log_level = "info";
  std::string session_id = "broker";
  unsigned threads = 2;
  broker::Limits limits;
  long head_timeout_ms = broker::Limits::kHeadReadDeadline.count();
  long connect_timeout_ms = broker::Limits::kConnectDeadline.count();
  long idle_timeout_ms = broker::Limits::kIdleDeadline.count();
  long max_tunnel_ms = broker::Limits::kMaxTunnelDuration.count();
  long write_timeout_ms = broker::Limits::kWriteDeadline.count();
};

void run_broker(BrokerArgs& a) {
  auto level = spdlog::level::from_str(a.log_level);
  if (level == spdlog::level::off && a.log_level != "off") {
    std::cerr << "halo: --log-level must be trace, debug, info, warn, error or off\n";
    throw Exit{2};
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("halo"));
  spdlog::set_level(level);

  broker::BrokerOptions o;
  o.policy = a.policy.load_or_exit();
  o.session_id = a.session_id;
  o.audit_path = a.audit;
  o.resolver_hosts = a.resolver_hosts;
  o.resolver_server = a.resolver_server;
  o.dns_mode = a.dns_mode == "real" ? broker::DnsMode::real : broker::DnsMode::synthetic;
  o.threads = a.threads == 0 ? 1 : a.threads;
  o.limits = a.limits;
  o.limits.head_read_deadline = broker::Millis(a.head_timeout_ms);
  o.limits.connect_deadline = broker::Millis(a.connect_timeout_ms);
  o.limits.idle_deadline = broker::Millis(a.idle_timeout_ms);
  o.limits.max_tunnel_duration = broker::Millis(a.max_tunnel_ms);
  o.limits.write_deadline = broker::Millis(a.write_timeout_ms);

  // Signals are taken by one thread with sigwait; every other thread (the broker's
  // workers included) inherits the blocked mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // The broker has no client authentication: on a non-loopback address every host that
  // can reach it gets this session's egress, loopback grants and allowedAddresses.
  if (!listen_is_loopback(a.listen) || (!a.dns.empty() && !listen_is_loopback(a.dns))) {
    if (!a.allow_remote) {
      std::cerr << "halo: broker: refusing a non-loopback listen address (it would be an open "
                   "proxy with this policy's grants); listen on 127.0.0.1 or ::1, or pass "
                   "--allow-remote\n";
      throw Exit{2};
    }
    std::cerr << "halo: broker: warning: listening beyond loopback (--allow-remote): any host "
                 "that reaches this port gets this policy's egress and loopback grants\n";
  }

  std::error_code ec;
  auto b = broker::Broker::create(std::move(o), ec);
  if (!b) {
    std::cerr << "halo: broker: " << ec.message() << "\n";
    throw Exit{2};
  }
  if (auto err = b->listen_proxy(a.listen)) {
    std::cerr << "halo: broker: cannot listen on " << a.listen << ": " << err.message() << "\n";
    throw Exit{2};
  }
  if (!a.dns.empty()) {
    if (auto err = b->listen_dns(a.dns)) {
      std::cerr << "halo: broker: cannot serve DNS on " << a.dns << ": " << err.message() << "\n";
      throw Exit{2};
    }
  }
  std::string host = a.listen.substr(0, a.listen.rfind(':'));
  std::cerr << "halo broker: listening on " << host << ":" << *b->bound_proxy_port()
            << " (HTTP proxy and SOCKS5)" << std::endl;
  if (auto dns_port = b->bound_dns_port()) {
    std::cerr << "halo broker: DNS on " << a.dns.substr(0, a.dns.rfind(':')) << ":" << *dns_port
              << " (UDP and TCP, " << a.dns_mode << " answers)" << std::endl;
  }

  std::thread waiter([&b, set] {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig != 0) spdlog::info("broker: signal {}, draining", sig);
    b->stop();
  });
  b->run();
  // run() returned on its own (or after stop): wake the waiter if it still waits.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  // The stop summary goes to stderr whatever the log level (like the listening line): a
  // counted drop or failure must reach the user. Loss lines only when non-zero.
  const broker::BrokerStats st = b->stats();
  std::cerr << "halo broker: stopped; " << st.decisions << " decisions, " << st.allowed
            << " allowed, " << st.denied << " denied\n";
  st.losses.for_each([](const char*, std::uint64_t value, const char* what) {
    if (value != 0) std::cerr << "halo broker: warning: " << value << " " << what << "\n";
  });
  std::cerr << std::flush;
}

}  // namespace

void add_broker_command(CLI::App& app) {
  // Deadlines in milliseconds: at least 1, at most a year (larger values would overflow
  // the clock arithmetic and expire at once).
  static const CLI::Range kMillisRange(1L, 366L * 24 * 3600 * 1000);
  auto args = std::make_shared<BrokerArgs>();
  auto* cmd = app.add_subcommand(
      "broker", "Run the egress broker: HTTP proxy (CONNECT, absolute-form) and SOCKS5 on one port");
  args->policy.add_to(cmd);
  cmd->add_option("--listen", args->listen, "ADDR:PORT to listen on (port 0 picks one)")->required();
  cmd->add_option("--dns", args->dns, "ADDR:PORT for the DNS filter (UDP and TCP)");
  cmd->add_flag("--allow-remote", args->allow_remote,
                "Allow a listen address beyond loopback (the broker has no client authentication)");
  cmd->add_option("--dns-mode", args->dns_mode,
                  "synthetic: allowed names get session addresses (default); real: their "
                  "real, vetted addresses")
      ->check(CLI::IsMember({"synthetic", "real"}));
  cmd->add_option("--audit", args->audit, "Audit log file (JSON lines); '-' for stderr");
  cmd->add_option("--resolver-hosts", args->resolver_hosts, "Hosts file for resolution (default /etc/hosts)");
  cmd->add_option("--resolver-server", args->resolver_server,
                  "DNS server IP:PORT (default: servers from /etc/resolv.conf)");
  cmd->add_option("--log-level", args->log_level, "trace, debug, info, warn, error, off");
  cmd->add_option("--session-id", args->session_id, "Session id written in every audit line");
  cmd->add_option("--threads", args->threads, "Worker threads (default 2)");
  cmd->add_option("--max-connections", args->limits.max_connections,
                  "Open client connections before new ones get a fast 503");
  cmd->add_option("--max-head-bytes", args->limits.max_head_bytes, "Request head size cap");
  cmd->add_option("--head-timeout-ms", args->head_timeout_ms, "Deadline for a whole request head")
      ->check(kMillisRange);
  cmd->add_option("--connect-timeout-ms", args->connect_timeout_ms, "Deadline for dialing upstream")
      ->check(kMillisRange);
  cmd->add_option("--idle-timeout-ms", args->idle_timeout_ms, "Idle deadline for tunnels")
      ->check(kMillisRange);
  cmd->add_option("--max-tunnel-ms", args->max_tunnel_ms,
                  "Longest a tunnel may live, however busy (default 24 h)")
      ->check(kMillisRange);
  cmd->add_option("--write-timeout-ms", args->write_timeout_ms,
                  "Deadline for writing an answer or a response to a client that stopped reading")
      ->check(kMillisRange);
  cmd->callback([args] { run_broker(*args); });
}

}  // namespace halo::cli
