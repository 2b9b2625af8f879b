#pragma once
// The session report `halo run --report FILE` writes on exit: enforcement per dimension
// with reasons, the decisions the broker counted, and the denied destinations. It never
// holds CMD's arguments (they may carry secrets), only argv[0].
//
// "losses" always holds every broker::LossCounters key (0 included), so tools can rely
// on the keys; a non-zero value means something was dropped or failed (never silently).
#include <cstdint>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "sandbox-launch/enforcement.h"
#include "sandbox-launch/launcher.h"

namespace halo::launch {

struct DeniedDestination {
  std::string transport;  // "connect", "http", "socks5", "dns", "forward"
  std::string host;
  std::uint16_t port = 0;
  std::string rule;
};

struct SessionRecord {
  std::string session_id;
  std::string command;  // argv[0]
  Enforcement enforcement;
  policy::EnforcementLevel require = policy::EnforcementLevel::full;
  ExitStatus exit;
  std::uint64_t decisions = 0;
  std::uint64_t allowed = 0;
  std::uint64_t denied = 0;
  std::vector<DeniedDestination> denials;
  std::uint64_t denials_dropped = 0;
  broker::LossCounters losses;  // copied whole from BrokerStats
  std::string broker_error;  // empty when the broker ran until the end
  std::int64_t started_unix_ms = 0;
  std::int64_t duration_ms = 0;
};

// One line per non-zero loss counter ("halo: warning: 3 audit line(s) could not be
// written"), for stderr at the end of a session; empty when nothing was lost.
std::string session_loss_warnings(const broker::LossCounters& losses);

// Pretty JSON text (ends with a newline).
std::string session_report_json(const SessionRecord& r);

// Writes atomically (temporary file, then rename). Returns an empty string or the error.
std::string write_session_report(const std::string& path, const SessionRecord& r);

}  // namespace halo::launch
