#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-packet cost part of `make bench`, inside the VM: the qdisc's own
# cost, against the number of concurrent flows (K = 1 .. 10000,
# BENCH_FLOWS_COUNTS).  pktgen, in the kernel, sends BENCH_FLOWS_PACKETS
# UDP frames with 64-byte payloads through dev_queue_xmit to a dummy
# device that frees them, its source port stepping round robin over K
# ports, so nothing but the allocation of the skb, the qdisc and the
# dummy's free is on the path: the qdisc is a fifth to a third of it, where
# through sockets and a forwarding netns it was lost in the noise.  Twice:
# queued (under a tbf that never limits, every packet enqueued and
# dequeued) and at the root (where a qdisc that allows it lets a packet
# that finds it empty go straight to the device).  Each qdisc's rate is a
# ratio to pfifo's (no per-flow state) and to fq_codel's at the same K in
# the same round, median over BENCH_FLOWS_ROUNDS (9) interleaved rounds.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../lib/pktgen.sh
source "$TREE/scripts/lib/pktgen.sh"

ROUNDS=${BENCH_FLOWS_ROUNDS:-9}
PACKETS=${BENCH_FLOWS_PACKETS:-100000}
COUNTS=${BENCH_FLOWS_COUNTS:-1 100 10000}
DIR=${VM_OUT:-/tmp}/bench-flows
DEV=pgdum0
FAST="tbf rate 10gbit burst 1m limit 10m"
# "label=spec" entries; BENCH_FLOWS_QDISCS replaces them (";"-separated)
QDISCS=("pfifo=pfifo limit 10000" "fq_codel=fq_codel" "sfq=sfq" "fq=fq"
	"afq=afq limit 10000" "calq=calq limit 10000 rank fq horizon clamp")
[ -n "${BENCH_FLOWS_QDISCS:-}" ] && IFS=';' read -r -a QDISCS <<<"$BENCH_FLOWS_QDISCS"
mkdir -p "$DIR"

topo_modules sch_afq sch_calq
modprobe -a sch_fq_codel sch_fq sch_sfq sch_tbf || topo_die "cannot load the in-tree qdiscs"
pktgen_setup "$DEV" "$PACKETS"

# measure K PLACE LABEL QDISC...: one run, appends "LABEL PLACE K pps round"
measure()
{
	local k=$1 place=$2 label=$3 pps sent

	shift 3
	tc qdisc del dev "$DEV" root 2>/dev/null
	if [ "$place" = queued ]; then
		# shellcheck disable=SC2086	# the spec is a word list
		tc qdisc add dev "$DEV" root handle 1: $FAST &&
			tc qdisc add dev "$DEV" parent 1:1 "$@"
	else
		tc qdisc add dev "$DEV" root "$@"
	fi || topo_die "cannot set up $*"
	pps=$(pktgen_run "$DEV" "$k")
	sent=$(tc -s -j qdisc show dev "$DEV" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["packets"])')
	# a run whose packets did not all leave measured something else
	[ "${pps:-0}" -gt 0 ] && [ "$sent" -ge "$PACKETS" ] ||
		topo_die "$label $place K=$k: ${pps:-no} pps, $sent of $PACKETS sent"
	echo "$label $place $k $pps $r" >>"$DIR/samples"
}

: >"$DIR/samples"
for r in $(seq 1 "$ROUNDS"); do
	echo "per-packet cost round $r of $ROUNDS" >&2
	for k in $COUNTS; do
		for place in queued root; do
			for ((i = 0; i < ${#QDISCS[@]}; i++)); do
				q=${QDISCS[(i + r) % ${#QDISCS[@]}]}
				# shellcheck disable=SC2086	# the spec is a word list
				measure "$k" "$place" "${q%%=*}" ${q#*=}
			done
		done
	done
done
pktgen_done "$DEV"

python3 "$TREE/scripts/lib/bench_flows_report.py" "$DIR/samples" "$PACKETS" "$ROUNDS"
echo "Raw results: $DIR/samples"
