#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SIRD's fabric experiments (issue 23, part 3), part of `make bench`,
# inside the VM: the paper's Balanced, Core and Incast configurations on a
# two-tier fabric at this platform's scale, SIRD against TCP cubic and
# DCTCP, and SIRD's ablations (Documentation/results/fabric.md).
#
# The fabric: 2 leaves of 4 hosts, 2 spines, hosts at BENCH_FABSIRD_MBIT,
# sprayed; every port a byte FIFO of BENCH_FABSIRD_QLIMIT full packets
# marking CE above BENCH_FABSIRD_ECN packets (sch_trim with nothing
# eligible, which keeps its peak queue), for all three transports (cubic
# is not ECN-capable, so it is only dropped).  Every host sends RPCs
# (shoal-perf, Poisson, answered by 8 bytes) to the host in its place on
# the other leaf, so every message crosses the core:
#
#   balanced  the leaves' uplinks at twice the hosts' rate (1:1), each
#             host offering BENCH_FABSIRD_LOAD of its link
#   core      the uplinks at the hosts' rate (2:1), the load divided by
#             1.78 as the paper does (its 89% of messages crossing x 2)
#   incast    balanced, the hosts offering 0.93 of the load, and h5..h8
#             sending 500 KB messages to h1 for the other 7% (the paper's
#             overlay: 30 senders to one receiver; Poisson here, not in
#             step), left out of the slowdowns
#
# for each of BENCH_FABSIRD_WORKLOADS and BENCH_FABSIRD_TRANSPORTS (W5,
# whose messages average 2.5 MB, for BENCH_FABSIRD_W5_SECONDS: 8 s of
# arrivals see one message a host); then SIRD alone, balanced, on
# BENCH_FABSIRD_ABLATION_WORKLOAD, with each ablation of
# BENCH_FABSIRD_ABLATIONS (name=sysctl,...: the csn loop off, credit pacing
# off, the unscheduled threshold swept).  Per run: the background's
# goodput, its slowdown (the median of the senders' p50s, the worst
# sender's p99), RPCs failed or unanswered, the highest queue at a leaf's
# host port (ToR) and in the core, in packets and KB, CE marks and drops.
# The report is scripts/lib/bench_fabric_sird_report.py.
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

MBIT=${BENCH_FABSIRD_MBIT:-5}
LOAD=${BENCH_FABSIRD_LOAD:-0.5}
DUR=${BENCH_FABSIRD_SECONDS:-8}
QLIMIT=${BENCH_FABSIRD_QLIMIT:-100}
ECN_PKTS=${BENCH_FABSIRD_ECN:-12}
WORKLOADS=${BENCH_FABSIRD_WORKLOADS:-W3 W4 W5}
W5_DUR=${BENCH_FABSIRD_W5_SECONDS:-60}
ABL_WL=${BENCH_FABSIRD_ABLATION_WORKLOAD:-W4}
TRANSPORTS=${BENCH_FABSIRD_TRANSPORTS:-sird cubic dctcp}
CONFIGS=${BENCH_FABSIRD_CONFIGS:-balanced core incast}
# the hosts' unscheduled threshold in the sweep: 0 (every message asks
# for credit) and 4x the link's BDP at the fabric's round trip
RTT_US=${BENCH_FABSIRD_RTT_US:-20000}
BDP=$((MBIT * RTT_US / 8))
# set and empty: no ablations
ABLATIONS=${BENCH_FABSIRD_ABLATIONS-csn-off=net.shoal.sird_sthr=0
	pacing-off=net.shoal.sird_rate_mbps=0,net.shoal.sird_tx_rate_mbps=0
	unsch-0=net.shoal.unsch_thresh=0 unsch-4bdp=net.shoal.unsch_thresh=$((4 * BDP))}
PERF=$TREE/tools/shoal-perf/shoal-perf
DIR=${VM_OUT:-/tmp}/bench/fabric-sird
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=8 host_mbit="$MBIT" BENCH_FABSIRD_MBIT="$MBIT" \
	BENCH_FABSIRD_LOAD="$LOAD" BENCH_FABSIRD_SECONDS="$DUR" BENCH_FABSIRD_QLIMIT="$QLIMIT" \
	BENCH_FABSIRD_ECN="$ECN_PKTS" BENCH_FABSIRD_WORKLOADS="$WORKLOADS" \
	BENCH_FABSIRD_W5_SECONDS="$W5_DUR" BENCH_FABSIRD_ABLATION_WORKLOAD="$ABL_WL" \
	BENCH_FABSIRD_TRANSPORTS="$TRANSPORTS" BENCH_FABSIRD_CONFIGS="$CONFIGS" \
	BENCH_FABSIRD_RTT_US="$RTT_US" BENCH_FABSIRD_ABLATIONS="$ABLATIONS"

