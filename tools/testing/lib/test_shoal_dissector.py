#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""unit/dissector: tshark with tools/wireshark/shoal.lua decodes what was sent.

  test_shoal_dissector.py [SEED]

Writes a capture of Shoal packets with random field values (from SEED,
default a fixed one): every type with its type word, flags, the deadline,
the folded ACK option, an unknown option, trimmed DATA, packets on another
UDP port (found by the heuristic), a header that breaks wire.md's rules,
and UDP that is not Shoal.  Then reads every field back with tshark and
compares it with what was written; TAP on stdout, exit 1 on a mismatch.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

import shoal_craft

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "..", "..", "wireshark", "shoal.lua")
PORT = 4797

TYPES = {1: "DATA", 2: "CREDIT_REQ", 3: "CREDIT", 4: "RESEND", 5: "BUSY",
         6: "UNKNOWN", 7: "ACK", 8: "ABORT", 9: "RSV", 10: "GRT"}
F_TRIMMED, F_BOUNCED, F_DEADLINE = 0x80, 0x40, 0x20
O_ACK = 0x01

# the fields read back, in this order
FIELDS = ["shoal.version", "shoal.type", "shoal.flags", "shoal.sport",
          "shoal.dport", "shoal.hdr_len", "shoal.options", "shoal.msg_id",
          "shoal.msg_len", "shoal.offset", "shoal.payload_len", "shoal.word",
          "shoal.unsched", "shoal.credit.added", "shoal.resend.len",
          "shoal.busy.wait", "shoal.busy.notheld", "shoal.errno",
          "shoal.rsv.demand", "shoal.rsv.carried", "shoal.grt.in_slot",
          "shoal.grt.out_slot", "shoal.deadline", "shoal.ack.msg_id",
          "shoal.present", "shoal.trimmed.expert", "shoal.malformed.expert",
          "shoal.options.unknown", "_ws.expert.message"]


def frame(payload, dport, sport=40000):
    """Ethernet around an IPv4 UDP datagram of @payload"""
    eth = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00"
    return eth + shoal_craft.ip4_udp("10.0.0.1", "10.0.0.2", sport, dport,
                                     payload)


def pcap(frames):
    """A capture of @frames: bytes, or (bytes, snaplen) for one cut short
    as tcpdump -s cuts it"""
    out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    for i, f in enumerate(frames):
        f, snap = f if isinstance(f, tuple) else (f, len(f))
        kept = f[:snap]
        out += struct.pack("<IIII", 1000 + i, 0, len(kept), len(f)) + kept
    return out


def make_case(rng, ptype):
    """One packet of @ptype with random fields; returns (bytes, expected)"""
    flags = rng.choice([0, 0x08, 0x04, 0x01, 0x10 if ptype in (1, 2) else 0])
    if ptype == 1:
        flags |= rng.choice([0, 0x02])
    if ptype == 10:
        flags |= F_BOUNCED
    deadline = rng.choice([None, rng.randrange(-2**40, 2**40)])
    acked = rng.randrange(1, 2**64) if ptype == 1 and rng.random() < 0.5 \
        else None
    unknown = rng.random() < 0.2
    opts = (O_ACK if acked is not None else 0) | (0x02 if unknown else 0)
    if deadline is not None:
        flags |= F_DEADLINE
    hdr_len = 32 + (8 if deadline is not None else 0) + \
        (8 if acked is not None else 0) + (8 if unknown else 0)
    msg_len = rng.randrange(1, 1 << 24)
    offset = rng.randrange(0, msg_len)
    payload_len = min(rng.randrange(1, 1400), msg_len - offset) \
        if ptype == 1 else 0
    word = {
        1: lambda: rng.randrange(0, msg_len + 1),
        3: lambda: rng.randrange(0, offset + 1),
        4: lambda: rng.randrange(1, 65536),
        5: lambda: rng.choice([0, 1, 2, 5]) | rng.randrange(0, 256) << 8,
        6: lambda: rng.choice([90, 104, 111]),
        8: lambda: rng.choice([125, 111]),
        9: lambda: rng.randrange(0, 1 << 32),
        10: lambda: rng.randrange(0, 1 << 32),
    }.get(ptype, lambda: 0)()
    sport, dport = rng.randrange(0, 65536), rng.randrange(0, 65536)
    msg_id = rng.randrange(0, 2**64)
    h = struct.pack("!BBHHBBQIIII", 0x10 | ptype, flags, sport, dport,
                    hdr_len, opts, msg_id, msg_len, offset, payload_len, word)
    if deadline is not None:
        h += struct.pack("!q", deadline)
    if acked is not None:
        h += struct.pack("!Q", acked)
    if unknown:
        h += bytes(rng.randrange(256) for _ in range(8))
    present = payload_len
    if ptype == 1 and rng.random() < 0.3:
        present = rng.randrange(0, payload_len)
        flags |= F_TRIMMED
        h = h[:1] + bytes([flags]) + h[2:]
    payload = bytes(rng.randrange(256) for _ in range(present))
    exp = {
        "shoal.version": "1", "shoal.type": str(ptype),
        "shoal.flags": "0x%02x" % flags, "shoal.sport": str(sport),
        "shoal.dport": str(dport), "shoal.hdr_len": str(hdr_len),
        "shoal.options": "0x%02x" % opts, "shoal.msg_id": "0x%016x" % msg_id,
        "shoal.msg_len": str(msg_len), "shoal.offset": str(offset),
        "shoal.payload_len": str(payload_len),
        "shoal.word": "0x%08x" % word,
        "shoal.deadline": "" if deadline is None else str(deadline),
        "shoal.ack.msg_id": "" if acked is None else "0x%016x" % acked,
        "shoal.present": str(present) if ptype == 1 else "",
        "shoal.trimmed.expert": "",
        "shoal.malformed.expert": "",
        "_ws.expert.message": "",
        "shoal.options.unknown": h[hdr_len - 8:hdr_len].hex()
        if unknown else "",
    }
    per_type = {
        1: {"shoal.unsched": str(word)},
        3: {"shoal.credit.added": str(word)},
        4: {"shoal.resend.len": str(word)},
        5: {"shoal.busy.wait": str(word >> 8 & 0xff),
            "shoal.busy.notheld": str(word & 1)},
        6: {"shoal.errno": str(word)},
        8: {"shoal.errno": str(word)},
        9: {"shoal.rsv.demand": str(word & 0xffff),
            "shoal.rsv.carried": str(word >> 16)},
        10: {"shoal.grt.in_slot": str(word >> 16),
             "shoal.grt.out_slot": str(word & 0xffff)},
    }
    for name in ("shoal.unsched", "shoal.credit.added", "shoal.resend.len",
                 "shoal.busy.wait", "shoal.busy.notheld", "shoal.errno",
                 "shoal.rsv.demand", "shoal.rsv.carried", "shoal.grt.in_slot",
                 "shoal.grt.out_slot"):
        exp[name] = per_type.get(ptype, {}).get(name, "")
    if flags & F_TRIMMED or present < payload_len:
        exp["shoal.trimmed.expert"] = "1"
        exp["_ws.expert.message"] = "%d of %d payload bytes present" % (
            present, payload_len)
    return h + payload, exp


