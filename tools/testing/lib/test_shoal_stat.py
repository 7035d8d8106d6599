#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/shoal-stat against counter files written here: the
values (-a, -z, JSON, patterns), the growth since the last call (the
history file: first call from 0, then the differences, a counter that
went down counts from 0, -r starts again), intervals (-i, -c: as many
reports as asked, each the growth in it) and its errors (exit 1 for a
missing file, 2 for bad options, a clear message each).  TAP."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from tap import check, done

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "shoal-stat", "shoal-stat")

def run(*args):
    p = subprocess.run([TOOL] + list(args), capture_output=True, text=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def text_values(out):
    """{name: value} of a text report"""
    vals = {}
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        f = line.split()
        vals[f[0]] = int(f[1])
    return vals


def write(path, vals):
    with open(path, "w") as f:
        for k, v in vals:
            f.write("%s %d\n" % (k, v))


def main():
    if not os.access(TOOL, os.X_OK):
        print("Bail out! %s is not built (make tools)" % TOOL)
        return 1
    d = tempfile.mkdtemp()
    stats = os.path.join(d, "stats")
    hist = os.path.join(d, "hist")
    write(stats, [("rx_packets", 10), ("tx_packets", 0), ("rx_msgs", 3),
                  ("tx_msgs", 2 ** 63)])

    rc, out, err = run("--file", stats, "-a")
    check(rc == 0 and text_values(out) == {"rx_packets": 10, "rx_msgs": 3,
                                           "tx_msgs": 2 ** 63},
          "-a: the values, the zero one left out (%r)" % text_values(out))
    rc, out, err = run("--file", stats, "-a", "-z", "-j")
    doc = json.loads(out) if rc == 0 else {}
    check(doc.get("counters") == {"rx_packets": 10, "tx_packets": 0,
                                  "rx_msgs": 3, "tx_msgs": 2 ** 63},
          "-a -z -j: every counter as JSON, 64-bit values whole")
    rc, out, err = run("--file", stats, "-a", "rx_*")
    check(text_values(out) == {"rx_packets": 10, "rx_msgs": 3},
          "a pattern picks counters (%r)" % text_values(out))

    rc, out, err = run("--file", stats, "--history", hist)
    check(rc == 0 and text_values(out) == {"rx_packets": 10, "rx_msgs": 3,
                                           "tx_msgs": 2 ** 63},
          "the first call counts from 0 (%r)" % text_values(out))
    write(stats, [("rx_packets", 15), ("tx_packets", 2), ("rx_msgs", 1),
                  ("tx_msgs", 2 ** 63), ("rx_new", 4)])
    rc, out, err = run("--file", stats, "--history", hist)
    check(rc == 0 and text_values(out) == {"rx_packets": 5, "tx_packets": 2,
                                           "rx_msgs": 1, "rx_new": 4},
          "the next, the growth since; one that went down, and a new one, "
          "from 0 (%r)" % text_values(out))
    rc, out, err = run("--file", stats, "--history", hist, "-z", "-j")
    doc = json.loads(out) if rc == 0 else {}
    check(set(doc.get("counters", {}).values()) == {0},
          "nothing moved since: all 0 (%r)" % doc.get("counters"))
    rc, out, err = run("--file", stats, "--history", hist, "-r")
    check(text_values(out).get("rx_packets") == 15,
          "-r forgets the history (%r)" % text_values(out))

    rc, out, err = run("--file", stats, "-i", "0.05", "-c", "3", "-j", "-z",
                       "tx_*")
    docs = [json.loads(line) for line in out.splitlines()] if rc == 0 else []
    check(len(docs) == 3 and
          all(x["counters"] == {"tx_packets": 0, "tx_msgs": 0} and
              x["interval_s"] >= 0.05 for x in docs),
          "-i -c 3: three reports, each the growth in its interval (%d)"
          % len(docs))

    rc, out, err = run("--file", os.path.join(d, "none"), "-a")
    check(rc == 1 and "No such file" in err,
          "a missing file: exit 1 and why (%d, %r)" % (rc, err.strip()))
    for args in (["-c", "2"], ["-i", "0"], ["-i", "x"], ["-a", "-i", "1"],
                 ["--bogus"]):
        rc, out, err = run("--file", stats, *args)
        check(rc == 2 and err.strip(),
              "%s: exit 2 with a message (%d, %r)"
              % (" ".join(args), rc, err.strip().splitlines()[:1]))
    rc, out, err = run("-n", "no-such-ns", "-a")
    check(rc == 1 and "no-such-ns" in err,
          "a namespace that is not there: exit 1 and its name (%d)" % rc)
    rc, out, err = run("--help")
    check(rc == 0 and "usage: shoal-stat" in out, "--help: the usage")
    shutil.rmtree(d)
    return done()


if __name__ == "__main__":
    sys.exit(main())
