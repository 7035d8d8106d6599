#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-incast: 8 senders send Shoal messages (IPPROTO_SIRD) to one
# receiver through a 100 Mbit/s switch port (tbf) at once.
#   1. A deep queue (trim limit 1000, which never trims here), messages all
#      scheduled (300 KB, above unsch_thresh), credit paced at the link
#      rate: every message arrives intact and once, every sender sees each
#      acknowledged, and the port's queue peaks within SIRD's bound: B -
#      BDP of scheduled data, plus a margin of the configured BDP (the
#      emulated path's own BDP is near zero, so all of B may queue) and 2
#      packets, in packets of MSS payload bytes (credit counts payload),
#      plus the packets that came twice: data a quiet interval took for
#      lost while it still waited in the queue (under TCG the tbf can fall
#      that far behind) was asked for again under new credit.  No credit
#      is left outstanding afterwards.
#   2. The same without pacing (the paper's ablation): every message
#      arrives; the credit went in fewer CREDITs than packets, by at least
#      B's worth (a pacer run's grants to a message go as one CREDIT).
#      The queue peak is reported, not bounded: credit goes out in bursts
#      of B, and under emulation a burst's data can sit in the
#      queue longer than two resend intervals, so some of it is taken for
#      lost and sent again on top of B (Documentation/shoal.md).
#   3. A 12-packet trimming queue and 60 KB messages, sent unscheduled all
#      at once (an incast of 8 x 4 x 60 KB): packets are trimmed, their
#      bytes asked for again at once (rx_resend_trimmed), every message
#      arrives, none times out.
#   4. 1% random loss (netem): every message arrives, recovered by the
#      receiver's RESENDs after quiet intervals; none times out.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

MSGS=${MSGS:-4}			# per sender
SIZE=${SIZE:-300000}		# scheduled: above unsch_thresh
SMALL=60000			# unscheduled: all of it goes at once
N=8
PORT=7000
MSS=1400			# net.shoal.mss: a full DATA packet's payload
B=98304				# net.shoal.sird_b
BDP=65536			# net.shoal.bdp

topo_modules sch_trim sch_netem
shoal_module
topo_init sincast
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
RXADDR=$(topo_rx_addr 4)
ip netns exec "$TOPO_RX" sysctl -qw net.shoal.sird_b=$B net.shoal.bdp=$BDP ||
	topo_die "sysctls"

# run NAME RATE_MBPS SIZE QDISC...: all senders at once through r0; sets rx_*,
# tx_* (summed over senders), q_* (r0's child) and st_* (the receiver's
# /proc/net/shoal/stats changes), sird_b and sird_wanting afterwards
run()
{
	local name=$1 rate=$2 size=$3 i before after pids=()

	shift 3
	topo_link_qdisc 100mbit 3000 1000000 "$@" || topo_die "$name: qdisc"
	ip netns exec "$TOPO_RX" sysctl -qw net.shoal.sird_rate_mbps="$rate"
	before=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	credited=$(sird_credited)
	ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT $((N * MSGS)) 90 \
		>"$TOPO_TMP/rx.json" &
	pids+=($!)
	topo_nap 1
	shoal_fan "$RXADDR" $PORT "$MSGS" "$size" "$TOPO_TMP/tx" $N &
	pids+=($!)
	wait "${pids[@]}"
	after=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	eval "$(python3 "$HERE/../lib/shoal_incast_check.py" "$TOPO_TMP" "$N")"
	echo "# $name: receiver $(cat "$TOPO_TMP/rx.json")"
	for ((i = 1; i <= N; i++)); do
		grep -q '"errors": {}' "$TOPO_TMP/tx$i.json" ||
			echo "# $name: sender $i $(cat "$TOPO_TMP/tx$i.json")"
	done
	eval "$(shoal_stats_vars "$before" "$after" | sed 's/^/st_/')"
	echo "# $name: receiver $(shoal_stats_delta "$before" "$after")"
	echo "# $name: sender 1 $(ip netns exec "$(topo_sender_ns 1)" cat /proc/net/shoal/stats |
		awk '$2 != 0 { printf "%s=%s ", $1, $2 }')"
	eval "$(topo_qstats | sed -n 's/^child_data_qlen_max=/q_qlen_max=/p')"
	credited=$(($(sird_credited) - credited))
	credit_pkts=$(((credited + MSS - 1) / MSS))
	sird_b=$(ip netns exec "$TOPO_RX" awk '$1 == "b" { print $2 }' /proc/net/shoal/sird)
	sird_wanting=$(ip netns exec "$TOPO_RX" awk '$1 == "wanting" { print $2 }' \
		/proc/net/shoal/sird)
	echo "# $name: rx good $rx_good bad $rx_bad dup $rx_duplicates;" \
		"tx acked $tx_acked failed $tx_failed; queue peak ${q_qlen_max:--1}" \
		"packets; trimmed $st_rx_trimmed, resend trimmed" \
		"$st_rx_resend_trimmed quiet $st_rx_resend_quiet; b $sird_b;" \
		"CREDITs $st_tx_credit for $credited bytes" \
		"($credit_pkts packets' worth)"
}

