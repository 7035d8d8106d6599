#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Shoal packets for the shoal.ko scenarios, well-formed or not.

  shoal_craft.py list                     the cases, one a line
  shoal_craft.py expect CASE              the counters CASE moves ("name+N ...")
  shoal_craft.py send CASE ADDR PORT      send CASE's packet (ADDR may be
                                          a broadcast, or multicast%dev)
  shoal_craft.py cases FROM TO ADDR PORT [CASE...]
                                          every case (or those named) in
                                          turn, sent from network namespace
                                          FROM to ADDR in TO: a line each,
                                          "CASE<tab>expected<tab>moved" as
                                          expect and delta print them (one
                                          process, not three a case)
  shoal_craft.py flood N ADDR PORT        N random packets, half near-valid
  shoal_craft.py raw SRC DST PORT         2 IPv4 packets UDP must refuse
  shoal_craft.py udp COUNTER              this namespace's Udp COUNTER (snmp)
  shoal_craft.py delta BEFORE AFTER       what moved between two reads of
                                          /proc/net/shoal/stats (tx_*,
                                          rx_packets, rx_bytes left out)
  shoal_craft.py vars BEFORE AFTER        the same as shell assignments,
                                          plus by_type and by_reason
  shoal_craft.py rsv ADDR PORT D...       PL2: one RSV of demand D after
                                          another, each awaiting its GRT;
                                          prints "type flags in out from"
                                          per GRT, "none" on a timeout
  shoal_craft.py rsvfrom SPORT ADDR PORT D...
                                          the same from UDP port SPORT (the
                                          Shoal port, where a host's own
                                          answer goes)
  shoal_craft.py catch PORT N READY       up to N datagrams to UDP PORT
                                          (creating file READY once bound,
                                          5 s at most): "type word" each
  shoal_craft.py pl2data ADDR PORT N [unsol]
                                          PL2: N DATA packets, sent against
                                          a grant (SCHED) or unsolicited
  shoal_craft.py bounce SRC DST SPORT DPORT ID MSG_LEN OFFSET LEN [TYPE]
                                          a returned header as a switch
                                          sends it (IPv4, raw: SRC may be
                                          any address): DATA (or TYPE)
                                          from Shoal port SPORT of DST to
                                          DPORT, TRIMMED and BOUNCED, to
                                          DST's Shoal port 4797

