#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Deadline order of Shoal packets through a router, measured at the router.

  edf_order.py --egress DEV --json FILE --ready FILE --stop FILE
               [--mode abs|slack] [--tol-us US] [--timeout S] [--port P]

Run in the router's namespace.  One AF_PACKET socket on every device of
the namespace sees each Shoal DATA packet with a deadline twice: when it
comes in on any device but DEV (before routing and the qdisc) and when it
leaves on DEV (after the qdisc chose it).  Both taps go to the same socket,
so its receive queue holds the arrivals and departures in the order they
happened.  That order is exact only if the router's packet processing runs
on one CPU: then a packet's ingress tap and its enqueue, and a departure's
dequeue and its tap, are each one uninterrupted stretch of softirq work
(the caller pins the senders to one CPU; see calq-edf.sh).

A packet A is an inversion when some packet B whose deadline is more than
--tol-us earlier than A's had arrived before A left and left after A: a
queue serving earliest deadline first would have sent B first.  Deadlines:
the absolute CLOCK_MONOTONIC field (--mode abs, EDF), or (--mode slack,
LSTF) what calq ranks by, its enqueue time plus the slack.  That time is
not seen, only bounded: it is after the arrival stamp (the kernel stamps
a packet when the sender's veth queues it to the backlog, and a busy
guest, or a host that stops its vCPU, forwards it later) and before the
departure stamp plus the slack left that calq wrote when it sent the
packet, minus the slack.  A packet counts as an inversion only if it was
due later than the other however their deadlines lie in these ranges
(inversions_at_most: if they lie the other way; dl_spread_max_us and
_p50_us: the widest and the median range).  An inversion by more than
--tol-us plus the ranges of both packets is always counted.

