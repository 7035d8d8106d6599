#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_sqr_report.py SAMPLES MEMORY PACKETS ROUNDS

The sqr part of `make bench` (scripts/guest/bench-sqr.sh): reads SAMPLES
(lines "name pps round") and prints each configuration's rate as a ratio
to pfifo's (median of the rounds) with the goal's verdict, then the
MEMORY lines ("hold pps pkts bytes mem cached") as a table against the
rate x hold the model expects; records them for results.json
(bench_record.py)."""

import statistics, sys
import bench_record
by_round, runs = {}, {}
for line in open(sys.argv[1]):
    name, pps, rnd = line.split()
    by_round[(name, rnd)] = int(pps)
    runs.setdefault(name, []).append(int(pps))
def ratio(name):
    rs = sorted(p / by_round[("pfifo", r)] for (n, r), p in by_round.items()
                if n == name and by_round.get(("pfifo", r)))
    if not rs:
        return 0, 0, 0
    q = statistics.quantiles(rs, n=4) if len(rs) > 1 else [rs[0]] * 3
    return statistics.median(rs), q[0], q[2]
print()
print("== sqr: packets per second through the root of a dummy device (pktgen,")
print("   %s UDP frames with 64-byte payloads a run), every packet protected;" % sys.argv[3])
print("   ratio to pfifo in the same round, median of %s rounds (quartiles)" % sys.argv[4])
notes = {"pfifo": "pfifo limit 10000 (baseline)", "sqr-0": "sqr hold 0: no copies",
         "sqr-1ms": "sqr hold 1ms: a copy of every packet",
         "sqr-10ms": "sqr hold 10ms: a copy of every packet",
         "sqr-1ms-clones": "sqr hold 1ms copy_max 0: a clone of every packet",
         "sqr-1ms-nopoll": "sqr hold 1ms detect notifier: copies, no 100us poll timer"}
for name in ("pfifo", "sqr-0", "sqr-1ms", "sqr-10ms", "sqr-1ms-clones", "sqr-1ms-nopoll"):
    if name not in runs:
        continue
    m, a, b = ratio(name)
    kpps = statistics.median(runs[name]) / 1000
    print("%-14s %8.0f kpps %5.2fx (%.2f-%.2f)  %s" % (name, kpps, m, a, b, notes[name]))
    bench_record.case("sqr", name, kpps=kpps, ratio=m, ratio_q1=a, ratio_q3=b)
m, a, b = ratio("sqr-1ms")
met = m >= 0.8
verdict = "met" if met else "within the spread" if b >= 0.8 else "NOT met"
print("sqr copying every packet for 1 ms (ring buffer): %.2fx pfifo (goal: at least 0.8x): %s"
      % (m, verdict))
bench_record.goal("sqr", "sqr copying every packet for 1 ms: at least 0.8x pfifo", met,
                  ratio=m, ratio_q1=a, ratio_q3=b, verdict=verdict)
print()
print("== sqr: memory held against hold (peak of the ring; mem is the ring buffer")
print("   the copies fill: each frame and its 48-byte record)")
print("%-7s %9s %11s %11s %11s %12s %10s" % ("hold", "rate pps", "peak pkts", "rate x hold",
                                            "peak bytes", "peak mem", "mem/pkt"))
scale = {"us": 1e-6, "ms": 1e-3}
seen = {}
for line in open(sys.argv[2]):
    hold, pps, pkts, byts, mem, cached = line.split()
    h = float(hold[:-2]) * scale[hold[-2:]]
    print("%-7s %9d %11s %11.0f %11s %12s %10.0f" % (hold, int(pps), pkts, int(pps) * h, byts,
                                                    mem, int(mem) / max(1, int(pkts))))
    # each hold runs at full rate, then at a tenth of it (bench-sqr.sh)
    seen[hold] = seen.get(hold, 0) + 1
    bench_record.case("sqr", "hold %s #%d" % (hold, seen[hold]), rate_pps=int(pps),
                      peak_pkts=int(pkts), rate_x_hold_pkts=int(pps) * h,
                      peak_bytes=int(byts), peak_mem_bytes=int(mem),
                      mem_per_pkt_bytes=int(mem) / max(1, int(pkts)))