The header layout is Documentation/wire.md's; the names are those of
/proc/net/shoal/stats (Documentation/shoal.md).
"""
import random
import socket
import struct
import sys
import time

import netns

VERSION = 1
TYPES = {"data": 1, "credit_req": 2, "credit": 3, "resend": 4, "busy": 5,
         "unknown": 6, "ack": 7, "abort": 8, "rsv": 9, "grt": 10}
F_TRIMMED, F_BOUNCED, F_DEADLINE = 0x80, 0x40, 0x20
F_REQUEST, F_RESPONSE, F_SCHED, F_RETX = 0x08, 0x04, 0x02, 0x01
MAX_MSG = 32 << 20


def header(ptype, flags=0, msg_len=10000, offset=1400, payload_len=None,
           word=0, hdr_len=None, version=VERSION, deadline=None,
           sport=0x1234, dport=0x4321, msg_id=0x0102030405060708):
    """A Shoal header; payload_len defaults to 1400 for DATA, else 0"""
    if payload_len is None:
        payload_len = 1400 if ptype == TYPES["data"] else 0
    if deadline is not None:
        flags |= F_DEADLINE
    if hdr_len is None:
        hdr_len = 40 if flags & F_DEADLINE else 32
    h = struct.pack("!BBHHBBQIIII", version << 4 | ptype, flags, sport,
                    dport, hdr_len, 0, msg_id, msg_len, offset,
                    payload_len, word)
    if deadline is not None:
        h += struct.pack("!Q", deadline)
    return h


def data(**kw):
    return header(TYPES["data"], **kw)


def ctrl(name, **kw):
    return header(TYPES[name], **kw)


OK = ["rx_drop_no_socket+1"]
# name: (packet, IP TOS byte, counters it moves)
CASES = {
    "data": (data() + bytes(1400), 0, ["rx_data+1"] + OK),
    "data_deadline": (data(deadline=123456) + bytes(1400), 0,
                      ["rx_data+1"] + OK),
    "data_options": (data(hdr_len=44) + bytes(12) + bytes(1400), 0,
                     ["rx_data+1"] + OK),
    "data_trimmed": (data(flags=F_TRIMMED), 0,
                     ["rx_data+1", "rx_trimmed+1"] + OK),
    "data_cut": (data() + bytes(64), 0, ["rx_data+1", "rx_trimmed+1"] + OK),
    "data_ce": (data() + bytes(1400), 3, ["rx_ce+1", "rx_data+1"] + OK),
    "credit_req": (ctrl("credit_req", offset=2800), 0, ["rx_credit_req+1"] + OK),
    "credit": (ctrl("credit", offset=5600, word=1400), 0, ["rx_credit+1"] + OK),
    "resend": (ctrl("resend", offset=1400, word=1400), 0, ["rx_resend+1"] + OK),
    "busy": (ctrl("busy"), 0, ["rx_busy+1"] + OK),
    "unknown": (ctrl("unknown"), 0, ["rx_unknown+1"] + OK),
    "ack": (ctrl("ack", flags=F_RESPONSE), 0, ["rx_ack+1"] + OK),
    "abort": (ctrl("abort", word=110), 0, ["rx_abort+1"] + OK),
    # for no socket: answered UNKNOWN, as DATA (a socket's: with a GRT)
    "rsv": (ctrl("rsv", word=8), 0, ["rx_rsv+1"] + OK),
    "grt": (ctrl("grt", flags=F_BOUNCED, word=0x00030005), 0, ["rx_grt+1"] + OK),
    # our own DATA returned by a switch: for the socket of its source
    # port (none here), never answered
    "data_bounced": (data(flags=F_TRIMMED | F_BOUNCED), 0,
                     ["rx_data+1", "rx_trimmed+1", "rx_bounced+1",
                      "rx_drop_bounce_no_msg+1"]),
    # a switch returns DATA only (and an RSV as a GRT)
    "credit_bounced": (ctrl("credit", flags=F_BOUNCED, offset=5600,
                            word=1400), 0, ["rx_drop_flags+1"]),
    "empty": (b"", 0, ["rx_drop_short+1"]),
    "short": (data()[:31], 0, ["rx_drop_short+1"]),
    "version": (data(version=2) + bytes(1400), 0, ["rx_drop_version+1"]),
    "type0": (header(0) + bytes(1400), 0, ["rx_drop_type+1"]),
    "type15": (header(15) + bytes(1400), 0, ["rx_drop_type+1"]),
    "hdr_len": (data(hdr_len=20) + bytes(1400), 0, ["rx_drop_hdr_len+1"]),
    "hdr_len_past": (data(hdr_len=64), 0, ["rx_drop_short+1"]),
    "flags": (data(flags=F_REQUEST | F_RESPONSE) + bytes(1400), 0,
              ["rx_drop_flags+1"]),
    "flags_ack": (ctrl("ack", flags=F_TRIMMED), 0, ["rx_drop_flags+1"]),
    "msg_len0": (data(msg_len=0, offset=0) + bytes(1400), 0,
                 ["rx_drop_msg_len+1"]),
    "msg_len_big": (data(msg_len=MAX_MSG + 1) + bytes(1400), 0,
                    ["rx_drop_msg_len+1"]),
    "range": (data(offset=9000) + bytes(1400), 0, ["rx_drop_range+1"]),
    "range_resend": (ctrl("resend", offset=9000, word=1001), 0,
                     ["rx_drop_range+1"]),
    "payload": (data() + bytes(1401), 0, ["rx_drop_payload+1"]),
    "payload_ack": (ctrl("ack") + bytes(8), 0, ["rx_drop_payload+1"]),
}


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def send(payloads, addr, port, tos=0):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    if tos:
        if family(addr) == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, tos)
        else:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    for p in payloads:
        s.sendto(p, (addr, port))
    s.close()


def flood(n, addr, port):
    """n packets, sent as they are made: random bytes, or a case's packet
    with bits flipped.  Stops quietly when the way goes (the receiver's
    namespace deleted under it)."""
    rnd = random.Random(7)
    cases = list(CASES.values())
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    for i in range(n):
        if i % 2:
            p = bytearray(rnd.choice(cases)[0])
            for _ in range(rnd.randrange(3)):
                if p:
                    p[rnd.randrange(min(len(p), 40))] ^= 1 << rnd.randrange(8)
        else:
            p = rnd.randbytes(rnd.randrange(100))
        try:
            s.sendto(bytes(p), (addr, port))
        except OSError:
            break
    s.close()


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4_udp(src, dst, sport, dport, payload):
    """An IPv4 UDP datagram with its checksum, from any source address"""
    udp_len = 8 + len(payload)
    pseudo = (socket.inet_aton(src) + socket.inet_aton(dst) +
              struct.pack("!BBH", 0, 17, udp_len))
    udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
    udp = udp[:6] + struct.pack("!H", csum(pseudo + udp) or 0xffff) + udp[8:]
    return struct.pack("!BBHHHBBH4s4s", 0x45, 48 << 2, 20 + len(udp), 0, 0,
                       64, 17, 0, socket.inet_aton(src),
                       socket.inet_aton(dst)) + udp


def bounce(src, dst, sport, dport, msg_id, msg_len, offset, plen,
           ptype="data"):
    """A header returned by a switch: addresses swapped, Shoal ports not"""
    if ptype == "data":
        h = data(flags=F_TRIMMED | F_BOUNCED, msg_len=msg_len, offset=offset,
                 payload_len=plen, sport=sport, dport=dport, msg_id=msg_id)
    else:
        h = ctrl(ptype, flags=F_BOUNCED, msg_len=msg_len, offset=offset,
                 sport=sport, dport=dport, msg_id=msg_id)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    s.sendto(ip4_udp(src, dst, 0xc123, 4797, h), (dst, 0))
    s.close()


def raw(src, dst, port):
    """a bad UDP checksum, and a UDP length past the packet's end"""
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    payload = data() + bytes(100)
    for udp_len, bad_sum in ((8 + len(payload), True),
                             (8 + len(payload) + 50, False)):
        pseudo = (socket.inet_aton(src) + socket.inet_aton(dst) +
                  struct.pack("!BBH", 0, 17, udp_len))
        udp = struct.pack("!HHHH", 40000, port, udp_len, 0) + payload
        sum_ = csum(pseudo + udp) or 0xffff
        if bad_sum:
            sum_ = sum_ ^ 0x0101 or 1
        udp = udp[:6] + struct.pack("!H", sum_) + udp[8:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64,
                         17, 0, socket.inet_aton(src), socket.inet_aton(dst))
        s.sendto(ip + udp, (dst, 0))
    s.close()