The packets wait in the socket (64 MiB, headers only) while the test
runs, so that reading them costs the emulated guest nothing then: once the
--stop file exists (or after --timeout seconds) the tool reads them all
and writes JSON (and with --raw, every event as a line of text): pkts (arrived and left), unmatched
(arrived, never left: dropped on arrival, overtaking nobody; or left,
never seen arriving), dups, capture_drops,
inversions, inversion_max_us (how much earlier the worst B was due),
late_in / late_out (past their deadline when they arrived / left),
inv_by_late (inversions where some overtaking B had arrived past its
deadline already), per-sender counts, and the same counts by kernel
timestamps rather than queue order (inversions_ts) as a cross-check.
"""
import argparse
import ctypes
import json
import os
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = 35
SO_ATTACH_FILTER = 26
SO_RCVBUFFORCE = 33
SNAP = 128			# bytes kept: IP, UDP and the Shoal header fit
SHOAL_F_DEADLINE = 0x20
SHOAL_V1_DATA = 0x11		# version 1 << 4 | SHOAL_T_DATA
SHOAL_HDR_LEN = 32


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8),
                ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]


def open_capture():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    # a one-instruction filter that keeps SNAP bytes: a queue of headers
    ins = (SockFilter * 1)(SockFilter(0x06, 0, 0, SNAP))	# BPF_RET | BPF_K
    prog = SockFprog(1, ins)
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, bytes(memoryview(prog)))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
    # unbound: every device of the namespace
    s.setblocking(False)
    return s


def parse(p, port):
    """(src, msg_id, field) of a Shoal DATA packet with a deadline, or None."""
    if len(p) < 20:
        return None
    if p[0] >> 4 == 4:
        l4, proto, src = (p[0] & 15) * 4, p[9], p[12:16]
        if (p[6] & 0x3f) or p[7]:
            return None
    elif p[0] >> 4 == 6 and len(p) >= 40:
        l4, proto, src = 40, p[6], p[8:24]
    else:
        return None
    sh = l4 + 8
    if proto != 17 or len(p) < sh + SHOAL_HDR_LEN + 8:
        return None
    if struct.unpack_from("!H", p, l4 + 2)[0] != port:
        return None
    if p[sh] != SHOAL_V1_DATA or not p[sh + 1] & SHOAL_F_DEADLINE:
        return None
    msg_id = struct.unpack_from("!Q", p, sh + 8)[0]
    field = struct.unpack_from("!q", p, sh + SHOAL_HDR_LEN)[0]
    return bytes(src), msg_id, field


def capture(s, args):
    """Events in queue order: (kind 'i' or 'o', key, sender, field, t_real_ns)."""
    ev = []
    start = time.monotonic()
    with open(args.ready, "w"):
        pass
    while not os.path.exists(args.stop) and time.monotonic() - start < args.timeout:
        time.sleep(0.2)
    while True:
        try:
            data, anc, _, addr = s.recvmsg(SNAP, 256)
        except BlockingIOError:
            break
        pkt = parse(data, args.port)
        if pkt is None:
            continue
        t = 0
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                t = sec * 1000000000 + nsec
        ifname, pkttype = addr[0], addr[2]
        if ifname == args.egress and pkttype == PACKET_OUTGOING:
            kind = "o"
        elif ifname != args.egress and pkttype != PACKET_OUTGOING:
            kind = "i"
        else:
            continue
        ev.append((kind, pkt[0] + struct.pack("!Q", pkt[1]), pkt[1] >> 32, pkt[2], t))
    stats = s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
    return ev, struct.unpack("II", stats)[1]


def inversions(order, lo, hi, tol, sender):
    """A inverted: a B due more than tol before A was queued when A left
    and left after it.  A deadline is known to lie in [lo, hi]: A counts
    only if it was due after B however they lie in theirs (lo[A] - hi[B]
    > tol).  @order: ('i' | 'o', key) in the order that counts.  Returns
    (count, worst ns, per sender, inverted keys with their B)."""
    present = {}
    count, worst, per, who = 0, 0, {}, {}
    for kind, key in order:
        if kind == "i":
            present[key] = hi[key]
            continue
        if key not in present:
            continue
        del present[key]
        if not present:
            continue
        bkey = min(present, key=present.get)
        d = lo[key] - present[bkey]
        if d > tol:
            count += 1
            worst = max(worst, d)
            per[sender[key]] = per.get(sender[key], 0) + 1
            who[key] = bkey
    return count, worst, per, who


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--egress", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--stop", required=True)
    ap.add_argument("--mode", choices=("abs", "slack"), default="abs")
    ap.add_argument("--tol-us", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--port", type=int, default=4797)
    ap.add_argument("--raw", help="write the events: i|o sender seq deadline-range time (ns)")
    args = ap.parse_args()

    # CLOCK_REALTIME (capture stamps) to CLOCK_MONOTONIC (deadlines)
    mono_off = time.clock_gettime_ns(time.CLOCK_MONOTONIC) - time.time_ns()
    s = open_capture()
    ev, drops = capture(s, args)

    t_in, t_out, dl, dl_hi, sender = {}, {}, {}, {}, {}
    order, dups = [], 0
    for kind, key, snd, field, t in ev:
        if kind == "i":
            if key in t_in:
                dups += 1
                continue
            t_in[key] = t + mono_off
            sender[key] = snd
            # EDF: the field; LSTF: calq's enqueue plus the slack, and
            # calq took the packet after the stamp (at least this)
            dl[key] = field if args.mode == "abs" else t_in[key] + field
            order.append(("i", key))
        elif key in t_in and key not in t_out:
            t_out[key] = t + mono_off
            # LSTF: calq wrote the slack left when it sent the packet,
            # before the stamp: its deadline is at most stamp + that
            dl_hi[key] = field if args.mode == "abs" else t_out[key] + field
            order.append(("o", key))
    done = [k for k in t_in if k in t_out]
    # a packet that never left was dropped when it came (a full queue, a
    # day beyond the horizon): it never waited, so it overtakes nobody
    order = [e for e in order if e[1] in t_out]
    if args.raw:
        with open(args.raw, "w") as f:
            for kind, key in order:
                t = (t_in if kind == "i" else t_out)[key]
                f.write("%s %d %d %d %d %d\n" % (kind, sender[key], struct.unpack("!Q", key[-8:])[0] & 0xffffffff,
                                                 dl[key], dl_hi[key], t))
    left_unseen = sum(1 for kind, key, _, _, _ in ev if kind == "o" and key not in t_in)
    tol = args.tol_us * 1000
    n, worst, per, who = inversions(order, dl, dl_hi, tol, sender)
    # the other way round: what might be inversions, were the deadlines
    # at the ends of their ranges least in their favour
    n_hi, _, _, _ = inversions(order, dl_hi, dl, tol, sender)
    # the same by the kernel's timestamps: an arrival counts before a
    # departure stamped later (ties: the arrival first)
    by_ts = sorted(order, key=lambda e: ((t_in if e[0] == "i" else t_out)[e[1]], e[0] == "o"))
    n_ts, _, _, _ = inversions(by_ts, dl, dl_hi, tol, sender)
    late_in = {k for k in done if args.mode == "abs" and t_in[k] > dl[k]}
    late_out = sum(1 for k in done if t_out[k] > dl_hi[k])
    res = {
        "mode": args.mode, "tol_us": args.tol_us, "pkts": len(done),
        "unmatched": len(t_in) - len(done) + left_unseen, "dups": dups,
        "capture_drops": drops, "inversions": n,
        "inversion_max_us": round(worst / 1000),
        "inversions_ts": n_ts, "inversions_at_most": n_hi,
        "dl_spread_max_us": round(max((dl_hi[k] - dl[k] for k in done), default=0) / 1000),
        "dl_spread_p50_us": round(sorted(dl_hi[k] - dl[k] for k in done)[len(done) // 2] / 1000)
                            if done else -1, "late_in": len(late_in), "late_out": late_out,
        "inv_by_late": sum(1 for b in who.values() if b in late_in),
        "per_sender": {str(k): {"pkts": sum(1 for x in done if sender[x] == k),
                                "inversions": per.get(k, 0)}
                       for k in sorted(set(sender.values()))},
        "sojourn_max_us": round(max((t_out[k] - t_in[k] for k in done), default=0) / 1000),
    }
    tmp = args.json + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    os.rename(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
