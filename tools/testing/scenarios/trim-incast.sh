#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trim-incast: N senders blast Shoal DATA packets at one receiver through a
# 100 Mbit/s switch port (tbf) with a 12-packet queue.  Links use jumbo
# frames (8000-byte payloads): under QEMU TCG a sender makes only a few
# thousand packets per second whatever their size, too few to overload
# 100 Mbit/s with 1 KB packets, while 8 KB ones load it many times over.
# Senders are paced to a fixed aggregate (about 4 times the link): what
# saturated vCPUs starve is the link's own timer and softirq, and a switch
# port that stops sending is not what this test is about.  With `trim` as the
# queue, nothing may disappear: every packet arrives whole or as a valid,
# marked header, and the qdisc's counters agree with what the receiver saw.
# The same traffic through `pfifo limit 12` shows the loss trimming avoids.
#
# usage: trim-incast.sh [-n "2 8 16"] [-f "4 6"] [-c COUNT] [-s SIZE] [-r RATE]
#                       [-a AGGREGATE_PPS]
# Results: ${OUT:-/tmp}/trim-incast.json, raw files in ${OUT:-/tmp}/trim-incast.d/
# shellcheck source-path=SCRIPTDIR
# Counters arrive by eval (topo_collect, topo_qstats):
# shellcheck disable=SC2154
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

SENDERS="2 8 16"
FAMILIES="4 6"
COUNT=300		# packets per sender
SIZE=8000		# payload bytes after the Shoal header
RATE=100mbit
AGG_PPS=6000		# all senders together; the link carries ~1500 frames/s
TBF_LIMIT=1000000	# never reached: with a child, tbf queues nothing itself
QLEN=12
TOPO_MTU=9000

while getopts "n:f:c:s:r:a:h" opt; do
	case $opt in
	n) SENDERS=$OPTARG ;;
	f) FAMILIES=$OPTARG ;;
	c) COUNT=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	r) RATE=$OPTARG ;;
	a) AGG_PPS=$OPTARG ;;
	*) echo "usage: $0 [-n \"2 8 16\"] [-f \"4 6\"] [-c COUNT] [-s SIZE] [-r RATE] [-a PPS]"
	   exit 2 ;;
	esac
done
# tbf is only the link: a burst of 2 frames (tbf drops a frame above it)
BURST=$((2 * (SIZE + 32 + 8 + 40 + 14)))
((SIZE + 32 + 8 + 40 > TOPO_MTU)) && topo_die "-s $SIZE does not fit the MTU $TOPO_MTU"

OUTDIR=${OUT:-/tmp}
RESULTS=$OUTDIR/trim-incast.json
RAW=$OUTDIR/trim-incast.d
mkdir -p "$RAW" || topo_die "cannot write $RAW"

topo_modules
topo_init incast
max=0
for n in $SENDERS; do
	((n > max)) && max=$n
done
topo_build "$max"

CASES=()

# run_case TAG N FAMILY CHILD...: one incast through tbf + CHILD; leaves
# the blast/sink/qdisc numbers in the shell (see topo_collect, topo_qstats).
run_case()
{
	local tag=$1 n=$2 fam=$3 expect=()

	shift 3
	if ! topo_link_qdisc "$RATE" "$BURST" "$TBF_LIMIT" "$@"; then
		tap_ok 0 "$tag: qdisc setup ($*)"
		return 1
	fi
	# trim loses nothing: stop as soon as everything is in
	[ "$1" = trim ] && expect=(--expect $((n * COUNT)))
	# bursts of 4 back to back: the microbursts of an incast
	topo_run "$RAW/$tag" "$n" "$fam" --idle 1500 --timeout 120 "${expect[@]}" -- \
		--count "$COUNT" --size "$SIZE" --rate $((AGG_PPS / n)) --burst 4
	topo_link_qdisc_del
	return 0
}

# pct PART WHOLE: "12.3%"
pct()
{
	local t=$((1000 * $1 / ($2 > 0 ? $2 : 1)))

	echo "$((t / 10)).$((t % 10))%"
}

