#!/usr/bin/env python3
"""The broker's deadlines, end to end, inside a private network namespace: a tunnel with
no byte moving is closed after --idle-timeout-ms (audit close_reason "idle"); one that
keeps moving stays open past it; every tunnel is closed after --max-tunnel-ms however
busy ("max_duration"); a dial that gets no answer is a 504 after --connect-timeout-ms
(a loopback listener whose accept queue is full drops the SYN); a request head that never
ends is a 408; a forwarded response to a client that stopped reading is given up after
--write-timeout-ms. Every wait is bounded; the namespace holds only `lo`."""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from broker_lib import audit_lines, netns_test_main, recv_until, start_broker, status_of  # noqa: E402


def start_tcp_server(serve):
    """A TCP server on 127.0.0.1:0 running serve(conn) in a daemon thread per connection;
    returns (listening socket, port). Closing the socket ends the accept loop."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)

    def loop():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return srv, srv.getsockname()[1]


def echo(conn):
    """Echoes until EOF, then half-closes."""
    with conn:
        try:
            while True:
                b = conn.recv(65536)
                if not b:
                    conn.shutdown(socket.SHUT_WR)
                    return
                conn.sendall(b)
        except OSError:
            return


def big_http(conn):
    """Answers one HTTP request with a 64 MiB body, written until the peer goes away."""
    size = 64 << 20
    with conn:
        try:
            if b"\r\n\r\n" not in recv_until(conn, b"\r\n\r\n"):
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            block = b"b" * (1 << 16)
            for _ in range(size // len(block)):
                conn.sendall(block)
        except OSError:
            return


def connect_tunnel(broker_port, target):
    """Opens a CONNECT tunnel; returns (socket, status)."""
    s = socket.create_connection(("127.0.0.1", broker_port), timeout=5)
    s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    return s, status_of(recv_until(s, b"\r\n\r\n"))


def closed_within(s, seconds):
    """Waits (bounded) for the peer to close; returns the seconds it took, or None."""
    t0 = time.time()
    s.settimeout(0.1)
    while time.time() - t0 < seconds:
        try:
            b = s.recv(4096)
            if not b:
                return time.time() - t0
        except socket.timeout:
            continue
        except (ConnectionResetError, OSError):
            return time.time() - t0
    return None


def last_audit(audit, port):
    lines = [a for a in audit_lines(audit) if a.get("port") == port]
    return lines[-1] if lines else {}


def run(halo, workdir, procs, c):
    echo_srv, echo_port = start_tcp_server(echo)
    big_srv, big_port = start_tcp_server(big_http)
    # A listener that never accepts, its queue filled: Linux drops further SYNs to it, so a
    # dial there is never answered.
    stuck = socket.socket()
    stuck.bind(("127.0.0.1", 0))
    stuck.listen(0)
    stuck_port = stuck.getsockname()[1]
    fillers = []
    for _ in range(4):
        f = socket.socket()
        f.setblocking(False)
        f.connect_ex(("127.0.0.1", stuck_port))
        fillers.append(f)
    time.sleep(0.2)
    profile = os.path.join(workdir, "profile.yaml")
    with open(profile, "w") as f:
        f.write("egress:\n  default: deny\n"
                "  allowedDomains: [echo.test]\n"
                f"  loopback: [{echo_port}, {stuck_port}, {big_port}]\n")
    hosts = os.path.join(workdir, "hosts")
    with open(hosts, "w") as f:
        f.write("127.0.0.1 echo.test\n")
    broker, bp, audit, _ = start_broker(
        procs, halo, profile, workdir,
        extra=["--resolver-hosts", hosts, "--idle-timeout-ms", "600", "--max-tunnel-ms", "2500",
               "--connect-timeout-ms", "700", "--head-timeout-ms", "800", "--write-timeout-ms", "700",
               "--log-level", "warn"])
    target = f"127.0.0.1:{echo_port}"

    # Idle: bytes move once, then nothing; the broker closes after ~0.6 s.
    s, status = connect_tunnel(bp, target)
    c.check("idle: CONNECT to a granted loopback port is 200", status == 200, str(status))
    s.sendall(b"ping")
    c.check("idle: the tunnel echoes", s.recv(16) == b"ping")
    took = closed_within(s, 5)
    c.check("idle: closed by the broker after the idle deadline",
            took is not None and 0.3 <= took <= 3.0, f"took {took}")
    s.close()
    time.sleep(0.2)
    c.check("idle: audit close_reason is idle", last_audit(audit, echo_port).get("close_reason") == "idle",
            str(last_audit(audit, echo_port)))

    # Activity: a byte every 0.2 s keeps the tunnel open past the idle deadline (1.4 s),
    # then the client ends it cleanly.
    s, status = connect_tunnel(bp, target)
    ok = status == 200
    for _ in range(7):
        s.sendall(b"x")
        ok = ok and s.recv(1) == b"x"
        time.sleep(0.2)
    c.check("activity: a moving tunnel outlives the idle deadline", ok)
    s.shutdown(socket.SHUT_WR)
    took = closed_within(s, 5)
    c.check("activity: half-close from the client ends the tunnel", took is not None, f"{took}")
    s.close()
    time.sleep(0.2)
    c.check("activity: audit close_reason is done", last_audit(audit, echo_port).get("close_reason") == "done",
            str(last_audit(audit, echo_port)))

    # Duration cap: busy all along, closed at ~2.5 s anyway.
    s, status = connect_tunnel(bp, target)
    t0 = time.time()
    s.settimeout(0.5)
    alive = status == 200
    while alive and time.time() - t0 < 6:
        try:
            s.sendall(b"y")
            alive = s.recv(1) == b"y"
        except OSError:
            alive = False
        time.sleep(0.1)
    took = time.time() - t0
    c.check("max duration: a busy tunnel is closed at the cap", 2.0 <= took <= 4.5, f"took {took:.2f}")
    s.close()
    time.sleep(0.2)
    c.check("max duration: audit close_reason is max_duration",
            last_audit(audit, echo_port).get("close_reason") == "max_duration",
            str(last_audit(audit, echo_port)))

    # Connect deadline: the SYN is dropped at the full queue; 504 after ~0.7 s.
    t0 = time.time()
    s, status = connect_tunnel(bp, f"127.0.0.1:{stuck_port}")
    took = time.time() - t0
    s.close()
    c.check("connect deadline: an unanswered dial is a 504", status == 504, str(status))
    c.check("connect deadline: answered near the deadline", 0.5 <= took <= 3.0, f"took {took:.2f}")
    a = last_audit(audit, stuck_port)
    c.check("connect deadline: audited as allowed, then timed out",
            a.get("verdict") == "allow" and "timed out" in a.get("close_reason", ""), str(a))

    # Head deadline: a head that never ends is a 408.
    t0 = time.time()
    with socket.create_connection(("127.0.0.1", bp), timeout=5) as s:
        s.sendall(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n")
        s.settimeout(5)
        try:
            answer = s.recv(4096)
        except OSError:
            answer = b""
    took = time.time() - t0
    c.check("head deadline: 408 for a head that never ends", status_of(answer) == 408, repr(answer[:40]))
    c.check("head deadline: answered near the deadline", 0.5 <= took <= 3.0, f"took {took:.2f}")

    # Write deadline: a forwarded response to a client that stopped reading. The broker
    # gives up after ~0.7 s of no progress writing (the idle deadline is 0.6 s only for
    # tunnels; the upstream here never stops sending), closes, and says why.
    t0 = time.time()
    with socket.create_connection(("127.0.0.1", bp), timeout=5) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(f"GET http://127.0.0.1:{big_port}/big HTTP/1.1\r\nHost: 127.0.0.1:{big_port}\r\n\r\n".encode())
        line = {}
        while time.time() - t0 < 10 and not line:  # not reading: wait for the audit line
            time.sleep(0.1)
            line = last_audit(audit, big_port)
        took = time.time() - t0
        got = 0
        s.settimeout(2)
        try:
            while got < (80 << 20):  # drain what sits in the buffers: then EOF or a reset
                b = s.recv(1 << 20)
                if not b:
                    break
                got += len(b)
        except (socket.timeout, ConnectionResetError):
            pass
    c.check("write deadline: a stalled client is given up on near the deadline",
            bool(line) and 0.5 <= took <= 5.0, f"took {took:.2f}, {line}")
    c.check("write deadline: the audit says the write timed out",
            "timed out" in line.get("close_reason", ""), str(line))
    c.check("write deadline: the client got part of the body, not all of it", 0 < got < (64 << 20),
            f"{got} bytes")

    # A name allowed by its rule and dialed at an address only a grant opens: the audit
    # names both rules.
    s, status = connect_tunnel(bp, f"echo.test:{echo_port}")
    s.sendall(b"n")
    ok = status == 200 and s.recv(1) == b"n"
    s.close()
    time.sleep(0.2)
    rule = last_audit(audit, echo_port).get("rule", "")
    c.check("audit: a name dialed through a loopback grant names both rules",
            ok and rule.startswith("allowedDomains: echo.test") and f"+ loopback grant: {echo_port}" in rule,
            rule)

    # Many short tunnels in a row, each through the head read, the dial (a Deadline each)
    # and the relay: all complete, and every one is audited "done" (a deadline handler or
    # the watchdog firing late would turn one into a 504, "idle" or "reset").
    before = len([a for a in audit_lines(audit) if a.get("port") == echo_port])
    good = 0
    for _ in range(200):
        s, status = connect_tunnel(bp, target)
        s.sendall(b"z")
        if status == 200 and s.recv(1) == b"z":
            s.shutdown(socket.SHUT_WR)
            if closed_within(s, 2) is not None:
                good += 1
        s.close()
    c.check("200 short tunnels in a row all complete", good == 200, f"{good}/200")
    time.sleep(0.3)
    reasons = [a.get("close_reason") for a in audit_lines(audit) if a.get("port") == echo_port][before:]
    c.check("200 short tunnels are all audited done", len(reasons) == 200 and set(reasons) == {"done"},
            f"{len(reasons)} lines, reasons {sorted(set(map(str, reasons)))}")
    broker.terminate()
    broker.wait(10)
    echo_srv.close()
    big_srv.close()
    for f in fillers:
        f.close()
    stuck.close()


if __name__ == "__main__":
    sys.exit(netns_test_main(run, "halo-deadlines-"))
