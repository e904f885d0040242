#!/usr/bin/env python3
"""HTTPS client of the egress benchmarks (bench/egress.sh), run inside a
session and inside a bare container on the fake internet: the same code on
both sides, standard library only (the sandbox image has python3).

  netbench.py latency URL N [IP]     N new connections, one after the other:
                                     TCP + TLS + GET + the whole reply
      -> "p50_ms P p99_ms Q n N failed F"
  netbench.py concurrent URL N [SECS]
                                     N connections open at once: all connect
                                     and finish TLS, hold SECS (1), then each
                                     sends its GET and reads the reply
      -> "ok K failed F all_open_ms T total_ms U" (+ the first error)
  netbench.py keepalive URL N        one connection (TCP + TLS, not timed),
                                     then N GETs on it one after the other
      -> "p50_ms P p99_ms Q n N failed F"

The server name of URL is the TLS name and the Host; IP (optional) is where
to connect instead of resolving it. --cafile FILE (default ca.pem) is the CA;
--header "NAME: VALUE" (repeatable) goes into every request.
"""
import socket
import ssl
import sys
import threading
import time
from urllib.parse import urlsplit


HEADERS = []


def parse(argv):
    cafile = "ca.pem"
    while len(argv) > 2 and argv[1] in ("--cafile", "--header"):
        if argv[1] == "--cafile":
            cafile = argv[2]
        else:
            HEADERS.append(argv[2])
        argv = argv[:1] + argv[3:]
    return cafile, argv


def target(url):
    u = urlsplit(url)
    if u.scheme != "https" or not u.hostname:
        raise SystemExit("netbench: only https://HOST[:PORT]/PATH URLs")
    return u.hostname, u.port or 443, (u.path or "/")


def read_reply(tls):
    """Reads one HTTP/1.1 reply with Content-Length; returns its status."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = tls.recv(65536)
        if not chunk:
            raise OSError("connection closed in the reply header")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    while len(body) < length:
        chunk = tls.recv(65536)
        if not chunk:
            raise OSError("connection closed in the reply body")
        body += chunk
    return status


class Conn:
    def __init__(self, ctx, host, port, path, ip):
        self.ctx, self.host, self.port, self.path, self.ip = ctx, host, port, path, ip
        self.tls = None

    def open(self):
        raw = socket.create_connection((self.ip or self.host, self.port), timeout=30)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.tls = self.ctx.wrap_socket(raw, server_hostname=self.host)

    def get(self, keep=False):
        req = "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: %s\r\n%s\r\n" % (
            self.path, self.host, "keep-alive" if keep else "close",
            "".join(h + "\r\n" for h in HEADERS))
        self.tls.sendall(req.encode())
        status = read_reply(self.tls)
        if status != 200:
            raise OSError("HTTP status %d" % status)

    def close(self):
        if self.tls is not None:
            self.tls.close()


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def summary(times, failed, first_error):
    if not times:
        raise SystemExit("netbench: every request failed: %s" % first_error)
    times.sort()
    print("p50_ms %.3f p99_ms %.3f n %d failed %d"
          % (percentile(times, 0.50), percentile(times, 0.99), len(times), failed))


def keepalive(ctx, url, n):
    """N requests on one connection: the reply must keep it open (a reply
    that closes it ends the run with the rest counted as failed)."""
    host, port, path = target(url)
    c = Conn(ctx, host, port, path, None)
    c.open()
    times, first_error = [], None
    try:
        for _ in range(n):
            t0 = time.perf_counter()
            c.get(keep=True)
            times.append((time.perf_counter() - t0) * 1000)
    except OSError as e:
        first_error = e
    finally:
        c.close()
    summary(times, n - len(times), first_error)


def latency(ctx, url, n, ip):
    host, port, path = target(url)
    times, failed, first_error = [], 0, None
    for _ in range(n):
        c = Conn(ctx, host, port, path, ip)
        t0 = time.perf_counter()
        try:
            c.open()
            c.get()
            times.append((time.perf_counter() - t0) * 1000)
        except OSError as e:
            failed += 1
            first_error = first_error or e
        finally:
            c.close()
    summary(times, failed, first_error)


def concurrent(ctx, url, n, hold):
    host, port, path = target(url)
    conns = [Conn(ctx, host, port, path, None) for _ in range(n)]
    errors = [None] * n
    opened = threading.Barrier(n + 1)
    go = threading.Event()

    def worker(i):
        c = conns[i]
        try:
            c.open()
        except OSError as e:
            errors[i] = "open: %s" % e
        try:
            opened.wait(timeout=120)
        except threading.BrokenBarrierError:
            pass
        go.wait(timeout=120)
        if errors[i] is None:
            try:
                c.get()
            except OSError as e:
                errors[i] = "get: %s" % e
        c.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    try:
        opened.wait(timeout=120)
    except threading.BrokenBarrierError:
        pass
    all_open = time.perf_counter() - t0
    time.sleep(hold)
    go.set()
    for t in threads:
        t.join()
    total = time.perf_counter() - t0 - hold
    failed = [e for e in errors if e is not None]
    print("ok %d failed %d all_open_ms %.1f total_ms %.1f%s"
          % (n - len(failed), len(failed), all_open * 1000, total * 1000,
             (" first_error " + failed[0]) if failed else ""))


def main():
    cafile, argv = parse(sys.argv)
    if len(argv) < 4:
        raise SystemExit(__doc__)
    ctx = ssl.create_default_context(cafile=cafile)
    mode, url, n = argv[1], argv[2], int(argv[3])
    if mode == "latency":
        latency(ctx, url, n, argv[4] if len(argv) > 4 else None)
    elif mode == "keepalive":
        keepalive(ctx, url, n)
    elif mode == "concurrent":
        concurrent(ctx, url, n, float(argv[4]) if len(argv) > 4 else 1.0)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
