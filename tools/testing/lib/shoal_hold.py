#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shoal_hold.py PORT ADDR DPORT SIZE SECONDS

Binds a SIRD socket (IPv4) to Shoal port PORT, sends one message of SIZE
bytes to ADDR, Shoal port DPORT, prints "id N" (the message's id, from
SHOAL_CMSG_SEND) and holds the socket, with the message, for SECONDS
(scenario/shoal-rts: a message that forged bounces can name).
"""
import ctypes
import socket
import struct
import sys
import time

IPPROTO_SIRD = 253
SOL_SHOAL = 299
SHOAL_CMSG_SEND = 1

port, addr, dport = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
size, secs = int(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_SIRD)
s.bind(("0.0.0.0", port))
msg_id = ctypes.c_uint64(0)
args = struct.pack("=IIQQ", 0, 0, 0, ctypes.addressof(msg_id))
s.sendmsg([bytes(size)], [(SOL_SHOAL, SHOAL_CMSG_SEND, args)], 0,
          (addr, dport))
sys.stdout.write("id %d\n" % msg_id.value)
sys.stdout.flush()
time.sleep(secs)
