#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""demo_pl2_report.py DIR N LINK

The PL2 part of `make demo` (scripts/guest/demo-pl2.sh): for each run
named in DIR/runs, reads in DIR the shoal-perf client JSON of the N
senders (NAME-I.json), the switch port's tc -s -j qdisc dump
(NAME.qdisc), the two "time_ns bytes" samples of what the port sent
(NAME.rate), and the hosts' Shoal counters before and after
(NAME.stats0, NAME.stats1; for the TCP run "cubic", the senders'
/proc/net/snmp in cubic.snmp), and prints messages, losses, goodput and
the port's rate (of LINK Mbit/s), drops and resends, and a verdict per
run.  Imports perf_report from scripts/lib."""

import sys
d, n, link = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
names = {"pl2-clock": "PL2, switch (clock)", "pl2-counter": "PL2, switch (counter)",
         "pl2-noswitch": "PL2, no switch", "cubic": "TCP cubic"}

from perf_report import load, stats

def retrans(p):
    tot, hdr = 0, None
    for l in open(p):
        if l.startswith("Tcp:"):
            f = l.split()
            if hdr is None:
                hdr = f
            else:
                tot += int(f[hdr.index("RetransSegs")])
                hdr = None
    return tot

print("%-22s %6s %7s %8s %6s %7s %6s %8s" % ("", "msgs", "lost", "goodput", "wire", "dropped",
      "peak", "resent"))
ok, missing, slow = {}, [], []
for name in (l.strip() for l in open(d + "/runs")):
    cs = [c for c in (load("%s/%s-%d.json" % (d, name, i)) for i in range(1, n + 1)) if c]
    done = sum(c["messages"]["completed"] for c in cs)
    lost = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
    if len(cs) < n:
        missing.append("%s: %d of the %d senders gave no result (%s/%s-N.txt says why)"
                       % (names.get(name, name), n - len(cs), n, d, name))
    el = max([c["elapsed_s"] for c in cs] or [0])
    gp = sum(c["messages"]["completed_bytes"] for c in cs) * 8 / el / 1e6 if el else 0
    q = [x for x in (load("%s/%s.qdisc" % (d, name)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    if name == "cubic":
        resent = retrans(d + "/cubic.snmp")
    else:
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        resent = s1.get("tx_retx_packets", 0) - s0.get("tx_retx_packets", 0)
    try:
        (t0, b0), (t1, b1) = [map(int, l.split()) for l in open("%s/%s.rate" % (d, name))]
        wire = "%5.0f%%" % (100 * (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6 / link)
    except (OSError, ValueError):
        wire = "-"
    ok[name] = (q.get("drops", -1), lost, resent)
    if wire != "-" and float(wire.strip(" %")) < 95:
        slow.append("%s (wire %s, peak %d)" % (names.get(name, name), wire.strip(),
                                               q.get("data_qlen_max", -1)))
    print("%-22s %6d %7d %7.0f%% %6s %7d %6d %8d" % (names.get(name, name), done, lost,
          100 * gp / link, wire, q.get("drops", -1), q.get("data_qlen_max", -1), resent))
print("(msgs: messages answered; lost: failed or unanswered; goodput: of the link; wire: what")
print(" the port sent over the middle half of the arrivals, of its rate; dropped, peak: its drops")
print(" and longest data queue in packets; resent: DATA packets (TCP: segments) sent again)")
for m in missing:
    print(m)
for name, (drops, lost, resent) in ok.items():
    what = names.get(name, name)
    if drops == 0 and not lost and not any(m.startswith(what + ":") for m in missing):
        print("%s: nothing dropped at the switch, every message answered." % what)
    else:
        print("%s: the port dropped %d packets; %d messages were not answered; %d packets"
              " were sent again." % (what, drops, lost, resent))
if slow:
    print("The emulated link sent below 95% of its rate (its timer ran late in a busy guest)"
          " in:")
    print("  %s;" % "; ".join(slow))
    print("PL2's switch schedules the port at its nominal rate: what the link did not send")
    print("waits in the queue.")
print("Documentation/shoal.md, \"PL2 measured\", has runs and what they show.")
