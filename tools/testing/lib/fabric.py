#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Leaf-spine fabrics in network namespaces, built from a description file.

  fabric.py check FILE           parse FILE; print its summary, or
                                 "FILE:LINE: why" and exit 2
  fabric.py build FILE PREFIX    build it (namespaces PREFIX-h1.., PREFIX-leaf1..,
                                 PREFIX-spine1..) and print shell assignments
                                 naming them (see below); exit 1 on failure
  fabric.py events FILE PREFIX   run the file's link failures on time (seconds
                                 from now), printing each as it happens
  fabric.py teardown PREFIX      delete every namespace PREFIX-*

A description is one directive per line; '#' starts a comment:

  leaves N                       leaf switches (1..15)
  spines N                       spine switches (1..15; required with more
                                 than one leaf, 0 or absent with one)
  hosts_per_leaf N               hosts under each leaf (1..32)
  host_link RATE [delay D]       every host-leaf link (both directions)
  fabric_link RATE [delay D]     every leaf-spine link (both directions)
  ecmp flow|spray                a leaf's choice among the spines: by the
                                 addresses (flow: every packet between two
                                 hosts takes one spine), or by addresses and
                                 ports (spray: Shoal picks a random UDP source
                                 port per packet, so its packets spread over
                                 every spine; a TCP connection keeps one)
  qdisc PORT[@NODE] SPEC...      a qdisc (ours or in-tree) on every port of
                                 that kind, or on NODE's only: PORT is
                                 host-up (a host's eth0), leaf-down (a leaf
                                 towards a host), leaf-up (a leaf towards a
                                 spine), spine-down (a spine towards a leaf);
                                 NODE is hN, leafN or spineN
  fail leafL spineS at T [for D] take that link down T seconds after
                                 `events` starts (both ends), and up again
                                 after D seconds if given

RATE is a number with kbit, mbit or gbit, or "none" (the port sends at the
veth's speed); D a number with us, ms or s.  A port with a rate is a tbf at
that rate (a burst of 4 ms of it, at least 4000 bytes, for a guest whose
timers fire late); a delay is a netem above it; the port's qdisc is the
tbf's child (or the root without a rate).  A port with a rate and no qdisc
has tbf's own byte FIFO of 200 full frames.

Addresses (IPv4): host N (counted over all leaves) on leaf L is
10.<10+L>.N.1/24, its leaf's port 10.<10+L>.N.254; the link of leaf L and
spine S is 10.250.<16L+S>.0/24, the leaf .1, the spine .2.  A leaf routes
another leaf's 10.<10+M>.0.0/16 over every spine (one multipath route), a
spine each leaf's over its link to it.  Neighbour entries are permanent
(fixed MAC addresses), so no ARP competes with an incast.  Devices: a
host's eth0; on leaf L, hN towards host N and spS towards spine S; on
spine S, lfL towards leaf L.

`build` prints, for the shell to eval: fab_hosts, fab_leaves, fab_spines
(counts), fab_hN (namespace), fab_hN_ip, fab_hN_leaf, fab_leafL,
fab_spineS, and fab_oversub (the leaves' downlink capacity over their
uplink capacity, e.g. 2.00).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

PORTS = ("host-up", "leaf-down", "leaf-up", "spine-down")
FRAME = 1514
FIFO_FRAMES = 200


class FabricError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line = line


def parse_rate(word, line):
    """bits per second; 0 for none"""
    if word == "none":
        return 0
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(kbit|mbit|gbit)", word)
    if not m:
        raise FabricError(line, "bad rate %r (a number with kbit, mbit or gbit, or none)"
                          % word)
    bps = float(m.group(1)) * {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m.group(2)]
    if bps < 8000 or bps > 100e9:
        raise FabricError(line, "rate %r out of range (8kbit..100gbit)" % word)
    return int(bps)


def parse_time(word, line):
    """microseconds"""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(us|ms|s)", word)
    if not m:
        raise FabricError(line, "bad time %r (a number with us, ms or s)" % word)
    return int(float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)])


def parse_count(word, line, lo, hi, what):
    if not re.fullmatch(r"\d+", word) or not lo <= int(word) <= hi:
        raise FabricError(line, "%s must be %d..%d, not %r" % (what, lo, hi, word))
    return int(word)


