#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# afq-converge: four TCP cubic flows join one every PHASE seconds and
# leave one every PHASE seconds (active 1, 2, 3, 4, 3, 2, 1) across a
# 4 Mbit/s port (tbf + afq), as in the thesis's convergence experiment
# (Fig. 5.13), with ECN-capable senders.  After every join or leave, each
# of the k active flows must carry 1/k of what the flows carried (+-TOL%,
# over WINDOW bins of 100 ms) within BOUND ms (the window's end counts),
# half the phase: converging, not "eventually".  Shares, not rates
# against the link: a stalled emulated guest slows every flow alike, and
# 100 ms bins in which the link carried less than half its rate (the
# guest stalled) are left out of the windows and of the time.
# In the second half of every phase the flows must share evenly and keep
# the link busy.  The same run through pfifo must miss the bound.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/flows.sh
source "$HERE/../lib/flows.sh"

LINK_BPS=4000000
PHASE=1			# seconds between joins and leaves (the issue: every second)
TOL=25			# percent of the fair share
WINDOW=2		# bins of 100 ms: the resolution of the convergence time
BOUND=500		# ms to converge after a join or leave: half a phase
CASES=()

topo_modules sch_afq
topo_init afqconv
topo_build 4 >/dev/null
# ECN-capable senders: afq marks a flow 8 rounds ahead (the thesis keeps
# its queues short this way), so flows back off without losses
for i in 1 2 3 4; do
	ip netns exec "$(topo_sender_ns "$i")" sysctl -qw net.ipv4.tcp_ecn=1
done

# run QDISC...: flows i = 1..4 active [i - 1, 8 - i) phases from t0
run()
{
	local i t0 sched=() dir=${OUT:-$TOPO_TMP}/afq-converge.d/$1

	topo_link_qdisc 4mbit 6k 10m "$@" || topo_die "qdisc $*"
	mkdir -p "$dir"
	flows_recv "$dir" --idle-ms 2000 --timeout $((7 * PHASE + 30))
	# on the receiver's 100 ms bin grid; four `ip netns exec` take
	# seconds in a loaded guest, and a sender must not start late
	t0=$(flows_now_plus 4 | awk '{ printf "%.1f", $1 }')
	for i in 1 2 3 4; do
		flows_send "$i" --id "$i" --cc cubic --duration $(((9 - 2 * i) * PHASE)) \
			--start-at "$(echo "$t0 $i $PHASE" | awk '{print $1 + ($2 - 1) * $3}')"
		sched+=("$(echo "$t0 $i $PHASE" |
			awk '{printf "%.2f:%.2f:%d", $1 + ($2 - 1) * $3, $1 + (8 - $2) * $3, $2}')")
	done
	flows_wait || topo_log "a flow endpoint failed"
	topo_qdisc_save "$dir/qdisc.json"
	flows_eval converge "$LINK_BPS" "$TOL" "$WINDOW" "${sched[@]}"
	topo_log "$1: converged after ${conv_list// /, } ms (joins, then leaves; -1: never);" \
		"settled: mean deviation from the mean $dev_mean_pct%, link $util% busy;" \
		"$stalled_bins bins of 100 ms stalled (left out); the last first byte" \
		"came $start_late_ms ms after its join"
	CASES+=("{\"qdisc\": \"$1\", \"conv_ms\": [${conv_list// /, }], \"conv_max_ms\": $conv_max_ms, \"dev_mean_pct\": $dev_mean_pct, \"util_pct\": $util, \"stalled_bins\": $stalled_bins, \"start_late_ms\": $start_late_ms, \"schedule\": \"${sched[*]}\"}")
}

run afq limit 1000
tap_ok "conv_max_ms >= 0 && conv_max_ms <= BOUND" \
	"afq: every join and leave reaches the new fair share (+-$TOL%) within $BOUND ms (worst $conv_max_ms ms)"
tap_ok "dev_mean_pct >= 0 && dev_mean_pct <= 10" \
	"afq: flows share evenly once converged (mean deviation from the mean $dev_mean_pct% <= 10%)"
tap_ok "util >= 70" "afq: the flows keep the link busy once converged ($util%, >= 70%)"
afq_dev=$dev_mean_pct
run pfifo limit 1000
tap_ok "conv_max_ms < 0 || conv_max_ms > BOUND" \
	"pfifo: some join or leave misses the bound (worst $conv_max_ms ms, -1: never within $TOL%;" \
	"mean deviation $dev_mean_pct%, afq $afq_dev%)"

topo_write_results "${OUT:-$TOPO_TMP}/afq-converge.json" \
	"\"link_bps\": $LINK_BPS, \"phase_s\": $PHASE, \"tolerance_pct\": $TOL, \"window_ms\": $((WINDOW * 100)), \"bound_ms\": $BOUND"
tap_done
