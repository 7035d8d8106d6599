#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_shoal_trim_report.py DIR CLIENTS DUR QLIMIT ECN SYSCTLS OVER_MBIT OVER_LOAD

The Shoal transport over trimming and overloaded ports, a part of `make
bench` (scripts/guest/bench-shoal-trim.sh): reads, in DIR, the runs
("runs": workload load transport link name [the port's tbf burst,
bytes]; "over": name tcp
sird_senders spec...), each run's shoal-perf JSON (NAME-I.json), the
port's tc -s -j dump (NAME.qdisc), every host's Shoal counters before and
after (NAME.stats0/1), and for the overload runs the port's byte samples
(NAME.port) and the receiver's per-sender filter counters (NAME.rx0/1).
Prints the tables, the ratios against TCP cubic and DCTCP and issue 22's
goals with their verdicts, computed by shoal_cells.py, and records them
for results.json (bench_record.py).
Imports perf_report and shoal_cells from scripts/lib."""

import io, statistics, sys
import bench_record
from perf_report import load, stats
from shoal_cells import busy, cell, control, failures, goals, held, jain, ratio, tally

d, n, dur, qlimit, ecn = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), \
    int(sys.argv[5])
sysctls, over_mbit, over_load = sys.argv[6], float(sys.argv[7]), float(sys.argv[8])
over_size = int(sys.argv[9]) if len(sys.argv) > 9 else 60000
over_sysctls = sys.argv[10] if len(sys.argv) > 10 else ""
SHOAL = ("sird", "pl2")  # message transports, judged against
TCPS = ("cubic", "dctcp")  # the TCPs on the same port and arrivals


def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def qdisc(name):
    """the port's child queue (handle 10:) and root (the tbf) counters"""
    q = load("%s/%s.qdisc" % (d, name)) or []
    kid = [x for x in q if x.get("handle") == "10:"]
    root = [x for x in q if x.get("root")]
    return (kid[0] if kid else {}), (root[0] if root else {})


def judged(what, vs, short=None, **figures):
    """tally(WHAT, VS), its verdict recorded as SHORT (or WHAT) with FIGURES"""
    met, ok = held(vs)
    bench_record.goal("shoal-trim", short or what, met, met_cells=ok, cells=len(vs), **figures)
    return tally(what, vs)


def lines(path):
    try:
        return [l.split() for l in open(path) if l.strip()]
    except OSError:
        return []


# without trimming runs (BENCH_SHOAL_TRIM_WORKLOADS=none) their part
# prints nothing
screen = sys.stdout
if not lines(d + "/runs"):
    sys.stdout = io.StringIO()
print("Shoal over trimming ports: SIRD and PL2 (shoal.ko; PL2 with its switch program on the"
      " switch's ports) against TCP cubic and DCTCP, %d sender hosts -> switch -> 1 receiver"
      " host" % n)
print("switch port: tbf at the link rate over trim limit %d ecn_thresh %d full packets' bytes:"
      % (qlimit, ecn))
print("Shoal's DATA trimmed to headers; TCP (not UDP) dropped at %d packets; CE above the"
      " threshold (DCTCP, SIRD)" % qlimit)
print("Shoal's hosts: %s (LINK: the link's rate; SIRD's pacers and sizes and PL2's rate follow"
      " it), the rest the module's defaults" % sysctls)
print("%s s of seeded Poisson arrivals a run, the same for every transport; completion time: the"
      " request sent until its answer" % dur)
print()
hdr = "%-12s %4s %4s %-5s %7s %9s %9s %12s %6s %6s %5s %6s %6s" % (
    "workload", "load", "Mbit", "proto", "goodput", "p50 ms", "p99 ms", "msgs", "trims",
    "drops", "marks", "ctl/pk", "ctl B")
print(hdr)
print("(goodput: Mbit/s, every sender's answered bytes over the longest sender's time;")
print(" p50, p99: of every sender's completion times together, nearest rank; * the median of the")
print(" senders' medians and the worst sender's p99, from a shoal-perf that lists no times;")
print(" msgs: issued (failed/unanswered); trims, drops, marks: the port's; ctl/pk: Shoal's"
      " control packets")
print(" per DATA packet, ctl B: their bytes over DATA's, on the wire: control is every Shoal"
      " packet")
