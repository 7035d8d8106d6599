#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_flows_report.py SAMPLES PACKETS ROUNDS

The per-packet cost part of `make bench` (scripts/guest/bench-flows.sh):
reads SAMPLES (lines "qdisc place flows pps round") and prints each
qdisc's rate against the number of flows as a ratio to pfifo's and
fq_codel's (median over the rounds, with the rounds' quartiles), and the
goals' verdicts; records them for results.json (bench_record.py)."""

import statistics, sys
import bench_record
runs, by_round = {}, {}
for line in open(sys.argv[1]):
    q, place, k, pps, rnd = line.split()
    runs.setdefault((q, place, int(k)), []).append(int(pps))
    by_round[(q, place, int(k), rnd)] = int(pps)
med = {key: statistics.median(v) for key, v in runs.items()}
def ratio(q, place, k, base):
    """median over the rounds of q's rate / base's in the same round"""
    rs = [p / by_round[(base, pl, kk, r)] for (qq, pl, kk, r), p in by_round.items()
          if (qq, pl, kk) == (q, place, k) and by_round.get((base, pl, kk, r))]
    return statistics.median(rs) if rs else 0.0
ks = sorted({k for _, _, k in med})
qs = []
for q, _, _ in runs:
    if q not in qs:
        qs.append(q)
qs.sort(key=lambda q: (q != "pfifo", q != "fq_codel", q))
print()
print("== per-packet cost of the qdisc against the number of flows: pktgen sends")
print("   %s UDP frames (64-byte payloads) a run through the qdisc to a dummy" % sys.argv[2])
print("   device, source port round robin over K; kpps, and the ratio to pfifo")
print("   and to fq_codel at the same K in the same round, median of %s rounds" % sys.argv[3])
for place, what in (("queued", "every packet queued (under a tbf that never limits)"),
                    ("root", "at the root (an empty qdisc may pass a packet straight on)")):
    if not any(pl == place for _, pl, _ in med):
        continue
    print(what + ":")
    print("%-10s" % "qdisc" + "".join("%24s" % ("%d flow%s kpps /pfifo /fq_c" %
                                      (k, "s" if k > 1 else "")) for k in ks))
    for q in qs:
        cells = []
        for k in ks:
            name = "%s %d flow%s %s" % (place, k, "s" if k > 1 else "", q)
            if (q, place, k) not in med:
                cells.append("%24s" % "-")
                bench_record.case("flows", name, kpps=None, ratio_pfifo=None, ratio_fq_codel=None)
                continue
            kpps, rp, rf = (med[(q, place, k)] / 1000, ratio(q, place, k, "pfifo"),
                            ratio(q, place, k, "fq_codel"))
            cells.append("%24s" % ("%.0f %5.2fx %5.2fx" % (kpps, rp, rf)))
            bench_record.case("flows", name, kpps=kpps, ratio_pfifo=rp, ratio_fq_codel=rf)
        print("%-10s" % q + "".join(cells))
def spread(q, place, k, base):
    """the quartiles of the per-round ratios: the measurement's own spread"""
    rs = sorted(p / by_round[(base, pl, kk, r)] for (qq, pl, kk, r), p in by_round.items()
                if (qq, pl, kk) == (q, place, k) and by_round.get((base, pl, kk, r)))
    if len(rs) < 2:
        return rs[0], rs[0]
    qs = statistics.quantiles(rs, n=4)
    return qs[0], qs[2]
print("(at the root pfifo, fq_codel, sfq, afq and calq with horizon clamp pass a")
print(" packet that finds them empty straight on, so their ratios there show the")
print(" spread of the measurement itself)")
lo, hi = ks[0], ks[-1]
for q in ("afq", "calq"):
    for k in ks:
        if (q, "queued", k) not in med or ("fq_codel", "queued", k) not in med:
            continue
        r = ratio(q, "queued", k, "fq_codel")
        a, b = spread(q, "queued", k, "fq_codel")
        met = r >= 1.0
        verdict = "met" if met else "within the spread" if b >= 1.0 else "NOT met"
        print("%s queued, %d flow%s: %.2fx fq_codel, rounds' quartiles %.2f-%.2f "
              "(goal: at least 1.0x): %s" % (q, k, "s" if k > 1 else "", r, a, b, verdict))
        bench_record.goal("flows", "%s queued, %d flow%s: at least 1.0x fq_codel"
                          % (q, k, "s" if k > 1 else ""), met, ratio=r, ratio_q1=a, ratio_q3=b,
                          verdict=verdict)
    if (q, "queued", lo) in med and (q, "queued", hi) in med and lo != hi:
        a, b = ratio(q, "queued", lo, "pfifo"), ratio(q, "queued", hi, "pfifo")
        met = b >= 0.9 * a
        print("%s per-packet cost, %d flows against %d: %.2fx pfifo against %.2fx "
              "(goal: does not grow with flows, at least 0.9 of it): %s"
              % (q, hi, lo, b, a, "met" if met else "NOT met"))
        bench_record.goal("flows", "%s per-packet cost, %d flows against %d: does not grow "
                          "with flows" % (q, hi, lo), met, ratio_lo=a, ratio_hi=b)
