#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-sird-tx: SIRD's sender.  One host (sender 1) sends Shoal messages
# to two receiver hosts at once (the receiver, and sender 2's namespace
# acting as a second receiver) over an uplink of 8 Mbit/s (tbf with a
# trim child on its eth0, which counts its queue's peak).  Each receiver
# grants the host up to a BDP, so credit arrives faster than the uplink
# sends it.
#   1. Unpaced (net.shoal.sird_tx_rate_mbps 0): the credit is spent at
#      once and its data waits in the host's own uplink queue (tens of
#      packets; the receivers' resend interval is 100 ms here, since data
#      that waits there longer than two intervals is asked for again, on
#      top, and the queue then grows to thousands).
#   2. Paced at the uplink's rate: the data waits as credit in the sender,
#      the uplink queue stays within a few packets, the credit held
#      passes SThr, so DATA carries csn and both receivers' csn loops see
#      it (their alpha for this host rises above 0).
#   3. The sender's split, with a 200 KB message to one receiver and a
#      1 MB one to the other, the receivers' csn loops off (SThr 0) so
#      that their credit keeps coming: pure SRPT (sird_fair_permille 0)
#      finishes the short one in about 1/6 of the long one's time; all
#      fair turns (1000) in about 1/3.  Checked as a ratio between the two
#      runs, and the pacer's count of fair turns.  While SRPT makes one
#      receiver wait, the host never holds more credit than the two
#      receivers' buckets (a quiet message's credit is asked for again,
#      not given anew).
#   4. Idle: paced, with nothing else to send, a lone short message's
#      packet leaves from the socket at once (tx_direct), not from the
#      pacer's timer a timer's latency later: every packet the pacer
#      counts is one sent so.
# Every message arrives intact in every case.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PORT=7000
UPLINK=8		# Mbit/s: below what the pacer and receivers reach under load
# The uplink's tbf burst: 8 ms at UPLINK.  A TCG guest's timers fire
# milliseconds late, and a tbf sends at most its burst a firing: with a
# burst of 2 packets the link falls behind its rate while the pacer, set
# to that rate, makes up 1 ms a firing, and the queue then grows with the
# run's length instead of with the pacer's bursts (peaks 6-43 seen).
UPLINK_BURST=8000

topo_modules sch_trim
shoal_module
topo_init sirdtx
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build 2 >/dev/null
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
S=$(topo_sender_ns 1)
R2=$(topo_sender_ns 2)
R1ADDR=$(topo_rx_addr 4)
R2ADDR=$(topo_sender_addr 2 4)
S_IP=$(topo_sender_addr 1 4)

# the most credit the host held, sampled every 10 ms until the file $1 is
HELD_PY=$HERE/../lib/sird_held_max.py
BDP=$(ip netns exec "$TOPO_RX" sysctl -n net.shoal.bdp)

# sird_alpha NS: the receiver NS's csn-loop alpha for our host
sird_alpha()
{
	ip netns exec "$1" awk -v ip="::ffff:$S_IP" '$1 == ip { print $5 }' \
		/proc/net/shoal/sird
}

# sird_tx KEY: the sender's /proc/net/shoal/sird value
sird_tx()
{
	ip netns exec "$S" awk -v k="$1" '$1 == k { print $2 }' /proc/net/shoal/sird
}

