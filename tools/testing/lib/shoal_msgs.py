#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Messages over Shoal sockets (IPPROTO_SIRD, or IPPROTO_PL2) for the scenarios.

  shoal_msgs.py recv PORT COUNT TIMEOUT [READY]
                                             receive COUNT messages on PORT,
                                             check each, print JSON (also
                                             when stopped by SIGTERM);
                                             create the file READY once
                                             bound
  shoal_msgs.py send ADDR PORT COUNT SIZE [TAG]
                                             send COUNT messages of SIZE
                                             bytes, wait until each is
                                             acknowledged or failed, print
                                             JSON
  shoal_msgs.py fan ADDR PORT COUNT SIZE NETNS:TAG[:FILE]...
                                             as send, from a socket in each
                                             named network namespace at
                                             once (messages interleaved),
                                             a JSON line each (with "ns"
                                             and "tag") on stdout or in
                                             FILE: one process for an
                                             incast, whose many
                                             interpreters would load a
                                             slow guest's CPUs
  shoal_msgs.py mix ADDR PORT SIZE1 COUNT SIZE2
                                             on one socket, one message of
                                             SIZE1 (tag 1), then COUNT of
                                             SIZE2 (tag 2), at once; then as
                                             send
  shoal_msgs.py many ADDR PORT SOCKETS SIZE
                                             one message of SIZE bytes from
                                             each of SOCKETS sockets open
                                             at once (tagged with its
                                             number), wait until each is
                                             acknowledged or failed, print
                                             JSON totals
  shoal_msgs.py hammer SECONDS
                                             open and close sockets for
                                             SECONDS (as the module comes
                                             and goes), print JSON counts
                                             of successes and of errors by
                                             name
  shoal_msgs.py pair PORT ADDR1 SIZE1 ADDR2 SIZE2
                                             one message to each address at
                                             once (tags 1 and 2, a socket
                                             each), print JSON with the
                                             seconds until each was
                                             acknowledged (t1, t2)

The protocol is SHOAL_PROTO from the environment: sird (the default) or
pl2; the two share one socket API.  recv's socket gets SHOAL_RCVBUF bytes
of receive buffer (SO_RCVBUFFORCE, which the kernel doubles; default 64
MiB) and reads nothing for SHOAL_READ_DELAY seconds (default 0) once
bound.  recv's JSON counts the good messages
of each tag too ("tags": {"TAG": count}) and lists the first 64 good
ones' tags in the order they arrived ("order").  With SHOAL_HOLD (a
file's path) in the environment, recv keeps its socket open after its
last message until that file exists (or its timeout): a socket closed at
once cannot answer a sender that lost its last ACKs, which then fails
messages that were delivered (Documentation/shoal.md, "Failures").

