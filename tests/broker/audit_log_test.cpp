#include <gtest/gtest.h>

#include "broker/audit_log.h"

namespace halo::broker {
namespace {

TEST(AuditLog, OneJsonLineWithEscapes) {
  AuditRecord r;
  r.transport = "http";
  r.host = "a.example";
  r.port = 80;
  r.method = "GET";
  r.path = "/p\"q";
  r.verdict = "deny";
  r.reason = "denied_domain";
  r.rule = "deniedDomains: a.example (x.yaml:3)\n";
  std::string line = AuditLog::format(r, "s1");
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\"path\":\"/p\\\"q\""), std::string::npos);
  EXPECT_NE(line.find("\"session\":\"s1\""), std::string::npos);
  EXPECT_NE(line.find("(x.yaml:3)\\n\""), std::string::npos);
}

}  // namespace
}  // namespace halo::broker
