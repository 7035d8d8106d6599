#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calq-pace: a host sends three UDP flows (2, 4 and 8 Mbit/s) in bursts of
# 25 packets, each packet stamped with its departure time on the flow's
# schedule (SO_TXTIME, CLOCK_MONOTONIC, up to 100 ms ahead).  A physical,
# non-work-conserving calq on the host's interface, ranking by that time
# (EDT), must pace every flow to within 5% of its rate and keep it steady:
# most windows of 20 consecutive packets arrive within 10% of that rate.
# The same traffic through pfifo arrives in bursts: almost no window is.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

SECS=4
RATES=(250 500 1000)	# packets of 1000 bytes per second
CASES=()

topo_modules sch_calq
topo_init calqpace
topo_build 1 >/dev/null
host() { ip netns exec "$(topo_sender_ns 1)" "$@"; }

# run NAME QDISC...: the flows through QDISC on the sender's eth0; sets
# rate_i (percent of the flow's rate), steady_i (percent of its windows
# near its rate) and p10_i (10th percentile gap, percent of the ideal
# gap) for i = 1..3
run()
{
	local name=$1 dir t0 i pids=()

	shift
	dir=${OUT:-$TOPO_TMP}/calq-pace.d/$name
	mkdir -p "$dir"
	host tc qdisc del dev eth0 root 2>/dev/null
	host tc qdisc add dev eth0 root handle 1: "$@" || topo_die "qdisc $*"
	topo_sink "$dir/sink.json" -4 --idle 1500
	t0=$(awk '{ printf "%.2f", $1 + 2 }' /proc/uptime)
	for i in 1 2 3; do
		host "$BLAST" --dst 10.200.0.1 --id "$i" --size 1000 \
			--rate "${RATES[i - 1]}" --burst 25 --txtime-lead 100000 \
			--count $((RATES[i - 1] * SECS)) --start-at "$t0" 2>"$dir/blast-$i.log" &
		pids+=($!)
	done
	TOPO_PIDS+=("${pids[@]}")
	for i in "${pids[@]}"; do
		wait "$i" || topo_log "$name: a sender failed"
	done
	topo_sink_wait || topo_log "$name: shoal-sink failed"
	host tc -s qdisc show dev eth0 >"$dir/qdisc.txt"
	eval "$(python3 "$HERE/../lib/calq_pace_check.py" "$dir/sink.json" "${RATES[@]}")"
	topo_log "$name: rate vs target $rate_1% $rate_2% $rate_3%;" \
		"steady windows $steady_1% $steady_2% $steady_3%;" \
		"10th percentile gap vs ideal $p10_1% $p10_2% $p10_3%"
	CASES+=("{\"case\": \"$name\", \"rate_pct\": [$rate_1, $rate_2, $rate_3], \"steady_pct\": [$steady_1, $steady_2, $steady_3], \"gap_p10_pct\": [$p10_1, $p10_2, $p10_3]}")
}

run fifo pfifo limit 10000
for i in 1 2 3; do
	w=steady_$i
	tap_ok "${!w} >= 0 && ${!w} <= 25" \
		"fifo: flow $i arrives in bursts (${!w}% of its 20-packet windows within 10% of its rate, <= 25%)"
done

run calq calq mode physical nwc rank tstamp interval 100us buckets 4096 limit 10000
for i in 1 2 3; do
	r=rate_$i w=steady_$i n=n_$i
	tap_ok "${!n} == RATES[i - 1] * SECS" "calq: flow $i delivered every packet (${!n})"
	tap_ok "${!r} >= 95 && ${!r} <= 105" \
		"calq: flow $i paced to ${!r}% of its ${RATES[i - 1]} packets/s (within 5%)"
	tap_ok "${!w} >= 70" \
		"calq: flow $i is steady (${!w}% of its 20-packet windows within 10% of its rate, >= 70%)"
done

topo_write_results "${OUT:-$TOPO_TMP}/calq-pace.json" \
	"\"rates_pps\": [${RATES[0]}, ${RATES[1]}, ${RATES[2]}], \"seconds\": $SECS"
tap_done
