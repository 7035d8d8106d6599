#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Shoal transport over trimming and overloaded ports, a part of `make
# bench` (issue 22's goals), inside the VM.  BENCH_SHOAL_TRIM_CLIENTS (8)
# sender namespaces -> switch namespace -> one receiver namespace; the
# switch port towards the receiver is the bottleneck (a tbf at the link
# rate, its burst perf_burst's).  Shoal's hosts get BENCH_SHOAL_TRIM_SYSCTLS
# ("LINK" in it is the link's rate: by default net.shoal.link_mbps, which
# SIRD's pacers and sizes and PL2's rate follow, and a 50 ms resend
# interval, the rest the module's defaults).
#
#   1. Trimming: every workload of BENCH_SHOAL_TRIM_WORKLOADS (fixed:60000,
#      an incast of 60 KB RPCs; W3; W4; none: no trimming runs) at every load of
#      BENCH_SHOAL_TRIM_LOADS (0.5 0.8 0.95), at its link rate
#      (BENCH_SHOAL_TRIM_LINKS), SIRD, PL2 (with tools/pl2-switch on the
#      switch's ports, its slot a full frame at the link's rate, more
#      attach options in BENCH_SHOAL_TRIM_PL2_SWITCH), TCP cubic
#      and DCTCP (BENCH_SHOAL_TRIM_TRANSPORTS) over the same seeded
#      Poisson arrivals,
#      BENCH_SHOAL_TRIM_SECONDS (6) a run, all senders at once, through
#
#        trim limit QLIMIT ecn_thresh ECN
#
#      (BENCH_SHOAL_TRIM_QLIMIT 12 packets, BENCH_SHOAL_TRIM_ECN 4 full
#      packets' bytes): trim cuts Shoal's DATA to headers (it takes UDP);
#      TCP is not eligible and is dropped at the same 12 packets; ECT
#      packets leaving while more than ECN bytes wait get CE, which DCTCP
#      and SIRD's ECN loop read (cubic is not ECN-capable).
#   2. Overload: BENCH_SHOAL_OVER_SENDERS (4) SIRD senders and one TCP
#      sender on one connection (cubic, then DCTCP: BENCH_SHOAL_OVER_TCP),
#      RPCs of
#      BENCH_SHOAL_OVER_SIZE (60000) bytes, each
#      offering BENCH_SHOAL_OVER_LOAD (3) / (senders + 1) of a
#      BENCH_SHOAL_OVER_MBIT (20) Mbit/s port, through each queue of
#      BENCH_SHOAL_OVER_QDISCS (label=spec; pfifo limit 1000, the trim
#      port above, afq limit 1000: issue 22's; none: no overload runs),
#      BENCH_SHOAL_TRIM_SECONDS of
#      arrivals and up to BENCH_SHOAL_OVER_DRAIN (30) s for the answers,
#      Shoal's hosts with BENCH_SHOAL_OVER_SYSCTLS on top
#      (net.shoal.sird_rx_fair_permille=1000: credit round robin over the
#      sender hosts; empty: the trimming runs' settings).  Over the middle of the arrivals (from its second second to its
#      last), the port's bytes sent (the tbf's counter: its busy fraction
#      at the rate) and what the receiver got from each sender (a flower
#      filter per source address on its ingress): the shares, TCP's
#      among them, and Jain's index over the senders.  First, as the
#      reference of what the emulated port delivers when it is never
#      idle, the TCP sender alone at the same 3x through pfifo.
#
# Per run the senders' shoal-perf JSON, the port's tc -s -j dump and, for
# SIRD, every host's /proc/net/shoal/stats before and after (overload:
# also the receiver's and sender 1's /proc/net/shoal/sird); the report is
# scripts/lib/bench_shoal_trim_report.py.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

