#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Shoal transport part of `make bench`, inside the VM: SIRD (shoal.ko)
# against TCP cubic and DCTCP on one topology, in one run.  BENCH_SHOAL_CLIENTS
# client namespaces -> switch namespace -> one server namespace; the switch
# port towards the server is the bottleneck (tbf), its queue one marking
# FIFO for all three transports:
#
#   trim limit 100000 limit_bytes QLIMIT*1514 ecn_thresh K ctrl_dscp none
#        elig_dscp 63
#
# i.e. sch_trim with nothing eligible for trimming (SIRD's data carries
# DSCP 0, TCP is not UDP) and no header queue (SIRD's control packets get
# no priority TCP's ACKs do not get): a drop-tail FIFO of QLIMIT full
# packets' bytes (in bytes, as a switch's buffer: a limit in packets
# filled with W1's small messages and dropped before the marking
# threshold in bytes was ever reached) that sets CE on ECT packets leaving
# while more than K bytes wait, and keeps its peak length in packets and
# in bytes (data_qlen_max, data_backlog_max) exactly, which sampling from
# user space could not under TCG.  The peak in bytes is the one judged.
# DCTCP and SIRD (whose DATA is ECT(0) and whose receiver runs an ECN loop
# per sender) see the marks; cubic is not ECN-capable (tcp_ecn stays at
# its default, 2) and sees a drop-tail FIFO.
#
#   1. Small-RPC rate per core: closed loop, 8-byte requests and responses,
#      BENCH_SHOAL_RPC_OUTSTANDING in flight per client (shoal-perf with
#      arrivals far above what completes: the line is never empty), over
#      an unlimited port; completions a second over the CPUs busy meanwhile
#      (/proc/stat, all of the guest: client, server, softirq).
#   2. Slowdown: shoal-perf open loop, every workload of
#      BENCH_SHOAL_WORKLOADS at every load of BENCH_SHOAL_LOADS, each
#      workload at its own link rate (BENCH_SHOAL_LINKS; the guest completes
#      about a thousand RPCs a second, so W1's 188-byte mean needs a slow
#      link), per workload one transport after the other over the loads
#      (the same seeds for all three).  Every transport's
#      slowdown is against the same ideal: the smaller of SIRD's and TCP's
#      idle round trips from part 1.  Per run: goodput, slowdown p50/p99
#      (all messages, and group A: below one MSS), the port's peak queue.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

CLIENTS=${BENCH_SHOAL_CLIENTS:-2}
WORKLOADS=${BENCH_SHOAL_WORKLOADS:-W1 W2 W3 W4 W5}
LOADS=${BENCH_SHOAL_LOADS:-0.25 0.5 0.75}
LINKS=${BENCH_SHOAL_LINKS:-W1:1 W2:3 W3:20 W4:100 W5:100}	# Mbit/s
DUR=${BENCH_SHOAL_SECONDS:-5}		# of arrivals, per run
QLIMIT=${BENCH_SHOAL_QLIMIT:-100}	# the switch port's buffer, full-size packets
ECN_PKTS=${BENCH_SHOAL_ECN:-20}		# marking threshold, full-size packets
RPC_SECONDS=${BENCH_SHOAL_RPC_SECONDS:-5}
RPC_OUT=${BENCH_SHOAL_RPC_OUTSTANDING:-8}
# arrivals a second per client: a few times what completes under TCG, so
# the line never empties, but not many more (the client wakes for each)
RPC_OFFER=${BENCH_SHOAL_RPC_OFFER:-3000}
RESEND_MS=${BENCH_SHOAL_RESEND_MS:-50}	# see tools/testing/scenarios/shoal-perf.sh
SIRD_RTT_MS=${BENCH_SHOAL_SIRD_RTT_MS:-5}	# SIRD's BDP = link rate x this
PORT=4800
DIR=${VM_OUT:-/tmp}/bench-shoal
PERF_DIR=$DIR
ECN_BYTES=$((ECN_PKTS * 1514))

