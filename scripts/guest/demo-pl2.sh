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
PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/demo_pl2_report.py" "$DIR" "$N" "$LINK"
echo "Raw results: $DIR"
