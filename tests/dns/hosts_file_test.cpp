#include <gtest/gtest.h>

#include "dns/hosts_file.h"

namespace halo::dns {
namespace {

TEST(HostsTable, Rows) {
  auto t = HostsTable::parse(
      "# comment\n127.0.0.1 localhost Local.Test.\n::1 localhost ip6-localhost\n"
      "10.0.0.5\tprivate.test # trailing\nfe80::1%eth0 scoped.test\nnot-an-ip bad.test\n"
      "198.51.100.7 doc.test\n198.51.100.7 doc.test\n");
  struct Row {
    const char* name;
    const char* lookup;
    std::size_t count;
    const char* first;
  };
  const Row rows[] = {
      {"both families", "localhost", 2, "127.0.0.1"},
      {"alias lower case, dot dropped", "local.test", 1, "127.0.0.1"},
      {"tab separated, comment", "private.test", 1, "10.0.0.5"},
      {"zone id skipped", "scoped.test", 0, ""},
      {"bad address skipped", "bad.test", 0, ""},
      {"duplicate line kept once", "doc.test", 1, "198.51.100.7"},
      {"unknown", "nothing.test", 0, ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto* hit = t.find(row.lookup);
    if (row.count == 0) {
      EXPECT_EQ(hit, nullptr);
      continue;
    }
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(hit->size(), row.count);
    EXPECT_EQ(hit->front().to_string(), row.first);
  }
}

}  // namespace
}  // namespace halo::dns
