// The session report's JSON shape: levels and reasons per dimension, counts, denials,
// exit status; never CMD's arguments.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace halo::launch
