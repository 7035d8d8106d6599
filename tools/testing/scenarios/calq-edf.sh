#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calq-edf: three senders share a 5 Mbit/s port at 85% load with mixed
# deadlines: steady packets due in 20 ms, bursts of 10 due in 60 ms and
# bursts of 30 due in 300 ms.  Behind a burst, a FIFO makes the 20 ms
# packets late.  Through a physical calq ranking by deadline (EDF, 1 ms
# days) the same traffic must leave in deadline order to within one day
# (plus a packet's wire time) and meet its deadlines; the LSTF variant
# (slack in the header, rewritten by the queue) must do the same and keep
# every checksum right.
#
# Deadline order is measured at the router (tools/testing/lib/edf_order.py):
# a packet A is an inversion when a packet B due more than a day plus a
# wire time before it had reached the router before A left and left after
# A.  The capture sees arrivals and departures in the order they happened
# only if the router works on one CPU, so the senders are pinned to CPU 0:
# veth delivers on the sending CPU, and tbf's watchdog fires where it was
# armed.  (Timestamps instead of the queue's order miscount a few: the
# kernel stamps an arrival when the sender's veth queues it, not when the
# router takes it.)  calq keeps FIFO order within a day, so it must show
# 0 such inversions, also among overdue packets (ordered by deadline).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
ORDER_PY=$HERE/../lib/edf_order.py

SECS=5
DAY_US=1000
WIRE_US=1800		# a 1000-byte packet at 5 Mbit/s
CASES=()

topo_modules sch_calq
topo_init calqedf
topo_build 3 >/dev/null

# order_start DIR MODE: edf_order.py in the router, on CPU 1 (away from
# the router's work); returns once it captures.  It reads what it captured
# once DIR/order.stop exists.
order_start()
{
	local i

	rm -f "$1/order.json" "$1/order.ready" "$1/order.stop"
	ip netns exec "$TOPO_SW" taskset -c 1 python3 "$ORDER_PY" --egress r0 \
		--mode "$2" --tol-us $((DAY_US + WIRE_US)) --timeout 120 \
		--json "$1/order.json" --raw "$1/order.txt" --ready "$1/order.ready" --stop "$1/order.stop" \
		2>"$1/order.log" &
	ORDER_PID=$!
	TOPO_PIDS+=("$ORDER_PID")
	for ((i = 0; i < 1200; i++)); do
		[ -e "$1/order.ready" ] && return 0
		kill -0 "$ORDER_PID" 2>/dev/null || break
		topo_nap 0.05
	done
	topo_die "edf_order.py did not start"
}

# run NAME DLMODE QDISC...: the three senders through r0; sets the sink's
# deadline counters (pkts, miss, miss1 of the 20 ms class) and the
# router's (r_pkts, inv, inv_max_us, ...: see edf_order.py)
run()
{
	local name=$1 mode=$2 dir t0 i pids=() opt
	local -a rate=(100 100 300) burst=(1 10 30) due=(20000 60000 300000)

	shift 2
	dir=${OUT:-$TOPO_TMP}/calq-edf.d/$name
	mkdir -p "$dir"
	topo_link_qdisc 5mbit 3k 1m "$@" || topo_die "qdisc $*"
	# it stops 3 s after the last packet: a loaded host stalls the guest
	# for more than a second at times, with packets still queued
	topo_sink "$dir/sink.json" -4 --deadline "$mode" --idle 3000
	order_start "$dir" "$mode"
	t0=$(awk '{ printf "%.2f", $1 + 2 }' /proc/uptime)
	opt=--deadline-in
	[ "$mode" = slack ] && opt=--slack
	for i in 0 1 2; do
		# CPU 0: the router's softirq work happens where they send
		ip netns exec "$(topo_sender_ns $((i + 1)))" taskset -c 0 "$BLAST" --dst 10.200.0.1 \
			--id $((i + 1)) --size 1000 --rate "${rate[i]}" --burst "${burst[i]}" \
			--count $((rate[i] * SECS)) "$opt" "${due[i]}" --start-at "$t0" \
			2>"$dir/blast-$i.log" &
		pids+=($!)
	done
	TOPO_PIDS+=("${pids[@]}")
	for i in "${pids[@]}"; do
		wait "$i" || topo_log "$name: a sender failed"
	done
	topo_sink_wait || topo_log "$name: shoal-sink failed"
	: >"$dir/order.stop"
	wait "$ORDER_PID" || topo_log "$name: edf_order.py failed"
	topo_qdisc_save "$dir/qdisc.json"
	eval "$(python3 "$HERE/../lib/calq_edf_check.py" "$dir/sink.json" "$dir/order.json")"
	eval "$(topo_qstats)"
	topo_log "$name: $pkts packets, $miss late ($miss1 of $pkts1 due in 20 ms)," \
		"$malformed malformed"
	topo_log "$name: at the router $r_pkts packets ($r_unmatched unmatched, $r_dups dups," \
		"$r_drops capture drops), $inv out of deadline order by more than" \
		"$((DAY_US + WIRE_US)) us (worst $inv_max_us us; by sender $inv_per;" \
		"$inv_ts by timestamps, at most $inv_most with deadlines known to" \
		"$dl_spread_us us, median $dl_spread_p50_us us), $late_in arrived late, $late_out left late," \
		"$inv_by_late inversions behind a late arrival"
	CASES+=("{\"case\": \"$name\", \"pkts\": $pkts, \"late\": $miss, \"late_20ms\": $miss1, \"router_pkts\": $r_pkts, \"inversions\": $inv, \"inversion_max_us\": $inv_max_us, \"inversions_by_timestamp\": $inv_ts, \"late_in\": $late_in, \"late_out\": $late_out}")
}

