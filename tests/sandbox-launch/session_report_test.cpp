// The session report's JSON shape: levels and reasons per dimension, counts, denials,
// exit status; never CMD's arguments.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "sandbox-launch/session_report.h"

namespace halo::launch {
namespace {

TEST(SessionReport, CarriesWhatHappened) {
  SessionRecord r;
  r.session_id = "s1";
  r.command = "curl";
  r.enforcement.backend = "env";
  r.enforcement.network = {policy::EnforcementLevel::partial, "env", {"proxy variables only"}};
  r.enforcement.filesystem = {policy::EnforcementLevel::full, "off", {}};
  r.require = policy::EnforcementLevel::partial;
  r.exit.signal = 15;
  r.decisions = 3;
  r.allowed = 2;
  r.denied = 1;
  r.denials.push_back({"connect", "pastebin.com", 443, "deniedDomains: pastebin.com (p.yaml:4)"});
  auto j = nlohmann::json::parse(session_report_json(r));
  EXPECT_EQ(j["session"], "s1");
  EXPECT_EQ(j["backend"], "env");
  EXPECT_EQ(j["enforcement"]["network"]["level"], "partial");
  EXPECT_EQ(j["enforcement"]["network"]["reasons"][0], "proxy variables only");
  EXPECT_EQ(j["enforcement"]["filesystem"]["level"], "full");
  EXPECT_EQ(j["enforcement"]["overall"], "partial");
  EXPECT_EQ(j["enforcement"]["require"], "partial");
  EXPECT_EQ(j["exit"]["status"], 143);
  EXPECT_EQ(j["exit"]["signal"], 15);
  EXPECT_EQ(j["decisions"]["total"], 3);
  EXPECT_EQ(j["decisions"]["denied"], 1);
  EXPECT_EQ(j["denied"][0]["host"], "pastebin.com");
  EXPECT_EQ(j["denied"][0]["port"], 443);
  EXPECT_EQ(j["denied"][0]["rule"], "deniedDomains: pastebin.com (p.yaml:4)");
  EXPECT_FALSE(j.contains("broker_error"));
}

// The report's "losses" keys, as tools read them. A key renamed or a counter not carried
// fails here.
struct LossRow {
  const char* key;
  std::uint64_t broker::LossCounters::*field;
};
const LossRow kLossRows[] = {
    {"audit_lines_not_written", &broker::LossCounters::audit_write_failures},
    {"connections_refused_at_cap", &broker::LossCounters::overload_rejections},
    {"accept_descriptor_failures", &broker::LossCounters::accept_descriptor_failures},
    {"dns_dropped", &broker::LossCounters::dns_dropped},
    {"dns_rate_limited", &broker::LossCounters::dns_rate_limited},
    {"dns_pool_full", &broker::LossCounters::dns_pool_full},
    {"dns_tcp_refused", &broker::LossCounters::dns_tcp_refused},
    {"dns_send_failed", &broker::LossCounters::dns_send_failed},
    {"dns_accept_failures", &broker::LossCounters::dns_accept_failures},
};

TEST(SessionReport, LossesCarryEveryKeyEvenWhenZero) {
  const auto j = nlohmann::json::parse(session_report_json(SessionRecord{}));
  ASSERT_TRUE(j.contains("losses"));
  EXPECT_EQ(j["losses"].size(), std::size(kLossRows));
  for (const auto& row : kLossRows) {
    SCOPED_TRACE(row.key);
    ASSERT_TRUE(j["losses"].contains(row.key));
    EXPECT_EQ(j["losses"][row.key], 0u);
  }
  EXPECT_EQ(session_loss_warnings(broker::LossCounters{}), "");
}

TEST(SessionReport, LossesRoundTripEachCounter) {
  SessionRecord r;
  std::uint64_t value = 1000;
  for (const auto& row : kLossRows) r.losses.*row.field = value++;  // distinct values
  const auto j = nlohmann::json::parse(session_report_json(r));
  value = 1000;
  for (const auto& row : kLossRows) {
    SCOPED_TRACE(row.key);
    EXPECT_EQ(j["losses"][row.key].get<std::uint64_t>(), value++);
  }
}

TEST(SessionReport, OneWarningLinePerNonZeroLoss) {
  for (const auto& row : kLossRows) {
    SCOPED_TRACE(row.key);
    broker::LossCounters l;
    l.*row.field = 7;
    const std::string text = session_loss_warnings(l);
    EXPECT_EQ(text.rfind("halo: warning: 7 ", 0), 0u) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_EQ(l.total(), 7u);
  }
}

}  // namespace
}  // namespace halo::launch
