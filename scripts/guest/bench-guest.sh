#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, inside the VM (scripts/bench starts it): packets per second
# through one switch port with our qdisc and with the in-tree alternatives,
# in the same run, as ratios.  One sender blasts as fast as it can; the
# whole path (sender, switch forwarding, qdisc, veth) runs in its context,
# so its send rate is the rate of the path.  Each configuration runs
# BENCH_ROUNDS times, interleaved, and the median counts.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"

ROUNDS=${BENCH_ROUNDS:-5}
COUNT=${BENCH_COUNT:-20000}
DIR=${VM_OUT:-/tmp}/bench
mkdir -p "$DIR"

# BENCH_PARTS: the parts to run, as words (globs too: 'fabric*'), of pps
# flows fair fct sqr sqr-fct shoal shoal-trim pl2 pl2-host fabric
# fabric-ndp fabric-sqr fabric-afq fabric-pl2 fabric-sird; empty: all of
# them
part_wanted()
{
	local w

	[ -z "${BENCH_PARTS:-}" ] && return 0
	for w in $BENCH_PARTS; do
		# shellcheck disable=SC2053	# a glob is meant
		[[ $1 == $w ]] && return 0
	done
	return 1
}

# The parts in the order they run, each a bench-PART.sh but pps (below)
PARTS=(pps flows fair fct sqr sqr-fct shoal shoal-trim pl2 pl2-host fabric fabric-ndp fabric-sqr
	fabric-afq fabric-pl2 fabric-sird)
WANTED=()
for p in "${PARTS[@]}"; do
	part_wanted "$p" && WANTED+=("$p")
done
# each part's reports record their figures in $BENCH_RECORDS/PART.jsonl
# (scripts/lib/bench_record.py), and $DIR/parts gets "PART STATUS
# SECONDS" once it ends: scripts/bench makes results.json of them
export BENCH_RECORDS=$DIR/records
mkdir -p "$BENCH_RECORDS"
: >"$DIR/parts"

# run_part NAME: the part, if wanted, after a line that says how far the
# bench is and what is left (from BENCH_ESTIMATE, scripts/bench's
# estimates; scripts/bench shows "bench: " lines on the terminal and
# keeps them out of the report); the script's status is the last part's
# that ran
status=0
run_part()
{
	local t0

	part_wanted "$1" || return 0
	python3 "$TREE/scripts/lib/bench_results.py" progress "${BENCH_ESTIMATE:-}" \
		"$DIR/parts" "$1" "${WANTED[@]}"
	rm -f "$BENCH_RECORDS/$1.jsonl"
	t0=$(date +%s.%N)
	if [ "$1" = pps ]; then
		pps_part
	else
		"$TREE/scripts/guest/bench-$1.sh"
	fi
	status=$?
	echo "$1 $status $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
		>>"$DIR/parts"
}