def tshark(path, prefs=()):
    cmd = ["tshark", "-n", "-r", path, "-X", "lua_script:" + LUA,
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for p in prefs:
        cmd += ["-o", p]
    for name in FIELDS:
        cmd += ["-e", name]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode:
        raise RuntimeError("tshark failed: " + res.stderr.strip())
    return [dict(zip(FIELDS, line.split("\t")))
            for line in res.stdout.splitlines()]


def norm(value):
    """tshark prints booleans as True/False in some versions, 1/0 in others"""
    if value in ("True", "False"):
        return "1" if value == "True" else "0"
    return value


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 2026
    rng = random.Random(seed)
    cases = []
    for ptype in sorted(TYPES):
        for _ in range(4):
            payload, exp = make_case(rng, ptype)
            cases.append(("%s (seed %d)" % (TYPES[ptype], seed),
                          frame(payload, PORT), exp, None))
    # the heuristic: Shoal on another port; and UDP that is not Shoal
    payload, exp = make_case(rng, 1)
    cases.append(("DATA on port 5000 (heuristic)", frame(payload, 5000),
                  exp, None))
    # headers only (tcpdump -s 160): the payload was there, not trimmed
    while True:
        payload, exp = make_case(rng, 1)
        if not exp["shoal.trimmed.expert"] and len(payload) > 200:
            break
    cases.append(("DATA captured with snaplen 160 is not trimmed",
                  (frame(payload, PORT), 160), exp, None))
    junk = bytes([0x45]) + bytes(rng.randrange(256) for _ in range(40))
    cases.append(("other UDP on port 5000 is not taken", frame(junk, 5000),
                  None, None))
    bad = bytearray(make_case(rng, 2)[0])
    bad[6] = 24             # hdr_len below 32
    cases.append(("a header length of 24 is malformed",
                  frame(bytes(bad), PORT), None, "malformed"))

    fails = 0
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "shoal.pcap")
        with open(path, "wb") as f:
            f.write(pcap([c[1] for c in cases]))
        got = tshark(path)
        if len(got) != len(cases):
            print("not ok 1 - tshark read %d packets of %d" %
                  (len(got), len(cases)))
            print("1..1")
            return 1
        for (name, _, exp, special), row in zip(cases, got):
            n += 1
            if special == "malformed":
                ok = row["shoal.malformed.expert"] != "" and \
                    row["shoal.type"] == "2"
                why = "malformed expert %r" % row["shoal.malformed.expert"]
            elif exp is None:
                ok = row["shoal.type"] == ""
                why = "decoded as type %r" % row["shoal.type"]
            else:
                bad_fields = ["%s: %r, sent %r" % (k, norm(row[k]), v)
                              for k, v in exp.items() if norm(row[k]) != v]
                ok = not bad_fields
                why = "; ".join(bad_fields)
            print("%s %d - %s%s" % ("ok" if ok else "not ok", n, name,
                                    "" if ok else ": " + why))
            fails += not ok
        # the port preference: on 5001 a packet is Shoal by port alone
        # even with the heuristic off
        payload, _ = make_case(rng, 7)
        with open(path, "wb") as f:
            f.write(pcap([frame(payload, 5001), frame(payload, PORT)]))
        rows = tshark(path, ["shoal.udp_port:5001", "shoal.heuristic:FALSE"])
        n += 1
        ok = [r["shoal.type"] for r in rows] == ["7", ""]
        print("%s %d - shoal.udp_port 5001 moves the port (types %s)" %
              ("ok" if ok else "not ok", n, [r["shoal.type"] for r in rows]))
        fails += not ok
    print("1..%d" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
