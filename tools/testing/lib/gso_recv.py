#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gso_recv.py FAMILY PORT DATAGRAMS

scenario/trim-gso's receiver: receives up to DATAGRAMS UDP datagrams on
PORT (FAMILY 4 or 6) for up to 20 s and prints "count short long"."""

import socket, sys
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
want = int(sys.argv[3])
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", int(sys.argv[2])))
open("/tmp/gso-ready-%s" % sys.argv[1], "w").close()
s.settimeout(20)
n = short = full = 0
try:
    while n < want:
        d = s.recv(65536)
        n += 1
        if len(d) < 1000:
            short += 1
        else:
            full += 1
        s.settimeout(3)
except socket.timeout:
    pass
print(n, short, full)
