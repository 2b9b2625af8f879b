#pragma once
// AresResolver: the Resolver backed by c-ares, driven by an Asio executor. Included by
// the broker's implementation files only (it pulls in Asio).
//
// Lookups: the hosts file first (default /etc/hosts, read once at creation), then DNS
// through one c-ares channel (servers from /etc/resolv.conf unless `server` is given),
// A and AAAA together with the CNAME chain. Search domains and HOSTALIASES are off: the
// name looked up is exactly the name that was decided.
//
// Threading: every c-ares call runs on the resolver's strand; resolve() may be called
// from any thread. Destroy only after the io_context has stopped running.
#include <chrono>
#include <memory>
#include <string>
#include <system_error>

#include <boost/asio/any_io_executor.hpp>

#include "dns/resolver.h"

namespace halo::dns {

struct AresOptions {
  std::string hosts_file;  // empty: /etc/hosts
  std::string server;      // "IP:PORT" or "[IPv6]:PORT"; empty: from /etc/resolv.conf
  std::chrono::milliseconds attempt_timeout{1500};  // per server try, inside c-ares
  int tries = 2;
};

std::unique_ptr<Resolver> make_ares_resolver(boost::asio::any_io_executor executor,
                                             const AresOptions& options, std::error_code& ec);

}  // namespace halo::dns
