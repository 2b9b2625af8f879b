// NetnsLauncher without a broker: the namespaces, the listener hand-off, the filesystem
// policy and the child's lifetime, checked from inside with small shell/python probes.
// Runs as root and (second CTest entry) as an unprivileged user; skips when user
// namespaces are unavailable.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "platform/linux/mount_setup.h"
#include "platform/linux/netns_launcher.h"
#include "platform/linux/socket_masks.h"

namespace halo::platform_linux {
namespace {

namespace fs = std::filesystem;

// `base` /var/tmp keeps a directory outside the sandbox's private /tmp.
std::string make_temp_dir(const char* tag, const char* base = "/tmp") {
  std::string t = std::string(base) + "/halo-" + tag + "-XXXXXX";
  char* p = ::mkdtemp(t.data());
  return p ? std::string(p) : std::string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class NetnsLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = make_temp_dir("ws");
    outside_ = make_temp_dir("outside", "/var/tmp");
    ASSERT_FALSE(work_.empty());
    plan_.cwd = work_;
    plan_.home = outside_;
    plan_.session_id = "test";
    plan_.proxy_port = 3128;
    for (char** e = environ; *e; ++e) plan_.base_env.emplace_back(*e);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(work_, ec);
    fs::remove_all(outside_, ec);
  }

  // Prepares; skips the test (once) when user namespaces are unavailable here.
  bool prepare(launch::Prepared& out) {
    std::string why;
    if (!launcher_.prepare(plan_, out, why)) {
      why_ = why;
      return false;
    }
    return true;
  }

  launch::ExitStatus run_sh(const std::string& script, launch::Prepared* keep = nullptr) {
    plan_.argv = {"/bin/sh", "-c", script};
    launch::Prepared p;
    if (!prepare(p)) return {-1, 0};
    if (keep) *keep = p;
    else close_all(p.listeners);
    return launcher_.run({"HALO_TEST=1"});
  }

  static void close_all(const launch::Listeners& l) {
    if (l.proxy_fd >= 0) ::close(l.proxy_fd);
    for (int fd : l.dns_udp_fds) ::close(fd);
    for (int fd : l.dns_tcp_fds) ::close(fd);
    for (auto& f : l.forwards) ::close(f.second);
  }

  std::string work_, outside_, why_;
  launch::LaunchPlan plan_;
  NetnsLauncher launcher_;
};

#define SKIP_IF_NO_USERNS(st)                                                   \
  if ((st).code == -1) GTEST_SKIP() << "user namespaces unavailable: " << why_;

TEST_F(NetnsLauncherTest, ExitCodePropagates) {
  auto st = run_sh("exit 7");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.code, 7);
  EXPECT_EQ(st.signal, 0);
  EXPECT_EQ(st.shell_code(), 7);
}

TEST_F(NetnsLauncherTest, DeathBySignalIs128PlusN) {
  auto st = run_sh("kill -TERM $$; sleep 5");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.signal, SIGTERM);
  EXPECT_EQ(st.shell_code(), 128 + SIGTERM);
}

TEST_F(NetnsLauncherTest, SignalSentToHaloReachesCommand) {
  plan_.argv = {"/bin/sh", "-c", "trap 'exit 42' USR1; touch ready; sleep 10 & wait"};
  launch::Prepared p;
  if (!prepare(p)) GTEST_SKIP() << "user namespaces unavailable: " << why_;
  close_all(p.listeners);
  const std::string ready = work_ + "/ready";
  std::thread killer([ready] {
    // Once the trap is set (bounded wait), signal halo's stand-in: this process.
    for (int i = 0; i < 200 && !fs::exists(ready); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(::getpid(), SIGUSR1);
  });
  auto st = launcher_.run({});
  killer.join();
  EXPECT_EQ(st.shell_code(), 42);
}

TEST_F(NetnsLauncherTest, EnvironmentAndCwdAreGiven) {
  auto st = run_sh("test \"$HALO_TEST\" = 1 && test \"$(pwd)\" = '" + work_ + "'");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

TEST_F(NetnsLauncherTest, OnlyLoopbackExistsInside) {
  // No route anywhere but lo; ungranted loopback ports are closed; UDP goes nowhere.
  const std::string probe = R"PY(
import socket, os, sys
assert [n for _, n in socket.if_nameindex()] == ['lo'], socket.if_nameindex()
def tcp(host, port):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect((host, port)); return 'open'
    except OSError as e:
        return e.__class__.__name__
r = [tcp('198.51.100.1', 80), tcp('127.0.0.1', 22), tcp('127.0.0.1', 9)]
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b'x', ('198.51.100.1', 53)); r.append('udp-sent')
except OSError as e:
    r.append(e.__class__.__name__)
print(' '.join(r))
sys.exit(0 if r[0] != 'open' and r[1] != 'open' and r[2] != 'open' and r[3] != 'udp-sent' else 1)
)PY";
  std::ofstream(work_ + "/probe.py") << probe;
  auto st = run_sh("/usr/bin/python3 probe.py > probe.out 2>&1");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/probe.out");
}

