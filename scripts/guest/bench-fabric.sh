#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric part of `make bench`, inside the VM (issue 23): the composed
# load of scenario/fabric-composed, at the bench's own rates (below; the
# scenario's are lighter, for a guest it must not saturate), on
# tools/testing/fabrics/composed.fab
# (16 hosts, 4 leaves, 2 spines, 5 Mbit/s to the hosts, 10 between
# switches, leaf 1's link to spine 1 cut from 4 s to 5 s, routing
# converging 300 ms later), three ways in one run:
#
#   shoal  composed.fab as it is: trim on every port (the core marks ECN),
#          afq per tenant at leaf 4's hosts, sqr on the cut link; SIRD for
#          the incast and tenant 1
#   cubic  the same load with TCP cubic in SIRD's place, over drop-tail
#          ECMP: every port a byte FIFO of BENCH_FABRIC_QLIMIT full packets,
#          no afq, no sqr (cubic not ECN-capable)
#   dctcp  the same with DCTCP, the FIFOs marking CE above
#          BENCH_FABRIC_ECN packets (every TCP host runs DCTCP)
#
# The load, BENCH_FABRIC_SECONDS of arrivals (shoal-perf, Poisson, the same
# seeds for all three): an incast into h1 from the 15 other hosts, 30 KB
# RPCs at BENCH_FABRIC_INCAST of h1's link in all; tenant 1 (h5, h6: 60 KB
# RPCs at 0.75 of h13's link each) and tenant 2 (h9, h10: two bulk flows
# each, cubic or DCTCP) into h13; TCP RPCs (rpc.py) across the cut link
# both ways.  The FIFOs are sch_trim with nothing eligible for trimming,
# as in bench-shoal.sh, so every port keeps its peak queue exactly.
#
# Per transport: the incast's completion times (p50, p99, max), its RPCs
# failed or unanswered, tenant 1's, the retransmission timeouts on every
# host, the tenants' shares of h13's port over the middle of the run, the
# peak queue at h1's port and in the core.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# the fabric's names arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../../tools/testing/lib/fabric.sh
source "$TREE/tools/testing/lib/fabric.sh"
# shellcheck source=../lib/bench-lib.sh
source "$TREE/scripts/lib/bench-lib.sh"

DUR=${BENCH_FABRIC_SECONDS:-12}
INCAST=${BENCH_FABRIC_INCAST:-0.9}	# the incast's load on h1's link
QLIMIT=${BENCH_FABRIC_QLIMIT:-100}	# a drop-tail port's buffer, full packets
ECN_PKTS=${BENCH_FABRIC_ECN:-12}	# DCTCP's marking threshold, full packets
TRANSPORTS=${BENCH_FABRIC_TRANSPORTS:-shoal cubic dctcp}
LINK=5					# Mbit/s to the hosts (composed.fab)
LOADED_RTT=30000			# as scenario/fabric-composed
COMPOSED=$TREE/tools/testing/fabrics/composed.fab
PERF=$TREE/tools/shoal-perf/shoal-perf
FLOWS=$TREE/tools/traffic/shoal-flows
DIR=${VM_OUT:-/tmp}/bench/fabric
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=16 host_mbit=$LINK BENCH_FABRIC_SECONDS="$DUR" \
	BENCH_FABRIC_INCAST="$INCAST" BENCH_FABRIC_QLIMIT="$QLIMIT" BENCH_FABRIC_ECN="$ECN_PKTS" \
	BENCH_FABRIC_TRANSPORTS="$TRANSPORTS"

modprobe tcp_dctcp || topo_die "modprobe tcp_dctcp"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"
fab_init fabbench

# fabric T: the description transport T runs on
fabric()
{
	local fifo="trim limit 100000 limit_bytes $((QLIMIT * 1514)) ctrl_dscp none elig_dscp 63"

	if [ "$1" = shoal ]; then
		cat "$COMPOSED"
		return
	fi
	[ "$1" = dctcp ] && fifo+=" ecn_thresh $((ECN_PKTS * 1514))"
	grep -vE '^(qdisc|sqr) ' "$COMPOSED"
	echo "qdisc leaf-down $fifo"
	echo "qdisc leaf-up $fifo"
	echo "qdisc spine-down $fifo"
}

