#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""/proc/net/shoal/sockets against sockets this program holds, in the
network namespace it runs in (loopback up).  A SIRD receiver on PORT
that does not read, a PL2 socket on PORT + 1, and a SIRD sender that
sends it COUNT messages and waits until each is acknowledged; then each
socket's line must say its port, protocol, owner and inode, the
messages each way (the receiver's queued unread, the sender's sent and
none left), the receiver's memory and SO_RCVBUF; after the receiver
reads them, none queued and less memory than a message's bytes (the
names of read messages stay charged); once all are closed, no line.
TAP on stdout.

  shoal_sockets_check.py PORT COUNT"""

import os
import socket
import sys
import time

import shoal_msgs
from tap import check, done

PROC = "/proc/net/shoal/sockets"
def lines():
    """{port: {column: value}} of the file; its header names the columns"""
    with open(PROC) as f:
        text = f.read().splitlines()
    cols = text[0].lstrip("# ").split() if text else []
    out = {}
    for line in text[1:]:
        f = line.split()
        row = dict(zip(cols, f))
        for k in cols:
            if k != "proto":
                row[k] = int(row[k])
        out[row["port"]] = row
    return cols, out


def proto_number(name):
    with open("/sys/module/shoal/parameters/proto_" + name) as f:
        return int(f.read())


def main(argv):
    port, count = int(argv[1]), int(argv[2])
    sird, pl2 = proto_number("sird"), proto_number("pl2")
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, sird)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    rx.bind(("127.0.0.1", port))
    p = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, pl2)
    p.bind(("127.0.0.1", port + 1))
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, sird)
    for i in range(count):
        tx.sendto(shoal_msgs.body(1, i, 3000), ("127.0.0.1", port))
    deadline = time.time() + 30
    while shoal_msgs.stats(tx)["tx_queued"] and time.time() < deadline:
        time.sleep(0.02)
    while shoal_msgs.stats(rx)["rx_queued"] < count and time.time() < deadline:
        time.sleep(0.02)
    txport = tx.getsockname()[1]

    cols, got = lines()
    check(cols[:4] == ["port", "proto", "uid", "inode"] and len(cols) == 16,
          "the header names the 16 columns (%s)" % " ".join(cols))
    r = got.get(port, {})
    check(r.get("proto") == "sird" and r.get("uid") == os.getuid() and
          r.get("inode") == os.fstat(rx.fileno()).st_ino,
          "the receiver: port %d, sird, its owner and inode (%r)" % (port, r))
    check(r.get("rx_queued") == count and r.get("rx_msgs") == count and
          r.get("rx_receiving") == 0 and r.get("rx_drops") == 0,
          "the receiver: %d messages complete and unread, none being "
          "received, none dropped (%s %s %s %s)"
          % (count, r.get("rx_queued"), r.get("rx_msgs"),
             r.get("rx_receiving"), r.get("rx_drops")))
    check(r.get("rmem", 0) >= count * 3000 and
          r.get("rcvbuf") == rx.getsockopt(socket.SOL_SOCKET,
                                           socket.SO_RCVBUF),
          "the receiver: memory %s for %d x 3000 bytes, SO_RCVBUF %s"
          % (r.get("rmem"), count, r.get("rcvbuf")))
    t = got.get(txport, {})
    check(t.get("proto") == "sird" and t.get("tx_msgs") == count and
          t.get("tx_queued") == 0 and t.get("awaiting") == 0 and
          t.get("tx_failed") == 0 and t.get("wmem") == 0,
          "the sender (port %d): %d sent, none left, none failed, no memory "
          "(%r)" % (txport, count, t))
    q = got.get(port + 1, {})
    check(q.get("proto") == "pl2" and q.get("tx_msgs") == 0 and
          q.get("rx_msgs") == 0,
          "the PL2 socket: port %d, pl2, nothing sent or received (%r)"
          % (port + 1, q))
    check(len(got) == 3, "three sockets listed (%d)" % len(got))

    for _ in range(count):
        rx.recv(65536)
    _, got = lines()
    r = got.get(port, {})
    check(r.get("rx_queued") == 0 and 0 <= r.get("rmem", -1) < 3000,
          "read: none queued, memory down to less than a message's bytes "
          "(the names of read messages stay charged: %s, %s)"
          % (r.get("rx_queued"), r.get("rmem")))
    rx.close()
    p.close()
    tx.close()
    _, got = lines()
    check(not got, "all closed: no line (%d)" % len(got))
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