def rsv(addr, port, demands, timeout=2.0, sport=0):
    """Each RSV from one socket; the switch returns it to that socket
    within microseconds, so 2 s without a GRT (a test that expects none)
    is none"""
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.bind(("::" if ":" in addr else "0.0.0.0", sport))
    s.settimeout(timeout)
    for d in demands:
        s.sendto(ctrl("rsv", offset=0, word=d), (addr, port))
        try:
            p, src = s.recvfrom(2048)
        except socket.timeout:
            print("none")
            continue
        word = struct.unpack("!I", p[28:32])[0] if len(p) >= 32 else 0
        print("%d %d %d %d %s" % (p[0] & 15, p[1], word >> 16, word & 0xffff,
                                  src[0]))
    s.close()


def catch(port, n, ready, timeout=5.0):
    """What a plain socket on the Shoal port gets: RSVs a switch passed on"""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    open(ready, "w").close()
    end = time.monotonic() + timeout
    for _ in range(n):
        s.settimeout(max(end - time.monotonic(), 0.01))
        try:
            p = s.recv(2048)
        except socket.timeout:
            break
        if len(p) >= 32:
            print("%d %d" % (p[0] & 15, struct.unpack("!I", p[28:32])[0]))
    s.close()


def udp_counter(name):
    lines = [l.split() for l in open("/proc/net/snmp") if l.startswith("Udp:")]
    return int(lines[1][lines[0].index(name)])