for fam in $FAMILIES; do
	for n in $SENDERS; do
		total=$((n * COUNT))

		# ---- trim ----
		tag="v$fam-n$n-trim"
		t0=$SECONDS
		run_case "$tag" "$n" "$fam" trim limit "$QLEN" || continue
		echo "# $tag: sent $sent, whole $s_whole, trimmed $s_trimmed, malformed $s_malformed" \
			"$reasons; qdisc trim_arrival $child_trim_arrival trim_tail $child_trim_tail" \
			"data_deq $child_data_deq hdr_drop $child_hdr_drop; start skew $((skew_us / 1000)) ms;" \
			"softnet drops $softnet;" \
			"$((SECONDS - t0)) s"
		tap_ok "sent == total && send_errors == 0" "$tag: every sender sent all ($sent of $total)"
		tap_ok "s_distinct == sent && s_total == sent" \
			"$tag: received == sent ($s_distinct distinct, $s_total total, $sent sent)"
		tap_ok "s_malformed == 0" "$tag: malformed == 0 ($s_malformed $reasons)"
		tap_ok "s_trimmed_unmarked == 0" "$tag: trimmed_unmarked == 0 ($s_trimmed_unmarked)"
		tap_ok "s_duplicates == 0" "$tag: duplicates == 0 ($s_duplicates)"
		tap_ok "per_sender_bad == 0" "$tag: per sender, whole + trimmed == sent ($per_sender_bad senders off)"
		tap_ok "s_trimmed > 0" "$tag: congestion happened: trimmed > 0 ($s_trimmed)"
		tap_ok "child_trim_arrival + child_trim_tail == s_trimmed" \
			"$tag: xstats trim_arrival + trim_tail == receiver trimmed ($child_trim_arrival + $child_trim_tail vs $s_trimmed)"
		tap_ok "child_data_deq == s_whole" \
			"$tag: xstats data_deq == receiver whole ($child_data_deq vs $s_whole)"
		tap_ok "child_hdr_drop == 0 && child_trim_err == 0 && child_bounced == 0" \
			"$tag: no header lost (hdr_drop $child_hdr_drop, trim_err $child_trim_err, bounced $child_bounced)"
		tap_ok "tbf_drops == 0" "$tag: tbf drops nothing ($tbf_drops)"
		tap_ok "s_capture_drops == 0" "$tag: capture complete (capture_drops $s_capture_drops)"
		trim_whole=$s_whole trim_trimmed=$s_trimmed trim_sent=$sent
		trim_lost=$((sent - s_distinct))
		trim_dhw=$d_whole_p50 trim_dht=$d_trim_p50

		# ---- the same traffic through a plain 12-packet FIFO ----
		tag="v$fam-n$n-pfifo"
		t0=$SECONDS
		run_case "$tag" "$n" "$fam" pfifo limit "$QLEN" || continue
		lost=$((sent - s_whole))
		echo "# $tag: sent $sent, received $s_whole, lost $lost; pfifo drops $child_drops;" \
			"start skew $((skew_us / 1000)) ms; softnet drops $softnet; $((SECONDS - t0)) s"
		tap_ok "sent == total" "$tag: every sender sent all ($sent of $total)"
		tap_ok "s_malformed == 0 && s_trimmed == 0 && s_trimmed_unmarked == 0 && s_duplicates == 0" \
			"$tag: only whole, valid packets arrive"
		tap_ok "lost > 0" "$tag: drop-tail loses packets ($lost)"
		tap_ok "child_drops == lost && tbf_drops == child_drops" \
			"$tag: every loss is a pfifo drop (pfifo $child_drops, tbf $tbf_drops, lost $lost)"
		echo "# N=$n IPv$fam: pfifo lost $(pct "$lost" "$sent") of packets," \
			"trim lost $(pct "$trim_lost" "$trim_sent")" \
			"($(pct "$trim_trimmed" "$trim_sent") arrived as headers)"
		CASES+=("{\"family\": $fam, \"senders\": $n, \"count\": $COUNT, \"size\": $SIZE,
  \"trim\": {\"sent\": $trim_sent, \"whole\": $trim_whole, \"trimmed\": $trim_trimmed, \"lost\": $trim_lost,
           \"delay_p50_us\": {\"whole\": $trim_dhw, \"trimmed\": $trim_dht}},
  \"pfifo\": {\"sent\": $sent, \"received\": $s_whole, \"lost\": $lost}}")
	done
done

topo_write_results "$RESULTS" "\"scenario\": \"trim-incast\", \"rate\": \"$RATE\", \"limit\": $QLEN"
tap_done
