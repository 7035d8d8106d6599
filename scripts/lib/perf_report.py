# SPDX-License-Identifier: GPL-2.0
"""What the bench and demo reports of scripts/guest read: a tool's JSON
output, and the "namespace counter value" lines perf_shoal_stats writes
(summed over namespaces).  Imported by their inline python
(PYTHONPATH=scripts/lib)."""
import json


def load(path):
    """The JSON in path, None if it is missing or not JSON"""
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def stats(path):
    """Counter name -> value summed over every namespace; {} if missing"""
    s = {}
    try:
        for line in open(path):
            _, k, v = line.split()
            s[k] = s.get(k, 0) + int(v)
    except OSError:
        pass
    return s


def rpc_times(rpc):
    """A shoal-perf client's JSON @rpc as {n: completed, lost: failed or
    unanswered, p50, p99, max: its completion times in ms, when any}"""
    b = [x for x in rpc["buckets"] if x["name"] == "all"][0]
    m = rpc["messages"]
    r = {"n": m["completed"], "lost": m["failed"] + m["unanswered"]}
    if b["count"]:
        r.update(p50=b["latency_us"]["p50"] / 1e3, p99=b["latency_us"]["p99"] / 1e3,
                 max=b["latency_us"]["max"] / 1e3)
    return r


def merge_clients(paths):
    """shoal-perf client JSONs at @paths merged: their issued, completed,
    failed and unanswered RPCs summed, how many files are missing or not
    JSON (a client that died or was killed: its RPCs are not counted),
    and every completion time, sorted (lat, us)"""
    out = {"issued": 0, "completed": 0, "failed": 0, "unanswered": 0, "missing": 0, "lat": []}
    for path in paths:
        c = load(path)
        if not c:
            out["missing"] += 1
            continue
        for k in ("issued", "completed", "failed", "unanswered"):
            out[k] += c["messages"][k]
        out["lat"] += c.get("completion_us", [])
    out["lat"].sort()
    return out
