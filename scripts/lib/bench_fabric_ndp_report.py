#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of scripts/guest/bench-fabric-ndp.sh: trimming's fabric
experiments (incasts to 1, 4 and 16 receivers, ping during an incast,
three flows over three spines).

usage: bench_fabric_ndp_report.py DIR MBIT

Prints the tables, the comparisons with the NDP paper and a verdict line
on each of its claims ("claim: ...: reproduced", "not reproduced" or "not
measured"), computed from the files in DIR, and draws incast.svg,
ping-cdf.svg and paths.svg there (svgplot); records them for results.json
(bench_record.py).
"""
import json
import os
import re
import sys

import bench_record

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "testing", "lib"))
import svgplot  # noqa: E402

PING_CONFIGS = [("cubic-fifo200", "TCP cubic, 200-packet drop-tail"),
                ("sird-trim12", "SIRD, trim limit 12"),
                ("cubic-trim12", "TCP cubic, 12-packet drop-tail")]
PATH_MODES = [("cubic-ecmp", "TCP cubic, ECMP (5-tuple hash)"),
              ("sird-spray", "SIRD sprayed per packet"),
              ("sird-hashed", "SIRD hashed per host pair")]
# a flow is short of its path when it gets less than this share of its link
SHORT = 0.75
# an incast whose every transport got less than this share of the receivers'
# links measured the guest's CPUs, not the transports
CARRIED = 0.5
# NDP's ping: trimming's added median at least this many times below the FIFO's
PING_FACTOR = 14
# an added median at or below this (ms) is none measurable
PING_NONE_MS = 0.01


def claim(what, ok, why, short, **figures):
    print("claim: %s: %s (%s)" % (what, "reproduced" if ok else "not reproduced", why))
    bench_record.goal("fabric-ndp", short, ok, **figures)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))] if v else float("nan")


def ping_times(path):
    """the RTTs (ms) ping printed, and the packets sent and received"""
    times, sent, got = [], 0, 0
    with open(path) as f:
        for line in f:
            m = re.search(r"time=([0-9.]+) ms", line)
            if m:
                times.append(float(m.group(1)))
            m = re.match(r"(\d+) packets transmitted, (\d+) received", line)
            if m:
                sent, got = int(m.group(1)), int(m.group(2))
    return times, sent, got


def port_stats(path):
    """peak data queue (packets, trim only), trims, drops at h1's port"""
    peak, trims, drops = None, 0, 0
    with open(path) as f:
        for q in json.load(f):
            drops += q.get("drops", 0)
            if q["kind"] == "trim":
                peak = q["data_qlen_max"]
                trims = q["trim_arrival"] + q["trim_tail"]
    return peak, trims, drops


def ping_report(d, mbit):
    pkt_us = 1514 * 8.0 / mbit
    rows, series = {}, {}
    print("ping during a 9-sender incast into h1 (%g Mbit/s; a full packet"
          " is %.0f us there)" % (mbit, pkt_us))
    print("%-16s %9s %9s %9s %9s %7s %9s %6s %7s %6s" %
          ("", "idle p50", "load p50", "load p99", "added p50", "in pkts",
           "lost", "goodput", "peak", "trims"))
    for name, _ in PING_CONFIGS:
        p = os.path.join(d, "ping", name)
        if not os.path.isdir(p):
            continue
        idle, _, _ = ping_times(os.path.join(p, "ping-idle.txt"))
        load, sent, got = ping_times(os.path.join(p, "ping-load.txt"))
        with open(os.path.join(p, "rx")) as f:
            a, b, w0, w1 = (float(x) for x in f.read().split())
        goodput = (b - a) * 8 / (w1 - w0) / 1e6
        peak, trims, drops = port_stats(os.path.join(p, "port.json"))
        added = pct(load, 50) - pct(idle, 50)
        rows[name] = added
        if not load:
            continue
        print("%-16s %7.2fms %7.2fms %7.2fms %7.2fms %7.1f %4d/%-4d %5.1fMb %6s %7d" %
              (name, pct(idle, 50), pct(load, 50), pct(load, 99), added,
               added * 1000 / pkt_us, sent - got, sent, goodput,
               "-" if peak is None else peak, trims if peak is not None else drops))
        bench_record.case("fabric-ndp", "ping " + name, idle_p50_ms=pct(idle, 50),
                          load_p50_ms=pct(load, 50), load_p99_ms=pct(load, 99),
                          added_p50_ms=added, added_pkts=added * 1000 / pkt_us,
                          lost=sent - got, sent=sent, goodput_mbps=goodput, peak_pkts=peak,
                          trims=trims if peak is not None else None,
                          drops=drops if peak is None else None)
        n = len(load)
        series[name] = [(t, (i + 1) / n) for i, t in enumerate(sorted(load))]
        if name == "cubic-fifo200":
            series["idle"] = [(t, (i + 1) / len(idle))
                              for i, t in enumerate(sorted(idle))]
    print("(added: load p50 - idle p50; in pkts: that in full-packet times at h1's"
          " link; lost: pings lost of sent; goodput: into h1, Mbit/s;")
    print(" peak: trim's data queue peak, packets; trims: trimmed packets, or"
          " the FIFO's drops)")
    if "cubic-fifo200" in rows and "sird-trim12" in rows:
        a, b = rows["cubic-fifo200"], rows["sird-trim12"]
        print("ping's added median delay: %.2f ms behind TCP in the 200-packet"
              " FIFO, %.2f ms beside SIRD at trim 12 (%s; NDP at 25 Gbit/s:"
              " about 0.5 ms against 36 us, 14x)" %
              (a, b, "%.1fx" % (a / b) if b > PING_NONE_MS else
               "none measurable: below the ping's own jitter"))
        claim("trimming adds at least %dx less to ping's median during an incast than a"
              " 200-packet FIFO (NDP Fig. 13)" % PING_FACTOR,
              a > 0 and (b <= PING_NONE_MS or a / b >= PING_FACTOR),
              "%.2f ms against %.2f ms" % (b, a),
              "trimming adds at least %dx less to ping's median than a 200-packet FIFO"
              % PING_FACTOR, added_fifo_ms=a, added_trim_ms=b)
    if series:
        svgplot.plot(os.path.join(d, "ping-cdf.svg"),
                     "ping RTT to h1 during a 9-sender incast",
                     "RTT (ms)", "fraction of pings", series, logx=True)


def paths_report(d, mbit):
    series, shorts = {}, {}
    print()
    print("three flows from leaf 1 to leaf 2 over three spines (every link"
          " %g Mbit/s): Mbit/s per flow and trial" % mbit)
    for name, what in PATH_MODES:
        p = os.path.join(d, "paths", name, "trials")
        if not os.path.exists(p):
            continue
        flows, slowest, short = [], [], 0
        with open(p) as f:
            for line in f:
                v = [float(x) for x in line.split()]
                t, a, b, w = int(v[0]), v[1:4], v[4:7], v[8] - v[7]
                r = [(y - x) * 8 / w / 1e6 for x, y in zip(a, b)]
                flows.append(r)
                slowest.append((t, min(r)))
                short += min(r) < SHORT * mbit
        allr = [x for r in flows for x in r]
        print("%-12s %s" % (name, "  ".join("/".join("%.1f" % x for x in r)
                                          for r in flows)))
        print("%-12s %s: sum %.1f Mbit/s on average (of %g), slowest flow %.1f,"
              " trials with a flow below %d%% of its link: %d of %d" %
              ("", what, sum(allr) / max(1, len(flows)), 3 * mbit,
               min(allr) if allr else 0, SHORT * 100, short, len(flows)))
        bench_record.case("fabric-ndp", "paths " + name,
                          sum_mbps=sum(allr) / max(1, len(flows)),
                          slowest_mbps=min(allr) if allr else 0, short_trials=short,
                          trials=len(flows))
        series[name] = slowest
        shorts[name] = (short, len(flows))
    print("(NDP's testbed, 25 Gbit/s: ECMP often put two flows on one spine,"
          " halving them; spraying kept all three at 25)")
    if "cubic-ecmp" in shorts:
        k, n = shorts["cubic-ecmp"]
        claim("with ECMP's hash some trials put two flows on one spine (NDP's testbed)",
              k > 0, "%d of %d trials with a flow below %d%% of its link" %
              (k, n, SHORT * 100), "with ECMP's hash some trials put two flows on one spine",
              short_trials=k, trials=n)
    if "sird-spray" in shorts:
        k, n = shorts["sird-spray"]
        claim("sprayed per packet, all three flows keep their links in every trial"
              " (NDP's testbed)", n > 0 and k == 0,
              "%d of %d trials with a flow below %d%% of its link" % (k, n, SHORT * 100),
              "sprayed per packet, all three flows keep their links in every trial",
              short_trials=k, trials=n)
    if series:
        svgplot.plot(os.path.join(d, "paths.svg"),
                     "three flows over three spines: the slowest flow",
                     "trial", "slowest flow (Mbit/s)", series)


def host_bytes(path):
    with open(path) as f:
        return {int(h): (int(rx), int(tx)) for h, rx, tx in
                (line.split() for line in f if line.strip())}


def fabric_queues(path):
    """trimmed, dropped, highest data and header queue over every port"""
    trims = drops = dpeak = hpeak = 0
    with open(path) as f:
        for line in f:
            _, js = line.split(" ", 1)
            for q in json.loads(js):
                drops += q.get("drops", 0)
                if q["kind"] == "trim":
                    trims += q["trim_arrival"] + q["trim_tail"]
                    dpeak = max(dpeak, q["data_qlen_max"])
                    hpeak = max(hpeak, q["hdr_qlen_max"])
    return trims, drops, dpeak, hpeak


def jain(v):
    return sum(v) ** 2 / (len(v) * sum(x * x for x in v)) if v and any(v) else 0


def incast_report(d, mbit):
    series, shares = {}, {}
    print()
    print("incasts to 1, 4 and 16 receivers: 16 hosts, 4 leaves, 2 spines at 1:1,"
          " %g Mbit/s to the hosts; every receiver offered 1.5x its link" % mbit)
    print("%-6s %4s %7s %10s %7s %9s %8s %7s %9s" %
          ("", "to", "senders", "goodput", "of link", "Jain", "trimmed",
           "dropped", "peak d/h"))
    for r in (1, 4, 16):
        for proto in ("sird", "cubic"):
            p = os.path.join(d, "incast", "%s-%d" % (proto, r))
            if not os.path.exists(os.path.join(p, "bytes-after")):
                continue
            with open(os.path.join(p, "pairs")) as f:
                pairs = [tuple(int(x) for x in line.split()) for line in f]
            with open(os.path.join(p, "window")) as f:
                w0, w1 = (float(x) for x in f.read().split())
            a = host_bytes(os.path.join(p, "bytes-before"))
            b = host_bytes(os.path.join(p, "bytes-after"))
            sec = w1 - w0
            sent = [(b[h][1] - a[h][1]) * 8 / sec / 1e6 for h, _ in pairs]
            rcv = sorted({dst for _, dst in pairs})
            got = sum((b[h][0] - a[h][0]) * 8 / sec / 1e6 for h in rcv)
            trims, drops, dpeak, hpeak = fabric_queues(os.path.join(p, "qdiscs"))
            share = got / (len(rcv) * mbit)
            print("%-6s %4d %7d %7.1fMb/s %6.0f%% %9.3f %8d %7d %5d/%d" %
                  (proto, r, len(pairs), got, 100 * share, jain(sent), trims,
                   drops, dpeak, hpeak))
            bench_record.case("fabric-ndp", "incast %s %d" % (proto, r), senders=len(pairs),
                              goodput_mbps=got, of_link_pct=100 * share, jain=jain(sent),
                              trimmed=trims, dropped=drops, peak_data_pkts=dpeak,
                              peak_hdr_pkts=hpeak)
            series.setdefault(proto, []).append((r, 100 * share))
            shares.setdefault(r, {})[proto] = share
    print("(goodput: bytes into the receivers over the middle of the run, all"
          " headers included; of link: of the receivers' links; Jain: over the")
    print(" senders' bytes sent; trimmed, dropped: over every switch port; peak"
          " d/h: the highest data and header queue of any trimming port, packets)")
    print("(NDP's Tofino runs, 100 Gbit/s: goodput within 5% of ideal, at most"
          " 10% more trims than ideal, flows sharing a port equally)")
    for r, sh in sorted(shares.items()):
        if "sird" not in sh:
            continue
        what = ("SIRD's goodput within 5%% of the receivers' links, incast to %d (NDP's"
                " Tofino runs: within 5%% of ideal)" % r)
        got = "SIRD %.0f%%, %s" % (100 * sh["sird"], ", ".join(
            "%s %.0f%%" % (p, 100 * x) for p, x in sorted(sh.items()) if p != "sird"))
        short = "SIRD's goodput within 5%% of the receivers' links, incast to %d" % r
        figures = {"%s_of_link_pct" % p: 100 * x for p, x in sh.items()}
        if max(sh.values()) < CARRIED:
            print("claim: %s: not measured (no transport reached %d%% of the receivers'"
                  " links: %s)" % (what, CARRIED * 100, got))
            bench_record.goal("fabric-ndp", short, False, measured=False, **figures)
        else:
            claim(what, sh["sird"] >= 0.95, got, short, **figures)
    if series:
        svgplot.plot(os.path.join(d, "incast.svg"),
                     "incasts: the receivers' goodput", "receivers",
                     "goodput (% of their links)", series, logx=True)


def main():
    d, mbit = sys.argv[1], float(sys.argv[2])
    incast_report(d, mbit)
    ping_report(d, mbit)
    paths_report(d, mbit)


if __name__ == "__main__":
    main()
