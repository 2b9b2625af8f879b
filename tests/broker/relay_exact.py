#!/usr/bin/env python3
"""Byte-exact relay through `halo broker`: random data each way, SHA-256 on both ends,
through CONNECT and SOCKS5, in two shapes:
  concurrent   both sides send at once, each half-closes when done
  half-close   the client sends everything and half-closes; only then does the server
               answer (its whole stream must still arrive after the client's FIN)
Size per direction: HALO_RELAY_BYTES (default 64 MiB; 1073741824 for the 1 GiB proof).
Loopback only, inside a private network namespace."""
import hashlib
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from broker_lib import netns_test_main, start_broker  # noqa: E402

CHUNK = 1 << 20


def send_random(sock, total, digest):
    left = total
    while left:
        block = os.urandom(min(CHUNK, left))
        digest.update(block)
        sock.sendall(block)
        left -= len(block)


def recv_all(sock, digest):
    n = 0
    while True:
        b = sock.recv(CHUNK)
        if not b:
            return n
        digest.update(b)
        n += len(b)


class Server:
    """Accepts one connection per case; records what it received and what it sent."""

    def __init__(self, total):
        self.total = total
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.result = None

    def serve_one(self, shape):
        self.result = None
        conn, _ = self.sock.accept()
        conn.settimeout(120)
        got, sent = hashlib.sha256(), hashlib.sha256()
        if shape == "concurrent":
            t = threading.Thread(target=lambda: (send_random(conn, self.total, sent),
                                                 conn.shutdown(socket.SHUT_WR)))
            t.start()
            n = recv_all(conn, got)
            t.join()
        else:
            n = recv_all(conn, got)  # the client's FIN arrives first
            send_random(conn, self.total, sent)
            conn.shutdown(socket.SHUT_WR)
        conn.close()
        self.result = (n, got.hexdigest(), sent.hexdigest())


def open_connect(bp, port):
    s = socket.create_connection(("127.0.0.1", bp), timeout=120)
    s.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 200"), head
    return s


def open_socks(bp, port):
    s = socket.create_connection(("127.0.0.1", bp), timeout=120)
    s.sendall(b"\x05\x01\x00")
    assert s.recv(2) == b"\x05\x00"
    s.sendall(b"\x05\x01\x00\x01\x7f\x00\x00\x01" + port.to_bytes(2, "big"))
    reply = b""
    while len(reply) < 10:
        reply += s.recv(10 - len(reply))
    assert reply[1] == 0, reply
    return s


def run_case(bp, server, opener, shape):
    t = threading.Thread(target=server.serve_one, args=(shape,))
    t.start()
    s = opener(bp, server.port)
    sent, got = hashlib.sha256(), hashlib.sha256()
    t0 = time.time()
    if shape == "concurrent":
        w = threading.Thread(target=lambda: (send_random(s, server.total, sent),
                                             s.shutdown(socket.SHUT_WR)))
        w.start()
        n = recv_all(s, got)
        w.join()
    else:
        send_random(s, server.total, sent)
        s.shutdown(socket.SHUT_WR)
        n = recv_all(s, got)
    s.close()
    t.join(300)
    took = time.time() - t0
    sn, s_got, s_sent = server.result
    return (sn == server.total and n == server.total and s_got == sent.hexdigest()
            and got.hexdigest() == s_sent), took, (sn, n)


def run(halo, workdir, procs, c):
    total = int(os.environ.get("HALO_RELAY_BYTES", str(64 << 20)))
    server = Server(total)
    profile = os.path.join(workdir, "profile.yaml")
    with open(profile, "w") as f:
        f.write(f"egress:\n  default: deny\n  loopback: [{server.port}]\n")
    _, bp, _, _ = start_broker(procs, halo, profile, workdir, ["--log-level", "warn"])
    print(f"relay size per direction: {total} bytes")
    for name, opener in (("CONNECT", open_connect), ("SOCKS5", open_socks)):
        for shape in ("concurrent", "half-close"):
            ok, took, counts = run_case(bp, server, opener, shape)
            mbps = 2 * total / took / 1e6
            c.check(f"{name} {shape}: {total} bytes each way, checksums equal "
                    f"({took:.2f}s, {mbps:.0f} MB/s both ways)", ok, counts)


if __name__ == "__main__":
    sys.exit(netns_test_main(run, "halo-relay-"))
