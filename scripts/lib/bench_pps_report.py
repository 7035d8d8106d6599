#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_pps_report.py SAMPLES COUNT ROUNDS HALF

The packets-per-second part of `make bench` (scripts/guest/bench-guest.sh):
reads SAMPLES (lines "name pps received trimmed round") and prints each
configuration's median rate, its ratio to the in-tree alternatives in
the same rounds, and the goals' verdicts; records them for results.json
(bench_record.py)."""

import statistics, sys
import bench_record
runs, by_round = {}, {}
for line in open(sys.argv[1]):
    name, pps, got, trimmed, rnd = line.split()
    runs.setdefault(name, []).append((float(pps), int(got), int(trimmed)))
    by_round[(name, rnd)] = float(pps)
count, rounds, half = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
med = {k: statistics.median(p for p, _, _ in v) for k, v in runs.items()}
def ratio(name, base):
    """Median over the rounds of name / base measured in the same round:
    the two ran minutes apart at most, so a slow phase of the host hits
    both (the rates themselves vary by 20% and more from run to run)."""
    rs = [p / by_round[(base, r)] for (n, r), p in by_round.items()
          if n == name and by_round.get((base, r))]
    return statistics.median(rs) if rs else 0.0
def row(name, base, note=""):
    v = runs[name]
    lost = sum(count - g for _, g, _ in v) // len(v)
    trimmed = sum(t for _, _, t in v) / (count * len(v))
    r = ratio(name, base)
    print("%-12s %10.0f %8.2fx %8.0f%% %6d   %s" % (name, med[name], r,
                                                  100 * trimmed, lost, note))
    bench_record.case("pps", name, pps=med[name], ratio=r, trimmed_pct=100 * trimmed, lost=lost)
print("Shoal bench: one sender -> switch netns -> receiver, unshaped veth path,")
print("%d packets a run, median of %d interleaved runs (QEMU TCG: compare ratios)" % (count, rounds))
print()
print("%-12s %10s %9s %9s %6s" % ("qdisc", "pps", "ratio", "trimmed", "lost"))
print("(pps: median sender rate; ratio: median over the rounds of the ratio to the")
print(" baseline of the same round; lost: packets a run that did not arrive)")
print("64-byte payloads (the qdisc's per-packet cost):")
row("pfifo", "pfifo", "pfifo limit 10000 (baseline)")
row("fq_codel", "pfifo", "fq_codel defaults")
row("trim", "pfifo", "trim limit 10000: nothing trimmed")
row("fq", "pfifo", "fq defaults")
row("sfq", "pfifo", "sfq defaults")
row("afq", "pfifo", "afq limit 10000 (2 x 16384 sketch, 32 queues)")
row("calq", "pfifo", "calq limit 10000 horizon clamp (logical, rank prio)")
row("calq-drop", "pfifo", "calq limit 10000: horizon drop, so no bypass")
print("64-byte payloads, every packet queued (under a tbf that never limits):")
row("fast-pfifo", "fast-pfifo", "pfifo limit 10000 (baseline)")
row("fast-trim", "fast-pfifo", "trim limit 10000: nothing trimmed")
row("fast-fq_codel", "fast-pfifo", "fq_codel defaults")
row("fast-fq", "fast-pfifo", "fq defaults")
row("fast-sfq", "fast-pfifo", "sfq defaults")
row("fast-afq", "fast-pfifo", "afq limit 10000")
row("fast-calq", "fast-pfifo", "calq limit 10000")
print("1000-byte payloads into a link (tbf) at %.0f Mbit/s, about half the offered load:" % (half / 1e6))
row("tbf-pfifo", "tbf-pfifo", "pfifo limit 12: drops what does not fit (baseline)")
row("tbf-trim", "tbf-pfifo", "trim limit 12: trims it instead (about half)")
print()
for a, b, what in (("trim", "pfifo", "at the root"), ("fast-trim", "fast-pfifo", "queued")):
    r = ratio(a, b)
    met = r >= 0.9
    print("trim, not trimming, %s: %.2fx pfifo (goal: at least 0.90x): %s"
          % (what, r, "met" if met else "NOT met"))
    bench_record.goal("pps", "trim, not trimming, %s: at least 0.90x pfifo" % what, met, ratio=r)
# Through sockets and a forwarding netns the qdisc is a small part of the
# path and these ratios spread by 10% and more: the goal against fq_codel
# is judged on the qdisc's own cost (bench-flows.sh, pktgen).
for q in ("afq", "calq"):
    for pre, what in (("", "at the root"), ("fast-", "queued")):
        print("%s %s, end to end: %.2fx fq_codel (the goal is judged below, on the "
              "qdisc's own cost)" % (q, what, ratio(pre + q, pre + "fq_codel")))
