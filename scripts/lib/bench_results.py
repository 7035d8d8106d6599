#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_results.py: make bench's results.json, its progress, and compare.

  bench_results.py estimate [RESULTS]
      the seconds each part is expected to take, as PART=SECONDS words
      for the guest (scripts/guest/bench-guest.sh, BENCH_ESTIMATE): the
      part's time in RESULTS (the last run's results.json) where it ran
      whole there, else the typical time at the defaults below
  bench_results.py progress ESTIMATE PARTS_LOG NEXT WANTED...
      one line for the screen before part NEXT starts: which of the
      WANTED parts it is, the time so far and what is left (the
      estimates of the parts still to run, scaled by how the finished
      parts' times compared with theirs)
  bench_results.py collect OUT RECORDS PARTS_LOG [--commit C] [--kernel K]
                           [--date D] [--env K=V...]
      writes results.json (OUT): the run's commit, kernel, host CPU, the
      BENCH_* settings, and per part its status, time, cases and goals
      (the reports' records, scripts/lib/bench_record.py, in RECORDS)
  bench_results.py compare OLD NEW
      every number both result files hold for a case, NEW / OLD, and the
      goals whose verdict differs; exit status 0 (a comparison is not a
      test)

PARTS_LOG has one line per part that ran: "PART STATUS SECONDS"."""
import json, os, platform, signal, sys

# the part order of bench-guest.sh, and each part's time at the defaults
# on the 2-vCPU TCG guest (rough: a host's load moves them by half)
TYPICAL_SECONDS = {
    "pps": 300, "flows": 420, "fair": 900, "fct": 600, "sqr": 300,
    "sqr-fct": 300, "shoal": 600, "shoal-trim": 720, "pl2": 300,
    "pl2-host": 480, "fabric": 180, "fabric-ndp": 600, "fabric-sqr": 480,
    "fabric-afq": 1500, "fabric-pl2": 480, "fabric-sird": 1800,
}


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def parts_log(path):
    """[(part, status, seconds)] of the parts that ran, in order"""
    out = []
    try:
        for line in open(path):
            w = line.split()
            if len(w) == 3:
                out.append((w[0], int(w[1]), float(w[2])))
    except OSError:
        pass
    return out


def estimate(results_path=None):
    est = dict(TYPICAL_SECONDS)
    old = load_json(results_path) if results_path else None
    for name, p in ((old or {}).get("parts") or {}).items():
        if p.get("status") == 0 and p.get("seconds"):
            est[name] = p["seconds"]
    return est


def parse_estimate(words):
    est = {}
    for w in words.split():
        k, _, v = w.partition("=")
        try:
            est[k] = float(v)
        except ValueError:
            pass
    return est


def minutes(s):
    return "%d min" % round(s / 60) if s >= 90 else "%d s" % round(s)


def progress(est_words, log, nxt, wanted):
    est = parse_estimate(est_words)
    done = parts_log(log)
    ran = [p for p, _, _ in done]
    spent = sum(s for _, _, s in done)
    # the finished parts' time over their estimates: a slow host is slow
    # for the rest too
    est_done = sum(est.get(p, 0) for p in ran)
    scale = min(3.0, max(0.5, spent / est_done)) if est_done > 0 and spent > 0 else 1.0
    left = [p for p in wanted if p not in ran]
    rest = scale * sum(est.get(p, 0) for p in left)
    return "bench: part %d of %d (%s); %s so far, about %s left" % (
        len(ran) + 1, len(wanted), nxt, minutes(spent), minutes(rest))


def host_cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def read_records(path):
    cases, goals = {}, []
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return cases, goals
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "case" in r:
            cases[r["case"]] = r.get("figures", {})
        elif "goal" in r:
            goals.append({"goal": r["goal"], "met": r.get("met"),
                          "figures": r.get("figures", {})})
    return cases, goals


def collect(out, records, log, commit=None, kernel=None, date=None, env=()):
    parts = {}
    for name, status, secs in parts_log(log):
        cases, goals = read_records(os.path.join(records, name + ".jsonl"))
        parts[name] = {"status": status, "seconds": round(secs, 1),
                       "cases": cases, "goals": goals}
    res = {
        "date": date, "commit": commit, "kernel": kernel,
        "host": {"cpu": host_cpu(), "cpus": os.cpu_count(),
                 "machine": platform.machine()},
        "settings": dict(kv.partition("=")[::2] for kv in env),
        "parts": parts,
    }
    tmp = out + ".new"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, out)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compare(old_path, new_path):
    old, new = load_json(old_path), load_json(new_path)
    for path, r in ((old_path, old), (new_path, new)):
        if not r or "parts" not in r:
            sys.exit("bench_results.py: %s is not a results.json" % path)
    print("bench results compared: NEW / OLD")
    for what, r in (("OLD", old), ("NEW", new)):
        print("  %s %s, commit %s, kernel %s, %s" % (
            what, r.get("date") or "?", r.get("commit") or "?", r.get("kernel") or "?",
            (r.get("host") or {}).get("cpu") or "?"))
    ratios = []
    for part, np_ in new["parts"].items():
        op = old["parts"].get(part)
        if not op:
            print("\n%s: only in NEW" % part)
            continue
        print("\n%s (%s s against %s s)" % (part, np_.get("seconds"), op.get("seconds")))
        for name, nf in np_.get("cases", {}).items():
            of = op.get("cases", {}).get(name)
            if of is None:
                print("  %-34s only in NEW" % name)
                continue
            cells = []
            for k in sorted(nf):
                a, b = of.get(k), nf[k]
                if not (is_number(a) and is_number(b)):
                    continue
                if a == 0:
                    cells.append("%s %g->%g" % (k, a, b))
                else:
                    cells.append("%s %.2fx" % (k, b / a))
                    if a > 0 and b > 0:
                        ratios.append(b / a)
            print("  %-34s %s" % (name, ", ".join(cells) or "no numbers in both"))
        for name in op.get("cases", {}):
            if name not in np_.get("cases", {}):
                print("  %-34s only in OLD" % name)
        og = {g["goal"]: g["met"] for g in op.get("goals", [])}
        for g in np_.get("goals", []):
            was = og.get(g["goal"])
            if was is not None and was != g["met"]:
                print("  goal %s: %s, was %s" % (g["goal"], "met" if g["met"] else "NOT met",
                                                 "met" if was else "NOT met"))
        nmet = sum(1 for g in np_.get("goals", []) if g["met"])
        omet = sum(1 for g in op.get("goals", []) if g["met"])
        print("  goals met: %d of %d (OLD %d of %d)" % (
            nmet, len(np_.get("goals", [])), omet, len(op.get("goals", []))))
    for part in old["parts"]:
        if part not in new["parts"]:
            print("\n%s: only in OLD" % part)
    if ratios:
        ratios.sort()
        print("\nall figures: median NEW / OLD %.2fx (%d figures, %.2f-%.2f)" % (
            ratios[len(ratios) // 2], len(ratios), ratios[0], ratios[-1]))


def main(a):
    if a[:1] == ["estimate"] and len(a) <= 2:
        est = estimate(a[1] if len(a) > 1 else None)
        print(" ".join("%s=%d" % (k, v) for k, v in est.items()))
    elif a[:1] == ["progress"] and len(a) >= 5:
        print(progress(a[1], a[2], a[3], a[4:]))
    elif a[:1] == ["collect"] and len(a) >= 4:
        opts, env, rest = {}, [], a[4:]
        while rest:
            k = rest.pop(0)
            if k in ("--commit", "--kernel", "--date") and rest:
                opts[k[2:]] = rest.pop(0)
            elif k == "--env":
                env, rest = rest, []
            else:
                sys.exit("bench_results.py collect: unknown argument %s" % k)
        collect(a[1], a[2], a[3], env=env, **opts)
    elif a[:1] == ["compare"] and len(a) == 3:
        compare(a[1], a[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    # "| head" ends the reading, not with a traceback
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main(sys.argv[1:])
