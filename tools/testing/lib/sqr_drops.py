#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sqr_drops.py TRACE

Counts the kfree_skb events of a trace file by where the packet was
dropped (the kernel symbol of the location, from /proc/kallsyms) and
prints drop_detached, drop_stopped and drop_other as shell assignments
(sqr.sh's sqr_drops says what each means); each other drop also as an
echo to stderr."""

import bisect, re, sys
syms = []
for l in open("/proc/kallsyms"):
    f = l.split()
    if f[1] in "tT":
        syms.append((int(f[0], 16), f[2]))
syms.sort()
ks = [a for a, _ in syms]
n = {"detached": 0, "stopped": 0, "other": 0}
for l in open(sys.argv[1]):
    m = re.search(r"kfree_skb:.*location=(?:0x)?([0-9a-f]+) reason: (\w+)", l)
    if not m:
        continue
    fn = syms[bisect.bisect_right(ks, int(m.group(1), 16)) - 1][1]
    if m.group(2) == "QDISC_DROP":
        n["detached"] += 1
    elif fn in ("enqueue_to_backlog", "__dev_forward_skb2"):
        n["stopped"] += 1
    else:
        n["other"] += 1
        print("echo \"# drop at %s (%s)\" >&2;" % (fn, m.group(2)))
for k, v in n.items():
    print("drop_%s=%d" % (k, v))