class Fabric:
    def __init__(self):
        self.leaves = None
        self.spines = None
        self.hosts_per_leaf = None
        self.link = {"host": (0, 0), "fabric": (0, 0)}	# rate bps, delay us
        self.ecmp = "spray"
        self.qdiscs = []	# (port, node or None, spec words, line)
        self.fails = []		# (leaf, spine, at us, for us or None, line)
        self.seen = {}

    def hosts(self):
        return self.leaves * self.hosts_per_leaf

    def leaf_of(self, host):
        return (host - 1) // self.hosts_per_leaf + 1

    def oversub(self):
        down = self.hosts_per_leaf * self.link["host"][0]
        up = (self.spines or 0) * self.link["fabric"][0]
        return down / up if up and down else 0.0


def once(fab, key, line):
    if key in fab.seen:
        raise FabricError(line, "%s given twice (first on line %d)" % (key, fab.seen[key]))
    fab.seen[key] = line


def parse_link(words, line):
    if len(words) not in (2, 4) or (len(words) == 4 and words[2] != "delay"):
        raise FabricError(line, "usage: %s RATE [delay D]" % words[0])
    delay = parse_time(words[3], line) if len(words) == 4 else 0
    return parse_rate(words[1], line), delay


def parse_node(word, line):
    m = re.fullmatch(r"(h|leaf|spine)([1-9]\d*)", word)
    if not m:
        raise FabricError(line, "bad node %r (hN, leafN or spineN)" % word)
    return m.group(1), int(m.group(2))


def parse_line(fab, words, line):
    key = words[0]
    if key in ("leaves", "spines", "hosts_per_leaf"):
        once(fab, key, line)
        if len(words) != 2:
            raise FabricError(line, "usage: %s N" % key)
        lo, hi = {"leaves": (1, 15), "spines": (0, 15), "hosts_per_leaf": (1, 32)}[key]
        setattr(fab, key, parse_count(words[1], line, lo, hi, key))
    elif key in ("host_link", "fabric_link"):
        once(fab, key, line)
        fab.link[key[:-5]] = parse_link(words, line)
    elif key == "ecmp":
        once(fab, key, line)
        if len(words) != 2 or words[1] not in ("flow", "spray"):
            raise FabricError(line, "usage: ecmp flow|spray")
        fab.ecmp = words[1]
    elif key == "qdisc":
        if len(words) < 3:
            raise FabricError(line, "usage: qdisc PORT[@NODE] SPEC...")
        port, _, node = words[1].partition("@")
        if port not in PORTS:
            raise FabricError(line, "unknown port %r (one of %s)" % (port, ", ".join(PORTS)))
        if node:
            kind = parse_node(node, line)[0]
            want = {"host-up": "h", "leaf-down": "leaf", "leaf-up": "leaf",
                    "spine-down": "spine"}[port]
            if kind != want:
                raise FabricError(line, "%s is a port of a %s, not of %s" %
                                  (port, {"h": "host"}.get(want, want), node))
        fab.qdiscs.append((port, node or None, words[2:], line))
    elif key == "fail":
        if len(words) not in (5, 7) or words[3] != "at" or \
           (len(words) == 7 and words[5] != "for"):
            raise FabricError(line, "usage: fail leafL spineS at T [for D]")
        leaf, spine = parse_node(words[1], line), parse_node(words[2], line)
        if leaf[0] != "leaf" or spine[0] != "spine":
            raise FabricError(line, "a failure names a leaf and a spine")
        at = parse_time(words[4], line)
        dur = parse_time(words[6], line) if len(words) == 7 else None
        fab.fails.append((leaf[1], spine[1], at, dur, line))
    else:
        raise FabricError(line, "unknown directive %r" % key)


def parse(path):
    fab = Fabric()
    with open(path) as f:
        lines = f.read().splitlines()
    for n, text in enumerate(lines, 1):
        words = text.split("#", 1)[0].split()
        if words:
            parse_line(fab, words, n)
    last = len(lines) or 1
    if fab.leaves is None or fab.hosts_per_leaf is None:
        raise FabricError(last, "a fabric needs leaves and hosts_per_leaf")
    if fab.spines is None:
        fab.spines = 0
    if fab.leaves > 1 and not fab.spines:
        raise FabricError(fab.seen.get("spines", last),
                          "%d leaves need at least one spine" % fab.leaves)
    if fab.hosts() > 254:
        raise FabricError(fab.seen["hosts_per_leaf"], "at most 254 hosts in all")
    for port, node, _, line in fab.qdiscs:
        if node:
            kind, i = parse_node(node, line)
            most = {"h": fab.hosts(), "leaf": fab.leaves, "spine": fab.spines}[kind]
            if i > most:
                raise FabricError(line, "no %s: the fabric has %d" % (node, most))
        if port in ("leaf-up", "spine-down") and not fab.spines:
            raise FabricError(line, "%s: the fabric has no spines" % port)
    for leaf, spine, _, _, line in fab.fails:
        if leaf > fab.leaves or spine > fab.spines:
            raise FabricError(line, "no link leaf%d-spine%d" % (leaf, spine))
    return fab


