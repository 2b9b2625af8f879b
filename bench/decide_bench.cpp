// decide() cost against rule-set size, for hits and misses, on already-normalized hosts;
// and the cost of normalizing raw input, separately.
//   build/bench/decide_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "policy/egress_rules.h"
#include "policy/host.h"

namespace {

using halo::policy::DomainEntry;
using halo::policy::EgressPolicy;
using halo::policy::EgressRules;

std::string name(std::mt19937& rng, int labels) {
  static const char kAlpha[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (int l = 0; l < labels; ++l) {
    if (l) s += '.';
    int len = 4 + static_cast<int>(rng() % 8);
    for (int i = 0; i < len; ++i) s += kAlpha[rng() % 36];
  }
  return s + ".example";
}

struct Fixture {
  std::unique_ptr<EgressRules> rules;
  std::vector<std::string> hits;    // names an allow or deny rule matches
  std::vector<std::string> misses;  // names no rule matches (fall to the default)
};

Fixture& fixture(int n) {
  static std::map<int, Fixture> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  std::mt19937 rng(42 + n);
  EgressPolicy e;
  e.default_action = halo::policy::DefaultAction::deny;
  Fixture f;
  for (int i = 0; i < n; ++i) {
    std::string d = name(rng, 2);
    bool wild = i % 3 == 0;
    bool deny = i % 5 == 0;
    DomainEntry entry{wild ? "*." + d : d, deny ? "deniedDomains" : "allowedDomains", {}};
    (deny ? e.denied_domains : e.allowed_domains).push_back(entry);
    if (f.hits.size() < 1024) f.hits.push_back(wild ? "api." + d : d);
  }
  for (std::size_t i = 0; f.hits.size() < 1024; ++i) f.hits.push_back(f.hits[i]);  // small sets repeat
  for (int i = 0; i < 1024; ++i) f.misses.push_back("www." + name(rng, 2));
  f.rules = std::make_unique<EgressRules>(e);
  return cache.emplace(n, std::move(f)).first->second;
}

void BM_DecideHit(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    auto d = f.rules->decide_name(f.hits[i++ & 1023], std::uint16_t{443});
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DecideMiss(benchmark::State& state) {
  Fixture& f = fixture(static_cast<int>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    auto d = f.rules->decide_name(f.misses[i++ & 1023], std::uint16_t{443});
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}

// Raw input through decide(): canonical-name fast path check plus matching.
void BM_DecideRawCanonical(benchmark::State& state) {
  Fixture& f = fixture(10000);
  std::size_t i = 0;
  for (auto _ : state) {
    auto d = f.rules->decide(f.hits[i++ & 1023], std::uint16_t{443});
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_NormalizeMixedCase(benchmark::State& state) {
  std::vector<std::string> raw = {"API.GitHub.com.", "Example.COM", "www.Example.org"};
  std::size_t i = 0;
  for (auto _ : state) {
    auto h = halo::policy::normalize_host(raw[i++ % raw.size()]);
    benchmark::DoNotOptimize(h);
  }
}

void BM_NormalizeIpv4Forms(benchmark::State& state) {
  std::vector<std::string> raw = {"127.1", "0x7f.0.0.1", "2130706433", "10.0.0.5"};
  std::size_t i = 0;
  for (auto _ : state) {
    auto h = halo::policy::normalize_host(raw[i++ % raw.size()]);
    benchmark::DoNotOptimize(h);
  }
}

void BM_NormalizeIdn(benchmark::State& state) {
  std::vector<std::string> raw = {"bücher.example", "xn--bcher-kva.example", "пример.испытание"};
  std::size_t i = 0;
  for (auto _ : state) {
    auto h = halo::policy::normalize_host(raw[i++ % raw.size()]);
    benchmark::DoNotOptimize(h);
  }
}

}  // namespace

BENCHMARK(BM_DecideHit)->Arg(10)->Arg(1000)->Arg(10000)->Arg(100000);
BENCHMARK(BM_DecideMiss)->Arg(10)->Arg(1000)->Arg(10000)->Arg(100000);
BENCHMARK(BM_DecideRawCanonical);
BENCHMARK(BM_NormalizeMixedCase);
BENCHMARK(BM_NormalizeIpv4Forms);
BENCHMARK(BM_NormalizeIdn);
BENCHMARK_MAIN();
