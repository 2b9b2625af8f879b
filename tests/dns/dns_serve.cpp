// halo_dns_serve: the DNS filter alone, for the integration test and the load bench when
// the broker is not wanted. Not installed.
//   halo_dns_serve --profile F --listen ADDR:PORT [--upstream IP:PORT] [--mode synthetic|real]
//                  [--audit FILE] [--max-qps N]
// Prints "port N" on stdout once serving; stops on SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>

#include "dns/dns_filter.h"
#include "policy/loader.h"

int main(int argc, char** argv) {
  // Taken with sigwait below; blocked first, so every thread inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::string profile, listen = "127.0.0.1:0", upstream, mode = "synthetic", audit_path;
  unsigned max_qps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--profile") profile = v;
    else if (k == "--listen") listen = v;
    else if (k == "--upstream") upstream = v;
    else if (k == "--mode") mode = v;
    else if (k == "--audit") audit_path = v;
    else if (k == "--max-qps") max_qps = static_cast<unsigned>(std::stoul(v));
    else { std::cerr << "unknown option " << k << "\n"; return 2; }
  }
  auto loaded = halo::policy::load_profile(profile, halo::policy::PresetEnvironment{});
  if (!loaded.policy) {
    for (const auto& d : loaded.diagnostics.items) std::cerr << d.to_string() << "\n";
    return 2;
  }
  std::ofstream audit_file;
  if (!audit_path.empty()) audit_file.open(audit_path, std::ios::app);
  std::mutex mu;
  halo::dns::DnsFilterOptions o;
  o.policy = loaded.policy;
  o.upstream_server = upstream;
  o.mode = mode == "real" ? halo::dns::AnswerMode::real : halo::dns::AnswerMode::synthetic;
  if (max_qps) {
    o.limits.max_queries_per_second = max_qps;
    o.limits.query_burst = max_qps;
  }
  if (audit_file) {
    o.audit = [&](const halo::dns::DnsAuditEvent& e) {
      std::lock_guard lock(mu);
      audit_file << "{\"transport\":\"dns\",\"protocol\":\"" << e.protocol << "\",\"host\":\""
                 << e.name << "\",\"qtype\":\"" << e.qtype << "\",\"verdict\":\""
                 << halo::policy::to_string(e.verdict) << "\",\"rcode\":\"" << e.rcode
                 << "\",\"forwarded\":" << (e.forwarded ? "true" : "false") << "}\n";
      audit_file.flush();
    };
  }
  std::error_code ec;
  auto filter = halo::dns::DnsFilter::create(std::move(o), ec);
  if (!filter) { std::cerr << "create: " << ec.message() << "\n"; return 2; }
  if (auto e = filter->listen(listen)) { std::cerr << "listen: " << e.message() << "\n"; return 2; }
  filter->start();
  std::cout << "port " << *filter->bound_port() << std::endl;
  int sig = 0;
  sigwait(&set, &sig);
  filter->stop();
  const auto s = filter->stats();
  std::cerr << "queries " << s.queries << " allowed " << s.allowed << " denied " << s.denied
            << " rate_limited " << s.rate_limited << " forwarded " << s.forwarded << "\n";
  return 0;
}
