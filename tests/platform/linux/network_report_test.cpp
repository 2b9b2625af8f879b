// How the child's report becomes the network enforcement: an unmasked host daemon
// socket makes network `partial` naming the socket; in-sandbox DNS depends only on
// whether resolv.conf was replaced.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/linux/netns_launcher.h"

namespace halo::platform_linux {
namespace {

struct Row {
  const char* name;
  std::vector<std::string> holes;
  std::vector<std::string> notes;
  bool resolv_conf;
  policy::EnforcementLevel want_level;
  bool want_dns;
};

TEST(NetworkReport, DaemonMaskFailuresAndDnsAreSeparate) {
  const std::string docker = "host daemon socket /var/run/docker.sock stays reachable: Permission denied";
  const Row rows[] = {
      {"all held", {}, {}, true, policy::EnforcementLevel::full, true},
      {"docker socket not masked", {docker}, {}, true, policy::EnforcementLevel::partial, true},
      {"resolv.conf not replaced", {}, {"resolv.conf not replaced"}, false,
       policy::EnforcementLevel::full, false},
      {"both", {docker}, {"resolv.conf not replaced"}, false, policy::EnforcementLevel::partial,
       false},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    ChildReport r;
    r.net_holes = row.holes;
    r.net_notes = row.notes;
    r.resolv_conf = row.resolv_conf;
    launch::Prepared out;
    apply_network_report(r, out);
    EXPECT_EQ(out.enforcement.network.level, row.want_level);
    EXPECT_EQ(out.in_sandbox_dns, row.want_dns);
    EXPECT_EQ(out.enforcement.network.reasons, row.holes);
    EXPECT_EQ(out.warnings, row.notes);
  }
}

}  // namespace
}  // namespace halo::platform_linux
