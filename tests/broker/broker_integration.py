#!/usr/bin/env python3
"""End-to-end tests of `halo broker` with real clients, run inside a private network
namespace (only `lo`): curl through the HTTP proxy and SOCKS5 (plain HTTP and HTTPS to
a local TLS server with a certificate made here), raw malformed and smuggling requests,
limits, and names from a hosts file and from a dnsmasq started here (a name rebinding to
127.0.0.1, one CNAMEing to a denied name, one resolving to 10.0.0.5, one to a
documentation address that cannot be reached from the namespace)."""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from broker_lib import (EchoHandler, audit_lines, curl, free_port, make_cert,  # noqa: E402
                        netns_test_main, raw, recv_until, start_broker, start_http, status_of)


def start_dnsmasq(procs, workdir):
    port = free_port()
    log = os.path.join(workdir, "dnsmasq.log")
    procs.start(["dnsmasq", "-k", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
                 "--user=root", "--pid-file=", "--listen-address=127.0.0.1", "--bind-interfaces",
                 f"--port={port}", "--log-queries", f"--log-facility={log}",
                 "--address=/rebind.test/127.0.0.1",
                 "--address=/private.test/10.0.0.5",
                 "--host-record=denied-target.test,198.51.100.9",
                 "--cname=cname.test,denied-target.test",
                 "--host-record=public.test,198.51.100.7,2001:db8::7"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:  # ready when it answers a query over UDP
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.2)
            q = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0) + b"\x06public\x04test\x00\x00\x01\x00\x01"
            try:
                s.sendto(q, ("127.0.0.1", port))
                s.recv(512)
                return port, log
            except OSError:
                time.sleep(0.1)
    raise RuntimeError("dnsmasq did not start")


def stop_and_read(proc, err_path, timeout=10):
    """SIGTERMs a broker, waits for it (bounded), and returns its stderr text."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass  # Procs.stop() kills it at the end; the checks below then fail
    with open(err_path) as f:
        return f.read()


def socks_exchange(port, frames):
    """Sends SOCKS frames one at a time; returns the reply bytes after each."""
    out = []
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        for f in frames:
            s.sendall(f)
            try:
                out.append(s.recv(64))
            except (socket.timeout, ConnectionResetError):
                out.append(b"")
    return out


def run(halo, workdir, procs, c):
    cert, tls_ctx = make_cert(workdir, ["tls.test", "localhost"])
    http_srv = start_http()
    tls_srv = start_http(tls_ctx)
    hp = http_srv.server_address[1]
    tp = tls_srv.server_address[1]
    dead_port = free_port()  # granted, nothing listens: connection refused
    dns_port, dns_log = start_dnsmasq(procs, workdir)

    hosts = os.path.join(workdir, "hosts")
    with open(hosts, "w") as f:
        f.write("127.0.0.1 tls.test allowed-lo.test\n")
    profile = os.path.join(workdir, "profile.yaml")
    with open(profile, "w") as f:
        f.write(f"""egress:
  default: deny
  allowedDomains: [tls.test, allowed-lo.test, rebind.test, cname.test, private.test, public.test, nxdomain.test]
  deniedDomains: [denied.test, denied-target.test]
  loopback: [{hp}, {tp}, {dead_port}]
