#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcraw: send a Shoal qdisc raw attributes, past the tc plugin.

The tdc cases that run tc stop at the plugin when a value is bad, so the
kernel's own checks (the netlink policy, the cross-field code) are never
reached from there.  This helper builds the RTM_NEWQDISC request itself
with a plain AF_NETLINK socket (no pyroute2), so a case can send what the
plugin never would: a value out of range, an unknown attribute, an
attribute of the wrong size.  It asks for the extended ACK and checks the
kernel's answer: the errno, the message and the attribute it points at
(NLMSGERR_ATTR_OFFS, mapped back to the attribute this helper put there).

    tcraw.py [--dev DEV] [--handle 1:] [--parent root] add|change KIND
             ATTR=TYPE:VALUE ... [--expect-errno EINVAL]
             [--expect-msg TEXT] [--expect-attr ATTR] [--expect-ok]
             [--unchanged]

ATTR is the uapi name (TCA_TRIM_LIMIT), the same without its TCA_<KIND>_
prefix (LIMIT, limit) or a number (an unknown attribute); TYPE is u8,
u16, u32, u64 or hex (raw bytes, "hex:0102").  --unchanged runs
"tc -j qdisc show dev DEV" before and after and fails if the two differ
(tc is $TC or /usr/sbin/tc, with the plugins of $TC_LIB_DIR).  The exit
status is 0 when every expectation holds, 1 when one does not, 2 on a
usage error; what the kernel said is printed either way.
"""

import argparse
import errno
import os
import re
import socket
import struct
import subprocess
import sys

NETLINK_ROUTE = 0
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
RTM_NEWQDISC = 36
NLMSG_ERROR = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
TCA_KIND = 1
TCA_OPTIONS = 2
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_POLICY = 4
NL_POLICY_TYPE_ATTR_MIN_VALUE_U = 4
NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 5
NL_POLICY_TYPE_ATTR_MASK = 12
TC_H_ROOT = 0xFFFFFFFF
UAPI = "include/uapi/linux/pkt_sched_shoal.h"
WIDTHS = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q"}


def align4(n):
    return (n + 3) & ~3


def attr(atype, payload):
    """One netlink attribute, padded to 4 bytes."""
    hdr = struct.pack("<HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (align4(len(payload)) - len(payload))


def uapi_attrs(kind):
    """{name: number} of the TCA_<KIND>_* enum, read from the uapi header."""
    here = os.path.dirname(os.path.abspath(__file__))
    d = here
    while d != "/" and not os.path.exists(os.path.join(d, UAPI)):
        d = os.path.dirname(d)
    path = os.path.join(d, UAPI)
    prefix = "TCA_%s_" % kind.upper()
    names, n, inside = {}, 0, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*(%s[A-Z0-9_]+|__%sMAX)\s*[,=]" % (prefix, prefix),
                         line)
            if not m:
                if inside and line.strip().startswith("}"):
                    break
                continue
            if m.group(1) == prefix + "UNSPEC":
                inside, n = True, 0
            if not inside:
                continue
            if m.group(1).startswith("__"):
                break
            names[m.group(1)] = n
            n += 1
    if not names:
        sys.exit("tcraw: no %s* enum in %s" % (prefix, path))
    return names


def attr_number(spec, kind, names):
    if spec.isdigit():
        return int(spec)
    prefix = "TCA_%s_" % kind.upper()
    name = spec.upper()
    if not name.startswith(prefix):
        name = prefix + name
    if name not in names:
        raise ValueError("no attribute %s" % name)
    return names[name]


def attr_name(num, names):
    for k, v in names.items():
        if v == num:
            return k
    return str(num)


def parse_handle(s):
    if s == "root":
        return TC_H_ROOT
    major, _, minor = s.partition(":")
    return (int(major or "0", 16) << 16) | int(minor or "0", 16)


def build(args, names):
    """The request, and where each option attribute starts in it."""
    opts, where = b"", []
    for a in args.attrs:
        name, _, val = a.partition("=")
        typ, _, num = val.partition(":")
        atype = attr_number(name, args.kind, names)
        if typ == "hex":
            payload = bytes.fromhex(num)
        elif typ in WIDTHS:
            payload = struct.pack(WIDTHS[typ], int(num, 0))
        else:
            raise ValueError("bad attribute %s (TYPE is u8..u64 or hex)" % a)
        where.append((len(opts), atype))
        opts += attr(atype, payload)
    ifindex = socket.if_nametoindex(args.dev)
    tcm = struct.pack("<BBHiIII", socket.AF_UNSPEC, 0, 0, ifindex,
                      parse_handle(args.handle), parse_handle(args.parent), 0)
    kind = attr(TCA_KIND, args.kind.encode() + b"\0")
    flags = NLM_F_REQUEST | NLM_F_ACK
    if args.cmd == "add":
        flags |= NLM_F_CREATE | NLM_F_EXCL
    opts_at = 16 + len(tcm) + len(kind) + 4   # + the TCA_OPTIONS header
    body = tcm + kind + attr(TCA_OPTIONS | NLA_F_NESTED, opts)
    msg = struct.pack("<IHHII", 16 + len(body), RTM_NEWQDISC, flags, 1, 0)
    return msg + body, [(opts_at + off, t) for off, t in where]


def tlvs(data):
    out, i = {}, 0
    while i + 4 <= len(data):
        alen, atype = struct.unpack_from("<HH", data, i)
        if alen < 4:
            break
        out[atype & 0x3fff] = data[i + 4:i + alen]
        i += align4(alen)
    return out


def talk(req):
    """(errno, message, offset or None, {policy attr: value})"""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    try:
        s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        s.bind((0, 0))
        s.sendto(req, (0, 0))
        while True:
            data = s.recv(65536)
            i = 0
            while i + 16 <= len(data):
                mlen, mtype, mflags, _, _ = struct.unpack_from("<IHHII",
                                                               data, i)
                if mtype == NLMSG_ERROR:
                    return parse_error(data[i:i + mlen], mflags)
                i += align4(mlen)
    finally:
        s.close()


def parse_error(m, mflags):
    err = -struct.unpack_from("<i", m, 16)[0]
    olen = struct.unpack_from("<I", m, 20)[0]
    i = 20 + (16 if mflags & NLM_F_CAPPED else align4(olen))
    msg, off, pol = "", None, {}
    if mflags & NLM_F_ACK_TLVS:
        t = tlvs(m[i:])
        if NLMSGERR_ATTR_MSG in t:
            msg = t[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode()
        if NLMSGERR_ATTR_OFFS in t:
            off = struct.unpack("<I", t[NLMSGERR_ATTR_OFFS])[0]
        if NLMSGERR_ATTR_POLICY in t:
            for k, v in tlvs(t[NLMSGERR_ATTR_POLICY]).items():
                if len(v) in (4, 8):
                    pol[k] = int.from_bytes(v, "little")
    return err, msg, off, pol


def show(dev):
    tc = os.environ.get("TC", "/usr/sbin/tc")
    return subprocess.run([tc, "-j", "qdisc", "show", "dev", dev],
                          capture_output=True, text=True,
                          check=False).stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--dev", required=True)
    p.add_argument("--handle", default="1:")
    p.add_argument("--parent", default="root")
    p.add_argument("cmd", choices=["add", "change"])
    p.add_argument("kind")
    p.add_argument("attrs", nargs="*")
    p.add_argument("--expect-errno")
    p.add_argument("--expect-msg")
    p.add_argument("--expect-attr")
    p.add_argument("--expect-ok", action="store_true")
    p.add_argument("--unchanged", action="store_true")
    args = p.parse_args()

    names = uapi_attrs(args.kind)
    try:
        req, where = build(args, names)
        want_attr = (attr_number(args.expect_attr, args.kind, names)
                     if args.expect_attr else None)
    except (ValueError, OSError) as e:
        print("tcraw: %s" % e, file=sys.stderr)
        return 2
    before = show(args.dev) if args.unchanged else None
    err, msg, off, pol = talk(req)
    at = dict(where).get(off) if off is not None else None

    said = "ok" if not err else errno.errorcode.get(err, str(err))
    line = "kernel: %s" % said
    if msg:
        line += ' "%s"' % msg
    if off is not None:
        line += " at %s" % (attr_name(at, names) if at is not None
                            else "offset %d" % off)
    if NL_POLICY_TYPE_ATTR_MIN_VALUE_U in pol or \
       NL_POLICY_TYPE_ATTR_MAX_VALUE_U in pol:
        line += " (policy %s..%s)" % (
            pol.get(NL_POLICY_TYPE_ATTR_MIN_VALUE_U, ""),
            pol.get(NL_POLICY_TYPE_ATTR_MAX_VALUE_U, ""))
    if NL_POLICY_TYPE_ATTR_MASK in pol:
        line += " (policy mask 0x%x)" % pol[NL_POLICY_TYPE_ATTR_MASK]
    print(line)

    fails = []
    if args.expect_ok and err:
        fails.append("expected success")
    if not args.expect_ok and not err:
        fails.append("expected a refusal")
    if args.expect_errno and said != args.expect_errno:
        fails.append("expected %s" % args.expect_errno)
    if args.expect_msg and args.expect_msg not in msg:
        fails.append('expected the message "%s"' % args.expect_msg)
    if want_attr is not None and at != want_attr:
        fails.append("expected the extack to point at %s" %
                     attr_name(want_attr, names))
    if before is not None:
        after = show(args.dev)
        if after != before or not before.strip():
            fails.append("configuration changed:\n  before %s\n  after  %s"
                         % (before.strip(), after.strip()))
    for f in fails:
        print("tcraw: FAIL: %s" % f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
