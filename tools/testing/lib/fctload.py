#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Open-loop TCP flow load for flow completion time benchmarks.

  fctload.py serve --port P [--ready FILE]
      serve any number of connections at once: each sends a 4-byte length
      L and L bytes, and gets one byte back once they are all in
  fctload.py load --dst ADDR --port P --link-bps B --load F --seconds S
      [--workload pareto|websearch] [--seed N] [--max-size B] [--json FILE]
      new flows arrive as a Poisson process whose rate offers F (0..1) of
      B bits/s on the wire, for S seconds, each a new connection; sizes
      from the workload (Pareto shape 1.1, mean 30 KB, the thesis's
      synthetic mix; or DCTCP's web search), cut at --max-size.  Writes
      every flow's size, start and completion time (connect to answer)
      in microseconds; flows still open 20 s after the last arrival count
      as unfinished.
"""
import argparse
import asyncio
import json
import random
import struct
import sys
import time

WEB_SEARCH = [(0, 0.0), (10000, 0.15), (20000, 0.20), (30000, 0.30),
              (50000, 0.40), (80000, 0.53), (200000, 0.60), (1000000, 0.70),
              (2000000, 0.80), (5000000, 0.90), (10000000, 0.97),
              (30000000, 1.0)]
MSS = 1448
WIRE_PER_SEG = 14 + 20 + 32 + 4     # Ethernet, IPv4, TCP with timestamps, FCS


def sampler(name, max_size, rng):
    """A function that draws flow sizes from workload @name with @rng"""
    if name == "pareto":
        alpha, mean = 1.1, 30000.0
        xm = mean * (alpha - 1) / alpha

        def draw():
            return int(min(max_size, xm / (1.0 - rng.random()) ** (1 / alpha)))
        return draw

    def draw_cdf():
        u = rng.random()
        for (b0, p0), (b1, p1) in zip(WEB_SEARCH, WEB_SEARCH[1:]):
            if u <= p1:
                return int(min(max_size, max(1, b0 + (b1 - b0) * (u - p0) / (p1 - p0))))
        return max_size
    return draw_cdf


def wire_bytes(size):
    """Bytes a flow of @size payload bytes puts on the wire, headers included"""
    segs = (size + 4 + MSS - 1) // MSS
    return size + 4 + segs * WIRE_PER_SEG + 3 * WIRE_PER_SEG   # + handshake, answer


async def handle(reader, writer):
    try:
        n = struct.unpack("!I", await reader.readexactly(4))[0]
        await reader.readexactly(n)
        writer.write(b"k")
        await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        pass
    writer.close()


async def serve(args):
    server = await asyncio.start_server(handle, "0.0.0.0", args.port, backlog=1024)
    if args.ready:
        open(args.ready, "w").close()
    async with server:
        await server.serve_forever()


async def one_flow(args, size, flows, payload):
    t0 = time.monotonic_ns()
    try:
        reader, writer = await asyncio.open_connection(args.dst, args.port)
        writer.write(struct.pack("!I", size))
        left = size
        while left:
            chunk = min(left, len(payload))
            writer.write(payload[:chunk])
            await writer.drain()
            left -= chunk
        await reader.readexactly(1)
        writer.close()
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        flows.append({"size": size, "start_us": t0 // 1000, "fct_us": -1})
        return
    flows.append({"size": size, "start_us": t0 // 1000,
                  "fct_us": (time.monotonic_ns() - t0) // 1000})


async def load(args):
    draw = sampler(args.workload, args.max_size, random.Random(args.seed))
    # flows per second that offer args.load of the link, headers included
    # (the mean from a sampler of its own: the run's sizes stay the seed's)
    est = sampler(args.workload, args.max_size, random.Random(12345))
    sizes = [est() for _ in range(200000)]
    mean = sum(sizes) / len(sizes)
    mean_wire = sum(wire_bytes(x) for x in sizes) / len(sizes)
    lam = args.load * args.link_bps / 8 / mean_wire
    payload = bytes(65536)
    flows, tasks = [], []
    arrivals = random.Random(args.seed + 1)
    t_end = time.monotonic() + args.seconds
    nxt = time.monotonic()
    while True:
        nxt += arrivals.expovariate(lam)
        if nxt >= t_end:
            break
        await asyncio.sleep(max(0.0, nxt - time.monotonic()))
        tasks.append(asyncio.create_task(one_flow(args, draw(), flows, payload)))
    done, pending = await asyncio.wait(tasks, timeout=20) if tasks else (set(), set())
    for t in pending:
        t.cancel()
    out = {"workload": args.workload, "load": args.load, "link_bps": args.link_bps,
           "mean_size": mean, "rate_fps": lam, "flows": flows,
           "unfinished": len(pending)}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f)
    ok = [f for f in flows if f["fct_us"] >= 0]
    print("fctload: %d flows at %.1f/s (%s, load %.2f), %d done, %d failed, %d unfinished"
          % (len(tasks), lam, args.workload, args.load, len(ok), len(flows) - len(ok),
             len(pending)), file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=5002)
    s.add_argument("--ready")
    c = sub.add_parser("load")
    c.add_argument("--dst", required=True)
    c.add_argument("--port", type=int, default=5002)
    c.add_argument("--link-bps", type=float, required=True)
    c.add_argument("--load", type=float, required=True)
    c.add_argument("--seconds", type=float, default=20)
    c.add_argument("--workload", choices=("pareto", "websearch"), default="pareto")
    c.add_argument("--max-size", type=int, default=3000000)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--json")
    args = ap.parse_args()
    if args.cmd == "serve":
        return asyncio.run(serve(args))
    return asyncio.run(load(args))


if __name__ == "__main__":
    sys.exit(main())
