#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PL2 part of `make demo`, inside the VM: DEMO_PL2_SENDERS senders each
# keep 4 messages of 64 KB in flight to one receiver, every link at 20
# Mbit/s (a tbf on each switch port and host uplink): an incast of that many
# times the receiver's link into a drop-tail FIFO of 150 full packets (the
# paper's own peak PL2 queue is about 136 full packets, 16 us at 100
# Gbit/s), with a band served first for Shoal's control packets (DSCP CS6).  The same
# incast four times, DEMO_PL2_SECONDS of arrivals each:
#   PL2 through pl2-switch in clock mode (reservations that end with time)
#   PL2 through pl2-switch in counter mode (the paper's Algorithm 1)
#   PL2 without the switch (the receiving host answers every RSV with
#       slot 0: the same endpoint, bursts sent at once)
#   TCP cubic, 4 connections a sender
# Prints what the switch port dropped, what was sent again, and whether
# every message arrived.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

N=${DEMO_PL2_SENDERS:-6}
DUR=${DEMO_PL2_SECONDS:-8}
LINK=20		# Mbit/s, every link
QLIMIT=150	# the port's buffer, full packets
SIZE=65536
PORT=4800
perf_fabric demo-pl2 "$N"
perf_on_hosts sysctl -qw net.shoal.pl2_rate_mbps="$LINK" net.shoal.resend_ms=50 \
	net.ipv4.tcp_congestion_control=cubic || topo_die "the hosts' sysctls"
perf_shape_edges "$LINK"
perf_server pl2 pl2 "$PORT"
perf_server tcp tcp "$PORT"

# run NAME PROTO [SWITCH MODE]: one incast; the clients' JSON, the port's
# counters and every host's Shoal and TCP counters in DIR/NAME.*
run()
{
	local name=$1 proto=$2 mode=${3:-} i pids=()

	perf_fifo "$LINK" "$QLIMIT" off 48
	[ -n "$mode" ] && perf_pl2_attach --mode "$mode" --slot-ns $((1514 * 8 * 1000 / LINK))
	perf_shoal_stats "$DIR/$name.stats0"
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
			--server "$SRV:$PORT" --json --seed "$i" --workload "fixed:$SIZE" \
			--load 2 --link-mbps "$LINK" --duration "$DUR" --drain 30 \
			--max-outstanding 4 --connections 4 \
			>"$DIR/$name-$i.json" 2>"$DIR/$name-$i.txt" &
		pids+=($!)
	done
	# what the port really sent over the middle half of the arrivals
	topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 4 }')"
	perf_port_sample "$DIR/$name.rate"
	topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 2 }')"
	perf_port_sample "$DIR/$name.rate"
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$name.qdisc"
	perf_shoal_stats "$DIR/$name.stats1"
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" cat /proc/net/snmp
	done >"$DIR/$name.snmp"
	if [ -n "$mode" ]; then
		perf_pl2_show "$DIR/$name.switch"
		perf_pl2_detach
	fi
	echo "$name" >>"$DIR/runs"
}

echo
echo "== PL2: $N senders x 4 messages of 64 KB in flight -> 1 receiver, every link $LINK Mbit/s:"
echo "   an incast of $((N * 100))% of the receiver's link into a drop-tail FIFO of $QLIMIT packets"
echo "   (Shoal's control packets in a band served first), $DUR s of arrivals a run."
: >"$DIR/runs"
run pl2-clock pl2 clock
run pl2-counter pl2 counter
run pl2-noswitch pl2
run cubic tcp
perf_servers_stop 2>/dev/null
PYTHONPATH=$TREE/scripts/lib python3 - "$DIR" "$N" "$LINK" <<'PY'
import json, sys
d, n, link = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
names = {"pl2-clock": "PL2, switch (clock)", "pl2-counter": "PL2, switch (counter)",
         "pl2-noswitch": "PL2, no switch", "cubic": "TCP cubic"}

from perf_report import load, stats

def retrans(p):
    tot, hdr = 0, None
    for l in open(p):
        if l.startswith("Tcp:"):
            f = l.split()
            if hdr is None:
                hdr = f
            else:
                tot += int(f[hdr.index("RetransSegs")])
                hdr = None
    return tot

print("%-22s %6s %7s %8s %6s %7s %6s %8s" % ("", "msgs", "lost", "goodput", "wire", "dropped",
      "peak", "resent"))
ok, missing, slow = {}, [], []
for name in (l.strip() for l in open(d + "/runs")):
    cs = [c for c in (load("%s/%s-%d.json" % (d, name, i)) for i in range(1, n + 1)) if c]
    done = sum(c["messages"]["completed"] for c in cs)
    lost = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
    if len(cs) < n:
        missing.append("%s: %d of the %d senders gave no result (%s/%s-N.txt says why)"
                       % (names.get(name, name), n - len(cs), n, d, name))
    el = max([c["elapsed_s"] for c in cs] or [0])
    gp = sum(c["messages"]["completed_bytes"] for c in cs) * 8 / el / 1e6 if el else 0
    q = [x for x in (load("%s/%s.qdisc" % (d, name)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    if name == "cubic":
        resent = retrans(d + "/cubic.snmp")
    else:
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        resent = s1.get("tx_retx_packets", 0) - s0.get("tx_retx_packets", 0)
    try:
        (t0, b0), (t1, b1) = [map(int, l.split()) for l in open("%s/%s.rate" % (d, name))]
        wire = "%5.0f%%" % (100 * (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6 / link)
    except (OSError, ValueError):
        wire = "-"
    ok[name] = (q.get("drops", -1), lost, resent)
    if wire != "-" and float(wire.strip(" %")) < 95:
        slow.append("%s (wire %s, peak %d)" % (names.get(name, name), wire.strip(),
                                               q.get("data_qlen_max", -1)))
    print("%-22s %6d %7d %7.0f%% %6s %7d %6d %8d" % (names.get(name, name), done, lost,
          100 * gp / link, wire, q.get("drops", -1), q.get("data_qlen_max", -1), resent))
print("(msgs: messages answered; lost: failed or unanswered; goodput: of the link; wire: what")
print(" the port sent over the middle half of the arrivals, of its rate; dropped, peak: its drops")
print(" and longest data queue in packets; resent: DATA packets (TCP: segments) sent again)")
for m in missing:
    print(m)
for name, (drops, lost, resent) in ok.items():
    what = names.get(name, name)
    if drops == 0 and not lost and not any(m.startswith(what + ":") for m in missing):
        print("%s: nothing dropped at the switch, every message answered." % what)
    else:
        print("%s: the port dropped %d packets; %d messages were not answered; %d packets"
              " were sent again." % (what, drops, lost, resent))
if slow:
    print("The emulated link sent below 95% of its rate (its timer ran late in a busy guest)"
          " in:")
    print("  %s;" % "; ".join(slow))
    print("PL2's switch schedules the port at its nominal rate: what the link did not send")
    print("waits in the queue.")
print("Documentation/shoal.md, \"PL2 measured\", has runs and what they show.")
PY
echo "Raw results: $DIR"