expected=$((SECS * 500))

# order_ok NAME: the router saw every packet arrive and leave, once each
order_ok()
{
	tap_ok "r_pkts == expected && r_unmatched == 0 && r_dups == 0 && r_drops == 0" \
		"$1: the router capture saw all $expected packets arrive and leave ($r_pkts;" \
		"$r_unmatched unmatched, $r_dups duplicates, $r_drops capture drops)"
}

run fifo abs pfifo limit 1000
fifo_miss1=$miss1
fifo_inv=$inv
tap_ok "pkts == expected" "fifo: every packet arrived ($pkts of $expected)"
tap_ok "miss1 * 10 >= pkts1" \
	"fifo: packets due in 20 ms wait behind bursts and miss ($miss1 of $pkts1, >= 10%)"
order_ok fifo
# the comparison: the same measure must see a FIFO serve out of order
tap_ok "inv * 10 >= r_pkts" \
	"fifo: $inv of $r_pkts packets leave before one due more than $((DAY_US + WIRE_US)) us earlier (>= 10%)"

run edf abs calq mode physical interval 1ms buckets 512 rank deadline limit 1000
tap_ok "pkts == expected && malformed == 0" "edf: every packet arrived intact ($pkts of $expected)"
tap_ok "miss * 100 <= pkts" "edf: deadlines met at the same load ($miss of $pkts late, <= 1%; fifo had $fifo_miss1)"
order_ok edf
tap_ok "inv == 0" \
	"edf: deadline order kept to within one day at the router ($inv of $r_pkts inverted by more than $((DAY_US + WIRE_US)) us; fifo $fifo_inv)"
tap_ok "child_deadline_misses >= 0 && child_deadline_misses * 100 <= pkts" \
	"edf: the qdisc counts $child_deadline_misses deadline misses at dequeue"

run lstf slack calq mode physical interval 1ms buckets 512 rank slack limit 1000
tap_ok "pkts == expected && malformed == 0" \
	"lstf: every packet arrived with valid checksums after the slack rewrite ($pkts of $expected)"
tap_ok "child_slack_rewrites >= expected" "lstf: the queue rewrote the slack of every packet ($child_slack_rewrites)"
tap_ok "miss * 100 <= pkts" "lstf: deadlines met ($miss of $pkts late by the remaining slack)"
order_ok lstf
# the deadline is what calq ranks by, its enqueue time plus the slack:
# known to lie between the arrival stamp plus the slack and the departure
# stamp plus the slack left calq wrote (a stopped vCPU widens the range);
# counted only when it is out of order wherever it lies in that range
tap_ok "inv == 0" \
	"lstf: slack order kept to within one day at the router ($inv of $r_pkts inverted by more than $((DAY_US + WIRE_US)) us)"

topo_write_results "${OUT:-$TOPO_TMP}/calq-edf.json" \
	"\"link\": \"5mbit\", \"day_us\": $DAY_US, \"wire_us\": $WIRE_US, \"seconds\": $SECS"
tap_done