CLIENTS=${BENCH_SHOAL_TRIM_CLIENTS:-8}
WORKLOADS=${BENCH_SHOAL_TRIM_WORKLOADS:-fixed:60000 W3 W4}
LOADS=${BENCH_SHOAL_TRIM_LOADS:-0.5 0.8 0.95}
# Mbit/s: what the guest keeps up with under TCG (about a thousand RPCs a
# second in all: W3's 2.9 KB mean at 95% of 10 Mbit/s asks for 400)
LINKS=${BENCH_SHOAL_TRIM_LINKS:-fixed:60000=50 W3=10 W4=50}
TRANSPORTS=${BENCH_SHOAL_TRIM_TRANSPORTS:-sird pl2 cubic dctcp}
DUR=${BENCH_SHOAL_TRIM_SECONDS:-6}
QLIMIT=${BENCH_SHOAL_TRIM_QLIMIT:-12}
ECN_PKTS=${BENCH_SHOAL_TRIM_ECN:-4}
SYSCTLS=${BENCH_SHOAL_TRIM_SYSCTLS:-net.shoal.resend_ms=50 net.shoal.link_mbps=LINK}
PL2_SWITCH=${BENCH_SHOAL_TRIM_PL2_SWITCH:-}
OVER_N=${BENCH_SHOAL_OVER_SENDERS:-4}
OVER_LOAD=${BENCH_SHOAL_OVER_LOAD:-3}
OVER_MBIT=${BENCH_SHOAL_OVER_MBIT:-20}
OVER_TCP=${BENCH_SHOAL_OVER_TCP:-cubic dctcp}
OVER_DRAIN=${BENCH_SHOAL_OVER_DRAIN:-30}
OVER_SIZE=${BENCH_SHOAL_OVER_SIZE:-60000}
# where SIRD's senders meet a TCP tenant at a fair queue, the receiver
# shares its credit between sender hosts as afq shares the port
OVER_SYSCTLS=${BENCH_SHOAL_OVER_SYSCTLS-net.shoal.sird_rx_fair_permille=1000}
ECN_BYTES=$((ECN_PKTS * 1514))
TRIM="trim limit $QLIMIT ecn_thresh $ECN_BYTES"
OVER_QDISCS=${BENCH_SHOAL_OVER_QDISCS:-pfifo=pfifo limit 1000;trim=$TRIM;afq=afq limit 1000}
PORT=4800

[ "$OVER_N" -lt "$CLIENTS" ] || topo_die "BENCH_SHOAL_OVER_SENDERS must be below the clients"
[ "$DUR" -ge 3 ] || topo_die "BENCH_SHOAL_TRIM_SECONDS must be at least 3"
perf_fabric bench-shoal-trim "$CLIENTS"
topo_modules sch_afq
modprobe tcp_dctcp || topo_die "modprobe tcp_dctcp"
modprobe cls_flower || topo_die "modprobe cls_flower"
# a namespace may only choose what the initial one allows
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"

# the servers stay up throughout, as in bench-shoal.sh: SIRD on PORT, a TCP
# listener per congestion control, each started under it (a server takes
# ECN only from a listener that needs it)
declare -A SPORT=([sird]=$PORT [cubic]=$PORT [dctcp]=$((PORT + 1)) [pl2]=$((PORT + 2)))
perf_server sird sird "${SPORT[sird]}"
perf_server pl2 pl2 "${SPORT[pl2]}"
perf_cc dctcp
perf_server dctcp tcp "${SPORT[dctcp]}"
perf_cc cubic
perf_server cubic tcp "${SPORT[cubic]}"
CC=cubic