# ---- building ----

def mac(kind, node, port):
    """fixed MAC of one end: 02:5f:<kind>:<node>:<port>:00"""
    return "02:5f:%02x:%02x:%02x:00" % ({"h": 1, "leaf": 2, "spine": 3}[kind], node, port)


def burst(bps):
    return max(4000, bps // 8 // 250)


def port_qdiscs(fab, port, node, dev, rate, delay):
    """tc batch lines for one port's egress"""
    spec = None
    for p, n, words, _ in fab.qdiscs:
        if p == port and n in (None, node):
            spec = words	# the last that applies wins
    out = []
    parent = "root"
    if delay:
        out.append("qdisc add dev %s %s handle 1: netem delay %dus limit 100000"
                   % (dev, parent, delay))
        parent = "parent 1:1"
    if rate:
        limit = FIFO_FRAMES * FRAME if spec is None else 100 * FRAME
        out.append("qdisc add dev %s %s handle 2: tbf rate %dbit burst %d limit %d"
                   % (dev, parent, rate, burst(rate), limit))
        parent = "parent 2:1"
    if spec:
        out.append("qdisc add dev %s %s handle 3: %s" % (dev, parent, " ".join(spec)))
    return out


def end_cfg(dev, addr, peer_addr, peer_mac):
    return ["link set dev %s addrgenmode none" % dev,
            "address add %s/24 dev %s" % (addr, dev),
            "link set dev %s up" % dev,
            "neigh replace %s lladdr %s dev %s nud permanent" % (peer_addr, peer_mac, dev)]


def host_addr(fab, h):
    return "10.%d.%d.1" % (10 + fab.leaf_of(h), h)


def plan(fab, prefix):
    """(namespaces, link batches per owner, config per namespace)"""
    ns = {}
    for h in range(1, fab.hosts() + 1):
        ns[("h", h)] = "%s-h%d" % (prefix, h)
    for i in range(1, fab.leaves + 1):
        ns[("leaf", i)] = "%s-leaf%d" % (prefix, i)
    for i in range(1, fab.spines + 1):
        ns[("spine", i)] = "%s-spine%d" % (prefix, i)
    links = {k: [] for k in ns}	# ip batch creating veth pairs, per owner
    ipb = {k: ["link set lo up"] for k in ns}
    tcb = {k: [] for k in ns}
    devs = {k: [] for k in ns}
    hrate, hdelay = fab.link["host"]
    frate, fdelay = fab.link["fabric"]
    for h in range(1, fab.hosts() + 1):
        leaf = fab.leaf_of(h)
        lmac, hmac = mac("leaf", leaf, h), mac("h", h, 0)
        links[("leaf", leaf)].append(
            "link add h%d address %s type veth peer name eth0 netns %s address %s"
            % (h, lmac, ns[("h", h)], hmac))
        gw = "10.%d.%d.254" % (10 + leaf, h)
        ipb[("h", h)] += end_cfg("eth0", host_addr(fab, h), gw, lmac)
        ipb[("h", h)].append("route add default via %s" % gw)
        ipb[("leaf", leaf)] += end_cfg("h%d" % h, gw, host_addr(fab, h), hmac)
        devs[("leaf", leaf)].append("h%d" % h)
        tcb[("h", h)] += port_qdiscs(fab, "host-up", "h%d" % h, "eth0", hrate, hdelay)
        tcb[("leaf", leaf)] += port_qdiscs(fab, "leaf-down", "leaf%d" % leaf,
                                           "h%d" % h, hrate, hdelay)
    for leaf in range(1, fab.leaves + 1):
        for sp in range(1, fab.spines + 1):
            net = "10.250.%d" % (16 * leaf + sp)
            lmac, smac = mac("leaf", leaf, 100 + sp), mac("spine", sp, leaf)
            links[("leaf", leaf)].append(
                "link add sp%d address %s type veth peer name lf%d netns %s address %s"
                % (sp, lmac, leaf, ns[("spine", sp)], smac))
            ipb[("leaf", leaf)] += end_cfg("sp%d" % sp, net + ".1", net + ".2", smac)
            ipb[("spine", sp)] += end_cfg("lf%d" % leaf, net + ".2", net + ".1", lmac)
            ipb[("spine", sp)].append("route add 10.%d.0.0/16 via %s.1" % (10 + leaf, net))
            devs[("leaf", leaf)].append("sp%d" % sp)
            devs[("spine", sp)].append("lf%d" % leaf)
            tcb[("leaf", leaf)] += port_qdiscs(fab, "leaf-up", "leaf%d" % leaf,
                                               "sp%d" % sp, frate, fdelay)
            tcb[("spine", sp)] += port_qdiscs(fab, "spine-down", "spine%d" % sp,
                                              "lf%d" % leaf, frate, fdelay)
        ipb[("leaf", leaf)] += leaf_routes(fab, leaf, set())
    return ns, links, ipb, tcb, devs


def leaf_routes(fab, leaf, down):
    """ip batch lines: @leaf's routes to every other leaf, over each spine
    whose links to both are up (@down: the (leaf, spine) links down)"""
    out = []
    for other in range(1, fab.leaves + 1):
        if other == leaf:
            continue
        hops = " ".join("nexthop via 10.250.%d.2 dev sp%d" % (16 * leaf + sp, sp)
                        for sp in range(1, fab.spines + 1)
                        if (leaf, sp) not in down and (other, sp) not in down)
        pfx = "10.%d.0.0/16" % (10 + other)
        # no spine reaches it: dropped here (replaced when a path is back)
        out.append("route replace %s %s" % (pfx, hops) if hops else
                   "route replace blackhole " + pfx)
    return out


def run_all(jobs):
    """[(what, argv, stdin)] at once; the failures' messages"""
    procs = []
    for what, argv, data in jobs:
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        procs.append((what, p, data))
    bad = []
    for what, p, data in procs:
        out, _ = p.communicate(data)
        if p.returncode:
            bad.append("%s: %s" % (what, out.strip().replace("\n", "; ")))
    return bad


# one exec per namespace (each costs most of a second under TCG): its ip
# batch, then sysctls and offloads, then its qdiscs
SETUP = r'''
set -e
ip -batch "$1"
[ -z "$2" ] || sysctl -qw $2
for d in $3; do ethtool -K "$d" gro off gso off tso off >/dev/null; done
[ -z "$4" ] || ethtool -K eth0 tx off >/dev/null
[ ! -s "$5" ] || tc -batch "$5"
'''


def build(fab, prefix):
    ns, links, ipb, tcb, devs = plan(fab, prefix)
    bad = run_all([("netns add " + name, ["ip", "netns", "add", name], "")
                   for name in ns.values()])
    if bad:
        return bad
    jobs = []
    for key, lines in links.items():
        if lines:	# the veth pairs, from the switch that owns them
            jobs.append(("links of " + ns[key], ["ip", "-n", ns[key], "-batch", "-"],
                         "\n".join(lines) + "\n"))
    bad = run_all(jobs)
    if bad:
        return bad
    with tempfile.TemporaryDirectory(prefix="fabric.") as tmp:
        return setup(fab, ns, ipb, tcb, devs, tmp)


def setup(fab, ns, ipb, tcb, devs, tmp):
    """every namespace's addresses, routes, sysctls and qdiscs, at once,
    from batch files in @tmp"""
    hash_policy = "1" if fab.ecmp == "spray" else "0"
    jobs = []
    for key, name in ns.items():
        ipf = os.path.join(tmp, name + ".ip")
        tcf = os.path.join(tmp, name + ".tc")
        with open(ipf, "w") as f:
            f.write("\n".join(ipb[key]) + "\n")
        with open(tcf, "w") as f:
            f.write("".join(line + "\n" for line in tcb[key]))
        sysctls = ""
        if key[0] != "h":
            sysctls = ("net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
                       "net.ipv4.conf.default.rp_filter=0 "
                       "net.ipv4.fib_multipath_hash_policy=" + hash_policy + " " +
                       " ".join("net.ipv4.conf.%s.rp_filter=0" % d for d in devs[key]))
        jobs.append(("setup of " + name,
                     ["ip", "netns", "exec", name, "sh", "-c", SETUP, "sh", ipf,
                      sysctls, " ".join(devs[key]), "host" if key[0] == "h" else "",
                      tcf], ""))
    return run_all(jobs)


def assignments(fab, prefix):
    out = ["fab_hosts=%d" % fab.hosts(), "fab_leaves=%d" % fab.leaves,
           "fab_spines=%d" % fab.spines, "fab_oversub=%.2f" % fab.oversub()]
    for h in range(1, fab.hosts() + 1):
        out += ["fab_h%d=%s-h%d" % (h, prefix, h), "fab_h%d_ip=%s" % (h, host_addr(fab, h)),
                "fab_h%d_leaf=%d" % (h, fab.leaf_of(h))]
    out += ["fab_leaf%d=%s-leaf%d" % (i, prefix, i) for i in range(1, fab.leaves + 1)]
    out += ["fab_spine%d=%s-spine%d" % (i, prefix, i) for i in range(1, fab.spines + 1)]
    return out


def link_event(fab, prefix, leaf, spine, state, down):
    """the link of @leaf and @spine goes @state (both ends), and the
    routes follow at once: every leaf sends only over spines whose links
    to both ends are up.  Taking a device down drops its single-path
    routes and its neighbour entries, permanent ones too: coming up, they
    are written again."""
    net = "10.250.%d" % (16 * leaf + spine)
    lcmd = ["link set sp%d %s" % (spine, state)]
    scmd = ["link set lf%d %s" % (leaf, state)]
    if state == "up":
        down.discard((leaf, spine))
        lcmd.append("neigh replace %s.2 lladdr %s dev sp%d nud permanent"
                    % (net, mac("spine", spine, leaf), spine))
        scmd += ["neigh replace %s.1 lladdr %s dev lf%d nud permanent"
                 % (net, mac("leaf", leaf, 100 + spine), leaf),
                 "route replace 10.%d.0.0/16 via %s.1" % (10 + leaf, net)]
    else:
        down.add((leaf, spine))
    batches = {"%s-spine%d" % (prefix, spine): scmd}
    for m in range(1, fab.leaves + 1):
        batches["%s-leaf%d" % (prefix, m)] = (lcmd if m == leaf else []) + \
            leaf_routes(fab, m, down)
    return run_all([(name, ["ip", "-n", name, "-batch", "-"],
                     "\n".join(lines) + "\n") for name, lines in batches.items()])


def events(fab, prefix):
    todo = []
    for leaf, spine, at, dur, _ in fab.fails:
        todo.append((at, leaf, spine, "down"))
        if dur is not None:
            todo.append((at + dur, leaf, spine, "up"))
    todo.sort()
    down = set()
    start = time.monotonic()
    for at, leaf, spine, state in todo:
        time.sleep(max(0.0, start + at / 1e6 - time.monotonic()))
        bad = link_event(fab, prefix, leaf, spine, state, down)
        print("%.3f leaf%d-spine%d %s%s" % (time.monotonic() - start, leaf, spine, state,
                                           " FAILED: " + "; ".join(bad) if bad else ""),
              flush=True)
        if bad:
            return 1
    return 0


def teardown(prefix):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names = [w.split()[0] for w in out.splitlines() if w.startswith(prefix + "-")]
    run_all([("netns del " + n, ["ip", "netns", "del", n], "") for n in names])


def count(n, one, many=None):
    return "%d %s" % (n, one if n == 1 else many or one + "s")


def main(argv):
    if len(argv) == 3 and argv[1] == "teardown":
        teardown(argv[2])
        return 0
    if len(argv) < 3 or argv[1] not in ("check", "build", "events") or \
       (argv[1] != "check") != (len(argv) == 4):
        sys.exit(__doc__)
    try:
        fab = parse(argv[2])
    except FabricError as e:
        print("%s:%d: %s" % (argv[2], e.line, e), file=sys.stderr)
        return 2
    except OSError as e:
        print("%s: %s" % (argv[2], e.strerror), file=sys.stderr)
        return 2
    if argv[1] == "check":
        print("%s on %s and %s, %s ECMP, oversubscription %.2f:1, %s, %s" %
              (count(fab.hosts(), "host"), count(fab.leaves, "leaf", "leaves"),
               count(fab.spines, "spine"), fab.ecmp, fab.oversub(),
               count(len(fab.qdiscs), "qdisc"), count(len(fab.fails), "failure")))
        return 0
    if argv[1] == "events":
        return events(fab, argv[3])
    bad = build(fab, argv[3])
    if bad:
        for b in bad:
            print("fabric: " + b, file=sys.stderr)
        return 1
    print("\n".join(assignments(fab, argv[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
