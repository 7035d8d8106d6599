#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pl2-incast: PL2 end to end.  Senders 1-4 send Shoal messages over PL2
# sockets (IPPROTO_PL2) to one receiver through the switch namespace, whose
# ports all run pl2-switch (counter mode, the paper's Algorithm 1, with
# the output's queue counted, the default); sender 5 is an RPC client.
# Every link is 20 Mbit/s (a slot, one 1514-byte frame at 95% of it, is
# 637.5 us): each host's eth0 is a tbf at that rate over prio bands (RSVs and GRTs, TC_PRIO_CONTROL, go ahead of data, as the paper's
# 802.1Q priority), so that net.shoal.pl2_rate_mbps, 20 everywhere, is
# the truth; the switch's port to the receiver is a tbf over trim with
# nothing eligible for trimming: data in a deep drop-tail FIFO of QLIMIT
# packets, whose drops and exact peak it counts, control packets (CS6) in
# its header queue ahead of it.  Under TCG the guest moves about 25 kpps
# in all: at this rate the guest's timers, not its CPU, time the bursts.
# The endpoint's protocol settings are its defaults (K 4, t 2, one
# exchange per destination, RSV timeout 20 ms); one time constant is
# scaled to the emulated link: net.shoal.resend_ms 50 (a message's
# bursts come N x K slots apart, 10 ms, plus the exchanges: the default
# 10 ms makes the receiver ask again for bytes that only wait for their
# slot).
#   1. Idle: the RPC client's small RPCs (shoal-perf --proto pl2, 100-byte
#      requests, Poisson, 40/s for 3 s) alone; their p50/p99 latency.
#   2. Incast: the 4 senders at once, 5 x 600 KB each (each alone could
#      fill the link for the whole run: 400% offered load), the RPCs
#      beside them.  Checked: every message arrives intact and once;
#      nothing is lost (no drop at the port or in any uplink, no DATA
#      sent again, no RESEND, no timeout); the switch answered every RSV
#      (the receiver none); bursts of at most K packets;
#      the switch's counters back to 0; the port's data queue peaks at
#      most at QBOUND packets, about the paper's peak PL2 queue; with
#      perfect timing it would peak at (N + 1) x K x pl2_outstanding
#      packets: every host's reserved bursts arriving at once (pairwise
#      slots can collide, but no host holds more reserved; with
#      pl2-switch's queue counting, the default, a grant starts after
#      what waits in the queue, so collisions do not pile up) is
#      (N + 1) x K, 20; the rest is for the emulated link itself, whose
#      shaper is a timer: while it stalls, the switch's drain clock (at
#      the nominal rate) counts the queue gone and grants go on (with a
#      bucket of 2 packets at the port: 20-26 on an idle run, 62-86 in
#      full make check runs, 165-281 on a slower host; with PORT_BURST's
#      10 ms, 1-4 on that host); the RPCs' p99 within RPC_FACTOR x the
#      idle p99, plus the slots an RPC's request waits by design, plus
#      the guest's timers' lateness in this window (see the check).
#   3. A sender killed (kill -9) while its RSV is in flight (its GRTs
#      come back through 10 ms of netem, so that one nearly always is):
#      the survivors' messages all arrive; the victim left reserved
#      packets that never come, and with the switch's lease (--expire-us
#      LEASE_US) its sweep sets the counters back to 0, with no packet
#      passing, within 1.25 x the lease of the survivors' end (each RSV
#      moves a port's due time on) plus 2 s for the guest's `show`.
#   4. Comparison: the same incast (2 messages each) with the switch
#      detached, the receiver answering each RSV with slots 0, 0: the
#      drops, resends, queue peak and RPC p99 at the same port are
#      counted, not checked (they show that the checks of 2 can fail).
#   5. Every socket closed, shoal.ko holds no message, name, error, PL2
#      destination or burst (its object counts).
# A run's numbers: Documentation/testing.md.  Knobs for
# diagnosis: PL2_INCAST_T (net.shoal.pl2_t), PL2_INCAST_RESEND_MS,
# PL2_INCAST_RSV_TIMEOUT_US, PL2_INCAST_MSGS, PL2_INCAST_SIZE, PL2_INCAST_RATE,
# PL2_INCAST_RPC_FACTOR; PL2_INCAST_PROTO=sird runs 1, 2 and 4 over SIRD
# sockets instead (no PL2 counters).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PROTO=${PL2_INCAST_PROTO:-pl2}
N=4				# incast senders
CLI=5				# the RPC client's sender number
RATE=${PL2_INCAST_RATE:-20}	# Mbit/s, every link
FRAME=1514			# a full packet as tbf and the endpoint count it
# a slot: a full packet at 95% of RATE (637.5 us; 605.6 at RATE), as a
# shaper is set below the line it feeds: the guest's tbf delivers 91-97%
# of its rate (its timer fires late), and a switch that schedules the
# port faster than it sends fills the queue whatever PL2 does
SLOT_NS=$(((FRAME * 8 * 1000 * 100 + RATE * 95 - 1) / (RATE * 95)))
K=4				# net.shoal.pl2_k, pl2-switch --kmax
OUTSTANDING=1			# net.shoal.pl2_outstanding
# the port's tbf bucket: 10 ms of the link.  The shaper is a timer, and a
# firing sends at most its bucket: with 2 packets' worth, a stall of the
# guest's timer was capacity lost, and under the incast the port delivered
# well below its rate while the switch's drain clock, at the nominal rate,
# counted that queue gone (peaks of 165-281 packets on a slow host).  With
# 10 ms the port makes up a stall as the line would have sent during it
PORT_BURST=$((RATE * 1000000 / 8 / 100))
QLIMIT=1000			# the port's FIFO, packets: deep, so that the
				# queue's peak is measured, not cut off
