#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Short TCP flows for the sqr tests and benchmarks.

  rpc.py serve --port P [--ready FILE]
      accept connections one after the other; each sends a 4-byte length L
      and L bytes; the server answers one byte once it has them all
  rpc.py call --dst ADDR --port P --flows N [--max-size B] [--seed S]
      [--json FILE]
      N flows one after the other, each a new connection that sends its
      bytes and waits for the answer; sizes from the web-search workload
      (DCTCP's CDF) cut at --max-size (100 KB).  Writes each flow's size
      and completion time (connect to answer) in microseconds.
"""
import argparse
import bisect
import json
import random
import socket
import struct
import sys
import time

# DCTCP web search, bytes : cumulative probability
WEB_SEARCH = [(0, 0.0), (10000, 0.15), (20000, 0.20), (30000, 0.30),
              (50000, 0.40), (80000, 0.53), (200000, 0.60), (1000000, 0.70),
              (2000000, 0.80), (5000000, 0.90), (10000000, 0.97),
              (30000000, 1.0)]


def size_sampler(max_size, rng):
    """Sizes from the web-search CDF, conditioned on size <= max_size"""
    pts = [(b, p) for b, p in WEB_SEARCH if b <= max_size]
    if pts[-1][0] < max_size:
        # interpolate the CDF at max_size
        i = bisect.bisect_left([b for b, _ in WEB_SEARCH], max_size)
        (b0, p0), (b1, p1) = WEB_SEARCH[i - 1], WEB_SEARCH[i]
        pts.append((max_size, p0 + (p1 - p0) * (max_size - b0) / (b1 - b0)))
    top = pts[-1][1]

    def draw():
        u = rng.random() * top
        for (b0, p0), (b1, p1) in zip(pts, pts[1:]):
            if u <= p1:
                return max(1, int(b0 + (b1 - b0) * (u - p0) / (p1 - p0)))
        return max_size
    return draw


def recv_exact(conn, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(min(65536, n - len(buf)))
        if not chunk:
            raise ConnectionError("peer closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def serve(args):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(128)
    if args.ready:
        open(args.ready, "w").close()
    while True:
        conn, _ = ls.accept()
        try:
            n = struct.unpack("!I", recv_exact(conn, 4))[0]
            left = n
            while left:
                chunk = conn.recv(min(65536, left))
                if not chunk:
                    break
                left -= len(chunk)
            if not left:
                conn.sendall(b"k")
        except (ConnectionError, OSError):
            pass
        conn.close()


def call(args):
    rng = random.Random(args.seed)
    draw = size_sampler(args.max_size, rng)
    payload = bytes(args.max_size)
    flows = []
    failed = 0
    for _ in range(args.flows):
        size = draw()
        t0 = time.monotonic_ns()
        try:
            s = socket.create_connection((args.dst, args.port), timeout=30)
            s.sendall(struct.pack("!I", size) + payload[:size])
            recv_exact(s, 1)
            s.close()
        except (ConnectionError, OSError) as e:
            print("rpc: flow of %d bytes failed: %s" % (size, e), file=sys.stderr)
            failed += 1
            continue
        flows.append({"size": size, "fct_us": (time.monotonic_ns() - t0) // 1000})
    out = {"flows": flows, "failed": failed}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)
    fcts = sorted(f["fct_us"] for f in flows)
    if fcts:
        print("rpc: %d flows, %d failed, fct median %d us, p99 %d us, max %d us"
              % (len(fcts), failed, fcts[len(fcts) // 2],
                 fcts[min(len(fcts) - 1, len(fcts) * 99 // 100)], fcts[-1]),
              file=sys.stderr)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=5001)
    s.add_argument("--ready")
    c = sub.add_parser("call")
    c.add_argument("--dst", required=True)
    c.add_argument("--port", type=int, default=5001)
    c.add_argument("--flows", type=int, default=100)
    c.add_argument("--max-size", type=int, default=100000)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--json")
    args = ap.parse_args()
    if args.cmd == "serve":
        serve(args)
        return 0
    return call(args)


if __name__ == "__main__":
    sys.exit(main())
