#include <gtest/gtest.h>

#include <vector>

#include "broker/proto/socks5.h"

namespace halo::broker::proto::socks5 {
namespace {

using Bytes = std::vector<std::uint8_t>;

TEST(Socks5, GreetingRows) {
  struct Row {
    const char* name;
    Bytes in;
    Status status;
    bool no_auth, user_pass;
    std::size_t consumed;
  };
  const Row rows[] = {
      {"no auth", {5, 1, 0}, Status::ok, true, false, 3},
      {"both", {5, 2, 0, 2}, Status::ok, true, true, 4},
      {"user pass only", {5, 1, 2}, Status::ok, false, true, 3},
      {"gssapi only", {5, 1, 1}, Status::ok, false, false, 3},
      {"short", {5}, Status::need_more, false, false, 0},
      {"short methods", {5, 3, 0}, Status::need_more, false, false, 0},
      {"zero methods", {5, 0}, Status::error, false, false, 0},
      {"socks4", {4, 1, 0, 80}, Status::error, false, false, 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto r = parse_greeting(row.in);
    EXPECT_EQ(r.status, row.status);
    if (r.status == Status::ok) {
      EXPECT_EQ(r.value.no_auth, row.no_auth);
      EXPECT_EQ(r.value.user_pass, row.user_pass);
      EXPECT_EQ(r.consumed, row.consumed);
    }
  }
}

TEST(Socks5, UserPassRows) {
  struct Row {
    const char* name;
    Bytes in;
    Status status;
    std::size_t consumed;
  };
  const Row rows[] = {
      {"ok", {1, 1, 'u', 2, 'p', 'w'}, Status::ok, 6},
      {"empty password", {1, 1, 'u', 0}, Status::ok, 4},
      {"short", {1, 3, 'u'}, Status::need_more, 0},
      {"bad version", {5, 1, 'u', 1, 'p'}, Status::error, 0},
      {"empty user", {1, 0, 0}, Status::error, 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto r = parse_user_pass(row.in);
    EXPECT_EQ(r.status, row.status);
    if (r.status == Status::ok) EXPECT_EQ(r.consumed, row.consumed);
  }
}

TEST(Socks5, RequestRows) {
  struct Row {
    const char* name;
    Bytes in;
    Status status;
    Reply reply;
    const char* host;
    std::uint16_t port;
    Command cmd = Command::connect;
  };
  const Row rows[] = {
      {"v4", {5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90}, Status::ok, Reply::succeeded, "127.0.0.1", 8080},
      {"domain", {5, 1, 0, 3, 3, 'a', '.', 'b', 1, 0xbb}, Status::ok, Reply::succeeded, "a.b", 443},
      {"v6", {5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80},
       Status::ok, Reply::succeeded, "2001:db8:0:0:0:0:0:1", 80},
      {"bind parsed", {5, 2, 0, 1, 1, 2, 3, 4, 0, 80}, Status::ok, Reply::succeeded, "1.2.3.4", 80,
       Command::bind},
      {"udp parsed", {5, 3, 0, 1, 1, 2, 3, 4, 0, 80}, Status::ok, Reply::succeeded, "1.2.3.4", 80,
       Command::udp_associate},
      {"unknown command", {5, 9, 0, 1, 1, 2, 3, 4, 0, 80}, Status::error,
       Reply::command_not_supported, "", 0},
      {"bad atyp", {5, 1, 0, 7, 1, 2}, Status::error, Reply::address_type_not_supported, "", 0},
      {"empty domain", {5, 1, 0, 3, 0, 0, 80}, Status::error, Reply::general_failure, "", 0},
      {"nul in domain", {5, 1, 0, 3, 2, 'a', 0, 0, 80}, Status::error, Reply::general_failure, "", 0},
      {"reserved set", {5, 1, 1, 1, 1, 2, 3, 4, 0, 80}, Status::error, Reply::general_failure, "", 0},
      {"short domain", {5, 1, 0, 3, 10, 'a'}, Status::need_more, Reply::succeeded, "", 0},
      {"short port", {5, 1, 0, 1, 1, 2, 3, 4, 0}, Status::need_more, Reply::succeeded, "", 0},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    auto r = parse_request(row.in);
    EXPECT_EQ(r.status, row.status);
    if (r.status == Status::ok) {
      EXPECT_EQ(r.value.host, row.host);
      EXPECT_EQ(r.value.port, row.port);
      EXPECT_EQ(r.value.command, row.cmd);
      EXPECT_EQ(r.consumed, row.in.size());
    } else if (r.status == Status::error) {
      EXPECT_EQ(r.reply, row.reply);
    }
  }
}

TEST(Socks5, Replies) {
  auto r = reply(Reply::not_allowed);
  EXPECT_EQ(r[0], 5);
  EXPECT_EQ(r[1], 2);
  EXPECT_EQ(r[3], 1);
  auto s4 = socks4_rejected();
  EXPECT_EQ(s4[1], 0x5b);
}

}  // namespace
}  // namespace halo::broker::proto::socks5
