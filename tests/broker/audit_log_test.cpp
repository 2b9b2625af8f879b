#include "broker/upstream.h"
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

namespace halo::broker {
namespace {

TEST(MalformedHostLabel, NeverCarriesCredentialsOrRawBytes) {
  struct Row {
    const char* name;
    std::string raw;
    std::string want;
  };
  const Row rows[] = {
      {"userinfo_dropped", "alice:hunter2@evil.example", "(malformed, 26 bytes) evil.example"},
      {"control_bytes", std::string("a\x01\nb", 4), "(malformed, 4 bytes) a??b"},
      {"long_cut", std::string(300, 'x'), "(malformed, 300 bytes) " + std::string(64, 'x')},
      {"spaces", "a b", "(malformed, 3 bytes) a?b"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(malformed_host_label(r.raw), r.want);
  }
}

}  // namespace
}  // namespace halo::broker
