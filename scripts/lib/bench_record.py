# SPDX-License-Identifier: GPL-2.0
"""A bench part's figures, for results.json (scripts/lib/bench_results.py).

Each report of `make bench` (scripts/lib/bench_*_report.py) prints its
tables for people and, through this module, records the same numbers for
machines: one case per table row (its name and figures) and one goal per
verdict it prints.  The records go, one JSON object a line, to
$BENCH_RECORDS/PART.jsonl, which scripts/guest/bench-guest.sh sets for
each part; without BENCH_RECORDS (a report run by hand) nothing is
written.  Figures are numbers, strings, booleans or None: the ones a
comparison makes ratios of are the numbers.  Imports nothing of the
guest."""
import json, math, os


def _clean(v):
    """JSON has no NaN or infinity: None instead"""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _write(part, rec):
    d = os.environ.get("BENCH_RECORDS")
    if not d:
        return
    os.makedirs(d, exist_ok=True)
    # appended: a part may run several reports; bench-guest.sh empties
    # the part's file before the part runs
    with open(os.path.join(d, part + ".jsonl"), "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")


def case(part, name, **figures):
    """One row of a part's table: NAME (unique in the part, e.g.
    "W3 0.8 sird") and its FIGURES (keyword: value)"""
    _write(part, {"case": str(name),
                  "figures": {k: _clean(v) for k, v in figures.items()}})


def goal(part, what, met, **figures):
    """One verdict the part printed: WHAT (its sentence), MET (bool) and
    the numbers it was computed from, if any"""
    _write(part, {"goal": str(what), "met": bool(met),
                  "figures": {k: _clean(v) for k, v in figures.items()}})


def _value(s):
    """a command line's figure: an int, a float, or the string"""
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


if __name__ == "__main__":
    # from a shell part: bench_record.py case PART NAME KEY=VALUE...
    #                    bench_record.py goal PART WHAT met|not KEY=VALUE...
    import sys
    a = sys.argv[1:]
    if len(a) < 3 or a[0] not in ("case", "goal") or (a[0] == "goal" and len(a) < 4):
        sys.exit("usage: bench_record.py case PART NAME [KEY=VALUE...]\n"
                 "       bench_record.py goal PART WHAT met|not [KEY=VALUE...]")
    kv = a[4:] if a[0] == "goal" else a[3:]
    figs = {}
    for x in kv:
        k, sep, v = x.partition("=")
        if not sep:
            sys.exit("bench_record.py: not KEY=VALUE: %s" % x)
        figs[k] = _value(v)
    if a[0] == "case":
        case(a[1], a[2], **figs)
    else:
        goal(a[1], a[2], a[3] == "met", **figs)
