#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PL2's fabric experiment (issue 23, part 3), part of `make bench`, inside
# the VM: small RPCs across a leaf-spine fabric while a 400% and an 800%
# incast overload their server's port, PL2 (shoal.ko's IPPROTO_PL2 sockets,
# tools/pl2-switch on the server's leaf) against TCP cubic
# (Documentation/results/fabric.md).
#
# The fabric: 2 leaves of 5 hosts, 2 spines, hosts at BENCH_FABPL2_MBIT,
# the switches' links at 4x that (so the core carries an 800% incast),
# hashed per host pair (`ecmp flow`, as TCP's flows are: before the
# uplinks held no counters, spraying sent an RSV and its burst by
# different uplinks and the switch's counters for them drifted, an idle
# RPC waiting 8 ms for its slot on average, p50 37 ms); every switch port
# one drop-tail FIFO of BENCH_FABPL2_QLIMIT full
# packets with a band served first for DSCP CS6, where Shoal's control
# packets (PL2's RSVs and GRTs) go, as in bench-pl2.sh.  For PL2 the switch
# program runs on every port of both leaves, their ports towards the
# spines attached as uplinks (`pl2 leafN uplinks`): an exchange across
# the core is reserved by both leaves, the sender's passing its slot on
# in the RSV, and answered by the receiver's (the paper's ToR), whose
# port towards the receiver is the one an incast overloads.
#
# h1 serves.  Phases of BENCH_FABPL2_SECONDS each:
#   idle     h10 (leaf 2) sends BENCH_FABPL2_RPC_RATE small requests a
#            second to h1 (64 bytes, answered by 8; Poisson)
#   incast4  the same while h6..h9 (leaf 2, across the core) each keep 4
#            messages of 64 KB in flight to h1, offering their links (400%)
#   incast8  the same with h2..h5 (leaf 1) too (800%)
#   a2a      the same while every host serves and keeps A2A_OUT messages
#            of 64 KB in flight to each of the 9 others (all-to-all, the
#            paper's shuffle): every host link full both ways, half of
#            it across the core
# Per transport and phase: the RPCs' completion times, the incast's (or
# the all-to-all's) goodput, h1's port's (all host ports') peak queue and
# drops; for PL2 the hosts' RSVs, GRTs and DATA sent again.  The report
# is scripts/lib/bench_fabric_pl2_report.py.
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

MBIT=${BENCH_FABPL2_MBIT:-10}
QLIMIT=${BENCH_FABPL2_QLIMIT:-100}
DUR=${BENCH_FABPL2_SECONDS:-10}
RPC_RATE=${BENCH_FABPL2_RPC_RATE:-50}
RPC_SIZE=64
INC_SIZE=65536
INC_OUT=4
A2A_OUT=${BENCH_FABPL2_A2A_OUT:-2}
PORT=4800
PERF=$TREE/tools/shoal-perf/shoal-perf
# a slot: a full frame at the hosts' rate, as the endpoint counts it
SLOT_NS=$((1514 * 8 * 1000 / MBIT))
# a granted slot may lie as far ahead as every exchange of the 800% incast
# (8 senders, INC_OUT sockets each, K 4 packets an exchange): the hosts'
# bound on that wait (pl2_rsv_timeout_us, 20 ms by default) is 1.5x it, or
# the bursts would go before their slots (Documentation/shoal.md, "PL2")
RSV_TIMEOUT_US=$((8 * INC_OUT * 4 * SLOT_NS / 1000 * 3 / 2))
DIR=${VM_OUT:-/tmp}/bench/fabric-pl2
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=10 host_mbit="$MBIT" \
	BENCH_FABPL2_MBIT="$MBIT" BENCH_FABPL2_QLIMIT="$QLIMIT" BENCH_FABPL2_SECONDS="$DUR" \
	BENCH_FABPL2_RPC_RATE="$RPC_RATE" BENCH_FABPL2_A2A_OUT="$A2A_OUT"

fab_init fabpl2

# fabric T: the description transport T runs on
fabric()
{
	local q="trim limit 100000 limit_bytes $((QLIMIT * 1514)) ctrl_dscp 48 sched strict elig_dscp 63"

	cat <<EOF
leaves 2
spines 2
hosts_per_leaf 5
host_link ${MBIT}mbit
fabric_link $((4 * MBIT))mbit
ecmp flow
qdisc leaf-down $q
qdisc leaf-up $q
qdisc spine-down $q
EOF
	if [ "$1" = pl2 ]; then
		echo "pl2 leaf1 uplinks --mode counter --slot-ns $SLOT_NS"
		echo "pl2 leaf2 uplinks --mode counter --slot-ns $SLOT_NS"
	fi
}

# host_stats FILE: every host's Shoal counters, "hN name value"
host_stats()
{
	local h

	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" awk -v h="h$h" '{ print h, $0 }' \
			/proc/net/shoal/stats
	done >"$1"
}

