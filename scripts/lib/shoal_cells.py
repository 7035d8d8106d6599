# SPDX-License-Identifier: GPL-2.0
"""The numbers and verdicts shared by the Shoal transport's demo and bench
reports over trimming and overloaded ports (demo_shoal_report.py,
bench_shoal_trim_report.py): one cell is one transport's run, every
sender's shoal-perf client JSON together.  Verdicts are computed here
from the numbers, never printed as a claim; test_shoal_cells.py tests
them (make check T=unit).  Imports nothing of the guest."""
import math, statistics

# bytes on the wire below a Shoal header: UDP, IPv4, Ethernet
HDR, UNDER = 32, 8 + 20 + 14


def cell(clients, n, burst_ms=0.0):
    """One run from its senders' JSON (None for a sender with no result):
    ok (all n gave one), missing (how many did not: their messages are
    unknown), elapsed (s, the longest sender's), gp (Mbit/s: every
    sender's answered request bytes over elapsed), issued, completed,
    completed_bytes, failed, unanswered, lost (failed + unanswered), failures
    {errno: count}, p50, p99 and max of the completion times (ms, None
    when no message completed): over every sender's messages together
    (pooled True) when each JSON lists them (completion_us), else, from
    an older shoal-perf, the median of the senders' medians and the
    largest of their p99s and maxima; floor_p50 and floor_p99 (ms, None
    without serial_us): the same percentiles of the messages' own bytes at
    the link rate less burst_ms (what the port's shaper passes at once
    after an idle spell), which no transport's completion times can be
    below: each message takes at least its own, so every rank does"""
    cs = [c for c in clients if c]
    r = {"ok": len(cs) == n and n > 0, "missing": n - len(cs), "issued": 0,
         "completed": 0, "completed_bytes": 0, "failed": 0, "unanswered": 0, "failures": {}}
    for c in cs:
        m = c.get("messages", {})
        for k in ("issued", "completed", "completed_bytes", "failed", "unanswered"):
            r[k] += m.get(k, 0)
        for e, v in (c.get("failures") or {}).items():
            r["failures"][e] = r["failures"].get(e, 0) + v
    r["lost"] = r["failed"] + r["unanswered"]
    r["elapsed"] = max([c.get("elapsed_s", 0) for c in cs] or [0])
    r["gp"] = r["completed_bytes"] * 8 / r["elapsed"] / 1e6 if r["elapsed"] else 0.0
    r["pooled"] = bool(cs) and all("completion_us" in c for c in cs)
    r["floor_p50"] = r["floor_p99"] = None
    if cs and all("serial_us" in c for c in cs):
        v = sorted(x for c in cs for x in c["serial_us"])
        if v:
            r["floor_p50"] = max(0.0, pct(v, 0.5) / 1e3 - burst_ms)
            r["floor_p99"] = max(0.0, pct(v, 0.99) / 1e3 - burst_ms)
    if r["pooled"]:
        v = sorted(x for c in cs for x in c["completion_us"])
        r["p50"], r["p99"] = pct(v, 0.5), pct(v, 0.99)
        r["max"] = v[-1] / 1e3 if v else None
        r["p50"] = r["p50"] and r["p50"] / 1e3
        r["p99"] = r["p99"] and r["p99"] / 1e3
        return r
    lat = [b["latency_us"] for c in cs for b in c.get("buckets", [])
           if b.get("name") == "all" and b.get("count")]
    r["p50"] = statistics.median(x["p50"] for x in lat) / 1e3 if lat else None
    r["p99"] = max(x["p99"] for x in lat) / 1e3 if lat else None
    r["max"] = max(x["max"] for x in lat) / 1e3 if lat else None
    return r


def pct(v, p):
    """The nearest-rank percentile p of the sorted list v (shoal-perf's
    own), None if v is empty"""
    if not v:
        return None
    k = max(1, math.ceil(p * len(v)))
    return v[min(k, len(v)) - 1]


def ratio(a, b):
    """a / b, None if either is missing or b is 0"""
    if a is None or b is None or not b:
        return None
    return a / b


def complete(r):
    """Every message of the run completed: every sender gave a result,
    none failed, none was left unanswered, and some were issued"""
    return bool(r and r["ok"] and r["lost"] == 0 and r["issued"] > 0
                and r["completed"] == r["issued"])


# the goodput goal's tolerance: both transports carry the same seeded
# arrivals, so when both complete everything their goodputs differ only
# by when the last answer came (the time base)
GP_TOL = 0.98


