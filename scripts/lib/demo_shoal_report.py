#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""demo_shoal_report.py DIR N LINK_MBIT LOAD

The Shoal transport part of `make demo` (scripts/guest/demo-shoal.sh):
reads, in DIR, the shoal-perf client JSON of each of the N senders
(sird-I.json, tcp-I.json), the switch port's tc -s -j qdisc dump
(sird.qdisc, tcp.qdisc), the receiver's /proc/net/shoal/stats after the
SIRD run (sird.stats) and every host's before and after it (sird.stats0,
sird.stats1), and prints message completion times, goodput, the port's
trims and drops, SIRD's control packets, and the verdicts, SIRD against
TCP cubic, computed from those numbers (shoal_cells.py).
Imports perf_report and shoal_cells from scripts/lib."""

import sys
d, n, link, load_ = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
from perf_report import load, stats as allstats
from shoal_cells import GP_TOL, cell, complete, control, goals, failures, verdict
stats = {}
try:
    for line in open(d + "/sird.stats"):
        k, v = line.split()
        stats[k] = int(v)
except OSError:
    pass


def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


print("%-14s %6s %9s %8s %8s %8s %8s %8s %8s %6s" % ("", "msgs", "failed", "goodput", "p50 ms",
      "p99 ms", "max ms", "trimmed", "dropped", "peak"))
res, missing = {}, []
for p, name in (("sird", "Shoal (SIRD)"), ("tcp", "TCP cubic")):
    r = res[p] = cell([load("%s/%s-%d.json" % (d, p, i)) for i in range(1, n + 1)], n)
    if r["missing"]:
        missing.append("%s: %d of the %d senders gave no result (%s/%s-N.txt says why)"
                       % (name, r["missing"], n, d, p))
    if r["lost"]:
        missing.append("%s: %d failed (%s), %d unanswered" % (name, r["failed"], failures(r),
                                                             r["unanswered"]))
    q = [x for x in (load("%s/%s.qdisc" % (d, p)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    trimmed = q.get("trim_arrival", 0) + q.get("trim_tail", 0)
    print("%-14s %6s %9s %8s %8s %8s %8s %8d %8d %6d" % (
        name, "%d/%d" % (r["completed"], r["issued"]), "%d/%d" % (r["failed"], r["unanswered"]),
        f(r["gp"], "%.2f"), f(r["p50"]), f(r["p99"]), f(r["max"]), trimmed, q.get("drops", -1),
        q.get("data_qlen_max", -1)))
print("(msgs: completed/issued; failed: failed/unanswered; goodput: Mbit/s, every sender's")
print(" answered bytes over the longest sender's time (arrivals and the wait for the last answer),")
print(" %g offered; p50, p99, max: %s;" % (link * load_, "of every sender's completion times"
      " together" if res["sird"]["pooled"] and res["tcp"]["pooled"] else "the median of the"
      " senders' medians, the worst sender's p99 and max (this shoal-perf lists no times)"))
print(" trimmed, dropped, peak: the switch port's trims, drops and longest data queue, packets)")
for m in missing:
    print(m)
print("SIRD's receiver: %d packets arrived trimmed, %d RESENDs asked for trimmed bytes at once,"
      % (stats.get("rx_trimmed", 0), stats.get("rx_resend_trimmed", 0)))
print("  %d RESENDs after a quiet interval (a loss)." % stats.get("rx_resend_quiet", 0))
ctrl, data, pk, by = control(allstats(d + "/sird.stats0"), allstats(d + "/sird.stats1"))
print("SIRD's control (every Shoal packet sent that is not DATA, all hosts): %d packets for %d"
      " DATA packets (%s), %s of DATA's bytes on the wire" % (
          ctrl, data, f(pk, "%.2f per DATA packet"), f(by and by * 100, "%.1f%%")))
s, t = res["sird"], res["tcp"]
g = {k: v[1:] for k, v in goals(s, t).items()}
p99 = s["p99"] is not None and t["p99"] is not None and s["p99"] < t["p99"]
print()
print("SIRD against TCP cubic, same port, same arrivals:")
print("  the demo's claim, SIRD's p99 below TCP's: %s (%s against %s ms, %s)" % (
    verdict(p99), f(s["p99"]), f(t["p99"]), g["p99"][1]))
print("  issue 22's goals: p99 at most half of TCP's: %s (%s); p50 no worse than TCP's: %s"
      " (%s against %s ms, %s);" % (verdict(g["p99"][0]), g["p99"][1],
                                   verdict(g["p50"][0]), f(s["p50"]), f(t["p50"]),
                                   g["p50"][1]))
print("  goodput at least TCP's (within %d%%: the same arrivals, so they differ only by when"
      " the last answer came): %s (%s against %s Mbit/s, %s); every message completes: %s"
      " (SIRD %s, TCP %s)" % (round(100 * (1 - GP_TOL)), verdict(g["gp"][0]), f(s["gp"], "%.2f"),
                              f(t["gp"], "%.2f"), g["gp"][1],
                              verdict(complete(s)), "%d of %d" % (s["completed"], s["issued"]),
                              "%d of %d" % (t["completed"], t["issued"])))
print("Under TCG both times are mostly the guest's own delays: compare the two, not the")
print("milliseconds (Documentation/shoal.md, \"Measured\").")
