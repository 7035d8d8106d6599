#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SQR's fabric experiment (issue 23, part 3), part of `make bench`, inside
# the VM: a leaf-spine link fails under TCP cubic and SIRD, with and
# without sqr on it; lost packets against the outage's length,
# retransmission timeouts, and the RPCs' tail (the paper's Figs. 9-12 on a
# fabric of this platform's scale; Documentation/results/fabric.md).
#
# The fabric: 2 leaves, 2 spines, 2 hosts a leaf, every link at
# BENCH_SQRFAB_MBIT with 500 us of delay between the switches, sprayed
# (SIRD's packets over both spines, TCP's connections hashed), every port
# a byte FIFO of 200 full packets (sch_trim with nothing eligible, so it
# counts its own drops).  Leaf 1's cable to spine 1 is cut 2 s into the
# load for each of BENCH_SQRFAB_OUTAGES (0: not cut, the baseline);
# routing converges BENCH_SQRFAB_CONVERGE after the cut and after the
# mend.  The leaf skips
# its dead uplink at once (carrier), but spine 1 keeps sending what the
# other leaf routes through it down the dead link until routing converges:
# the route is broken for the outage or the convergence, whichever is
# shorter (the paper's "route failure time").  With sqr on the link
# (`hold 20ms poll 200us max_hold 2s`), both ends send their copies and
# what is still routed to the dead link over their backups.
#
# The load: h1 <-> h3 and h2 <-> h4, a shoal-perf client each way (four),
# BENCH_SQRFAB_SIZE-byte requests offering BENCH_SQRFAB_LOAD of the link
# each for BENCH_SQRFAB_SECONDS (Poisson, the same seeds everywhere),
# TCP over 8 connections a client, SIRD a message an RPC, the hosts told
# the link's rate and the fabric's round trip (BENCH_SQRFAB_RTT_US: a
# full packet crosses four 10 Mbit/s ports and 1 ms of delay one way).
#
# Per run: packets the hosts sent and received (lost: the difference;
# sqr's copies of packets that had arrived count as received twice), the
# ports' own drops, the transport's retransmissions (TCP's segments and
# timeouts, SIRD's resent DATA and its resend timeouts), the RPCs'
# completion times, those slower than 200 ms (TCP's minimum RTO), failed
# and unanswered RPCs, sqr's counters.  The report is
# scripts/lib/bench_fabric_sqr_report.py (table, verdicts from the
# numbers, outage.svg).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# the fabric's names arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../../tools/testing/lib/fabric.sh
source "$TREE/tools/testing/lib/fabric.sh"
# shellcheck source=../lib/bench-lib.sh
source "$TREE/scripts/lib/bench-lib.sh"

MBIT=${BENCH_SQRFAB_MBIT:-10}
OUTAGES=${BENCH_SQRFAB_OUTAGES:-0 20ms 100ms 300ms 1s}
CONVERGE=${BENCH_SQRFAB_CONVERGE:-300ms}
SECONDS_=${BENCH_SQRFAB_SECONDS:-6}
LOAD=${BENCH_SQRFAB_LOAD:-0.25}
SIZE=${BENCH_SQRFAB_SIZE:-10000}
TRANSPORTS=${BENCH_SQRFAB_TRANSPORTS:-cubic sird}
RTT_US=${BENCH_SQRFAB_RTT_US:-10000}
FAIL_AT=2s
PERF=$TREE/tools/shoal-perf/shoal-perf
DIR=${VM_OUT:-/tmp}/bench/fabric-sqr
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=4 host_mbit="$MBIT" BENCH_SQRFAB_MBIT="$MBIT" \
	BENCH_SQRFAB_OUTAGES="$OUTAGES" BENCH_SQRFAB_CONVERGE="$CONVERGE" \
	BENCH_SQRFAB_SECONDS="$SECONDS_" BENCH_SQRFAB_LOAD="$LOAD" BENCH_SQRFAB_SIZE="$SIZE" \
	BENCH_SQRFAB_TRANSPORTS="$TRANSPORTS" BENCH_SQRFAB_RTT_US="$RTT_US"

fab_init sqrfab

