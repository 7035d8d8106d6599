#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pl2_incast_values.py DIR NAME N CLIENT

One case of scenario/pl2-incast: what the senders, the receiver, the
switch, the qdiscs and the RPC client recorded in DIR, as shell
assignments (the fields are listed above the call in pl2-incast.sh)."""

import json, sys
d, name, n, cli = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
out = {}

def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}

def stats(p):
    v = {}
    try:
        for line in open(p):
            k, x = line.split()
            v[k] = int(x)
    except (OSError, ValueError):
        pass
    return v

names = ("tx_packets tx_retx_packets tx_timeout tx_acked tx_msgs tx_refused "
         "rx_dup_packets rx_resend_quiet rx_resend_trimmed rx_msgs rx_trimmed "
         "tx_rsv rx_rsv tx_grt rx_grt tx_data rx_data pl2_bursts pl2_burst_pkts pl2_grts "
         "pl2_rsv_timeout pl2_grt_stale pl2_unsol pl2_unsol_resent "
         "pl2_rsv_answered pl2_wait_ns pl2_rsv_grt_ns").split()
hosts = {}
for h in range(cli + 1):
    a = stats("%s/%s.before.stats%d" % (d, name, h))
    b = stats("%s/%s.after.stats%d" % (d, name, h))
    hosts[h] = {k: (b[k] - a.get(k, 0)) if k in b else -1 for k in names}
for k in names:
    out["rx_" + k] = hosts[0][k]
    out["cli_" + k] = hosts[cli][k]
    vals = [hosts[h][k] for h in range(1, n + 1)]
    out["tx_" + k] = -1 if -1 in vals else sum(vals)
    vals = [hosts[h][k] for h in hosts]
    out["all_" + k] = -1 if -1 in vals else sum(vals)

def qdrops(p):
    t = 0
    for q in load(p) or []:
        t += q.get("drops", 0)
    return t
up = 0
for h in range(cli + 1):
    up += qdrops("%s/%s.after.up%d" % (d, name, h)) - \
        qdrops("%s/%s.before.up%d" % (d, name, h))
out["up_drops"] = up

swf = ("rsv", "data", "unsol", "unsol_drop", "clamp", "expired", "malformed",
       "grt_err")
a = {p["dev"]: p for p in load("%s/%s.before.sw" % (d, name)).get("ports", [])}
b = {p["dev"]: p for p in load("%s/%s.after.sw" % (d, name)).get("ports", [])}
for k in swf:
    out["sw_" + k] = sum(p.get(k, 0) - a.get(dev, {}).get(k, 0)
                         for dev, p in b.items()) if b else -1
out["sw_res"] = sum(p["in_res"] + p["out_res"] for p in b.values()) if b else -1
out["sw_ports"] = len(b)
for dev, p in b.items():
    out["sw_%s_in_res" % dev] = p["in_res"]
    out["sw_%s_out_res" % dev] = p["out_res"]

for k in ("peak", "drops", "sent", "inelig_drop"):
    out["q_" + k] = -1
for q in load("%s/%s.qdisc" % (d, name)) or []:
    if q.get("handle") == "10:":
        out["q_peak"] = q.get("data_qlen_max", -1)
        out["q_drops"] = q.get("drops", -1)
        out["q_inelig_drop"] = q.get("inelig_drop", -1)
        out["q_sent"] = q.get("packets", -1)

r = load("%s/%s.rx" % (d, name))
for k in ("good", "bad", "duplicates"):
    out["m_" + k] = r.get(k, -1)
for i in range(1, cli + 1):
    out["m_tag%d" % i] = r.get("tags", {}).get(str(i), 0)
acked = failed = 0
errs = 0
el = 0.0
for i in range(1, n + 1):
    t = load("%s/%s.tx%d" % (d, name, i))
    acked += t.get("tx_acked", 0)
    failed += t.get("tx_failed", 0) if t else 1000
    errs += sum(t.get("errors", {"x": 1000}).values())
    el = max(el, t.get("elapsed", 0))
out.update({"m_acked": acked, "m_failed": failed, "m_errors": errs,
            "m_elapsed": el})

p = load("%s/%s.rpc" % (d, name))
m = p.get("messages", {})
for k in ("issued", "completed", "failed", "unanswered", "dropped_arrivals"):
    out["rpc_" + k] = m.get(k, -1)
lat = [x for x in p.get("buckets", []) if x.get("name") == "all"]
lat = lat[0].get("latency_us", {}) if lat else {}
for k in ("p50", "p99", "max"):
    out["rpc_" + k] = int(lat.get(k, -1))
# how late the client's timer fired for its arrivals, at most: the guest's
# timers' lateness in the run's window
out["rpc_lag_max"] = int(p.get("arrival_lag_us", {}).get("max", -1))
for k, v in sorted(out.items()):
    print("%s=%s" % (k, v))
