// load_client: the broker benchmark's client and loopback upstreams (C++20, Asio).
//
//   load_client serve                      echo and source servers on 127.0.0.1:0; prints
//                                          "echo PORT" and "source PORT", serves until stdin
//                                          closes
//   load_client latency    TARGET [-n N]   N sequential connect(+CONNECT)+echo round trips;
//                                          p50/p90/p99 in microseconds
//   load_client rate       TARGET [-c C] [-d SECONDS]   C workers looping the same; conns/s
//   load_client throughput TARGET [--bytes B]  one tunnel to the source server; MB/s down
//   load_client idle       TARGET [-n N] [--hold SECONDS]  N tunnels held open; prints
//                                          "ready" once all are up, closes after the hold
// TARGET: --to HOST:PORT (the upstream as named in CONNECT) and optionally
// --proxy IP:PORT (HTTP CONNECT through it; without it the client connects directly,
// HOST must then be an IP). Every mode is bounded in count and time; results are one JSON
// line on stdout.
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using asio::awaitable;
using asio::use_awaitable;

struct Target {
  std::string host;  // as named in CONNECT
  std::uint16_t port = 0;
  std::optional<tcp::endpoint> proxy;
  tcp::endpoint direct() const { return {asio::ip::make_address(host), port}; }
};

tcp::endpoint parse_ep(const std::string& s) {
  auto c = s.rfind(':');
  return {asio::ip::make_address(s.substr(0, c)),
          static_cast<std::uint16_t>(std::stoi(s.substr(c + 1)))};
}

// Opens a connection to the upstream: direct, or through the proxy with CONNECT.
awaitable<tcp::socket> open_tunnel(const Target& t) {
  auto ex = co_await asio::this_coro::executor;
  tcp::socket s(ex);
  tcp::endpoint ep;
  if (t.proxy) ep = *t.proxy;
  else ep = t.direct();
  co_await s.async_connect(ep, use_awaitable);
  s.set_option(tcp::no_delay(true));
  if (t.proxy) {
    std::string req = "CONNECT " + t.host + ":" + std::to_string(t.port) + " HTTP/1.1\r\nHost: " +
                      t.host + ":" + std::to_string(t.port) + "\r\n\r\n";
    co_await asio::async_write(s, asio::buffer(req), use_awaitable);
    std::string head;
    co_await asio::async_read_until(s, asio::dynamic_buffer(head, 16384), "\r\n\r\n", use_awaitable);
    if (head.compare(0, 12, "HTTP/1.1 200") != 0 && head.compare(0, 12, "HTTP/1.0 200") != 0)
      throw std::runtime_error("proxy answered: " + head.substr(0, head.find('\r')));
  }
  co_return s;
}

awaitable<void> round_trip(tcp::socket& s) {
  char ping[8] = {'p', 'i', 'n', 'g', 'p', 'i', 'n', 'g'};
  char pong[8];
  co_await asio::async_write(s, asio::buffer(ping), use_awaitable);
  co_await asio::async_read(s, asio::buffer(pong), use_awaitable);
}

// ---- servers ----------------------------------------------------------------------
awaitable<void> echo_conn(tcp::socket s) {
  char buf[16384];
  s.set_option(tcp::no_delay(true));
  for (;;) {
    auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), asio::as_tuple(use_awaitable));
    if (ec) co_return;
    auto [wec, w] = co_await asio::async_write(s, asio::buffer(buf, n), asio::as_tuple(use_awaitable));
    if (wec) co_return;
  }
}

awaitable<void> source_conn(tcp::socket s) {
  static std::vector<char> block(256 * 1024, 'x');
  std::uint64_t want = 0;
  auto [ec, n] = co_await asio::async_read(s, asio::buffer(&want, 8), asio::as_tuple(use_awaitable));
  if (ec) co_return;
  while (want > 0) {
    std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(want, block.size()));
    auto [wec, w] = co_await asio::async_write(s, asio::buffer(block.data(), k), asio::as_tuple(use_awaitable));
    if (wec) co_return;
    want -= w;
  }
  boost::system::error_code ig;
  s.shutdown(tcp::socket::shutdown_send, ig);
  char sink[64];
  co_await s.async_read_some(asio::buffer(sink), asio::as_tuple(use_awaitable));
}

template <typename F>
awaitable<void> accept_loop(tcp::acceptor& acc, F handler) {
  for (;;) {
    auto [ec, s] = co_await acc.async_accept(asio::as_tuple(use_awaitable));
    if (ec) co_return;
    asio::co_spawn(acc.get_executor(), handler(std::move(s)), asio::detached);
  }
}

int serve() {
  asio::io_context io;
  tcp::acceptor echo(io, {asio::ip::make_address("127.0.0.1"), 0});
  tcp::acceptor source(io, {asio::ip::make_address("127.0.0.1"), 0});
  echo.listen(4096);
  source.listen(4096);
  std::cout << "echo " << echo.local_endpoint().port() << "\nsource "
            << source.local_endpoint().port() << std::endl;
  asio::co_spawn(io, accept_loop(echo, echo_conn), asio::detached);
  asio::co_spawn(io, accept_loop(source, source_conn), asio::detached);
  asio::posix::stream_descriptor in(io, ::dup(0));
  char c;
  in.async_read_some(asio::buffer(&c, 1), [&](auto, auto) { io.stop(); });
  io.run();
  return 0;
}