# fabric OUTAGE SQR: the description, sqr on the cut link when SQR is 1
fabric()
{
	local fifo="trim limit 100000 limit_bytes $((200 * 1514)) ctrl_dscp none elig_dscp 63"

	cat <<EOF
leaves 2
spines 2
hosts_per_leaf 2
host_link ${MBIT}mbit
fabric_link ${MBIT}mbit delay 500us
ecmp spray
qdisc leaf-down $fifo
qdisc leaf-up $fifo
qdisc spine-down $fifo
converge $CONVERGE
EOF
	if [ "$1" != 0 ]; then
		echo "fail leaf1 spine1 at $FAIL_AT for $1"
	fi
	if [ "$2" = 1 ]; then
		echo "sqr leaf1 spine1 hold 20ms poll 200us max_hold 2s"
	fi
}

# packets H: "TX RX" of host H's eth0
packets()
{
	ip netns exec "$(fab_ns "$1")" cat /sys/class/net/eth0/statistics/tx_packets \
		/sys/class/net/eth0/statistics/rx_packets | tr '\n' ' '
}

# run NAME PROTO OUTAGE SQR: one run, its files in DIR/NAME
run()
{
	local name=$1 proto=$2 outage=$3 sqr=$4 d=$DIR/$1 h peer pids=() srv=() events_pid

	mkdir -p "$d"
	fabric "$outage" "$sqr" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.shoal.link_mbps="$MBIT" \
			net.shoal.link_rtt_us="$RTT_US" \
			net.ipv4.tcp_congestion_control=cubic || topo_die "sysctls of h$h"
		ip netns exec "$(fab_ns "$h")" "$PERF" server --proto "${proto/cubic/tcp}" \
			--port 4800 --ready "$d/srv$h.ready" 2>"$d/server$h.log" &
		srv+=($!)
		TOPO_PIDS+=($!)
	done
	fab_ready "$d"/srv{1,2,3,4}.ready
	for ((h = 1; h <= fab_hosts; h++)); do
		echo "$h $(packets "$h")" >>"$d/packets.before"
		ip netns exec "$(fab_ns "$h")" cat /proc/net/shoal/stats >"$d/shoal$h.before"
	done
	for h in 1 2 3 4; do
		peer=$(((h + 1) % 4 + 1))	# 1 <-> 3, 2 <-> 4
		ip netns exec "$(fab_ns "$h")" timeout $((SECONDS_ + 60)) "$PERF" client \
			--server "$(fab_ip "$peer"):4800" --proto "${proto/cubic/tcp}" \
			--workload "fixed:$SIZE" --load "$LOAD" --link-mbps "$MBIT" \
			--duration "$SECONDS_" --drain 20 --seed "$h" --json \
			>"$d/client$h.json" 2>"$d/client$h.log" &
		pids+=($!)
	done
	python3 "$FAB" events "$d/fabric.fab" "$TOPO_PREFIX" >"$d/events" &
	events_pid=$!
	for p in "${pids[@]}" "$events_pid"; do
		wait "$p"
	done
	for ((h = 1; h <= fab_hosts; h++)); do
		echo "$h $(packets "$h")" >>"$d/packets.after"
		ip netns exec "$(fab_ns "$h")" cat /proc/net/shoal/stats >"$d/shoal$h.after"
		ip netns exec "$(fab_ns "$h")" nstat -a TcpExtTCPTimeouts TcpExtTCPSynRetrans \
			TcpRetransSegs | awk -v h="$h" '{ print h, $1, $2 }'
	done >"$d/nstat"
	fab_qdiscs >"$d/qdiscs"
	for p in "${srv[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p"
	done
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

runs=()
for outage in $OUTAGES; do
	for t in $TRANSPORTS; do
		for sqr in 0 1; do
			name=$t-$outage-$([ $sqr = 1 ] && echo sqr || echo none)
			echo "fabric-sqr: $name" >&2
			run "$name" "$t" "$outage" "$sqr"
			runs+=("$name")
		done
	done
done
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_sqr_report.py" "$DIR" "$MBIT" "$CONVERGE" \
	"$SIZE" "$LOAD" "$SECONDS_" "${runs[@]}"
