#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-lost: a sender's messages lost whole are found again together.
# One sender sends COUNT one-packet messages (IPPROTO_SIRD) to a receiver
# while the switch's port towards it drops everything (a matchall drop at
# its egress); LOSS_MS later the port passes again.  The receiver never
# heard of any of them, so each must be probed.  Probes into one receiver
# socket take turns (one per two resend intervals), so alone they would
# find the messages one per turn: COUNT x 2 x the interval.  A receiver
# that takes a retransmission for a message's start says so in its answer
# (SHOAL_F_RETX, rx_probe_new), and the sender then probes two more of its
# messages the receiver never answered at once (tx_probe_wake), so the
# lost ones are found in a few round trips.  Checked: every message
# arrives intact and once, every one acknowledged and none failed, the
# receiver counted messages a probe started and the sender's probes woke
# others, and the last message arrived within a third of the
# one-per-turn time after the port came back.  Then the same through a
# port that only delays (netem, 4 intervals, nothing lost): the late
# messages probe in turns, the receiver has each before its probe, and
# no probe may wake another (4 intervals as the sender counts them: the
# answers' measured delay may have made them longer).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

COUNT=${COUNT:-100}
SIZE=1000			# one packet: the probe carries all of it
LOSS_MS=${LOSS_MS:-300}
RESEND_MS=10			# net.shoal.resend_ms
RTT_US=5000			# net.shoal.link_rtt_us: the interval is the larger
PORT=7100

topo_modules sch_netem
shoal_module
topo_init slost
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build 1 >/dev/null
S=$(topo_sender_ns 1)
RXADDR=$(topo_rx_addr 4)
for ns in "$S" "$TOPO_RX"; do
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=$RESEND_MS \
		net.shoal.link_rtt_us=$RTT_US net.shoal.link_mbps=100 ||
		topo_die "sysctls in $ns"
done
IVAL_MS=$(((RTT_US / 1000 > RESEND_MS) ? RTT_US / 1000 : RESEND_MS))
SERIAL_MS=$((COUNT * 2 * IVAL_MS))

# now_ms: the time in ms, without a fork
now_ms()
{
	local t=${EPOCHREALTIME/./}

	echo $((t / 1000))
}

# stat_of NAME STATS: counter NAME in the text STATS of /proc/net/shoal/stats
stat_of()
{
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }' <<<"$2"
}

# sent_all NS N: wait (60 s at most) until namespace NS has sent N messages
sent_all()
{
	local i

	for ((i = 0; i < 1200; i++)); do
		(($(stat_of tx_msgs "$(ip netns exec "$1" cat /proc/net/shoal/stats)") >= $2)) &&
			return 0
		topo_nap 0.05
	done
	return 1
}

# run NAME OPEN: COUNT messages to the receiver through r0 as it is; the
# command OPEN opens the port, LOSS_MS after the last message went; sets rx_*,
# tx_*, st_* and rst_* (the sender's and the receiver's counters) and
# back_ms (from OPEN to the last arrival)
run()
{
	local name=$1 open=$2 before after rbefore rafter spid t0

	before=$(ip netns exec "$S" cat /proc/net/shoal/stats)
	rbefore=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	shoal_recv "$TOPO_RX" $PORT "$COUNT" "$TOPO_TMP/rx-$name.json"
	ip netns exec "$S" "$SHOAL_MSGS" send "$RXADDR" $PORT "$COUNT" $SIZE \
		>"$TOPO_TMP/tx-$name.json" &
	spid=$!
	TOPO_PIDS+=("$spid")
	# the port stays shut LOSS_MS after the last message went (the
	# interpreter starts slowly in the guest)
	sent_all "$S" $(($(stat_of tx_msgs "$before") + COUNT)) ||
		topo_die "$name: the sender did not send $COUNT messages"
	topo_nap "$(printf '%d.%03d' $((LOSS_MS / 1000)) $((LOSS_MS % 1000)))"
	$open
	t0=$(now_ms)
	wait "$recv_pid"
	back_ms=$(($(now_ms) - t0))
	wait "$spid"
	after=$(ip netns exec "$S" cat /proc/net/shoal/stats)
	rafter=$(ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats)
	eval "$(python3 -c 'import json, sys
for p, f in (("rx_", sys.argv[1]), ("tx_", sys.argv[2])):
    try:
        d = json.load(open(f))
    except (OSError, ValueError):
        d = {}
    for k in ("good", "bad", "duplicates", "tx_acked", "tx_failed"):
        print("%s%s=%d" % (p, k, d.get(k, -1)))' \
		"$TOPO_TMP/rx-$name.json" "$TOPO_TMP/tx-$name.json")"
	eval "$(shoal_stats_vars "$before" "$after" | sed 's/^/st_/')"
	eval "$(shoal_stats_vars "$rbefore" "$rafter" | sed 's/^/rst_/')"
	topo_log "$name: sender $(shoal_stats_delta "$before" "$after")"
	topo_log "$name: sender's $(ip netns exec "$S" awk '/^(probe_srtt|resend_ival)_us/ { printf "%s %s ", $1, $2 }' /proc/net/shoal/sird)"
	topo_log "$name: receiver $(shoal_stats_delta "$rbefore" "$rafter")"
	tap_ok "rx_good == COUNT && rx_bad == 0 && rx_duplicates == 0" \
		"$name: all $COUNT messages arrive intact, once (good $rx_good, bad $rx_bad, dup $rx_duplicates)"
	tap_ok "tx_tx_acked == COUNT && tx_tx_failed == 0" \
		"$name: the sender sees all acknowledged, none failed (acked $tx_tx_acked, failed $tx_tx_failed)"
}

block()
{
	tc -n "$TOPO_SW" qdisc add dev r0 clsact &&
		tc -n "$TOPO_SW" filter add dev r0 egress matchall action drop
}

unblock()
{
	tc -n "$TOPO_SW" qdisc del dev r0 clsact
}

block || topo_die "the matchall drop on r0"
run lost unblock
tap_ok "rst_rx_probe_new > 0 && st_tx_probe_wake > 0" \
	"lost: the receiver took $rst_rx_probe_new probes for messages' starts, and they woke $st_tx_probe_wake others"
tap_ok "back_ms * 3 <= SERIAL_MS" \
	"lost: the last message arrived ${back_ms} ms after the port came back (at most a third of one per turn: $SERIAL_MS / 3 ms)"

# delay only: the messages wait longer than two intervals, none is lost.
# The interval is the configured one or the answers' measured delay, which
# the queue after the outage raised (16-28 ms here): 4 of whichever is
# longer, so that the messages still probe.
ival_ms=$(ip netns exec "$S" awk '$1 == "resend_ival_us" { print int($2 / 1000) }' \
	/proc/net/shoal/sird)
[ "${ival_ms:-0}" -gt "$IVAL_MS" ] || ival_ms=$IVAL_MS
tc -n "$TOPO_SW" qdisc replace dev r0 root netem delay "$((4 * ival_ms))ms" limit 10000 ||
	topo_die "netem on r0"
LOSS_MS=0
run delayed true
tap_ok "st_tx_credit_req > 0 && rst_rx_probe_new == 0 && st_tx_probe_wake == 0" \
	"delayed: $st_tx_credit_req probes, none taken for a start ($rst_rx_probe_new), none woke another ($st_tx_probe_wake)"
tap_done
