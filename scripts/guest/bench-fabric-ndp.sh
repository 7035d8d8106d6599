#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Trimming's fabric experiments (NDP, SIGCOMM 2017 and its Tofino
# follow-up; Documentation/results/fabric.md), part of `make bench`,
# inside the VM.  Two experiments, each on fabrics of its own:
#
#   ping   the paper's Fig. 13: ping from a host of the other leaf to h1
#          while 9 senders keep h1's port overloaded, its port either a
#          200-packet drop-tail FIFO (the fabric's default: tbf's own)
#          carrying 9 TCP cubic flows, or `trim limit 12` carrying SIRD
#          messages (the paper's NDP); and TCP over the same 12-packet
#          port, which is then a short drop-tail queue.  2 leaves, 1
#          spine, 6 hosts a leaf, hosts at BENCH_NDP_MBIT, the core at 5x.
#          Per config: ping's RTT idle and under the incast, the incast's
#          goodput into h1, the port's peak queue and its drops or trims.
#   paths  the paper's three-path test: h1, h2, h3 on leaf 1 each send
#          bulk data to h4, h5, h6 on leaf 2, over 3 spines whose links
#          run at the hosts' rate, so the core carries all three only if
#          each takes a spine of its own.  TCP cubic with ECMP (the 5-tuple
#          hash), SIRD sprayed (a random source port a packet), and SIRD
#          hashed per host pair (`ecmp flow`); BENCH_NDP_TRIALS trials each,
#          every TCP trial on new connections.  Per trial and flow: Mbit/s
#          received over the middle of the trial.
#   incast the paper's incasts to 1, 4 and 16 receivers (Fig. 5 and 6, as
#          the reproduction plan in its digest maps them): 16 hosts on 4
#          leaves and 2 spines at 1:1, every sender offering its receiver
#          1.5x that receiver's link in all for BENCH_NDP_INCAST_SECONDS
#          (to 1: the 15 others into h1; to 4: the first host of each leaf
#          receives from the 3 hosts of the leaf before it; to 16: each
#          host sends to the host of the next leaf in its place, a
#          permutation with no incast, every flow across the core).  SIRD
#          sprayed over trimming ports (leaf ports towards hosts `trim limit
#          12`, the core `trim limit 24`), and TCP cubic over the fabric's
#          200-packet FIFOs.  Per run: each sender's bytes sent and each
#          receiver's received over the middle of the run (Jain's index
#          over the senders, the receivers' goodput against their links),
#          packets trimmed or dropped, the highest data and header queue.
# The report is scripts/lib/bench_fabric_ndp_report.py (tables, verdicts
# from the numbers, SVG plots).
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

MBIT=${BENCH_NDP_MBIT:-20}		# the hosts' links
PING_SECONDS=${BENCH_NDP_PING_SECONDS:-8}
TRIALS=${BENCH_NDP_TRIALS:-6}
TRIAL_SECONDS=${BENCH_NDP_TRIAL_SECONDS:-6}
INCAST_SECONDS=${BENCH_NDP_INCAST_SECONDS:-8}
LOADED_RTT=${BENCH_NDP_RTT_US:-20000}	# net.shoal.link_rtt_us
PERF=$TREE/tools/shoal-perf/shoal-perf
FLOWS=$TREE/tools/traffic/shoal-flows
DIR=${VM_OUT:-/tmp}/bench/fabric-ndp
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
# the hosts of the incasts' fabric and of the three paths'
bench_meta "$DIR" incast_hosts=16 paths_hosts=6 host_mbit="$MBIT" \
	BENCH_NDP_MBIT="$MBIT" BENCH_NDP_INCAST_SECONDS="$INCAST_SECONDS" \
	BENCH_NDP_PING_SECONDS="$PING_SECONDS" BENCH_NDP_TRIALS="$TRIALS" \
	BENCH_NDP_TRIAL_SECONDS="$TRIAL_SECONDS" BENCH_NDP_RTT_US="$LOADED_RTT"

fab_init ndp

