// AresResolver on loopback only: answers from the hosts file, localhost without DNS, and
// the per-query deadline against a UDP server that never answers.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>

#include "dns/ares_resolver.h"

namespace halo::dns {
namespace {

namespace asio = boost::asio;

struct Fixture {
  asio::io_context io;
  std::unique_ptr<Resolver> resolver;
  Fixture(const std::string& hosts, const std::string& server) {
    AresOptions o;
    o.hosts_file = hosts;
    o.server = server;
    o.attempt_timeout = std::chrono::milliseconds(5000);
    o.tries = 1;
    std::error_code ec;
    resolver = make_ares_resolver(io.get_executor(), o, ec);
    EXPECT_FALSE(ec) << ec.message();
  }
  ResolveResult resolve(const std::string& name, std::chrono::milliseconds deadline) {
    std::optional<ResolveResult> out;
    resolver->resolve(name, deadline, [&](ResolveResult r) { out = std::move(r); });
    io.restart();  // a previous lookup may have run the context out of work
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!out && std::chrono::steady_clock::now() < give_up) {
      io.run_one_for(std::chrono::milliseconds(100));
      if (io.stopped()) io.restart();
    }
    if (!out) {
      ResolveResult r;
      r.error = "test gave up waiting";
      return r;
    }
    return *out;
  }
};

std::string write_hosts() {
  std::string path = ::testing::TempDir() + "halo_hosts_test";
  std::ofstream(path) << "127.0.0.1 rebind.test\n198.51.100.7 doc.test\n2001:db8::7 doc.test\n";
  return path;
}

TEST(AresResolver, HostsFileAndLocalhost) {
  // A bound but silent UDP socket stands in for the DNS server: nothing leaves loopback.
  asio::io_context io;
  asio::ip::udp::socket silent(io, asio::ip::udp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::string server = "127.0.0.1:" + std::to_string(silent.local_endpoint().port());
  Fixture f(write_hosts(), server);
  struct Row {
    const char* name;
    const char* lookup;
    ResolveResult::Status status;
    std::size_t count;
  };
  const Row rows[] = {
      {"hosts file v4", "rebind.test", ResolveResult::Status::ok, 1},
      {"hosts file both families", "doc.test", ResolveResult::Status::ok, 2},
      {"localhost", "localhost", ResolveResult::Status::ok, 2},
      {"under localhost", "a.localhost", ResolveResult::Status::ok, 2},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto r = f.resolve(row.lookup, std::chrono::milliseconds(2000));
    EXPECT_EQ(r.status, row.status);
    EXPECT_EQ(r.addresses.size(), row.count);
  }
}

TEST(AresResolver, DeadlineAgainstSilentServer) {
  asio::io_context io;
  asio::ip::udp::socket silent(io, asio::ip::udp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::string server = "127.0.0.1:" + std::to_string(silent.local_endpoint().port());
  Fixture f(write_hosts(), server);
  auto t0 = std::chrono::steady_clock::now();
  auto r = f.resolve("nothing.test", std::chrono::milliseconds(300));
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.status, ResolveResult::Status::timeout);
  EXPECT_LT(took, std::chrono::milliseconds(2000));
  EXPECT_GE(took, std::chrono::milliseconds(250));
}

}  // namespace
}  // namespace halo::dns
