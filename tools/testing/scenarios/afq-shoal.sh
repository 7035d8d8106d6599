#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afq-shoal: Shoal flows are flows to afq.  shoal.ko sends every packet
# from a random UDP source port, so a 5-tuple key sees each packet as a
# new flow; afq's default key reads the Shoal header on the Shoal UDP
# port (shoal_port 4797) instead.  Four SIRD senders (shoal-perf, 60 KB
# messages, Poisson, each offering LOAD times its fair share, a fifth of
# the link: LOAD = 1, 2, 3) and one bulk TCP cubic flow (shoal-flows,
# which wants the whole link) cross a 10 Mbit/s switch port (tbf) whose
# queue is `afq limit 1000`.  Per sender, the IP bytes that reached the
# receiver (a u32 filter per source address on the receiver's ingress)
# give Jain's index over the five senders' shares of the port, which is
# what afq decides; the SIRD message bytes completed (goodput) are
# reported beside them.
#
# Checked at every load: afq sees few flows: at most 10% of its packets
# find their flow idle (bid_bumps; with a flow per packet, as under the
# 5-tuple, it is nearly all of them: 87..92% with shoal_port off); the
# TCP flow gets at least 60% of a fair share of what the port carried
# (a fifth; with shoal_port off it got 9..12%).  At LOAD 1
# and 2 also Jain over the wire shares >= 0.9 (0.84..0.85 with
# shoal_port off); at LOAD 3, the module's defaults, issue 22's goal:
# Jain >= 0.95 (0.97-0.999 seen) and the port at least 85% busy (95%
# seen, 88-93% with a 4 ms bucket at the port: the issue asks 90%, too
# near to check on a shared host; against this bulk cubic flow's
# sawtooth SIRD does not fill every gap, while make bench's overload,
# whose TCP sender sends RPCs, keeps the port 97-98% busy).
# The port is 10 Mbit/s because the guest's CPUs are the limit first: on
# a slower host the same run at 20 Mbit/s had the guest 93-96% busy in
# the kernel and the port 60-85% busy at LOAD 3, whatever the protocol
# did.  Its tbf bucket is 10 ms (perf_burst): a stall of the guest's
# timer longer than the bucket is capacity lost, counted as idle.
# Then LOAD 3 again, every host told the link's rate (net.shoal.link_mbps:
# SIRD's sizes and pacers fit the port, and 60 KB messages go scheduled
# instead of whole and unscheduled) and the receiver's credit round robin
# over its sender hosts (net.shoal.sird_rx_fair_permille 1000): the four
# SIRD senders' shares within Jain >= 0.98 of each other (0.99-1.000 seen), TCP
# at least 60% of a fair share and the port at least 75% busy (88% seen
# at 10 Mbit/s on a slow host, 73-86% there with a 4 ms bucket, 89-93%
# at 20 on a fast one).  Jain over
# all five is reported, not checked: 26-31% of the packets find their
# flow idle at afq (4-5% at the defaults, whose B is 96 KB, not 18.75)
# and the bulk flow takes those turns: 0.94-0.99 alone, 0.91-0.94 under
# the whole suite.  B doubled gave 0.988 against 0.978 in one boot, with
# as many idle finds: the cause is not found (results/shoal.md).
# Reported, not checked: how busy the port is in the other runs
# and how many SIRD messages fail or are still unanswered after 3 s of
# drain (at 3x most of the offered messages).  Once afq holds each SIRD sender to its share,
# its unscheduled 60 KB bursts, which have no congestion control, overrun
# the sender's per-flow room (nqueues x bpr) and its messages time out,
# which leaves the port half idle (issue 22's SIRD overload, fixed in
# shoal.ko, not here): with the 5-tuple SIRD lost nothing at LOAD 1
# because it took TCP's share.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"
# shellcheck source=../../../scripts/lib/perf-lib.sh
source "$HERE/../../../scripts/lib/perf-lib.sh"

