#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gso_send.py FAMILY DST PORT BUFFERS SEGS SEG

scenario/trim-gso's sender: sends BUFFERS UDP buffers of SEGS segments of
SEG bytes each to DST:PORT with UDP_SEGMENT (GSO)."""

import socket, sys
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
dst, port, bufs, segs, seg = sys.argv[2], int(sys.argv[3]), *map(int, sys.argv[4:7])
s = socket.socket(fam, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, 103, seg)		# UDP_SEGMENT
for i in range(bufs):
    s.sendto(bytes([i]) * (seg * segs), (dst, port))
