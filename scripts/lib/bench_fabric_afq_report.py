#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fabric_afq_report.py DIR MBIT SECONDS

AFQ's fabric experiment of `make bench` (scripts/guest/bench-fabric-afq.sh):
reads the runs it recorded in DIR/runs (every host's fctload.py JSON and
every switch's qdiscs) and prints, per workload and load, the mean and p99
completion time of the short flows (under 100 KB) and the mean of all for
each configuration, the ports' drops and CE marks, afq's short-flow times
against each other configuration's, and SVG plots in DIR; records them
for results.json (bench_record.py)."""

import json, os, statistics, sys
import bench_record

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../tools/testing/lib"))
import svgplot  # noqa: E402

d, mbit, secs = sys.argv[1:4]
HOSTS = 4
QUEUES = ("afq", "trim", "fq_codel")	# the ports' own qdiscs, below tbf


def ports(path):
    """drops and CE marks over every switch port"""
    drops = marks = 0
    try:
        for line in open(path):
            for q in json.loads(line.split(" ", 1)[1]):
                if q.get("kind") in QUEUES:
                    drops += q.get("drops", 0)
                    marks += q.get("ecn_mark", 0) + q.get("ecn_marked", 0)
    except (OSError, ValueError, IndexError):
        pass
    return drops, marks


res = {}
confs = []
for line in open(os.path.join(d, "runs")):
    w, load, c = line.split()
    flows, unfinished, missing = [], 0, 0
    for h in range(1, HOSTS + 1):
        try:
            r = json.load(open(os.path.join(d, "%s-%s-%s-%d.json" % (w, load, c, h))))
        except (OSError, ValueError):
            missing += 1
            continue
        flows += r["flows"]
        unfinished += r["unfinished"]
    done = [f for f in flows if f["fct_us"] >= 0]
    short = sorted(f["fct_us"] / 1000 for f in done if f["size"] < 100000)
    drops, marks = ports(os.path.join(d, "%s-%s-%s.qdiscs" % (w, load, c)))
    res[(w, int(load), c)] = {
        "n": len(flows), "failed": len(flows) - len(done), "unfinished": unfinished,
        "missing": missing, "drops": drops, "marks": marks,
        "short_mean": statistics.mean(short) if short else 0,
        "short_p99": short[min(len(short) - 1, len(short) * 99 // 100)] if short else 0,
        "all_mean": statistics.mean(f["fct_us"] / 1000 for f in done) if done else 0}
    if c not in confs:
        confs.append(c)

print("short flows on a two-tier fabric: 2 leaves of 2 hosts, 1 spine, every link %s Mbit/s "
      "(2:1);" % mbit)
print("every host sends TCP flows to its peer on the other leaf, a connection a flow, Poisson "
      "arrivals for %s s;" % secs)
print("load: of the leaves' uplinks, where two hosts' flows meet; every port a 64-packet buffer")
for w in sorted({k[0] for k in res}):
    loads = sorted({k[1] for k in res if k[0] == w})
    print("%s:" % w)
    print("%-15s %5s %6s %11s %10s %9s %7s %7s" %
          ("config", "load", "flows", "short mean", "short p99", "all mean", "drops", "marks"))
    for load in loads:
        for c in confs:
            r = res.get((w, load, c))
            if not r:
                continue
            bad = ""
            if r["failed"] or r["unfinished"] or r["missing"]:
                bad = " [%d failed, %d unfinished, %d hosts' files missing]" % (
                    r["failed"], r["unfinished"], r["missing"])
            print("%-15s %4d%% %6d %11.1f %10.1f %9.1f %7d %7d%s" %
                  (c, load, r["n"], r["short_mean"], r["short_p99"], r["all_mean"],
                   r["drops"], r["marks"], bad))
            bench_record.case("fabric-afq", "%s %s %d" % (w, c, load), load_pct=load,
                              flows=r["n"], short_mean_ms=r["short_mean"],
                              short_p99_ms=r["short_p99"], all_mean_ms=r["all_mean"],
                              drops=r["drops"], marks=r["marks"], failed=r["failed"],
                              unfinished=r["unfinished"], missing_hosts=r["missing"])
    print("(ms; short: flows under 100 KB; drops, marks: over every switch port)")
    for key, what in (("short_p99", "p99"), ("short_mean", "mean")):
        path = os.path.join(d, "fct-%s-%s.svg" % (w, what))
        svgplot.plot(path, "%s on a two-tier fabric: %s completion time of flows < 100 KB" %
                     (w, what), "load of the uplinks (%)", "%s FCT (ms)" % what,
                     {c: [(load, res[(w, load, c)][key]) for load in loads
                          if (w, load, c) in res] for c in confs}, logy=True)
        print("plot: %s" % path)
    if "afq" not in confs:
        continue
    for load in loads:
        a = res.get((w, load, "afq"))
        if not a or not a["short_p99"] or not a["short_mean"]:
            continue
        print("%s, load %d%%: afq's short flows p99 %.1f ms, mean %.1f ms; others' over afq's:" %
              (w, load, a["short_p99"], a["short_mean"]))
        for c in confs:
            r = res.get((w, load, c))
            if c == "afq" or not r:
                continue
            print("  %-15s p99 %5.2fx  mean %5.2fx" %
                  (c, r["short_p99"] / a["short_p99"], r["short_mean"] / a["short_mean"]))
            bench_record.case("fabric-afq", "%s %s %d/afq" % (w, c, load),
                              p99_ratio=r["short_p99"] / a["short_p99"],
                              mean_ratio=r["short_mean"] / a["short_mean"])
    # the thesis's claims, against the best of each TCP's configurations
    for tcp, claim in (("dctcp", 2.0), ("cubic", 10.0)):
        ratios, at = [], []
        for load in loads:
            a = res.get((w, load, "afq"))
            rs = [res[(w, load, c)] for c in confs
                  if c.startswith(tcp + "-") and (w, load, c) in res]
            if a and a["short_mean"] and rs:
                ratios.append(min(r["short_mean"] for r in rs) / a["short_mean"])
                at.append(load)
        if ratios:
            ok = min(ratios) >= claim / 2
            print("%s: the thesis's short flows about %gx faster with afq than with %s: %s "
                  "(at least half that at every load; %s's best configuration over afq, "
                  "mean: %s at loads %s)" %
                  (w, claim, tcp, "reproduced" if ok else "not reproduced",
                   tcp, "/".join("%.2fx" % x for x in ratios), "/".join(map(str, loads))))
            bench_record.goal("fabric-afq", "%s: short flows about %gx faster with afq than with"
                              " %s" % (w, claim, tcp), ok, min_ratio=min(ratios),
                              **{"ratio_load%d" % x: y for x, y in zip(at, ratios)})
