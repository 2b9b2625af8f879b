"""Shared helpers for the broker integration tests: processes started and stopped by PID,
loopback servers, a profile written with the test's own ports, raw-socket exchanges.
Everything binds 127.0.0.1 port 0; nothing here reaches past loopback."""
import argparse
import contextlib
import http.server
import json
import os
import re
import shutil
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Procs:
    """Processes this test started; stop() ends each by its own PID."""

    def __init__(self):
        self.procs = []

    def start(self, args, **kw):
        p = subprocess.Popen(args, **kw)
        self.procs.append(p)
        return p

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)


class EchoHandler(http.server.BaseHTTPRequestHandler):
    """Answers every request with a JSON body describing what arrived (path with query,
    header names and values), so tests can see what the broker forwarded."""
    protocol_version = "HTTP/1.1"
    seen = []

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body_in = self.rfile.read(length) if length else b""
        EchoHandler.seen.append(self.path)
        body = json.dumps({"method": self.command, "path": self.path,
                           "headers": {k: v for k, v in self.headers.items()},
                           "body_len": len(body_in)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = _answer

    def log_message(self, *args):
        pass


class ThreadedServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def start_http(tls_context=None):
    srv = ThreadedServer(("127.0.0.1", 0), EchoHandler)
    if tls_context:
        srv.socket = tls_context.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def make_cert(workdir, names):
    cert = os.path.join(workdir, "cert.pem")
    key = os.path.join(workdir, "key.pem")
    san = ",".join(f"DNS:{n}" for n in names) + ",IP:127.0.0.1"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", f"/CN={names[0]}", "-addext", f"subjectAltName={san}",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return cert, ctx


def start_broker(procs, halo, profile, workdir, extra=(), name="broker", prefix=()):
    """Starts `halo broker` on 127.0.0.1:0; returns (process, port, audit path, stderr path)."""
    audit = os.path.join(workdir, f"{name}.audit.jsonl")
    err_path = os.path.join(workdir, f"{name}.stderr")
    err = open(err_path, "w")
    p = procs.start([halo, *prefix, "broker", "--profile", profile, "--listen", "127.0.0.1:0",
                     "--audit", audit, *extra], stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.time() + 20
    while time.time() < deadline:
        with open(err_path) as f:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
        if m:
            return p, int(m.group(1)), audit, err_path
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError("broker did not start: " + open(err_path).read())


def curl(*args, timeout=15):
    """Runs curl; returns (exit code, stdout text, stderr text)."""
    r = subprocess.run(["curl", "-sS", "--max-time", "10", *args], capture_output=True,
                       text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def raw(port, data, read_timeout=5.0, shutdown=False, read_all=True):
    """Sends bytes to 127.0.0.1:port, returns everything read until EOF or timeout."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        if shutdown:
            s.shutdown(socket.SHUT_WR)
        s.settimeout(read_timeout)
        out = b""
        with contextlib.suppress(socket.timeout, ConnectionResetError):
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
                if not read_all:
                    break
        return out


def recv_until(sock, marker, limit=1 << 20):
    """Reads from `sock` until `marker` arrived, EOF, or `limit` bytes; returns the bytes
    (the socket's own timeout bounds each read)."""
    out = b""
    while marker not in out and len(out) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            break
        out += chunk
    return out


def status_of(response):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", response)
    return int(m.group(1)) if m else None


def audit_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class Checks:
    """Named checks; every failure is reported with its name, the run fails at the end."""

    def __init__(self):
        self.failed = []
        self.passed = 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed.append(name)
            print(f"FAIL {name} {detail}")

    def done(self):
        print(f"{self.passed} passed, {len(self.failed)} failed")
        for n in self.failed:
            print("  failed:", n)
        return 1 if self.failed else 0


def in_private_netns(argv):
    """Re-executes the test inside a new network namespace (only `lo`, brought up), so
    nothing the broker dials can leave this machine. Returns None when already inside."""
    if os.environ.get("HALO_TEST_NETNS") == "1":
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        return None
    env = dict(os.environ, HALO_TEST_NETNS="1")
    return subprocess.run(["unshare", "-n", *argv], env=env, timeout=290).returncode


def netns_test_main(run, prefix):
    """The shape every broker integration script shares: `--halo PATH`, re-run inside a
    private network namespace, then run(halo, workdir, procs, checks) with a temporary
    workdir; processes are stopped and the workdir removed whatever happens. Returns the
    exit code."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--halo", required=True)
    args = ap.parse_args()
    rc = in_private_netns([sys.executable, os.path.abspath(sys.argv[0]), *sys.argv[1:]])
    if rc is not None:
        return rc
    c = Checks()
    procs = Procs()
    workdir = tempfile.mkdtemp(prefix=prefix)
    try:
        run(args.halo, workdir, procs, c)
    finally:
        procs.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return c.done()
