#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Live-id attacks on Shoal sockets while RPCs run (scenario/shoal-liveid).

  shoal_liveid.py serve READY PROTO:PORT...
        in the server's namespace: answer every request on each socket
        with a response of the size it asks for; every message checked
        (CRC-32); JSON on SIGTERM
  shoal_liveid.py call SECONDS SEED ADDR WINDOW NS:PROTO:PORT:TAG...
        a client socket in each namespace NS keeps WINDOW requests to
        ADDR, Shoal port PORT, in flight for SECONDS, then waits for the
        last ones; every response checked; JSON, a line per client
  shoal_liveid.py attack SECONDS SEED RATE MAX_MSG_LEN LOG
        in the switch's namespace: sees every Shoal packet it forwards
        (AF_PACKET), learns live messages from them, and injects RATE
        forged packets a second for SECONDS (raw IPv4, the peer's source
        address), each of a kind below; runs until SIGTERM, then prints
        JSON: the packets that left each device by the verdict the
        parser must give them, the forged ones by kind; in LOG, the
        last packets that named each message id (JSON)
  shoal_liveid.py account ATTACK_JSON DEV:BEFORE:AFTER:UDP...
        shell assignments: for each namespace behind DEV, its
        /proc/net/shoal/stats before and after (files) against what left
        DEV towards it; UDP is its Udp InDatagrams delta

