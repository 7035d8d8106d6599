#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_shoal_cells.py: the verdicts of shoal_cells.py (the Shoal demo's
and bench's reports) on made-up runs, as TAP; exit status 1 if any is
wrong.  Run by scripts/check (unit/shoal-cells)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shoal_cells import busy, cell, complete, control, goals, jain, pct, tally  # noqa: E402
from tap import check, plan  # noqa: E402



def client(p50, p99, gp=10.0, issued=100, completed=100, failed=0, unanswered=0, fails=None,
           elapsed=8.0):
    return {"goodput_mbps": -1, "elapsed_s": elapsed, "failures": fails or {},
            "messages": {"issued": issued, "completed": completed, "failed": failed,
                         "unanswered": unanswered, "completed_bytes": gp * 1e6 * elapsed / 8},
            "buckets": [{"name": "A", "count": 0},
                        {"name": "all", "count": completed,
                         "latency_us": {"p50": p50, "p99": p99, "max": p99 * 2}}]}


# the cell: medians' median, the worst p99, sums
s = cell([client(1000, 9000), client(3000, 20000), client(2000, 10000)], 3)
check("p50 is the median of the senders' medians", s["p50"] == 2.0)
check("p99 is the worst sender's", s["p99"] == 20.0)
check("goodput and messages are summed", abs(s["gp"] - 30.0) < 1e-9 and s["issued"] == 300)
u = cell([client(1000, 9000, elapsed=8.0), client(1000, 9000, elapsed=16.0)], 2)
check("goodput is all bytes over the longest sender's time", abs(u["gp"] - 15.0) < 1e-9)
check("a complete run is complete", complete(s))
m = cell([client(1000, 9000), None], 2)
check("a sender with no result: not ok, counted missing", not m["ok"] and m["missing"] == 1)
check("a sender with no result: not complete", not complete(m))
f = cell([client(1000, 9000, completed=97, failed=2, unanswered=1,
                 fails={"ETIMEDOUT": 1, "ECONNRESET": 1}),
          client(1000, 9000, fails={"ETIMEDOUT": 0})], 2)
check("failures are summed per errno", f["failures"] == {"ETIMEDOUT": 1, "ECONNRESET": 1})
check("failed or unanswered: not complete", f["lost"] == 3 and not complete(f))
e = cell([client(1000, 9000, completed=0, issued=0)], 1)
check("nothing issued is not complete", not complete(e))
check("no completion: no percentiles", e["p50"] is None and e["p99"] is None)

# pooled: every completion time of every sender, nearest rank
def timed(times):
    c = client(0, 0, completed=len(times), issued=len(times))
    c["completion_us"] = sorted(times)
    return c


pl = cell([timed([1000 * i for i in range(1, 101)]), timed([1000 * i for i in range(101, 201)])], 2)
check("pooled: p50 over all 200 messages is the 100th", pl["pooled"] and pl["p50"] == 100.0)
check("pooled: p99 over all 200 messages is the 198th", pl["p99"] == 198.0)
check("pooled: max is the largest", pl["max"] == 200.0)
mix = cell([timed([5000]), client(1000, 9000)], 2)
check("a sender without the list: the senders' percentiles instead",
      not mix["pooled"] and mix["p99"] == 9.0)
check("pct of nothing is None, of one is it", pct([], 0.5) is None and pct([7], 0.99) == 7)

# the goals: p99 at most half, p50 no worse, goodput at least (2%), all complete
t = cell([client(2000, 40000, gp=30.0)], 1)
g = goals(cell([client(2000, 20000, gp=29.5)], 1), t)
check("p99 exactly half of TCP's is met", g["p99"][1] is True)
check("p50 equal to TCP's is met", g["p50"][1] is True)
check("goodput 0.983x TCP's is met (same arrivals)", g["gp"][1] is True)
check("all complete is met", g["complete"][1] is True)
g = goals(cell([client(2001, 20001, gp=29.3)], 1), t)
check("p99 above half of TCP's is NOT met", g["p99"][1] is False and g["p99"][2] == "0.50x")
check("p50 above TCP's is NOT met", g["p50"][1] is False)
check("goodput 0.977x TCP's is NOT met", g["gp"][1] is False)
g = goals(cell([client(100, 900, completed=99, unanswered=1)], 1), t)
check("a faster run with an unanswered message is not complete", g["complete"][1] is False)
g = goals(s, cell([None], 1))
check("no TCP number: no verdict (None), never met",
      g["p99"][1] is None and g["p50"][1] is None and "NOT met" in tally("x", [g["p99"][1]]))
check("tally: all met", tally("x", [True, True]) == "goal: x: met (2 of 2 cells)")
check("tally: one not met", tally("x", [True, False]) == "goal: x: NOT met (1 of 2 cells)")
check("tally: no cell is not met", tally("x", []) == "goal: x: NOT met (0 of 0 cells)")

# the floor: the messages' own times at the link rate, less the burst
def serial(times, serial_us):
    c = timed(times)
    c["serial_us"] = sorted(serial_us)
    return c


fl = cell([serial([5000] * 100, [1000 * i for i in range(1, 101)])], 1, burst_ms=4.0)
check("floor: p99 is the 99th own time less the burst", fl["floor_p99"] == 95.0)
check("floor: p50 is the 50th less the burst", fl["floor_p50"] == 46.0)
check("floor: never below 0", cell([serial([1], [1000])], 1, 4.0)["floor_p50"] == 0.0)
check("floor: None when a sender lists no own times",
      cell([serial([1], [1000]), timed([1])], 2)["floor_p99"] is None)
tcp = cell([timed([10000] * 50 + [180000] * 50)], 1)
g = goals(fl, tcp)
check("reach: half of TCP's p99 (90 ms) below the floor (95): out of reach",
      g["p99_reach"][1] is False and "floor 95.0" in g["p99_reach"][2])
check("reach: TCP's p50 (10 ms) below the floor (46): out of reach", g["p50_reach"][1] is False)
g = goals(fl, cell([timed([50000] * 50 + [200000] * 50)], 1))
check("reach: half of 200 ms is above 95: reachable", g["p99_reach"][1] is True)
check("reach: no floor, no verdict", goals(t, t)["p99_reach"][1] is None)

# Jain, busy, control
check("Jain of equal shares is 1", abs(jain([2, 2, 2, 2]) - 1) < 1e-9)
check("Jain of one of four is 0.25", abs(jain([4, 0, 0, 0]) - 0.25) < 1e-9)
check("Jain of nothing is None", jain([]) is None and jain([0, 0]) is None)
b = busy([(0, 0), (int(2e9), 10 * 1000 * 1000 * 2 // 8)], 10)
check("busy: 2 s at the full 10 Mbit/s is 1.0", abs(b - 1.0) < 1e-9)
check("busy: one sample is None", busy([(0, 0)], 10) is None)
c = control({"tx_packets": 10, "tx_data": 5, "tx_bytes": 100},
            {"tx_packets": 115, "tx_data": 85, "tx_bytes": 100 + 80 * 1432 + 25 * 32})
check("control: packets are every non-DATA packet sent", c[0] == 25 and c[1] == 80)
check("control: per DATA packet", abs(c[2] - 25 / 80) < 1e-9)
check("control: bytes on the wire, 74 a control packet, DATA's with 42 below",
      abs(c[3] - 25 * 74 / (80 * (1432 + 42))) < 1e-9)
sys.exit(plan())