# run NAME RATE FAIR SIZE1 SIZE2: a message of SIZE1 to the receiver and
# one of SIZE2 to R2 at once; sets good1/good2, t1/t2 (seconds until
# acknowledged), q_peak (uplink packets), csn, fair, alpha1, alpha2
run()
{
	local name=$1 rate=$2 permille=$3 pids=() csn0 fair0 i smp

	# a new queue: its peak counts this run only
	tc -n "$S" qdisc del dev eth0 root 2>/dev/null
	tc -n "$S" qdisc add dev eth0 root handle 1: tbf rate ${UPLINK}mbit \
		burst $UPLINK_BURST limit 10000000 &&
		tc -n "$S" qdisc add dev eth0 parent 1:1 handle 10: trim limit 10000 ||
		topo_die "uplink queue"
	ip netns exec "$S" sysctl -qw net.shoal.sird_tx_rate_mbps="$rate" \
		net.shoal.sird_fair_permille="$permille" || topo_die "sysctls"
	csn0=$(sird_tx tx_csn)
	fair0=$(sird_tx tx_fair)
	rm -f "$TOPO_TMP"/r?.ready
	ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT 1 60 "$TOPO_TMP/r1.ready" \
		>"$TOPO_TMP/r1.json" &
	pids+=($!)
	ip netns exec "$R2" "$MSGS_PY" recv $PORT 1 60 "$TOPO_TMP/r2.ready" \
		>"$TOPO_TMP/r2.json" &
	pids+=($!)
	for ((i = 0; i < 600; i++)); do
		[ -e "$TOPO_TMP/r1.ready" ] && [ -e "$TOPO_TMP/r2.ready" ] && break
		topo_nap 0.05
	done
	ip netns exec "$S" "$MSGS_PY" pair $PORT "$R1ADDR" "$4" "$R2ADDR" "$5" \
		>"$TOPO_TMP/s.json" &
	pids+=($!)
	rm -f "$TOPO_TMP/stop"
	ip netns exec "$S" python3 "$HELD_PY" "$TOPO_TMP/stop" >"$TOPO_TMP/held" &
	smp=$!
	wait "${pids[@]}"
	touch "$TOPO_TMP/stop"
	wait "$smp"
	held_max=$(cat "$TOPO_TMP/held")
	eval "$(python3 "$HERE/../lib/shoal_sird_tx_check.py" "$TOPO_TMP")"
	eval "$(tc -n "$S" -s -j qdisc show dev eth0 | python3 "$TOPO_PY" qdisc |
		sed -n 's/^child_data_qlen_max=/q_peak=/p')"
	csn=$(($(sird_tx tx_csn) - csn0))
	fair=$(($(sird_tx tx_fair) - fair0))
	alpha1=$(sird_alpha "$TOPO_RX")
	alpha2=$(sird_alpha "$R2")
	echo "# $name: delivered $good1 $good2 in $t1 s / $t2 s; uplink queue peak" \
		"${q_peak:--1} packets; csn $csn packets, fair turns $fair;" \
		"held at most ${held_max:--1} bytes;" \
		"receivers' csn alpha ${alpha1:--1} ${alpha2:--1}"
	echo "# $name: sender $(ip netns exec "$S" cat /proc/net/shoal/sird | tr '\n' ' ')"
	echo "# $name: sender $(ip netns exec "$S" awk '$2 != 0 { printf "%s=%s ", $1, $2 }' \
		/proc/net/shoal/stats)"
}

both_arrived()
{
	tap_ok "$good1 == 1 && $good2 == 1" \
		"$1: both messages arrive intact and are acknowledged"
}

# the split alone: with the csn loops on, the host's csn (one bit for all
# its receivers) shrinks the short message's receiver's bucket too and
# starves it of credit whatever the sender prefers.  First, while both
# receivers' buckets for this host are fresh (full)
sthr=$(ip netns exec "$TOPO_RX" sysctl -n net.shoal.sird_sthr)
for ns in "$TOPO_RX" "$R2"; do
	ip netns exec "$ns" sysctl -qw net.shoal.sird_sthr=0 || topo_die "sird_sthr"
done
run srpt $UPLINK 0 1000000 200000
both_arrived srpt
srpt_ratio=$(awk -v a="$t2" -v b="$t1" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 9) }')
tap_ok "$fair == 0" "srpt: fair share 0 gives no fair turns ($fair)"
# the long message's receiver hears nothing for many resend intervals: it
# must ask for the same bytes again, not give new ones on top
tap_ok "${held_max:--1} > 0 && ${held_max:--1} <= 2 * $BDP + 2 * 1400" \
	"srpt: the host never holds more than its two receivers' buckets ($held_max <= 2 BDP + 2 MSS)"

