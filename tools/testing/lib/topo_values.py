#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""topo_values.py qdisc < TC_JSON
topo_values.py case DIR N

What the tools and tc wrote for one case of a topo.sh scenario, as shell
assignments (python starts slowly in the VM: one run per case).  The
fields are listed above TOPO_PY in tools/testing/lib/topo.sh.  Missing
values read as -1, so that checks on them fail rather than pass."""

import json, re, sys

def flat(prefix, obj, out):
    for k, v in obj.items():
        k = re.sub(r"[^A-Za-z0-9_]", "_", k)
        if isinstance(v, dict):
            flat(prefix, v, out)
        elif isinstance(v, bool):
            out[prefix + k] = int(v)
        elif isinstance(v, (int, float)):
            out[prefix + k] = v

def qdisc(text, out):
    out.update({"tbf_drops": -1, "child_drops": -1, "child_packets": -1})
    for f in ("data_enq data_deq hdr_enq hdr_deq ctrl_enq fwd_hdr_enq trim_arrival "
              "trim_tail trimmed_bytes small_promoted hdr_drop bounced bounced_shoal bounce_err "
              "inelig_drop trim_err inelig_nonip inelig_frag inelig_proto inelig_encap "
              "gso_split ecn_mark hdr_sojourn_sum_ns hdr_sojourn_max_ns "
              "data_sojourn_sum_ns data_sojourn_max_ns data_qlen hdr_qlen data_backlog "
              "hdr_backlog data_qlen_max hdr_qlen_max data_backlog_max hdr_backlog_max").split():
        out["child_" + f] = -1
    try:
        qdiscs = json.loads(text)
    except ValueError:
        qdiscs = []
    for q in qdiscs:
        if q.get("root"):
            pre = "tbf_" if q.get("kind") == "tbf" else "root_"
        elif q.get("handle") == "10:":
            pre = "child_"
        else:
            continue
        flat(pre, {k: v for k, v in q.items() if k != "options"}, out)

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}

def case(d, n, out):
    try:
        with open(d + "/qdisc.json") as f:
            qdisc(f.read(), out)
    except OSError:
        qdisc("", out)
    for k in ("sent send_errors retries bounced bounce_invalid bounce_dup "
              "blast_rx_dropped").split():
        out[k] = 0
    blasts, starts = {}, []
    for i in range(1, n + 1):
        b = blasts[i] = load("%s/blast-%d.json" % (d, i))
        for k in ("sent", "send_errors", "retries", "bounced", "bounce_invalid",
                  "bounce_dup"):
            out[k] += int(b.get(k, 0))
        out["blast_rx_dropped"] += int(b.get("rx_dropped", 0))
        if "start_us" in b:
            starts.append(int(b["start_us"]))
    out["skew_us"] = max(starts) - min(starts) if starts else -1
    pcts = [100.0 * b["pps"] / b["rate"] for b in blasts.values() if b.get("rate")]
    out["rate_pct"] = int(min(pcts)) if pcts else 100
    s = load(d + "/sink.json")
    for k in ("total distinct whole trimmed trimmed_unmarked malformed duplicates "
              "csum_ok csum_partial csum_zero bounced_flag fragments other truncated "
              "capture_drops udp_rx udp_drops jumps").split():
        out["s_" + k] = -1
    for k in ("min", "p50", "p99", "max"):
        out["d_whole_" + k] = out["d_trim_" + k] = -1
    for k, v in s.items():
        if isinstance(v, int) and not isinstance(v, bool):
            out["s_" + k] = v
    for kind, key in (("whole", "d_whole"), ("trimmed", "d_trim")):
        for f, v in s.get("delay_us", {}).get(kind, {}).items():
            out["%s_%s" % (key, f)] = int(v)
    ps = s.get("per_sender", {})
    bad = 0
    for i, b in blasts.items():
        p = ps.get(str(i), {})
        got = p.get("whole", 0) + p.get("trimmed", 0) + p.get("trimmed_unmarked", 0)
        if got + int(b.get("bounced", 0)) != int(b.get("sent", -1)):
            bad += 1
    out["per_sender_bad"] = bad
    out["reasons"] = "\x27%s\x27" % json.dumps(s.get("malformed_reasons", {})).replace("\x27", "")

out = {}
if sys.argv[1] == "qdisc":
    qdisc(sys.stdin.read(), out)
else:
    case(sys.argv[2], int(sys.argv[3]), out)
for k, v in sorted(out.items()):
    print("%s=%s" % (k, v))
