#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udp_hold.py FAMILY PORT SECONDS [PROTO]

Holds a datagram socket (FAMILY 4 or 6, protocol PROTO, 0 if none given)
bound to PORT on every address for SECONDS: prints "bound" once it is
bound, then sleeps (scenario/shoal-rx: a socket a packet can find).
"""

import socket, sys, time
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM, int(sys.argv[4]) if len(sys.argv) > 4 else 0)
s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", int(sys.argv[2])))
sys.stdout.write("bound\n"); sys.stdout.flush()
time.sleep(float(sys.argv[3]))
