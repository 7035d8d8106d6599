#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A PL2 switch's answers, chosen by the test, for sch_pl2's RSVs.

  pl2_grant.py serve PORT DATA_PORT N READY SLOT...
      on the host an RSV is addressed to (no switch on the path): answer
      the i-th RSV to UDP PORT with a GRT of SLOT[i] as the output's slot
      (0 past the list), and read N datagrams on UDP DATA_PORT; prints
      "rsv I DEMAND MS FROM" per RSV and "data SEQ MS" per datagram (its
      first 4 bytes, big-endian), MS the milliseconds since the first RSV,
      FROM the RSV's source address, then "done".  Creates file READY once both ports are bound; 10 s at most.
  pl2_grant.py send ADDR DATA_PORT GAP_MS SEQ...
      a datagram per SEQ to ADDR, GAP_MS apart
  pl2_grant.py sendfrom SRC ADDR DATA_PORT SEQ
      one IPv4 datagram from SRC, an address that need not be this
      host's (a raw socket), as a packet the host forwards would be

A GRT is the RSV sent back (Documentation/wire.md): type 10, BOUNCED,
the Shoal ports and msg_id kept, the word the two slots.
"""
import select
import socket
import struct
import sys
import time

from shoal_craft import F_BOUNCED, TYPES

T_RSV, T_GRT = TYPES["rsv"], TYPES["grt"]


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def serve(port, data_port, n, ready, slots):
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ctl.bind(("0.0.0.0", port))
    dat = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dat.bind(("0.0.0.0", data_port))
    open(ready, "w").close()
    t0 = None
    rsvs = got = 0
    end = time.monotonic() + 10
    while got < n and time.monotonic() < end:
        r, _, _ = select.select([ctl, dat], [], [], 0.1)
        if ctl in r:
            pkt, peer = ctl.recvfrom(2048)
            if len(pkt) >= 32 and pkt[0] & 0xf == T_RSV:
                t0 = t0 if t0 is not None else time.monotonic()
                slot = slots[rsvs] if rsvs < len(slots) else 0
                demand = struct.unpack("!I", pkt[28:32])[0] & 0xffff
                print("rsv %d %d %.1f %s" % (rsvs, demand,
                                             (time.monotonic() - t0) * 1000,
                                             peer[0]), flush=True)
                grt = bytes([pkt[0] & 0xf0 | T_GRT, pkt[1] | F_BOUNCED])
                grt += pkt[2:28] + struct.pack("!I", slot & 0xffff)
                ctl.sendto(grt + pkt[32:], peer)
                rsvs += 1
        if dat in r:
            pkt, _ = dat.recvfrom(2048)
            ms = (time.monotonic() - t0) * 1000 if t0 is not None else -1
            print("data %d %.1f" % (struct.unpack("!I", pkt[:4])[0], ms),
                  flush=True)
            got += 1
    print("done", flush=True)


def send(addr, data_port, gap_ms, seqs):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    for i, seq in enumerate(seqs):
        if i:
            time.sleep(gap_ms / 1000)
        s.sendto(struct.pack("!I", seq) + bytes(96), (addr, data_port))


def sendfrom(src, addr, data_port, seq):
    payload = struct.pack("!I", seq) + bytes(96)
    udp = struct.pack("!HHHH", 40000, data_port, 8 + len(payload), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(payload),
                     0, 0x4000, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(src), socket.inet_aton(addr))
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.sendto(ip + udp + payload, (addr, 0))


def main(argv):
    if len(argv) >= 6 and argv[1] == "serve":
        serve(int(argv[2]), int(argv[3]), int(argv[4]), argv[5],
              [int(a) for a in argv[6:]])
    elif len(argv) == 6 and argv[1] == "sendfrom":
        sendfrom(argv[2], argv[3], int(argv[4]), int(argv[5]))
    elif len(argv) >= 5 and argv[1] == "send":
        send(argv[2], int(argv[3]), float(argv[4]),
             [int(a) for a in argv[5:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
