#include "dns/ares_resolver.h"

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "dns/hosts_file.h"
#include "policy/host.h"

namespace halo::dns {
namespace asio = boost::asio;

const char* to_string(ResolveResult::Status s) {
  switch (s) {
    case ResolveResult::Status::ok: return "ok";
    case ResolveResult::Status::not_found: return "not_found";
    case ResolveResult::Status::timeout: return "timeout";
    case ResolveResult::Status::failure: return "failure";
  }
  return "failure";
}

namespace {

std::string lower_no_dot(const char* s) {
  std::string out(s ? s : "");
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

class AresResolver final : public Resolver {
 public:
  explicit AresResolver(asio::any_io_executor ex) : strand_(asio::make_strand(ex)), timer_(strand_) {}

  std::error_code init(const AresOptions& o) {
    static std::once_flag once;
    std::call_once(once, [] { ares_library_init(ARES_LIB_INIT_ALL); });
    hosts_ = HostsTable::load(o.hosts_file.empty() ? "/etc/hosts" : o.hosts_file);
    ares_options opts{};
    int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_FLAGS | ARES_OPT_LOOKUPS | ARES_OPT_TIMEOUTMS |
               ARES_OPT_TRIES;
    opts.sock_state_cb = &AresResolver::on_sock_state;
    opts.sock_state_cb_data = this;
    opts.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES | ARES_FLAG_STAYOPEN;
    char lookups[] = "b";  // DNS only; the hosts table is consulted before c-ares
    opts.lookups = lookups;
    opts.timeout = static_cast<int>(o.attempt_timeout.count());
    opts.tries = o.tries;
    int rc = ares_init_options(&channel_, &opts, mask);
    if (rc != ARES_SUCCESS) return std::make_error_code(std::errc::io_error);
    if (!o.server.empty()) {
      rc = ares_set_servers_ports_csv(channel_, o.server.c_str());
      if (rc != ARES_SUCCESS) return std::make_error_code(std::errc::invalid_argument);
    }
    return {};
  }

  ~AresResolver() override {
    for (auto& [fd, w] : watches_) {
      w->alive = false;
      if (w->desc) w->desc->release();  // c-ares owns and closes its sockets
    }
    if (channel_) ares_destroy(channel_);  // pending queries complete with ARES_EDESTRUCTION
  }

  void resolve(std::string name, std::chrono::milliseconds deadline, Callback done) override {
    asio::post(strand_, [this, name = std::move(name), deadline, done = std::move(done)]() mutable {
      start(std::move(name), deadline, std::move(done));
    });
  }

 private:
  struct Query {
    explicit Query(asio::any_io_executor ex) : timer(ex) {}
    Callback done;
    asio::steady_timer timer;
    bool finished = false;
  };
  struct Watch {
    std::unique_ptr<asio::posix::stream_descriptor> desc;
    bool want_read = false, want_write = false;
    bool read_pending = false, write_pending = false;
    bool alive = true;
  };

  std::optional<ResolveResult> lookup_local(std::string_view name) const override {
    // RFC 6761: localhost names are loopback, answered here and never sent to DNS.
    if (policy::is_localhost_name(name)) {
      ResolveResult r;
      r.status = ResolveResult::Status::ok;
      r.addresses = {policy::IpAddress::v4(0x7f000001), *policy::IpAddress::parse_strict("::1")};
      r.from_hosts_file = true;
      return r;
    }
    if (const auto* hit = hosts_.find(name)) {  // immutable after init: no lock needed
      ResolveResult r;
      r.status = ResolveResult::Status::ok;
      r.addresses = *hit;
      r.from_hosts_file = true;
      return r;
    }
    return std::nullopt;
  }

  void start(std::string name, std::chrono::milliseconds deadline, Callback done) {
    if (auto local = lookup_local(name)) {
      done(std::move(*local));
      return;
    }
    auto q = std::make_shared<Query>(strand_);
    q->done = std::move(done);
    q->timer.expires_after(deadline);
    q->timer.async_wait([q](const boost::system::error_code& ec) {
      if (ec || q->finished) return;
      ResolveResult r;
      r.status = ResolveResult::Status::timeout;
      r.error = "resolution deadline passed";
      finish(*q, std::move(r));
    });
    ares_addrinfo_hints hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_flags = ARES_AI_NOSORT;
    auto* arg = new std::shared_ptr<Query>(q);
    ares_getaddrinfo(channel_, name.c_str(), nullptr, &hints, &AresResolver::on_addrinfo, arg);
    rearm_timeout();
  }

  static void finish(Query& q, ResolveResult r) {
    if (q.finished) return;
    q.finished = true;
    q.timer.cancel();
    auto done = std::move(q.done);
    done(std::move(r));
  }

  static void on_addrinfo(void* arg, int status, int, ares_addrinfo* ai) {
    std::unique_ptr<std::shared_ptr<Query>> holder(static_cast<std::shared_ptr<Query>*>(arg));
    Query& q = **holder;
    ResolveResult r;
    if (status == ARES_SUCCESS && ai) {
      for (auto* c = ai->cnames; c; c = c->next) {
        std::string target = lower_no_dot(c->name);
        if (!target.empty()) r.cnames.push_back(std::move(target));
      }
      for (auto* n = ai->nodes; n; n = n->ai_next) {
        policy::IpAddress a;
        if (n->ai_family == AF_INET) {
          auto* sin = reinterpret_cast<const sockaddr_in*>(n->ai_addr);
          a.family = policy::IpAddress::Family::v4;
          std::memcpy(a.bytes.data(), &sin->sin_addr, 4);
        } else if (n->ai_family == AF_INET6) {
          auto* sin6 = reinterpret_cast<const sockaddr_in6*>(n->ai_addr);
          a.family = policy::IpAddress::Family::v6;
          std::memcpy(a.bytes.data(), &sin6->sin6_addr, 16);
        } else {
          continue;
        }
        r.addresses.push_back(a);
      }
      r.status = r.addresses.empty() ? ResolveResult::Status::not_found
                                     : ResolveResult::Status::ok;
    } else if (status == ARES_ENOTFOUND || status == ARES_ENODATA || status == ARES_ENONAME) {
      r.status = ResolveResult::Status::not_found;
    } else if (status == ARES_ETIMEOUT) {
      r.status = ResolveResult::Status::timeout;
    } else {
      r.status = ResolveResult::Status::failure;
    }
    if (r.status != ResolveResult::Status::ok) r.error = ares_strerror(status);
    if (ai) ares_freeaddrinfo(ai);
    if (status == ARES_EDESTRUCTION) return;  // resolver going away: nobody to tell
    finish(q, std::move(r));
  }

  // c-ares tells us which sockets it wants watched; we arm one async_wait per interest.
  static void on_sock_state(void* data, ares_socket_t fd, int readable, int writable) {
    auto* self = static_cast<AresResolver*>(data);
    auto it = self->watches_.find(fd);
    if (!readable && !writable) {
      if (it != self->watches_.end()) {
        it->second->alive = false;
        it->second->desc->release();
        self->watches_.erase(it);
      }
      return;
    }
    if (it == self->watches_.end()) {
      auto w = std::make_shared<Watch>();
      w->desc = std::make_unique<asio::posix::stream_descriptor>(self->strand_, fd);
      it = self->watches_.emplace(fd, std::move(w)).first;
    }
    auto w = it->second;
    w->want_read = readable;
    w->want_write = writable;
    self->arm(fd, w);
  }

  void arm(int fd, const std::shared_ptr<Watch>& w) {
    if (w->want_read && !w->read_pending) {
      w->read_pending = true;
      w->desc->async_wait(asio::posix::descriptor_base::wait_read,
                          [this, fd, w](const boost::system::error_code& ec) {
                            w->read_pending = false;
                            if (ec || !w->alive) return;
                            ares_process_fd(channel_, fd, ARES_SOCKET_BAD);
                            if (w->alive) arm(fd, w);
                            rearm_timeout();
                          });
    }
    if (w->want_write && !w->write_pending) {
      w->write_pending = true;
      w->desc->async_wait(asio::posix::descriptor_base::wait_write,
                          [this, fd, w](const boost::system::error_code& ec) {
                            w->write_pending = false;
                            if (ec || !w->alive) return;
                            ares_process_fd(channel_, ARES_SOCKET_BAD, fd);
                            if (w->alive) arm(fd, w);
                            rearm_timeout();
                          });
    }
  }

  // c-ares' own retransmission clock.
  void rearm_timeout() {
    timeval tv{};
    if (!ares_timeout(channel_, nullptr, &tv)) {
      timer_.cancel();
      return;
    }
    timer_.expires_after(std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
      rearm_timeout();
    });
  }

  asio::strand<asio::any_io_executor> strand_;
  asio::steady_timer timer_;
  ares_channel channel_ = nullptr;
  HostsTable hosts_;
  std::unordered_map<int, std::shared_ptr<Watch>> watches_;
};

}  // namespace

std::unique_ptr<Resolver> make_ares_resolver(asio::any_io_executor executor,
                                             const AresOptions& options, std::error_code& ec) {
  auto r = std::make_unique<AresResolver>(std::move(executor));
  ec = r->init(options);
  if (ec) return nullptr;
  return r;
}

}  // namespace halo::dns