modprobe tcp_dctcp || topo_die "modprobe tcp_dctcp"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"
fab_init fabsird

# fabric CONFIG: the description
fabric()
{
	local q="trim limit 100000 limit_bytes $((QLIMIT * 1514)) ctrl_dscp none elig_dscp 63"
	local core=$((2 * MBIT))

	q+=" ecn_thresh $((ECN_PKTS * 1514))"
	[ "$1" = core ] && core=$MBIT
	cat <<EOF
leaves 2
spines 2
hosts_per_leaf 4
host_link ${MBIT}mbit
fabric_link ${core}mbit
ecmp spray
qdisc leaf-down $q
qdisc leaf-up $q
qdisc spine-down $q
EOF
}

# run NAME CONFIG WORKLOAD TRANSPORT [SYSCTL,...]: one run, files in DIR/NAME
run()
{
	local name=$1 c=$2 w=$3 t=$4 d=$DIR/$1 proto=sird cc=cubic ecn=1 load h peer
	local pids=() srv=() dur=$DUR

	[ "$w" = W5 ] && dur=$W5_DUR
	mkdir -p "$d"
	[ "$t" = sird ] || proto=tcp cc=$t
	[ "$t" = cubic ] && ecn=0
	load=$LOAD
	[ "$c" = core ] && load=$(awk -v l="$LOAD" 'BEGIN { printf "%.4f", l / 1.78 }')
	[ "$c" = incast ] && load=$(awk -v l="$LOAD" 'BEGIN { printf "%.4f", l * 0.93 }')
	fabric "$c" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.shoal.link_mbps="$MBIT" \
			net.shoal.link_rtt_us="$RTT_US" net.shoal.resend_ms=50 \
			net.ipv4.tcp_congestion_control="$cc" net.ipv4.tcp_ecn="$ecn" ||
			topo_die "sysctls of h$h"
		if [ -n "${5:-}" ]; then
			# shellcheck disable=SC2046	# the ablation's sysctls, a word each
			ip netns exec "$(fab_ns "$h")" sysctl -qw $(tr ',' ' ' <<<"$5") ||
				topo_die "sysctl $5"
		fi
		ip netns exec "$(fab_ns "$h")" "$PERF" server --proto "$proto" --port 4800 \
			--ready "$d/srv$h.ready" 2>"$d/server$h.log" &
		srv+=($!)
		TOPO_PIDS+=($!)
	done
	fab_ready "$d"/srv{1,2,3,4,5,6,7,8}.ready
	for ((h = 1; h <= fab_hosts; h++)); do
		peer=$(((h + 3) % 8 + 1))	# the host in h's place on the other leaf
		ip netns exec "$(fab_ns "$h")" timeout $((dur + 90)) "$PERF" client \
			--server "$(fab_ip "$peer"):4800" --proto "$proto" --workload "$w" \
			--load "$load" --link-mbps "$MBIT" --duration "$dur" --drain 30 \
			--seed "$h" --json >"$d/client$h.json" 2>"$d/client$h.log" &
		pids+=($!)
	done
	if [ "$c" = incast ]; then
		# the overlay: 7% of the load, from the four hosts of leaf 2
		for h in 5 6 7 8; do
			ip netns exec "$(fab_ns "$h")" timeout $((dur + 90)) "$PERF" client \
				--server "$(fab_ip 1):4800" --proto "$proto" \
				--workload fixed:500000 --link-mbps "$MBIT" \
				--load "$(awk -v l="$LOAD" 'BEGIN { printf "%.4f", l * 0.07 * 8 / 4 }')" \
				--duration "$dur" --drain 30 --seed "$((h + 10))" --json \
				>"$d/overlay$h.json" 2>"$d/overlay$h.log" &
			pids+=($!)
		done
	fi
	wait "${pids[@]}"
	fab_qdiscs >"$d/qdiscs"
	kill "${srv[@]}" 2>/dev/null
	wait "${srv[@]}" 2>/dev/null
	python3 "$FAB" teardown "$TOPO_PREFIX"
	echo "$name $c $w $t" >>"$DIR/runs"
}

: >"$DIR/runs"
for c in $CONFIGS; do
	for w in $WORKLOADS; do
		for t in $TRANSPORTS; do
			echo "fabric-sird: $c $w $t" >&2
			run "$c-$w-$t" "$c" "$w" "$t"
		done
	done
done
for a in $ABLATIONS; do
	echo "fabric-sird: ablation ${a%%=*}" >&2
	run "${a%%=*}-$ABL_WL" balanced "$ABL_WL" sird "${a#*=}"
done
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_sird_report.py" "$DIR" "$MBIT" "$LOAD" \
	"$DUR" "$QLIMIT" "$ECN_PKTS" "$W5_DUR"
