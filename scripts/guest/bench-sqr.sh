#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sqr part of `make bench`, inside the VM.
#
# Packets per second: pktgen sends BENCH_SQR_PACKETS UDP frames through
# the root qdisc of a dummy device (see pktgen.sh): pfifo, sqr keeping no
# copies, and sqr copying every packet for 1 ms and for 10 ms into its
# ring buffer, for 1 ms as clones (copy_max 0), and for 1 ms without the
# carrier poll's timer (detect notifier): what that timer costs.  Each rate
# as a ratio to pfifo's in the same round, median of BENCH_SQR_ROUNDS
# interleaved rounds.  Goal: sqr copying everything at 0.8x pfifo or more.
#
# Memory: at pktgen's full rate, the copies held at peak and the memory
# they keep (the ring buffer they fill: frame and 48-byte record each)
# against hold, with the rate x hold the model expects; then at a rate
# 10x lower (pktgen's delay), the same.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../lib/pktgen.sh
source "$TREE/scripts/lib/pktgen.sh"

ROUNDS=${BENCH_SQR_ROUNDS:-9}
PACKETS=${BENCH_SQR_PACKETS:-100000}
DIR=${VM_OUT:-/tmp}/bench-sqr
DEV=sqrdum0
CONFIGS=("pfifo=pfifo limit 10000" "sqr-0=sqr hold 0"
	"sqr-1ms=sqr hold 1ms" "sqr-10ms=sqr hold 10ms ring_pkts 100000 ring_bytes 64mb"
	"sqr-1ms-clones=sqr hold 1ms copy_max 0"
	"sqr-1ms-nopoll=sqr hold 1ms detect notifier")
mkdir -p "$DIR"

topo_modules sch_sqr
pktgen_setup "$DEV" "$PACKETS"

# counters of the root qdisc as NAME=VALUE lines
counters()
{
	tc -s -j qdisc show dev "$DEV" | python3 "$TREE/scripts/lib/root_counters.py"
}

: >"$DIR/samples"
for r in $(seq 1 "$ROUNDS"); do
	echo "sqr round $r of $ROUNDS" >&2
	for ((i = 0; i < ${#CONFIGS[@]}; i++)); do
		c=${CONFIGS[(i + r) % ${#CONFIGS[@]}]}
		# a run that a signal cut short (pktgen stops then, and gives
		# no rate) is run again on a fresh qdisc, twice at most
		for try in 1 2 3; do
			tc qdisc del dev "$DEV" root 2>/dev/null
			# shellcheck disable=SC2086	# the spec is a word list
			tc qdisc add dev "$DEV" root handle 1: ${c#*=} ||
				topo_die "cannot set up ${c#*=}"
			pps=$(pktgen_run "$DEV" 1)
			eval "$(counters)"
			[ "${pps:-0}" -gt 0 ] && [ "$packets" -ge "$PACKETS" ] && break
			echo "${c%%=*}: ${pps:-no} pps, $packets of $PACKETS sent (try $try)" >&2
		done
		[ "${pps:-0}" -gt 0 ] && [ "$packets" -ge "$PACKETS" ] ||
			topo_die "${c%%=*}: ${pps:-no} pps, $packets of $PACKETS sent"
		echo "${c%%=*} $pps $r" >>"$DIR/samples"
	done
done

# memory held against hold, at pktgen's full rate and at a tenth of it
: >"$DIR/memory"
full=$(python3 "$TREE/scripts/lib/sqr_1ms_rate.py" "$DIR/samples")
for delay in 0 $((10 * 1000000000 / full)); do
	pktgen_cmd "$DEV" "delay $delay"
	for hold in 100us 1ms 10ms 50ms; do
		tc qdisc del dev "$DEV" root 2>/dev/null
		tc qdisc add dev "$DEV" root handle 1: sqr hold "$hold" poll 50us \
			ring_pkts 1000000 ring_bytes 64mb || topo_die "sqr hold $hold"
		pps=$(pktgen_run "$DEV" 1)
		eval "$(counters)"
		echo "$hold $pps $ring_peak_pkts $ring_peak_bytes $ring_peak_mem $cached" >>"$DIR/memory"
	done
done
pktgen_cmd "$DEV" "delay 0"
pktgen_done "$DEV"

python3 "$TREE/scripts/lib/bench_sqr_report.py" "$DIR/samples" "$DIR/memory" "$PACKETS" "$ROUNDS"
echo "Raw results: $DIR/samples $DIR/memory"
