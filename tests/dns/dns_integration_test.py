#!/usr/bin/env python3
"""DNS filter end to end with real clients: dig (UDP and +tcp) and a raw-socket python
resolver against the filter on 127.0.0.1 (ephemeral port), dnsmasq as the upstream on
loopback with its query log. Shows from dnsmasq's log that denied names never arrive
upstream. With --halo (the `halo broker` binary) it also shows that a session address
used in an HTTP CONNECT reaches the right upstream: a loopback HTTP server on a granted
port, dialed at the address dnsmasq gives for the name.

usage: dns_integration_test.py (--serve PATH/halo_dns_serve | --halo PATH/halo)
Hermetic: everything binds 127.0.0.1; every process started here is stopped by PID;
bounded in time (each step has a timeout).
"""
import argparse, http.client, http.server, json, os, random, re, socket, struct, subprocess, sys, tempfile
import threading, time

FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def free_port():
    # UDP and TCP both free on the same port (dnsmasq and the filter bind both).
    for _ in range(50):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("127.0.0.1", 0))
        port = u.getsockname()[1]
        t = socket.socket()
        try:
            t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            t.close()
            u.close()
    raise RuntimeError("no free port")


def dig(port, *args):
    cmd = ["dig", "@127.0.0.1", "-p", str(port), "+time=3", "+tries=1"] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout


def status_of(out):
    for line in out.splitlines():
        if "status:" in line:
            return line.split("status:")[1].split(",")[0].strip()
    return "NONE"


def short(port, *args):
    return dig(port, "+short", *args).split()


def name_wire(n):
    return b"".join(bytes([len(l)]) + l.encode() for l in n.split(".") if l) + b"\0"


def raw_udp(port, payload, timeout=1.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    s.sendto(payload, ("127.0.0.1", port))
    try:
        return s.recv(65535)
    except socket.timeout:
        return None
    finally:
        s.close()


def resolve_a(port, name):
    """A tiny stub resolver: one A question, returns (rcode, [addresses])."""
    qid = random.randrange(65536)
    msg = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0) + name_wire(name) + struct.pack(">HH", 1, 1)
    resp = raw_udp(port, msg, 3.0)
    if resp is None or struct.unpack(">H", resp[:2])[0] != qid:
        return None, []
    rcode = resp[3] & 0xF
    an = struct.unpack(">H", resp[6:8])[0]
    pos = 12 + len(name_wire(name)) + 4
    out = []
    for _ in range(an):
        if resp[pos] & 0xC0 == 0xC0:
            pos += 2
        else:
            while resp[pos]:
                pos += resp[pos] + 1
            pos += 1
        rtype, _, _, rdlen = struct.unpack(">HHIH", resp[pos:pos + 10])
        pos += 10
        if rtype == 1:
            out.append(socket.inet_ntoa(resp[pos:pos + 4]))
        pos += rdlen
    return rcode, out


def recv_all(sock, limit=65536):
    data = b""
    while len(data) < limit:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def via_connect(proxy_port, target, port, path):
    """HTTP CONNECT to target:port (IPv6 in brackets), then GET path; returns the reply."""
    s = socket.create_connection(("127.0.0.1", proxy_port), timeout=10)
    try:
        authority = ("[%s]" % target if ":" in target else target) + ":%d" % port
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (authority, authority)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)
            if not chunk:
                return head
            head += chunk
        if b" 200" not in head.split(b"\r\n")[0]:
            return head
        s.sendall(("GET %s HTTP/1.0\r\nHost: x\r\n\r\n" % path).encode())
        return recv_all(s)
    finally:
        s.close()


def via_socks5(proxy_port, ipv4, port, path):
    """SOCKS5 CONNECT by IPv4 address (ATYP 1), then GET path; returns the reply."""
    s = socket.create_connection(("127.0.0.1", proxy_port), timeout=10)
    try:
        s.sendall(b"\x05\x01\x00")
        if s.recv(2) != b"\x05\x00":
            return b"no method"
        s.sendall(b"\x05\x01\x00\x01" + socket.inet_aton(ipv4) + struct.pack(">H", port))
        reply = s.recv(10)
        if len(reply) < 2 or reply[1] != 0:
            return b"socks reply %r" % reply[:2]
        s.sendall(("GET %s HTTP/1.0\r\nHost: x\r\n\r\n" % path).encode())
        return recv_all(s)
    finally:
        s.close()