# sird_credited: the bytes the receiver has granted by CREDIT so far (its
# grants less the trimmed bytes it asked for again)
sird_credited()
{
	ip netns exec "$TOPO_RX" awk '$1 == "granted" { g = $2 }
		$1 == "resent" { r = $2 } END { print g - r }' /proc/net/shoal/sird
}

all_arrived()
{
	local name=$1 total=$((N * MSGS))

	tap_ok "$rx_good == $total && $rx_bad == 0 && $rx_duplicates == 0" \
		"$name: $total messages arrive intact, once (good $rx_good, bad $rx_bad, dup $rx_duplicates)"
	tap_ok "$tx_acked == $total && $tx_failed == 0 && $tx_errors == 0" \
		"$name: senders see all $total acknowledged, none failed (acked $tx_acked, failed $tx_failed)"
	tap_ok "${sird_b:--1} == 0 && ${sird_wanting:--1} == 0" \
		"$name: no credit left outstanding (b $sird_b, wanting $sird_wanting)"
}

run paced 100 "$SIZE" trim limit 1000
all_arrived paced
dups=${st_rx_dup_packets:-0}
bound=$(((B - BDP + BDP + MSS - 1) / MSS + 2 + dups))
tap_ok "${q_qlen_max:--1} >= 0 && ${q_qlen_max:--1} <= $bound" \
	"paced: queue peak $q_qlen_max packets <= $bound (B - BDP + BDP margin + 2, + $dups that came twice)"

run unpaced 0 "$SIZE" trim limit 1000
all_arrived unpaced
# an unpaced pacer grants up to its limits in a run; one CREDIT says a
# message's grants of a run: at least B's worth fewer than one a packet
tap_ok "$st_tx_credit > 0 && $st_tx_credit <= credit_pkts - B / MSS" \
	"unpaced: CREDITs $st_tx_credit for $credit_pkts packets' credit" \
	"(<= $((credit_pkts - B / MSS)): a run's grants to a message in one CREDIT)"
echo "# unpaced: queue peak $q_qlen_max packets (not bounded here: see the header)"

run trimming 100 "$SMALL" trim limit 12
all_arrived trimming
tap_ok "$st_rx_trimmed > 0 && $st_rx_resend_trimmed > 0" \
	"trimming: trimmed packets ($st_rx_trimmed) asked for again at once ($st_rx_resend_trimmed RESENDs)"
tap_ok "$st_tx_timeout == 0" "trimming: no message timed out"

run loss 100 "$SIZE" netem loss 1% limit 1000
all_arrived loss
tap_ok "$st_rx_resend_quiet > 0 && $st_tx_timeout == 0" \
	"loss: recovered by RESENDs after quiet intervals ($st_rx_resend_quiet), none timed out"
tap_done