TEST_F(NetnsLauncherTest, ListenersAreHandedToTheParent) {
  plan_.loopback_grants = {8080};
  plan_.argv = {"/bin/sh", "-c",
                "/usr/bin/python3 -c \"import socket\n"
                "for p in (3128, 8080):\n"
                "  s=socket.create_connection(('127.0.0.1', p), 2); s.sendall(b'hi%d' % p); s.close()\""};
  launch::Prepared p;
  if (!prepare(p)) GTEST_SKIP() << "user namespaces unavailable: " << why_;
  ASSERT_GE(p.listeners.proxy_fd, 0);
  ASSERT_EQ(p.listeners.dns_udp_fds.size(), 1u);
  ASSERT_EQ(p.listeners.dns_tcp_fds.size(), 1u);
  ASSERT_GE(p.listeners.forwards.size(), 1u);
  EXPECT_EQ(p.listeners.forwards[0].first, 8080);
  EXPECT_EQ(p.proxy_address, "127.0.0.1:3128");
  std::string got_proxy, got_grant;
  auto accept_one = [](int lfd, std::string& out) {
    int c = ::accept(lfd, nullptr, nullptr);
    if (c < 0) return;
    char buf[64];
    ssize_t n = ::read(c, buf, sizeof buf);
    if (n > 0) out.assign(buf, static_cast<std::size_t>(n));
    ::close(c);
  };
  std::thread a1(accept_one, p.listeners.proxy_fd, std::ref(got_proxy));
  std::thread a2(accept_one, p.listeners.forwards[0].second, std::ref(got_grant));
  auto st = launcher_.run({});
  a1.join();
  a2.join();
  close_all(p.listeners);
  EXPECT_EQ(st.shell_code(), 0);
  EXPECT_EQ(got_proxy, "hi3128");
  EXPECT_EQ(got_grant, "hi8080");
}

TEST_F(NetnsLauncherTest, WithoutTheBrokerThereIsNoNetwork) {
  // The broker owns the only listeners; when it is gone (here: never started, fds
  // closed) the proxy port refuses, DNS gets no answer and nothing else exists.
  plan_.loopback_grants = {8080};
  const std::string probe = R"PY(
import socket, sys
r = []
for port in (3128, 8080):
    s = socket.socket(); s.settimeout(2)
    r.append(s.connect_ex(('127.0.0.1', port)))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(1)
u.sendto(b'\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01a\x00\x00\x01\x00\x01', ('127.0.0.1', 53))
try:
    u.recvfrom(512); r.append('dns-answered')
except OSError:
    r.append('no-dns')
s = socket.socket(); s.settimeout(2)
r.append(s.connect_ex(('198.51.100.1', 443)))
print(r)
sys.exit(0 if r[0] != 0 and r[1] != 0 and r[2] == 'no-dns' and r[3] != 0 else 1)
)PY";
  std::ofstream(work_ + "/nobroker.py") << probe;
  auto st = run_sh("/usr/bin/python3 nobroker.py > nobroker.out 2>&1");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/nobroker.out");
}

