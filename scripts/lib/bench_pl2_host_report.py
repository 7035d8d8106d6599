#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_pl2_host_report.py DIR
bench_pl2_host_report.py --page [--only-complete] [--date D] [--commit C] [--kernel K] DIR OUT_MD

The pl2-host part of `make bench` (scripts/guest/bench-pl2-host.sh, issue
25): sch_pl2 on every sender, pl2-switch --any-transport on the switch,
against the same TCP cubic and plain UDP without PL2.

The first form reads what the part left in DIR (meta: its parameters;
tcp-runs, udp-runs, cost-samples: the cases that ran; each case's
shoal-perf, shoal-blast and shoal-sink JSON, the receiver's port, the
senders' qdiscs and the switch's counters) and prints a table per section
(the small RPCs' completion times, the incast's RPCs and goodput, the
port's drops and peak queue, the pl2 counters summed over the senders),
the small-RPC p99 ratios against cubic, the cost of pl2 against pfifo,
and the issue's goals, each computed from the numbers ("goal: ...: met"
or "NOT met"), and records them for results.json (bench_record.py).
Exit status 0 once it printed (goals met or not), 1 if DIR holds no
meta.

--page writes a results page (scripts/bench: build/bench/pl2-host.md
after every run that ran the part, Documentation/results/sch_pl2.md with
--only-complete): a short header (the run's end, commit, kernel, knobs)
and the report as the guest printed it (DIR/report.txt).  With
--only-complete nothing is written unless the part ran whole (every
section, every case with its files, and its report exited 0): it says
why not on stderr and exits 2."""

import argparse
import os
import shlex
import statistics
import sys

import bench_record
from perf_report import load, merge_clients, rpc_times

TREE = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SECTIONS = ("tcp", "udp", "cost")
PL2_FIELDS = ("bursts", "burst_pkts", "rsv", "grt", "grt_stale", "waits", "wait_ns", "unsol",
              "timeouts", "rsv_nomem", "rsv_drop", "drop_limit", "drop_flows", "passed")
SW_FIELDS = ("rsv", "foreign", "clamp", "expired", "unsol_drop", "unrouted")


def read_meta(d):
    """the KEY=VALUE lines of d/meta (the last of a key wins), None if none"""
    try:
        with open(os.path.join(d, "meta")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    meta = {}
    for line in lines:
        k, sep, v = line.partition("=")
        if sep:
            meta[k.strip()] = v.strip()
    return meta


def lines_of(path):
    """the whitespace-split lines of path, [] if it is missing"""
    try:
        with open(path) as f:
            return [x.split() for x in f if x.strip()]
    except OSError:
        return []


class Params:
    def __init__(self, meta):
        g = meta.get
        self.n = int(g("senders", 6))
        self.link = float(g("host_mbit", 20))
        self.dur = float(g("BENCH_PL2_HOST_SECONDS", 10))
        self.loads = g("BENCH_PL2_HOST_LOADS", "4 8").split()
        self.qlimit = int(g("BENCH_PL2_HOST_QLIMIT", 100))
        self.rpc_rate = g("BENCH_PL2_HOST_RPC_RATE", "50")
        self.conns = g("BENCH_PL2_HOST_CONNECTIONS", "2")
        self.slot_pct = g("BENCH_PL2_HOST_SLOT_PCT", "100")
        self.slot_ns = int(g("slot_ns", 0))
        self.cost_slot_ns = int(g("cost_slot_ns", 0))
        self.k = int(g("k", 4))
        self.resp, self.req = int(g("resp", 65536)), int(g("req", 100))
        self.rpc_size = int(g("rpc_size", 64))
        self.udp_count = int(g("BENCH_PL2_HOST_UDP_COUNT", 2000))
        self.udp_size, self.udp_pps = int(g("udp_size", 1000)), int(g("udp_pps", 0))
        self.cost_count = int(g("BENCH_PL2_HOST_COST_COUNT", 30000))
        self.cost_rounds = int(g("BENCH_PL2_HOST_COST_ROUNDS", 3))
        self.cost_mbit = g("BENCH_PL2_HOST_COST_MBIT", "10000")
        self.cost_size = int(g("cost_size", 64))
        self.clk_tck = int(g("clk_tck", 100))
        self.cpus = int(g("cpus", 1))
        self.sections = [s for s in g("BENCH_PL2_HOST_SECTIONS", " ".join(SECTIONS)).split()
                         if s in SECTIONS]


# ---- what one case left ----

def port(qdisc):
    """the receiver's port (r0) from its tc -s -j JSON: the FIFO's drops,
    peak in packets and KB (handle 10:); -1 where unknown"""
    q = [x for x in (qdisc or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    return {"drops": q.get("drops", -1), "peak": q.get("data_qlen_max", -1),
            "kb": q.get("data_backlog_max", -1) / 1e3 if "data_backlog_max" in q else -1}


def switch_drops(swq):
    """drops of every root qdisc on the switch's ports (a root counts its
    children's), None if unknown"""
    if swq is None:
        return None
    return sum(q.get("drops", 0) for q in swq if q.get("root"))


def hosts(prefix, n):
    """the senders' eth0 qdiscs (PREFIX.hostI.json, I = 1..n): pl2's
    counters summed, how many senders had pl2, their root qdiscs' drops"""
    s = {k: 0 for k in PL2_FIELDS}
    s["with_pl2"], s["host_drops"], s["files"] = 0, 0, 0
    for i in range(1, n + 1):
        qs = load("%s.host%d.json" % (prefix, i))
        if qs is None:
            continue
        s["files"] += 1
        for q in qs:
            if q.get("root"):
                s["host_drops"] += q.get("drops", 0)
            if q.get("kind") == "pl2":
                s["with_pl2"] += 1
                for k in PL2_FIELDS:
                    s[k] += q.get(k, 0)
    return s


def switch(prefix):
    """pl2-switch show -j summed over its ports, with the ports whose
    counters were not back to 0; None if it was not attached"""
    sw = load(prefix + ".switch")
    if not sw:
        return None
    ports = sw.get("ports", [])
    s = {k: sum(p.get(k, 0) for p in ports) for k in SW_FIELDS}
    s["left"] = ["%s in %d out %d" % (p["dev"], p["in_res"], p["out_res"])
                 for p in ports if p.get("in_res") or p.get("out_res")]
    s["any_transport"] = sw.get("any_transport")
    return s


def wire(path):
    """what the port sent between two samples, Mbit/s; None if unknown"""
    try:
        (t0, b0), (t1, b1) = [(int(a), int(b)) for a, b in lines_of(path)[:2]]
    except ValueError:
        return None
    return (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6 if t1 > t0 else None


def tcp_case(d, p, t, l):
    pre = "%s/%s-%s" % (d, t, l)
    r = {"t": t, "l": l, "pl2": t.endswith("-pl2")}
    rpc = load(pre + "-rpc.json")
    r["rpc_ok"] = rpc is not None
    if rpc:
        r.update(rpc_times(rpc))
        r["rpc_issued"] = rpc["messages"]["issued"]
        r["rpc_dropped"] = rpc["messages"].get("dropped_arrivals", 0)
    paths = ["%s-inc%d.json" % (pre, i) for i in range(1, p.n + 1)]
    m = merge_clients(paths)
    r["inc"] = m
    got = [c for c in (load(x) for x in paths) if c]
    r["inc_dropped"] = sum(c["messages"].get("dropped_arrivals", 0) for c in got)
    el = max([c["elapsed_s"] for c in got] or [0])
    r["inc_el"] = el
    r["gp"] = sum(c["messages"]["response_bytes"] for c in got) * 8 / el / 1e6 if el else None
    r["wire"] = wire(pre + ".rate")
    r["port"] = port(load(pre + ".qdisc"))
    r["sw_drops"] = switch_drops(load(pre + ".swq"))
    r["hosts"] = hosts(pre, p.n + 1)
    r["sw"] = switch(pre)
    r["complete"] = bool(rpc) and not m["missing"] and r["port"]["drops"] >= 0
    return r


def udp_case(d, p, t, softnet):
    pre = "%s/%s" % (d, t)
    r = {"t": t, "pl2": t.endswith("-pl2"), "softnet": softnet}
    blasts = [load("%s/blast-%d.json" % (pre, i)) for i in range(1, p.n + 1)]
    r["blasts"] = sum(1 for b in blasts if b)
    r["sent"] = sum(b.get("sent", 0) for b in blasts if b)
    r["send_errors"] = sum(b.get("send_errors", 0) for b in blasts if b)
    sink = load(pre + "/sink.json") or {}
    r["sink_ok"] = bool(sink)
    r["arrived"] = sink.get("distinct", -1)
    r["dups"] = sink.get("duplicates", -1)
    r["delay"] = sink.get("delay_us", {}).get("whole", {})
    r["port"] = port(load(pre + "/qdisc.json"))
    r["sw_drops"] = switch_drops(load(pre + ".swq"))
    r["hosts"] = hosts(pre, p.n + 1)
    r["sw"] = switch(pre)
    r["complete"] = r["blasts"] == p.n and r["sink_ok"] and r["port"]["drops"] >= 0
    return r


def cost_runs(d, p):
    """one dict per line of cost-samples"""
    out = []
    for f in lines_of(d + "/cost-samples"):
        if len(f) < 20:
            continue
        q, rnd = f[0], int(f[1])
        # $EPOCHREALTIME, whose separator is the locale's
        t0, t1 = float(f[2].replace(",", ".")), float(f[3].replace(",", "."))
        c0, c1 = [int(x) for x in f[4:12]], [int(x) for x in f[12:20]]
        # user nice system idle iowait irq softirq steal
        dc = [b - a for a, b in zip(c0, c1)]
        busy = dc[0] + dc[1] + dc[2] + dc[5] + dc[6]
        total = sum(dc)
        cd = "%s/cost-%s-%d" % (d, q, rnd)
        b = load(cd + "/blast-1.json") or {}
        s = load(cd + "/sink.json") or {}
        qs = load(cd + "/host.json") or []
        pl2 = [x for x in qs if x.get("kind") == "pl2"]
        sent = b.get("sent", 0)
        out.append({
            "q": q, "round": rnd, "wall": t1 - t0, "busy_s": busy / p.clk_tck,
            "busy_cpus": busy / total * p.cpus if total else None,
            "sent": sent, "blast_pps": b.get("pps"), "retries": b.get("retries", 0),
            "arrived": s.get("distinct", -1),
            "rx_pps": s.get("per_sender", {}).get("1", {}).get("rate_pps"),
            "us_pkt": busy / p.clk_tck * 1e6 / sent if sent else None,
            "pl2": pl2[0] if pl2 else None})
    return out


class Run:
    def __init__(self, d):
        self.d = d
        self.meta = read_meta(d)
        self.p = Params(self.meta or {})
        p = self.p
        self.tcp = [tcp_case(d, p, f[0], f[1]) for f in lines_of(d + "/tcp-runs") if len(f) >= 2]
        self.drains = {(f[0], f[1]): f[2] for f in lines_of(d + "/tcp-runs") if len(f) >= 3}
        self.udp = [udp_case(d, p, f[0], int(f[1]) if len(f) > 1 and f[1].isdigit() else -1)
                    for f in lines_of(d + "/udp-runs")]
        self.cost = cost_runs(d, p)
        self.cost_sw = switch(d + "/cost")

    def find_tcp(self, t, l):
        return next((r for r in self.tcp if r["t"] == t and r["l"] == l), None)

    def find_udp(self, t):
        return next((r for r in self.udp if r["t"] == t), None)

    def missing(self):
        """what the part did not run of all it runs by default"""
        p, out = self.p, []
        for s in SECTIONS:
            if s not in p.sections:
                out.append("section %s (BENCH_PL2_HOST_SECTIONS)" % s)
        if "tcp" in p.sections:
            for l in p.loads:
                for t in ("cubic", "cubic-pl2"):
                    r = self.find_tcp(t, l)
                    if not r or not r["complete"]:
                        out.append("%s at %sx" % (t, l))
        if "udp" in p.sections:
            for t in ("udp", "udp-pl2"):
                r = self.find_udp(t)
                if not r or not r["complete"]:
                    out.append(t)
        if "cost" in p.sections:
            for q in ("pfifo", "pl2"):
                n = sum(1 for c in self.cost if c["q"] == q and c["sent"])
                if n < p.cost_rounds:
                    out.append("cost: %d of %d %s runs" % (n, p.cost_rounds, q))
        return out


# ---- printing ----

def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def ratio(a, b):
    return a / b if a is not None and b else None


def goal(what, ok, why="", **figures):
    print("goal: %s: %s%s" % (what, "met" if ok else "NOT met", " (%s)" % why if why else ""))
    bench_record.goal("pl2-host", what, ok, **figures)


def pl2_cols(h):
    if not h["with_pl2"]:
        return "%6s %6s %5s %6s %5s" % ("-", "-", "-", "-", "-")
    return "%6d %6d %5d %6d %5.2f" % (h["rsv"], h["grt"], h["timeouts"], h["bursts"],
                                      h["burst_pkts"] / h["bursts"] if h["bursts"] else 0)


def pl2_figures(h):
    """pl2_cols()'s numbers, for a case"""
    if not h["with_pl2"]:
        return dict.fromkeys(("rsv", "grt", "timeouts", "bursts", "pkts_per_burst"))
    return {"rsv": h["rsv"], "grt": h["grt"], "timeouts": h["timeouts"], "bursts": h["bursts"],
            "pkts_per_burst": h["burst_pkts"] / h["bursts"] if h["bursts"] else 0}


def header(run):
    p = run.p
    print("pl2-host: sch_pl2 on every sender (unmodified TCP cubic and plain UDP), pl2-switch"
          " --any-transport on every")
    print("switch port, against the same traffic without PL2 (issue 25): %d incast senders and"
          " 1 small-RPC client" % p.n)
    print("-> switch -> 1 receiver; every link %g Mbit/s both ways (tbf), the port to the receiver"
          " one drop-tail FIFO" % p.link)
    print("of %d full packets (%d KB). With PL2 each sender's tbf has `pl2 rate %gmbit slot %.1fus"
          " k %d` as its child" % (p.qlimit, p.qlimit * 1514 / 1000, p.link, p.slot_ns / 1e3,
                                   p.k))
    print("(a slot: a 1514-byte frame at %s%% of the link) and the switch runs counter mode,"
          " --kmax %d, the same slot;" % (p.slot_pct, p.k))
    print("without PL2 the tbf has its default FIFO and the switch program is detached.")


def tcp_section(run):
    p = run.p
    print()
    print("== TCP cubic RPCs: each incast sender's server answers %d-byte requests with %d KB, a"
          " client per sender" % (p.req, p.resp // 1024))
    print("   on the receiver asks it open loop (Poisson), together LOAD x the port in answer"
          " bytes for %g s" % p.dur)
    print("   (%s connections each, then up to the drain for the last answers); the RPC client"
          " sends %s small" % (p.conns, p.rpc_rate))
    print("   requests a second (%d B, answered by 8 B, Poisson) to the receiver for the same %g s,"
          " across the port" % (p.rpc_size, p.dur))
    print()
    print("%-10s %4s %9s %6s %6s %6s %5s %5s %5s %6s %5s %5s %5s %5s %6s %6s %5s %6s %5s" % (
        "case", "load", "small", "p50", "p99", "max", "inc", "ans", "lost", "gput", "link",
        "wire", "peak", "drops", "rsv", "grt", "tmo", "bursts", "pkts"))
    print("(small: small RPCs answered (failed or unanswered); p50..max: their completion times,"
          " ms; inc, ans, lost:")
    print(" the incast's RPCs issued, answered, failed or unanswered or dropped on arrival;"
          " gput: the incast's answer")
    print(" bytes, Mbit/s, over the last client's time, link: that over the link; wire: what the"
          " port sent over the")
    print(" middle half of the arrivals, over the link; peak, drops: the port's longest queue,"
          " packets, and its drops;")
    print(" rsv, grt, tmo, bursts, pkts: pl2's RSVs, GRTs, bursts sent on timeout, bursts and"
          " packets a burst,")
    print(" summed over the %d senders)" % (p.n + 1))
    for r in run.tcp:
        m = r["inc"]
        lost = m["failed"] + m["unanswered"] + r["inc_dropped"]
        small = "%d" % r.get("n", 0) + ("(%d)" % r["lost"] if r.get("lost") else "")
        if not r["rpc_ok"]:
            small = "none"
        print("%-10s %4s %9s %6s %6s %6s %5d %5d %5d %6s %5s %5s %5d %5d %s" % (
            r["t"], r["l"] + "x", small, f(r.get("p50")), f(r.get("p99")), f(r.get("max")),
            m["issued"], m["completed"], lost, f(r["gp"], "%.2f"),
            f(ratio(r["gp"], p.link), "%.2f"), f(ratio(r["wire"], p.link), "%.2f"),
            r["port"]["peak"], r["port"]["drops"], pl2_cols(r["hosts"])))
        bench_record.case("pl2-host", "%s %sx" % (r["t"], r["l"]),
                          small=r.get("n", 0) if r["rpc_ok"] else None,
                          small_lost=r.get("lost", 0) if r["rpc_ok"] else None,
                          p50_ms=r.get("p50"), p99_ms=r.get("p99"), max_ms=r.get("max"),
                          inc_issued=m["issued"], inc_answered=m["completed"], inc_lost=lost,
                          goodput_mbps=r["gp"], goodput_of_link=ratio(r["gp"], p.link),
                          wire_of_link=ratio(r["wire"], p.link), peak_pkts=r["port"]["peak"],
                          drops=r["port"]["drops"], **pl2_figures(r["hosts"]))
    for r in run.tcp:
        notes = []
        m = r["inc"]
        if m["missing"]:
            notes.append("%d of %d incast clients left no result" % (m["missing"], p.n))
        if r["inc_dropped"] or r.get("rpc_dropped"):
            notes.append("arrivals dropped by the clients: incast %d, small %d"
                         % (r["inc_dropped"], r.get("rpc_dropped", 0)))
        if m["unanswered"]:
            notes.append("%d incast RPCs unanswered after the drain (%s s)"
                         % (m["unanswered"], run.drains.get((r["t"], r["l"]), "?")))
        h = r["hosts"]
        if h["host_drops"]:
            notes.append("the senders' own qdiscs dropped %d" % h["host_drops"])
        if r["pl2"] and h["with_pl2"] < p.n + 1:
            notes.append("only %d of %d senders had pl2" % (h["with_pl2"], p.n + 1))
        if r["pl2"] and (h["drop_limit"] or h["drop_flows"] or h["rsv_drop"] or h["grt_stale"]):
            notes.append("pl2: %d dropped at its limit, %d for want of a flow, %d RSVs dropped,"
                         " %d stale GRTs" % (h["drop_limit"], h["drop_flows"], h["rsv_drop"],
                                             h["grt_stale"]))
        if r["pl2"] and h["waits"]:
            notes.append("pl2: bursts waited %.0f us for their slot on average"
                         % (h["wait_ns"] / h["waits"] / 1e3))
        sw = r["sw"]
        if sw:
            notes.append("switch: %d RSVs answered, %d packets of other transports counted, %d"
                         " clamps, %d expired, %d unsolicited dropped; left: %s"
                         % (sw["rsv"], sw["foreign"], sw["clamp"], sw["expired"],
                            sw["unsol_drop"], ", ".join(sw["left"]) or "none"))
        elif r["pl2"]:
            notes.append("no switch counters")
        if notes:
            print("%s at %sx: %s" % (r["t"], r["l"], "; ".join(notes)))
    print()
    for l in p.loads:
        c, q = run.find_tcp("cubic", l), run.find_tcp("cubic-pl2", l)
        if not c or not q:
            continue
        print("at %sx, cubic-pl2 / cubic: small-RPC p99 %s, p50 %s; incast goodput %s"
              % (l, f(ratio(q.get("p99"), c.get("p99")), "%.2fx"),
                 f(ratio(q.get("p50"), c.get("p50")), "%.2fx"),
                 f(ratio(q["gp"], c["gp"]), "%.2fx")))
        bench_record.case("pl2-host", "cubic-pl2/cubic %sx" % l,
                          p99_ratio=ratio(q.get("p99"), c.get("p99")),
                          p50_ratio=ratio(q.get("p50"), c.get("p50")),
                          goodput_ratio=ratio(q["gp"], c["gp"]))


def udp_section(run):
    p = run.p
    print()
    print("== plain UDP (shoal-blast to port 9000, not Shoal's): each of the %d senders sends %d"
          " datagrams of %d B" % (p.n, p.udp_count, p.udp_size))
    print("   at the port's rate (%d a second): together %dx the port" % (p.udp_pps, p.n))
    print()
    print("%-8s %7s %7s %6s %5s %6s %8s %8s %6s %6s %5s %6s %5s" % (
        "case", "sent", "arrived", "lost%", "peak", "drops", "p50 ms", "p99 ms", "rsv", "grt",
        "tmo", "bursts", "pkts"))
    print("(arrived: distinct datagrams at the receiver; peak, drops: the port's; p50, p99: the"
          " datagrams' one-way")
    print(" delays; rsv..pkts: pl2's, summed over the senders)")
    for r in run.udp:
        lost = 100.0 * (r["sent"] - r["arrived"]) / r["sent"] if r["sent"] and \
            r["arrived"] >= 0 else None
        dl = r["delay"]
        print("%-8s %7d %7d %6s %5d %6d %8s %8s %s" % (
            r["t"], r["sent"], r["arrived"], f(lost), r["port"]["peak"], r["port"]["drops"],
            f(dl["p50"] / 1e3 if "p50" in dl else None),
            f(dl["p99"] / 1e3 if "p99" in dl else None), pl2_cols(r["hosts"])))
        bench_record.case("pl2-host", r["t"], sent=r["sent"], arrived=r["arrived"], lost_pct=lost,
                          peak_pkts=r["port"]["peak"], drops=r["port"]["drops"],
                          p50_ms=dl["p50"] / 1e3 if "p50" in dl else None,
                          p99_ms=dl["p99"] / 1e3 if "p99" in dl else None,
                          **pl2_figures(r["hosts"]))
    for r in run.udp:
        notes = []
        if r["blasts"] < p.n:
            notes.append("%d of %d blasters left no result" % (r["blasts"], p.n))
        if r["send_errors"]:
            notes.append("%d datagrams not sent (errors)" % r["send_errors"])
        if r["softnet"] > 0:
            notes.append("the guest's backlogs dropped %d (the count is spoilt)" % r["softnet"])
        if r["dups"] > 0:
            notes.append("%d duplicates" % r["dups"])
        h = r["hosts"]
        if h["host_drops"]:
            notes.append("the senders' own qdiscs dropped %d" % h["host_drops"])
        sw = r["sw"]
        if sw:
            notes.append("switch: %d RSVs answered, %d packets of other transports counted;"
                         " left: %s" % (sw["rsv"], sw["foreign"], ", ".join(sw["left"]) or "none"))
        if notes:
            print("%s: %s" % (r["t"], "; ".join(notes)))


def cost_stats(run):
    """per round the ratio pl2 / pfifo of CPU per packet and of the rate
    delivered, and their medians and ranges; None if no round has both"""
    rounds = sorted({c["round"] for c in run.cost})
    cpu, rx, tx = [], [], []
    for rnd in rounds:
        a = next((c for c in run.cost if c["q"] == "pfifo" and c["round"] == rnd), None)
        b = next((c for c in run.cost if c["q"] == "pl2" and c["round"] == rnd), None)
        if not a or not b:
            continue
        if ratio(b["us_pkt"], a["us_pkt"]) is not None:
            cpu.append(b["us_pkt"] / a["us_pkt"])
        if ratio(b["rx_pps"], a["rx_pps"]) is not None:
            rx.append(b["rx_pps"] / a["rx_pps"])
        if ratio(b["blast_pps"], a["blast_pps"]) is not None:
            tx.append(b["blast_pps"] / a["blast_pps"])
    if not cpu:
        return None
    return {k: (statistics.median(v), min(v), max(v), len(v)) if v else None
            for k, v in (("cpu", cpu), ("rx", rx), ("tx", tx))}


def cost_section(run):
    p = run.p
    print()
    print("== the cost: sender 1 blasts %d datagrams of %d B as fast as it can to the receiver,"
          " no shaper on the path," % (p.cost_count, p.cost_size))
    print("   pl2-switch attached (slot %d ns); its eth0's root `pfifo limit 10000` or `pl2 rate"
          " %smbit slot %dns k %d" % (p.cost_slot_ns, p.cost_mbit, p.cost_slot_ns, p.k))
    print("   limit 100000`, the order alternating by round; CPU: the guest's busy time (%d CPUs,"
          " /proc/stat) from" % p.cpus)
    print("   the blaster's start to the sink's last datagram, per datagram sent (the sink's and"
          " the switch's work too)")
    print()
    print("%-6s %5s %7s %7s %9s %9s %8s %6s %6s %5s %6s" % (
        "qdisc", "round", "sent", "arrived", "sent/s", "rcvd/s", "CPU us", "busy", "s", "rsv",
        "tmo"))
    print("(sent/s: the blaster's rate; rcvd/s: the rate at the receiver, first to last datagram;"
          " CPU us: busy CPU")
    print(" time per datagram sent; busy: CPUs busy on average; s: the run's wall time; rsv, tmo:"
          " pl2's RSVs and bursts")
    print(" sent on timeout)")
    for c in sorted(run.cost, key=lambda c: (c["round"], c["q"])):
        q = c["pl2"]
        print("%-6s %5d %7d %7d %9s %9s %8s %6s %6.2f %5s %6s" % (
            c["q"], c["round"], c["sent"], c["arrived"], f(c["blast_pps"], "%.0f"),
            f(c["rx_pps"], "%.0f"), f(c["us_pkt"], "%.2f"), f(c["busy_cpus"], "%.2f"), c["wall"],
            "%d" % q.get("rsv", 0) if q else "-", "%d" % q.get("timeouts", 0) if q else "-"))
        bench_record.case("pl2-host", "cost %s %d" % (c["q"], c["round"]), sent=c["sent"],
                          arrived=c["arrived"], sent_pps=c["blast_pps"], rcvd_pps=c["rx_pps"],
                          cpu_us=c["us_pkt"], busy_cpus=c["busy_cpus"], wall_s=c["wall"],
                          rsv=q.get("rsv", 0) if q else None,
                          timeouts=q.get("timeouts", 0) if q else None)
    st = cost_stats(run)
    if st:
        def rr(k):
            v = st[k]
            return "-" if v is None else "%.2fx (%.2f-%.2f)" % v[:3]
        print("pl2 / pfifo, median of %d rounds' ratios (range): CPU per datagram %s; rate at the"
              " receiver %s;" % (st["cpu"][3], rr("cpu"), rr("rx")))
        print("  the blaster's rate %s" % rr("tx"))
        bench_record.case("pl2-host", "cost pl2/pfifo", rounds=st["cpu"][3],
                          **{k + "_ratio": st[k] and st[k][0] for k in ("cpu", "rx", "tx")})
    if run.cost_sw:
        sw = run.cost_sw
        print("switch over the cost runs: %d RSVs answered, %d packets of other transports"
              " counted; left: %s" % (sw["rsv"], sw["foreign"], ", ".join(sw["left"]) or "none"))


def goals(run):
    p = run.p
    print()
    print("issue 25's goals, from the numbers above:")
    if "tcp" in p.sections:
        for l in p.loads:
            c, q = run.find_tcp("cubic", l), run.find_tcp("cubic-pl2", l)
            if not q:
                for what in ("with pl2, zero drops at the switch", "with pl2, every RPC answered",
                             ", small-RPC p99 with pl2 at most half of cubic's without"):
                    goal("TCP at %sx%s%s" % (l, "" if what[0] == "," else " ", what), False,
                         "cubic-pl2 not run")
                continue
            d = [q["port"]["drops"], q["sw_drops"], q["sw"]["unsol_drop"] if q["sw"] else None]
            ok = q["port"]["drops"] == 0 and q["sw_drops"] == 0 and q["sw"] is not None and \
                q["sw"]["unsol_drop"] == 0
            known = [None if x is None or x < 0 else x for x in d]
            goal("TCP at %sx with pl2, zero drops at the switch" % l, ok,
                 "the port %s, the switch's qdiscs %s, its program %s"
                 % tuple("?" if x is None else x for x in known),
                 port_drops=known[0], switch_drops=known[1], program_drops=known[2])
            m = q["inc"]
            lost = m["failed"] + m["unanswered"] + q["inc_dropped"]
            ok = q["rpc_ok"] and not m["missing"] and m["issued"] > 0 and \
                m["completed"] == m["issued"] and not lost and not q.get("lost") and \
                not q.get("rpc_dropped") and q.get("n", 0) > 0
            goal("TCP at %sx with pl2, every RPC answered" % l, ok,
                 "incast %d of %d, %d lost, %d clients missing; small %d, %d lost"
                 % (m["completed"], m["issued"], lost, m["missing"], q.get("n", 0),
                    q.get("lost", 0) + q.get("rpc_dropped", 0)),
                 inc_answered=m["completed"], inc_issued=m["issued"], inc_lost=lost,
                 missing=m["missing"], small=q.get("n", 0),
                 small_lost=q.get("lost", 0) + q.get("rpc_dropped", 0))
            rt = ratio(q.get("p99"), c.get("p99")) if c else None
            goal("TCP at %sx, small-RPC p99 with pl2 at most half of cubic's without" % l,
                 rt is not None and rt <= 0.5,
                 "%s / %s ms = %s" % (f(q.get("p99")), f(c.get("p99") if c else None),
                                      f(rt, "%.2fx")),
                 p99_ms=q.get("p99"), cubic_p99_ms=c.get("p99") if c else None, p99_ratio=rt)
    if "udp" in p.sections:
        u, q = run.find_udp("udp"), run.find_udp("udp-pl2")
        if q:
            ok = q["port"]["drops"] == 0 and q["sw_drops"] == 0 and q["sent"] > 0 and \
                q["arrived"] == q["sent"] and q["sent"] == p.n * p.udp_count
            goal("UDP at %dx with pl2, zero drops at the switch and every datagram arrives" % p.n,
                 ok, "%d dropped at the port, %d of %d arrived"
                 % (q["port"]["drops"], q["arrived"], q["sent"]),
                 port_drops=q["port"]["drops"], switch_drops=q["sw_drops"], arrived=q["arrived"],
                 sent=q["sent"])
        else:
            goal("UDP at %dx with pl2, zero drops at the switch" % p.n, False, "not run")
        if u:
            goal("UDP at %dx without pl2, most datagrams dropped at the switch (as today)" % p.n,
                 u["sent"] > 0 and u["port"]["drops"] * 2 > u["sent"],
                 "%d of %d dropped at the port" % (u["port"]["drops"], u["sent"]),
                 port_drops=u["port"]["drops"], sent=u["sent"])
        else:
            goal("UDP at %dx without pl2, most dropped at the switch" % p.n, False, "not run")
    if "cost" in p.sections:
        st = cost_stats(run)
        goal("the per-packet cost of pl2 against pfifo, on an uncongested host, in one run",
             st is not None,
             "CPU per datagram %s pfifo's, rate at the receiver %s, over %d rounds"
             % (f(st["cpu"][0], "%.2fx"), f(st["rx"][0] if st["rx"] else None, "%.2fx"),
                st["cpu"][3]) if st else "no round with both",
             cpu_ratio=st and st["cpu"][0], rx_ratio=st and st["rx"] and st["rx"][0],
             rounds=st and st["cpu"][3])


def report(d):
    run = Run(d)
    if run.meta is None:
        print("bench_pl2_host_report: no %s/meta" % d, file=sys.stderr)
        return 1
    header(run)
    if "tcp" in run.p.sections:
        tcp_section(run)
    if "udp" in run.p.sections:
        udp_section(run)
    if "cost" in run.p.sections:
        cost_section(run)
    goals(run)
    missing = run.missing()
    print()
    print("cases not run or incomplete: %s" % (", ".join(missing) if missing else "none"))
    return 0


# ---- the results page ----

def page(args):
    d = args.dir
    run = Run(d)
    meta = run.meta
    why = None
    if meta is None:
        why = "no %s/meta: the part did not run" % d
    elif meta.get("report_status") is None:
        why = "the part started but did not finish (its meta has no report_status)"
    elif meta.get("report_status") != "0":
        why = "its report failed (exit status %s)" % meta["report_status"]
    try:
        with open(os.path.join(d, "report.txt")) as fh:
            body = fh.read().rstrip("\n")
    except OSError:
        body = None
        why = why or "no %s/report.txt" % d
    missing = run.missing() if meta is not None else []
    if args.only_complete and (why or missing):
        print("bench_pl2_host_report: %s left alone: the pl2-host part did not run whole: %s"
              % (args.out_md, why or ", ".join(missing)), file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out_md))
    doc = os.path.relpath(os.path.join(TREE, "Documentation"), out_dir)
    out = ["# sch_pl2: measured runs", "",
           "_Generated by `make bench` (`scripts/lib/bench_pl2_host_report.py --page`) from the"
           " `pl2-host` part's files (`build/bench/bench/pl2-host`); Documentation/results/"
           "sch_pl2.md is rewritten by every run of the part that runs whole (earlier runs: its"
           " git history). Edit the report script, not this page._", "",
           "The part (`scripts/guest/bench-pl2-host.sh`, issue 25): TCP cubic RPCs (100-byte"
           " requests, 64 KB answers) from the incast senders into one receiver at each offered"
           " load, with small RPCs across the same port, then plain UDP at the senders' full"
           " rate, each with `pl2` on every sender and `pl2-switch --any-transport` on the"
           " switch against the same traffic without PL2; then the per-packet cost of `pl2`"
           " against `pfifo` on an uncongested path. Its setup and knobs are in"
           " [testing.md](%s/testing.md#benchmarks), the qdisc in [sch_pl2.md](%s/sch_pl2.md)."
           % (doc, doc), ""]
    bits = ["`scripts/guest/bench-pl2-host.sh`"]
    m = meta or {}
    when = m.get("ended") or args.date
    if when:
        bits.append("ended %s" % when)
    bits.append("commit %s" % (args.commit or m.get("commit") or "unknown"))
    bits.append("kernel %s" % (m.get("kernel") or args.kernel or "unknown"))
    el = m.get("elapsed_s", "")
    if el.isdigit():
        sec = int(el)
        bits.append("%d minutes" % round(sec / 60) if sec >= 90 else "%d s" % sec)
    knobs = [(k, v) for k, v in m.items() if k.startswith("BENCH_")]
    s = "**This run.** " + ", ".join(bits)
    if knobs:
        s += "; its knobs: `%s`" % " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in knobs)
    out += [s + ".", ""]
    if why:
        out += ["Not a whole run: %s." % why, ""]
    elif missing:
        out += ["Not a whole run: not run or incomplete: %s." % ", ".join(missing), ""]
    if body is not None:
        gl = [x[len("goal: "):] for x in body.splitlines() if x.startswith("goal: ")]
        if gl:
            out += ["**Goals.**", ""] + ["- " + x for x in gl] + [""]
        out += ["```", body, "```", ""]
    os.makedirs(out_dir, exist_ok=True)
    with open(args.out_md, "w") as fh:
        fh.write("\n".join(out))
    return 0


def main():
    if "--page" not in sys.argv[1:]:
        if len(sys.argv) != 2:
            print(__doc__, file=sys.stderr)
            return 1
        return report(sys.argv[1])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page", action="store_true")
    ap.add_argument("--only-complete", action="store_true")
    ap.add_argument("--date", default="")
    ap.add_argument("--commit", default="")
    ap.add_argument("--kernel", default="")
    ap.add_argument("dir")
    ap.add_argument("out_md")
    return page(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