LINK=${AFQ_SHOAL_LINK:-10}		# Mbit/s
DUR=${AFQ_SHOAL_DUR:-10}		# seconds of arrivals
LOADS=${AFQ_SHOAL_LOADS:-1 2 3}		# offered load, in port rates
QDISC=${AFQ_SHOAL_QDISC:-afq limit 1000}
N=5					# senders: 1..4 SIRD, 5 TCP
# shellcheck source=../lib/flows.sh
source "$HERE/../lib/flows.sh"
SIZE=60000
RX_FAIR=0				# net.shoal.sird_rx_fair_permille
EVAL=$HERE/../lib/afq_shoal_eval.py
CASES=()

perf_fabric afq-shoal $N
topo_modules sch_afq
perf_cc cubic
for ns in "${PERF_HOSTS[@]}"; do
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=50 ||
		topo_die "net.shoal.resend_ms in $ns"
done
perf_server sird sird 4800

# rx_filters: on the receiver's ingress, one u32 filter per sender
# counting the bytes from its address
rx_filters()
{
	local i

	tc -n "$TOPO_RX" qdisc del dev eth0 ingress 2>/dev/null
	tc -n "$TOPO_RX" qdisc add dev eth0 handle ffff: ingress ||
		topo_die "ingress qdisc on the receiver"
	for ((i = 1; i <= N; i++)); do
		tc -n "$TOPO_RX" filter add dev eth0 parent ffff: protocol ip \
			prio "$i" u32 match ip src "$(topo_sender_addr "$i" 4)/32" \
			action pass || topo_die "u32 filter for sender $i"
	done
}

# run LOAD [TAG]: one run at LOAD times the port's rate, its values in the
# shell, its files in load<LOAD><TAG>
run()
{
	local load=$1 dir=$PERF_DIR/load$1${2:-} i per pids=()

	mkdir -p "$dir"
	# shellcheck disable=SC2086	# a word list
	topo_link_qdisc "${LINK}mbit" "$(perf_burst "$LINK" 10)" 10000000 $QDISC ||
		topo_die "$QDISC at the port"
	rx_filters
	per=$(awk -v l="$load" -v n=$N 'BEGIN { printf "%.3f", l / n }')
	flows_recv "$dir/tcp" --idle-ms 2000 --timeout $((DUR + 30))
	flows_send $N --id 1 --cc cubic --duration "$DUR"
	for ((i = 1; i < N; i++)); do
		# a client stuck on an overloaded port must not hang the run
		ip netns exec "$(topo_sender_ns "$i")" timeout $((DUR + 60)) "$PERF" client \
			--server "$SRV:4800" --proto sird \
			--workload "fixed:$SIZE" --load "$per" --link-mbps "$LINK" \
			--duration "$DUR" --drain 3 --seed "$i" --json \
			>"$dir/client-$i.json" 2>"$dir/client-$i.log" &
		pids+=($!)
	done
	# the port's busy fraction from the arrivals' second second on, past
	# the flows' start (as make bench measures it)
	topo_nap 1
	perf_port_sample "$dir/port.txt"
	topo_nap "$((DUR - 1))"
	perf_port_sample "$dir/port.txt"
	for i in "${pids[@]}"; do
		wait "$i"
	done
	flows_wait || topo_log "the TCP flow's endpoints failed"
	tc -n "$TOPO_RX" -s -j filter show dev eth0 parent ffff: >"$dir/rx.json"
	topo_qdisc_save "$dir/qdisc.json"
	eval "$(python3 "$EVAL" "$dir" $N "$LINK" "$DUR")"
	topo_log "load $load x ($QDISC): jain wire $jain_wire goodput $jain_good," \
		"port $util% busy; Mbit/s wire $wire_1 $wire_2 $wire_3 $wire_4 tcp $wire_5," \
		"SIRD goodput $good_1 $good_2 $good_3 $good_4; $completed done," \
		"$failed failed; afq: $bumps of $enq packets found their flow idle ($bump_pct%)"
	CASES+=("{\"load\": $load, \"rx_fair_permille\": $RX_FAIR, \"jain_wire\": $jain_wire, \"jain_goodput\": $jain_good, \"util_pct\": $util, \"wire_mbps\": [$wire_1, $wire_2, $wire_3, $wire_4, $wire_5], \"goodput_mbps\": [$good_1, $good_2, $good_3, $good_4, $good_5], \"completed\": $completed, \"failed\": $failed, \"afq_enqueued\": $enq, \"afq_bid_bumps\": $bumps}")
}

