#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Shoal transport part of `make demo`, inside the VM: 8 senders send
# 60 KB messages (each answered by 8 bytes) to one receiver through a
# 20 Mbit/s switch port whose queue is trim with 12 packets, first over
# Shoal sockets (SIRD), then over TCP (cubic, 8 connections a sender),
# the same seeded Poisson arrivals offering half the port (a rate the
# guest keeps up with under TCG on a busy host; the tbf's burst of 32 KB
# keeps the port at its rate when its timer fires late).  A 60 KB
# message is sent unscheduled, all at once: several at a time overflow
# the 12 packets.  trim cuts SIRD's packets to headers, which the receiver
# asks for again at once; TCP is not eligible for trimming (trim's
# default, proto udp), so the same queue drops it.  Prints message
# completion times and what the switch did.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

N=8
SIZE=60000
LINK=20		# Mbit/s
LOAD=0.5
DUR=${DEMO_SHOAL_SECONDS:-8}
PORT=4800
perf_fabric demo-shoal "$N"
# the receiver paces credit at the port's rate; 50 ms before a resend, as
# in the shoal-perf scenario: the guest's round trip swings up to 8 ms
perf_on_hosts sysctl -qw net.shoal.resend_ms=50 net.shoal.sird_rate_mbps="$LINK" ||
	topo_die "the hosts' sysctls"

# run PROTO: the servers' and clients' JSON in DIR, the port's counters
run()
{
	local proto=$1 i pids=()

	topo_link_qdisc "${LINK}mbit" 32k 1000000 trim limit 12 || topo_die "trim on r0"
	perf_server "$proto" "$proto" "$PORT"
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
			--server "$SRV:$PORT" --workload "fixed:$SIZE" --json --seed "$i" \
			--load "$(awk -v l="$LOAD" -v n="$N" 'BEGIN { print l / n }')" \
			--link-mbps "$LINK" --duration "$DUR" --drain 30 \
			>"$DIR/$proto-$i.json" 2>"$DIR/$proto-$i.txt" &
		pids+=($!)
	done
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$proto.qdisc"
	ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats >"$DIR/$proto.stats"
	perf_servers_stop 2>/dev/null
}

echo
echo "== Shoal: $N senders x 60 KB messages -> 1 receiver, switch port at $LINK Mbit/s with"
echo "   trim limit 12; Poisson arrivals offering $(awk -v l="$LOAD" 'BEGIN { print l * 100 }')% of the port for $DUR s; the same"
echo "   port and arrivals for TCP, which trim does not trim (it takes UDP) but drops."
echo "   Completion time: the message sent until its 8-byte answer is back."
run sird
run tcp
PYTHONPATH=$TREE/scripts/lib python3 - "$DIR" "$N" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
from perf_report import load
stats = {}
for line in open(d + "/sird.stats"):
    k, v = line.split()
    stats[k] = int(v)
print("%-14s %6s %8s %10s %10s %10s %8s %8s %6s" % ("", "msgs", "failed", "p50 ms", "p99 ms",
      "max ms", "trimmed", "dropped", "peak"))
res, missing = {}, []
for p, name in (("sird", "Shoal (SIRD)"), ("tcp", "TCP cubic")):
    cs = [c for c in (load("%s/%s-%d.json" % (d, p, i)) for i in range(1, n + 1)) if c]
    done = sum(c["messages"]["completed"] for c in cs)
    bad = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
    if len(cs) < n:
        missing.append("%s: %d of the %d senders gave no result (%s/%s-N.txt says why)"
                       % (name, n - len(cs), n, d, p))
    lat = [b["latency_us"] for c in cs for b in c["buckets"] if b["name"] == "all" and b["count"]]
    q = [x for x in (load("%s/%s.qdisc" % (d, p)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    trimmed = q.get("trim_arrival", 0) + q.get("trim_tail", 0)
    r = res[p] = (statistics.median(x["p50"] for x in lat) / 1e3 if lat else -1,
                  max(x["p99"] for x in lat) / 1e3 if lat else -1,
                  max(x["max"] for x in lat) / 1e3 if lat else -1)
    print("%-14s %6d %8d %10.1f %10.1f %10.1f %8d %8d %6d" % (name, done, bad, r[0], r[1], r[2],
          trimmed, q.get("drops", -1), q.get("data_qlen_max", -1)))
print("(msgs: completed; failed: failed or unanswered; p50: the median of the senders'")
print(" medians; p99: the worst sender's; trimmed, dropped, peak: the switch port's trims,")
print(" drops and longest data queue in packets)")
for m in missing:
    print(m)
print("SIRD's receiver: %d packets arrived trimmed, %d RESENDs asked for trimmed bytes at once,"
      % (stats.get("rx_trimmed", 0), stats.get("rx_resend_trimmed", 0)))
print("  %d RESENDs after a quiet interval (a loss)." % stats.get("rx_resend_quiet", 0))
s, t = res["sird"], res["tcp"]
if s[1] > 0 and t[1] > 0:
    # the verdict follows from the numbers: sooner or later, at each percentile
    def when(x):
        return "sooner" if x < 1 else "as soon" if x == 1 else "later"
    print("SIRD's completion times against TCP's: p50 %.2fx, p99 %.2fx: SIRD's messages"
          % (s[0] / t[0], s[1] / t[1]))
    print("completed %s than TCP's at p50, %s at p99."
          % (when(s[0] / t[0]), when(s[1] / t[1])))
    if stats.get("rx_resend_trimmed", 0) > 0:
        print("Its receiver asked again at once for the trimmed packets, from their headers;"
              " a dropped")
        print("TCP segment waits for duplicate ACKs or a timeout.")
    print("Under TCG both times are mostly the guest's own delays: compare the two, not the")
    print("milliseconds (Documentation/shoal.md, \"Measured\").")
PY
echo "Raw results: $DIR"
