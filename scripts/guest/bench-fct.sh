#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The flow completion time part of `make bench`, inside the VM: short
# flows against load, afq against pfifo, sfq, fq_codel and fq.
#
# Two senders open TCP flows (cubic) to the receiver as a Poisson process
# (tools/testing/lib/fctload.py), each offering half of LOAD (30 to 90% of
# the switch port's BENCH_FCT_MBIT, 20 Mbit/s) for BENCH_FCT_SECONDS (15);
# sizes from the thesis's synthetic heavy-tailed mix (Pareto shape 1.1,
# mean 30 KB, cut at 3 MB) or DCTCP's web search (BENCH_FCT_WORKLOADS).
# The port is tbf at that rate over the qdisc under test, every qdisc with
# the same 64-packet buffer.  Reports mean and p99 completion time of the
# short flows (< 100 KB) and the mean of all, as a table and as SVG plots
# (p99 and mean of the short flows against load) in the output directory.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"

MBIT=${BENCH_FCT_MBIT:-20}
SECONDS_RUN=${BENCH_FCT_SECONDS:-15}
LOADS=${BENCH_FCT_LOADS:-30 50 70 90}
WORKLOADS=${BENCH_FCT_WORKLOADS:-pareto websearch}
DIR=${VM_OUT:-/tmp}/bench-fct
LOAD_PY=$TREE/tools/testing/lib/fctload.py
QDISCS=("pfifo=pfifo limit 64" "sfq=sfq limit 64" "fq_codel=fq_codel limit 64"
	"fq=fq limit 64 flow_limit 64 nopacing" "afq=afq limit 64")
[ -n "${BENCH_FCT_QDISCS:-}" ] && IFS=';' read -r -a QDISCS <<<"$BENCH_FCT_QDISCS"
mkdir -p "$DIR"

topo_modules sch_afq
modprobe -a sch_fq_codel sch_fq sch_sfq sch_tbf || topo_die "cannot load the in-tree qdiscs"
topo_init bfct
topo_build 2 >/dev/null
ip netns exec "$TOPO_RX" python3 "$LOAD_PY" serve --ready "$DIR/serve.ready" &
TOPO_PIDS+=($!)
for _ in $(seq 1 100); do
	[ -e "$DIR/serve.ready" ] && break
	topo_nap 0.1
done
[ -e "$DIR/serve.ready" ] || topo_die "the flow server did not start"

: >"$DIR/runs"
for w in $WORKLOADS; do
	for load in $LOADS; do
		for q in "${QDISCS[@]}"; do
			label=${q%%=*}
			echo "fct: $w, load $load%, $label" >&2
			# shellcheck disable=SC2086	# the spec is a word list
			ip netns exec "$TOPO_SW" tc qdisc replace dev r0 root handle 1: \
				tbf rate "${MBIT}mbit" burst 20k limit 10m &&
				ip netns exec "$TOPO_SW" tc qdisc add dev r0 parent 1:1 ${q#*=} ||
				topo_die "cannot set up ${q#*=}"
			pids=()
			for i in 1 2; do
				ip netns exec "$(topo_sender_ns "$i")" python3 "$LOAD_PY" load \
					--dst 10.200.0.1 --link-bps "$((MBIT * 1000000))" \
					--load "$(awk -v l="$load" 'BEGIN { print l / 200 }')" \
					--seconds "$SECONDS_RUN" --workload "$w" --seed "$((load * 10 + i))" \
					--json "$DIR/$w-$load-$label-$i.json" 2>>"$DIR/load.log" &
				pids+=($!)
			done
			wait "${pids[@]}"
			echo "$w $load $label" >>"$DIR/runs"
			ip netns exec "$TOPO_SW" tc qdisc del dev r0 root
		done
	done
done

python3 "$TREE/scripts/lib/bench_fct_report.py" "$DIR" "$MBIT" "$SECONDS_RUN" "$TREE/tools/testing/lib"
