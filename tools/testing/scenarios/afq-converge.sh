#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afq-converge: four TCP cubic flows join one every PHASE seconds and
# leave one every PHASE seconds (active 1, 2, 3, 4, 3, 2, 1) across a
# 4 Mbit/s port (tbf + afq),
# as in the thesis's convergence experiment (Fig. 5.13), with ECN-capable
# senders.  After every join
# or leave, each active flow must reach TOL% of link / k, averaged over
# WINDOW bins of 100 ms, within BOUND ms (the window's end counts), and
# in the second half of every phase the flows must share what the link
# carried evenly.  The same run through pfifo is reported for comparison.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/flows.sh
source "$HERE/../lib/flows.sh"

LINK_BPS=4000000
PHASE=2			# seconds between joins and leaves
TOL=40			# percent of the fair share
WINDOW=5		# bins of 100 ms: a stalled emulated guest must not count
BOUND=1000		# ms to converge after a join or leave
CASES=()

topo_modules sch_afq
topo_init afqconv
topo_build 4 >/dev/null
# ECN-capable senders: afq marks a flow 8 rounds ahead (the thesis keeps
# its queues short this way), so flows back off without losses
for i in 1 2 3 4; do
	ip netns exec "$(topo_sender_ns "$i")" sysctl -qw net.ipv4.tcp_ecn=1
done

# run QDISC...: flows i = 1..4 active [i - 1, 9 - i) phases from t0
run()
{
	local i t0 sched=() dir=${OUT:-$TOPO_TMP}/afq-converge.d/$1

	topo_link_qdisc 4mbit 6k 10m "$@" || topo_die "qdisc $*"
	mkdir -p "$dir"
	flows_recv "$dir" --idle-ms 2000 --timeout $((8 * PHASE + 30))
	t0=$(flows_now_plus 2)
	for i in 1 2 3 4; do
		flows_send "$i" --id "$i" --cc cubic --duration $(((10 - 2 * i) * PHASE)) \
			--start-at "$(echo "$t0 $i $PHASE" | awk '{print $1 + ($2 - 1) * $3}')"
		sched+=("$(echo "$t0 $i $PHASE" |
			awk '{printf "%.2f:%.2f:%d", $1 + ($2 - 1) * $3, $1 + (9 - $2) * $3, $2}')")
	done
	flows_wait || topo_log "a flow endpoint failed"
	topo_qdisc_save "$dir/qdisc.json"
	flows_eval converge "$LINK_BPS" "$TOL" "$WINDOW" "${sched[@]}"
	topo_log "$1: converged after ${conv_list// /, } ms (joins, then leaves);" \
		"mean deviation from the fair share $dev_mean_pct%"
	CASES+=("{\"qdisc\": \"$1\", \"conv_ms\": [${conv_list// /, }], \"conv_max_ms\": $conv_max_ms, \"dev_mean_pct\": $dev_mean_pct}")
}

run afq limit 1000
tap_ok "conv_max_ms >= 0 && conv_max_ms <= BOUND" \
	"afq: every join and leave reaches the new fair share (+-$TOL%) within $BOUND ms (worst $conv_max_ms ms)"
tap_ok "dev_mean_pct >= 0 && dev_mean_pct <= 10" \
	"afq: flows share evenly once converged (mean deviation from the mean $dev_mean_pct% <= 10%)"
run pfifo limit 1000
topo_log "pfifo for comparison: worst $conv_max_ms ms (-1: never within $TOL%)," \
	"mean deviation $dev_mean_pct%"

topo_write_results "${OUT:-$TOPO_TMP}/afq-converge.json" \
	"\"link_bps\": $LINK_BPS, \"phase_s\": $PHASE, \"tolerance_pct\": $TOL, \"window_ms\": $((WINDOW * 100)), \"bound_ms\": $BOUND"
tap_done
