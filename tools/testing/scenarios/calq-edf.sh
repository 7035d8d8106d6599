#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calq-edf: three senders share a 5 Mbit/s port at 85% load with mixed
# deadlines: steady packets due in 20 ms, bursts of 10 due in 60 ms and
# bursts of 30 due in 300 ms.  Behind a burst, a FIFO makes the 20 ms
# packets late.  Through a physical calq ranking by deadline (EDF, 1 ms
# days) the same traffic must leave in deadline order to within one day
# (plus the packet already on the wire) and meet its deadlines; the LSTF
# variant (slack in the header, rewritten by the queue) must do the same
# and keep every checksum right.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

SECS=5
DAY_US=1000
WIRE_US=1800		# a 1000-byte packet at 5 Mbit/s
CASES=()

topo_modules sch_calq
topo_init calqedf
topo_build 3 >/dev/null

# run NAME DLMODE QDISC...: the three senders through r0; sets the sink's
# deadline counters: pkts miss inversions, miss1 (20 ms class)
run()
{
	local name=$1 mode=$2 dir t0 i pids=() opt
	local -a rate=(100 100 300) burst=(1 10 30) due=(20000 60000 300000)

	shift 2
	dir=${OUT:-$TOPO_TMP}/calq-edf.d/$name
	mkdir -p "$dir"
	topo_link_qdisc 5mbit 3k 1m "$@" || topo_die "qdisc $*"
	topo_sink "$dir/sink.json" -4 --deadline "$mode" --idle 1500 \
		--order-tol $((DAY_US + WIRE_US))
	t0=$(awk '{ printf "%.2f", $1 + 2 }' /proc/uptime)
	opt=--deadline-in
	[ "$mode" = slack ] && opt=--slack
	for i in 0 1 2; do
		ip netns exec "$(topo_sender_ns $((i + 1)))" "$BLAST" --dst 10.200.0.1 \
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
	topo_qdisc_save "$dir/qdisc.json"
	eval "$(python3 - "$dir/sink.json" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    d = s["deadline"]
    print("pkts=%d miss=%d inv=%d inv_max_us=%.0f" % (d["pkts"], d["miss"], d["inversions"], d["inversion_max_us"]))
    print("miss1=%d pkts1=%d" % (s["per_sender"]["1"]["deadline"]["miss"], s["per_sender"]["1"]["deadline"]["pkts"]))
    print("malformed=%d whole=%d" % (s["malformed"], s["whole"]))
except (OSError, ValueError, KeyError) as e:
    print("# %s" % e)
    print("pkts=0 miss=-1 inv=-1 inv_max_us=-1 miss1=-1 pkts1=0 malformed=-1 whole=0")
PY
)"
	eval "$(topo_qstats)"
	topo_log "$name: $pkts packets, $miss late ($miss1 of $pkts1 due in 20 ms)," \
		"$inv out of deadline order by more than a day (worst $inv_max_us us)," \
		"$malformed malformed"
	CASES+=("{\"case\": \"$name\", \"pkts\": $pkts, \"late\": $miss, \"late_5ms\": $miss1, \"inversions\": $inv, \"inversion_max_us\": $inv_max_us}")
}

expected=$((SECS * 500))

run fifo abs pfifo limit 1000
fifo_miss1=$miss1
tap_ok "pkts == expected" "fifo: every packet arrived ($pkts of $expected)"
tap_ok "miss1 * 10 >= pkts1" \
	"fifo: packets due in 20 ms wait behind bursts and miss ($miss1 of $pkts1, >= 10%)"

fifo_inv=$inv
run edf abs calq mode physical interval 1ms buckets 512 rank deadline limit 1000
tap_ok "pkts == expected && malformed == 0" "edf: every packet arrived intact ($pkts of $expected)"
tap_ok "miss * 100 <= pkts" "edf: deadlines met at the same load ($miss of $pkts late, <= 1%; fifo had $fifo_miss1)"
# the sink takes a packet's send time from its stamp: a sender that the
# guest stalls after stamping shows up as inversions (2 to 80 of 2500 in
# our runs), and overdue packets leave in arrival order
tap_ok "inv * 20 <= pkts && inv * 3 <= fifo_inv" \
	"edf: deadline order kept to within one day ($inv of $pkts inverted beyond $((DAY_US + WIRE_US)) us: <= 5%, and <= 1/3 of fifo's $fifo_inv)"
tap_ok "child_deadline_misses >= 0 && child_deadline_misses * 100 <= pkts" \
	"edf: the qdisc counts $child_deadline_misses deadline misses at dequeue"

run lstf slack calq mode physical interval 1ms buckets 512 rank slack limit 1000
tap_ok "pkts == expected && malformed == 0" \
	"lstf: every packet arrived with valid checksums after the slack rewrite ($pkts of $expected)"
tap_ok "child_slack_rewrites >= expected" "lstf: the queue rewrote the slack of every packet ($child_slack_rewrites)"
tap_ok "miss * 100 <= pkts" "lstf: deadlines met ($miss of $pkts late by the remaining slack)"
# the sink rebuilds an LSTF deadline as arrival + slack left; the time a
# packet spent outside the queue (sender, forwarding) is in that error
tap_ok "inv * 20 <= pkts" \
	"lstf: deadline order kept to within one day ($inv of $pkts inverted, <= 5%: the slack carries the path's own delays)"

topo_write_results "${OUT:-$TOPO_TMP}/calq-edf.json" \
	"\"link\": \"5mbit\", \"day_us\": $DAY_US, \"seconds\": $SECS"
tap_done