// ---- client modes -------------------------------------------------------------------
double pct(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

int run_mode(const std::string& mode, const Target& t, std::map<std::string, std::string>& opt) {
  asio::io_context io;
  auto num = [&](const char* k, double d) { return opt.count(k) ? std::stod(opt[k]) : d; };
  std::string result;
  auto report = [](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      std::cerr << "load_client: " << ex.what() << "\n";
    }
  };
  if (mode == "latency") {
    int n = static_cast<int>(num("-n", 2000));
    asio::co_spawn(io, [&]() -> awaitable<void> {
      std::vector<double> us;
      for (int i = 0; i < n; ++i) {
        auto t0 = Clock::now();
        auto s = co_await open_tunnel(t);
        co_await round_trip(s);
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      char buf[200];
      std::snprintf(buf, sizeof buf, "{\"mode\":\"latency\",\"n\":%d,\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f}",
                    n, pct(us, 0.5), pct(us, 0.9), pct(us, 0.99));
      result = buf;
    }, report);
    io.run();
  } else if (mode == "rate") {
    int c = static_cast<int>(num("-c", 50));
    double secs = num("-d", 5);
    auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(secs));
    std::uint64_t done = 0, failed = 0;
    for (int i = 0; i < c; ++i) {
      asio::co_spawn(io, [&]() -> awaitable<void> {
        while (Clock::now() < end) {
          try {
            auto s = co_await open_tunnel(t);
            co_await round_trip(s);
            ++done;
          } catch (const std::exception&) {
            ++failed;
          }
        }
      }, asio::detached);
    }
    auto t0 = Clock::now();
    io.run();
    double el = std::chrono::duration<double>(Clock::now() - t0).count();
    char buf[200];
    std::snprintf(buf, sizeof buf, "{\"mode\":\"rate\",\"concurrency\":%d,\"conns\":%llu,\"failed\":%llu,\"conns_per_s\":%.0f}",
                  c, static_cast<unsigned long long>(done), static_cast<unsigned long long>(failed), done / el);
    result = buf;
  } else if (mode == "throughput") {
    std::uint64_t bytes = static_cast<std::uint64_t>(num("--bytes", 1 << 30));
    asio::co_spawn(io, [&]() -> awaitable<void> {
      auto s = co_await open_tunnel(t);
      std::vector<char> buf(1 << 20);
      auto t0 = Clock::now();
      co_await asio::async_write(s, asio::buffer(&bytes, 8), use_awaitable);
      std::uint64_t got = 0;
      for (;;) {
        auto [ec, n] = co_await s.async_read_some(asio::buffer(buf), asio::as_tuple(use_awaitable));
        got += n;
        if (ec) break;
      }
      double el = std::chrono::duration<double>(Clock::now() - t0).count();
      char out[200];
      std::snprintf(out, sizeof out, "{\"mode\":\"throughput\",\"bytes\":%llu,\"seconds\":%.3f,\"mb_per_s\":%.0f}",
                    static_cast<unsigned long long>(got), el, got / el / 1e6);
      result = out;
    }, report);
    io.run();
  } else if (mode == "idle") {
    int n = static_cast<int>(num("-n", 1000));
    double hold = num("--hold", 10);
    std::vector<tcp::socket> held;
    int failed = 0;
    asio::co_spawn(io, [&]() -> awaitable<void> {
      for (int i = 0; i < n; ++i) {
        try {
          auto s = co_await open_tunnel(t);
          co_await round_trip(s);
          held.push_back(std::move(s));
        } catch (const std::exception&) {
          ++failed;
        }
      }
      std::cout << "ready " << held.size() << std::endl;
      asio::steady_timer timer(co_await asio::this_coro::executor,
                               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(hold)));
      co_await timer.async_wait(use_awaitable);
      char out[160];
      std::snprintf(out, sizeof out, "{\"mode\":\"idle\",\"held\":%zu,\"failed\":%d}", held.size(), failed);
      result = out;
      held.clear();
    }, report);
    io.run();
  } else {
    std::cerr << "load_client: unknown mode " << mode << "\n";
    return 2;
  }
  std::cout << result << std::endl;
  return result.empty() ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: load_client serve | latency|rate|throughput|idle --to HOST:PORT [--proxy IP:PORT] [...]\n";
    return 2;
  }
  std::string mode = argv[1];
  if (mode == "serve") return serve();
  std::map<std::string, std::string> opt;
  for (int i = 2; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  Target t;
  auto to = opt["--to"];
  auto c = to.rfind(':');
  t.host = to.substr(0, c);
  t.port = static_cast<std::uint16_t>(std::stoi(to.substr(c + 1)));
  if (opt.count("--proxy")) t.proxy = parse_ep(opt["--proxy"]);
  try {
    return run_mode(mode, t, opt);
  } catch (const std::exception& e) {
    std::cerr << "load_client: " << e.what() << "\n";
    return 1;
  }
}
