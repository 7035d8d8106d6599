# SPDX-License-Identifier: GPL-2.0
"""TAP lines for the Python checks: check() prints one, done() the plan
and returns the exit status (1 if any failed)."""

n = 0
failed = 0


def check(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))


def done():
    print("1..%d" % n)
    return 1 if failed else 0