TEST_F(NetnsLauncherTest, ResolvConfNamesTheSessionDns) {
  auto st = run_sh("grep -q '^nameserver 127.0.0.1$' /etc/resolv.conf && "
                   "test \"$(grep -c nameserver /etc/resolv.conf)\" = 1");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

TEST_F(NetnsLauncherTest, WorkspaceWriteHoldsWrites) {
  plan_.fs.mode = policy::SandboxMode::workspace_write;
  plan_.fs.writable = {work_};
  plan_.fs.private_tmp = true;
  auto st = run_sh(
      "set -u; r=''; "
      "echo ok > inside.txt || r=\"$r workspace\"; "
      "echo x > '" + outside_ + "/escape.txt' 2>/dev/null && r=\"$r outside\"; "
      "echo x > /tmp/private.txt || r=\"$r tmp\"; "
      "echo x > /dev/null || r=\"$r devnull\"; "
      "mkdir '" + outside_ + "/d' 2>/dev/null && r=\"$r mkdir\"; "
      "echo \"$r\" > result.txt; test -z \"$r\"");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/result.txt");
  EXPECT_TRUE(fs::exists(work_ + "/inside.txt"));
  EXPECT_FALSE(fs::exists(outside_ + "/escape.txt"));
  EXPECT_FALSE(fs::exists("/tmp/private.txt"));  // the sandbox's /tmp was its own
}

TEST_F(NetnsLauncherTest, ReadOnlyLeavesOnlyPrivateTmp) {
  plan_.fs.mode = policy::SandboxMode::read_only;
  plan_.fs.private_tmp = true;
  auto st = run_sh("echo x > ro.txt 2>/dev/null && exit 1; echo x > /tmp/t && cat /tmp/t >/dev/null");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
  EXPECT_FALSE(fs::exists(work_ + "/ro.txt"));
}

TEST_F(NetnsLauncherTest, ProtectedPathsAreUnreadable) {
  fs::create_directories(outside_ + "/.ssh");
  std::ofstream(outside_ + "/.ssh/id_ed25519") << "SECRET-KEY";
  std::ofstream(work_ + "/.env") << "TOKEN=SECRET";
  plan_.fs.mode = policy::SandboxMode::workspace_write;
  plan_.fs.writable = {work_};
  plan_.fs.private_tmp = true;
  plan_.fs.protected_paths = {outside_ + "/.ssh", work_ + "/.env"};
  auto st = run_sh(
      "r=''; cat '" + outside_ + "/.ssh/id_ed25519' 2>/dev/null && r=\"$r key\"; "
      "ls '" + outside_ + "/.ssh' >/dev/null 2>&1 && r=\"$r ls\"; "
      "cat .env 2>/dev/null && r=\"$r env\"; "
      "chmod 644 .env 2>/dev/null && r=\"$r chmod\"; "
      "echo > .env 2>/dev/null && r=\"$r overwrite\"; "
      "cat /proc/1/root'" + outside_ + "/.ssh/id_ed25519' 2>/dev/null && r=\"$r proc\"; "
      "echo \"$r\" > result.txt; test -z \"$r\"");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/result.txt");
  EXPECT_EQ(slurp(work_ + "/.env"), "TOKEN=SECRET");
}

TEST_F(NetnsLauncherTest, ReportsFilesystemEnforcement) {
  plan_.fs.mode = policy::SandboxMode::workspace_write;
  plan_.fs.writable = {work_};
  plan_.fs.private_tmp = true;
  plan_.argv = {"/bin/true"};
  launch::Prepared p;
  if (!prepare(p)) GTEST_SKIP() << "user namespaces unavailable: " << why_;
  close_all(p.listeners);
  EXPECT_EQ(p.enforcement.network.level, policy::EnforcementLevel::full);
  EXPECT_EQ(p.enforcement.network.mechanism, "linux-netns");
  EXPECT_EQ(p.enforcement.filesystem.level, policy::EnforcementLevel::full)
      << ::testing::PrintToString(p.enforcement.filesystem.reasons);
  EXPECT_EQ(p.enforcement.filesystem.mechanism.rfind("landlock abi ", 0), 0u);
  EXPECT_EQ(launcher_.run({}).shell_code(), 0);
}

TEST_F(NetnsLauncherTest, NoNewPrivsAndNoCapabilities) {
  auto st = run_sh("grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status && "
                   "grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/self/status && "
                   "grep -q '^CapBnd:[[:space:]]*0000000000000000' /proc/self/status");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

TEST_F(NetnsLauncherTest, TerminalInjectionIsRefused) {
  auto st = run_sh(
      "/usr/bin/python3 -c \"import os, fcntl, termios\n"
      "m, s = os.openpty()\n"
      "try:\n"
      "    fcntl.ioctl(s, termios.TIOCSTI, b'x'); raise SystemExit(1)\n"
      "except PermissionError:\n"
      "    raise SystemExit(0)\"");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

TEST_F(NetnsLauncherTest, HostDaemonSocketsAreMasked) {
  const auto sockets = host_daemon_sockets(::getuid());
  if (sockets.empty()) GTEST_SKIP() << "no host daemon sockets on this machine";
  std::string script = "import socket, sys\nbad = []\n";
  for (const auto& s : sockets)
    script += "u = socket.socket(socket.AF_UNIX)\ntry:\n    u.connect('" + s +
              "'); bad.append('" + s + "')\nexcept OSError:\n    pass\n";
  script += "print(bad); sys.exit(1 if bad else 0)\n";
  std::ofstream(work_ + "/daemons.py") << script;
  auto st = run_sh("/usr/bin/python3 daemons.py > daemons.out 2>&1");
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/daemons.out");
}

TEST_F(NetnsLauncherTest, MaskedSocketRefusesConnections) {
  // The mechanism host_daemon_sockets() relies on, with a socket of our own.
  const std::string path = outside_ + "/daemon.sock";
  int srv = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(srv, 4), 0);
  plan_.fs.protected_paths = {path};
  auto st = run_sh("/usr/bin/python3 -c \"import socket\n"
                   "u = socket.socket(socket.AF_UNIX)\n"
                   "raise SystemExit(0 if u.connect_ex('" + path + "') != 0 else 1)\"");
  ::close(srv);
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

// A listening Unix socket at `path`; -1 when it cannot be made here.
int listen_unix(const std::string& path) {
  int srv = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(srv, 4) != 0) {
    ::close(srv);
    return -1;
  }
  return srv;
}

std::string connect_script(const std::vector<std::string>& paths) {
  std::string py = "import socket\nbad = []\n";
  for (const auto& p : paths)
    py += "u = socket.socket(socket.AF_UNIX)\nif u.connect_ex('" + p + "') == 0: bad.append('" +
          p + "')\n";
  py += "print(bad)\nraise SystemExit(1 if bad else 0)\n";
  return py;
}

TEST_F(NetnsLauncherTest, UnknownSocketsUnderRunAreMasked) {
  // Any daemon socket under /run (e.g. systemd --user's private socket, screen's), not
  // only the known list, is found by the walk and masked.
  std::string dir = make_temp_dir("sock", "/run");
  if (dir.empty()) GTEST_SKIP() << "cannot create a directory under /run as this user";
  ASSERT_EQ(::mkdir((dir + "/a").c_str(), 0755), 0);
  const std::vector<std::string> paths = {dir + "/top.sock", dir + "/a/nested.sock"};
  std::vector<int> fds;
  for (const auto& p : paths) fds.push_back(listen_unix(p));
  std::ofstream(work_ + "/c.py") << connect_script(paths);
  auto st = run_sh("/usr/bin/python3 c.py > c.out 2>&1");
  for (int fd : fds) ::close(fd);
  std::error_code ec;
  fs::remove_all(dir, ec);
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0) << slurp(work_ + "/c.out");
}

TEST_F(NetnsLauncherTest, RunUserDirectoryIsMaskedWhole) {
  const std::string user_dir = "/run/user/" + std::to_string(::getuid());
  bool created = false;
  if (::mkdir("/run/user", 0755) == 0) created = true;
  if (::mkdir(user_dir.c_str(), 0700) == 0) created = true;
  const std::string file = user_dir + "/halo-test-" + std::to_string(::getpid());
  if (!std::ofstream(file)) GTEST_SKIP() << "cannot write under " << user_dir;
  auto st = run_sh("test ! -e '" + file + "'");
  ::unlink(file.c_str());
  if (created) {
    ::rmdir(user_dir.c_str());
    ::rmdir("/run/user");
  }
  SKIP_IF_NO_USERNS(st);
  EXPECT_EQ(st.shell_code(), 0);
}

TEST(SocketWalk, FindsSocketsWithinItsBounds) {
  std::string dir = make_temp_dir("walk", "/var/tmp");
  ASSERT_FALSE(dir.empty());
  std::string deep = dir;
  for (int i = 0; i < 3; ++i) {
    deep += "/d";
    ASSERT_EQ(::mkdir(deep.c_str(), 0755), 0);
  }
  const int a = listen_unix(dir + "/a.sock");
  const int b = listen_unix(dir + "/d/b.sock");
  const int c = listen_unix(deep + "/c.sock");  // depth 3: beyond a bound of 3
  ASSERT_EQ(::symlink((dir + "/a.sock").c_str(), (dir + "/link.sock").c_str()), 0);
  struct Row {
    const char* name;
    int depth;
    std::size_t want_sockets;
    bool want_incomplete;
  };
  const Row rows[] = {{"all within bound", 6, 3, false}, {"depth bound", 3, 2, true}};
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto w = find_sockets({dir, dir}, row.depth);  // a root given twice is walked once
    EXPECT_EQ(w.sockets.size(), row.want_sockets);
    EXPECT_EQ(!w.incomplete.empty(), row.want_incomplete);
  }
  for (int fd : {a, b, c}) ::close(fd);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_F(NetnsLauncherTest, AbandonRunsNothing) {
  plan_.argv = {"/bin/sh", "-c", "touch ran.txt"};
  launch::Prepared p;
  if (!prepare(p)) GTEST_SKIP() << "user namespaces unavailable: " << why_;
  close_all(p.listeners);
  launcher_.abandon();
  EXPECT_FALSE(fs::exists(work_ + "/ran.txt"));
}

}  // namespace
}  // namespace halo::platform_linux