# sird_link RATE_MBIT: SYSCTLS on every host, LINK standing for RATE
sird_link()
{
	# shellcheck disable=SC2086	# a word list
	perf_on_hosts sysctl -qw ${SYSCTLS//LINK/$1} ||
		topo_die "SIRD's sysctls for $1 Mbit/s: $SYSCTLS"
}

# client I NAME TRANSPORT ARGS...: sender I's shoal-perf in the background
# (its pid appended to PIDS), DIR/NAME-I.json; TRANSPORT is sird, cubic or
# dctcp, whose congestion control must be the hosts' already.  The runs
# give --rtt-us (completion times do not use it): no idle-RTT probe, so
# the senders start together, and none gives up on a probe that met the
# port the others already fill (a TCP sender did, trimming at 50% load)
client()
{
	local i=$1 name=$2 t=$3 proto=tcp

	shift 3
	shoal "$t" && proto=$t
	ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
		--server "$SRV:${SPORT[$t]}" --json --seed "$i" "$@" \
		>"$DIR/$name-$i.json" 2>"$DIR/$name-$i.txt" &
	PIDS+=($!)
}

# shoal TRANSPORT: whether it is one of Shoal's (sird, pl2), not TCP
shoal()
{
	[ "$1" = sird ] || [ "$1" = pl2 ]
}

# cc TRANSPORT: the hosts' congestion control for a TCP transport
cc()
{
	if ! shoal "$1" && [ "$1" != "$CC" ]; then
		perf_cc "$1"
		CC=$1
	fi
}

# port RATE_MBIT SPEC...: the switch port at RATE over SPEC
port()
{
	topo_link_qdisc "${1}mbit" "$(perf_burst "$1")" 10000000 "${@:2}" ||
		topo_die "cannot set up the switch port: ${*:2}"
}

# stats_before NAME / stats_after NAME: every host's Shoal counters
stats_before()
{
	perf_shoal_stats "$DIR/$1.stats0"
}

stats_after()
{
	perf_shoal_stats "$DIR/$1.stats1"
}

# 1. trimming: workload x transport x load (none: no trimming runs)
: >"$DIR/runs"
[ "$WORKLOADS" = none ] && WORKLOADS=
for w in $WORKLOADS; do
	link=$(tr ' ' '\n' <<<"$LINKS" | awk -F= -v w="$w" '$1 == w { print $2 }')
	[ -n "$link" ] || topo_die "no link rate for $w in BENCH_SHOAL_TRIM_LINKS"
	sird_link "$link"
	echo "shoal-trim: $w at $link Mbit/s" >&2
	for t in $TRANSPORTS; do
		cc "$t"
		for load in $LOADS; do
			name="trim-${w//:/}-$load-$t"
			port "$link" $TRIM
			# PL2's switch program on every switch port, its slot
			# a full frame at the link's rate
			[ "$t" = pl2 ] &&
				perf_pl2_attach --slot-ns $((1514 * 8 * 1000 / link)) \
					$PL2_SWITCH
			shoal "$t" && stats_before "$name"
			PIDS=()
			for ((i = 1; i <= CLIENTS; i++)); do
				client "$i" "$name" "$t" --workload "$w" \
					--load "$(awk -v l="$load" -v n="$CLIENTS" 'BEGIN { print l / n }')" \
					--link-mbps "$link" --duration "$DUR" --drain 30 --rtt-us 1000
			done
			wait "${PIDS[@]}"
			shoal "$t" && stats_after "$name"
			topo_qdisc_save "$DIR/$name.qdisc"
			if [ "$t" = pl2 ]; then
				perf_pl2_show "$DIR/$name.switch"
				perf_pl2_detach
			fi
			echo "$w $load $t $link $name $(perf_burst "$link")" >>"$DIR/runs"
		done
	done
done

# per-sender bytes at the receiver: a flower filter per sender address on
# its ingress, which only counts
ip netns exec "$TOPO_RX" tc qdisc add dev eth0 handle ffff: ingress ||
	topo_die "the receiver's ingress qdisc"
for ((i = 1; i <= OVER_N + 1; i++)); do
	ip netns exec "$TOPO_RX" tc filter add dev eth0 parent ffff: protocol ip pref "$i" \
		flower src_ip "$(topo_sender_addr "$i" 4)" action pass ||
		topo_die "the receiver's filter for sender $i"
done

# over NAME TCP_TRANSPORT SIRD_SENDERS SPEC...: one overload run of
# SIRD_SENDERS SIRD senders (1..) and one TCP sender (the next), each
# offering OVER_LOAD / all of the port; samples the port and the
# receiver's filters at the arrivals' second second and last one
over()
{
	local name=$1 tcp=$2 ns=$3 i each

	shift 3
	cc "$tcp"
	port "$OVER_MBIT" "$@"
	each=$(awk -v l="$OVER_LOAD" -v n="$((ns + 1))" 'BEGIN { print l / n }')
	stats_before "$name"
	: >"$DIR/$name.port"
	PIDS=()
	# the TCP sender is one connection: one flow, as each SIRD sender's
	# socket is one to afq (a client's default 8 connections are 8 flows,
	# and afq, fair per flow, gave them 0.6 of the port)
	for ((i = 1; i <= ns; i++)); do
		client "$i" "$name" sird --workload "fixed:$OVER_SIZE" --load "$each" \
			--link-mbps "$OVER_MBIT" --duration "$DUR" --drain "$OVER_DRAIN" \
			--rtt-us 1000
	done
	client "$i" "$name" "$tcp" --workload "fixed:$OVER_SIZE" --load "$each" \
		--link-mbps "$OVER_MBIT" --duration "$DUR" --drain "$OVER_DRAIN" \
		--rtt-us 1000 --connections 1
	sleep 1
	perf_port_sample "$DIR/$name.port"
	ip netns exec "$TOPO_RX" tc -s -j filter show dev eth0 ingress >"$DIR/$name.rx0"
	sleep "$((DUR - 2))"
	perf_port_sample "$DIR/$name.port"
	ip netns exec "$TOPO_RX" tc -s -j filter show dev eth0 ingress >"$DIR/$name.rx1"
	# the receiver's credit state under load: B used, round trips
	ip netns exec "$TOPO_RX" cat /proc/net/shoal/sird >"$DIR/$name.sird"
	ip netns exec "${PERF_HOSTS[1]}" cat /proc/net/shoal/sird >"$DIR/$name.sird1"
	wait "${PIDS[@]}"
	stats_after "$name"
	topo_qdisc_save "$DIR/$name.qdisc"
	echo "$name $tcp $ns $*" >>"$DIR/over"
	# what one run left (messages whose clients went away) dies with it
	topo_link_qdisc_del
	sleep 2
}

# 2. overload: the reference, then every queue with each TCP (none: no
# overload runs)
: >"$DIR/over"
specs=()
if [ "$OVER_QDISCS" != none ]; then
	sird_link "$OVER_MBIT"
	if [ -n "$OVER_SYSCTLS" ]; then
		# shellcheck disable=SC2086	# a word list
		perf_on_hosts sysctl -qw $OVER_SYSCTLS ||
			topo_die "the overload's sysctls: $OVER_SYSCTLS"
	fi
	echo "shoal-trim: overload at $OVER_MBIT Mbit/s" >&2
	over over-ref-cubic cubic 0 pfifo limit 1000
	IFS=';' read -ra specs <<<"$OVER_QDISCS"
fi
for spec in "${specs[@]}"; do
	label=${spec%%=*}
	for tcp in $OVER_TCP; do
		# shellcheck disable=SC2086	# a word list
		over "over-$label-$tcp" "$tcp" "$OVER_N" ${spec#*=}
	done
done
topo_link_qdisc_del
perf_servers_stop
echo "shoal-trim: $SECONDS s" >&2

# the tables on screen and in DIR/report.txt (build/bench/bench-shoal-trim)
PYTHONPATH=$TREE/scripts/lib python3 "$TREE/scripts/lib/bench_shoal_trim_report.py" "$DIR" \
	"$CLIENTS" "$DUR" "$QLIMIT" "$ECN_PKTS" "${SYSCTLS}" "$OVER_MBIT" "$OVER_LOAD" \
	"$OVER_SIZE" "$OVER_SYSCTLS" |
	tee "$DIR/report.txt"
