#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""demo_shoal_report.py DIR N

The Shoal transport part of `make demo` (scripts/guest/demo-shoal.sh):
reads, in DIR, the shoal-perf client JSON of each of the N senders
(sird-I.json, tcp-I.json), the switch port's tc -s -j qdisc dump
(sird.qdisc, tcp.qdisc) and the receiver's /proc/net/shoal/stats after
the SIRD run (sird.stats), and prints message completion times, the
port's trims and drops and the verdict, SIRD against TCP cubic.
Imports perf_report from scripts/lib."""

import statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
from perf_report import load
stats = {}
for line in open(d + "/sird.stats"):
    k, v = line.split()
    stats[k] = int(v)
print("%-14s %6s %8s %10s %10s %10s %8s %8s %6s" % ("", "msgs", "failed", "p50 ms", "p99 ms",
      "max ms", "trimmed", "dropped", "peak"))
res, missing = {}, []
for p, name in (("sird", "Shoal (SIRD)"), ("tcp", "TCP cubic")):
    cs = [c for c in (load("%s/%s-%d.json" % (d, p, i)) for i in range(1, n + 1)) if c]
    done = sum(c["messages"]["completed"] for c in cs)
    bad = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
    if len(cs) < n:
        missing.append("%s: %d of the %d senders gave no result (%s/%s-N.txt says why)"
                       % (name, n - len(cs), n, d, p))
    lat = [b["latency_us"] for c in cs for b in c["buckets"] if b["name"] == "all" and b["count"]]
    q = [x for x in (load("%s/%s.qdisc" % (d, p)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    trimmed = q.get("trim_arrival", 0) + q.get("trim_tail", 0)
    r = res[p] = (statistics.median(x["p50"] for x in lat) / 1e3 if lat else -1,
                  max(x["p99"] for x in lat) / 1e3 if lat else -1,
                  max(x["max"] for x in lat) / 1e3 if lat else -1)
    print("%-14s %6d %8d %10.1f %10.1f %10.1f %8d %8d %6d" % (name, done, bad, r[0], r[1], r[2],
          trimmed, q.get("drops", -1), q.get("data_qlen_max", -1)))
print("(msgs: completed; failed: failed or unanswered; p50: the median of the senders'")
print(" medians; p99: the worst sender's; trimmed, dropped, peak: the switch port's trims,")
print(" drops and longest data queue in packets)")
for m in missing:
    print(m)
print("SIRD's receiver: %d packets arrived trimmed, %d RESENDs asked for trimmed bytes at once,"
      % (stats.get("rx_trimmed", 0), stats.get("rx_resend_trimmed", 0)))
print("  %d RESENDs after a quiet interval (a loss)." % stats.get("rx_resend_quiet", 0))
s, t = res["sird"], res["tcp"]
if s[1] > 0 and t[1] > 0:
    # the verdict follows from the numbers: sooner or later, at each percentile
    def when(x):
        return "sooner" if x < 1 else "as soon" if x == 1 else "later"
    print("SIRD's completion times against TCP's: p50 %.2fx, p99 %.2fx: SIRD's messages"
          % (s[0] / t[0], s[1] / t[1]))
    print("completed %s than TCP's at p50, %s at p99."
          % (when(s[0] / t[0]), when(s[1] / t[1])))
    if stats.get("rx_resend_trimmed", 0) > 0:
        print("Its receiver asked again at once for the trimmed packets, from their headers;"
              " a dropped")
        print("TCP segment waits for duplicate ACKs or a timeout.")
    print("Under TCG both times are mostly the guest's own delays: compare the two, not the")
    print("milliseconds (Documentation/shoal.md, \"Measured\").")
