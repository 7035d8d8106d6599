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
  sqr leafL spineS [OPTION...]   that link runs sch_sqr at both ends (the
                                 root, the port's qdiscs its child) with a
                                 backup: the leaf's, its uplink to the next
                                 spine; the spine's, its downlink to the next
                                 leaf, which sends on over another spine;
                                 OPTIONs are sqr's (no backup or dmac)
  pl2 NODE [uplinks] [OPTION...] the PL2 switch program on every port of that
                                 leafN or spineN (pl2-switch attach OPTIONs,
                                 e.g. --kmax 4 --slot-ns 240000); with
                                 uplinks, a leaf's ports towards the spines
                                 are attached as uplinks (--uplink), which
                                 reserve nothing: an RSV leaving by them is
                                 passed on for the receiver's leaf to
                                 answer, so that every leaf may run it
  tenant N HOST...               packets from these hosts (hN) carry mark N
                                 (1..65535) in every switch: afq's
                                 `flow_key mark` then keys per tenant
  fail leafL spineS at T [for D] cut that link's cable T seconds after
                                 `events` starts (both ends lose carrier),
                                 mend it D seconds later if given
  converge D                     routing converges D after a cut or a mend
                                 (default 0: as fast as the commands run)
  burst D                        every rated port's tbf bucket: D of its rate,
                                 at least 4000 bytes (default 4ms)

RATE is a number with kbit, mbit or gbit, or "none" (the port sends at the
veth's speed); D a number with us, ms or s.  A port with a rate is a tbf at
that rate (a burst of 4 ms of it, or `burst`'s, at least 4000 bytes, for
a guest whose timers fire late: a stall longer than the bucket is capacity
the link loses); a delay is a netem above it; the port's qdisc is the
tbf's child (or the root without a rate).  A port with a rate and no qdisc
has tbf's own byte FIFO of 200 full frames.

Addresses (IPv4): host N (counted over all leaves) on leaf L is
10.<10+L>.N.1/24, its leaf's port 10.<10+L>.N.254; the link of leaf L and
spine S is 10.250.<16L+S>.0/24, the leaf .1, the spine .2.  A leaf routes
another leaf's 10.<10+M>.0.0/16 over every spine (one multipath route), a
spine each leaf's over its link to it.  A leaf skips an uplink that has
lost its carrier at once (ignore_routes_with_linkdown); the other leaves
stop sending through the spine that lost it when routing converges, and
until then the spine's port drops what it gets (or its sqr sends it
round another leaf: a packet a leaf gets from spine S for another leaf
goes on over the other spines).  Neighbour entries are permanent
(fixed MAC addresses), so no ARP competes with an incast.  Devices: a
host's eth0; on leaf L, hN towards host N and spS towards spine S; on
spine S, lfL towards leaf L.  A link that can fail or runs sqr passes
through a namespace PREFIX-wireL-S, its cable (a bridge of ports a and b).

`build` prints, for the shell to eval: fab_hosts, fab_leaves, fab_spines
(counts), fab_hN (namespace), fab_hN_ip, fab_hN_leaf, fab_hN_tenant (0 if
none), fab_leafL, fab_spineS, fab_wireL_S (a cable's namespace), and
fab_oversub (the leaves' downlink capacity over their uplink capacity,
e.g. 2.00).
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
        self.sqr = {}		# (leaf, spine): (sqr option words, line)
        self.tenant = {}	# host: (mark, line)
        self.converge = 0	# us
        self.burst = 4000	# us of a rated port's rate in its tbf bucket
        # ("leaf"|"spine", N): (pl2-switch option words, line, whether a
        # leaf's ports towards the spines are uplinks)
        self.pl2 = {}
        self.seen = {}

    def hosts(self):
        return self.leaves * self.hosts_per_leaf

    def leaf_of(self, host):
        return (host - 1) // self.hosts_per_leaf + 1

    def wires(self):
        """the links that pass through a cable namespace"""
        return sorted(set((f[0], f[1]) for f in self.fails) | set(self.sqr))

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


def parse_link_ends(leaf, spine, line):
    leaf, spine = parse_node(leaf, line), parse_node(spine, line)
    if leaf[0] != "leaf" or spine[0] != "spine":
        raise FabricError(line, "a link is named by its leaf and its spine")
    return leaf[1], spine[1]


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
    elif key == "sqr":
        if len(words) < 3:
            raise FabricError(line, "usage: sqr leafL spineS [OPTION...]")
        link = parse_link_ends(words[1], words[2], line)
        if link in fab.sqr:
            raise FabricError(line, "sqr on leaf%d-spine%d given twice (first on line %d)"
                              % (link + (fab.sqr[link][1],)))
        for w in words[3:]:
            if w in ("backup", "dmac"):
                raise FabricError(line, "the builder sets sqr's %s (the next spine or leaf)"
                                  % w)
        fab.sqr[link] = (words[3:], line)
    elif key == "tenant":
        if len(words) < 3:
            raise FabricError(line, "usage: tenant N HOST...")
        mark = parse_count(words[1], line, 1, 65535, "a tenant's mark")
        for w in words[2:]:
            kind, h = parse_node(w, line)
            if kind != "h":
                raise FabricError(line, "a tenant is hosts (hN), not %r" % w)
            if h in fab.tenant:
                raise FabricError(line, "h%d is in a tenant already (line %d)"
                                  % (h, fab.tenant[h][1]))
            fab.tenant[h] = (mark, line)
    elif key == "pl2":
        if len(words) < 2:
            raise FabricError(line, "usage: pl2 NODE [uplinks] [OPTION...]")
        node = parse_node(words[1], line)
        if node[0] == "h":
            raise FabricError(line, "the PL2 switch runs on a leaf or a spine, not %s" % words[1])
        if node in fab.pl2:
            raise FabricError(line, "pl2 on %s given twice (first on line %d)"
                              % (words[1], fab.pl2[node][1]))
        uplinks = words[2:3] == ["uplinks"]
        opts = words[3:] if uplinks else words[2:]
        if uplinks and node[0] != "leaf":
            raise FabricError(line, "uplinks: only a leaf has ports towards the spines, not %s"
                              % words[1])
        if "--uplink" in opts:
            raise FabricError(line, "pl2: say uplinks after the node, not --uplink")
        fab.pl2[node] = (opts, line, uplinks)
    elif key == "converge":
        once(fab, key, line)
        if len(words) != 2:
            raise FabricError(line, "usage: converge D")
        fab.converge = parse_time(words[1], line)
    elif key == "burst":
        once(fab, key, line)
        if len(words) != 2:
            raise FabricError(line, "usage: burst D")
        fab.burst = parse_time(words[1], line)
        if not 1000 <= fab.burst <= 1000000:
            raise FabricError(line, "burst %r out of range (1ms..1s)" % words[1])
    elif key == "fail":
        if len(words) not in (5, 7) or words[3] != "at" or \
           (len(words) == 7 and words[5] != "for"):
            raise FabricError(line, "usage: fail leafL spineS at T [for D]")
        leaf, spine = parse_link_ends(words[1], words[2], line)
        at = parse_time(words[4], line)
        dur = parse_time(words[6], line) if len(words) == 7 else None
        fab.fails.append((leaf, spine, at, dur, line))
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
    for (leaf, spine), (_, line) in fab.sqr.items():
        if leaf > fab.leaves or spine > fab.spines:
            raise FabricError(line, "no link leaf%d-spine%d" % (leaf, spine))
        if fab.leaves < 2 or fab.spines < 2:
            raise FabricError(line, "sqr needs a backup: two leaves and two spines")
    for (kind, i), (_, line, _) in fab.pl2.items():
        most = {"leaf": fab.leaves, "spine": fab.spines}[kind]
        if i > most:
            raise FabricError(line, "no %s%d: the fabric has %d" % (kind, i, most))
    for h, (_, line) in fab.tenant.items():
        if h > fab.hosts():
            raise FabricError(line, "no h%d: the fabric has %d" % (h, fab.hosts()))
    return fab


# ---- building ----

def mac(kind, node, port):
    """fixed MAC of one end: 02:5f:<kind>:<node>:<port>:00"""
    return "02:5f:%02x:%02x:%02x:00" % ({"h": 1, "leaf": 2, "spine": 3}[kind], node, port)


def burst(bps, us):
    return max(4000, bps // 8 * us // 1000000)


def port_qdiscs(fab, port, node, dev, rate, delay, sqr=None):
    """tc batch lines for one port's egress; @sqr: the root sch_sqr's
    option words, the rest its child"""
    spec = None
    for p, n, words, _ in fab.qdiscs:
        if p == port and n in (None, node):
            spec = words	# the last that applies wins
    out = []
    parent = "root"
    if sqr:
        out.append("qdisc add dev %s root handle 10: sqr %s" % (dev, " ".join(sqr)))
        parent = "parent 10:1"
    if delay:
        out.append("qdisc add dev %s %s handle 1: netem delay %dus limit 100000"
                   % (dev, parent, delay))
        parent = "parent 1:1"
    if rate:
        limit = FIFO_FRAMES * FRAME if spec is None else 100 * FRAME
        out.append("qdisc add dev %s %s handle 2: tbf rate %dbit burst %d limit %d"
                   % (dev, parent, rate, burst(rate, fab.burst), limit))
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


def sqr_words(fab, leaf, spine, end):
    """sch_sqr's options at @end ("leaf" or "spine") of a link, with its
    backup: the leaf's uplink to the next spine, or the spine's downlink
    to the next leaf (which sends the packets on over another spine)"""
    if (leaf, spine) not in fab.sqr:
        return None
    words = fab.sqr[(leaf, spine)][0]
    if end == "leaf":
        other = spine % fab.spines + 1
        return words + ["backup", "sp%d" % other, "dmac", mac("spine", other, leaf)]
    other = leaf % fab.leaves + 1
    return words + ["backup", "lf%d" % other, "dmac", mac("leaf", other, 100 + spine)]


def wire_cfg():
    """a cable's namespace: what enters port a leaves by port b, and back
    (a bridge would keep the link-local groups sqr's heartbeat uses);
    (ip batch lines, tc batch lines)"""
    ipl, tcl = [], []
    for dev, peer in (("a", "b"), ("b", "a")):
        ipl += ["link set dev %s addrgenmode none" % dev, "link set dev %s up" % dev]
        tcl += ["qdisc add dev %s clsact" % dev,
                "filter add dev %s ingress matchall action mirred egress redirect dev %s"
                % (dev, peer)]
    return ipl, tcl


def tenant_filters(fab, devs):
    """tc batch lines marking each tenant's packets on a switch's ports"""
    if not fab.tenant:
        return []
    out = ["qdisc add dev %s ingress_block 1 clsact" % d for d in devs]
    for h, (mark, _) in sorted(fab.tenant.items()):
        out.append("filter add block 1 protocol ip pref 1 flower src_ip %s "
                   "action skbedit mark %d" % (host_addr(fab, h), mark))
    return out


def plan(fab, prefix):
    """(namespaces, link batches per owner, config per namespace)"""
    ns = {}
    for h in range(1, fab.hosts() + 1):
        ns[("h", h)] = "%s-h%d" % (prefix, h)
    for i in range(1, fab.leaves + 1):
        ns[("leaf", i)] = "%s-leaf%d" % (prefix, i)
    for i in range(1, fab.spines + 1):
        ns[("spine", i)] = "%s-spine%d" % (prefix, i)
    for leaf, sp in fab.wires():
        ns[("wire", (leaf, sp))] = wire_ns(prefix, leaf, sp)
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
            wire = ns.get(("wire", (leaf, sp)))
            if wire:	# through its cable
                links[("leaf", leaf)].append(
                    "link add sp%d address %s type veth peer name a netns %s"
                    % (sp, lmac, wire))
                links[("spine", sp)].append(
                    "link add lf%d address %s type veth peer name b netns %s"
                    % (leaf, smac, wire))
                ipl, tcl = wire_cfg()
                ipb[("wire", (leaf, sp))] += ipl
                tcb[("wire", (leaf, sp))] += tcl
                devs[("wire", (leaf, sp))] += ["a", "b"]
            else:
                links[("leaf", leaf)].append(
                    "link add sp%d address %s type veth peer name lf%d netns %s address %s"
                    % (sp, lmac, leaf, ns[("spine", sp)], smac))
            ipb[("leaf", leaf)] += end_cfg("sp%d" % sp, net + ".1", net + ".2", smac)
            ipb[("spine", sp)] += end_cfg("lf%d" % leaf, net + ".2", net + ".1", lmac)
            ipb[("spine", sp)].append("route add 10.%d.0.0/16 via %s.1" % (10 + leaf, net))
            devs[("leaf", leaf)].append("sp%d" % sp)
            devs[("spine", sp)].append("lf%d" % leaf)
            tcb[("leaf", leaf)] += port_qdiscs(fab, "leaf-up", "leaf%d" % leaf,
                                               "sp%d" % sp, frate, fdelay,
                                               sqr_words(fab, leaf, sp, "leaf"))
            tcb[("spine", sp)] += port_qdiscs(fab, "spine-down", "spine%d" % sp,
                                              "lf%d" % leaf, frate, fdelay,
                                              sqr_words(fab, leaf, sp, "spine"))
        if fab.spines > 1:	# from a spine, on over the others (see leaf_routes)
            ipb[("leaf", leaf)] += ["rule add iif sp%d lookup %d pref %d"
                                    % (sp, 100 + sp, 100 + sp)
                                    for sp in range(1, fab.spines + 1)]
        ipb[("leaf", leaf)] += leaf_routes(fab, leaf, set())
    for key in ns:
        if key[0] in ("leaf", "spine"):
            tcb[key] += tenant_filters(fab, devs[key])
    return ns, links, ipb, tcb, devs


def wire_ns(prefix, leaf, spine):
    return "%s-wire%d-%d" % (prefix, leaf, spine)


def leaf_routes(fab, leaf, down):
    """ip batch lines: @leaf's routes to every other leaf, over each spine
    whose links to both are up (@down: the (leaf, spine) links down); and
    with more than one spine, table 100+S: the same without spine S, for
    what comes from S (a spine's sqr sending round a dead link), so that
    it never goes back"""
    out = []
    tables = [("", None)]
    if fab.spines > 1:
        tables += [(" table %d" % (100 + sp), sp) for sp in range(1, fab.spines + 1)]
    for table, skip in tables:
        for other in range(1, fab.leaves + 1):
            if other == leaf:
                continue
            hops = " ".join("nexthop via 10.250.%d.2 dev sp%d" % (16 * leaf + sp, sp)
                            for sp in range(1, fab.spines + 1)
                            if sp != skip and (leaf, sp) not in down and
                            (other, sp) not in down)
            pfx = "10.%d.0.0/16" % (10 + other)
            # no spine reaches it: dropped here (replaced when a path is back)
            out.append("route replace %s%s %s" % (pfx, table, hops) if hops else
                       "route replace blackhole %s%s" % (pfx, table))
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
# batch, then sysctls and offloads, then its qdiscs, then its PL2 switch
# on all its ports
SETUP = r'''
set -e
ip -batch "$1"
[ -z "$2" ] || sysctl -qw $2
for d in $3; do ethtool -K "$d" gro off gso off tso off >/dev/null; done
[ -z "$4" ] || ethtool -K eth0 tx off >/dev/null
[ ! -s "$5" ] || tc -batch "$5"
[ -z "$6" ] || "$6" attach $7
'''

# the PL2 switch's loader (make tools)
PL2_SWITCH = os.environ.get("PL2_SWITCH", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "pl2-switch", "pl2-switch"))


def build(fab, prefix):
    ns, links, ipb, tcb, devs = plan(fab, prefix)
    if fab.pl2:	# the switch program's maps are pinned there
        if not os.access(PL2_SWITCH, os.X_OK):
            return ["pl2: no %s (make tools)" % PL2_SWITCH]
        if subprocess.run(["mountpoint", "-q", "/sys/fs/bpf"]).returncode and \
           subprocess.run(["mount", "-t", "bpf", "bpf", "/sys/fs/bpf"]).returncode:
            return ["pl2: cannot mount the BPF filesystem on /sys/fs/bpf"]
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
        if key[0] in ("leaf", "spine"):
            sysctls = ("net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
                       "net.ipv4.conf.default.rp_filter=0 "
                       "net.ipv4.fib_multipath_hash_policy=" + hash_policy + " " +
                       " ".join("net.ipv4.conf.%s.rp_filter=0" % d for d in devs[key]))
        if key[0] == "leaf":	# a dead uplink is skipped at once
            sysctls += " net.ipv4.conf.all.ignore_routes_with_linkdown=1 " + \
                " ".join("net.ipv4.conf.%s.ignore_routes_with_linkdown=1" % d
                         for d in devs[key] if d.startswith("sp"))
        jobs.append(("setup of " + name,
                     ["ip", "netns", "exec", name, "sh", "-c", SETUP, "sh", ipf,
                      sysctls, " ".join(devs[key]), "host" if key[0] == "h" else "",
                      tcf, PL2_SWITCH if key in fab.pl2 else "",
                      " ".join(pl2_attach(fab, key, devs[key]))], ""))
    return run_all(jobs)


def pl2_attach(fab, key, devs):
    """pl2-switch attach's words for a switch: its options, then every
    port, a leaf's towards the spines as uplinks when asked"""
    if key not in fab.pl2:
        return []
    words, _, uplinks = fab.pl2[key]
    out = list(words)
    for d in devs:	# a leaf's ports towards the spines are sp1, sp2, ...
        out += ["--uplink", d] if uplinks and d.startswith("sp") else [d]
    return out


def assignments(fab, prefix):
    out = ["fab_hosts=%d" % fab.hosts(), "fab_leaves=%d" % fab.leaves,
           "fab_spines=%d" % fab.spines, "fab_oversub=%.2f" % fab.oversub()]
    for h in range(1, fab.hosts() + 1):
        out += ["fab_h%d=%s-h%d" % (h, prefix, h), "fab_h%d_ip=%s" % (h, host_addr(fab, h)),
                "fab_h%d_leaf=%d" % (h, fab.leaf_of(h))]
        out.append("fab_h%d_tenant=%d" % (h, fab.tenant.get(h, (0,))[0]))
    out += ["fab_leaf%d=%s-leaf%d" % (i, prefix, i) for i in range(1, fab.leaves + 1)]
    out += ["fab_spine%d=%s-spine%d" % (i, prefix, i) for i in range(1, fab.spines + 1)]
    out += ["fab_wire%d_%d=%s" % (leaf, sp, wire_ns(prefix, leaf, sp))
            for leaf, sp in fab.wires()]
    return out


def cable(prefix, leaf, spine, state):
    """cut (@state "down") or mend the cable of a link: both ends lose or
    regain their carrier, their devices, addresses and routes stay.  The
    leaf's end goes down first and comes up last: a leaf sends on an
    uplink the moment it has a carrier, while the spine has little to
    send down once the other leaves' routes have left it, so the moment
    between the two ends loses nothing on the way back up"""
    return run_all([("cable leaf%d-spine%d" % (leaf, spine),
                     ["ip", "-n", wire_ns(prefix, leaf, spine), "-batch", "-"],
                     "link set dev %s %s\nlink set dev %s %s\n" %
                     (("a", state, "b", state) if state == "down" else
                      ("b", state, "a", state)))])


def converge(fab, prefix, down):
    """routing has converged on @down (the links down): every leaf sends
    only over spines whose links to both ends are up"""
    return run_all([("routes of leaf%d" % m, ["ip", "-n", "%s-leaf%d" % (prefix, m),
                                              "-batch", "-"],
                     "\n".join(leaf_routes(fab, m, down)) + "\n")
                    for m in range(1, fab.leaves + 1)])


def events(fab, prefix):
    """the cuts and mends on time, and routing converging on each
    fab.converge later"""
    todo = []
    for leaf, spine, at, dur, _ in fab.fails:
        todo.append((at, 0, leaf, spine, "down"))
        todo.append((at + fab.converge, 1, leaf, spine, "down"))
        if dur is not None:
            todo.append((at + dur, 0, leaf, spine, "up"))
            todo.append((at + dur + fab.converge, 1, leaf, spine, "up"))
    todo.sort()
    down = set()
    start = time.monotonic()
    for at, routes, leaf, spine, state in todo:
        time.sleep(max(0.0, start + at / 1e6 - time.monotonic()))
        if routes:
            (down.add if state == "down" else down.discard)((leaf, spine))
            bad = converge(fab, prefix, down)
            what = "routes"
        else:
            bad = cable(prefix, leaf, spine, state)
            what = "cable"
        print("%.3f leaf%d-spine%d %s %s%s" %
              (time.monotonic() - start, leaf, spine, what, state,
               " FAILED: " + "; ".join(bad) if bad else ""), flush=True)
        if bad:
            return 1
    return 0


def teardown(prefix):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    names = [w.split()[0] for w in out.splitlines() if w.startswith(prefix + "-")]
    # a PL2 switch's maps stay pinned after its namespace: detach it first
    pinned = []
    for n in names:
        try:
            ino = os.stat("/run/netns/" + n).st_ino
        except OSError:
            continue
        if os.path.isdir("/sys/fs/bpf/pl2-switch/net%d" % ino):
            pinned.append(("pl2-switch detach in " + n,
                           ["ip", "netns", "exec", n, PL2_SWITCH, "detach", "-a"], ""))
    run_all(pinned)
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
        print("%s on %s and %s, %s ECMP, oversubscription %.2f:1, %s, %s, %s, %s, %s" %
              (count(fab.hosts(), "host"), count(fab.leaves, "leaf", "leaves"),
               count(fab.spines, "spine"), fab.ecmp, fab.oversub(),
               count(len(fab.qdiscs), "qdisc"), count(len(fab.sqr), "sqr link"),
               count(len(set(m for m, _ in fab.tenant.values())), "tenant"),
               count(len(fab.pl2), "PL2 switch", "PL2 switches"),
               count(len(fab.fails), "failure")))
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
