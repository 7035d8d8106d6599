#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afq-fair: N long TCP cubic flows (N = 2, 8, 32) and one unresponsive UDP
# sender at three times its fair share cross a 4 Mbit/s port (tbf) whose
# queue is afq, then pfifo with the same buffer.  Goodput per flow over
# the steady part of each run gives Jain's index: afq must reach 0.95 and
# hold the UDP sender near its share; pfifo must be measurably worse.
# Every flow started is in the index: one that never reaches the
# receiver counts with goodput 0 (flows.py share's expected count).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/flows.sh
source "$HERE/../lib/flows.sh"

LINK_BPS=4000000
DUR=12			# seconds of sending
WARM=4			# not measured: slow start, first drops
BUFFER=1000		# packets, the same for every queue
TCP_HOSTS=4		# sender netns 1..4 carry TCP, netns 5 the UDP sender
CASES=()

topo_modules sch_afq
topo_init afqfair
topo_build $((TCP_HOSTS + 1)) >/dev/null

# run N QDISC...: one run; sets jain, util, udp_ratio, tcp_min, tcp_max,
# missing (flows started that the receiver never saw)
run()
{
	local n=$1 hosts per i t0 udp dir

	shift
	dir=${OUT:-$TOPO_TMP}/afq-fair.d/n$n-$1
	hosts=$((n < TCP_HOSTS ? n : TCP_HOSTS))
	per=$((n / hosts))
	udp=$((3 * LINK_BPS / (n + 1)))
	topo_link_qdisc 4mbit 6k 10m "$@" || topo_die "qdisc $*"
	flows_recv "$dir" --idle-ms 2000 --timeout $((DUR + 30))
	t0=$(flows_now_plus 2)
	for ((i = 1; i <= hosts; i++)); do
		flows_send "$i" --id $((100 * i)) --flows "$per" --cc cubic \
			--duration "$DUR" --start-at "$t0"
	done
	flows_send $((TCP_HOSTS + 1)) --id 999 --udp "$udp" --size 1400 \
		--duration "$DUR" --start-at "$t0"
	flows_wait || topo_log "a flow endpoint failed"
	# the TCP flows started and the UDP sender
	flows_eval share "$(echo "$t0 $WARM" | awk '{print $1 + $2}')" \
		"$(echo "$t0 $DUR" | awk '{print $1 + $2 - 1}')" "$LINK_BPS" \
		$((hosts * per + 1))
	topo_log "N=$n $1: jain $jain util $util% udp $udp_ratio% of share," \
		"tcp $tcp_min..$tcp_max% (Mbit/s: $goodputs), $missing of" \
		"$((hosts * per + 1)) flows never seen"
	CASES+=("{\"n\": $n, \"qdisc\": \"$1\", \"missing\": $missing, \"jain\": $jain, \"util_pct\": $util, \"udp_share_pct\": $udp_ratio, \"tcp_min_pct\": $tcp_min, \"tcp_max_pct\": $tcp_max}")
}

for n in 2 8 32; do
	run "$n" afq limit $BUFFER
	j_afq=$jain
	u_afq=$udp_ratio
	tap_ok "missing == 0" "N=$n: afq: every one of the $((n + 1)) flows reached the receiver ($missing missing)"
	tap_ok "$(awk -v j="$j_afq" 'BEGIN { print (j >= 0.95) }')" \
		"N=$n: afq Jain index $j_afq >= 0.95"
	tap_ok "u_afq > 0 && u_afq <= 130" \
		"N=$n: afq holds the UDP sender (3x its share offered) to $u_afq% of the fair share (<= 130%)"
	tap_ok "util >= 80" "N=$n: afq keeps the link busy ($util%, >= 80%)"

	run "$n" pfifo limit $BUFFER
	tap_ok "$(awk -v a="$j_afq" -v p="$jain" 'BEGIN { print (p >= 0 && p <= a - 0.05) }')" \
		"N=$n: pfifo is measurably less fair (Jain $jain vs afq $j_afq)"
	tap_ok "udp_ratio >= 150" \
		"N=$n: through pfifo the UDP sender takes $udp_ratio% of the fair share (>= 150%)"
done

topo_write_results "${OUT:-$TOPO_TMP}/afq-fair.json" \
	"\"link_bps\": $LINK_BPS, \"duration_s\": $DUR, \"buffer_pkts\": $BUFFER"
tap_done
