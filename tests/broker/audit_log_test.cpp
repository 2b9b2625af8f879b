#include "broker/upstream.h"
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

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

// A full disk (/dev/full: every write fails with ENOSPC) never throws or stops the
// caller; every lost line is counted, and one error names the path, never the record.
TEST(AuditLog, WriteFailuresAreCountedNotThrown) {
  AuditLog log;
  ASSERT_FALSE(log.open("/dev/full", "s1"));
  ASSERT_TRUE(log.enabled());
  EXPECT_EQ(log.write_failures(), 0u);
  AuditRecord r;
  r.transport = "connect";
  r.host = "record-host.example";
  r.verdict = "allow";
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW({
    for (int i = 0; i < 3; ++i) log.write(r);
  });
  const std::string logged = testing::internal::GetCapturedStdout() +
                             testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.write_failures(), 3u);
  EXPECT_NE(logged.find("/dev/full"), std::string::npos) << logged;
  EXPECT_EQ(logged.find("/dev/full"), logged.rfind("/dev/full")) << "logged more than once";
  EXPECT_EQ(logged.find("record-host.example"), std::string::npos) << logged;
}

TEST(AuditLog, WritesToAFileCountNoFailure) {
  char path[] = "/tmp/halo-audit-test-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    AuditLog log;
    ASSERT_FALSE(log.open(path, "s1"));
    AuditRecord r;
    r.transport = "http";
    log.write(r);
    log.write(r);
    EXPECT_EQ(log.write_failures(), 0u);
  }
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 2);
  ::unlink(path);
}

TEST(AuditLog, DisabledLogNeverFails) {
  AuditLog log;
  ASSERT_FALSE(log.open("", "s1"));
  log.write(AuditRecord{});
  EXPECT_EQ(log.write_failures(), 0u);
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