# run T: the load over transport T's fabric, its files in DIR/T
run()
{
	local t=$1 d=$DIR/$1 h proto cc pids=() perf_srv=() events_pid a b cpu0 w0

	mkdir -p "$d"
	fabric "$t" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	proto=tcp cc=$t
	[ "$t" = shoal ] && proto=sird cc=cubic
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.shoal.link_mbps=$LINK \
			net.shoal.link_rtt_us=$LOADED_RTT net.shoal.resend_ms=50 \
			net.ipv4.tcp_congestion_control="$cc" ||
			topo_die "sysctls of h$h"
		# the Shoal fabric's TCP negotiates ECN, as in the scenario;
		# cubic over drop-tail does not (DCTCP always does)
		[ "$t" = cubic ] || ip netns exec "$(fab_ns "$h")" sysctl -qw net.ipv4.tcp_ecn=1
	done
	for h in 1 13; do
		ip netns exec "$(fab_ns "$h")" "$PERF" server --proto "$proto" --port 4800 \
			--ready "$d/perf$h.ready" 2>"$d/server$h.log" &
		perf_srv+=($!)
		TOPO_PIDS+=($!)
	done
	ip netns exec "$(fab_ns 13)" "$FLOWS" recv --port 5500 --json "$d/flows.json" \
		--idle-ms 2000 --timeout $((DUR + 40)) --ready "$d/flows.ready" \
		2>"$d/flows.log" &
	pids+=($!)
	fab_rpc_serve 2 16
	fab_ready "$d"/{perf1,perf13,flows}.ready
	tc -n "$(fab_ns 13)" -batch - <<EOF || topo_die "counters on h13"
qdisc add dev eth0 clsact
filter add dev eth0 ingress protocol ip pref 1 flower src_ip 10.12.0.0/16 action pass
filter add dev eth0 ingress protocol ip pref 2 flower src_ip 10.13.0.0/16 action pass
EOF
	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" nstat -n
	done

	python3 "$FAB" events "$d/fabric.fab" "$TOPO_PREFIX" >"$d/events" &
	events_pid=$!
	for ((h = 2; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" timeout $((DUR + 60)) "$PERF" client \
			--server "$(fab_ip 1):4800" --proto "$proto" --workload fixed:30000 \
			--load "$(awk -v l="$INCAST" 'BEGIN { printf "%.4f", l / 15 }')" \
			--link-mbps $LINK --duration "$DUR" --drain 10 --seed "$h" --json \
			>"$d/incast$h.json" 2>"$d/incast$h.log" &
		pids+=($!)
	done
	for h in 5 6; do
		ip netns exec "$(fab_ns "$h")" timeout $((DUR + 60)) "$PERF" client \
			--server "$(fab_ip 13):4800" --proto "$proto" --workload fixed:60000 \
			--load 0.75 --link-mbps $LINK --duration "$DUR" --drain 5 --seed "$h" \
			--json >"$d/tenant$h.json" 2>"$d/tenant$h.log" &
		pids+=($!)
	done
	for h in 9 10; do
		ip netns exec "$(fab_ns "$h")" "$FLOWS" send --dst "$(fab_ip 13)" --port 5500 \
			--id $((4 * h)) --flows 2 --duration "$DUR" --cc "$cc" &
		pids+=($!)
	done
	fab_rpc_call 3 16 100 7 rpc-up
	pids+=("$fab_rpc_pid")
	fab_rpc_call 16 2 100 8 rpc-down
	pids+=("$fab_rpc_pid")

	topo_nap 3
	a=$(tc -n "$(fab_ns 13)" -s -j filter show dev eth0 ingress)
	cpu0=$(fab_cpu)
	w0=$(date +%s.%N)
	topo_nap 3
	b=$(tc -n "$(fab_ns 13)" -s -j filter show dev eth0 ingress)
	echo "{\"before\": $a, \"after\": $b, \"seconds\": $(awk -v a="$w0" \
		-v b="$(date +%s.%N)" 'BEGIN { print b - a }'), \"busy_pct\":" \
		"$(fab_busy "$cpu0" "$(fab_cpu)")}" >"$d/tenants.json"
	for p in "${pids[@]}" "$events_pid"; do
		wait "$p"
	done
	cp "$TOPO_TMP"/rpc-*.json "$d/" 2>/dev/null
	for ((h = 1; h <= fab_hosts; h++)); do
		# every timer that fired, a SYN's and a SYN-ACK's included
		ip netns exec "$(fab_ns "$h")" nstat -a TcpExtTCPTimeouts |
			awk -v h="$h" '$1 == "TcpExtTCPTimeouts" { n += $2 } END { print h, n + 0 }'
	done >"$d/rto"
	fab_qdiscs >"$d/qdiscs"
	for p in "${perf_srv[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p"
	done
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

for t in $TRANSPORTS; do
	echo "fabric: $t" >&2
	run "$t"
done
# shellcheck disable=SC2086	# a word list
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_report.py" "$DIR" "$QLIMIT" "$ECN_PKTS" \
	"$DUR" "$INCAST" $TRANSPORTS