class Quiet(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        Quiet.hits.append(self.path)
        body = b"hello from the granted upstream\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def start_and_read_ports(cmd, timeout=15):
    """Starts the server; returns (proc, {"dns": port, "proxy": port}). halo_dns_serve says
    "port N" on stdout; `halo broker` says "listening on ADDR:N" and "DNS on ADDR:N" on
    stderr."""
    broker = "halo_dns_serve" not in os.path.basename(cmd[0])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stream = proc.stderr if broker else proc.stdout
    ports = {}
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = stream.readline()
        if not line:
            break
        m = re.search(r"^port (\d+)", line)
        if m:
            ports["dns"] = int(m.group(1))
        m = re.search(r"listening on \S+:(\d+)", line)
        if m:
            ports["proxy"] = int(m.group(1))
        m = re.search(r"DNS on \S+:(\d+)", line)
        if m:
            ports["dns"] = int(m.group(1))
        if "dns" in ports and ("proxy" in ports or not broker):
            break
    # Keep draining the pipe so the server never blocks on a full stderr; the lines are
    # kept (proc.lines) for checks on what the server says when it stops.
    proc.lines = []
    proc.drain = threading.Thread(target=lambda: [proc.lines.append(l) for l in stream],
                                  daemon=True)
    proc.drain.start()
    return proc, ports


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve")
    ap.add_argument("--halo")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="halo-dns-it-")
    procs = []
    try:
        upstream_port = free_port()
        dnsmasq_log = os.path.join(work, "dnsmasq.log")
        big = ["--txt-record=big.allowed.test," + ("%d" % i) * 200 for i in range(1, 6)]
        dnsmasq = subprocess.Popen([
            "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
            "--no-hosts", "--bind-interfaces", "--listen-address=127.0.0.1",
            "--port=%d" % upstream_port, "--user=root", "--pid-file=",
            "--log-queries", "--log-facility=" + dnsmasq_log,
            "--address=/allowed.test/127.0.0.1",
            "--txt-record=allowed.test,v=halo-test",
            "--mx-host=allowed.test,mail.allowed.test,10",
            "--host-record=evil.denied.test,192.0.2.66",
            "--cname=chain.allowed.test,evil.denied.test",
            # Real mode only answers these (documentation and metadata addresses are
            # judged, never dialed).
            "--host-record=public.allowed.test,192.0.2.10",
            "--host-record=meta.allowed.test,169.254.169.254",
        ] + big, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(dnsmasq)
        time.sleep(0.5)
        check(dnsmasq.poll() is None, "dnsmasq upstream started on 127.0.0.1:%d" % upstream_port)

        http_srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        http_port = http_srv.server_address[1]
        threading.Thread(target=http_srv.serve_forever, daemon=True).start()

        profile = os.path.join(work, "profile.yaml")
        with open(profile, "w") as f:
            f.write("egress:\n  default: deny\n"
                    "  allowedDomains: [allowed.test, \"*.allowed.test\"]\n"
                    "  deniedDomains: [denied.test, \"*.denied.test\"]\n"
                    "  loopback: [%d]\n" % http_port)
        audit = os.path.join(work, "audit.jsonl")
        if args.halo:
            cmd = [args.halo, "broker", "--profile", profile, "--listen", "127.0.0.1:0",
                   "--dns", "127.0.0.1:0", "--dns-mode", "synthetic",
                   "--resolver-server", "127.0.0.1:%d" % upstream_port, "--audit", audit]
        else:
            cmd = [args.serve, "--profile", profile, "--listen", "127.0.0.1:0",
                   "--upstream", "127.0.0.1:%d" % upstream_port, "--audit", audit]
        proc, ports = start_and_read_ports(cmd)
        procs.append(proc)
        check("dns" in ports, "filter serving, ports %s" % ports)
        if "dns" not in ports:
            return 1
        port = ports["dns"]

        # Allowed names: synthetic session addresses, stable, over UDP and TCP.
        a1 = short(port, "allowed.test", "A")
        a2 = short(port, "+tcp", "ALLOWED.test", "A")
        check(len(a1) == 1 and a1[0].startswith("198.18."), "dig A allowed.test -> %s" % a1)
        check(a1 == a2, "dig +tcp A ALLOWED.test gives the same session address %s" % a2)
        aaaa = short(port, "+tcp", "www.allowed.test", "AAAA")
        check(len(aaaa) == 1 and aaaa[0].startswith("fd68:616c:6f00:5353:"),
              "dig +tcp AAAA www.allowed.test -> %s" % aaaa)
        rc, addrs = resolve_a(port, "allowed.test")
        check(rc == 0 and addrs == a1, "python stub resolver agrees: %s" % addrs)
        ptr = short(port, "-x", a1[0])
        check(ptr == ["allowed.test."], "dig -x %s -> %s" % (a1[0], ptr))
        check(status_of(dig(port, "-x", "192.0.2.1")) == "REFUSED", "PTR for another address refused")

        # Denied, unlisted and malformed names: NXDOMAIN, never upstream.
        for name, t in [("secret-payload.denied.test", "TXT"), ("exfil-abc123.attacker.example", "A"),
                        ("evil.denied.test", "A")]:
            out = dig(port, name, t)
            check(status_of(out) == "NXDOMAIN", "dig %s %s -> NXDOMAIN" % (t, name))
        out = dig(port, "+tcp", "exfil-tcp.attacker.example", "TXT")
        check(status_of(out) == "NXDOMAIN", "dig +tcp TXT exfil-tcp.attacker.example -> NXDOMAIN")
        check("EDE: 15" in dig(port, "exfil-ede.attacker.example"), "denial carries EDE 15 (Blocked)")

        # Other types forwarded through c-ares to dnsmasq and relayed.
        txt = dig(port, "+short", "allowed.test", "TXT").strip()
        check(txt == '"v=halo-test"', "dig TXT allowed.test relayed from upstream: %s" % txt)
        mx = short(port, "allowed.test", "MX")
        check(mx == ["10", "mail.allowed.test."], "dig MX allowed.test relayed: %s" % mx)
        chain = dig(port, "chain.allowed.test", "TXT")
        check(status_of(chain) == "NXDOMAIN", "CNAME chain into a denied name -> NXDOMAIN")
        https = dig(port, "allowed.test", "HTTPS")
        check(status_of(https) == "NOERROR" and "ANSWER: 0" in https, "HTTPS -> empty NOERROR")
        # Truncation: ~1 KB of TXT does not fit 512 octets.
        tc = dig(port, "+ignore", "+noedns", "big.allowed.test", "TXT")
        check(" tc" in tc.split("flags:")[1].split(";")[0], "UDP answer over 512 octets has TC set")
        whole = dig(port, "+tcp", "big.allowed.test", "TXT")
        check("ANSWER: 5" in whole, "the same over TCP has all 5 records")

        # Hostile input from a raw socket.
        hdr = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
        loop = raw_udp(port, hdr + b"\xc0\x0c" + struct.pack(">HH", 1, 1))
        check(loop is not None and loop[3] & 0xF == 1, "compression loop -> FORMERR")
        resp_as_query = raw_udp(port, struct.pack(">HHHHHH", 1, 0x8180, 1, 0, 0, 0) +
                                name_wire("allowed.test") + struct.pack(">HH", 1, 1), 0.5)
        check(resp_as_query is None, "response sent as a query -> dropped")
        two = raw_udp(port, struct.pack(">HHHHHH", 7, 0x0100, 2, 0, 0, 0) +
                      (name_wire("allowed.test") + struct.pack(">HH", 1, 1)) * 2)
        check(two is not None and two[3] & 0xF == 1, "qdcount 2 -> FORMERR")
        check(len(short(port, "allowed.test")) == 1, "still answering after hostile input")

        time.sleep(0.3)
        with open(dnsmasq_log) as f:
            before_connect = f.read()
        check(not any(("query[A] allowed.test" in l or "query[AAAA] www.allowed.test" in l)
                      for l in before_connect.splitlines()),
              "synthetic A/AAAA answers never asked upstream")

        # CONNECT to a session address reaches the granted loopback upstream (broker only).
        if args.halo and "proxy" in ports:

            conn = http.client.HTTPConnection("127.0.0.1", ports["proxy"], timeout=10)
            conn.set_tunnel(a1[0], http_port)
            try:
                conn.request("GET", "/via-session-address")
                r = conn.getresponse()
                body = r.read()
                check(r.status == 200 and b"granted upstream" in body,
                      "CONNECT %s:%d -> %d %s" % (a1[0], http_port, r.status, body.strip()))
            except Exception as e:  # noqa: BLE001 - report and continue
                check(False, "CONNECT via session address: %s" % e)
            check("/via-session-address" in Quiet.hits, "loopback HTTP server saw the request")
            v6 = via_connect(ports["proxy"], aaaa[0], http_port, "/via-v6-session-address")
            check(b"granted upstream" in v6 and "/via-v6-session-address" in Quiet.hits,
                  "CONNECT [%s]:%d (www.allowed.test) reaches the server" % (aaaa[0], http_port))
            sk = via_socks5(ports["proxy"], a1[0], http_port, "/via-socks5")
            check(b"granted upstream" in sk and "/via-socks5" in Quiet.hits,
                  "SOCKS5 CONNECT %s:%d reaches the server" % (a1[0], http_port))
            unknown = via_connect(ports["proxy"], "198.18.0.200", http_port, "/never")
            check(b"403" in unknown.split(b"\r\n")[0] and "/never" not in Quiet.hits,
                  "CONNECT to a session address never handed out -> %s" % unknown.split(b"\r\n")[0])

        # --dns-mode real: real addresses, vetted (EgressRules::vet) before they are answered.
        if args.halo:
            real_cmd = [args.halo, "broker", "--profile", profile, "--listen", "127.0.0.1:0",
                        "--dns", "127.0.0.1:0", "--dns-mode", "real",
                        "--resolver-server", "127.0.0.1:%d" % upstream_port]
            real, real_ports = start_and_read_ports(real_cmd)
            procs.append(real)
            rport = real_ports.get("dns", 0)
            pub = short(rport, "public.allowed.test", "A")
            check(pub == ["192.0.2.10"], "real mode: public.allowed.test -> %s" % pub)
            meta = dig(rport, "meta.allowed.test", "A")
            check(status_of(meta) == "NXDOMAIN", "real mode: a name resolving to 169.254.169.254 -> NXDOMAIN")
            lo = dig(rport, "allowed.test", "A")
            check(status_of(lo) == "NXDOMAIN", "real mode: a name resolving to loopback (no grant for 443) -> NXDOMAIN")
            check(status_of(dig(rport, "leak.denied.test", "A")) == "NXDOMAIN", "real mode: denied name -> NXDOMAIN")

        # getent (glibc's resolver) inside `halo run`, whose resolv.conf names the session
        # DNS: the same filter, answered with session addresses. Skipped where the
        # sandbox cannot start (no user namespaces).
        if args.halo:
            run_profile = os.path.join(work, "run.yaml")
            with open(run_profile, "w") as f:
                f.write("egress:\n  default: deny\n  allowedDomains: [allowed.test]\n"
                        "enforcement:\n  require: partial\n")
            try:
                r = subprocess.run([args.halo, "run", "--profile", run_profile, "--quiet", "--",
                                    "sh", "-c", "getent hosts allowed.test; getent hosts leak.denied.test; echo rc=$?"],
                                   capture_output=True, text=True, timeout=30)
            except subprocess.TimeoutExpired:
                r = None
                check(False, "halo run: getent finished within 30 s")
            if r is None:
                pass
            elif r.returncode == 0:
                got = r.stdout.split()
                check(len(got) >= 2 and got[1] == "allowed.test" and
                      (got[0].startswith("198.18.") or got[0].startswith("fd68:616c:6f00:5353:")),
                      "halo run: getent hosts allowed.test -> %s" % got[:2])
                check("rc=2" in r.stdout, "halo run: getent hosts leak.denied.test finds nothing (rc=2)")
            else:
                print("skip halo run getent: %s" % (r.stderr.strip().splitlines() or ["?"])[-1])

        time.sleep(0.3)
        with open(dnsmasq_log) as f:
            log = f.read()
        queried = [l for l in log.splitlines() if "query[" in l]
        print("dnsmasq saw:\n  " + "\n  ".join(queried))
        check(any("query[TXT] allowed.test" in l for l in queried), "dnsmasq log shows the forwarded TXT")
        for leaked in ["denied.test", "attacker.example"]:
            check(not any(leaked in l.split("query[")[1] for l in queried),
                  "dnsmasq never saw a query for *%s" % leaked)
        if args.halo:
            check(any("query[A] allowed.test" in l for l in queried),
                  "the broker resolved allowed.test upstream when the session address was dialed")
        with open(audit) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        dns_lines = [l for l in lines if l.get("transport") == "dns"]
        check(len(dns_lines) >= 15, "audit has %d dns lines" % len(dns_lines))
        check(any(l.get("host") == "exfil-abc123.attacker.example" and l.get("verdict") == "deny"
                  for l in dns_lines), "audit names the denied question")
        check(any(l.get("qtype") == "TXT" and l.get("rcode") == "NXDOMAIN" for l in dns_lines)
              or not args.halo, "audit lines carry qtype and rcode")
        if args.halo:
            # The stop summary names the filter's drops (the response-as-query above).
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            proc.drain.join(timeout=5)
            said = "".join(proc.lines)
            m = re.search(r"halo broker: warning: (\d+) DNS message\(s\) dropped", said)
            check(m is not None and int(m.group(1)) >= 1,
                  "broker stop summary counts the dropped DNS message(s): %s"
                  % (m.group(0) if m else said[-300:]))
            connects = [l for l in lines if l.get("transport") == "connect"]
            check(any(l.get("host") == "allowed.test" and l.get("verdict") == "allow" and
                      l.get("resolved", "").startswith("127.0.0.1") for l in connects),
                  "audit: CONNECT to the session address decided as allowed.test, dialed 127.0.0.1: %s"
                  % [(l.get("host"), l.get("verdict"), l.get("rule"), l.get("resolved")) for l in connects])
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