QBOUND=128			# PL2's queue bound, packets: about the paper's
				# peak PL2 queue (136 full packets)
MSGS=${PL2_INCAST_MSGS:-5}	# per sender
SIZE=${PL2_INCAST_SIZE:-600000}	# 4 x 3 MB: 4.8 s of the link at best
CMP_MSGS=2			# per sender, in the comparison
RPC_SIZE=100
RPC_PER_S=40			# RPCs a second, Poisson
RPC_DUR=3			# seconds of RPC arrivals, idle and loaded
RPC_FACTOR=${PL2_INCAST_RPC_FACTOR:-2}
LEASE_US=1000000
RSV_TIMEOUT_US=${PL2_INCAST_RSV_TIMEOUT_US:-}	# net.shoal.pl2_rsv_timeout_us
RESEND_MS=${PL2_INCAST_RESEND_MS:-50}		# net.shoal.resend_ms
PL2_T=${PL2_INCAST_T:-}				# net.shoal.pl2_t
PORT=7000			# messages
PERF_PORT=4800			# RPCs
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
PL2SW=$TREE/tools/pl2-switch/pl2-switch
PERF=$TREE/tools/shoal-perf/shoal-perf
DIR=${OUT:-${VM_OUT:-/tmp}}/pl2-incast.d
CASES=()

if [ ! -x "$PERF" ] || [ ! -x "$PL2SW" ]; then
	topo_die "build the tools first: make tools"
fi
topo_modules sch_trim
modprobe sch_netem || topo_die "modprobe sch_netem"
shoal_module
topo_init pl2inc
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
	topo_die "cannot mount the BPF filesystem"
