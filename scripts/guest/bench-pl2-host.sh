#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pl2-host part of `make bench` (issue 25), inside the VM: sch_pl2 on
# every sender makes unmodified TCP and plain UDP PL2 senders, with
# tools/pl2-switch (--any-transport) on every switch port; against the
# same traffic without PL2, in one run:
#
#   senders 1..N (incast: TCP servers, UDP blasters) ----\
#   sender N+1 (small-RPC client) ------------------------ switch netns --(r0)--> receiver
#
# Every link runs at BENCH_PL2_HOST_MBIT both ways (a tbf on each switch
# port and on each host's uplink, perf_shape_edges); the switch's port to
# the receiver is the bottleneck, one drop-tail FIFO of
# BENCH_PL2_HOST_QLIMIT full packets (perf_fifo, which keeps its peak and
# drops).  With PL2 each sender's tbf gets `pl2 rate LINK slot SLOT k 4`
# as its child in place of its default FIFO, and pl2-switch runs on every
# switch port (`--any-transport --kmax 4 --slot-ns SLOT`, counter mode);
# without, the switch program is detached.  SLOT is a 1514-byte frame at
# BENCH_PL2_HOST_SLOT_PCT percent of the link (100: at the link's rate).
#
# Sections (BENCH_PL2_HOST_SECTIONS, default all three):
#   tcp   for each load L of BENCH_PL2_HOST_LOADS (4 8: 400% and 800%):
#         `cubic` then `cubic-pl2`.  Each of the N senders runs a TCP
#         server answering 100-byte requests with 64 KB; a shoal-perf
#         client per sender on the receiver asks it open loop (Poisson)
#         at L/N of the port in answer bytes for BENCH_PL2_HOST_SECONDS,
#         then waits up to the drain (BENCH_PL2_HOST_DRAIN, default
#         2 x L x the arrivals + 10 s: the port needs L x the arrivals'
#         time to carry them) for the last answers.  Meanwhile sender N+1
#         sends BENCH_PL2_HOST_RPC_RATE small requests a second (64 bytes,
#         Poisson, answered by 8) to a server on the receiver: they cross
#         the congested port.  Measured: the small RPCs' completion times,
#         the incast's RPCs issued and answered, its goodput, the port's
#         peak queue and drops, what the port sent over the middle half of
#         the arrivals (wire), the pl2 counters of every sender, the
#         switch's counters.
#   udp   `udp` then `udp-pl2`: the N senders blast BENCH_PL2_HOST_UDP_COUNT
#         1000-byte datagrams each at the port's rate (N x the port) to a
#         port that is not Shoal's, shoal-sink counting on the receiver.
#   cost  an uncongested path (no shaper on sender 1's uplink, on the
#         switch's port towards it or on the port to the receiver; the
#         switch program attached at BENCH_PL2_HOST_COST_MBIT's slot):
#         sender 1 blasts BENCH_PL2_HOST_COST_COUNT 64-byte datagrams as
#         fast as it can with `pfifo` and with `pl2` (rate and slot of
#         COST_MBIT, K 4) as its root, BENCH_PL2_HOST_COST_ROUNDS rounds,
#         the order alternating; per run the guest's busy CPU time
#         (/proc/stat, from the blaster's start to the sink's last packet)
#         per packet sent, the blaster's rate and the rate delivered.
# The report (scripts/lib/bench_pl2_host_report.py) prints the tables,
# the ratios against the runs without PL2 and the issue's goals; this
# part's DIR (meta, report.txt, raw files) is build/bench/bench/pl2-host,
# from which scripts/bench writes build/bench/pl2-host.md and, when the
# part ran whole, Documentation/results/sch_pl2.md.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# topo_run's values arrive by source
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"
# shellcheck source=../lib/bench-lib.sh
source "$TREE/scripts/lib/bench-lib.sh"

