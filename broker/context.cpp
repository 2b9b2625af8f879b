#include "broker/context.h"

#include <vector>

namespace halo::broker {

void Context::count_decision(bool allowed, const char* transport, const std::string& host,
                             std::uint16_t port, const std::string& rule) {
  std::lock_guard lock(mu_);
  ++stats_.decisions;
  if (allowed) {
    ++stats_.allowed;
    return;
  }
  ++stats_.denied;
  if (stats_.denials.size() < limits.max_reported_denials) {
    stats_.denials.push_back(BrokerStats::Denial{transport, host, port, rule});
  } else {
    ++stats_.denials_dropped;
  }
}

BrokerStats Context::stats() const {
  BrokerStats s;
  {
    std::lock_guard lock(mu_);
    s = stats_;
  }
  s.losses.audit_write_failures = audit.write_failures();
  s.losses.overload_rejections = overload_rejections.load(std::memory_order_relaxed);
  s.losses.accept_descriptor_failures = descriptor_failures.load(std::memory_order_relaxed);
  return s;
}

std::uint64_t Context::add_session(std::weak_ptr<Abortable> s) {
  std::lock_guard lock(mu_);
  std::uint64_t id = next_session_++;
  sessions_.emplace(id, std::move(s));
  return id;
}

void Context::remove_session(std::uint64_t id) {
  std::lock_guard lock(mu_);
  sessions_.erase(id);
}

void Context::abort_all() {
  std::vector<std::shared_ptr<Abortable>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, w] : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->abort();
}

}  // namespace halo::broker
