#include "policy/ip_address.h"

#include <gtest/gtest.h>

namespace halo::policy {
namespace {

TEST(IpAddress, InetAtonForms) {
  struct Row {
    const char* in;
    const char* out;  // nullptr: invalid
  };
  const Row rows[] = {{"1.2.3.4", "1.2.3.4"},     {"1", "0.0.0.1"},
                      {"1.2", "1.0.0.2"},         {"1.2.3", "1.2.0.3"},
                      {"0x0a.0.0.1", "10.0.0.1"}, {"012.0.0.1", "10.0.0.1"},
                      {"0x", "0.0.0.0"},          {"4294967295", "255.255.255.255"},
                      {"4294967296", nullptr},    {"1.16777216", nullptr},
                      {"1..2", nullptr},          {"1.2.3.4.", nullptr},
                      {"09", nullptr},            {"0xg", nullptr},
                      {"", nullptr},              {"1.2.3.4.5", nullptr}};
  for (const auto& r : rows) {
    SCOPED_TRACE(r.in);
    auto a = parse_inet_aton(r.in);
    if (r.out == nullptr) {
      EXPECT_FALSE(a);
    } else {
      ASSERT_TRUE(a);
      EXPECT_EQ(a->to_string(), r.out);
    }
  }
}

TEST(IpAddress, Cidr) {
  auto c = Cidr::parse("10.20.0.0/16");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->contains(*IpAddress::parse_strict("10.20.255.1")));
  EXPECT_FALSE(c->contains(*IpAddress::parse_strict("10.21.0.1")));
  EXPECT_FALSE(c->contains(*IpAddress::parse_strict("::ffff:10.20.0.1")));  // families differ
  EXPECT_FALSE(Cidr::parse("10.20.0.1/16"));  // host bits set
  EXPECT_FALSE(Cidr::parse("10.20.0.0/"));
  EXPECT_FALSE(Cidr::parse("fd00::/129"));
  EXPECT_EQ(Cidr::parse("fd00:1::/48")->to_string(), "fd00:1::/48");
  EXPECT_EQ(Cidr::parse("1.2.3.4")->prefix, 32);
}

TEST(IpAddress, Classes) {
  struct Row {
    const char* ip;
    AddressClass cls;
  };
  const Row rows[] = {
      {"8.8.8.8", AddressClass::public_address}, {"127.0.0.1", AddressClass::loopback},
      {"::1", AddressClass::loopback},           {"10.1.1.1", AddressClass::private_use},
      {"100.127.255.255", AddressClass::cgnat},  {"100.128.0.0", AddressClass::public_address},
      {"169.254.169.254", AddressClass::link_local}, {"fe80::1", AddressClass::link_local},
      {"fc00::1", AddressClass::ula},            {"fdff::1", AddressClass::ula},
      {"224.1.1.1", AddressClass::multicast},    {"ff05::1", AddressClass::multicast},
      {"0.0.0.0", AddressClass::unspecified},    {"::", AddressClass::unspecified},
      {"255.255.255.255", AddressClass::reserved}, {"::ffff:127.0.0.1", AddressClass::loopback},
      {"64:ff9b::a9fe:a9fe", AddressClass::link_local}, {"2002:7f00:1::", AddressClass::loopback},
      {"2001:db8::1", AddressClass::public_address}, {"2001:2::1", AddressClass::reserved},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.ip);
    EXPECT_EQ(judge_address(*IpAddress::parse_strict(r.ip)).cls, r.cls);
  }
}

}  // namespace
}  // namespace halo::policy
