#!/usr/bin/python3
"""Measures what `halo run` costs (not a test; figures for the record).

  measure_run.py HALO_BINARY [N]

1. Start-up: hyperfine `halo run -- true` against bare `true` (and `halo validate`, the
   policy-loading floor).
2. Per-connection latency, N fresh connections each: an HTTP GET to a host loopback
   server made directly on the host, and from inside `halo run` (a) through the proxy by
   name (allowed.test -> broker -> upstream) and (b) straight at the granted loopback port
   (the forwarder). Prints p50/p90/p99 in milliseconds.
Hermetic: everything is on 127.0.0.1 with ephemeral ports; the server is stopped at the end.
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

CLIENT = r'''
import socket, sys, time, json
mode, host, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
target = (host, port)
req = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
if mode == "proxy":
    import os
    p = os.environ["HTTP_PROXY"].rsplit("/", 1)[-1]
    ph, pp = p.rsplit(":", 1)
    target = (ph, int(pp))
    req = ("GET http://%s:%d/ HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n" % (host, port, host, port)).encode()
times = []
for _ in range(n):
    t0 = time.perf_counter()
    s = socket.create_connection(target, 5)
    s.sendall(req)
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    times.append((time.perf_counter() - t0) * 1000)
    assert b" 200 " in data.split(b"\r\n", 1)[0], data[:200]
times.sort()
pick = lambda q: round(times[min(len(times) - 1, int(q * len(times)))], 3)
print(json.dumps({"mode": mode, "n": n, "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99)}))
'''


class Hello(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = b"hello\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def main():
    halo = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_port
    root = tempfile.mkdtemp(prefix="halo-measure-", dir="/var/tmp")
    try:
        prof = os.path.join(root, "p.yaml")
        with open(prof, "w") as f:
            f.write("sandbox:\n  mode: workspace-write\negress:\n  default: deny\n"
                    "  allowedDomains: [allowed.test]\n  loopback: [%d]\n" % port)
        hosts = os.path.join(root, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 allowed.test\n")
        client = os.path.join(root, "client.py")
        with open(client, "w") as f:
            f.write(CLIENT)
        run = [halo, "run", "--quiet", "--log-level", "off", "--profile", prof,
               "--resolver-hosts", hosts, "--"]
        print("== start-up (hyperfine)")
        subprocess.run(["hyperfine", "-N", "--warmup", "10", "--runs", "200", "--export-json",
                        os.path.join(root, "hf.json"), "true",
                        " ".join([halo, "validate", "--profile", prof]),
                        " ".join(run + ["true"])], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, timeout=300)
        with open(os.path.join(root, "hf.json")) as f:
            labels = ["true", "halo validate (policy load)", "halo run -- true"]
            for label, r in zip(labels, json.load(f)["results"]):
                print("%-28s mean %6.2f ms  median %6.2f ms  min %6.2f ms" % (
                    label, r["mean"] * 1e3, r["median"] * 1e3, r["min"] * 1e3))
        print("== per-connection latency, %d fresh connections, ms" % n)
        py = "/usr/bin/python3"
        for label, cmd in (
                ("host, direct", [py, client, "direct", "127.0.0.1", str(port), str(n)]),
                ("halo run, proxy by name", run + [py, client, "proxy", "allowed.test", str(port), str(n)]),
                ("halo run, loopback grant", run + [py, client, "direct", "127.0.0.1", str(port), str(n)])):
            out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
            print("%-26s %s %s" % (label, out.stdout.strip(), out.stderr.strip()[-300:]))
    finally:
        srv.shutdown()
        srv.server_close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