""")
    broker, bp, audit, err = start_broker(
        procs, halo, profile, workdir,
        ["--resolver-hosts", hosts, "--resolver-server", f"127.0.0.1:{dns_port}",
         "--head-timeout-ms", "1500", "--connect-timeout-ms", "3000", "--log-level", "warn"])
    proxy = f"http://127.0.0.1:{bp}"
    socks = f"127.0.0.1:{bp}"

    # --- curl, allowed ------------------------------------------------------------
    rc, out, e = curl("-x", proxy, f"http://127.0.0.1:{hp}/plain?token=s3cret")
    c.check("http forward to granted loopback", rc == 0 and '"path": "/plain?token=s3cret"' in out, e)
    rc, out, e = curl("-x", proxy, f"http://localhost:{hp}/lh")
    c.check("http forward to localhost name", rc == 0 and '"/lh"' in out, e)
    rc, out, e = curl("-p", "-x", proxy, f"http://localhost:{hp}/tunnel")
    c.check("CONNECT tunnel (curl -p)", rc == 0 and '"/tunnel"' in out, e)
    rc, out, e = curl("--socks5-hostname", socks, f"http://localhost:{hp}/s5h")
    c.check("socks5 hostname", rc == 0 and '"/s5h"' in out, e)
    rc, out, e = curl("--socks5", socks, f"http://127.0.0.1:{hp}/s5v4")
    c.check("socks5 ipv4 address", rc == 0 and '"/s5v4"' in out, e)
    rc, out, e = curl("-x", f"socks5h://user:hunter2@{socks}", f"http://localhost:{hp}/s5auth")
    c.check("socks5 user/password", rc == 0 and '"/s5auth"' in out, e)
    rc, out, e = curl("--cacert", cert, "-x", proxy, f"https://tls.test:{tp}/tls")
    c.check("https through CONNECT (hosts-file name)", rc == 0 and '"/tls"' in out, e)
    rc, out, e = curl("--cacert", cert, "--socks5-hostname", socks, f"https://tls.test:{tp}/tls5")
    c.check("https through socks5h", rc == 0 and '"/tls5"' in out, e)
    rc, out, e = curl("-x", proxy, "-H", "Proxy-Authorization: Basic dXNlcjpodW50ZXIy",
                      "-H", "Connection: X-Drop", "-H", "X-Drop: 1", "-H", "Keep-Alive: 5",
                      "-H", "X-Keep: yes", f"http://127.0.0.1:{hp}/hdr")
    try:
        seen = {k.lower() for k in json.loads(out)["headers"]}
    except Exception:  # noqa: BLE001
        seen = set()
    c.check("hop-by-hop and Proxy-* removed, others kept",
            rc == 0 and "x-keep" in seen and not seen & {"proxy-authorization", "x-drop",
                                                          "keep-alive", "proxy-connection"}, out)
    rc, out, e = curl("-x", proxy, "-d", "x" * 5000, f"http://127.0.0.1:{hp}/post")
    c.check("POST body forwarded", rc == 0 and '"body_len": 5000' in out, e)
    rc, out, e = curl("-x", proxy, "-H", "Transfer-Encoding: chunked", "-d", "y" * 3000,
                      f"http://127.0.0.1:{hp}/chunked")
    c.check("chunked request body relayed", rc == 0 and '"/chunked"' in out, e)

    # --- curl, denied and failing ---------------------------------------------------
    rc, out, e = curl("-i", "-x", proxy, "http://denied.test/")
    c.check("denied name: 403 with X-Halo-Decision",
            "403" in out.split("\r\n")[0] and "X-Halo-Decision: deny" in out and
            "deniedDomains: denied.test" in out, out[:300])
    rc, out, e = curl("-p", "-x", proxy, "http://denied.test/")
    c.check("denied CONNECT refused", rc != 0 and "403" in e, e)
    rc, out, e = curl("--socks5-hostname", socks, "http://denied.test/")
    c.check("denied socks5 (reply 0x02)", rc != 0 and ("not allowed" in e or "0x02" in e or "(2)" in e), e)
    rc, out, e = curl("-i", "-x", proxy, "http://allowed-lo.test/")
    c.check("allowed name on ungranted loopback port: 403",
            "403" in out.split("\r\n")[0] and "loopback" in out, out[:300])
    rc, out, e = curl("-i", "-p", "-x", proxy, "http://127.0.0.1:1/")
    c.check("ungranted loopback port literal: 403", "403" in e or "403" in out, e)
    rc, out, e = curl("-i", "-x", proxy, f"http://[::1]:{dead_port + 1}/")
    c.check("ungranted [::1] port: 403", "403" in out.split("\r\n")[0], out[:200])
    rc, out, e = curl("-i", "-x", proxy, f"http://127.0.0.1:{dead_port}/")
    c.check("refused upstream: 502", out.startswith("HTTP/1.1 502"), out[:200])
    rc, out, e = curl("-i", "-x", proxy, "http://169.254.169.254/latest/meta-data/")
    c.check("metadata address: 403", out.startswith("HTTP/1.1 403"), out[:200])

    # --- DNS answers (dnsmasq): rebinding, CNAME to a denied name, private, unreachable
    rc, out, e = curl("-i", "-x", proxy, "http://rebind.test/")
    c.check("rebind to 127.0.0.1 denied", out.startswith("HTTP/1.1 403") and "127.0.0.1" in out
            or "loopback" in out, out[:300])
    rc, out, e = curl("--socks5-hostname", socks, "http://rebind.test/")
    c.check("rebind via socks5h denied", rc != 0, e)
    rc, out, e = curl("-i", "-x", proxy, "http://cname.test/")
    c.check("CNAME to a denied name: 403 naming it",
            out.startswith("HTTP/1.1 403") and "denied-target.test" in out, out[:300])
    rc, out, e = curl("-i", "-x", proxy, "http://private.test/")
    c.check("answer 10.0.0.5: 403 private", out.startswith("HTTP/1.1 403") and "10.0.0.5" in out,
            out[:300])
    rc, out, e = curl("-i", "-p", "-x", proxy, "http://public.test/")
    c.check("public answer dialed, unreachable in the netns: 502", "502" in e or "502" in out, e)
    rc, out, e = curl("-i", "-x", proxy, "http://nxdomain.test/")
    c.check("unresolvable allowed name: 502", out.startswith("HTTP/1.1 502"), out[:200])
    with open(dns_log) as f:
        queried = f.read()
    c.check("denied names never looked up", "denied.test" not in queried.replace("denied-target", ""),
            "")
    c.check("rebind/cname/private were looked up",
            all(n in queried for n in ("rebind.test", "cname.test", "private.test")))

    # --- raw requests: malformed and smuggling shapes --------------------------------
    before = len(EchoHandler.seen)
    host = f"127.0.0.1:{hp}"
    shapes = {
        "CL and TE": f"POST http://{host}/s1 HTTP/1.1\r\nHost: {host}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "duplicate CL": f"POST http://{host}/s2 HTTP/1.1\r\nHost: {host}\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\nabcd",
        "obs-fold": f"GET http://{host}/s3 HTTP/1.1\r\nHost: {host}\r\nX-A: 1\r\n folded\r\n\r\n",
        "TE not chunked": f"POST http://{host}/s4 HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "space before colon": f"POST http://{host}/s5 HTTP/1.1\r\nHost: {host}\r\nContent-Length : 4\r\n\r\nabcd",
        "bare LF": f"GET http://{host}/s6 HTTP/1.1\nHost: {host}\n\n",
        "Host mismatch": f"GET http://{host}/s7 HTTP/1.1\r\nHost: other.test\r\n\r\n",
        "origin-form": "GET /s8 HTTP/1.1\r\nHost: x\r\n\r\n",
        "userinfo": f"GET http://u:p@{host}/s9 HTTP/1.1\r\nHost: {host}\r\n\r\n",
        "two Hosts": f"GET http://{host}/s10 HTTP/1.1\r\nHost: {host}\r\nHost: {host}\r\n\r\n",
        "CONNECT without port": "CONNECT tls.test HTTP/1.1\r\nHost: tls.test\r\n\r\n",
        "too many headers": f"GET http://{host}/s11 HTTP/1.1\r\nHost: {host}\r\n" + "".join(f"X-{i}: v\r\n" for i in range(150)) + "\r\n",
    }
    for name, req in shapes.items():
        got = raw(bp, req.encode())
        c.check(f"malformed: {name} -> 400", status_of(got) == 400, got[:120])
    got = raw(bp, f"POST http://{host}/s12 HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n".encode())
    c.check("bad chunking -> 400, upstream answer never relayed", status_of(got) == 400, got[:120])
    c.check("no smuggling shape reached the upstream as a request",
            not any(p.startswith("/s") and p[2:].isdigit() for p in EchoHandler.seen[before:]),
            EchoHandler.seen[before:])
    got = raw(bp, f"GET http://{host}/big HTTP/1.1\r\nHost: {host}\r\nX-Big: {'a' * 70000}\r\n\r\n".encode())
    c.check("head over 64 KiB -> 431", status_of(got) == 431, got[:120])
    t0 = time.time()
    got = raw(bp, f"GET http://{host}/slow HTTP/1.1\r\nHost: ".encode(), read_timeout=6)
    took = time.time() - t0
    c.check("slowloris head -> 408 after the head deadline", status_of(got) == 408 and took < 4,
            f"{got[:80]} after {took:.1f}s")

    # --- keep-alive: every request decided on its own ---------------------------------
    with socket.create_connection(("127.0.0.1", bp), timeout=5) as s:
        s.sendall(f"GET http://{host}/ka1 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        first = recv_until(s, b"}")
        s.sendall(b"GET http://denied.test/ka2 HTTP/1.1\r\nHost: denied.test\r\n\r\n")
        second = b""
        s.settimeout(5)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                second += chunk
        except socket.timeout:
            pass
    c.check("keep-alive: first request allowed", status_of(first) == 200, first[:100])
    c.check("keep-alive: second request on the same connection denied",
            status_of(second) == 403, second[:100])

    # --- SOCKS edge cases ---------------------------------------------------------------
    r = socks_exchange(bp, [b"\x05\x01\x00", b"\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50"])
    c.check("socks5 BIND -> 0x07", len(r[1]) >= 2 and r[1][1] == 7, r)
    r = socks_exchange(bp, [b"\x05\x01\x00", b"\x05\x03\x00\x01\x7f\x00\x00\x01\x00\x50"])
    c.check("socks5 UDP ASSOCIATE -> 0x07", len(r[1]) >= 2 and r[1][1] == 7, r)
    r = socks_exchange(bp, [b"\x05\x01\x00", b"\x05\x01\x00\x09\x00\x00"])
    c.check("socks5 unknown ATYP -> 0x08", len(r[1]) >= 2 and r[1][1] == 8, r)
    r = socks_exchange(bp, [b"\x05\x01\x01"])
    c.check("socks5 no acceptable method -> 0xFF", r[0] == b"\x05\xff", r)
    r = socks_exchange(bp, [b"\x04\x01\x00\x50\x7f\x00\x00\x01\x00"])
    c.check("socks4 refused cleanly (0x5B)", len(r[0]) == 8 and r[0][1] == 0x5B, r)
    r = socks_exchange(bp, [b"\x05\x01\x00", b"\x05\x01\x00\x03\x0bdenied.test\x00\x50"])
    c.check("socks5 denied domain -> 0x02", len(r[1]) >= 2 and r[1][1] == 2, r)

    # --- limits: max connections answers a fast 503 -------------------------------------
    small, sp, _, small_err = start_broker(procs, halo, profile, workdir,
                                           ["--max-connections", "2", "--log-level", "error"],
                                           name="small")
    holders = [socket.create_connection(("127.0.0.1", sp), timeout=5) for _ in range(2)]
    time.sleep(0.2)
    t0 = time.time()
    got = raw(sp, b"GET http://denied.test/ HTTP/1.1\r\nHost: denied.test\r\n\r\n", read_timeout=3)
    c.check("over max connections: fast 503", status_of(got) == 503 and time.time() - t0 < 1.0,
            got[:80])
    for h in holders:
        h.close()
    # The stop summary names the count (printed whatever the log level).
    summary = stop_and_read(small, small_err)
    m = re.search(r"halo broker: warning: (\d+) connection\(s\) refused at the connection cap",
                  summary)
    c.check("stop summary counts the 503s at the cap", m is not None and int(m.group(1)) >= 1,
            summary[-400:])

    # --- EMFILE: the accept loop backs off and recovers --------------------------------
    tight = os.path.join(workdir, "tight.yaml")
    with open(tight, "w") as f:
        f.write(f"egress:\n  default: deny\n  loopback: [{hp}]\n")
    emfile, ep, _, eerr = start_broker(procs, "prlimit", tight, workdir, name="emfile",
                                  extra=["--log-level", "warn"], prefix=["--nofile=40:40", halo])
    flood = []
    for _ in range(80):
        try:
            flood.append(socket.create_connection(("127.0.0.1", ep), timeout=2))
        except OSError:
            break
    time.sleep(0.5)
    for s in flood:
        s.close()
    time.sleep(0.5)
    rc, out, e = curl("-x", f"http://127.0.0.1:{ep}", f"http://127.0.0.1:{hp}/after-emfile")
    c.check("accept survives EMFILE (backs off, then serves)",
            rc == 0 and '"/after-emfile"' in out and "Too many open files" in open(eerr).read(), e)
    summary = stop_and_read(emfile, eerr)
    m = re.search(r"halo broker: warning: (\d+) accept\(s\) failed for lack of file descriptors",
                  summary)
    c.check("stop summary counts the EMFILE accept failures",
            m is not None and int(m.group(1)) >= 1, summary[-400:])

    # --- audit file that cannot be written: counted, one error, named in the summary -----
    os.symlink("/dev/full", os.path.join(workdir, "full.audit.jsonl"))  # start_broker's path
    full, fp, _, ferr = start_broker(procs, halo, tight, workdir, name="full",
                                     extra=["--log-level", "warn"])
    for i in range(3):
        curl("-x", f"http://127.0.0.1:{fp}", f"http://127.0.0.1:{hp}/full{i}")
    summary = stop_and_read(full, ferr)
    m = re.search(r"halo broker: warning: (\d+) audit line\(s\) could not be written", summary)
    c.check("stop summary counts unwritten audit lines", m is not None and int(m.group(1)) >= 3,
            summary[-400:])
    c.check("audit write failure logged once, naming the path, not the record",
            summary.count("full.audit.jsonl") == 1 and "No space left on device" in summary
            and "/full0" not in summary, summary[-400:])

    # --- audit log: one line per decision, never secrets --------------------------------
    time.sleep(0.3)
    lines = audit_lines(audit)
    text = open(audit).read()
    c.check("audit lines are JSON with verdicts", len(lines) > 20 and all("verdict" in l for l in lines))
    c.check("audit never holds query strings", "s3cret" not in text and "token=" not in text)
    c.check("audit never holds credentials", "hunter2" not in text and "dXNlcjpodW50ZXIy" not in text
            and "Basic" not in text)
    c.check("audit names the denying rule",
            any(l["verdict"] == "deny" and "denied-target.test" in l["rule"] for l in lines))
    c.check("audit records bytes of a tunnel",
            any(l["transport"] == "connect" and l["bytes_down"] > 0 for l in lines))

    # --- SIGTERM drains and exits 0 -------------------------------------------------------
    idle = socket.create_connection(("127.0.0.1", bp), timeout=5)  # an idle client
    broker.send_signal(signal.SIGTERM)
    try:
        code = broker.wait(10)
    except subprocess.TimeoutExpired:
        code = None
    idle.close()
    c.check("SIGTERM: drains and exits 0 within the drain deadline", code == 0, code)
    with open(err) as f:
        summary = f.read()
    c.check("stop summary: decisions counted, no loss lines when nothing was lost",
            re.search(r"halo broker: stopped; \d+ decisions", summary) is not None
            and "halo broker: warning:" not in summary, summary[-400:])


if __name__ == "__main__":
    sys.exit(netns_test_main(run, "halo-broker-it-"))
