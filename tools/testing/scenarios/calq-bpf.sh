#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calq-bpf: calq programmed from BPF.  tools/bpf/calq-rank attaches a tc
# egress program to the switch port that marks every Shoal packet with the
# bytes left in its message (pFabric's shortest remaining first), and
# `calq rank mark` queues it that many days ahead.  A long message
# (2.5 MB, 12% above the 5 Mbit/s port) builds a backlog; a short one
# (30 KB) starts 1.5 s later.  Behind pfifo the short message waits for
# the whole backlog; through calq it overtakes the long message and only
# its oldest packets (aging: they come within reach of the head).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

RANK=$TREE/tools/bpf/calq-rank
CASES=()

topo_modules sch_calq
topo_init calqbpf
topo_build 2 >/dev/null
[ -x "$RANK" ] || topo_die "build the tools first: make tools"
ip netns exec "$TOPO_SW" "$RANK" attach r0 --shift 12 --max-day 255 ||
	topo_die "calq-rank attach failed"

# run NAME QDISC...: the long and the short message through r0; sets
# short_p50 short_p99 (ms, one-way), long_n short_n (packets delivered)
run()
{
	local name=$1 dir t0 pids=()

	shift
	dir=${OUT:-$TOPO_TMP}/calq-bpf.d/$name
	mkdir -p "$dir"
	topo_link_qdisc 5mbit 3k 1m "$@" || topo_die "qdisc $*"
	topo_sink "$dir/sink.json" -4 --idle 1500
	t0=$(awk '{ printf "%.2f", $1 + 2 }' /proc/uptime)
	ip netns exec "$(topo_sender_ns 1)" "$BLAST" --dst 10.200.0.1 --id 1 \
		--size 1000 --rate 700 --count 2500 --start-at "$t0" 2>"$dir/long.log" &
	pids+=($!)
	ip netns exec "$(topo_sender_ns 2)" "$BLAST" --dst 10.200.0.1 --id 2 \
		--size 1000 --rate 300 --count 30 \
		--start-at "$(echo "$t0" | awk '{ print $1 + 1.5 }')" 2>"$dir/short.log" &
	pids+=($!)
	TOPO_PIDS+=("${pids[@]}")
	wait "${pids[@]}"
	topo_sink_wait || topo_log "$name: shoal-sink failed"
	topo_qdisc_save "$dir/qdisc.json"
	eval "$(python3 "$HERE/../lib/calq_bpf_check.py" "$dir/sink.json")"
	topo_log "$name: the short message waited $short_p50 ms (p50), $short_p99 ms (p99);" \
		"delivered: long $long_n of 2500, short $short_n of 30"
	CASES+=("{\"case\": \"$name\", \"short_p50_ms\": $short_p50, \"short_p99_ms\": $short_p99, \"long\": $long_n, \"short\": $short_n}")
}

run fifo pfifo limit 1000
fifo_p99=$short_p99
tap_ok "long_n == 2500 && short_n == 30" "fifo: both messages arrived ($long_n + $short_n)"
tap_ok "short_p99 >= 50" "fifo: the short message waits behind the backlog ($short_p99 ms p99)"

# ranks count from the clock, and the head lags it while a backlog of old
# days drains: the furthest ranks can fall past the last day, clamp them
run calq calq mode physical interval 1ms buckets 256 rank mark horizon clamp limit 1000
tap_ok "long_n == 2500 && short_n == 30" "calq: both messages arrived ($long_n + $short_n)"
tap_ok "short_p99 >= 0 && short_p99 * 3 <= fifo_p99" \
	"calq + BPF rank: the short message overtakes ($short_p99 ms p99, a third of fifo's $fifo_p99 ms or less)"
ranked=$(ip netns exec "$TOPO_SW" "$RANK" stats r0 |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["ranked"])' 2>/dev/null)
tap_ok "${ranked:-0} >= 2 * (2500 + 30)" \
	"the BPF program ranked every Shoal packet of both runs (${ranked:-0})"

topo_write_results "${OUT:-$TOPO_TMP}/calq-bpf.json" "\"link\": \"5mbit\", \"shift\": 12"
tap_done
