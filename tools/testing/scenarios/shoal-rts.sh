#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-rts: return to sender (NDP's RTS) end to end, sch_trim's
# `overflow rts` and shoal.ko.
#   1. Forged bounces at a SIRD socket that holds one message to a peer
#      that never answers: a bounce that names the message and bytes it
#      sent makes exactly one packet again (tx_rts_resend, in the
#      socket's SHOAL_SOCK_STATS too); one for another message, another
#      peer or peer port, a socket port nobody has, a wrong msg_len or
#      more than a packet is dropped and counted
#      (rx_drop_bounce_*), and makes no packet; a bounced control packet
#      is refused by the parser (rx_drop_flags).
#   2. 8 senders x 4 SIRD messages of 60 KB (all unscheduled: an incast
#      of 2 MB at once) into one 100 Mbit/s port under `trim limit 12
#      hdr_limit 2 overflow rts`: the header queue overflows and the
#      switch returns headers to their senders.  Every message arrives
#      intact and once, none fails; every header the switch returned
#      reached its sender's shoal.ko (the switch's bounced_shoal == the
#      senders' rx_bounced) and was sent again once (tx_rts_resend);
#      and no message waited for a timeout because of a bounce: with
#      net.shoal.resend_ms at 2 s the receiver sent no RESEND after a
#      quiet interval (rx_resend_quiet == 0) and no sender timed out.
#      Without the return to the Shoal port (trim) or without the resend
#      (shoal.ko) the returned bytes are lost for good, and only the
#      receiver's quiet RESENDs bring them back.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

MSGS=${MSGS:-4}			# per sender
SIZE=60000			# unscheduled: all of it goes at once
N=8
PORT=7000
# far above any queueing here: a quiet interval means a lost packet.
# At 500 ms a CI run had one RESEND after a quiet interval while every
# header returned was sent again and none failed to return: this guest's
# per-CPU backlog (topo_backlog) can hold a sender's packets for over a
# second, as the senders' probes for messages the receiver had not heard
# of yet show (rx_probe_new 1-3 in four runs of 2 s each).  A lost bounce
# still shows: its bytes come back only after two quiet intervals.
RESEND_MS=2000
HOLD_PORT=4660			# part 1: the holding socket's Shoal port
PEER=192.0.2.1			# part 1: a peer nobody answers for
PEER_PORT=17185

topo_modules sch_trim
shoal_module
topo_init srts
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py
RXADDR=$(topo_rx_addr 4)
S1=$(topo_sender_ns 1)
S2=$(topo_sender_ns 2)
S1ADDR=$(topo_sender_addr 1 4)

# stats NS: its /proc/net/shoal/stats
stats()
{
	ip netns exec "$1" cat /proc/net/shoal/stats
}

# ---- 1. forged bounces ----
# sender 1 holds a message to $PEER; its probes wait 2 x 60 s
ip netns exec "$S1" sysctl -qw net.shoal.resend_ms=60000 || topo_die "resend_ms"
ip netns exec "$S1" python3 "$TREE/tools/testing/lib/shoal_hold.py" $HOLD_PORT \
	$PEER $PEER_PORT $SIZE 120 >"$TOPO_TMP/hold" &
holder=$!
TOPO_PIDS+=("$holder")	# a bail-out must not leave its socket to hold the module
for _ in $(seq 200); do
	grep -q '^id' "$TOPO_TMP/hold" 2>/dev/null && break
	topo_nap 0.1
done
id=$(awk '$1 == "id" { print $2 }' "$TOPO_TMP/hold")
[ -n "$id" ] || topo_die "no message held"
topo_nap 0.5		# its packets are gone