def parse_stats(text):
    return {k: int(v) for k, v in (l.split() for l in text.splitlines() if l)}


def deltas(before, after):
    b, a = parse_stats(before), parse_stats(after)
    return {k: a[k] - b.get(k, 0) for k in a}


def moved(before, after):
    """delta's words: the counters that moved, tx_* and rx_packets and
    rx_bytes left out"""
    d = deltas(before, after)
    return " ".join("%s+%d" % (k, v) for k, v in sorted(d.items())
                    if v and k not in ("rx_packets", "rx_bytes") and
                    not k.startswith("tx_"))


def shoal_stats(ns):
    with netns.inside(ns):
        with open("/proc/net/shoal/stats") as f:
            return f.read()


def cases(src, dst, addr, port, names):
    for name in names or CASES:
        pkt, tos, want = CASES[name]
        before = shoal_stats(dst)
        with netns.inside(src):
            send([pkt], addr, port, tos)
        # what the receiver does with it is done in the softirq the send
        # ran, or soon after; a margin for a slow guest
        time.sleep(0.2)
        print("%s\t%s\t%s" % (name, " ".join(sorted(want)),
                              moved(before, shoal_stats(dst))), flush=True)


# drops by the endpoint, after the parser counted a packet by type
ENDPOINT_DROPS = ("rx_drop_no_socket", "rx_drop_no_msg", "rx_drop_mismatch",
                  "rx_drop_rcvbuf", "rx_drop_mem", "rx_drop_fragmented",
                  "rx_drop_bounce_no_msg", "rx_drop_bounce_stale",
                  "rx_drop_bounce_bad")


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "list":
        print("\n".join(CASES))
    elif cmd == "expect":
        print(" ".join(sorted(CASES[argv[2]][2])))
    elif cmd == "send":
        pkt, tos, _ = CASES[argv[2]]
        send([pkt], argv[3], int(argv[4]), tos)
    elif cmd == "cases":
        cases(argv[2], argv[3], argv[4], int(argv[5]), argv[6:])
    elif cmd == "flood":
        flood(int(argv[2]), argv[3], int(argv[4]))
    elif cmd == "raw":
        raw(argv[2], argv[3], int(argv[4]))
    elif cmd == "rsv":
        rsv(argv[2], int(argv[3]), [int(d) for d in argv[4:]])
    elif cmd == "rsvfrom":
        rsv(argv[3], int(argv[4]), [int(d) for d in argv[5:]], sport=int(argv[2]))
    elif cmd == "catch":
        catch(int(argv[2]), int(argv[3]), argv[4])
    elif cmd == "pl2data":
        flags = 0 if argv[5:6] == ["unsol"] else F_SCHED
        send([data(flags=flags) + bytes(1400)] * int(argv[4]), argv[2],
             int(argv[3]))
    elif cmd == "bounce":
        bounce(argv[2], argv[3], *[int(a, 0) for a in argv[4:10]],
               *argv[10:11])
    elif cmd == "udp":
        print(udp_counter(argv[2]))
    elif cmd == "delta":
        print(moved(argv[2], argv[3]))
    elif cmd == "vars":
        d = deltas(argv[2], argv[3])
        for k, v in sorted(d.items()):
            print("%s=%d" % (k, v))
        print("by_type=%d" % sum(d.get("rx_" + t, 0) for t in TYPES))
        print("by_reason=%d" % sum(v for k, v in d.items()
                                   if k.startswith("rx_drop_") and
                                   k not in ENDPOINT_DROPS))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