# tcp_check LABEL: the last run's TCP flow got at least 60% of a fair
# share (a fifth) of what the port carried
tcp_check()
{
	local pct

	pct=$(awk -v t="$wire_5" -v a="$wire_1 $wire_2 $wire_3 $wire_4 $wire_5" -v n=$N \
		'BEGIN { split(a, w, " "); for (i in w) s += w[i]; print (s > 0 ? int(t * n * 100 / s) : -1) }')
	tap_ok "pct >= 60" \
		"$1: TCP gets $wire_5 Mbit/s, $pct% of a fair share of what the port carried (>= 60%)"
}

for load in $LOADS; do
	run "$load"
	tap_ok "bump_pct >= 0 && bump_pct <= 10" \
		"load $load: afq sees Shoal flows, not packets: $bump_pct% of packets found their flow idle (<= 10%)"
	tcp_check "load $load"
	if [ "$load" != 3 ]; then
		tap_ok "$(awk -v j="$jain_wire" 'BEGIN { print (j >= 0.9) }')" \
			"load $load: Jain over the five senders' shares of the port $jain_wire >= 0.9"
	else
		tap_ok "$(awk -v j="$jain_wire" -v u="$util" 'BEGIN { print (j >= 0.95 && u >= 85) }')" \
			"load 3, the module's defaults: Jain over the five senders' shares $jain_wire >= 0.95, the port $util% busy (>= 85%)"
	fi
done

# 3x again, the hosts told the link's rate (SIRD's sizes and pacers fit
# it: 60 KB messages go scheduled) and the receiver's credit round robin
# over its sender hosts
RX_FAIR=1000
# first the receiver forgets what the runs before left it: the messages
# of clients that gave up at the end of their drain.  Their hosts have no
# Shoal socket left and answer its CREDITs, RESENDs and BUSYs with ICMP
# port unreachable, one a second after 6 (their rate limit), and one
# gives up all of its host's messages (2-3 s when each waited for its
# own, or for its timeout; 7 s when nothing answered them)
for ((i = 0; i < 300; i++)); do
	wanting=$(ip netns exec "$TOPO_RX" awk '$1 == "wanting" { print $2 }' \
		/proc/net/shoal/sird)
	[ "${wanting:-1}" = 0 ] && break
	topo_nap 0.1
done
gone=$(shoal_stat "$TOPO_RX" rx_host_gone)
tap_ok "${wanting:-1} == 0 && $i <= 30 && gone > 0" \
	"the receiver forgot the messages of the earlier runs' gone clients within 3 s ($((i / 10)).$((i % 10)) s), $gone messages given up as their hosts' ICMP port unreachable said no socket was left there"
for ns in "${PERF_HOSTS[@]}"; do
	ip netns exec "$ns" sysctl -qw net.shoal.link_mbps="$LINK" ||
		topo_die "net.shoal.link_mbps in $ns"
done
ip netns exec "$TOPO_RX" sysctl -qw net.shoal.sird_rx_fair_permille=$RX_FAIR ||
	topo_die "net.shoal.sird_rx_fair_permille"
run 3 -rr
tap_ok "$(awk -v j="$jain_sird" -v u="$util" 'BEGIN { print (j >= 0.98 && u >= 75) }')" \
	"load 3, link stated, credit round robin: Jain over the four SIRD senders' shares $jain_sird >= 0.98 (over all five $jain_wire), the port $util% busy (>= 75%)"
tcp_check "load 3, link stated, credit round robin"
perf_servers_stop

topo_write_results "$PERF_DIR/afq-shoal.json" \
	"\"link_mbps\": $LINK, \"duration_s\": $DUR, \"qdisc\": \"$QDISC\", \"msg_bytes\": $SIZE"
tap_done
