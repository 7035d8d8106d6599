#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AFQ's fabric experiment (issue 23, part 3), part of `make bench`, inside
# the VM: short flows' completion times on a two-tier fabric whose every
# switch port runs afq, against TCP cubic and DCTCP over drop-tail FIFOs
# and over fq_codel (the AFQ thesis: about 2x better than DCTCP, 10x better
# than TCP; Documentation/results/fabric.md).
#
# The fabric: 2 leaves of 2 hosts and 1 spine, every link at
# BENCH_FABAFQ_MBIT (2:1 oversubscribed).  Every host sends TCP flows to
# the host in its place on the other leaf (h1 -> h3, h3 -> h1, ...), a new
# connection a flow arriving as a Poisson process
# (tools/testing/lib/fctload.py), sizes from BENCH_FABAFQ_WORKLOADS, so the
# flows of two hosts meet in each leaf's uplink.  (Four hosts a leaf at 10
# Mbit/s asked the guest for 230 new connections a second through four
# shaped hops: a 3 KB flow took 450 ms from the start, with no queue.)  BENCH_FABAFQ_LOADS are
# the uplinks' loads in percent (each host offers half of it of its own
# link), BENCH_FABAFQ_SECONDS of arrivals a run.  Every switch port has
# the same 64-packet buffer; the configurations:
#
#   afq             afq limit 64, TCP cubic
#   cubic-droptail  a 64-packet byte FIFO (sch_trim with nothing eligible,
#                   so it counts its drops), TCP cubic
#   dctcp-droptail  the same FIFO marking CE above BENCH_FABAFQ_ECN
#                   packets, DCTCP
#   cubic-fq_codel  fq_codel limit 64, TCP cubic
#   dctcp-fq_codel  fq_codel limit 64 (its CE marks), DCTCP
#
# The report (scripts/lib/bench_fabric_afq_report.py): per workload, load
# and configuration the mean and p99 completion time of the short flows
# (under 100 KB) and the mean of all, afq's short-flow times against each
# other configuration's, and SVG plots.
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

MBIT=${BENCH_FABAFQ_MBIT:-5}
LOADS=${BENCH_FABAFQ_LOADS:-50 80 95}
SECONDS_RUN=${BENCH_FABAFQ_SECONDS:-12}
WORKLOADS=${BENCH_FABAFQ_WORKLOADS:-pareto}
ECN_PKTS=${BENCH_FABAFQ_ECN:-12}
CONFIGS=${BENCH_FABAFQ_CONFIGS:-afq cubic-droptail dctcp-droptail cubic-fq_codel dctcp-fq_codel}
LOAD_PY=$TREE/tools/testing/lib/fctload.py
DIR=${VM_OUT:-/tmp}/bench/fabric-afq
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=4 host_mbit="$MBIT" BENCH_FABAFQ_MBIT="$MBIT" \
	BENCH_FABAFQ_LOADS="$LOADS" BENCH_FABAFQ_SECONDS="$SECONDS_RUN" \
	BENCH_FABAFQ_WORKLOADS="$WORKLOADS" BENCH_FABAFQ_ECN="$ECN_PKTS" \
	BENCH_FABAFQ_CONFIGS="$CONFIGS"

modprobe -a tcp_dctcp sch_fq_codel || topo_die "modprobe tcp_dctcp sch_fq_codel"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"
fab_init fabafq

# port CONFIG: the qdisc every switch port runs
port()
{
	local fifo="trim limit 100000 limit_bytes $((64 * 1514)) ctrl_dscp none elig_dscp 63"

	case $1 in
	afq) echo "afq limit 64" ;;
	cubic-droptail) echo "$fifo" ;;
	dctcp-droptail) echo "$fifo ecn_thresh $((ECN_PKTS * 1514))" ;;
	*-fq_codel) echo "fq_codel limit 64" ;;
	*) topo_die "unknown configuration $1" ;;
	esac
}

# run WORKLOAD LOAD CONFIG: one run, its flows in DIR/WORKLOAD-LOAD-CONFIG-H.json
run()
{
	local w=$1 load=$2 c=$3 cc=cubic ecn=0 h peer pids=() srv=() q

	q=$(port "$c")
	[ "${c%%-*}" = dctcp ] && cc=dctcp ecn=1
	cat >"$DIR/fabric.fab" <<EOF
leaves 2
spines 1
hosts_per_leaf 2
host_link ${MBIT}mbit
fabric_link ${MBIT}mbit
qdisc leaf-down $q
qdisc leaf-up $q
qdisc spine-down $q
EOF
	fab_build "$DIR/fabric.fab"
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.ipv4.tcp_congestion_control="$cc" \
			net.ipv4.tcp_ecn=$ecn ||
			topo_die "sysctls of h$h"
		rm -f "$DIR/serve$h.ready"
		ip netns exec "$(fab_ns "$h")" python3 "$LOAD_PY" serve \
			--ready "$DIR/serve$h.ready" 2>>"$DIR/serve.log" &
		srv+=($!)
		TOPO_PIDS+=($!)
	done
	fab_ready "$DIR"/serve{1,2,3,4}.ready
	for ((h = 1; h <= fab_hosts; h++)); do
		peer=$(((h + 1) % 4 + 1))	# the host in h's place on the other leaf
		ip netns exec "$(fab_ns "$h")" python3 "$LOAD_PY" load --dst "$(fab_ip "$peer")" \
			--link-bps "$((MBIT * 1000000))" \
			--load "$(awk -v l="$load" 'BEGIN { print l / 200 }')" \
			--seconds "$SECONDS_RUN" --workload "$w" --seed "$((load * 10 + h))" \
			--json "$DIR/$w-$load-$c-$h.json" 2>>"$DIR/load.log" &
		pids+=($!)
	done
	wait "${pids[@]}"
	echo "$w $load $c" >>"$DIR/runs"
	fab_qdiscs >"$DIR/$w-$load-$c.qdiscs"
	kill "${srv[@]}" 2>/dev/null
	wait "${srv[@]}" 2>/dev/null
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

: >"$DIR/runs"
for w in $WORKLOADS; do
	for load in $LOADS; do
		for c in $CONFIGS; do
			echo "fabric-afq: $w, load $load%, $c" >&2
			run "$w" "$load" "$c"
		done
	done
done
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_afq_report.py" "$DIR" "$MBIT" \
	"$SECONDS_RUN"
