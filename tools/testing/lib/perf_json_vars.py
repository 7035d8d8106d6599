#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf_json_vars.py FILE

shoal-perf's client JSON as shell assignments for scenario/shoal-perf;
parse=0 if it does not parse."""

import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("parse=0")
    sys.exit(0)
m = d["messages"]
print("parse=1")
for k in ("issued", "completed", "failed", "unanswered", "dropped_arrivals", "unknown_answers"):
    print("%s=%d" % (k, m[k]))
for k in ("offered_mbps", "issued_mbps", "goodput_mbps", "idle_rtt_us"):
    print("%s=%s" % (k, d[k]))
nonempty = [b for b in d["buckets"] if b["count"] > 0 and b["name"] != "all"]
ok = [b for b in nonempty if b.get("slowdown", {}).get("p99", 0) > 0
      and b["slowdown"]["p50"] > 0 and b["slowdown"]["p99"] >= b["slowdown"]["p50"]]
print("groups=%d" % len(nonempty))
print("groups_p99=%d" % len(ok))
print("summary=\x27%s\x27" % " ".join("%s:%d/p50=%.2f/p99=%.2f" % (b["name"], b["count"],
      b["slowdown"]["p50"], b["slowdown"]["p99"]) for b in nonempty))
# percent of offered and of issued, integers for (( ))
print("gp_offered_pct=%d" % round(100 * d["goodput_mbps"] / d["offered_mbps"]))
print("gp_issued_pct=%d" % round(100 * d["goodput_mbps"] / max(d["issued_mbps"], 1e-9)))
print("issued_pct=%d" % round(100 * d["issued_mbps"] / d["offered_mbps"]))
print("gp_link_pct=%d" % round(100 * d["goodput_mbps"] / d["link_mbps"]))
print("slowest_us=%d" % max([b.get("latency_us", {}).get("max", 0) for b in d["buckets"]]))
print("sock_tx_failed=%d" % d.get("socket", {}).get("tx_failed", 0))
# every completion time listed, sorted, and the "all" group's p99 among them
t = d.get("completion_us")
al = [b for b in d["buckets"] if b["name"] == "all" and b["count"]]
print("times=%d" % (len(t) if isinstance(t, list) else -1))
print("times_ok=%d" % (isinstance(t, list) and t == sorted(t) and bool(al) and
                       any(abs(x - al[0]["latency_us"]["p99"]) <= 1 for x in t)))
