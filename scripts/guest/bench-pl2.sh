#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PL2 part of `make bench`, inside the VM: PL2 (shoal.ko's IPPROTO_PL2
# sockets, tools/pl2-switch on every switch port, in each mode of
# BENCH_PL2_MODES: the paper's counters, and the self-healing clocks)
# against TCP cubic on one topology, in one run, as the paper's memcached
# experiment (section 6.2.1, spec section 4.3 E2) scaled to an emulated
# link:
#
#   sender 1 (RPC client) ----\
#   senders 2..N+1 (incast) ---- switch netns --(r0)--> receiver (servers)
#
# Every link runs at BENCH_PL2_MBIT both ways (a tbf on each switch port
# and on each host's uplink, so a sender cannot offer more than its link);
# the switch port towards the receiver is the bottleneck, one drop-tail
# FIFO of BENCH_PL2_QLIMIT full packets' bytes for both transports
# (perf_fifo: sch_trim with nothing eligible, which keeps its peak), with
# a band served first for DSCP CS6, where Shoal's control packets (PL2's
# RSVs and GRTs among them) go: the paper's switch gives them an 802.1Q
# priority so that they never wait behind data.  TCP marks nothing.
#
# For each transport (PL2 in each switch mode, cubic), two phases of
# BENCH_PL2_SECONDS:
#   idle    the RPC client alone: BENCH_PL2_RPC_RATE small requests
#           (BENCH_PL2_RPC_SIZE bytes, answered by 8) a second, Poisson
#   incast  the same RPCs while BENCH_PL2_INCAST senders each keep
#           BENCH_PL2_INCAST_OUTSTANDING messages of BENCH_PL2_INCAST_SIZE
#           bytes in flight to the same receiver (arrivals far above
#           what completes: each sender offers its whole uplink, together
#           BENCH_PL2_INCAST times the receiver's link)
# Measured: the RPCs' completion time p50/p99 (request sent until its
# answer is back), the incast's goodput as a fraction of the link, what
# the port really sent meanwhile, its peak queue and drops, and from the
# hosts' counters PL2's control bytes (RSVs and GRTs) against its data
# bytes, with the switch's counters.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

LINK=${BENCH_PL2_MBIT:-20}			# Mbit/s, every link
INCAST=${BENCH_PL2_INCAST:-4}			# background senders
DUR=${BENCH_PL2_SECONDS:-12}			# a phase
QLIMIT=${BENCH_PL2_QLIMIT:-100}			# the port's buffer, full packets
RPC_SIZE=${BENCH_PL2_RPC_SIZE:-64}		# bytes a request
# requests a second: 3% of the link's slots (1514-byte frames), as the
# paper's memcached client (about 90000 GETs a second at 100 Gbit/s); a
# PL2 burst of one small request takes a whole slot
RPC_RATE=${BENCH_PL2_RPC_RATE:-50}
INC_SIZE=${BENCH_PL2_INCAST_SIZE:-65536}	# bytes an incast message
INC_OUT=${BENCH_PL2_INCAST_OUTSTANDING:-4}	# in flight per incast sender
RESEND_MS=${BENCH_PL2_RESEND_MS:-50}		# as the SIRD part's
MODES=${BENCH_PL2_MODES:-counter clock}		# pl2-switch --mode, one run each
# the rate PL2 is told (pl2_rate_mbps, and the switch's slot): the link's;
# below it, headroom for an emulated link that delivers less than its rate
RATE=${BENCH_PL2_RATE:-$LINK}
# more pl2-switch options and sysctls of every host (ablations, e.g.
# "net.shoal.pl2_t=0": no unsolicited bursts)
SWITCH=${BENCH_PL2_SWITCH:-}
SYSCTLS=${BENCH_PL2_SYSCTLS:-}
PORT=4800
DIR=${VM_OUT:-/tmp}/bench-pl2
PERF_DIR=$DIR
# a slot: a full frame at that rate, as the endpoint counts it
SLOT_NS=$((1514 * 8 * 1000 / RATE))