Every message carries its tag, index and size in its first 16 bytes and a
pattern derived from them in the rest, so the receiver can tell a
message that arrived intact from one that did not.
"""
import errno
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

import netns

IPPROTO_SIRD = 253
IPPROTO_PL2 = 254
PROTOS = {"sird": IPPROTO_SIRD, "pl2": IPPROTO_PL2}
SOL_SHOAL = 299
SHOAL_CMSG_RECV = 2
SHOAL_SOCK_STATS = 1
SO_RCVBUFFORCE = 33
STATS = struct.Struct("=6Q2I2Q")
STAT_NAMES = ("tx_msgs", "tx_acked", "tx_failed", "rx_msgs", "rx_dup_bytes",
              "rx_drop_rcvbuf", "tx_queued", "rx_queued", "tx_rts_resend",
              "rx_drop_mem")
INFO = struct.Struct("=QIi")


def body(tag, index, size):
    head = struct.pack("!IIQ", tag, index, size)
    seed = (tag * 131 + index * 7) & 0xff
    pat = bytes((seed + i) & 0xff for i in range(256))
    rest = size - len(head)
    out = head + pat * (rest // 256) + pat[:rest % 256]
    return out[:size]


def proto():
    """SHOAL_PROTO's number: shoal.ko's parameter proto_sird or proto_pl2
    (the defaults when it is not loaded)"""
    name = os.environ.get("SHOAL_PROTO", "sird")
    if name not in PROTOS:
        sys.exit("SHOAL_PROTO=%s: sird or pl2" % name)
    try:
        with open("/sys/module/shoal/parameters/proto_" + name) as f:
            return int(f.read())
    except OSError:
        return PROTOS[name]


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def stats(s):
    return dict(zip(STAT_NAMES,
                    STATS.unpack(s.getsockopt(SOL_SHOAL, SHOAL_SOCK_STATS,
                                              STATS.size))))


class Stopped(Exception):
    pass


def stopped(signum, frame):
    raise Stopped()


def recv(port, count, timeout, ready=None):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, proto())
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE,
                 int(os.environ.get("SHOAL_RCVBUF", 64 << 20)))
    s.bind(("::", port))
    if ready:
        open(ready, "w").close()
    time.sleep(float(os.environ.get("SHOAL_READ_DELAY", 0)))
    good = bad = 0
    tags = {}
    order = []
    seen = set()
    dups = 0
    deadline = time.time() + timeout
    signal.signal(signal.SIGTERM, stopped)
    try:
        while good + bad < count:
            left = deadline - time.time()
            if left <= 0 or not select.select([s], [], [], left)[0]:
                break
            data, anc, flags, src = s.recvmsg(64 << 20, 256)
            if len(data) < 16:
                bad += 1
                continue
            tag, index, size = struct.unpack("!IIQ", data[:16])
            if (tag, index) in seen:
                dups += 1
            seen.add((tag, index))
            if size == len(data) and data == body(tag, index, size):
                good += 1
                tags[str(tag)] = tags.get(str(tag), 0) + 1
                if len(order) < 64:
                    order.append(tag)
            else:
                bad += 1
    except Stopped:
        pass
    elapsed = round(timeout - max(0, deadline - time.time()), 3)
    hold(os.environ.get("SHOAL_HOLD"), deadline)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    out = {"good": good, "bad": bad, "duplicates": dups, "tags": tags,
           "order": order, "elapsed": elapsed}
    out.update(stats(s))
    print(json.dumps(out))


def hold(path, deadline):
    """until file @path exists (the senders are done), or @deadline"""
    try:
        while path and not os.path.exists(path) and time.time() < deadline:
            time.sleep(0.05)
    except Stopped:
        pass


def send(addr, port, count, size, tag):
    s = socket.socket(family(addr), socket.SOCK_DGRAM, proto())
    start = time.time()
    for i in range(count):
        s.sendto(body(tag, i, size), (addr, port))
    finish(s, start)


def fan(addr, port, count, size, senders):
    fam, num = family(addr), proto()
    socks = []
    for arg in senders:
        name, _, rest = arg.partition(":")
        tag, _, path = rest.partition(":")
        with netns.inside(name):
            s = socket.socket(fam, socket.SOCK_DGRAM, num)
        s.setblocking(False)
        socks.append({"ns": name, "tag": int(tag or 0), "out": path,
                      "sock": s, "next": 0, "done": None})
    start = time.time()
    # each message in turn from every sender; one whose send buffer is
    # full waits for room without holding up the others
    while True:
        waiting = [x for x in socks if x["next"] < count]
        if not waiting:
            break
        blocked = []
        for x in waiting:
            try:
                x["sock"].sendto(body(x["tag"], x["next"], size), (addr, port))
                x["next"] += 1
            except BlockingIOError:
                blocked.append(x["sock"])
        if len(blocked) == len(waiting):
            select.select([], blocked, [], 0.05)
    deadline = time.time() + 120
    while time.time() < deadline:
        busy = [x for x in socks if x["done"] is None]
        if not busy:
            break
        for x in busy:
            if not stats(x["sock"])["tx_queued"]:
                x["done"] = time.time()
        time.sleep(0.02)
    for x in socks:
        out = report(x["sock"], (x["done"] or time.time()) - start)
        out.update(ns=x["ns"], tag=x["tag"])
        if x["out"]:
            with open(x["out"], "w") as f:
                print(json.dumps(out), file=f)
        else:
            print(json.dumps(out))


def mix(addr, port, size1, count, size2):
    s = socket.socket(family(addr), socket.SOCK_DGRAM, proto())
    start = time.time()
    s.sendto(body(1, 0, size1), (addr, port))
    for i in range(count):
        s.sendto(body(2, i, size2), (addr, port))
    finish(s, start)


def finish(s, start):
    """wait until every message is acknowledged or failed, print JSON"""
    deadline = time.time() + 120
    while time.time() < deadline:
        st = stats(s)
        if not st["tx_queued"]:
            break
        time.sleep(0.02)
    print(json.dumps(report(s, time.time() - start)))


def report(s, elapsed):
    """the socket's counts and the errors its failed messages reported"""
    errors = {}
    while True:
        try:
            _, anc, _, _ = s.recvmsg(0, 256, socket.MSG_ERRQUEUE |
                                     socket.MSG_DONTWAIT)
        except BlockingIOError:
            break
        for level, kind, data in anc:
            if level == SOL_SHOAL and kind == SHOAL_CMSG_RECV:
                err = INFO.unpack(data[:INFO.size])[2]
                errors[err] = errors.get(err, 0) + 1
    out = {"elapsed": round(elapsed, 3), "errors": errors}
    out.update(stats(s))
    return out