[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
rm -rf "$DIR"
mkdir -p "$DIR"
shoal_module
topo_modules sch_trim
modprobe tcp_dctcp || topo_die "modprobe tcp_dctcp"
# a namespace may only choose what the initial one allows
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"
topo_init bshoal
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$CLIENTS" >/dev/null
SRV=$(topo_rx_addr 4)
PERF_HOSTS=("$TOPO_RX")
for ((i = 1; i <= CLIENTS; i++)); do
	PERF_HOSTS+=("$(topo_sender_ns "$i")")
done

# port RATE_MBIT: the switch port at RATE, the marking FIFO below it
port()
{
	perf_fifo "$1" "$QLIMIT" "$ECN_BYTES"
}

# The servers stay up throughout: one SIRD socket on PORT, and a TCP
# listener per congestion control, each started under it: a server accepts
# ECN only from a listener that needs it (a SYN with ECT, as DCTCP's is, is
# otherwise taken for a broken middlebox's), and an accepted connection
# takes the namespace's congestion control of the moment, which cc() sets
# on every host before each run.
perf_on_hosts sysctl -qw net.shoal.resend_ms="$RESEND_MS" || topo_die "net.shoal.resend_ms"
declare -A SPORT=([sird]=$PORT [cubic]=$PORT [dctcp]=$((PORT + 1)))
perf_server sird sird "${SPORT[sird]}"
perf_cc dctcp
perf_server dctcp tcp "${SPORT[dctcp]}"
perf_cc cubic
perf_server cubic tcp "${SPORT[cubic]}"

# clients NAME TRANSPORT ARGS...: every client at once, DIR/NAME-I.json;
# TRANSPORT is sird, cubic or dctcp (whose congestion control is set)
clients()
{
	local name=$1 t=$2 proto=tcp i pids=()

	shift 2
	if [ "$t" = sird ]; then
		proto=sird
	elif [ "$t" != "$CC" ]; then
		perf_cc "$t"
		CC=$t
	fi
	for ((i = 1; i <= CLIENTS; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
			--server "$SRV:${SPORT[$t]}" --json --seed "$i" "$@" \
			>"$DIR/$name-$i.json" 2>"$DIR/$name-$i.txt" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# 1. small RPCs, closed loop: RPC_OFFER arrivals a second per client, more
# than complete, so RPC_OUT are always in flight and as many wait
port 10000
ip netns exec "$TOPO_RX" sysctl -qw net.shoal.sird_rate_mbps=0
echo "shoal: small-RPC rate, $CLIENTS clients x $RPC_OUT in flight, ${RPC_SECONDS}s" >&2
CC=cubic
for p in sird cubic; do
	head -n 1 /proc/stat >"$DIR/rpc-$p.cpu0"
	clients "rpc-$p" "$p" --workload fixed:8 --load 1 \
		--link-mbps "$(awk -v r="$RPC_OFFER" 'BEGIN { print r * 64 / 1e6 }')" \
		--duration "$RPC_SECONDS" --drain 5 --max-outstanding "$RPC_OUT" \
		--connections "$RPC_OUT"
	head -n 1 /proc/stat >"$DIR/rpc-$p.cpu1"
done
RTT=$(python3 "$TREE/scripts/lib/bench_shoal_rtt.py" "$DIR" "$CLIENTS")

# sird_link RATE_MBIT: SIRD's settings for a link of RATE, on every host.
# As the paper sets them: B = 1.5 BDP, UnschT = BDP, credit paced at the
# downlink's rate; the BDP over SIRD_RTT_MS, the round trip a grant sees
# under load in this guest (its idle one is a few hundred us, but a loaded
# one is milliseconds of CPU), and at least 2 MSS.  resend_ms at least the
# time 20 full packets take on the link (the marking threshold's worth of
# queue), at least RESEND_MS: at 1 Mbit/s a packet takes 12 ms, and a
# fixed 50 ms would take a few packets of queue for loss (TCP's RTO
# follows its round trip and is 200 ms at least).
sird_link()
{
	local bdp rs

	bdp=$(awk -v r="$1" -v t="$SIRD_RTT_MS" 'BEGIN { b = r * 1e3 * t / 8; printf "%d", b < 2800 ? 2800 : b }')
	rs=$(awk -v r="$1" -v m="$RESEND_MS" 'BEGIN { t = 20 * 1514 * 8 / (r * 1e3); printf "%d", t < m ? m : t + 1 }')
	perf_on_hosts sysctl -qw net.shoal.bdp="$bdp" net.shoal.unsch_thresh="$bdp" \
		net.shoal.sird_b=$((bdp * 3 / 2)) net.shoal.resend_ms="$rs" \
		net.shoal.sird_rate_mbps="$1" || topo_die "SIRD's sysctls for $1 Mbit/s"
	echo "$1 $bdp $((bdp * 3 / 2)) $rs" >>"$DIR/sird-settings"
}

# 2. the matrix: workload x load, the three transports in turn per cell
: >"$DIR/runs"
for w in $WORKLOADS; do
	link=$(tr ' ' '\n' <<<"$LINKS" | awk -F: -v w="$w" '$1 == w { print $2 }')
	[ -n "$link" ] || topo_die "no link rate for $w in BENCH_SHOAL_LINKS"
	sird_link "$link"
	echo "shoal: $w at $link Mbit/s" >&2
	# transport by transport (a change of congestion control costs a
	# few namespace execs), each over the loads
	for p in sird cubic dctcp; do
		for load in $LOADS; do
			port "$link"
			name="$w-$load-$p"
			clients "$name" "$p" --workload "$w" \
				--load "$(awk -v l="$load" -v n="$CLIENTS" 'BEGIN { print l / n }')" \
				--link-mbps "$link" --duration "$DUR" --drain 30 --rtt-us "$RTT"
			topo_qdisc_save "$DIR/$name.qdisc"
			echo "$w $load $p $link $name" >>"$DIR/runs"
		done
	done
done
topo_link_qdisc_del
perf_servers_stop

PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/bench_shoal_report.py" "$DIR" "$CLIENTS" "$RTT" "$QLIMIT" "$ECN_PKTS" "$DUR" "$RPC_OUT"