print(" sent that is not DATA, by every host (CREDIT, RESEND, ACK, BUSY, CREDIT_REQ, ...), 74"
      " bytes each)")
cells = {}
for w, ld, t, link, name, *burst in lines(d + "/runs"):
    # what the port's tbf passes at once after an idle spell: below the
    # link rate's floor by that much
    burst_ms = int(burst[0]) * 8 / (float(link) * 1e3) if burst else 0.0
    r = cell([load("%s/%s-%d.json" % (d, name, i)) for i in range(1, n + 1)], n, burst_ms)
    kid, _ = qdisc(name)
    r["trims"] = kid.get("trim_arrival", 0) + kid.get("trim_tail", 0) if kid else None
    r["drops"] = kid.get("drops") if kid else None
    r["marks"] = kid.get("ecn_mark") if kid else None
    r["ctl"] = None
    if t in SHOAL:
        r["ctl"] = control(stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name)))
    cells.setdefault((w, ld, link), {})[t] = r
for (w, ld, link), ps in cells.items():
    for t in SHOAL + TCPS:
        r = ps.get(t)
        if not r:
            continue
        msgs = "%d" % r["issued"] + ("(%d/%d)" % (r["failed"], r["unanswered"]) if r["lost"]
                                     else "")
        if r["missing"]:
            msgs += "!%d" % r["missing"]
        c = r["ctl"]
        print("%-12s %4s %4s %-5s %7s %9s %9s %12s %6s %6s %5s %6s %6s" % (
            w, ld, link, t, f(r["gp"], "%.2f"), f(r["p50"]) + ("" if r["pooled"] else "*"),
            f(r["p99"]) + ("" if r["pooled"] else "*"), msgs,
            f(r["trims"], "%d"), f(r["drops"], "%d"), f(r["marks"], "%d"),
            f(c and c[2], "%.2f"), f(c and c[3] is not None and c[3] * 100 or None, "%.1f%%")))
        bench_record.case("shoal-trim", "%s %s %s" % (w, ld, t), link_mbps=float(link),
                          goodput_mbps=r["gp"], p50_ms=r["p50"], p99_ms=r["p99"],
                          pooled=r["pooled"], msgs=r["issued"], failed=r["failed"],
                          unanswered=r["unanswered"], missing=r["missing"], trims=r["trims"],
                          drops=r["drops"], marks=r["marks"], ctl_per_pkt=c and c[2],
                          ctl_bytes_pct=c and c[3] is not None and c[3] * 100 or None)
lost = [(w, ld, t, r) for (w, ld, _), ps in cells.items() for t, r in ps.items()
        if r["lost"] or r["missing"]]
for w, ld, t, r in lost:
    print("%s %s %s: %d failed (%s), %d unanswered, %d senders with no result" % (
        w, ld, t, r["failed"], failures(r), r["unanswered"], r["missing"]))
print("(!N: N senders gave no result)")
print()

def floor(fl, tcp):
    """ ' (floor 0.93x)': a cell's floor (cell()) against the TCP's value"""
    x = ratio(fl, tcp)
    return "" if x is None else " (floor %.2fx)" % x


def reachable(vs, cells_out, bar):
    """Where a goal's bar lies below the floor, for any transport"""
    known = [v for v in vs if v is not None]
    if not known:
        return
    print("    out of any transport's reach (%s below the floor: the messages' own bytes at the"
          " link rate, less the port's burst): %d of %d cells%s" % (
              bar, len(cells_out), len(known),
              (": " + "; ".join(cells_out)) if cells_out else ""))


def summ(vals):
    v = [x for x in vals if x is not None]
    if not v:
        return "-"
    return "median %.2fx (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))


