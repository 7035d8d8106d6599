# SPDX-License-Identifier: GPL-2.0
"""TAP for the Python tests of scripts/lib (test_*.py, run by
scripts/check): check() prints one result, plan() the plan and gives the
exit status."""

_run = {"n": 0, "bad": 0}


def check(what, ok):
    """One result: ok N - WHAT, or not ok"""
    _run["n"] += 1
    if not ok:
        _run["bad"] += 1
    print("%sok %d - %s" % ("" if ok else "not ", _run["n"], what))
    return ok


def plan():
    """The plan line; 1 if any check failed, else 0"""
    print("1..%d" % _run["n"])
    return 1 if _run["bad"] else 0