def many(addr, port, count, size):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    socks = [socket.socket(family(addr), socket.SOCK_DGRAM, proto())
             for _ in range(count)]
    start = time.time()
    for i, s in enumerate(socks):
        s.sendto(body(i, 0, size), (addr, port))
    deadline = time.time() + 120
    busy = list(socks)
    while busy and time.time() < deadline:
        busy = [s for s in busy if stats(s)["tx_queued"]]
        time.sleep(0.05)
    out = {"sockets": count, "tx_acked": 0, "tx_failed": 0, "errors": {}}
    for s in socks:
        r = report(s, 0)
        out["tx_acked"] += r["tx_acked"]
        out["tx_failed"] += r["tx_failed"]
        for err, n in r["errors"].items():
            out["errors"][err] = out["errors"].get(err, 0) + n
        s.close()
    out["elapsed"] = round(time.time() - start, 3)
    print(json.dumps(out))


def hammer(seconds):
    num = int(os.environ.get("SHOAL_PROTO_NUM", IPPROTO_SIRD))
    made, errors = 0, {}
    end = time.time() + seconds
    while time.time() < end:
        try:
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM, num).close()
            made += 1
        except OSError as e:
            k = errno.errorcode.get(e.errno, str(e.errno))
            errors[k] = errors.get(k, 0) + 1
    print(json.dumps({"made": made, "errors": errors}))


def pair(port, addr1, size1, addr2, size2):
    socks = []
    for addr in (addr1, addr2):
        socks.append(socket.socket(family(addr), socket.SOCK_DGRAM,
                                   proto()))
    bodies = [body(1, 0, size1), body(2, 0, size2)]
    start = time.time()
    for s, addr, b in zip(socks, (addr1, addr2), bodies):
        s.sendto(b, (addr, port))
    done = [None, None]
    deadline = start + 120
    while None in done and time.time() < deadline:
        for i, s in enumerate(socks):
            if done[i] is None and not stats(s)["tx_queued"]:
                done[i] = time.time() - start
        time.sleep(0.005)
    out = {}
    for i, s in enumerate(socks):
        st = stats(s)
        out["t%d" % (i + 1)] = round(done[i], 3) if done[i] else -1
        out["acked%d" % (i + 1)] = st["tx_acked"]
        out["failed%d" % (i + 1)] = st["tx_failed"]
    print(json.dumps(out))


def main(argv):
    if len(argv) >= 5 and argv[1] == "recv":
        recv(int(argv[2]), int(argv[3]), float(argv[4]),
             argv[5] if len(argv) > 5 else None)
    elif len(argv) >= 6 and argv[1] == "send":
        send(argv[2], int(argv[3]), int(argv[4]), int(argv[5]),
             int(argv[6]) if len(argv) > 6 else 0)
    elif len(argv) >= 7 and argv[1] == "fan":
        fan(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), argv[6:])
    elif len(argv) >= 7 and argv[1] == "mix":
        mix(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6]))
    elif len(argv) >= 6 and argv[1] == "many":
        many(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif len(argv) >= 3 and argv[1] == "hammer":
        hammer(float(argv[2]))
    elif len(argv) >= 7 and argv[1] == "pair":
        pair(int(argv[2]), argv[3], int(argv[4]), argv[5], int(argv[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