# each Shoal transport against each TCP, cell by cell, then the goals
for st in SHOAL:
    if not any(st in ps for ps in cells.values()):
        continue
    name_s = st.upper()
    print("%s against each TCP, per cell: p99 and p50 of completion times, goodput (%s / TCP)"
          % (name_s, name_s))
    vs = {t: {"p99": [], "p50": [], "gp": [], "complete": [], "p99_reach": [],
              "p50_reach": []} for t in TCPS}
    out_of_reach = {t: {"p99": [], "p50": []} for t in TCPS}
    ctl = []
    for (w, ld, link), ps in cells.items():
        s = ps.get(st)
        if not s:
            continue
        if s["ctl"] and s["ctl"][3] is not None:
            ctl.append((s["ctl"][2], s["ctl"][3]))
        out = []
        for t in TCPS:
            if t not in ps:
                continue
            g = goals(s, ps[t])
            for k in vs[t]:
                vs[t][k].append(g[k][1])
            for k in ("p99", "p50"):
                if g[k + "_reach"][1] is False:
                    out_of_reach[t][k].append("%s %s (%s)" % (w, ld, g[k + "_reach"][2]))
            out.append("%s p99 %s%s p50 %s%s goodput %s" % (
                t, g["p99"][2], floor(s["floor_p99"], ps[t]["p99"]), g["p50"][2],
                floor(s["floor_p50"], ps[t]["p50"]), g["gp"][2]))
            bench_record.case("shoal-trim", "%s %s %s/%s" % (w, ld, st, t),
                              p99_ratio=ratio(s["p99"], ps[t]["p99"]),
                              p50_ratio=ratio(s["p50"], ps[t]["p50"]),
                              goodput_ratio=ratio(s["gp"], ps[t]["gp"]),
                              p99_floor_ratio=ratio(s["floor_p99"], ps[t]["p99"]),
                              p50_floor_ratio=ratio(s["floor_p50"], ps[t]["p50"]))
        print("  %-12s %4s: %s" % (w, ld, "; ".join(out)))
    print()
    print(judged("every %s message completes" % name_s,
                 vs["cubic"]["complete"] or vs["dctcp"]["complete"]))
    for t in TCPS:
        if not vs[t]["p99"]:
            continue
        name = "TCP cubic" if t == "cubic" else "DCTCP"
        print("issue 22's goals, %s against %s%s:" % (
            name_s, name, "" if t == "cubic" else
            " (the issue sets them against cubic; the same bars)"))
        print("  " + judged("p99 at most half of %s's" % name, vs[t]["p99"],
                            "%s p99 at most half of %s's" % (name_s, name)))
        reachable(vs[t]["p99_reach"], out_of_reach[t]["p99"], "half of %s's p99" % name)
        print("  " + judged("p50 no worse than %s's" % name, vs[t]["p50"],
                            "%s p50 no worse than %s's" % (name_s, name)))
        reachable(vs[t]["p50_reach"], out_of_reach[t]["p50"], "%s's p50" % name)
        print("  " + judged("goodput at least %s's (within 2%%: the same arrivals)" % name,
                            vs[t]["gp"], "%s goodput at least %s's" % (name_s, name)))
    if ctl:
        print("%s's control, over the cells: %.2f-%.2f packets per DATA packet, %.1f-%.1f%% of"
              " DATA's bytes on the wire (the issue asks for a bounded share and sets no bound:"
              " these are it)" % (name_s, min(c[0] for c in ctl), max(c[0] for c in ctl),
                                  100 * min(c[1] for c in ctl), 100 * max(c[1] for c in ctl)))
    print()

# ---- overload ----
sys.stdout = screen
over = lines(d + "/over")
if not over:
    sys.exit(0)
print()
print("Overload: SIRD senders and one TCP sender (one connection), %d-byte RPCs, each offering"
      " %g / senders of a %g Mbit/s port" % (over_size, over_load, over_mbit))
if over_sysctls:
    print("Shoal's hosts in the overload runs also: %s" % over_sysctls)
print("(%gx in all); goodput: all senders', Mbit/s; busy: the port's bytes sent over the arrivals' second to last second, at"
      " the rate;" % over_load)
print("share: of what the receiver got from the senders in that time; Jain over the senders'"
      " bytes there")
print("%-10s %-5s %6s %7s %14s %-20s %12s %6s %5s %6s %6s" % (
    "queue", "tcp", "busy", "goodput", "SIRD msgs", "SIRD failed", "TCP msgs", "TCP sh",
    "fair", "Jain", "drops"))
print("(msgs: completed/issued; SIRD failed: by errno, then unanswered; TCP sh: its share,"
      " fair: 1 / senders)")


