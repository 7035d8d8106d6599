#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Shoal transport part of `make demo`, inside the VM: 8 senders send
# 60 KB messages (each answered by 8 bytes) to one receiver through a
# switch port of DEMO_SHOAL_MBIT (50) Mbit/s whose queue is trim with 12
# packets, first over Shoal sockets (SIRD), then over TCP (cubic, 8
# connections a sender), the same seeded Poisson arrivals offering
# DEMO_SHOAL_LOAD (0.8) of the port: issue 22's setting, where SIRD's tail
# lost to TCP's.  The tbf's burst of 32 KB keeps the port at its rate when
# its timer fires late.  trim cuts SIRD's packets to headers, which the
# receiver asks for again; TCP is not eligible for trimming (trim's
# default, proto udp), so the same queue drops it.  The hosts are told
# the link's rate (net.shoal.link_mbps: a veth's nominal speed is not the
# port's), which SIRD's pacers and sizes follow; every other SIRD setting
# is the module's default, unless DEMO_SHOAL_SYSCTLS adds some ("LINK" in
# it stands for the port's rate).  Prints message completion times, goodput, what the
# switch did, and the verdicts computed from them
# (scripts/lib/demo_shoal_report.py).
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
LINK=${DEMO_SHOAL_MBIT:-50}	# Mbit/s
LOAD=${DEMO_SHOAL_LOAD:-0.8}
DUR=${DEMO_SHOAL_SECONDS:-8}
PORT=4800
perf_fabric demo-shoal "$N"
# the link's rate stated; 50 ms before a resend, as in the shoal-perf
# scenario: the guest's round trip swings up to 8 ms
SYSCTLS="net.shoal.resend_ms=50 net.shoal.link_mbps=LINK${DEMO_SHOAL_SYSCTLS:+ $DEMO_SHOAL_SYSCTLS}"
# shellcheck disable=SC2086	# a word list
perf_on_hosts sysctl -qw ${SYSCTLS//LINK/$LINK} || topo_die "the hosts' sysctls: $SYSCTLS"

# run PROTO: the servers' and clients' JSON in DIR, the port's counters
run()
{
	local proto=$1 i pids=()

	perf_shoal_stats "$DIR/$proto.stats0"
	topo_link_qdisc "${LINK}mbit" 32k 1000000 trim limit 12 || topo_die "trim on r0"
	perf_server "$proto" "$proto" "$PORT"
	# no idle-RTT probe (--rtt-us; completion times do not use it): the
	# senders start together, and none gives up on a probe that met the
	# port the others already fill
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
			--server "$SRV:$PORT" --workload "fixed:$SIZE" --json --seed "$i" \
			--load "$(awk -v l="$LOAD" -v n="$N" 'BEGIN { print l / n }')" \
			--link-mbps "$LINK" --duration "$DUR" --drain 30 --rtt-us 1000 \
			>"$DIR/$proto-$i.json" 2>"$DIR/$proto-$i.txt" &
		pids+=($!)
	done
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$proto.qdisc"
	ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats >"$DIR/$proto.stats"
	perf_shoal_stats "$DIR/$proto.stats1"
	perf_servers_stop 2>/dev/null
}

echo
echo "== Shoal: $N senders x 60 KB messages -> 1 receiver, switch port at $LINK Mbit/s with"
echo "   trim limit 12; Poisson arrivals offering $(awk -v l="$LOAD" 'BEGIN { print l * 100 }')% of the port for $DUR s; the same"
echo "   port and arrivals for TCP, which trim does not trim (it takes UDP) but drops."
echo "   Completion time: the message sent until its 8-byte answer is back."
echo "   SIRD: ${SYSCTLS//LINK/$LINK}, the rest the module's defaults."
run sird
run tcp
PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/demo_shoal_report.py" "$DIR" "$N" "$LINK" "$LOAD"
echo "Raw results: $DIR"