N=${BENCH_PL2_HOST_SENDERS:-6}			# incast senders
LINK=${BENCH_PL2_HOST_MBIT:-20}			# Mbit/s, every link
DUR=${BENCH_PL2_HOST_SECONDS:-10}		# a TCP case's arrivals
LOADS=${BENCH_PL2_HOST_LOADS:-4 8}		# TCP offered load, x the port
QLIMIT=${BENCH_PL2_HOST_QLIMIT:-100}		# the port's FIFO, full packets
RPC_RATE=${BENCH_PL2_HOST_RPC_RATE:-50}		# small requests a second
DRAIN=${BENCH_PL2_HOST_DRAIN:-}			# s; empty: 2 x load x DUR + 10
CONNS=${BENCH_PL2_HOST_CONNECTIONS:-2}		# TCP connections per incast client
SLOT_PCT=${BENCH_PL2_HOST_SLOT_PCT:-100}	# the slot's rate, % of LINK
UDP_COUNT=${BENCH_PL2_HOST_UDP_COUNT:-2000}	# datagrams per sender
COST_COUNT=${BENCH_PL2_HOST_COST_COUNT:-30000}	# datagrams a cost run
COST_ROUNDS=${BENCH_PL2_HOST_COST_ROUNDS:-3}	# runs of each root
COST_MBIT=${BENCH_PL2_HOST_COST_MBIT:-10000}	# pl2's rate there (veth's speed)
SECTIONS=${BENCH_PL2_HOST_SECTIONS:-tcp udp cost}
K=4				# pl2 k, pl2-switch --kmax
RESP=65536			# an incast answer
REQ=100				# an incast request
RPC_SIZE=64			# a small request (answered by 8)
UDP_SIZE=1000			# UDP payload (1074-byte frames)
COST_SIZE=64			# UDP payload of the cost runs
PORT=4800			# shoal-perf's servers
UDP_PORT=9000			# not Shoal's: plain UDP to pl2 and the switch
CLI=$((N + 1))			# the small-RPC client's sender number
# a slot: a full frame at SLOT_PCT of the link (605.6 us at 20 Mbit/s)
SLOT_NS=$(((1514 * 8 * 1000 * 100 + LINK * SLOT_PCT - 1) / (LINK * SLOT_PCT)))
COST_SLOT_NS=$(((1514 * 8 * 1000 + COST_MBIT - 1) / COST_MBIT))
UDP_PPS=$((LINK * 1000000 / 8 / (UDP_SIZE + 74)))	# each sender at the port's rate
DIR=${VM_OUT:-/tmp}/bench/pl2-host
PERF_DIR=$DIR
SW_ON=0