topo_modules sch_trim sch_afq sch_calq
modprobe -a sch_fq_codel sch_fq sch_sfq
# the packets-per-second part (BENCH_PARTS word: pps)
pps_part()
{
	topo_init bench
	topo_build 1 >/dev/null

	# measure NAME SIZE ROOT [CHILD]: one run, appends "NAME pps delivered
	# trimmed".  QDISC is the root of the switch port, CHILD its child (tbf).
	measure()
	{
		local name=$1 size=$2 d=$DIR/run

		# shellcheck disable=SC2086	# the specs are word lists
		ip netns exec "$TOPO_SW" tc qdisc replace dev r0 root handle 1: $3 ||
			topo_die "cannot set up $3"
		# shellcheck disable=SC2086
		[ -z "${4:-}" ] || ip netns exec "$TOPO_SW" tc qdisc add dev r0 parent 1:1 $4 ||
			topo_die "cannot set up $4"
		topo_run "$d" 1 4 --idle 1000 --timeout 120 --expect "$COUNT" -- \
			--count "$COUNT" --size "$size" >/dev/null 2>&1
		echo "$name $(jget "$d/blast-1.json" pps) $((s_whole + s_trimmed)) $s_trimmed ${r:-0}" \
			>>"$DIR/samples"
		ip netns exec "$TOPO_SW" tc qdisc del dev r0 root
	}

	: >"$DIR/samples"
	# Trimming half the packets needs a link at about half the rate the sender
	# reaches through it; pfifo under the same tbf drops that half instead.
	# Calibrate: start from half the unshaped rate, then scale by the share of
	# packets that arrived whole, until about half do.
	measure probe 1000 "pfifo limit 10000"
	measure probe 1000 "pfifo limit 10000"
	half=$(tail -n 1 "$DIR/samples" | awk '{ printf "%d", $2 * (1000 + 32 + 8 + 20 + 14) * 8 / 2 }')
	for try in 1 2 3 4; do
		: >"$DIR/samples"
		measure probe 1000 "tbf rate ${half}bit burst 32k limit 1m" \
			"trim limit 12 hdr_limit 10000"
		whole=$(awk -v n="$COUNT" '{ printf "%.3f", ($3 - $4) / n }' "$DIR/samples")
		echo "calibration $try: link ${half}bit, $whole of the packets whole" >&2
		awk -v w="$whole" 'BEGIN { exit !(w > 0.35 && w < 0.65) }' && break
		half=$(awk -v h="$half" -v w="$whole" \
			'BEGIN { w = w < 0.05 ? 0.05 : w; printf "%d", h * 0.5 / w }')
	done
	: >"$DIR/samples"
	# One configuration per line: NAME SIZE ROOT [CHILD].  "Fast" puts the
	# qdisc under a tbf that never limits, so every packet takes the enqueue
	# and dequeue path (at the root, pfifo, fq_codel and trim let a packet that
	# finds them empty go straight to the device; afq does, and calq does with
	# a logical calendar, a rank that needs no clock and no horizon drop).
	link="tbf rate ${half}bit burst 32k limit 1m"
	fast="tbf rate 10gbit burst 1m limit 10m"
	CONFIGS=(
		"pfifo|64|pfifo limit 10000|"
		"fq_codel|64|fq_codel|"
		"trim|64|trim limit 10000|"
		"fast-pfifo|64|$fast|pfifo limit 10000"
		"fast-trim|64|$fast|trim limit 10000"
		"fq|64|fq|"
		"sfq|64|sfq|"
		"afq|64|afq limit 10000|"
		"calq|64|calq limit 10000 horizon clamp|"
		"calq-drop|64|calq limit 10000|"
		"fast-fq_codel|64|$fast|fq_codel"
		"fast-fq|64|$fast|fq"
		"fast-sfq|64|$fast|sfq"
		"fast-afq|64|$fast|afq limit 10000"
		"fast-calq|64|$fast|calq limit 10000"
		"tbf-pfifo|1000|$link|pfifo limit 12"
		"tbf-trim|1000|$link|trim limit 12 hdr_limit 10000"
	)
	# rotate the order every round: no configuration always runs first
	for r in $(seq 1 "$ROUNDS"); do
		echo "round $r of $ROUNDS" >&2
		for ((i = 0; i < ${#CONFIGS[@]}; i++)); do
			IFS='|' read -r name size root child <<<"${CONFIGS[(i + r) % ${#CONFIGS[@]}]}"
			measure "$name" "$size" "$root" "$child"
		done
	done

	python3 "$TREE/scripts/lib/bench_pps_report.py" "$DIR/samples" "$COUNT" "$ROUNDS" "$half"
}


# per-packet cost against the number of flows, fairness against the number
# of flows, flow completion times against load, then sqr: its cost and
# memory, and short flows across failures, then the Shoal transport
# against TCP cubic and DCTCP, over FIFOs and then over trimming and
# overloaded ports, then PL2 with its switch against cubic
# under an incast, then sch_pl2 making TCP and UDP PL2 senders against
# the same traffic without it, and its cost against pfifo, then the
# composed fabric against cubic and DCTCP over
# drop-tail ECMP, then trimming's fabric experiments (incasts, ping, three
# paths), then a leaf-spine cut with and without sqr, then short flows
# on a two-tier fabric of afq against TCP's, then PL2 against cubic under
# incasts across a fabric, then SIRD's configurations and ablations on
# one; each runs its own fabric
for p in "${PARTS[@]}"; do
	run_part "$p"
done
exit "$status"
