#include <gtest/gtest.h>

#include "broker/proto/http_rewrite.h"
#include "broker/proto/http_target.h"

namespace halo::broker::proto {
namespace {

TEST(HttpTarget, AuthorityRows) {
  struct Row {
    const char* name;
    const char* text;
    bool ok;
    const char* host;
    std::uint16_t port;
  };
  const Row rows[] = {
      {"name", "a.example:443", true, "a.example", 443},
      {"v4", "127.0.0.1:8080", true, "127.0.0.1", 8080},
      {"v6", "[2001:db8::1]:443", true, "2001:db8::1", 443},
      {"no port", "a.example", false, "", 0},
      {"port zero", "a.example:0", false, "", 0},
      {"port too big", "a.example:65536", false, "", 0},
      {"port not numeric", "a.example:https", false, "", 0},
      {"userinfo", "user:pw@a.example:443", false, "", 0},
      {"unbracketed v6", "2001:db8::1:443", false, "", 0},
      {"empty host", ":443", false, "", 0},
      {"path", "a.example/x:443", false, "", 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto a = parse_authority(row.text);
    ASSERT_EQ(a.has_value(), row.ok);
    if (a) {
      EXPECT_EQ(a->host, row.host);
      EXPECT_EQ(a->port, row.port);
    }
  }
}

TEST(HttpTarget, AbsoluteRows) {
  struct Row {
    const char* name;
    const char* text;
    bool ok;
    const char* host;
    std::uint16_t port;
    const char* path_and_query;
    const char* path;
  };
  const Row rows[] = {
      {"plain", "http://a.example/x/y?q=secret", true, "a.example", 80, "/x/y?q=secret", "/x/y"},
      {"upper scheme", "HTTP://A.example", true, "A.example", 80, "/", "/"},
      {"port", "http://a.example:8080/", true, "a.example", 8080, "/", "/"},
      {"v6", "http://[::1]:8080/p", true, "::1", 8080, "/p", "/p"},
      {"query only", "http://a.example?x=1", true, "a.example", 80, "/?x=1", "/"},
      {"fragment dropped", "http://a.example/p#frag", true, "a.example", 80, "/p", "/p"},
      {"https refused", "https://a.example/", false, "", 0, "", ""},
      {"origin form", "/index.html", false, "", 0, "", ""},
      {"userinfo", "http://u:p@a.example/", false, "", 0, "", ""},
      {"empty host", "http:///x", false, "", 0, "", ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto t = parse_absolute_target(row.text);
    ASSERT_EQ(t.has_value(), row.ok);
    if (t) {
      EXPECT_EQ(t->authority.host, row.host);
      EXPECT_EQ(t->authority.port, row.port);
      EXPECT_EQ(t->path_and_query, row.path_and_query);
      EXPECT_EQ(t->path(), row.path);
    }
  }
}

TEST(HttpTarget, HostHeaderMatch) {
  auto t = parse_absolute_target("http://a.example/");
  ASSERT_TRUE(t);
  EXPECT_TRUE(same_authority(*parse_host_header("A.EXAMPLE", 80), t->authority));
  EXPECT_TRUE(same_authority(*parse_host_header("a.example:80", 80), t->authority));
  EXPECT_FALSE(same_authority(*parse_host_header("b.example", 80), t->authority));
  EXPECT_FALSE(same_authority(*parse_host_header("a.example:81", 80), t->authority));
}

TEST(HttpRewrite, HopByHopAndProxyFieldsRemoved) {
  auto req = parse_request_head(
      "GET http://a.example/p?q=1 HTTP/1.1\r\nHost: a.example\r\nProxy-Authorization: Basic eDp5\r\n"
      "Proxy-Connection: keep-alive\r\nConnection: keep-alive, X-Secret\r\nX-Secret: 1\r\n"
      "Keep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\nAccept: */*\r\n\r\n",
      100);
  ASSERT_TRUE(req);
  auto t = parse_absolute_target(req.value->target);
  ASSERT_TRUE(t);
  std::string out = upstream_request_head(*req.value, *t);
  EXPECT_EQ(out,
            "GET /p?q=1 HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\nConnection: close\r\n\r\n");
}

TEST(HttpRewrite, DecisionHeaderSanitized) {
  std::string a = broker_answer(403, "Forbidden", "deny; rule=x\r\nInjected: 1", "");
  EXPECT_EQ(a.find("\r\nInjected"), std::string::npos);
  EXPECT_NE(a.find("X-Halo-Decision: deny; rule=x??Injected: 1\r\n"), std::string::npos);
}

}  // namespace
}  // namespace halo::broker::proto