[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
[ -x "$PL2SW" ] || topo_die "missing $PL2SW (make tools)"
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*
bench_meta "$DIR" hosts=$((N + 2)) host_mbit="$LINK" senders="$N" slot_ns="$SLOT_NS" \
	cost_slot_ns="$COST_SLOT_NS" k="$K" resp="$RESP" req="$REQ" rpc_size="$RPC_SIZE" \
	udp_size="$UDP_SIZE" udp_pps="$UDP_PPS" cost_size="$COST_SIZE" \
	clk_tck="$(getconf CLK_TCK)" cpus="$(nproc)" \
	BENCH_PL2_HOST_SENDERS="$N" BENCH_PL2_HOST_MBIT="$LINK" BENCH_PL2_HOST_SECONDS="$DUR" \
	BENCH_PL2_HOST_LOADS="$LOADS" BENCH_PL2_HOST_QLIMIT="$QLIMIT" \
	BENCH_PL2_HOST_RPC_RATE="$RPC_RATE" BENCH_PL2_HOST_DRAIN="$DRAIN" \
	BENCH_PL2_HOST_CONNECTIONS="$CONNS" BENCH_PL2_HOST_SLOT_PCT="$SLOT_PCT" \
	BENCH_PL2_HOST_UDP_COUNT="$UDP_COUNT" BENCH_PL2_HOST_COST_COUNT="$COST_COUNT" \
	BENCH_PL2_HOST_COST_ROUNDS="$COST_ROUNDS" BENCH_PL2_HOST_COST_MBIT="$COST_MBIT" \
	BENCH_PL2_HOST_SECTIONS="$SECTIONS"

topo_modules sch_trim sch_pl2
topo_init bpl2host
# the switch's maps are pinned outside its namespace: unpin them too
trap '[ "$SW_ON" = 1 ] && ip netns exec "$TOPO_SW" "$PL2SW" detach -a; topo_teardown' EXIT
topo_build "$CLI" >/dev/null
SRV=$(topo_rx_addr 4)
PERF_HOSTS=("$TOPO_RX")
for ((i = 1; i <= CLI; i++)); do
	PERF_HOSTS+=("$(topo_sender_ns "$i")")
done
perf_cc cubic
perf_shape_edges "$LINK"
BURST=$(perf_burst "$LINK")

section_wanted()
{
	[[ " $SECTIONS " == *" $1 "* ]]
}

# sw_attach SLOT_NS: pl2-switch on every switch port, for other transports
sw_attach()
{
	perf_pl2_attach --any-transport --kmax "$K" --slot-ns "$1"
	SW_ON=1
}

sw_detach()
{
	[ "$SW_ON" = 1 ] || return 0
	SW_ON=0
	ip netns exec "$TOPO_SW" "$PL2SW" detach -a || topo_die "pl2-switch detach -a"
}

# uplinks plain|pl2: every sender's eth0 (the incast's and the RPC
# client's) a tbf at the link's rate over its default FIFO, or over pl2;
# a fresh qdisc each case, so that its counters are the case's
uplinks()
{
	local i pids=() p rc=0 f

	for ((i = 1; i <= CLI; i++)); do
		f=$DIR/uplink-$i.batch
		{
			echo "qdisc del dev eth0 root"
			echo "qdisc add dev eth0 root handle 1: tbf rate ${LINK}mbit burst $BURST limit 4000000"
			[ "$1" = pl2 ] && echo "qdisc add dev eth0 parent 1:1 handle 10: pl2" \
				"rate ${LINK}mbit slot ${SLOT_NS}ns k $K"
		} >"$f"
		tc -n "$(topo_sender_ns "$i")" -batch "$f" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || topo_die "the senders' uplinks ($1)"
}

# hosts_save PREFIX: every sender's eth0 qdiscs (tc -s -j) in PREFIX.hostI.json
hosts_save()
{
	local i pids=()

	for ((i = 1; i <= CLI; i++)); do
		tc -n "$(topo_sender_ns "$i")" -s -j qdisc show dev eth0 >"$1.host$i.json" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# switch_save PREFIX: the switch's qdiscs on every port (PREFIX.swq) and,
# with its program attached, its counters (PREFIX.switch)
switch_save()
{
	tc -n "$TOPO_SW" -s -j qdisc show >"$1.swq"
	if [ "$SW_ON" = 1 ]; then
		# the exchanges still running end within a slot or a timeout
		topo_nap 0.5
		perf_pl2_show "$1.switch"
	fi
}

# ---- TCP ----

# servers_start: each incast sender's server (64 KB answers), the small
# RPCs' server on the receiver (8-byte answers)
servers_start()
{
	local i t

	for ((i = 1; i <= N; i++)); do
		rm -f "$DIR/srv$i.ready"
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" server --proto tcp --port "$PORT" \
			--resp-size "$RESP" --ready "$DIR/srv$i.ready" 2>"$DIR/server-inc$i.log" &
		PERF_SPIDS+=($!)
		TOPO_PIDS+=($!)
	done
	for ((i = 1; i <= N; i++)); do
		for ((t = 0; t < 600; t++)); do
			[ -e "$DIR/srv$i.ready" ] && break
			topo_nap 0.05
		done
		[ -e "$DIR/srv$i.ready" ] || topo_die "sender $i's server did not start"
	done
	perf_server rpc tcp "$PORT"
}

# tcp_case NAME LOAD: NAME cubic or cubic-pl2, LOAD x the port
tcp_case()
{
	local t=$1 l=$2 p=$DIR/$1-$2 i pids=() load maxo drain mode=plain

	[ "$t" = cubic-pl2 ] && mode=pl2
	# per client: l / N of the port in 64 KB answers to 100-byte requests
	# (shoal-perf's --load is of request bytes)
	load=$(awk -v l="$l" -v n="$N" -v q="$REQ" -v r="$RESP" \
		'BEGIN { printf "%.9f", l / n * q / r }')
	# room for twice the arrivals a client draws, so that none is dropped
	maxo=$(awk -v l="$l" -v n="$N" -v k="$LINK" -v r="$RESP" -v d="$DUR" \
		'BEGIN { m = 2 * l / n * k * 1e6 / 8 / r * d; printf "%d", m < 1024 ? 1024 : m }')
	drain=${DRAIN:-$(awk -v l="$l" -v d="$DUR" 'BEGIN { printf "%d", 2 * l * d + 10 }')}
	uplinks "$mode"
	perf_fifo "$LINK" "$QLIMIT" off 48
	[ "$mode" = pl2 ] && sw_attach "$SLOT_NS"
	# every client at once; --rtt-us: no idle probes (an incast client's
	# would each fetch 64 KB), so all start their arrivals together (the
	# slowdowns it scales are not reported)
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$TOPO_RX" "$PERF" client --proto tcp \
			--server "$(topo_sender_addr "$i" 4):$PORT" --json --seed "$i" \
			--workload "fixed:$REQ" --load "$load" --link-mbps "$LINK" \
			--duration "$DUR" --drain "$drain" --max-outstanding "$maxo" \
			--connections "$CONNS" --rtt-us 1000 \
			>"$p-inc$i.json" 2>"$p-inc$i.txt" &
		pids+=($!)
	done
	ip netns exec "$(topo_sender_ns "$CLI")" "$PERF" client --proto tcp \
		--server "$SRV:$PORT" --json --seed "$CLI" \
		--workload "fixed:$RPC_SIZE" --link-mbps "$LINK" \
		--load "$(awk -v r="$RPC_RATE" -v s="$RPC_SIZE" -v k="$LINK" \
			'BEGIN { print r * s * 8 / (k * 1e6) }')" \
		--duration "$DUR" --drain "$drain" --connections 8 --rtt-us 1000 \
		>"$p-rpc.json" 2>"$p-rpc.txt" &
	pids+=($!)
	# the port's real rate over the middle half of the arrivals
	topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 4 }')"
	perf_port_sample "$p.rate"
	topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 2 }')"
	perf_port_sample "$p.rate"
	wait "${pids[@]}"
	topo_qdisc_save "$p.qdisc"
	hosts_save "$p"
	switch_save "$p"
	sw_detach
	echo "$t $l $drain $maxo" >>"$DIR/tcp-runs"
}

