#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_fabric_check.py: fabric.py check on descriptions it must refuse,
naming the line at fault ("FILE:LINE: why", exit status 2), and on the
tree's own fabrics, which it must accept; TAP, exit status 1 if any is
wrong.  Run by scripts/check (unit/fabric-check): parsing needs no
guest, so the fabric scenario spends its VM time on fabrics that run."""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts", "lib"))
from tap import check, plan  # noqa: E402

FAB = os.path.join(HERE, "fabric.py")

# (the line at fault, the description's lines)
BAD = [
    (3, ["leaves 2", "spines 1", "hosts_per_leaf 40"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 4", "host_link 10mbps"]),
    (2, ["leaves 2", "hosts_per_leaf 4"]),
    (5, ["leaves 2", "spines 2", "hosts_per_leaf 4", "", "fail leaf1 spine3 at 1s"]),
    (4, ["leaves 1", "hosts_per_leaf 4", "# no spines", "qdisc leaf-up trim limit 12"]),
    (2, ["leaves 2", "leaves 3"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 2", "qdisc spine-down@leaf1 pfifo"]),
    (1, ["hosts 4"]),
    (4, ["leaves 2", "spines 2", "hosts_per_leaf 1", "sqr leaf1 spine2 backup sp1"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 1", "sqr leaf1 spine1"]),
    (5, ["leaves 2", "spines 1", "hosts_per_leaf 2", "tenant 1 h1 h2", "tenant 2 h2"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 2", "pl2 h1"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 2", "pl2 spine1 uplinks"]),
    (4, ["leaves 2", "spines 1", "hosts_per_leaf 2", "pl2 leaf1 --uplink sp1"]),
    (4, ["leaves 1", "hosts_per_leaf 2", "host_link 5mbit", "burst 0ms"]),
]


def fabric_check(path):
    p = subprocess.run([sys.executable, FAB, "check", path],
                       capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "bad.fab")
    for line, text in BAD:
        with open(path, "w") as f:
            f.write("\n".join(text) + "\n")
        rc, out = fabric_check(path)
        named = [l for l in out.splitlines() if l.startswith("%s:%d: " % (path, line))]
        check("refused, naming line %d: %s" % (line, out.replace(tmp + "/", "")),
              rc == 2 and len(named) == 1)
    rc, out = fabric_check(os.path.join(tmp, "absent.fab"))
    check("a missing file: refused, named (%s)" % out.replace(tmp + "/", ""),
          rc == 2 and out.startswith(os.path.join(tmp, "absent.fab") + ": "))
for fab in sorted(glob.glob(os.path.join(HERE, "..", "fabrics", "*.fab"))):
    rc, out = fabric_check(fab)
    check("%s: accepted (%s)" % (os.path.basename(fab), out), rc == 0)
sys.exit(plan())
