#pragma once
// Upstream over c-ares (ares_send): UDP with TCP fallback on truncation, a deadline per
// try and a number of tries, servers from "IP:PORT" or /etc/resolv.conf. One c-ares
// channel driven by one thread this object owns; send() may be called from any thread.
// Destruction cancels what is pending (each callback gets operation_canceled) and joins.
#include <chrono>
#include <memory>
#include <string>
#include <system_error>

#include "dns/upstream.h"

namespace halo::dns {

class AresUpstream final : public Upstream {
 public:
  // `server`: "IP:PORT" ("[v6]:PORT" for IPv6) or empty for the system's resolv.conf.
  static std::unique_ptr<AresUpstream> create(const std::string& server,
                                              std::chrono::milliseconds timeout, int tries,
                                              std::error_code& ec);
  ~AresUpstream() override;
  void send(std::vector<std::uint8_t> query, Callback done) override;

  struct State;

 private:
  explicit AresUpstream(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace halo::dns