# ---- UDP ----

# udp_case NAME: udp or udp-pl2; every incast sender at the port's rate
udp_case()
{
	local t=$1 p=$DIR/$1 mode=plain

	[ "$t" = udp-pl2 ] && mode=pl2
	uplinks "$mode"
	perf_fifo "$LINK" "$QLIMIT" off 48
	[ "$mode" = pl2 ] && sw_attach "$SLOT_NS"
	topo_run "$p" "$N" 4 --port "$UDP_PORT" --expect $((N * UDP_COUNT)) --idle 3000 \
		--timeout 300 -- --port "$UDP_PORT" --count "$UDP_COUNT" --size "$UDP_SIZE" \
		--rate "$UDP_PPS"
	hosts_save "$p"
	switch_save "$p"
	sw_detach
	echo "$t $softnet" >>"$DIR/udp-runs"
}

# ---- cost ----

# cost_run QDISC ROUND: sender 1 blasts COST_COUNT datagrams through QDISC
# (pfifo or pl2) at the root of its eth0, as fast as it can; appends
# "QDISC ROUND T0 T1 CPU0... CPU1..." (wall clock, /proc/stat's cpu line
# less its name and guest times, before and after) to DIR/cost-samples
cost_run()
{
	local q=$1 r=$2 d=$DIR/cost-$1-$2 ns pid t0 t1 i root
	local u0 n0 s0 i0 w0 q0 sq0 st0 u1 n1 s1 i1 w1 q1 sq1 st1 _rest

	ns=$(topo_sender_ns 1)
	mkdir -p "$d"
	root="pfifo limit 10000"
	# a limit above what the blaster's 8 MB socket buffer holds: the
	# socket, not a drop, holds the sender back
	[ "$q" = pl2 ] && root="pl2 rate ${COST_MBIT}mbit slot ${COST_SLOT_NS}ns k $K limit 100000"
	printf 'qdisc del dev eth0 root\nqdisc add dev eth0 root handle 1: %s\n' "$root" \
		>"$d/root.batch"
	tc -n "$ns" -batch "$d/root.batch" || topo_die "$root on sender 1"
	topo_sink "$d/sink.json" -4 --port "$UDP_PORT" --expect "$COST_COUNT" --idle 2000 \
		--timeout 300
	rm -f "$d/blast-1.ready"
	ip netns exec "$ns" "$BLAST" -4 --dst "$SRV" --id 1 --port "$UDP_PORT" \
		--count "$COST_COUNT" --size "$COST_SIZE" --ready "$d/blast-1.ready" \
		--json "$d/blast-1.json" 2>"$d/blast-1.log" &
	pid=$!
	TOPO_PIDS+=("$pid")
	for ((i = 0; i < 1200; i++)); do
		[ -e "$d/blast-1.ready" ] && break
		kill -0 "$pid" 2>/dev/null || break
		topo_nap 0.05
	done
	# no fork from here to the end: builtins only
	read -r _ u0 n0 s0 i0 w0 q0 sq0 st0 _rest </proc/stat
	t0=$EPOCHREALTIME
	kill -USR1 "$pid"
	wait "$pid" || topo_log "cost $q $r: the blaster failed"
	topo_sink_wait || topo_log "cost $q $r: shoal-sink failed"
	t1=$EPOCHREALTIME
	read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _rest </proc/stat
	TOPO_PIDS=("${TOPO_PIDS[@]/$pid}")
	echo "$q $r $t0 $t1 $u0 $n0 $s0 $i0 $w0 $q0 $sq0 $st0 $u1 $n1 $s1 $i1 $w1 $q1 $sq1 $st1" \
		>>"$DIR/cost-samples"
	tc -n "$ns" -s -j qdisc show dev eth0 >"$d/host.json"
}

