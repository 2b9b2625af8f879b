// DnsFilter over real loopback sockets (127.0.0.1, port 0) with a fake upstream: UDP and
// TCP framing, truncation, oversized frames, garbage, rate limit, and that a denied name
// never reaches the upstream.
#include "dns/dns_filter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "dns_test_util.h"

namespace halo::dns {
namespace {

using test::Bytes;

// Answers every query with `txt_records` TXT records of 200 octets each; remembers names.
class FakeUpstream : public Upstream {
 public:
  void send(std::vector<std::uint8_t> query, Callback done) override {
    const auto q = parse_query(query);
    ResponseSpec spec;
    spec.query_header = q.query->header;
    spec.question = q.query->question;
    for (int i = 0; i < txt_records; ++i) {
      Record r{q.query->question.wire_name, rrtype::TXT, kClassIn, 60, {200}, {}};
      r.rdata.insert(r.rdata.end(), 200, 'x');
      spec.answers.push_back(std::move(r));
    }
    {
      std::lock_guard lock(mu);
      names.push_back(q.query->question.name);
    }
    done({}, build_response(spec, 65535));
  }
  int txt_records = 1;
  std::mutex mu;
  std::vector<std::string> names;
};

// Holds every query unanswered until release() (an upstream that hangs).
class HangingUpstream : public Upstream {
 public:
  void send(std::vector<std::uint8_t>, Callback done) override {
    std::lock_guard lock(mu);
    held.push_back(std::move(done));
  }
  void release() {
    std::vector<Callback> out;
    {
      std::lock_guard lock(mu);
      out.swap(held);
    }
    for (auto& cb : out) cb(std::make_error_code(std::errc::timed_out), {});
  }
  std::size_t count() {
    std::lock_guard lock(mu);
    return held.size();
  }
  std::mutex mu;
  std::vector<Callback> held;
};

class FilterTest : public ::testing::Test {
 protected:
  void start(FilterLimits limits = {}, std::shared_ptr<Upstream> up = nullptr) {
    DnsFilterOptions o;
    o.policy = test::policy_from(test::kTestPolicy);
    o.upstream = up ? up : upstream;
    o.pool = pool;
    o.limits = limits;
    o.audit = [this](const DnsAuditEvent& e) {
      std::lock_guard lock(mu);
      events.push_back(e);
    };
    std::error_code ec;
    filter = DnsFilter::create(std::move(o), ec);
    ASSERT_TRUE(filter) << ec.message();
    ASSERT_FALSE(filter->listen("127.0.0.1:0"));
    filter->start();
    addr.sin_family = AF_INET;
    addr.sin_port = htons(*filter->bound_port());
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }

  // The filter audits after it answers, on its own thread: stop it before the members
  // its audit callback writes into go away.
  void TearDown() override {
    if (filter) filter->stop();
  }

  // Waits (bounded) until `n` audit events arrived; returns how many there are.
  std::size_t wait_events(std::size_t n) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(mu);
        if (events.size() >= n) return events.size();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard lock(mu);
    return events.size();
  }

  static void set_timeout(int fd) {
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }

  // One UDP exchange; empty when nothing came back within 2 s (or `wait` false).
  Bytes udp(const Bytes& msg, bool wait = true) {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    set_timeout(fd);
    sendto(fd, msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    Bytes out(65535);
    const ssize_t n = wait ? recv(fd, out.data(), out.size(), 0) : -1;
    close(fd);
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
  }

  int tcp_connect() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    set_timeout(fd);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return fd;
  }

  static void tcp_send(int fd, const Bytes& msg) {
    Bytes framed = {static_cast<std::uint8_t>(msg.size() >> 8), static_cast<std::uint8_t>(msg.size())};
    framed.insert(framed.end(), msg.begin(), msg.end());
    ASSERT_EQ(write(fd, framed.data(), framed.size()), static_cast<ssize_t>(framed.size()));
  }

  static bool read_full(int fd, std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      const ssize_t r = read(fd, p, n);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  }

  // Reads one framed answer; empty when the connection closed.
  static Bytes tcp_read(int fd) {
    std::uint8_t prefix[2];
    if (!read_full(fd, prefix, 2)) return {};
    Bytes out((prefix[0] << 8) | prefix[1]);
    if (!read_full(fd, out.data(), out.size())) return {};
    return out;
  }

