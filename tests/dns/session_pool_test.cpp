#include "dns/session_pool.h"

#include <gtest/gtest.h>

#include <thread>

namespace halo::dns {
namespace {

using policy::IpAddress;

TEST(SessionAddressPool, StableAddressPerNameAndLookupBack) {
  SessionAddressPool pool(8);
  const auto a = pool.assign("one.test");
  const auto b = pool.assign("two.test");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->v4.to_string(), "198.18.0.1");
  EXPECT_EQ(b->v4.to_string(), "198.18.0.2");
  EXPECT_EQ(a->v6.to_string(), "fd68:616c:6f00:5353::1");
  EXPECT_EQ(pool.assign("one.test")->v4, a->v4);
  EXPECT_EQ(pool.lookup(a->v4), "one.test");
  EXPECT_EQ(pool.lookup(b->v6), "two.test");
  EXPECT_FALSE(pool.lookup(IpAddress::v4((198u << 24) | (18u << 16) | 3)));  // not handed out
  EXPECT_FALSE(pool.lookup(IpAddress::v4((198u << 24) | (18u << 16))));      // .0
  EXPECT_FALSE(pool.lookup(*IpAddress::parse_strict("192.0.2.1")));
  EXPECT_FALSE(pool.lookup(*IpAddress::parse_strict("fd68:616c:6f00:5353:1::1")));
}

TEST(SessionAddressPool, BoundedWithoutEviction) {
  SessionAddressPool pool(2);
  EXPECT_TRUE(pool.assign("a.test"));
  EXPECT_TRUE(pool.assign("b.test"));
  EXPECT_EQ(pool.full_refusals(), 0u);
  EXPECT_FALSE(pool.assign("c.test"));
  EXPECT_FALSE(pool.assign("d.test"));
  EXPECT_TRUE(pool.assign("a.test"));  // known names still answer
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.full_refusals(), 2u);  // every refusal counted, known names never
}

TEST(SessionAddressPool, RangeCoversTheWholeSlash15) {
  EXPECT_TRUE(SessionAddressPool::in_pool_range(*IpAddress::parse_strict("198.19.255.254")));
  EXPECT_FALSE(SessionAddressPool::in_pool_range(*IpAddress::parse_strict("198.20.0.1")));
  EXPECT_TRUE(SessionAddressPool::in_pool_range(*IpAddress::parse_strict("fd68:616c:6f00:5353::9")));
}

TEST(SessionAddressPool, ConcurrentAssignGivesOneAddressPerName) {
  SessionAddressPool pool;
  std::vector<std::thread> threads;
  std::vector<std::string> seen(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) pool.assign("n" + std::to_string(i) + ".test");
      seen[static_cast<std::size_t>(t)] = pool.assign("n7.test")->v4.to_string();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(pool.size(), 500u);
  for (const auto& s : seen) EXPECT_EQ(s, seen[0]);
}

struct ReverseRow {
  const char* name;
  const char* text;
  const char* address;  // nullptr: not a reverse name
};

TEST(ParseReverseName, ExactZonesOnly) {
  const std::vector<ReverseRow> rows = {
      {"v4", "1.0.18.198.in-addr.arpa", "198.18.0.1"},
      {"v4 trailing dot, upper case", "1.0.18.198.IN-ADDR.ARPA.", "198.18.0.1"},
      {"v4 three labels (a zone)", "0.18.198.in-addr.arpa", nullptr},
      {"v4 five labels", "5.1.0.18.198.in-addr.arpa", nullptr},
      {"v4 octet over 255", "256.0.18.198.in-addr.arpa", nullptr},
      {"v4 leading zero", "01.0.18.198.in-addr.arpa", nullptr},
      {"v6", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.5.3.5.0.0.f.6.c.6.1.6.8.6.d.f.ip6.arpa",
       "fd68:616c:6f00:5353::1"},
      {"v6 short", "1.0.ip6.arpa", nullptr},
      {"v6 bad nibble", "g.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.5.3.5.0.0.f.6.c.6.1.6.8.6.d.f.ip6.arpa",
       nullptr},
      {"a name", "example.com", nullptr},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto a = parse_reverse_name(row.text);
    if (row.address == nullptr) {
      EXPECT_FALSE(a);
    } else {
      ASSERT_TRUE(a);
      EXPECT_EQ(a->to_string(), row.address);
    }
  }
}

}  // namespace
}  // namespace halo::dns