# bulk P H SERVER SEED LOAD OUT FILE: host H sends SERVER messages of
# INC_SIZE over protocol P at LOAD of its link, OUT in flight, in the
# background (its pid in the caller's pids); FILE.json and FILE.txt
bulk()
{
	ip netns exec "$(fab_ns "$2")" "$PERF" client --proto "$1" \
		--server "$3" --json --seed "$4" \
		--workload "fixed:$INC_SIZE" --load "$5" --link-mbps "$MBIT" \
		--duration "$DUR" --drain 20 --max-outstanding "$6" \
		--connections "$6" >"$7.json" 2>"$7.txt" &
	pids+=($!)
}

# a2a_start T NAME: every host serves on PORT + 1 and sends to the 9
# others, A2A_OUT messages in flight to each; the clients' pids in pids
a2a_start()
{
	local p=$1 name=$2 h to

	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" "$PERF" server --proto "$p" --port $((PORT + 1)) \
			--ready "$DIR/$name-a2a$h.ready" 2>"$DIR/$name-a2a$h-server.log" &
		srvs+=($!)
		TOPO_PIDS+=($!)
	done
	for ((h = 1; h <= fab_hosts; h++)); do
		fab_ready "$DIR/$name-a2a$h.ready"
	done
	for ((h = 1; h <= fab_hosts; h++)); do
		for ((to = 1; to <= fab_hosts; to++)); do
			[ "$to" = "$h" ] && continue
			bulk "$p" "$h" "$(fab_ip "$to"):$((PORT + 1))" $((100 * h + to)) 0.5 \
				"$A2A_OUT" "$DIR/$name-inc$h-$to"
		done
	done
}

# phase T PH: one phase over transport T's fabric, its files DIR/T-PH.*
phase()
{
	local t=$1 ph=$2 name=$1-$2 p=$1 h srv pids=() senders=() srvs=() n

	[ "$t" = cubic ] && p=tcp
	fabric "$t" >"$DIR/$name.fab"
	fab_build "$DIR/$name.fab"
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.shoal.pl2_rate_mbps="$MBIT" \
			net.shoal.pl2_rsv_timeout_us="$RSV_TIMEOUT_US" net.shoal.resend_ms=50 \
			net.ipv4.tcp_congestion_control=cubic ||
			topo_die "sysctls of h$h"
	done
	ip netns exec "$(fab_ns 1)" "$PERF" server --proto "$p" --port "$PORT" \
		--ready "$DIR/$name.ready" 2>"$DIR/$name-server.log" &
	srv=$!
	TOPO_PIDS+=($!)
	fab_ready "$DIR/$name.ready"
	host_stats "$DIR/$name.stats0"
	case $ph in
	incast4) senders=(6 7 8 9) ;;
	incast8) senders=(2 3 4 5 6 7 8 9) ;;
	a2a) a2a_start "$p" "$name" ;;
	esac
	for h in "${senders[@]}"; do
		bulk "$p" "$h" "$(fab_ip 1):$PORT" "$h" 2 "$INC_OUT" "$DIR/$name-inc$h"
	done
	ip netns exec "$(fab_ns 10)" "$PERF" client --proto "$p" \
		--server "$(fab_ip 1):$PORT" --json --seed 10 \
		--workload "fixed:$RPC_SIZE" --link-mbps "$MBIT" \
		--load "$(awk -v r="$RPC_RATE" -v s="$RPC_SIZE" -v l="$MBIT" \
			'BEGIN { print r * s * 8 / (l * 1e6) }')" \
		--duration "$DUR" --drain 20 --connections 8 \
		>"$DIR/$name-rpc.json" 2>"$DIR/$name-rpc.txt" &
	pids+=($!)
	wait "${pids[@]}"
	# the exchanges still running end within a resend interval
	topo_nap 0.5
	host_stats "$DIR/$name.stats1"
	for ((h = 1; h <= fab_hosts; h++)); do
		tc -n "$(fab_leaf_ns "$h")" -s -j qdisc show dev "h$h" >"$DIR/$name.qdisc-h$h"
	done
	kill "$srv" "${srvs[@]}" 2>/dev/null
	wait "$srv" "${srvs[@]}"
	python3 "$FAB" teardown "$TOPO_PREFIX"
	n=${#senders[@]}
	[ "$ph" = a2a ] && n=$((fab_hosts * (fab_hosts - 1)))
	echo "$t $ph $n" >>"$DIR/runs"
}

: >"$DIR/runs"
for t in pl2 cubic; do
	for ph in idle incast4 incast8 a2a; do
		echo "fabric-pl2: $t, $ph" >&2
		phase "$t" "$ph"
	done
done
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_pl2_report.py" "$DIR" "$MBIT" "$QLIMIT" \
	"$DUR" "$RPC_RATE" "$A2A_OUT"
