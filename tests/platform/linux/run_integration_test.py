#!/usr/bin/python3
"""End-to-end tests of `halo run` on Linux with real clients (curl, dig, getent, python).

Hermetic: the upstream is an HTTP server on the host's 127.0.0.1 (ephemeral port), reached
by names from a hosts file given to the broker (--resolver-hosts); nothing leaves the
machine. Every subprocess has a timeout; every server is shut down by the test.

Usage: run_integration_test.py HALO_BINARY   (exit 77 = skipped: no user namespaces)
"""
import http.server
import json
import os
import pty
import select
import shutil
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HALO = None
TIMEOUT = 30



def inherited_sigign():
    """What CMD should find ignored: what this test process inherited ignored (make, for
    one, starts recipes with signals 32 and 33 ignored), less SIGPIPE and SIGXFSZ, which
    Python ignores for itself and subprocess gives back to children."""
    mask = sigign_of(open("/proc/self/status").read())
    return mask & ~(1 << (signal.SIGPIPE - 1)) & ~(1 << (signal.SIGXFSZ - 1))


def sigign_of(status_text):
    m = re.search(r"SigIgn:\s+([0-9a-f]+)", status_text)
    return int(m.group(1), 16) if m else -1

class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("hello from upstream %d\n" % self.server.server_port).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv


class HaloRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.granted = serve()   # reached through the loopback grant
        cls.hidden = serve()    # a host loopback service the sandbox must not see
        cls.gport = cls.granted.server_port
        cls.hport = cls.hidden.server_port
        cls.root = tempfile.mkdtemp(prefix="halo-run-it-", dir="/var/tmp")
        os.chmod(cls.root, 0o755)
        cls.home = os.path.join(cls.root, "home")
        cls.ws = os.path.join(cls.root, "ws")
        cls.outside = os.path.join(cls.root, "outside")
        for d in (cls.home, cls.ws, cls.outside, os.path.join(cls.home, ".ssh")):
            os.makedirs(d)
        with open(os.path.join(cls.home, ".ssh", "id_ed25519"), "w") as f:
            f.write("SECRET-KEY\n")
        with open(os.path.join(cls.ws, ".env"), "w") as f:
            f.write("TOKEN=SECRET\n")
        cls.hosts = os.path.join(cls.root, "hosts")
        with open(cls.hosts, "w") as f:
            f.write("127.0.0.1 allowed.test\n127.0.0.1 denied.test\n127.0.0.1 other.test\n")
        cls.profile = os.path.join(cls.root, "strict.yaml")
        with open(cls.profile, "w") as f:
            f.write(
                "sandbox:\n  mode: workspace-write\n"
                "  protectedPaths: ['~/.ssh', '.env*']\n"
                "egress:\n  default: deny\n  allowedDomains: [allowed.test]\n"
                "  deniedDomains: [denied.test]\n  loopback: [%d]\n"
                "enforcement:\n  require: full\n" % cls.gport)
        cls.partial = os.path.join(cls.root, "partial.yaml")
        with open(cls.partial, "w") as f:
            f.write("egress:\n  allowedDomains: [allowed.test]\n  loopback: [%d]\n"
                    "enforcement:\n  require: partial\n" % cls.gport)

    @classmethod
    def tearDownClass(cls):
        for srv in (cls.granted, cls.hidden):
            srv.shutdown()
            srv.server_close()
        shutil.rmtree(cls.root, ignore_errors=True)

    def halo(self, script, profile=None, extra=(), timeout=TIMEOUT):
        env = dict(os.environ, HOME=self.home)
        for k in list(env):
            if k.lower().endswith("_proxy"):
                del env[k]
        cmd = [HALO, "run", "--profile", profile or self.profile,
               "--resolver-hosts", self.hosts, *extra, "--", "/bin/bash", "-c", script]
        return subprocess.run(cmd, cwd=self.ws, env=env, capture_output=True, text=True,
                              timeout=timeout)

    def ok(self, r):
        self.assertEqual(r.returncode, 0, "stdout:\n%s\nstderr:\n%s" % (r.stdout, r.stderr))

    # --- network ---------------------------------------------------------------------
    def test_allowed_name_through_proxy(self):
        r = self.halo("curl -sS --max-time 10 http://allowed.test:%d/" % self.gport)
        self.ok(r)
        self.assertIn("hello from upstream %d" % self.gport, r.stdout)

    def test_allowed_name_through_socks5h(self):
        r = self.halo("curl -sS --max-time 10 -x \"$ALL_PROXY\" http://allowed.test:%d/" % self.gport)
        self.ok(r)
        self.assertIn("hello from upstream", r.stdout)

    def test_denied_name_gets_403_with_rule(self):
        r = self.halo("curl -sS --max-time 10 -o /dev/null -D - http://denied.test:%d/" % self.gport)
        self.ok(r)
        self.assertIn(" 403", r.stdout.splitlines()[0])
        self.assertIn("denied.test", r.stdout)
        self.assertRegex(r.stdout.lower(), r"x-halo-decision:.*denieddomains")

    def test_unlisted_name_denied_by_default(self):
        r = self.halo("curl -sS --max-time 10 -o /dev/null -w '%%{http_code}' http://other.test:%d/"
                      % self.gport)
        self.ok(r)
        self.assertEqual(r.stdout.strip(), "403")

    def test_client_ignoring_proxy_reaches_nothing(self):
        probe = (
            "import socket\n"
            "def tcp(h, p):\n"
            "    s = socket.socket(socket.AF_INET6 if ':' in h else socket.AF_INET); s.settimeout(3)\n"
            "    try:\n"
            "        s.connect((h, p)); return 'OPEN'\n"
            "    except OSError as e:\n"
            "        return type(e).__name__\n"
            "print(tcp('198.51.100.1', 80), tcp('198.51.100.1', 443), tcp('127.0.0.1', %d),"
            " tcp('127.0.0.1', 22), tcp('::1', %d), tcp('198.18.0.1', 80))\n" % (self.hport, self.hport))
        r = self.halo("/usr/bin/python3 - <<'EOF'\n%sEOF" % probe)
        self.ok(r)
        self.assertNotIn("OPEN", r.stdout, r.stdout)

    def test_granted_loopback_port_direct_and_via_proxy(self):
        r = self.halo("curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:%d/ && "
                      "curl -sS --max-time 10 http://127.0.0.1:%d/ && "
                      "curl -sS --max-time 10 http://localhost:%d/" % ((self.gport,) * 3))
        self.ok(r)
        self.assertEqual(r.stdout.count("hello from upstream %d" % self.gport), 3, r.stdout)

    def test_ungranted_host_loopback_port_not_even_via_proxy(self):
        r = self.halo("curl -sS --max-time 10 -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/"
                      % self.hport)
        self.ok(r)
        self.assertEqual(r.stdout.strip(), "403")

    def test_dns_denied_name_fails_and_session_dns_answers(self):
        r = self.halo("getent hosts denied.test; echo getent-denied=$?; "
                      "dig +time=3 +tries=1 allowed.test A; "
                      "dig +time=3 +tries=1 denied.test A")
        self.assertIn("getent-denied=2", r.stdout, r.stdout + r.stderr)
        self.assertIn("SERVER: 127.0.0.1#53", r.stdout)
        answers = r.stdout.split("<<>> DiG")
        self.assertEqual(len(answers), 3, r.stdout)
        self.assertIn("status: NOERROR", answers[1])
        self.assertRegex(answers[1], r"allowed\.test\.\s+\d+\s+IN\s+A\s+198\.1[89]\.")
        self.assertIn("status: NXDOMAIN", answers[2])

    def test_udp_goes_nowhere_but_session_dns(self):
        probe = (
            "import socket\n"
            "out = []\n"
            "for host, port in (('198.51.100.1', 53), ('127.0.0.1', 5353), ('127.0.0.1', 123)):\n"
            "    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(1)\n"
            "    try:\n"
            "        u.sendto(b'\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01', (host, port))\n"
            "        u.recvfrom(512); out.append('ANSWERED')\n"
            "    except OSError as e:\n"
            "        out.append(type(e).__name__)\n"
            "print(out)\n")
        r = self.halo("/usr/bin/python3 - <<'EOF'\n%sEOF" % probe)
        self.ok(r)
        self.assertNotIn("ANSWERED", r.stdout)

    def test_background_grandchild_is_held(self):
        r = self.halo(
            "(sleep 1; curl -sS --max-time 10 http://allowed.test:%d/ > bg-allowed.out; "
            " curl -sS --max-time 10 -o /dev/null -w '%%{http_code}' http://denied.test:%d/ > bg-denied.out; "
            " /usr/bin/python3 -c \"import socket; s=socket.socket(); s.settimeout(3); "
            "print(s.connect_ex(('198.51.100.1', 80)))\" > bg-direct.out) & wait"
            % (self.gport, self.gport))
        self.ok(r)
        def read(name):
            with open(os.path.join(self.ws, name)) as f:
                return f.read().strip()
        self.assertIn("hello from upstream", read("bg-allowed.out"))
        self.assertEqual(read("bg-denied.out"), "403")
        self.assertNotEqual(read("bg-direct.out"), "0")

    # --- filesystem ------------------------------------------------------------------
    def test_filesystem_policy(self):
        r = self.halo(
            "r=''; echo ok > inside.out || r=\"$r workspace\"; "
            "echo x > %s/escape 2>/dev/null && r=\"$r outside\"; "
            "echo x > $HOME/escape 2>/dev/null && r=\"$r home\"; "
            "cat ~/.ssh/id_ed25519 2>/dev/null && r=\"$r ssh\"; "
            "cat .env 2>/dev/null && r=\"$r dotenv\"; "
            "echo x > /tmp/t && test -f /tmp/t || r=\"$r tmp\"; "
            "sudo -n true 2>/dev/null && r=\"$r sudo\"; "
            "echo \"[$r]\"" % self.outside)
        self.ok(r)
        self.assertIn("[]", r.stdout, r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.outside, "escape")))
        self.assertTrue(os.path.exists(os.path.join(self.ws, "inside.out")))

    # --- lifetime, exit codes, enforcement --------------------------------------------
    def test_exit_status_propagates(self):
        self.assertEqual(self.halo("exit 42").returncode, 42)
        self.assertEqual(self.halo("kill -KILL $$").returncode, 128 + 9)

    def test_signal_to_halo_is_forwarded(self):
        env = dict(os.environ, HOME=self.home)
        ready = os.path.join(self.ws, "trap-ready")
        if os.path.exists(ready):
            os.unlink(ready)
        p = subprocess.Popen([HALO, "run", "--profile", self.profile, "--", "/bin/bash", "-c",
                              "trap 'exit 77' TERM; touch trap-ready; sleep 20 & wait"],
                             cwd=self.ws, env=env, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 10
            while not os.path.exists(ready) and time.time() < deadline:
                time.sleep(0.05)
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(timeout=10), 77)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()

    def on_terminal(self, argv, steps):
        """Runs argv on a new pseudo-terminal. Each step is (text to wait for, bytes to
        type then); returns (output, exit status). Bounded: each wait 15 s, the exit 20 s,
        then the child is killed."""
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(self.ws)
            os.environ["HOME"] = self.home
            os.execv(argv[0], argv)
        out = b""

        seen = 0  # each wait looks only at output after the previous match

        def pump_until(text, seconds):
            nonlocal out, seen
            end = time.time() + seconds
            while time.time() < end:
                at = out.find(text.encode(), seen) if text is not None else -1
                if at >= 0:
                    seen = at + len(text)
                    return True
                r, _, _ = select.select([fd], [], [], 0.05)
                if r:
                    try:
                        out += os.read(fd, 4096)
                    except OSError:
                        return False
            return False
        try:
            for wait_for, data in steps:
                if not pump_until(wait_for, 15):
                    break
                os.write(fd, data)
            deadline = time.time() + 20
            while time.time() < deadline:
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    return out.decode(errors="replace"), os.waitstatus_to_exitcode(st)
                pump_until(None, 0.1)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self.fail("still running on the terminal:\n" + out.decode(errors="replace"))
        finally:
            os.close(fd)

    def test_interactive_shell_keeps_the_terminal(self):
        out, status = self.on_terminal(
            [HALO, "run", "--profile", self.profile, "--", "/bin/bash", "--norc", "-i"],
            [("bash-", b"tty; sleep 5 & jobs; kill %1; echo done-$((6*7))\n"),
             ("done-42", b"sh -c 'echo cat-$((1+1)); exec cat'\n"),
             ("cat-2", b"\x03"),  # the foreground job (sh, then cat) dies of it, not bash
             ("bash-", b"exit 5\n")])
        self.assertEqual(status, 5, out)
        self.assertIn("/dev/pts/", out)
        self.assertNotIn("no job control", out)

    def test_ctrl_c_reaches_the_command_once(self):
        out, status = self.on_terminal(
            [HALO, "run", "--profile", self.profile, "--", "/bin/sh", "-c",
             "echo ready-$((2*3)); exec /bin/sleep 30"],
            [("ready-6", b"\x03")])
        self.assertEqual(status, 128 + signal.SIGINT, out)

    def test_ignored_signals_stay_ignored_like_nohup(self):
        env = dict(os.environ, HOME=self.home)
        r = subprocess.run([HALO, "run", "--profile", self.profile, "--", "/bin/sh", "-c",
                            "grep SigIgn /proc/self/status"], cwd=self.ws, env=env,
                           capture_output=True, text=True, timeout=TIMEOUT,
                           preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        self.ok(r)
        # SIGHUP (bit 0) plus whatever this test itself inherited ignored.
        self.assertEqual(sigign_of(r.stdout), inherited_sigign() | 1, r.stdout)

    def test_enforcement_line_and_environment(self):
        r = self.halo("echo \"$HALO_ENFORCEMENT $HALO_SESSION $HTTPS_PROXY $ALL_PROXY [$NO_PROXY]\"; "
                      "grep -E 'SigBlk|SigIgn' /proc/self/status")
        self.ok(r)
        self.assertRegex(r.stdout, r"SigBlk:\s+0+\n")
        self.assertEqual(sigign_of(r.stdout), inherited_sigign(), r.stdout)
        first = r.stderr.splitlines()[0]
        self.assertRegex(first, r"^halo: network full \(linux-netns\), filesystem full "
                                r"\(landlock abi \d+\), loopback grants %d$" % self.gport)
        self.assertRegex(r.stdout, r"^full [0-9a-f]{16} http://127\.0\.0\.1:\d+ socks5h://127\.0\.0\.1:\d+ \[\]")

    def test_require_full_refuses_env_backend(self):
        r = self.halo("echo SHOULD-NOT-RUN", extra=("--backend", "env"))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("SHOULD-NOT-RUN", r.stdout)
        refusal = r.stderr.strip().splitlines()
        self.assertEqual(len(refusal), 1, r.stderr)
        self.assertIn("network partial", refusal[0])
        self.assertIn("enforcement.require full", refusal[0])

    def test_broker_failure_is_125_and_cmd_never_runs(self):
        # An audit log that cannot be opened: Broker::create fails. That is halo failing
        # to start (125), not an enforcement shortfall (3).
        r = self.halo("echo SHOULD-NOT-RUN", extra=("--audit", "/nonexistent-halo-dir/a.log"))
        self.assertEqual(r.returncode, 125, r.stderr)
        self.assertNotIn("SHOULD-NOT-RUN", r.stdout)
        self.assertIn("cannot start the session: the broker did not start", r.stderr)

    def without_userns(self, profile, script):
        """halo run where user namespaces are disabled (max_user_namespaces=0 inside a
        user namespace of the test's own, so the host's setting is untouched)."""
        env = dict(os.environ, HOME=self.home)
        inner = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\""
        cmd = ["unshare", "-Ur", "/bin/sh", "-c", inner, "sh", HALO, "run", "--profile", profile,
               "--resolver-hosts", self.hosts, "--", "/bin/bash", "-c", script]
        return subprocess.run(cmd, cwd=self.ws, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)

    def test_no_user_namespaces_refuses_when_full_is_required(self):
        r = self.without_userns(self.profile, "echo SHOULD-NOT-RUN")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("SHOULD-NOT-RUN", r.stdout)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("refusing to run", lines[0])
        self.assertIn("user namespaces are disabled; fix: sysctl -w user.max_user_namespaces", lines[0])

    def test_no_user_namespaces_falls_back_to_env(self):
        r = self.without_userns(self.partial, "echo \"$HALO_ENFORCEMENT_NETWORK\"; "
                                "grep SigBlk /proc/self/status; "
                                "curl -sS --max-time 10 http://allowed.test:%d/" % self.gport)
        self.ok(r)
        self.assertRegex(r.stdout, r"SigBlk:\s+0+\n")  # the failed first attempt left no mask
        self.assertIn("network partial (env; linux-netns unavailable", r.stderr)
        self.assertIn("hello from upstream", r.stdout)

    def test_env_backend_when_partial_is_enough(self):
        r = self.halo("echo \"$HALO_ENFORCEMENT_NETWORK\"; curl -sS --max-time 10 http://allowed.test:%d/"
                      % self.gport, profile=self.partial, extra=("--backend", "env"))
        self.ok(r)
        self.assertIn("network partial (env", r.stderr.splitlines()[0])
        self.assertIn("partial", r.stdout)
        self.assertIn("hello from upstream", r.stdout)

    def test_session_report_matches(self):
        report = os.path.join(self.root, "report-%d.json" % os.getpid())
        r = self.halo("curl -s --max-time 10 http://allowed.test:%d/ >/dev/null; "
                      "curl -s --max-time 10 http://denied.test:%d/ >/dev/null; exit 5"
                      % (self.gport, self.gport), extra=("--report", report))
        self.assertEqual(r.returncode, 5, r.stderr)
        with open(report) as f:
            j = json.load(f)
        self.assertEqual(j["enforcement"]["network"]["level"], "full")
        self.assertEqual(j["enforcement"]["filesystem"]["level"], "full")
        self.assertEqual(j["enforcement"]["loopback_grants"], [self.gport])
        self.assertEqual(j["exit"]["status"], 5)
        self.assertGreaterEqual(j["decisions"]["allowed"], 1)
        self.assertGreaterEqual(j["decisions"]["denied"], 1)
        hosts = [d["host"] for d in j["denied"]]
        self.assertIn("denied.test", hosts)
        self.assertTrue(any("denied.test" in d["rule"] for d in j["denied"]), j["denied"])
        self.assertNotIn("curl -s", json.dumps(j))  # arguments never recorded


def userns_available():
    r = subprocess.run(["unshare", "-Urn", "true"], capture_output=True, timeout=10)
    return r.returncode == 0


if __name__ == "__main__":
    HALO = os.path.abspath(sys.argv.pop(1))
    if not userns_available():
        print("halo run integration: user namespaces unavailable here; skipped")
        sys.exit(77)
    unittest.main(verbosity=2)