topo_build $CLI >/dev/null
mkdir -p "$DIR"
rm -f "$DIR"/*
RXADDR=$(topo_rx_addr 4)
MSS=$(ip netns exec "$TOPO_RX" sysctl -n net.shoal.mss) || topo_die "net.shoal.mss"
HOSTS=("$TOPO_RX")
for ((i = 1; i <= CLI; i++)); do
	HOSTS+=("$(topo_sender_ns "$i")")
done
export SHOAL_PROTO=$PROTO

# every host's uplink at RATE, a NIC's priority bands below it: RSVs and
# GRTs (skb->priority TC_PRIO_CONTROL) go ahead of data, as the paper's
# 802.1Q priority (an RSV that waited behind the last burst's packets
# would make Eq. 1 send every burst that much early)
for ns in "${HOSTS[@]}"; do
	tc -n "$ns" qdisc add dev eth0 root handle 1: tbf rate ${RATE}mbit burst 3000 \
		limit 10000000 &&
		tc -n "$ns" qdisc add dev eth0 parent 1:1 handle 10: prio ||
		topo_die "uplink qdiscs in $ns"
	ip netns exec "$ns" sysctl -qw net.shoal.pl2_rate_mbps=$RATE \
		net.shoal.pl2_slot_ns=$SLOT_NS net.shoal.pl2_k=$K \
		net.shoal.pl2_outstanding=$OUTSTANDING \
		${RSV_TIMEOUT_US:+net.shoal.pl2_rsv_timeout_us=$RSV_TIMEOUT_US} \
		${RESEND_MS:+net.shoal.resend_ms=$RESEND_MS} ${PL2_T:+net.shoal.pl2_t=$PL2_T} ||
		[ "$PROTO" = sird ] || topo_die "PL2 sysctls in $ns"
done

# check COND DESCRIPTION...: tap_ok with the description's words joined
check()
{
	tap_ok "$1" "${*:2}"
}

sw()
{
	ip netns exec "$TOPO_SW" "$PL2SW" "$@"
}

SW_PORTS=(r0)
for ((i = 1; i <= CLI; i++)); do
	SW_PORTS+=("s$i")
done

# reserved: the sum of every port's counters in pl2-switch show -j on stdin
reserved()
{
	grep -oE '"(in|out)_res": -?[0-9]+' | awk '{ s += $2 } END { print s + 0 }'
}

# port_queue: a new queue on r0, so that its peak counts this run only:
# data in a drop-tail FIFO of QLIMIT packets, control packets (CS6:
# GRTs, ACKs) in trim's header queue ahead of it, as the switch's 802.1Q
# priority of the paper
port_queue()
{
	topo_link_qdisc ${RATE}mbit $PORT_BURST 10000000 trim limit $QLIMIT elig_dscp 63 ||
		topo_die "r0 queue"
}

# snap TAG: every host's /proc/net/shoal/stats, the switch's counters
snap()
{
	local ns i=0

	for ns in "${HOSTS[@]}"; do
		ip netns exec "$ns" cat /proc/net/shoal/stats >"$DIR/$1.stats$i"
		tc -n "$ns" -s -j qdisc show dev eth0 >"$DIR/$1.up$i"
		i=$((i + 1))
	done
	sw show -j >"$DIR/$1.sw" 2>/dev/null || echo '{"ports": []}' >"$DIR/$1.sw"
}

# Everything about a run as shell assignments (missing values read as -1,
# so that checks on them fail): from DIR/NAME.*.  Host 0 is the receiver,
# 1..N the senders, CLI the RPC client.
#   rx_*, cli_*     the receiver's and the client's stats counter changes
#   tx_*            summed over senders 1..N
#   all_*           summed over every host
#   up_drops        drops in the hosts' uplink qdiscs during the run
#   sw_*            switch: in_res/out_res now summed over ports (res),
#                   per-port counter changes summed (rsv data unsol
#                   unsol_drop clamp expired), r0_out_res, s<i>_in_res
#   q_*             the port's FIFO: peak (packets), drops, sent
#   m_*             messages: good bad dups, per sender tag good m_tag<i>,
#                   senders' acked/failed, their elapsed max
#   rpc_*           RPC client: issued completed failed unanswered p50 p99,
#                   lag_max (its timer's largest lateness, us)
PY=$HERE/../lib/pl2_incast_values.py

values()
{
	eval "$(python3 "$PY" "$DIR" "$1" "$N" "$CLI")"
}

perf_server()
{
	rm -f "$DIR/srv.ready"
	ip netns exec "$TOPO_RX" "$PERF" server --proto "$PROTO" --port $PERF_PORT \
		--ready "$DIR/srv.ready" 2>"$DIR/srv.log" &
	SRV_PID=$!
	TOPO_PIDS+=("$SRV_PID")
	for ((i = 0; i < 600; i++)); do
		[ -e "$DIR/srv.ready" ] && return 0
		topo_nap 0.05
	done
	topo_die "shoal-perf server did not start"
}

# rpc NAME: RPC_DUR s of small RPCs from the client, JSON in DIR/NAME.rpc
rpc()
{
	ip netns exec "$(topo_sender_ns $CLI)" "$PERF" client --proto "$PROTO" \
		--server "$RXADDR:$PERF_PORT" --workload fixed:$RPC_SIZE \
		--load "$(awk -v r=$RPC_PER_S -v s=$RPC_SIZE -v l=$RATE \
			'BEGIN { print r * s * 8 / (l * 1e6) }')" \
		--link-mbps $RATE --duration $RPC_DUR --seed 3 --json \
		>"$DIR/$1.rpc" 2>"$DIR/$1.rpc.log"
}

# recv_start NAME COUNT: the receiver's messages, JSON in DIR/NAME.rx
recv_start()
{
	rm -f "$DIR/rx.ready"
	ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT "$2" 120 "$DIR/rx.ready" \
		>"$DIR/$1.rx" &
	RX_PID=$!
	for ((i = 0; i < 600; i++)); do
		[ -e "$DIR/rx.ready" ] && return 0
		topo_nap 0.05
	done
	topo_die "receiver did not start"
}

# senders_start NAME COUNT: senders 1..N, COUNT x SIZE each; pids in TX_PIDS
senders_start()
{
	TX_PIDS=()
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$MSGS_PY" send "$RXADDR" $PORT \
			"$2" "$SIZE" "$i" >"$DIR/$1.tx$i" &
		TX_PIDS+=($!)
	done
}

# finish NAME: after a run, save the port's queue and the counters
finish()
{
	tc -n "$TOPO_SW" -s -j qdisc show dev r0 >"$DIR/$1.qdisc"
	snap "$1.after"
	values "$1"
	{
		echo "# $1: receiver: $(cat "$DIR/$1.rx")"
		echo "# $1: receiver $(shoal_stats_delta "$(cat "$DIR/$1.before.stats0")" \
			"$(cat "$DIR/$1.after.stats0")")"
		echo "# $1: sender 1 $(shoal_stats_delta "$(cat "$DIR/$1.before.stats1")" \
			"$(cat "$DIR/$1.after.stats1")")"
		echo "# $1: switch: $(tr -d '\n' <"$DIR/$1.after.sw")"
	} | cut -c1-2000
	echo "# $1: port queue peak $q_peak packets, drops $q_drops, sent $q_sent;" \
		"uplink drops $up_drops; messages good $m_good bad $m_bad dup $m_duplicates;" \
		"DATA sent again $all_tx_retx_packets, RESENDs" \
		"$((rx_rx_resend_quiet + rx_rx_resend_trimmed)), timeouts $all_tx_timeout"
	echo "# $1: PL2: bursts $tx_pl2_bursts of $tx_pl2_burst_pkts packets," \
		"RSVs $tx_tx_rsv (switch $sw_rsv, receiver answered $rx_pl2_rsv_answered," \
		"timed out $all_pl2_rsv_timeout), unsolicited $all_pl2_unsol" \
		"(resent $all_pl2_unsol_resent, dropped by the switch $sw_unsol_drop)," \
		"stale GRTs $all_pl2_grt_stale, wait $((tx_pl2_wait_ns / 1000000)) ms," \
		"RSV-GRT $((tx_pl2_rsv_grt_ns / 1000000)) ms in all"
}

# ---- 1. idle RPCs ----
sw attach --kmax $K --slot-ns $SLOT_NS "${SW_PORTS[@]}" || topo_die "pl2-switch attach"
port_queue
perf_server
snap idle.before
rpc idle
rc=$?
tc -n "$TOPO_SW" -s -j qdisc show dev r0 >"$DIR/idle.qdisc"
snap idle.after
values idle
idle_p50=$rpc_p50 idle_p99=$rpc_p99
echo "# idle RPCs: $(head -c 600 "$DIR/idle.rpc.log" | tr '\n' ' ')"
check "rc == 0 && rpc_completed > 50 && rpc_completed == rpc_issued && rpc_failed == 0" \
	"idle: $rpc_completed of $rpc_issued RPCs answered ($rc), none failed;" \
	"latency p50 $idle_p50 us, p99 $idle_p99 us"

# ---- 2. 4 senders at 400%, RPCs beside them ----
port_queue
snap incast.before
recv_start incast $((N * MSGS))
senders_start incast "$MSGS"
t0=$(date +%s%N)
topo_nap 1
rpc incast
rc=$?
t_rpc=$((($(date +%s%N) - t0) / 1000000))
wait "${TX_PIDS[@]}"
wait "$RX_PID"
t_end=$((($(date +%s%N) - t0) / 1000000))
finish incast
check "m_good == N * MSGS && m_bad == 0 && m_duplicates == 0" \
	"incast: $((N * MSGS)) messages of $SIZE bytes arrive intact, once" \
	"(good $m_good, bad $m_bad, dup $m_duplicates) in $t_end ms"
check "m_acked == N * MSGS && m_failed == 0 && m_errors == 0" \
	"incast: the senders see all acknowledged (acked $m_acked, failed $m_failed)"
check "q_drops == 0 && up_drops == 0 && q_sent > 0" \
	"incast: no packet lost (port drops $q_drops, uplink drops $up_drops)"
check "all_tx_retx_packets == 0 && all_tx_timeout == 0 &&
	rx_rx_resend_quiet == 0 && rx_rx_resend_trimmed == 0" \
	"incast: no DATA sent again ($all_tx_retx_packets), no RESEND" \
	"($rx_rx_resend_quiet), no timeout ($all_tx_timeout)"
# the emulated link's stalls: see PORT_BURST and the header
bound=$QBOUND
check "q_peak >= 0 && q_peak <= bound" \
	"incast: the port's queue peaks at $q_peak packets <= $bound in a $QLIMIT-packet FIFO ($(((N + 1) * K * OUTSTANDING)) with perfect timing)"
if [ "$PROTO" = pl2 ]; then
	check "tx_tx_rsv > 0 && sw_rsv == all_tx_rsv && rx_pl2_rsv_answered == 0" \
		"incast: the switch answered every RSV ($sw_rsv of $all_tx_rsv, the senders'" \
		"$tx_tx_rsv), the receiver none ($rx_pl2_rsv_answered); GRTs later than the" \
		"RSV timeout: $all_pl2_rsv_timeout"
	check "tx_pl2_bursts > 0 && tx_pl2_burst_pkts <= K * tx_pl2_bursts &&
		tx_pl2_burst_pkts * $MSS >= N * MSGS * SIZE" \
		"incast: the senders' $((N * MSGS * SIZE)) bytes in $tx_pl2_bursts bursts of" \
		"$tx_pl2_burst_pkts packets, at most K each"
	check "sw_res == 0 && sw_ports == CLI + 1 && sw_expired == 0" \
		"incast: the switch's counters drained to 0 ($sw_res) by the DATA, the lease" \
		"(on by default) forgot none ($sw_expired; decrements that found 0:" \
		"$sw_clamp, unsolicited bursts resent $all_pl2_unsol_resent)"
fi
# An RPC's request waits, by design, for its grant's slot: behind every
# other host's reserved bursts (N x K slots) and the queue the switch's
# drain clock counts (at most its peak, measured above); its packet then
# joins the queue, which the emulated link, behind that clock, may still
# hold up to its peak.  With one exchange per destination (the paper's),
# a request that comes while the client's previous burst to the server
# waits for its slot waits for that exchange first: two exchanges.  Each
# burst leaves on a timer (Eq. 1's wait), which fires as late as the
# guest's timers do in this window; the client measures that on its own
# (its arrivals' lag, the same timers).  In runs where the check failed
# with one exchange and no lateness counted, the requests' own path
# (from the client's send to the server's receive stamp) held 25-41 ms
# of the tail and the server's wake-ups little; idle, the tail is the
# server's wake-ups.  RPC_FACTOR covers those swings.
slots_ms=$((2 * (N * K * OUTSTANDING + 2 * q_peak) * SLOT_NS / 1000000))
late_ms=$((2 * rpc_lag_max / 1000))
limit=$((RPC_FACTOR * idle_p99 + (slots_ms + late_ms) * 1000))
check "rc == 0 && rpc_completed > 50 && rpc_completed == rpc_issued && rpc_failed == 0" \
	"incast: $rpc_completed of $rpc_issued RPCs answered ($rc), none failed"
check "t_rpc < t_end" "incast: the RPCs ran within the incast ($t_rpc ms of $t_end ms)"
check "rpc_p99 > 0 && idle_p99 > 0 && rpc_lag_max >= 0 && rpc_p99 <= limit" \
	"incast: RPC p99 $rpc_p99 us (p50 $rpc_p50) <= $RPC_FACTOR x idle p99 $idle_p99 us +" \
	"$slots_ms ms of two exchanges' reservations and queue ahead + $late_ms ms, twice" \
	"the guest's timers' largest lateness ($(awk -v a="$rpc_p99" -v b="$idle_p99" \
		'BEGIN { printf "%.1f", (b > 0 ? a / b : -1) }')x idle)"
CASES+=("{\"case\": \"incast\", \"proto\": \"$PROTO\", \"queue_peak\": $q_peak, \"drops\": $q_drops, \"idle_p50_us\": $idle_p50, \"idle_p99_us\": $idle_p99, \"rpc_p50_us\": $rpc_p50, \"rpc_p99_us\": $rpc_p99, \"rpc_lag_max_us\": $rpc_lag_max, \"ms\": $t_end}")

# ---- 3. a sender killed with an RSV in flight; the lease ----
if [ "$PROTO" = pl2 ]; then
	victim=$N
	vns=$(topo_sender_ns $victim)
	sw detach -a >/dev/null
	sw attach --kmax $K --slot-ns $SLOT_NS --expire-us $LEASE_US "${SW_PORTS[@]}" ||
		topo_die "pl2-switch attach --expire-us"
	tc -n "$TOPO_SW" qdisc add dev "s$victim" root netem delay 10ms limit 10000 ||
		topo_die "netem on s$victim"
	# the victim sends no burst unsolicited: one that went beside its RSV
	# used up its own reservation at the switch, and a kill then leaves
	# nothing for the lease (the port is often free, so Algorithm 2 sent
	# most of the victim's bursts that way in some runs)
	victim_t=$(ip netns exec "$vns" sysctl -n net.shoal.pl2_t) &&
		ip netns exec "$vns" sysctl -qw net.shoal.pl2_t=0 ||
		topo_die "net.shoal.pl2_t in $vns"
	port_queue
	snap kill.before
	recv_start kill 100000	# till SIGTERM
	senders_start kill "$MSGS"
	topo_nap 1.5
	# an RSV of the victim's in flight: it sent more RSVs than GRTs came
	for ((i = 0; i < 200; i++)); do
		inflight=$(ip netns exec "$vns" awk '$1 == "tx_rsv" { t = $2 }
			$1 == "rx_grt" { r = $2 } END { print t - r }' /proc/net/shoal/stats)
		((inflight > 0)) && break
		topo_nap 0.01
	done
	kill -9 "${TX_PIDS[victim - 1]}"
	t0=$(date +%s%N)
	wait "${TX_PIDS[victim - 1]}" 2>/dev/null
	for ((i = 1; i < N; i++)); do
		wait "${TX_PIDS[i - 1]}"
	done
	t1=$(date +%s%N)
	t_surv=$(((t1 - t0) / 1000000))
	sw show -j >"$DIR/kill.left.sw"
	left=$(reserved <"$DIR/kill.left.sw")
	# The lease counts from when a port's reserved packets were due, and
	# every RSV through the port moves that on, so the victim's count on
	# the receiver's port is due about when the survivors end.  No packet
	# passes the switch from now on: only its sweep (every lease / 4) can
	# forget the count, within 1.25 x the lease, plus the time a `show`
	# takes in this guest
	bound_ms=$((LEASE_US * 5 / 4000 + 2000))
	while :; do
		sw show -j >"$DIR/kill.end.sw"
		t_zero=$((($(date +%s%N) - t1) / 1000000))
		res_end=$(reserved <"$DIR/kill.end.sw")
		((res_end == 0 || t_zero > 3 * bound_ms)) && break
		topo_nap 0.1
	done
	kill "$RX_PID" 2>/dev/null
	wait "$RX_PID"
	tc -n "$TOPO_SW" qdisc del dev "s$victim" root
	ip netns exec "$vns" sysctl -qw net.shoal.pl2_t="$victim_t"
	finish kill
	echo "# kill: RSV in flight at the kill: $inflight; survivors done $t_surv ms later;" \
		"reserved then $left packets: $(tr -d '\n' <"$DIR/kill.left.sw" | cut -c1-1500)"
	echo "# kill: victim delivered $m_tag4 of $MSGS; counters $res_end at $t_zero ms" \
		"after the survivors' end; reserved packets the lease forgot: $sw_expired"
	surv_ok=1
	for ((i = 1; i < N; i++)); do
		v=m_tag$i
		[ "${!v}" = "$MSGS" ] || surv_ok=0
	done
	check "$surv_ok && m_bad == 0 && m_duplicates == 0" \
		"kill: the survivors' $(((N - 1) * MSGS)) messages all arrive intact" \
		"($m_tag1 $m_tag2 $m_tag3), none bad ($m_bad)"
	check "inflight > 0 && sw_expired > 0" \
		"kill: the victim had an RSV in flight ($inflight) and left reserved packets" \
		"that never came ($sw_expired forgotten by the lease; $left still counted at" \
		"the survivors' end)"
	check "res_end == 0 && t_zero <= bound_ms && sw_ports == CLI + 1" \
		"kill: the switch's counters are back to 0 ($res_end) $t_zero ms after the" \
		"survivors' end, with no packet passing (bound: 1.25 x the lease" \
		"$((LEASE_US / 1000)) ms + 2 s = $bound_ms ms)"
	CASES+=("{\"case\": \"kill\", \"left\": $left, \"end\": $res_end, \"ms\": $t_zero, \"expired\": $sw_expired}")
	sw detach -a >/dev/null
else
	sw detach -a >/dev/null
fi

# ---- 4. comparison: no switch, no reservations ----
port_queue
snap noswitch.before
recv_start noswitch $((N * CMP_MSGS))
senders_start noswitch $CMP_MSGS
t0=$(date +%s%N)
topo_nap 1
rpc noswitch
rc=$?
wait "${TX_PIDS[@]}"
wait "$RX_PID"
t_end=$((($(date +%s%N) - t0) / 1000000))
finish noswitch
echo "# noswitch (counted, not checked): port drops $q_drops, peak $q_peak packets" \
	"(PL2's bound $bound), DATA sent again $all_tx_retx_packets, RPC p99 $rpc_p99 us" \
	"(p50 $rpc_p50), RPCs failed $rpc_failed; messages good $m_good in $t_end ms"
CASES+=("{\"case\": \"noswitch\", \"queue_peak\": $q_peak, \"drops\": $q_drops, \"retx\": $all_tx_retx_packets, \"rpc_p99_us\": $rpc_p99, \"ms\": $t_end}")
kill "$SRV_PID" 2>/dev/null
wait "$SRV_PID" 2>/dev/null
# every socket is closed (the killed sender's with its process): what
# they held is freed, a victim's reserved bursts too
shoal_objects_zero "once every socket is closed" out_msgs in_msgs done_names \
	send_errors pl2_dsts pl2_bursts
topo_write_results "$DIR/results.json" "\"test\": \"pl2-incast\""
tap_done
