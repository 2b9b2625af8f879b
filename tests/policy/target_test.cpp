#include "policy/target.h"

#include <gtest/gtest.h>

namespace halo::policy {
namespace {

TEST(ParseTarget, Table) {
  struct Row {
    const char* name;
    const char* in;
    const char* host;  // nullptr: error
    int port;          // -1: none
  };
  const Row rows[] = {
      {"https_url", "https://api.example.com/v1?q=secret", "api.example.com", 443},
      {"http_url", "http://example.com", "example.com", 80},
      {"url_with_port", "https://example.com:8443/x", "example.com", 8443},
      {"userinfo_dropped", "https://user:pw@example.com/", "example.com", 443},
      {"userinfo_attack", "https://allowed.com@evil.com/", "evil.com", 443},
      {"upper_scheme", "HTTPS://example.com", "example.com", 443},
      {"v6_url", "http://[2001:db8::1]:8080/", "[2001:db8::1]", 8080},
      {"ws", "wss://example.com/socket", "example.com", 443},
      {"git", "git://example.com/repo", "example.com", 9418},
      {"host_only", "example.com", "example.com", -1},
      {"host_port", "example.com:22", "example.com", 22},
      {"v6_bracket_port", "[::1]:8080", "[::1]", 8080},
      {"v6_bare", "::1", "::1", -1},
      {"unknown_scheme_no_port", "gopher://example.com", nullptr, 0},
      {"unknown_scheme_port", "gopher://example.com:70", "example.com", 70},
      {"bad_port", "example.com:99999", nullptr, 0},
      {"port_zero", "example.com:0", nullptr, 0},
      {"path_without_scheme", "example.com/path", nullptr, 0},
      {"empty", "", nullptr, 0},
      {"empty_host_url", "https:///x", nullptr, 0},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    TargetResult t = parse_target(r.in);
    if (r.host == nullptr) {
      EXPECT_FALSE(t.target);
      EXPECT_FALSE(t.error.empty());
      continue;
    }
    ASSERT_TRUE(t.target) << t.error;
    EXPECT_EQ(t.target->host, r.host);
    if (r.port < 0) {
      EXPECT_FALSE(t.target->port);
    } else {
      EXPECT_EQ(t.target->port.value_or(0), r.port);
    }
  }
}

}  // namespace
}  // namespace halo::policy
