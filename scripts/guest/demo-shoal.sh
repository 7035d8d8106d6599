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
PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/demo_shoal_report.py" "$DIR" "$N"
echo "Raw results: $DIR"
