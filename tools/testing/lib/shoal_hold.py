#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shoal_hold.py PORT ADDR DPORT SIZE SECONDS

Binds a SIRD socket (IPv4) to Shoal port PORT, sends one message of SIZE
bytes to ADDR, Shoal port DPORT, prints "id N" (the message's id, from
SHOAL_CMSG_SEND) and holds the socket, with the message, for SECONDS or
until SIGTERM, then prints "tx_rts_resend N" from its SHOAL_SOCK_STATS
(scenario/shoal-rts: a message that forged bounces can name).
"""
import ctypes
import signal
import socket
import struct
import sys
import time

from shoal_msgs import proto

SOL_SHOAL = 299
SHOAL_CMSG_SEND = 1
SHOAL_SOCK_STATS = 1
STATS = struct.Struct("=6Q2IQ")	# struct shoal_sock_stats


def stop(signum, frame):
    raise KeyboardInterrupt



port, addr, dport = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
size, secs = int(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, proto())
s.bind(("0.0.0.0", port))
msg_id = ctypes.c_uint64(0)
args = struct.pack("=IIQQ", 0, 0, 0, ctypes.addressof(msg_id))
s.sendmsg([bytes(size)], [(SOL_SHOAL, SHOAL_CMSG_SEND, args)], 0,
          (addr, dport))
sys.stdout.write("id %d\n" % msg_id.value)
sys.stdout.flush()
signal.signal(signal.SIGTERM, stop)
try:
    time.sleep(secs)
except KeyboardInterrupt:
    pass
st = s.getsockopt(SOL_SHOAL, SHOAL_SOCK_STATS, STATS.size)
print("tx_rts_resend %d" % STATS.unpack(st.ljust(STATS.size, b"\0"))[8])