# forge WHAT NAME ARGS...: a returned header from sender 2 as the switch
# would send it (from the peer's address); its counters in f_*
forge()
{
	local name=$1 before after

	shift
	before=$(stats "$S1")
	ip netns exec "$S2" "$SHOAL_CRAFT" bounce "$@" || topo_die "$name: cannot send"
	topo_nap 0.3
	after=$(stats "$S1")
	eval "$(shoal_stats_vars "$before" "$after" | sed 's/^/f_/')"
	echo "# $name: $(shoal_stats_delta "$before" "$after") tx_packets+$f_tx_packets"
}

forge "a bounce of its first packet" $PEER "$S1ADDR" $HOLD_PORT $PEER_PORT "$id" $SIZE 0 1000
tap_ok "f_rx_bounced == 1 && f_tx_rts_resend == 1 && f_tx_data == 1 && f_tx_packets == 1 &&
	f_tx_retx_packets == 1" \
	"a bounce of bytes sent: resent at once, one packet (resend $f_tx_rts_resend, sent $f_tx_packets)"
tap_ok "f_rx_drop_no_socket == 0 && f_tx_unknown == 0" \
	"a bounce is not taken for DATA to a socket of the peer's port, nor answered"
# another id: its last digit changed (a u64, beyond the shell's arithmetic)
d=${id: -1}
other=${id%?}$((d ^ 1))
for c in "another message:$PEER $S1ADDR $HOLD_PORT $PEER_PORT $other $SIZE 0 1000:no_msg" \
	"another peer:192.0.2.2 $S1ADDR $HOLD_PORT $PEER_PORT $id $SIZE 0 1000:no_msg" \
	"another peer port:$PEER $S1ADDR $HOLD_PORT $((PEER_PORT + 1)) $id $SIZE 0 1000:no_msg" \
	"a port with no socket:$PEER $S1ADDR $((HOLD_PORT + 1)) $PEER_PORT $id $SIZE 0 1000:no_msg" \
	"another msg_len:$PEER $S1ADDR $HOLD_PORT $PEER_PORT $id $((SIZE + 1)) 0 1000:bad" \
	"more than a packet:$PEER $S1ADDR $HOLD_PORT $PEER_PORT $id $SIZE 0 9000:bad"; do
	name=${c%%:*}
	rest=${c#*:}
	why=${rest#*:}
	# shellcheck disable=SC2086	# the arguments, split
	forge "$name" ${rest%:*}
	v=f_rx_drop_bounce_$why
	tap_ok "f_rx_bounced == 1 && ${!v} == 1 && f_tx_rts_resend == 0 && f_tx_packets == 0" \
		"a bounce for $name: dropped as $why (${!v}), nothing sent ($f_tx_packets)"
done
forge "a bounced CREDIT" $PEER "$S1ADDR" $HOLD_PORT $PEER_PORT "$id" $SIZE 0 0 credit
tap_ok "f_rx_drop_flags == 1 && f_rx_bounced == 0 && f_tx_packets == 0" \
	"a bounced control packet: refused by the parser (flags $f_rx_drop_flags), nothing sent"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
sock_rts=$(awk '$1 == "tx_rts_resend" { print $2 }' "$TOPO_TMP/hold")
tap_ok "${sock_rts:--1} == 1" "the socket's own count: tx_rts_resend $sock_rts (SHOAL_SOCK_STATS)"

# ---- 2. an incast through a port that returns headers ----
for ((i = 0; i <= N; i++)); do
	ns=$([ "$i" = 0 ] && echo "$TOPO_RX" || topo_sender_ns "$i")
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=$RESEND_MS || topo_die "resend_ms"
done
topo_link_qdisc 100mbit 3000 1000000 trim limit 12 hdr_limit 2 overflow rts ||
	topo_die "qdisc"
declare -A before_s
for ((i = 1; i <= N; i++)); do
	before_s[$i]=$(stats "$(topo_sender_ns "$i")")
done
before=$(stats "$TOPO_RX")
ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT $((N * MSGS)) 90 >"$TOPO_TMP/rx.json" &
pids=($!)
topo_nap 1
shoal_fan "$RXADDR" $PORT "$MSGS" "$SIZE" "$TOPO_TMP/tx" $N &
pids+=($!)
wait "${pids[@]}"
after=$(stats "$TOPO_RX")
eval "$(python3 "$HERE/../lib/shoal_incast_check.py" "$TOPO_TMP" "$N")"
eval "$(shoal_stats_vars "$before" "$after" | sed 's/^/st_/')"
# the senders' counters, summed
s_rx_bounced=0 s_tx_rts_resend=0 s_no_msg=0 s_stale=0 s_bad=0 s_tx_timeout=0
for ((i = 1; i <= N; i++)); do
	eval "$(shoal_stats_vars "${before_s[$i]}" "$(stats "$(topo_sender_ns "$i")")" |
		sed 's/^/x_/')"
	s_rx_bounced=$((s_rx_bounced + x_rx_bounced))
	s_tx_rts_resend=$((s_tx_rts_resend + x_tx_rts_resend))
	s_no_msg=$((s_no_msg + x_rx_drop_bounce_no_msg))
	s_stale=$((s_stale + x_rx_drop_bounce_stale))
	s_bad=$((s_bad + x_rx_drop_bounce_bad))
	s_tx_timeout=$((s_tx_timeout + x_tx_timeout))
done
eval "$(topo_qstats)"
echo "# receiver: $(cat "$TOPO_TMP/rx.json")"
echo "# receiver: $(shoal_stats_delta "$before" "$after")"
for ((i = 1; i <= N; i++)); do
	grep -q '"errors": {}' "$TOPO_TMP/tx$i.json" ||
		echo "# sender $i: $(cat "$TOPO_TMP/tx$i.json")"
done
echo "# switch: trim_arrival $child_trim_arrival trim_tail $child_trim_tail bounced $child_bounced" \
	"bounced_shoal $child_bounced_shoal bounce_err $child_bounce_err hdr_drop $child_hdr_drop"
echo "# senders: rx_bounced $s_rx_bounced tx_rts_resend $s_tx_rts_resend" \
	"dropped: no_msg $s_no_msg stale $s_stale bad $s_bad; tx_timeout $s_tx_timeout"
echo "# receiver: trimmed $st_rx_trimmed resend_trimmed $st_rx_resend_trimmed" \
	"resend_quiet $st_rx_resend_quiet dup $st_rx_dup_packets"

total=$((N * MSGS))
tap_ok "$rx_good == $total && $rx_bad == 0 && $rx_duplicates == 0" \
	"$total messages arrive intact, once (good $rx_good, bad $rx_bad, dup $rx_duplicates)"
tap_ok "$tx_acked == $total && $tx_failed == 0 && $tx_errors == 0" \
	"senders see all $total acknowledged, none failed (acked $tx_acked, failed $tx_failed)"
tap_ok "child_bounced_shoal > 0 && child_bounced_shoal == child_bounced && child_bounce_err == 0" \
	"the switch returned Shoal headers ($child_bounced_shoal of $child_bounced, errors $child_bounce_err)"
tap_ok "s_rx_bounced == child_bounced_shoal" \
	"every returned header reached its sender's shoal.ko (rx_bounced $s_rx_bounced, switch $child_bounced_shoal)"
tap_ok "s_tx_rts_resend + s_no_msg == s_rx_bounced && s_bad == 0 && s_stale == 0 &&
	s_tx_rts_resend * 10 >= s_rx_bounced * 9" \
	"each sent again once (tx_rts_resend $s_tx_rts_resend; for a message gone $s_no_msg, bad $s_bad, stale $s_stale)"
tap_ok "st_rx_resend_quiet == 0 && s_tx_timeout == 0 && st_tx_timeout == 0" \
	"no message waited for a timeout: no RESEND after a quiet interval of $RESEND_MS ms ($st_rx_resend_quiet), no timeout ($s_tx_timeout)"
tap_done
