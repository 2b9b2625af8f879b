#pragma once
// Helpers shared by the DNS filter tests: a policy from YAML text, and query/answer bytes
// built by hand (not with the code under test where the test is about parsing).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dns/message.h"
#include "policy/loader.h"

namespace halo::dns::test {

inline std::shared_ptr<const policy::Policy> policy_from(const std::string& yaml) {
  policy::PresetEnvironment env;
  auto r = policy::load_profile_text("test.yaml", yaml, env);
  if (!r.policy) {
    for (const auto& d : r.diagnostics.items) ADD_FAILURE() << d.to_string();
  }
  return r.policy;
}

// The policy most tests use: two allowed names, one denied subtree, default deny.
inline const char* kTestPolicy = R"(egress:
  default: deny
  allowedDomains: [allowed.test, "*.wild.test", cname-ok.test]
  deniedDomains: [bad.wild.test]
)";

using Bytes = std::vector<std::uint8_t>;

// A query as a stub resolver sends it: RD, one question, an OPT when udp_payload != 0.
inline Bytes query(const std::string& name, std::uint16_t qtype, std::uint16_t id = 0x1234,
                   std::uint16_t udp_payload = 0) {
  auto wire = text_to_wire(name);
  EXPECT_TRUE(wire) << name;
  return build_query(id, wire.value_or(std::string(1, '\0')), qtype, kClassIn, udp_payload);
}

inline ParsedResponse answer_of(const Bytes& msg) {
  auto r = parse_response(msg);
  EXPECT_TRUE(r.response) << to_string(r.error);
  return r.response.value_or(ParsedResponse{});
}

}  // namespace halo::dns::test