# rx_bytes of host H's eth0
rx_bytes() { ip netns exec "$(fab_ns "$1")" cat /sys/class/net/eth0/statistics/rx_bytes; }

# shoal_hosts: Shoal told the hosts' link and the fabric's loaded round
# trip (the default, 5 ms, is one switch's: across a spine at 20 Mbit/s
# it held a sprayed flow to half its link), resend_ms left at its default
shoal_hosts()
{
	local h

	for ((h = 1; h <= fab_hosts; h++)); do
		ip netns exec "$(fab_ns "$h")" sysctl -qw net.shoal.link_mbps="$MBIT" \
			net.shoal.link_rtt_us="$LOADED_RTT" \
			net.ipv4.tcp_congestion_control=cubic || topo_die "sysctls of h$h"
	done
}

# ---- ping during an incast ----

# ping_fabric QDISC: 2 leaves x 6 hosts, 1 spine; QDISC (empty: the
# default 200-packet FIFO) on every leaf port towards a host
ping_fabric()
{
	cat <<EOF
leaves 2
spines 1
hosts_per_leaf 6
host_link ${MBIT}mbit
fabric_link $((5 * MBIT))mbit
${1:+qdisc leaf-down $1}
EOF
}

# ping_run NAME PROTO QDISC: h12 pings h1 idle, then during 9 senders' load
ping_run()
{
	local name=$1 proto=$2 d=$DIR/ping/$1 h pids=() srv a b w0 w1

	mkdir -p "$d"
	ping_fabric "$3" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	shoal_hosts
	ip netns exec "$(fab_ns 12)" ping -n -i 0.01 -w 2 "$(fab_ip 1)" >"$d/ping-idle.txt" 2>&1
	if [ "$proto" = tcp ]; then
		ip netns exec "$(fab_ns 1)" "$FLOWS" recv --port 5500 --json "$d/flows.json" \
			--idle-ms 2000 --timeout $((PING_SECONDS + 30)) --ready "$d/srv.ready" \
			2>"$d/flows.log" &
		srv=$!
	else
		ip netns exec "$(fab_ns 1)" "$PERF" server --proto sird --port 4800 \
			--ready "$d/srv.ready" 2>"$d/server.log" &
		srv=$!
		TOPO_PIDS+=("$srv")
	fi
	fab_ready "$d/srv.ready"
	for h in 2 3 4 5 6 7 8 9 10; do
		if [ "$proto" = tcp ]; then
			ip netns exec "$(fab_ns "$h")" "$FLOWS" send --dst "$(fab_ip 1)" --port 5500 \
				--id "$h" --flows 1 --duration $((PING_SECONDS + 2)) --cc cubic &
		else
			# 60 KB messages offering 1.35x h1's link in all
			ip netns exec "$(fab_ns "$h")" timeout $((PING_SECONDS + 40)) "$PERF" client \
				--server "$(fab_ip 1):4800" --proto sird --workload fixed:60000 \
				--load 0.15 --link-mbps "$MBIT" --duration $((PING_SECONDS + 2)) \
				--drain 10 --seed "$h" --json >"$d/client$h.json" 2>"$d/client$h.log" &
		fi
		pids+=($!)
	done
	topo_nap 1
	a=$(rx_bytes 1)
	w0=$(date +%s.%N)
	ip netns exec "$(fab_ns 12)" ping -n -i 0.01 -w "$PING_SECONDS" "$(fab_ip 1)" \
		>"$d/ping-load.txt" 2>&1
	b=$(rx_bytes 1)
	w1=$(date +%s.%N)
	echo "$a $b $w0 $w1" >"$d/rx"
	tc -n "$fab_leaf1" -s -j qdisc show dev h1 >"$d/port.json"
	for h in "${pids[@]}"; do
		wait "$h"
	done
	kill "$srv" 2>/dev/null
	wait "$srv"
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

# ---- three flows over three spines ----

# paths_fabric ECMP QDISC
paths_fabric()
{
	cat <<EOF
leaves 2
spines 3
hosts_per_leaf 3
host_link ${MBIT}mbit
fabric_link ${MBIT}mbit
ecmp $1
${2:+qdisc leaf-down $2}
${2:+qdisc leaf-up $2}
${2:+qdisc spine-down $2}
EOF
}

# paths_run NAME PROTO ECMP QDISC: TRIALS trials of h1->h4, h2->h5, h3->h6
paths_run()
{
	local name=$1 proto=$2 d=$DIR/paths/$1 t h pids srv=() a b w0 w1

	mkdir -p "$d"
	paths_fabric "$3" "$4" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	shoal_hosts
	for h in 4 5 6; do
		if [ "$proto" = tcp ]; then
			ip netns exec "$(fab_ns "$h")" "$FLOWS" recv --port 5500 --json /dev/null \
				--idle-ms 600000 --ready "$d/srv$h.ready" 2>"$d/flows$h.log" &
		else
			ip netns exec "$(fab_ns "$h")" "$PERF" server --proto sird --port 4800 \
				--ready "$d/srv$h.ready" 2>"$d/server$h.log" &
		fi
		srv+=($!)
		TOPO_PIDS+=($!)
	done
	fab_ready "$d"/srv{4,5,6}.ready
	for ((t = 1; t <= TRIALS; t++)); do
		pids=()
		for h in 1 2 3; do
			if [ "$proto" = tcp ]; then
				ip netns exec "$(fab_ns "$h")" "$FLOWS" send --dst "$(fab_ip $((h + 3)))" \
					--port 5500 --id $((10 * t + h)) --flows 1 \
					--duration "$TRIAL_SECONDS" --cc cubic &
			else
				# 200 KB messages offering 1.5x the link
				ip netns exec "$(fab_ns "$h")" timeout $((TRIAL_SECONDS + 40)) "$PERF" client \
					--server "$(fab_ip $((h + 3))):4800" --proto sird \
					--workload fixed:200000 --load 1.5 --link-mbps "$MBIT" \
					--duration "$TRIAL_SECONDS" --drain 10 --seed $((10 * t + h)) \
					--json >"$d/client$t-$h.json" 2>"$d/client$t-$h.log" &
			fi
			pids+=($!)
		done
		topo_nap 1.5
		a="$(rx_bytes 4) $(rx_bytes 5) $(rx_bytes 6)"
		w0=$(date +%s.%N)
		topo_nap $((TRIAL_SECONDS - 3))
		b="$(rx_bytes 4) $(rx_bytes 5) $(rx_bytes 6)"
		w1=$(date +%s.%N)
		echo "$t $a $b $w0 $w1" >>"$d/trials"
		for h in "${pids[@]}"; do
			wait "$h"
		done
		topo_nap 1
	done
	for h in "${srv[@]}"; do
		kill "$h" 2>/dev/null
		wait "$h"
	done
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

# ---- incasts to 1, 4 and 16 receivers ----

# incast_fabric QDISC CORE_QDISC
incast_fabric()
{
	cat <<EOF
leaves 4
spines 2
hosts_per_leaf 4
host_link ${MBIT}mbit
fabric_link $((2 * MBIT))mbit
ecmp spray
${1:+qdisc leaf-down $1}
${2:+qdisc leaf-up $2}
${2:+qdisc spine-down $2}
EOF
}

# incast_dst R H: the receiver of sender H in the incast to R receivers,
# or nothing if H only receives
incast_dst()
{
	local leaf=$(((($2 - 1) / 4) + 1)) pos=$(((($2 - 1) % 4) + 1)) next

	next=$((leaf % 4 + 1))
	case $1 in
	1) [ "$2" -ne 1 ] && echo 1 ;;
	4) [ "$pos" -ne 1 ] && echo $(((next - 1) * 4 + 1)) ;;
	16) echo $(((next - 1) * 4 + pos)) ;;
	esac
}