run fair $UPLINK 1000 1000000 200000
both_arrived fair
fair_ratio=$(awk -v a="$t2" -v b="$t1" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 9) }')
tap_ok "$fair > 0" "fair: fair share 1000 takes its turns round the receivers ($fair)"
tap_ok "$(awk -v s="$srpt_ratio" -v f="$fair_ratio" 'BEGIN { print (s < 0.28 && f >= 1.4 * s) }')" \
	"the short message's time over the long one's: SRPT $srpt_ratio (< 0.28, ideal 0.17), fair turns $fair_ratio (>= 1.4x, ideal 0.33)"
for ns in "$TOPO_RX" "$R2"; do
	ip netns exec "$ns" sysctl -qw net.shoal.sird_sthr="$sthr" || topo_die "sird_sthr"
done

# data that waits in the uplink queue longer than two resend intervals is
# asked for again on top (with 10 ms intervals the queue then grows to
# thousands of packets and messages time out): 100 ms intervals show the
# queue the credit itself builds
for ns in "$TOPO_RX" "$R2"; do
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=100 || topo_die "resend_ms"
done
run unpaced 0 500 1000000 1000000
both_arrived unpaced
tap_ok "${q_peak:--1} >= 20" \
	"unpaced: the credit's data waits in the host's uplink queue (peak $q_peak packets >= 20)"
unpaced_peak=$q_peak
for ns in "$TOPO_RX" "$R2"; do
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=10 || topo_die "resend_ms"
done

run paced $UPLINK 500 1000000 1000000
both_arrived paced
tap_ok "${q_peak:--1} >= 0 && ${q_peak:--1} <= 8 && ${q_peak:--1} * 2 <= $unpaced_peak" \
	"paced: the uplink queue peaks at $q_peak packets (<= 8, half of unpaced's $unpaced_peak at most)"
tap_ok "$csn > 0" "paced: credit held past SThr sets csn on DATA ($csn packets)"
tap_ok "${alpha1:-0} > 0 && ${alpha2:-0} > 0" \
	"paced: both receivers' csn loops saw it (alpha $alpha1, $alpha2 > 0)"

# 4. one message at a time, each acknowledged before the next
ip netns exec "$S" sysctl -qw net.shoal.sird_tx_rate_mbps=$UPLINK || topo_die "sysctls"
direct0=$(sird_tx tx_direct)
paced0=$(sird_tx tx_paced)
ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT 5 60 "$TOPO_TMP/r3.ready" \
	>"$TOPO_TMP/r3.json" &
rpid=$!
for ((i = 0; i < 600; i++)); do
	[ -e "$TOPO_TMP/r3.ready" ] && break
	topo_nap 0.05
done
lone_acked=0
for ((i = 0; i < 5; i++)); do
	a=$(ip netns exec "$S" "$MSGS_PY" send "$R1ADDR" $PORT 1 1000 3 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["tx_acked"])')
	lone_acked=$((lone_acked + ${a:-0}))
done
wait "$rpid"
rgood=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["good"])' \
	"$TOPO_TMP/r3.json")
direct=$(($(sird_tx tx_direct) - direct0))
paced=$(($(sird_tx tx_paced) - paced0))
echo "# idle: $lone_acked of 5 acknowledged; $direct packets sent at once of $paced paced"
tap_ok "$lone_acked == 5 && ${rgood:-0} == 5" \
	"idle: 5 lone messages acknowledged ($lone_acked) and arrived intact (${rgood:-0})"
tap_ok "$direct >= 5 && $direct == $paced" \
	"idle: each lone message's packet left at once, not on the pacer's timer ($direct of $paced >= 5)"

tap_done