def goals(s, t):
    """The issue's goals of a Shoal run s against a TCP run t on the same
    port and arrivals: {key: (label, verdict, detail)}, key p99, p50, gp
    and complete, verdict True, False or None (no number to judge, which
    counts as not met), detail the ratio s / t (or the count completed);
    and p99_reach, p50_reach: whether the goal's bar (half of t's p99,
    t's p50) is at least s's floor (cell()), False where no transport
    could meet it, None without a floor"""
    def one(label, x, ok):
        return (label, None if x is None else ok(x), "-" if x is None else "%.2fx" % x)
    p99 = ratio(s.get("p99"), t.get("p99")) if s and t else None
    p50 = ratio(s.get("p50"), t.get("p50")) if s and t else None
    gp = ratio(s.get("gp"), t.get("gp")) if s and t else None
    return {
        "p99": one("p99 <= 0.5x", p99, lambda x: x <= 0.5),
        "p50": one("p50 <= 1x", p50, lambda x: x <= 1.0),
        "gp": one("goodput >= %.2fx" % GP_TOL, gp, lambda x: x >= GP_TOL),
        "complete": ("all complete", complete(s),
                     "%d of %d" % (s["completed"], s["issued"]) if s else "-"),
        "p99_reach": reach(t and t.get("p99"), 0.5, s and s.get("floor_p99")),
        "p50_reach": reach(t and t.get("p50"), 1.0, s and s.get("floor_p50")),
    }


def reach(tcp, k, floor):
    """(label, verdict, detail) of a bar k x tcp against a floor: True if
    the bar is at least the floor, None when either is missing"""
    if tcp is None or floor is None:
        return ("reachable", None, "-")
    return ("reachable", k * tcp >= floor, "bar %.1f ms, floor %.1f ms" % (k * tcp, floor))


def jain(xs):
    """Jain's fairness index of xs: (sum x)^2 / (n sum x^2); None if empty
    or all zero"""
    xs = list(xs)
    sq = sum(x * x for x in xs)
    if not xs or not sq:
        return None
    return sum(xs) ** 2 / (len(xs) * sq)


def busy(samples, rate_mbps):
    """The port's busy fraction from perf_port_sample lines ("<ns>
    <bytes>", the first and last taken): the bytes its root sent over the
    time between them, against the rate; None with fewer than two"""
    if len(samples) < 2:
        return None
    (t0, b0), (t1, b1) = samples[0], samples[-1]
    if t1 <= t0 or rate_mbps <= 0:
        return None
    return (b1 - b0) * 8 / ((t1 - t0) / 1e9) / (rate_mbps * 1e6)


def control(before, after):
    """What SIRD's control costs against its data, from every host's
    /proc/net/shoal/stats before and after a run (perf_report.stats):
    control packets are every Shoal packet sent that is not DATA (CREDIT,
    RESEND, ACK, BUSY, CREDIT_REQ, UNKNOWN, ABORT: tx_packets - tx_data),
    each HDR + UNDER bytes on the wire; data bytes are DATA's on the wire,
    resent DATA included.  Returns (control packets, DATA packets, control
    packets / DATA packets, control bytes / DATA bytes), the shares None
    without DATA"""
    def d(k):
        return after.get(k, 0) - before.get(k, 0)
    data_pkts = d("tx_data")
    ctrl = d("tx_packets") - data_pkts
    data_bytes = d("tx_bytes") - HDR * ctrl + UNDER * data_pkts
    return (ctrl, data_pkts, ratio(ctrl, data_pkts),
            ratio(ctrl * (HDR + UNDER), data_bytes))


def verdict(ok):
    """The word of a verdict: met, or NOT met (also for no number)"""
    return "met" if ok else "NOT met"


def held(vs):
    """(met, k): a goal over several cells is met when it held in every
    one of them, k of which it held in"""
    ok = sum(1 for v in vs if v)
    return bool(vs) and ok == len(vs), ok


def tally(what, vs):
    """A goal over several cells: 'goal: WHAT: met|NOT met (k of n cells)'"""
    met, ok = held(vs)
    return "goal: %s: %s (%d of %d cells)" % (what, verdict(met), ok, len(vs))


def failures(r):
    """'ETIMEDOUT 3, ECONNRESET 1' or 'none'"""
    f = r.get("failures") or {}
    return ", ".join("%s %d" % (k, v) for k, v in sorted(f.items())) or "none"
