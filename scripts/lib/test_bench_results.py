#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_bench_results.py: make bench's records, results.json, progress
line and comparison (bench_record.py, bench_results.py) on made-up runs,
as TAP; exit status 1 if any is wrong.  Run by scripts/check
(unit/bench-results)."""
import contextlib, io, json, os, shutil, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_record, bench_results  # noqa: E402
from tap import check, plan  # noqa: E402

tmp = tempfile.mkdtemp(prefix="bench-results-")
rec = os.path.join(tmp, "records")


def run(records, parts, log):
    """a made-up bench run: PARTS {name: (status, seconds, cases, goals)}"""
    os.environ["BENCH_RECORDS"] = records
    with open(log, "w") as f:
        for name, (status, secs, cases, goals) in parts.items():
            for cname, figs in cases.items():
                bench_record.case(name, cname, **figs)
            for what, met, figs in goals:
                bench_record.goal(name, what, met, **figs)
            f.write("%s %d %.1f\n" % (name, status, secs))
    del os.environ["BENCH_RECORDS"]


# records: nothing without BENCH_RECORDS, one line each with it
bench_record.case("pps", "afq", pps=1.0)
check("no BENCH_RECORDS: nothing recorded", not os.path.exists(rec))
log1 = os.path.join(tmp, "parts1")
run(rec, {"pps": (0, 300.0, {"afq": {"pps": 1000, "ratio": 0.9, "note": "x"},
                             "fq": {"pps": 800, "ratio": float("nan")}},
                  [("afq at least 0.9x pfifo", True, {"ratio": 0.9})]),
          "shoal": (1, 600.0, {"W3 0.5 sird": {"p99_ms": 20.0, "drops": 0}},
                    [("p99 below cubic's", False, {"cells": 3, "met_cells": 2})])}, log1)
lines = open(os.path.join(rec, "pps.jsonl")).read().splitlines()
check("one JSON line a case and a goal", len(lines) == 3 and all(json.loads(x) for x in lines))
check("NaN recorded as null", json.loads(lines[1])["figures"]["ratio"] is None)

# results.json
out1 = os.path.join(tmp, "old.json")
bench_results.collect(out1, rec, log1, commit="abc", kernel="6.1.0-57-amd64", date="d1",
                      env=["BENCH_ROUNDS=3"])
r = json.load(open(out1))
check("results.json: commit, kernel, settings", r["commit"] == "abc" and
      r["kernel"] == "6.1.0-57-amd64" and r["settings"] == {"BENCH_ROUNDS": "3"})
check("results.json: host CPU count", r["host"]["cpus"] == os.cpu_count())
check("results.json: every part with its status and time",
      r["parts"]["pps"]["status"] == 0 and r["parts"]["shoal"]["status"] == 1 and
      r["parts"]["shoal"]["seconds"] == 600.0)
check("results.json: cases with their figures",
      r["parts"]["pps"]["cases"]["afq"] == {"pps": 1000, "ratio": 0.9, "note": "x"})
check("results.json: goals with their verdicts",
      r["parts"]["shoal"]["goals"] == [{"goal": "p99 below cubic's", "met": False,
                                        "figures": {"cells": 3, "met_cells": 2}}])

# estimates: the last run's time where the part ran whole, else typical
est = bench_results.estimate(out1)
check("estimate: a part that ran whole takes its last time", est["pps"] == 300.0)
check("estimate: a failed part its typical time",
      est["shoal"] == bench_results.TYPICAL_SECONDS["shoal"])
check("estimate: no results, every part typical",
      bench_results.estimate(os.path.join(tmp, "none.json")) == bench_results.TYPICAL_SECONDS)

# progress: the parts left, scaled by how the finished ones went
log2 = os.path.join(tmp, "parts2")
with open(log2, "w") as f:
    f.write("a 0 200.0\n")
line = bench_results.progress("a=100 b=100 c=300", log2, "b", ["a", "b", "c"])
check("progress: the part's number, the time so far, the rest at twice the estimate: %s" % line,
      line == "bench: part 2 of 3 (b); 3 min so far, about 13 min left")
line = bench_results.progress("a=100 b=100", os.path.join(tmp, "empty"), "a", ["a", "b"])
check("progress: nothing run yet, the estimates as they are: %s" % line,
      line == "bench: part 1 of 2 (a); 0 s so far, about 3 min left")
line = bench_results.progress("", os.path.join(tmp, "empty"), "x", ["x"])
check("progress: no estimate for a part counts 0, no error: %s" % line,
      line == "bench: part 1 of 1 (x); 0 s so far, about 0 s left")

# compare: ratios of the numbers both hold, verdicts that changed
rec2 = os.path.join(tmp, "records2")
log3 = os.path.join(tmp, "parts3")
run(rec2, {"pps": (0, 330.0, {"afq": {"pps": 1500, "ratio": 0.8, "note": "y"},
                              "calq": {"pps": 700}},
                   [("afq at least 0.9x pfifo", False, {"ratio": 0.8})]),
           "fair": (0, 900.0, {}, [])}, log3)
out2 = os.path.join(tmp, "new.json")
bench_results.collect(out2, rec2, log3, commit="def")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    bench_results.compare(out1, out2)
txt = buf.getvalue()
check("compare: NEW / OLD of each number both hold", "pps 1.50x" in txt and "ratio 0.89x" in txt)
check("compare: strings are not compared", "note" not in txt)
check("compare: a case only in one side said", "calq" in txt and "only in NEW" in txt and
      "fq " in txt and "only in OLD" in txt)
check("compare: a goal whose verdict changed",
      "goal afq at least 0.9x pfifo: NOT met, was met" in txt)
check("compare: a part only in one side", "fair: only in NEW" in txt and
      "shoal: only in OLD" in txt)
p = subprocess.run([sys.executable, bench_results.__file__, "compare", out1,
                    os.path.join(tmp, "none.json")], capture_output=True, text=True)
check("compare: a missing file is an error, not a comparison",
      p.returncode != 0 and "not a results.json" in p.stderr)
shutil.rmtree(tmp)
sys.exit(plan())
