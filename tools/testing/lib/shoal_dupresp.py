#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shoal_dupresp.py CLIENT_NS SERVER_NS CLIENT_ADDR SERVER_ADDR WAIT

One RPC over SIRD between a client socket in network namespace
CLIENT_NS and a server socket in SERVER_NS (at SERVER_ADDR), its
response read by the client.  WAIT seconds later (past the client's
memory of the response's name), a copy of the response's first and only
DATA packet reaches the client from the server's address, as a packet
held in a queue, or sent again by a server that missed the ACK, would.
Then the client reads for 1 s more.  Prints JSON: the responses read
(1 is right: the copy must not be taken as a new response) and the
client's request id (scenario/shoal-dupresp).
"""
import ctypes
import json
import select
import socket
import struct
import sys
import time

import netns
import shoal_craft
from shoal_msgs import proto

SOL_SHOAL = 299
SHOAL_CMSG_SEND, SHOAL_CMSG_RECV = 1, 2
SHOAL_MSG_REQUEST, SHOAL_MSG_RESPONSE = 1, 2
INFO = struct.Struct("=QIi")
CPORT, SPORT, SHOAL_UDP = 7201, 7202, 4797
RESPONSE = b"response " * 11


def recv(s, timeout):
    """(data, id, flags) of the next message, or None after timeout"""
    if not select.select([s], [], [], timeout)[0]:
        return None
    data, anc, _, _ = s.recvmsg(65536, 256)
    for level, kind, cdata in anc:
        if level == SOL_SHOAL and kind == SHOAL_CMSG_RECV:
            msg_id, flags, _ = INFO.unpack(cdata[:INFO.size])
            return data, msg_id, flags
    return data, None, None


def main(argv):
    cns, sns, caddr, saddr, wait = argv[1:6]
    with netns.inside(cns):
        c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, proto())
        c.bind(("0.0.0.0", CPORT))
    with netns.inside(sns):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, proto())
        s.bind(("0.0.0.0", SPORT))
        raw = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    msg_id = ctypes.c_uint64(0)
    args = struct.pack("=IIQQ", SHOAL_MSG_REQUEST, 0, 0,
                       ctypes.addressof(msg_id))
    c.sendmsg([b"request"], [(SOL_SHOAL, SHOAL_CMSG_SEND, args)], 0,
              (saddr, SPORT))
    got = recv(s, 10)
    if got is None or got[2] != SHOAL_MSG_REQUEST:
        sys.exit("the server got no request: %r" % (got,))
    args = struct.pack("=IIQQ", SHOAL_MSG_RESPONSE, 0, got[1], 0)
    s.sendmsg([RESPONSE], [(SOL_SHOAL, SHOAL_CMSG_SEND, args)], 0,
              (caddr, CPORT))
    read = []
    first = recv(c, 10)
    if first is not None:
        read.append(first)
    time.sleep(float(wait))
    copy = shoal_craft.data(flags=shoal_craft.F_RESPONSE | shoal_craft.F_RETX,
                            msg_len=len(RESPONSE), offset=0,
                            payload_len=len(RESPONSE), sport=SPORT,
                            dport=CPORT, msg_id=msg_id.value)
    raw.sendto(copy + RESPONSE, (caddr, SHOAL_UDP))
    deadline = time.time() + 1.0
    while time.time() < deadline:
        more = recv(c, max(0.0, deadline - time.time()))
        if more is None:
            break
        read.append(more)
    print(json.dumps({
        "id": msg_id.value,
        "responses": sum(1 for r in read if r[1] == msg_id.value and
                         r[2] == SHOAL_MSG_RESPONSE and r[0] == RESPONSE),
        "read": len(read),
    }))


if __name__ == "__main__":
    main(sys.argv)