  std::shared_ptr<FakeUpstream> upstream = std::make_shared<FakeUpstream>();
  std::shared_ptr<SessionAddressPool> pool;  // null: the filter makes its own
  std::unique_ptr<DnsFilter> filter;
  sockaddr_in addr{};
  std::mutex mu;
  std::vector<DnsAuditEvent> events;
};

TEST_F(FilterTest, UdpAllowedSyntheticDeniedNxdomainNeverUpstream) {
  start();
  const auto ok = test::answer_of(udp(test::query("allowed.test", rrtype::A, 1)));
  ASSERT_EQ(ok.answers.size(), 1u);
  EXPECT_EQ(ok.answers[0].rdata, (Bytes{198, 18, 0, 1}));
  const auto no = test::answer_of(udp(test::query("secret-data.attacker.example", rrtype::TXT, 2)));
  EXPECT_EQ(no.header.rcode(), 3);
  const auto txt = test::answer_of(udp(test::query("allowed.test", rrtype::TXT, 3)));
  EXPECT_EQ(txt.answers.size(), 1u);
  {
    std::lock_guard lock(upstream->mu);
    EXPECT_EQ(upstream->names, std::vector<std::string>{"allowed.test"});
  }
  ASSERT_EQ(wait_events(3), 3u);
  std::lock_guard lock(mu);
  EXPECT_EQ(events[1].name, "secret-data.attacker.example");
  EXPECT_EQ(events[1].verdict, policy::Verdict::deny);
  EXPECT_EQ(events[1].rule, "default: deny");
  EXPECT_EQ(events[1].protocol, "udp");
  EXPECT_TRUE(events[2].forwarded);
}

TEST_F(FilterTest, TcpPipelinedQueriesInOrder) {
  start();
  const int fd = tcp_connect();
  tcp_send(fd, test::query("allowed.test", rrtype::AAAA, 10));
  tcp_send(fd, test::query("bad.wild.test", rrtype::A, 11));
  tcp_send(fd, test::query("allowed.test", rrtype::TXT, 12));
  const auto a = test::answer_of(tcp_read(fd));
  const auto b = test::answer_of(tcp_read(fd));
  const auto c = test::answer_of(tcp_read(fd));
  close(fd);
  EXPECT_EQ(a.header.id, 10);
  EXPECT_EQ(a.answers.size(), 1u);
  EXPECT_EQ(b.header.id, 11);
  EXPECT_EQ(b.header.rcode(), 3);
  EXPECT_EQ(c.header.id, 12);
  EXPECT_EQ(c.answers.size(), 1u);
}

TEST_F(FilterTest, BigAnswerTruncatedOverUdpWholeOverTcp) {
  upstream->txt_records = 10;  // ~2 KB
  start();
  const auto small = test::answer_of(udp(test::query("allowed.test", rrtype::TXT, 1)));
  EXPECT_TRUE(small.header.tc());
  EXPECT_TRUE(small.answers.empty());
  const auto edns = test::answer_of(udp(test::query("allowed.test", rrtype::TXT, 1, 4096)));
  EXPECT_TRUE(edns.header.tc());  // 1232 cap
  const int fd = tcp_connect();
  tcp_send(fd, test::query("allowed.test", rrtype::TXT, 2));
  const auto whole = test::answer_of(tcp_read(fd));
  close(fd);
  EXPECT_FALSE(whole.header.tc());
  EXPECT_EQ(whole.answers.size(), 10u);
}

TEST_F(FilterTest, OversizedTcpFrameClosesTheConnection) {
  start();
  const int fd = tcp_connect();
  const std::uint8_t prefix[2] = {0xff, 0xff};
  ASSERT_EQ(write(fd, prefix, 2), 2);
  std::uint8_t b;
  EXPECT_EQ(read(fd, &b, 1), 0);  // closed without an answer
  close(fd);
}

TEST_F(FilterTest, GarbageNeverStopsTheFilter) {
  start();
  std::uint32_t seed = 12345;
  for (int i = 0; i < 300; ++i) {
    Bytes junk(seed % 600);
    for (auto& x : junk) {
      seed = seed * 1103515245 + 12345;
      x = static_cast<std::uint8_t>(seed >> 16);
    }
    udp(junk, false);
  }
  const int fd = tcp_connect();
  tcp_send(fd, Bytes{1, 2, 3});  // shorter than a header: connection closed
  EXPECT_TRUE(tcp_read(fd).empty());
  close(fd);
  // The junk may still fill the socket's receive buffer on a loaded machine; a real
  // client retries, so does this one (a bounded number of times).
  Bytes reply;
  for (int attempt = 0; attempt < 5 && reply.empty(); ++attempt)
    reply = udp(test::query("allowed.test", rrtype::A, 1));
  const auto ok = test::answer_of(reply);
  EXPECT_EQ(ok.answers.size(), 1u);
  std::lock_guard lock(upstream->mu);
  EXPECT_TRUE(upstream->names.empty());
}

TEST_F(FilterTest, RateLimitDropsOverTheBucket) {
  FilterLimits limits;
  limits.max_queries_per_second = 1;
  limits.query_burst = 2;
  start(limits);
  int answered = 0;
  for (int i = 0; i < 5; ++i) {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    timeval tv{0, 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const Bytes q = test::query("allowed.test", rrtype::A, static_cast<std::uint16_t>(i));
    sendto(fd, q.data(), q.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    std::uint8_t buf[512];
    if (recv(fd, buf, sizeof buf, 0) > 0) ++answered;
    close(fd);
  }
  EXPECT_GE(answered, 2);
  EXPECT_LE(answered, 3);
  EXPECT_GE(filter->stats().rate_limited, 2u);
}

TEST_F(FilterTest, UpstreamInFlightCapAnswersServfailAndKeepsServing) {
  FilterLimits limits;
  limits.max_upstream_in_flight = 2;
  auto hanging = std::make_shared<HangingUpstream>();
  start(limits, hanging);
  udp(test::query("allowed.test", rrtype::TXT, 1), false);
  udp(test::query("allowed.test", rrtype::TXT, 2), false);
  for (int i = 0; i < 100 && hanging->count() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(hanging->count(), 2u);
  const auto busy = test::answer_of(udp(test::query("allowed.test", rrtype::MX, 3)));
  EXPECT_EQ(busy.header.rcode(), static_cast<std::uint8_t>(Rcode::servfail));
  const auto a = test::answer_of(udp(test::query("allowed.test", rrtype::A, 4)));
  EXPECT_EQ(a.answers.size(), 1u);  // synthesized answers never wait on the upstream
  EXPECT_EQ(filter->stats().upstream_busy, 1u);
  hanging->release();  // the two held forwards end with SERVFAIL
  wait_events(4);
}

TEST_F(FilterTest, TcpConnectionCapAndIdleDeadline) {
  FilterLimits limits;
  limits.max_tcp_connections = 1;
  limits.tcp_idle_timeout = std::chrono::milliseconds(300);
  start(limits);
  const int first = tcp_connect();
  tcp_send(first, test::query("allowed.test", rrtype::A, 1));
  EXPECT_FALSE(tcp_read(first).empty());
  const int second = tcp_connect();  // over the cap: accepted and closed
  std::uint8_t b;
  EXPECT_LE(read(second, &b, 1), 0);
  close(second);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(read(first, &b, 1), 0);  // idle: the filter closes it
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  close(first);
  EXPECT_EQ(filter->stats().tcp_refused, 1u);
}

TEST(ParseAddrPort, Forms) {
  EXPECT_EQ(parse_addr_port("127.0.0.1:53")->port, 53);
  EXPECT_EQ(parse_addr_port("[::1]:5353")->address, "::1");
  EXPECT_FALSE(parse_addr_port("::1:53"));
  EXPECT_FALSE(parse_addr_port("127.0.0.1"));
  EXPECT_FALSE(parse_addr_port("127.0.0.1:65536"));
  EXPECT_FALSE(parse_addr_port(":53"));
}

// Every drop the filter makes is counted in stats() (the broker folds these into
// BrokerStats::losses): oversize and headerless datagrams, and the pool-full SERVFAIL.
TEST_F(FilterTest, DropsAndPoolFullAreCounted) {
  pool = std::make_shared<SessionAddressPool>(1);
  start();
  const auto first = test::answer_of(udp(test::query("allowed.test", rrtype::A, 1)));
  EXPECT_EQ(first.answers.size(), 1u);
  const auto full = test::answer_of(udp(test::query("x.wild.test", rrtype::A, 2)));
  EXPECT_EQ(full.header.rcode(), static_cast<std::uint8_t>(Rcode::servfail));
  udp(Bytes(5000, 0), false);    // over max_udp_query: dropped unread
  udp(Bytes{1, 2, 3}, false);    // shorter than a header: dropped
  const auto after = test::answer_of(udp(test::query("allowed.test", rrtype::AAAA, 3)));
  EXPECT_EQ(after.answers.size(), 1u);  // serving goes on; the filter handles in order
  const DnsFilterStats s = filter->stats();
  EXPECT_EQ(s.pool_full, 1u);
  EXPECT_EQ(s.dropped, 2u);
  EXPECT_EQ(s.rate_limited, 0u);
  EXPECT_EQ(s.accept_failed, 0u);
}

}  // namespace
}  // namespace halo::dns