def rx_bytes(path):
    """pref -> bytes from tc -s -j filter show (the flower filters)"""
    out = {}
    for e in load(path) or []:
        o = e.get("options") or {}
        acts = o.get("actions") or []
        if "pref" in e and acts:
            out[e["pref"]] = acts[0].get("stats", {}).get("bytes", 0)
    return out


checks = {"busy": [], "fail": [], "share": [], "jain": []}
ref_busy = None
for row in over:
    name, tcp, ns = row[0], row[1], int(row[2])
    label = name.split("-")[1]
    js = [load("%s/%s-%d.json" % (d, name, i)) for i in range(1, ns + 2)]
    sird, tc, both = cell(js[:ns], ns), cell(js[ns:], 1), cell(js, ns + 1)
    smp = []
    for l in lines("%s/%s.port" % (d, name)):
        smp.append((int(l[0]), int(l[1])))
    b = busy(smp, over_mbit)
    r0, r1 = rx_bytes("%s/%s.rx0" % (d, name)), rx_bytes("%s/%s.rx1" % (d, name))
    got = [r1.get(i, 0) - r0.get(i, 0) for i in range(1, ns + 2)]
    share = ratio(got[-1], sum(got))
    fair = 1 / (ns + 1)
    j = jain(got) if ns else None
    kid, _ = qdisc(name)
    drops, trims = kid.get("drops"), None
    if kid.get("trim_arrival") is not None:
        trims = kid.get("trim_arrival", 0) + kid.get("trim_tail", 0)
        drops = "%s+%dt" % (drops, trims)
    print("%-10s %-5s %6s %7s %14s %-20s %12s %6s %5.2f %6s %6s" % (
        label, tcp, f(b and b * 100, "%.0f%%"), f(both["gp"], "%.2f"),
        "%d/%d" % (sird["completed"], sird["issued"]) if ns else "-",
        "%s, %d" % (failures(sird), sird["unanswered"]) if ns else "-",
        "%d/%d" % (tc["completed"], tc["issued"]), f(share, "%.2f"), fair, f(j, "%.2f"),
        drops if drops is not None else "-"))
    bench_record.case("shoal-trim", "over %s %s" % (label, tcp), busy_pct=b and b * 100,
                      goodput_mbps=both["gp"], sird_completed=sird["completed"] if ns else None,
                      sird_issued=sird["issued"] if ns else None,
                      sird_failed=sird["failed"] if ns else None,
                      sird_unanswered=sird["unanswered"] if ns else None,
                      tcp_completed=tc["completed"], tcp_issued=tc["issued"],
                      tcp_failed=tc["failed"], tcp_unanswered=tc["unanswered"],
                      tcp_share=share, fair=fair, jain=j, drops=kid.get("drops"), trims=trims)
    if tc["lost"] or tc["missing"]:
        why = ""
        if tc["missing"]:
            why = "; no result: " + " ".join(
                " ".join(l) for l in lines("%s/%s-%d.txt" % (d, name, ns + 1))[-1:])
        print("  TCP: %d failed (%s), %d unanswered%s" % (tc["failed"], failures(tc),
              tc["unanswered"], why))
    if label == "ref":
        ref_busy = b
        continue
    checks["busy"].append(b is not None and b >= 0.9)
    checks["fail"].append(sird["ok"] and tc["ok"] and sird["failed"] == 0 and tc["failed"] == 0)
    checks["share"].append(share is not None and share >= 0.8 * fair)
    if label == "afq":
        checks["jain"].append(j is not None and j >= 0.95)
print()
print("issue 22's overload goals (every queue, with each TCP):")
print("  " + judged("the port at least 90% busy", checks["busy"],
                    "overload: the port at least 90% busy",
                    ref_busy_pct=ref_busy and ref_busy * 100) +
      "; the TCP sender alone at %gx through pfifo kept it %s busy (what the emulated port"
      " delivers)" % (over_load, f(ref_busy and ref_busy * 100, "%.0f%%")))
print("  " + judged("no message fails (no errno; unanswered after the drain are reported, not"
                    " judged)", checks["fail"], "overload: no message fails"))
print("  " + judged("TCP gets its share (at least 0.8 of 1 / senders)", checks["share"],
                    "overload: TCP gets its share"))
if checks["jain"]:
    print("  " + judged("afq: Jain >= 0.95 over the senders", checks["jain"],
                        "overload: afq: Jain >= 0.95 over the senders"))