A message is 24 bytes of header (magic, tag, index, size, the size of
the response it asks for, CRC-32 of the rest) and random bytes.
"""
import ctypes
import errno
import json
import random
import select
import signal
import socket
import struct
import sys
import time
import zlib

import netns
from shoal_craft import TYPES, csum
from shoal_msgs import PROTOS, SOL_SHOAL, SHOAL_CMSG_RECV, stats

SHOAL_CMSG_SEND = 1
MSG_REQUEST, MSG_RESPONSE = 1, 2
INFO = struct.Struct("=QIi")
HEAD = struct.Struct("!4sIIIII")
MAGIC = b"SLID"
SIZES = (100, 1000, 3000, 12000, 40000, 90000)
PORT = 4797
MARK_TTL = 99		# the forged packets' TTL; forwarded ones have 63
NAMES = {v: k for k, v in TYPES.items()}
REASONS = ("short", "version", "type", "hdr_len", "flags", "msg_len",
           "range", "payload")
F_TRIMMED, F_BOUNCED, F_DEADLINE, F_CSN = 0x80, 0x40, 0x20, 0x10
F_NAME, F_SCHED, F_RETX = 0x0c, 0x02, 0x01
F_REQUEST = 0x08
ANY = F_RETX | F_DEADLINE | F_NAME


def body(tag, index, size, resp, rnd):
    rest = rnd.randbytes(max(0, size - HEAD.size))
    return (HEAD.pack(MAGIC, tag, index, size, resp, zlib.crc32(rest)) +
            rest)[:max(size, HEAD.size)]


def check(data):
    """(tag, index, response size) of an intact message, else None"""
    if len(data) < HEAD.size:
        return None
    magic, tag, index, size, resp, crc = HEAD.unpack(data[:HEAD.size])
    if magic != MAGIC or size != len(data) or \
       zlib.crc32(data[HEAD.size:]) != crc:
        return None
    return tag, index, resp


def proto(name):
    try:
        with open("/sys/module/shoal/parameters/proto_" + name) as f:
            return int(f.read())
    except OSError:
        return PROTOS[name]


def recv_info(anc):
    for level, kind, data in anc:
        if level == SOL_SHOAL and kind == SHOAL_CMSG_RECV:
            return INFO.unpack(data[:INFO.size])
    return None


def errname(e):
    return errno.errorcode.get(e, str(e))


def drain_errors(s, errors, ids=None):
    while True:
        try:
            _, anc, _, _ = s.recvmsg(0, 256, socket.MSG_ERRQUEUE |
                                     socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        info = recv_info(anc)
        if info:
            errors[errname(info[2])] = errors.get(errname(info[2]), 0) + 1
            if ids is not None:
                ids.append(info[0])


class Stop(Exception):
    pass


def stop(signum, frame):
    raise Stop()


def serve(ready, specs):
    socks = {}
    for spec in specs:
        name, port = spec.split(":")
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, proto(name))
        s.bind(("::", int(port)))
        socks[s] = name
    out = {"good": 0, "bad": 0, "dup": 0, "plain": 0, "replied": 0,
           "send_err": 0, "errors": {}}
    seen = set()
    rnd = random.Random(1)
    open(ready, "w").close()
    signal.signal(signal.SIGTERM, stop)
    try:
        while True:
            r, _, x = select.select(list(socks), [], list(socks), 1)
            for s in set(r) | set(x):
                drain_errors(s, out["errors"])
                try:
                    data, anc, flags, src = s.recvmsg(1 << 18, 256,
                                                      socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                info = recv_info(anc)
                got = check(data) if not flags & socket.MSG_TRUNC else None
                if not got or not info:
                    out["bad"] += 1
                    continue
                out["good"] += 1
                key = (socks[s], got[0], got[1])
                if key in seen:
                    out["dup"] += 1
                seen.add(key)
                if not info[1] & MSG_REQUEST:
                    out["plain"] += 1
                    continue
                args = struct.pack("=IIQQ", MSG_RESPONSE, 0, info[0], 0)
                try:
                    s.sendmsg([body(got[0], got[1], got[2], 0, rnd)],
                              [(SOL_SHOAL, SHOAL_CMSG_SEND, args)], 0, src)
                    out["replied"] += 1
                except OSError:
                    out["send_err"] += 1
    except Stop:
        pass
    for s in socks:
        drain_errors(s, out["errors"])
    print(json.dumps(out), flush=True)


class Client:
    def __init__(self, spec, addr, seed):
        ns, self.proto, port, tag = spec.split(":")
        self.dst, self.tag = (addr, int(port)), int(tag)
        with netns.inside(ns):
            self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM,
                                   proto(self.proto))
        self.rnd = random.Random(seed * 1000 + self.tag)
        self.wait = {}		# id: (index, response size)
        self.next = 0
        self.out = {"ns": ns, "proto": self.proto, "issued": 0, "good": 0,
                    "bad": 0, "stray": 0, "send_err": 0, "errors": {}}

    def issue(self):
        size, resp = self.rnd.choice(SIZES), self.rnd.choice(SIZES)
        msg_id = ctypes.c_uint64(0)
        args = struct.pack("=IIQQ", MSG_REQUEST, 0, 0,
                           ctypes.addressof(msg_id))
        try:
            self.s.sendmsg([body(self.tag, self.next, size, resp, self.rnd)],
                           [(SOL_SHOAL, SHOAL_CMSG_SEND, args)],
                           socket.MSG_DONTWAIT, self.dst)
        except BlockingIOError:
            return
        except OSError:
            self.out["send_err"] += 1
            return
        self.wait[msg_id.value] = (self.next, resp)
        self.next += 1
        self.out["issued"] += 1

    def input(self):
        failed = []
        drain_errors(self.s, self.out["errors"], failed)
        for i in failed:
            self.wait.pop(i, None)
        try:
            data, anc, flags, _ = self.s.recvmsg(1 << 18, 256,
                                                 socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        info = recv_info(anc)
        want = self.wait.pop(info[0], None) if info else None
        got = check(data) if not flags & socket.MSG_TRUNC else None
        if want is None:	# its request failed, then it came
            self.out["stray" if got else "bad"] += 1
        elif got and got[:2] == (self.tag, want[0]) and \
                len(data) == max(want[1], HEAD.size):
            self.out["good"] += 1
        else:
            self.out["bad"] += 1


def call(seconds, seed, addr, window, specs):
    clients = [Client(spec, addr, seed) for spec in specs]
    start = time.time()
    end, last = start + seconds, start + seconds + 40
    while time.time() < last:
        now = time.time()
        if now < end:
            for c in clients:
                while len(c.wait) < window and c.out["send_err"] < 100:
                    before = c.out["issued"]
                    c.issue()
                    if c.out["issued"] == before:
                        break
        elif not any(c.wait for c in clients):
            break
        socks = {c.s: c for c in clients}
        r, _, x = select.select(list(socks), [], list(socks), 0.05)
        for s in set(r) | set(x):
            socks[s].input()
    for c in clients:
        c.out["unresolved"] = len(c.wait)
        c.out["stuck"] = ["%016x" % i for i in c.wait]
        c.out["elapsed"] = round(time.time() - start, 2)
        c.out.update(stats(c.s))
        print(json.dumps(c.out), flush=True)
    # the attacker forges for messages it saw in the last 0.5 s: held
    # open a while longer, the sockets' port takes what it forges for the
    # last ones (closed, the host would count such packets as no UDP
    # socket's, where the scenario counts every packet at the port)
    time.sleep(1.0)


def parse(sh, length, max_msg_len):
    """include/net/shoal/wire.h's verdict on a Shoal header @sh of a
    datagram whose UDP payload is @length bytes: ("type", name, trimmed,
    fields) or ("drop", reason)"""
    if length < 32 or len(sh) < 32:
        return ("drop", "short")
    ver, typ, flags = sh[0] >> 4, sh[0] & 15, sh[1]
    sport, dport, hdr_len, opts, msg_id, msg_len, off, plen, word = \
        struct.unpack("!HHBBQIIII", sh[2:32])
    opts &= 1
    if ver != 1:
        return ("drop", "version")
    if typ not in NAMES:
        return ("drop", "type")
    need = 32 + (8 if flags & F_DEADLINE else 0) + (8 if opts else 0)
    if hdr_len < need or hdr_len > 64:
        return ("drop", "hdr_len")
    if length < hdr_len or min(len(sh), 64) < need:
        return ("drop", "short")
    ok = ANY
    if typ == TYPES["data"]:
        ok |= F_TRIMMED | F_BOUNCED | F_CSN | F_SCHED
    elif typ == TYPES["credit_req"]:
        ok |= F_CSN
    elif typ == TYPES["grt"]:
        ok |= F_BOUNCED
    if flags & ~ok or (opts and typ != TYPES["data"]) or \
       flags & F_NAME == F_NAME:
        return ("drop", "flags")
    if not msg_len or msg_len > max_msg_len:
        return ("drop", "msg_len")
    present = length - hdr_len
    if typ == TYPES["data"]:
        if not plen or off + plen > msg_len:
            return ("drop", "range")
        if present > plen:
            return ("drop", "payload")
        if flags & F_TRIMMED and present == plen:
            return ("drop", "flags")
    else:
        if typ in (TYPES["credit_req"], TYPES["credit"]) and \
           (off > msg_len or (typ == TYPES["credit"] and word > off)):
            return ("drop", "range")
        if typ == TYPES["resend"] and (not word or off + word > msg_len):
            return ("drop", "range")
        if typ in (TYPES["rsv"], TYPES["grt"]) and off >= msg_len:
            return ("drop", "range")
        if plen or present:
            return ("drop", "payload")
    trimmed = typ == TYPES["data"] and (flags & F_TRIMMED or present < plen)
    return ("type", NAMES[typ], trimmed,
            (flags, sport, dport, msg_id, msg_len, off, plen, word, present))


def hdr(typ, flags, sport, dport, msg_id, msg_len, off=0, plen=0, word=0,
        hdr_len=32, ver=1):
    return struct.pack("!BBHHBBQIIII", ver << 4 | typ, flags, sport, dport,
                       hdr_len, 0, msg_id, msg_len & 0xffffffff,
                       off & 0xffffffff, plen & 0xffffffff,
                       word & 0xffffffff)


def ip4_udp(src, dst, sport, payload):
    """An IPv4 UDP datagram to the Shoal port, marked by its TTL"""
    udp_len = 8 + len(payload)
    pseudo = (socket.inet_aton(src) + socket.inet_aton(dst) +
              struct.pack("!BBH", 0, 17, udp_len))
    udp = struct.pack("!HHHH", sport, PORT, udp_len, 0) + payload
    udp = udp[:6] + struct.pack("!H", csum(pseudo + udp) or 0xffff) + udp[8:]
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0,
                       MARK_TTL, 17, 0, socket.inet_aton(src),
                       socket.inet_aton(dst)) + udp


# outgoing (PACKET_OUTGOING) IPv4 UDP to port 4797, not a fragment:
# the first 160 bytes
FILTER = [(0x20, 0, 0, 0xfffff004), (0x15, 0, 10, 4),
          (0x20, 0, 0, 0xfffff000), (0x15, 0, 8, 0x0800),
          (0x30, 0, 0, 9), (0x15, 0, 6, 17), (0x28, 0, 0, 6),
          (0x45, 4, 0, 0x1fff), (0xb1, 0, 0, 0), (0x48, 0, 0, 2),
          (0x15, 0, 1, PORT), (0x06, 0, 0, 160), (0x06, 0, 0, 0)]


def sniffer():
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                      socket.htons(3))	# ETH_P_ALL: outgoing too
    prog = b"".join(struct.pack("HBBI", *i) for i in FILTER)
    buf = ctypes.create_string_buffer(prog)
    s.setsockopt(socket.SOL_SOCKET, 26,		# SO_ATTACH_FILTER
                 struct.pack("HL", len(FILTER), ctypes.addressof(buf)))
    s.setsockopt(socket.SOL_SOCKET, 33, 128 << 20)	# SO_RCVBUFFORCE
    s.setblocking(False)
    while True:		# what came before the filter
        try:
            s.recv(256)
        except BlockingIOError:
            return s, buf


class Msg:
    """A live message, as its DATA showed it"""

    def __init__(self, key, msg_len):
        self.key, self.len, self.ranges, self.seen = key, msg_len, [], 0

    def old_range(self, rnd, now, age):
        old = [r for r in self.ranges if now - r[2] >= age]
        return rnd.choice(old) if old else None


class Attack:
    def __init__(self, seed, max_msg_len):
        self.rnd = random.Random(seed)
        self.max = max_msg_len
        self.msgs = {}
        self.lethal = set()	# names a forged packet may have ended
        self.kinds = {}
        self.out = {}		# dev: {verdict: n}, forwarded and forged
        self.legit = {}
        self.forged = {}
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
        self.raw.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
        self.send_err = 0
        self.log = {}		# msg_id: what went by, forged or not

    def seen(self, dev, pkt, now):
        ihl = (pkt[0] & 15) * 4
        ttl, src, dst = pkt[8], socket.inet_ntoa(pkt[12:16]), \
            socket.inet_ntoa(pkt[16:20])
        ulen = struct.unpack("!H", pkt[ihl + 4:ihl + 6])[0]
        v = parse(pkt[ihl + 8:ihl + 8 + 64], ulen - 8, self.max)
        name = "rx_" + v[1] if v[0] == "type" else "rx_drop_" + v[1]
        d = self.out.setdefault(dev, {})
        d[name] = d.get(name, 0) + 1
        if v[0] == "type" and v[2]:
            d["rx_trimmed"] = d.get("rx_trimmed", 0) + 1
        tally = self.forged if ttl == MARK_TTL else self.legit
        tally[dev] = tally.get(dev, 0) + 1
        if v[0] == "type":
            f = v[3]
            self.note(f[3], (now, ttl == MARK_TTL, v[1], src, dst, f[0],
                             f[5], f[6], f[7]))
        if ttl == MARK_TTL or v[0] != "type" or v[1] != "data":
            return
        flags, sport, dport, msg_id, msg_len, off, plen, _, present = v[3]
        if flags & F_BOUNCED:
            return
        key = (src, dst, sport, dport, msg_id, flags & F_NAME)
        m = self.msgs.get(key)
        if not m or m.len != msg_len:
            m = self.msgs[key] = Msg(key, msg_len)
        m.seen = now
        if present:
            m.ranges = (m.ranges + [(off, off + present, now)])[-32:]
        # a few requests acknowledged while their DATA goes by: if bytes
        # of one are still to be sent, the client frees them, and the
        # server can never have it whole
        if flags & F_REQUEST and off and off + plen < msg_len and \
           self.kinds.get("ack_midway", 0) < 5 and key not in self.lethal:
            self.send("ack_midway", dst, src,
                      hdr(TYPES["ack"], flags & F_NAME, dport, sport, msg_id,
                          msg_len), key)
        if len(self.msgs) > 4096:
            self.msgs = {k: x for k, x in self.msgs.items()
                         if now - x.seen < 2}

    def note(self, msg_id, what):
        """every forged packet that named @msg_id, the last 20 others"""
        log = self.log.setdefault(msg_id, [[], []])
        log[not what[1]].append(what)
        if len(log[1]) > 40:
            del log[1][:20]

    def live(self, now):
        """messages heard from within 0.5 s; mostly those within 50 ms
        (most messages of these RPCs are done in tens of ms)"""
        live = [m for m in self.msgs.values() if now - m.seen < 0.5]
        fresh = [m for m in live if now - m.seen < 0.05]
        return fresh if fresh and self.rnd.random() < 0.7 else live

    def send(self, kind, src, dst, payload, lethal=None):
        try:
            self.raw.sendto(ip4_udp(src, dst, self.rnd.randrange(49152, 65536),
                                    payload), (dst, 0))
        except OSError:
            self.send_err += 1
            return
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if lethal:
            self.lethal.add(lethal)

    def data_ok(self, m, off, end, now):
        """may forged bytes [off, end) of @m go without corrupting it:
        bytes the receiver has had for 0.3 s, of a message no forged
        packet may have ended, and not the whole message"""
        if m.key in self.lethal or end - off >= m.len:
            return False
        return any(a <= off and end <= b and now - t >= 0.3
                   for a, b, t in m.ranges)

    def one(self, now):
        live = self.live(now)
        if not live:
            return
        r = self.rnd
        m = r.choice(live)
        src, dst, sp, dp, mid, nf = m.key
        L = m.len

        def back(kind, typ, off=0, word=0, flags=0, lethal=False):
            self.send(kind, dst, src, hdr(typ, nf | flags, dp, sp, mid, L,
                                          off, 0, word),
                      m.key if lethal else None)

        def fwd(kind, typ, off=0, word=0, flags=0, lethal=False):
            self.send(kind, src, dst, hdr(typ, nf | flags, sp, dp, mid, L,
                                          off, 0, word),
                      m.key if lethal else None)

        T = TYPES
        k = r.randrange(25)
        if k == 0:
            o = r.randrange(L + 1)
            back("credit", T["credit"], o, r.randrange(o + 1))
        elif k == 1:
            back("credit_end", T["credit"], L, r.randrange(L + 1))
        elif k == 2:
            back("credit_past", T["credit"], L + 1 + r.randrange(1 << 31),
                 r.choice((0, 1, 0xffffffff)))
        elif k == 3:
            back("credit_word", T["credit"], r.randrange(L + 1), 0xffffffff)
        elif k == 4:
            o = r.randrange(L)
            back("resend", T["resend"], o, 1 + r.randrange(L - o))
        elif k == 5:
            o, w = r.choice(((L - 1, 1), (L, 1), (0, 0xffffffff), (0, 0),
                             (0xffffffff, 2), (0, L), (0, L + 1)))
            back("resend_edge", T["resend"], o, w)
        elif k == 6:
            back("busy", T["busy"], 0, r.choice((0, 1, 2, 3, 0xffffffff)))
        elif k == 7:
            back("unknown", T["unknown"], 0,
                 r.choice((0, 90, 111, 104, 12345, 0xffffffff)), lethal=True)
        elif k == 8:
            back("ack", T["ack"], lethal=True)
        elif k == 9:
            back("abort_to_sender", T["abort"], 0, 125, lethal=True)
        elif k == 10:
            # the RSV sent back: Shoal ports as the RSV's
            self.send("grt", dst, src,
                      hdr(T["grt"], nf | F_BOUNCED, sp, dp, mid, L,
                          r.choice((0, r.randrange(L), L, L + 7)), 0,
                          r.getrandbits(32)))
        elif k == 11:
            # returned header: UDP from the peer, Shoal ports as sent
            a, b, _ = r.choice(m.ranges) if m.ranges else (0, 1, 0)
            off, plen = r.choice(((a, b - a), (a, 9000), (a + 1, b - a),
                                  (L, 1), (r.randrange(L), 1)))
            self.send("bounce", dst, src,
                      hdr(T["data"], nf | F_TRIMMED | F_BOUNCED, sp, dp,
                          mid, L, off, plen))
        elif k == 12:
            fwd("abort", T["abort"], 0, 125, lethal=True)
        elif k == 13:
            fwd("credit_req", T["credit_req"],
                r.choice((0, r.randrange(L + 1), L, L + 1)), 0,
                r.choice((0, F_RETX, F_CSN)))
        elif k == 14:
            n = L + 1 + r.randrange(1000)
            plen = min(1000, n - 1)
            self.send("data_msg_len", src, dst,
                      hdr(T["data"], nf, sp, dp, mid, n, 0, plen) +
                      r.randbytes(plen))
        elif k == 15:
            off, plen = r.choice(((L, 1), (max(0, L - 10), 100),
                                  (0xffffffff, 2), (1, 0xffffffff)))
            self.send("data_range", src, dst,
                      hdr(T["data"], nf, sp, dp, mid, L, off, plen) +
                      r.randbytes(min(plen, 100)))
        elif k == 16:
            self.send("data_zero", src, dst,
                      hdr(T["data"], nf, sp, dp, mid, L, r.randrange(L), 0))
        elif k == 17:
            rg = m.old_range(r, now, 0.3)
            if not rg or rg[1] - rg[0] < 2:
                return
            a, b, _ = rg
            self.send("data_more", src, dst,
                      hdr(T["data"], nf, sp, dp, mid, L, a, b - a - 1) +
                      r.randbytes(b - a))
        elif k in (18, 19):
            rg = m.old_range(r, now, 0.3)
            if not rg:
                return
            a, b = rg[0] + r.randrange(rg[1] - rg[0]), rg[1]
            if not self.data_ok(m, a, b, now):
                return
            if k == 18:	# overlapping bytes, all of them already there
                self.send("data_overlap", src, dst,
                          hdr(T["data"], nf, sp, dp, mid, L, a, b - a) +
                          r.randbytes(b - a))
            else:		# trimmed: says more than it carries
                self.send("data_trimmed", src, dst,
                          hdr(T["data"], nf | r.choice((0, F_TRIMMED)),
                              sp, dp, mid, L, a, b - a + 1) +
                          r.randbytes(b - a))
        elif k == 20:
            h = hdr(r.choice(list(T.values())), nf, sp, dp, mid, L)
            self.send("truncated", src, dst, h[:r.randrange(32)])
        elif k == 21:
            self.send("hdr_len", src, dst,
                      hdr(T["credit_req"], nf, sp, dp, mid, L,
                          hdr_len=r.choice((0, 31, 39, 65, 255))))
        elif k == 22:
            self.send("version", src, dst,
                      hdr(T["data"], nf, sp, dp, mid, L, 0, 1,
                          ver=r.choice((0, 2, 15))) + b"x")
        elif k == 23:
            self.ack_opt(m, now)
        else:
            self.flip(m, now)

    def ack_opt(self, m, now):
        """bytes of @m the receiver has, with an ACK option (a client's
        folded ACK) for a live message the other way, a response"""
        r = self.rnd
        src, dst, sp, dp, mid, nf = m.key
        rg = m.old_range(r, now, 0.3)
        if not rg or not self.data_ok(m, rg[0], rg[1], now):
            return
        back = [x for x in self.live(now) if x.key[:2] == (dst, src)]
        other = r.choice(back) if back else None
        ack = other.key[4] if other else r.getrandbits(64)
        h = bytearray(hdr(TYPES["data"], nf, sp, dp, mid, m.len, rg[0],
                          rg[1] - rg[0], hdr_len=40))
        h[7] = 1		# SHOAL_O_ACK
        self.send("data_ack_opt", src, dst,
                  bytes(h) + struct.pack("!Q", ack) +
                  r.randbytes(rg[1] - rg[0]), other.key if other else None)

    def flip(self, m, now):
        """a packet of @m as it was sent, 1-3 bits flipped; DATA that the
        receiver might take as bytes of a message is never sent"""
        r = self.rnd
        src, dst, sp, dp, mid, nf = m.key
        a, b, _ = r.choice(m.ranges) if m.ranges else (0, min(m.len, 1400), 0)
        typ = r.choice((TYPES["data"], TYPES["data"], TYPES["credit_req"],
                        TYPES["rsv"]))
        plen = b - a if typ == TYPES["data"] else 0
        h = bytearray(hdr(typ, nf | (F_SCHED if typ == 1 else 0), sp, dp,
                          mid, m.len, a, plen))
        for _ in range(1 + r.randrange(3)):
            h[r.randrange(32)] ^= 1 << r.randrange(8)
        pkt = bytes(h) + r.randbytes(plen)
        v = parse(pkt, len(pkt), self.max)
        if v[0] == "type" and v[1] == "data" and v[3][8]:
            f = v[3]
            same = (src, dst, f[1], f[2], f[3], f[0] & F_NAME) == m.key
            if not same or f[4] != m.len or \
               not self.data_ok(m, f[5], f[5] + f[8], now):
                return
        lethal = v[0] == "type" and v[1] in ("abort", "ack", "unknown")
        self.send("flip", src, dst, pkt, m.key if lethal else None)


def attack(seconds, seed, rate, max_msg_len, log):
    cap, _keep = sniffer()
    print("# attack seed %d: capturing" % seed, file=sys.stderr, flush=True)
    at = Attack(seed, max_msg_len)
    # SIGTERM only says stop: an exception could fall between a
    # packet's read and its count
    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(1))
    start = next_at = None
    while not stopping:
        now = time.time()
        if start is not None and now - start >= seconds:
            next_at = None
        wait = 0.2 if next_at is None else max(0, next_at - now)
        select.select([cap], [], [], wait)
        for _ in range(64):	# then what is due: both keep up
            try:
                pkt, addr = cap.recvfrom(256)
            except BlockingIOError:
                break
            at.seen(addr[0], pkt, now)
            if start is None and at.msgs:
                start = now
                next_at = now
        now = time.time()
        while next_at is not None and now >= next_at:
            at.one(now)
            next_at += 1.0 / rate
            if now - next_at > 1:	# fell behind: no burst to catch up
                next_at = now
    # drain what is still queued, then the last counts
    while select.select([cap], [], [], 0.3)[0]:
        try:
            pkt, addr = cap.recvfrom(256)
        except BlockingIOError:
            break
        at.seen(addr[0], pkt, time.time())
    drops = struct.unpack("II", cap.getsockopt(263, 6, 8))[1]
    text = {}
    for i, (forged, other) in at.log.items():
        text["%016x" % i] = ["%.3f %s%s %s>%s f%02x off %d len %d w %d" %
                             (t, "FORGED " if f else "", *rest)
                             for t, f, *rest in forged + other]
    with open(log, "w") as f:
        json.dump(text, f)
    print(json.dumps({"seed": seed, "injected": sum(at.kinds.values()),
                      "kinds": at.kinds, "lethal_names": len(at.lethal),
                      "send_err": at.send_err, "capture_drops": drops,
                      "legit": at.legit, "forged": at.forged,
                      "out": at.out}), flush=True)


def account(attack_json, specs):
    a = json.load(open(attack_json))
    for i, spec in enumerate(specs):
        dev, before, after, udp = spec.split(":")
        b = {k: int(v) for k, v in (l.split() for l in open(before) if l.strip())}
        c = {k: int(v) for k, v in (l.split() for l in open(after) if l.strip())}
        d = {k: c[k] - b.get(k, 0) for k in c}
        want = a["out"].get(dev, {})
        names = ["rx_" + t for t in TYPES] + ["rx_drop_" + r for r in REASONS]
        names += ["rx_trimmed", "rx_drop_not_unicast", "rx_drop_nomem"]
        wrong = ["%s:%d/%d" % (n[3:], d.get(n, 0), want.get(n, 0))
                 for n in names if d.get(n, 0) != want.get(n, 0)]
        by = sum(d.get("rx_" + t, 0) for t in TYPES) + \
            sum(d.get("rx_drop_" + r, 0) for r in REASONS) + \
            d.get("rx_drop_not_unicast", 0) + d.get("rx_drop_nomem", 0)
        drops = {k[8:]: v for k, v in d.items()
                 if k.startswith("rx_drop_") and v}
        print("v%d_dev=%s v%d_rx=%d v%d_counted=%d v%d_udp=%s v%d_sent=%d "
              "v%d_legit=%d v%d_forged=%d v%d_wrong='%s' v%d_drops='%s'" %
              (i, dev, i, d.get("rx_packets", 0), i, by, i, udp,
               i, a["legit"].get(dev, 0) + a["forged"].get(dev, 0),
               i, a["legit"].get(dev, 0), i, a["forged"].get(dev, 0),
               i, " ".join(wrong), i,
               " ".join("%s:%d" % kv for kv in sorted(drops.items()))))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "serve" and len(argv) > 3:
        serve(argv[2], argv[3:])
    elif cmd == "call" and len(argv) > 6:
        call(float(argv[2]), int(argv[3]), argv[4], int(argv[5]), argv[6:])
    elif cmd == "attack" and len(argv) == 7:
        attack(float(argv[2]), int(argv[3]), float(argv[4]), int(argv[5]),
               argv[6])
    elif cmd == "account" and len(argv) > 3:
        account(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