if section_wanted tcp; then
	servers_start
	: >"$DIR/tcp-runs"
	for l in $LOADS; do
		for t in cubic cubic-pl2; do
			echo "pl2-host: $t at ${l}x" >&2
			tcp_case "$t" "$l"
		done
	done
	perf_servers_stop
fi
if section_wanted udp; then
	: >"$DIR/udp-runs"
	for t in udp udp-pl2; do
		echo "pl2-host: $t at ${N}x" >&2
		udp_case "$t"
	done
fi
if section_wanted cost; then
	echo "pl2-host: cost, pfifo and pl2 at the root, $COST_ROUNDS rounds" >&2
	# nothing shapes the path: sender 1's uplink is the qdisc under test
	topo_link_qdisc_del
	tc -n "$TOPO_SW" qdisc del dev s1 root 2>/dev/null
	sw_attach "$COST_SLOT_NS"
	: >"$DIR/cost-samples"
	for ((r = 1; r <= COST_ROUNDS; r++)); do
		if ((r % 2)); then
			cost_run pfifo "$r"
			cost_run pl2 "$r"
		else
			cost_run pl2 "$r"
			cost_run pfifo "$r"
		fi
	done
	switch_save "$DIR/cost"
	sw_detach
fi
topo_link_qdisc_del

bench_report "$DIR" "$TREE/scripts/lib/bench_pl2_host_report.py" "$DIR"