[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
rm -rf "$DIR"
mkdir -p "$DIR"
shoal_module
topo_modules sch_trim
topo_init bpl2
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build $((INCAST + 1)) >/dev/null
SRV=$(topo_rx_addr 4)
PERF_HOSTS=("$TOPO_RX")
for ((i = 1; i <= INCAST + 1; i++)); do
	PERF_HOSTS+=("$(topo_sender_ns "$i")")
done

# PL2 as the paper runs it (K 4) at the emulated link's rate; resends
# after RESEND_MS (the guest's round trip swings by milliseconds)
perf_on_hosts sysctl -qw net.shoal.pl2_rate_mbps="$RATE" net.shoal.resend_ms="$RESEND_MS" \
	net.ipv4.tcp_congestion_control=cubic || topo_die "the hosts' sysctls"
if [ -n "$SYSCTLS" ]; then
	# shellcheck disable=SC2086	# a word list
	perf_on_hosts sysctl -qw $SYSCTLS || topo_die "sysctl $SYSCTLS"
fi
perf_shape_edges "$LINK"
perf_server pl2 pl2 "$PORT"
perf_server tcp tcp "$PORT"

# phase NAME PHASE: one run; NAME is pl2-<switch mode> or cubic, PHASE
# idle or incast
phase()
{
	local t=$1 ph=$2 p=pl2 name="$1-$2" i n=0 pids=()

	[ "$t" = cubic ] && p=tcp
	perf_fifo "$LINK" "$QLIMIT" off 48
	if [ "$p" = pl2 ]; then
		# shellcheck disable=SC2086	# a word list
		perf_pl2_attach --mode "${t#pl2-}" --slot-ns "$SLOT_NS" $SWITCH
		perf_shoal_stats "$DIR/$name.stats0"
	fi
	[ "$ph" = incast ] && n=$INCAST
	# every client at once: each first times a few RPCs alone (its idle
	# round trip), which the network still is then
	for ((i = 2; i <= n + 1; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$p" \
			--server "$SRV:$PORT" --json --seed "$i" \
			--workload "fixed:$INC_SIZE" --load 2 --link-mbps "$LINK" \
			--duration "$DUR" --drain 20 --max-outstanding "$INC_OUT" \
			--connections "$INC_OUT" \
			>"$DIR/$name-inc$i.json" 2>"$DIR/$name-inc$i.txt" &
		pids+=($!)
	done
	ip netns exec "$(topo_sender_ns 1)" "$PERF" client --proto "$p" \
		--server "$SRV:$PORT" --json --seed 1 \
		--workload "fixed:$RPC_SIZE" --link-mbps "$LINK" \
		--load "$(awk -v r="$RPC_RATE" -v s="$RPC_SIZE" -v l="$LINK" \
			'BEGIN { print r * s * 8 / (l * 1e6) }')" \
		--duration "$DUR" --drain 20 --connections 8 \
		>"$DIR/$name-rpc.json" 2>"$DIR/$name-rpc.txt" &
	pids+=($!)
	if [ "$ph" = incast ]; then
		# the link's real rate over the middle half of the arrivals
		topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 4 }')"
		perf_port_sample "$DIR/$name.rate"
		topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 2 }')"
		perf_port_sample "$DIR/$name.rate"
	fi
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$name.qdisc"
	if [ "$p" = pl2 ]; then
		# the exchanges still running end within a resend interval
		topo_nap 0.5
		perf_shoal_stats "$DIR/$name.stats1"
		perf_pl2_show "$DIR/$name.switch"
		perf_pl2_detach
	fi
	echo "$t $ph" >>"$DIR/runs"
}

: >"$DIR/runs"
# shellcheck disable=SC2086	# a word list
for t in $(printf 'pl2-%s ' $MODES) cubic; do
	for ph in idle incast; do
		echo "pl2: $t, $ph" >&2
		phase "$t" "$ph"
	done
done
topo_link_qdisc_del
perf_servers_stop

PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/bench_pl2_report.py" "$DIR" "$LINK" "$INCAST" "$QLIMIT" "$DUR" "$RPC_SIZE" "$RPC_RATE" "$INC_SIZE" \
	"$INC_OUT" "$SWITCH" "$SYSCTLS" "$RATE"
