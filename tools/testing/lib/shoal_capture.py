#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What tshark, with tools/wireshark/shoal.lua, reads in a capture.

  shoal_capture.py vars PCAP HOST [SIZE]

Shell assignments of the Shoal packets in PCAP to and from HOST (an
address), decoded by the dissector:
  cap_shoal           Shoal packets decoded
  cap_rx_<type>       packets of each type to HOST (names as
  cap_tx_<type>       /proc/net/shoal/stats has them), and from HOST
  cap_rx_trimmed      DATA to HOST that the dissector marks trimmed
  cap_rx_acks_folded  DATA to HOST carrying the folded ACK option
  cap_rx_requests     distinct request / response messages whose DATA
  cap_rx_responses    came to HOST
  cap_rx_answered     requests to HOST that a response from HOST names
                      (its id, to the request's source and sport)
  cap_rx_msgs_size    distinct messages of msg_len SIZE whose DATA came
                      to HOST (each named by its source, sport, msg_id
                      and RESPONSE flag, as wire.md names a message)
  cap_malformed       packets the dissector found malformed
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "..", "..", "wireshark", "shoal.lua")
NAMES = {1: "data", 2: "credit_req", 3: "credit", 4: "resend", 5: "busy",
         6: "unknown", 7: "ack", 8: "abort", 9: "rsv", 10: "grt"}
FIELDS = ["ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "shoal.type",
          "shoal.flags", "shoal.sport", "shoal.dport", "shoal.msg_id", "shoal.msg_len",
          "shoal.options", "shoal.trimmed.expert", "shoal.malformed.expert"]
F_REQUEST, F_RESPONSE = 0x08, 0x04
O_ACK = 0x01


def rows(path):
    cmd = ["tshark", "-n", "-r", path, "-X", "lua_script:" + LUA,
           "-Y", "shoal", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=f"]
    for name in FIELDS:
        cmd += ["-e", name]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode:
        sys.exit("tshark: " + res.stderr.strip())
    for line in res.stdout.splitlines():
        yield dict(zip(FIELDS, line.split("\t")))


def main(argv):
    if len(argv) < 4 or argv[1] != "vars":
        sys.exit(__doc__)
    host = argv[3]
    size = int(argv[4]) if len(argv) > 4 else -1
    count = {"cap_shoal": 0, "cap_rx_trimmed": 0, "cap_rx_acks_folded": 0,
             "cap_malformed": 0}
    for name in NAMES.values():
        count["cap_rx_" + name] = count["cap_tx_" + name] = 0
    msgs, requests, responses, answers = set(), set(), set(), set()
    for r in rows(argv[2]):
        count["cap_shoal"] += 1
        if r["shoal.malformed.expert"]:
            count["cap_malformed"] += 1
            continue
        src = r["ip.src"] or r["ipv6.src"]
        dst = r["ip.dst"] or r["ipv6.dst"]
        ptype = int(r["shoal.type"])
        flags = int(r["shoal.flags"], 16)
        if dst == host:
            way = "rx"
        elif src == host:
            way = "tx"
        else:
            continue
        key = "cap_%s_%s" % (way, NAMES.get(ptype, "type%d" % ptype))
        count[key] = count.get(key, 0) + 1
        if way == "tx" and ptype == 1 and flags & F_RESPONSE:
            answers.add((dst, r["shoal.dport"], r["shoal.msg_id"]))
        if way != "rx" or ptype != 1:
            continue
        if r["shoal.trimmed.expert"]:
            count["cap_rx_trimmed"] += 1
        if int(r["shoal.options"], 16) & O_ACK:
            count["cap_rx_acks_folded"] += 1
        name = (src, r["shoal.sport"], r["shoal.msg_id"], flags & F_RESPONSE)
        if flags & F_REQUEST:
            requests.add(name)
        if flags & F_RESPONSE:
            responses.add(name)
        if int(r["shoal.msg_len"]) == size:
            msgs.add(name)
    count["cap_rx_requests"] = len(requests)
    count["cap_rx_responses"] = len(responses)
    count["cap_rx_answered"] = len({n[:3] for n in requests} & answers)
    count["cap_rx_msgs_size"] = len(msgs)
    for k in sorted(count):
        print("%s=%d" % (k, count[k]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