# counters of every host's eth0, one line: "H rx_bytes tx_bytes" each
host_bytes()
{
	local h

	for ((h = 1; h <= fab_hosts; h++)); do
		echo "$h $(ip netns exec "$(fab_ns "$h")" cat /sys/class/net/eth0/statistics/rx_bytes \
			/sys/class/net/eth0/statistics/tx_bytes | tr '\n' ' ')"
	done
}

# incast_run NAME PROTO R QDISC CORE_QDISC
incast_run()
{
	local name=$1 proto=$2 r=$3 d=$DIR/incast/$1-$3 h dst n pids=() srv=() w0 w1

	mkdir -p "$d"
	incast_fabric "$4" "$5" >"$d/fabric.fab"
	fab_build "$d/fabric.fab"
	shoal_hosts
	declare -A senders=()
	for ((h = 1; h <= fab_hosts; h++)); do
		dst=$(incast_dst "$r" "$h")
		[ -n "$dst" ] && senders[$dst]=$((${senders[$dst]:-0} + 1))
	done
	for dst in "${!senders[@]}"; do
		if [ "$proto" = tcp ]; then
			ip netns exec "$(fab_ns "$dst")" "$FLOWS" recv --port 5500 --json /dev/null \
				--idle-ms 3000 --timeout $((INCAST_SECONDS + 30)) \
				--ready "$d/srv$dst.ready" 2>"$d/flows$dst.log" &
		else
			ip netns exec "$(fab_ns "$dst")" "$PERF" server --proto sird --port 4800 \
				--ready "$d/srv$dst.ready" 2>"$d/server$dst.log" &
		fi
		srv+=($!)
		TOPO_PIDS+=($!)
		fab_ready "$d/srv$dst.ready"
	done
	for ((h = 1; h <= fab_hosts; h++)); do
		dst=$(incast_dst "$r" "$h")
		[ -n "$dst" ] || continue
		echo "$h $dst" >>"$d/pairs"
		n=${senders[$dst]}
		if [ "$proto" = tcp ]; then
			ip netns exec "$(fab_ns "$h")" "$FLOWS" send --dst "$(fab_ip "$dst")" \
				--port 5500 --id "$h" --flows 1 --duration "$INCAST_SECONDS" --cc cubic &
		else
			ip netns exec "$(fab_ns "$h")" timeout $((INCAST_SECONDS + 40)) "$PERF" client \
				--server "$(fab_ip "$dst"):4800" --proto sird --workload fixed:60000 \
				--load "$(awk -v n="$n" 'BEGIN { printf "%.4f", 1.5 / n }')" \
				--link-mbps "$MBIT" --duration "$INCAST_SECONDS" --drain 10 --seed "$h" \
				--json >"$d/client$h.json" 2>"$d/client$h.log" &
		fi
		pids+=($!)
	done
	topo_nap 2
	host_bytes >"$d/bytes-before"
	w0=$(date +%s.%N)
	topo_nap $((INCAST_SECONDS - 4))
	host_bytes >"$d/bytes-after"
	w1=$(date +%s.%N)
	echo "$w0 $w1" >"$d/window"
	for h in "${pids[@]}"; do
		wait "$h"
	done
	fab_qdiscs >"$d/qdiscs"
	for h in "${srv[@]}"; do
		kill "$h" 2>/dev/null
		wait "$h"
	done
	python3 "$FAB" teardown "$TOPO_PREFIX"
}

echo "fabric-ndp: incasts to 1, 4 and 16 receivers" >&2
for r in 1 4 16; do
	incast_run sird sird "$r" "trim limit 12" "trim limit 24"
	incast_run cubic tcp "$r" "" ""
done
echo "fabric-ndp: ping during an incast" >&2
ping_run cubic-fifo200 tcp ""
ping_run sird-trim12 sird "trim limit 12"
ping_run cubic-trim12 tcp "trim limit 12"
echo "fabric-ndp: three flows over three spines" >&2
paths_run cubic-ecmp tcp spray ""
paths_run sird-spray sird spray "trim limit 12"
paths_run sird-hashed sird flow "trim limit 12"
bench_report "$DIR" "$TREE/scripts/lib/bench_fabric_ndp_report.py" "$DIR" "$MBIT"
