#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-trace: the tracepoints of shoal.ko (events/shoal/) and of the
# qdiscs (events/sch_trim/, sch_afq/, sch_sqr/), counted by bpftrace
# (Debian's package) against the counters each one stands beside
# (Documentation/observing.md, "Tracepoints").  One bpftrace run counts
# every event of the four systems while:
#   1. 4 senders x 4 SIRD messages of 60 KB go into one 100 Mbit/s port
#      under `trim limit 12 hdr_limit 2 overflow rts`, after one to a
#      port no socket has: messages sent, acknowledged, failed and
#      complete, DATA packets sent again, bytes sent
#      again because a switch returned them, ranges asked for again by
#      cause, drops by reason (every namespace's shoal counters summed);
#      trims (and the bytes they cut) and bounces (the port's counters);
#   2. a UDP flood and a light UDP flow from two senders share a port
#      under `afq limit 16 overflow pushout`: afq_pushout is pushout_drops;
#   3. sqr's fault injector takes r0 down under a UDP stream, with a
#      backup link: sqr_failover is failures (its copies committed), and
#      sqr_resend is resent and diverted.
# Each event must have happened (the counters it is checked against are
# not 0) and be counted exactly as often as its counter, which a
# tracepoint in the wrong place or missing from a path fails.  Then
# perf: `perf stat -e shoal:shoal_msg_send` counts 5 messages sent as 5.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"
# shellcheck source=../lib/sqr.sh
source "$HERE/../lib/sqr.sh"

N=4
MSGS=4			# per sender
SIZE=60000		# unscheduled: all of it goes at once
PORT=7000
MSGS_PY=$TREE/tools/testing/lib/shoal_msgs.py

command -v bpftrace >/dev/null || topo_die "no bpftrace (scripts/setup installs it)"
command -v perf >/dev/null || topo_die "no perf (scripts/setup installs linux-perf)"
topo_modules sch_trim sch_afq sch_sqr
shoal_module
topo_init strace
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$N" >/dev/null
RXADDR=$(topo_rx_addr 4)

# every namespace's shoal counters, NAME VALUE lines
all_stats()
{
	local i

	for ((i = 0; i <= N; i++)); do
		ip netns exec "$([ "$i" = 0 ] && echo "$TOPO_RX" || topo_sender_ns "$i")" \
			cat /proc/net/shoal/stats | sed "s/^/$i /"
	done
}

# the events, counted: @n[probe] every one, and what is summed or split
cat >"$TOPO_TMP/count.bt" <<'EOF'
BEGIN { printf("attached\n"); }
tracepoint:shoal:*, tracepoint:sch_trim:*, tracepoint:sch_afq:*,
tracepoint:sch_sqr:* { @n[probe] = count(); }
tracepoint:shoal:shoal_data_tx /args->flags & 1/ { @retx = count(); }
tracepoint:shoal:shoal_resend { @resend[args->cause] = count(); }
tracepoint:shoal:shoal_resend_ask { @ask[args->cause] = sum(args->ranges); }
tracepoint:shoal:shoal_rx_drop { @drop[str(args->reason)] = count(); }
tracepoint:sch_trim:trim_packet { @cut = sum(args->cut); }
tracepoint:sch_sqr:sqr_failover { @committed = sum(args->committed); }
tracepoint:sch_sqr:sqr_resend /args->copy/ { @copies = count(); }
EOF
bpftrace "$TOPO_TMP/count.bt" >"$TOPO_TMP/bt.out" 2>"$TOPO_TMP/bt.err" &
bt=$!
TOPO_PIDS+=("$bt")
for ((i = 0; i < 1200; i++)); do
	grep -q '^attached' "$TOPO_TMP/bt.out" && break
	kill -0 "$bt" 2>/dev/null || break
	topo_nap 0.1
done
grep -q '^attached' "$TOPO_TMP/bt.out" ||
	topo_die "bpftrace did not attach: $(head -c 600 "$TOPO_TMP/bt.err")"
before=$(all_stats)

# ---- 1. SIRD through a port that trims and returns headers ----
topo_link_qdisc 100mbit 3000 1000000 trim limit 12 hdr_limit 2 overflow rts ||
	topo_die "trim"
ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT $((N * MSGS)) 90 >"$TOPO_TMP/rx.json" &
pids=($!)
topo_nap 1
# one message to a port no socket has: refused, a drop and a failure
ip netns exec "$(topo_sender_ns 1)" "$MSGS_PY" send "$RXADDR" $((PORT + 1)) 1 100 \
	>"$TOPO_TMP/refused.json"
shoal_fan "$RXADDR" $PORT "$MSGS" "$SIZE" "$TOPO_TMP/tx" $N &
pids+=($!)
wait "${pids[@]}"
eval "$(topo_qstats)"
trim_events=$((child_trim_arrival + child_trim_tail - child_trim_err))
trim_bytes=$child_trimmed_bytes
trim_bounced=$child_bounced

# ---- 2. afq pushes out a flood's packets for a light flow's ----
topo_link_qdisc 10mbit 3000 1000000 afq limit 16 flow_key src overflow pushout ||
	topo_die "afq"
ip netns exec "$(topo_sender_ns 1)" "$BLAST" --dst 10.200.0.1 --port 9 --count 3000 \
	--rate 0 --size 1000 --id 1 >/dev/null 2>&1 &
pids=($!)
ip netns exec "$(topo_sender_ns 2)" "$BLAST" --dst 10.200.0.1 --port 9 --count 200 \
	--rate 400 --size 200 --id 2 >/dev/null 2>&1 &
pids+=($!)
wait "${pids[@]}"
eval "$(topo_qstats)"
afq_pushout=$child_pushout_drops

# ---- 3. sqr fails over, its copies sent again over the backup ----
tc -n "$TOPO_SW" qdisc del dev r0 root 2>/dev/null
sqr_backup_link
sw tc qdisc replace dev r0 root handle 1: sqr hold 10ms poll 200us \
	backup b0 dmac "$SQR_BACKUP_MAC" failback 5ms || topo_die "sqr"
sqr_stream sqr 3000 2000 "sw tc qdisc change dev r0 root sqr fault_len 5000us \
	fault_detect 1000us fault_count 1"
eval "$(sqr_counters)"
sqr_failures=$failures sqr_committed=$committed sqr_resent=$resent sqr_diverted=$diverted
sw tc qdisc del dev r0 root

# counters first, then the events: an event after the counters were read
# would be one more than they say; one before bpftrace stops is in both
topo_nap 0.5
after=$(all_stats)
kill -INT "$bt"
wait "$bt"
# shoal's counters' deltas over every namespace, as s_NAME
eval "$(python3 - "$before" "$after" <<'PYEOF'
import sys
def parse(text):
    out = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 3 and w[2].isdigit():
            out[w[1]] = out.get(w[1], 0) + int(w[2])
    return out
b, a = parse(sys.argv[1]), parse(sys.argv[2])
for k in sorted(a):
    print("s_%s=%d" % (k, a[k] - b.get(k, 0)))
PYEOF
)"
# the events as e_NAME (a probe's count, e_retx ...), drops as d_REASON
eval "$(python3 - "$TOPO_TMP/bt.out" <<'PYEOF'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^@(\w+)(?:\[(.*)\])?: (\d+)$", line.strip())
    if not m:
        continue
    name, key, n = m.group(1), m.group(2), m.group(3)
    if name == "n":
        print("e_%s=%s" % (key.split(":")[-1], n))
    elif name == "drop":
        print("d_%s=%s" % (re.sub(r"\W", "_", key), n))
    elif key is not None:
        print("e_%s_%s=%s" % (name, key, n))
    else:
        print("e_%s=%s" % (name, n))
PYEOF
)"
echo "# bpftrace: $(grep -c '^@' "$TOPO_TMP/bt.out") lines; $(grep -v '^attached' \
	"$TOPO_TMP/bt.out" | grep . | tr '\n' ' ')"
echo "# shoal: tx_msgs $s_tx_msgs tx_acked $s_tx_acked rx_msgs $s_rx_msgs" \
	"tx_retx_packets $s_tx_retx_packets tx_rts_resend $s_tx_rts_resend" \
	"rx_resend_trimmed $s_rx_resend_trimmed rx_resend_quiet $s_rx_resend_quiet"
echo "# trim: trims $trim_events bytes $trim_bytes bounced $trim_bounced;" \
	"afq: pushout_drops $afq_pushout; sqr: failures $sqr_failures" \
	"committed $sqr_committed resent $sqr_resent diverted $sqr_diverted"

v() { local x=$1; echo "${!x:-0}"; }

total=$((N * MSGS))
tap_ok "s_tx_msgs == total + 1 && $(v e_shoal_msg_send) == s_tx_msgs" \
	"shoal_msg_send: $(v e_shoal_msg_send), tx_msgs $s_tx_msgs ($((total + 1)) sent)"
tap_ok "s_tx_acked == total && $(v e_shoal_msg_acked) == s_tx_acked" \
	"shoal_msg_acked: $(v e_shoal_msg_acked), tx_acked $s_tx_acked"
tap_ok "s_rx_msgs == total && $(v e_shoal_msg_complete) == s_rx_msgs" \
	"shoal_msg_complete: $(v e_shoal_msg_complete), rx_msgs $s_rx_msgs"
tap_ok "s_tx_refused == 1 && $(v e_shoal_msg_fail) == 1 && s_rx_drop_no_socket >= 1" \
	"shoal_msg_fail: $(v e_shoal_msg_fail) for the message refused (tx_refused $s_tx_refused)"
tap_ok "s_tx_retx_packets > 0 && $(v e_retx) == s_tx_retx_packets" \
	"shoal_data_tx with RETX: $(v e_retx), tx_retx_packets $s_tx_retx_packets"
tap_ok "s_tx_rts_resend > 0 && $(v e_resend_1) == s_tx_rts_resend" \
	"shoal_resend bounced: $(v e_resend_1), tx_rts_resend $s_tx_rts_resend"
tap_ok "$(v e_ask_0) == s_rx_resend_trimmed && $(v e_ask_1) == s_rx_resend_rcvbuf &&
	$(v e_ask_2) == s_rx_resend_quiet" \
	"shoal_resend_ask ranges: trimmed $(v e_ask_0) ($s_rx_resend_trimmed)," \
	"rcvbuf $(v e_ask_1) ($s_rx_resend_rcvbuf), quiet $(v e_ask_2) ($s_rx_resend_quiet)"
# every drop counter against its reason's events
bad="" drops=0
for c in $(compgen -v s_rx_drop_); do
	d=d_${c#s_}
	drops=$((drops + ${!c}))
	[ "${!c}" = "$(v "$d")" ] || bad+=" ${c#s_}:${!c}/$(v "$d")"
done
for d in $(compgen -v d_); do
	c=s_${d#d_}
	[ -n "${!c+x}" ] || bad+=" ${d#d_}:none/${!d}"
done
tap_ok "$([ -z "$bad" ] && echo 1 || echo 0) == 1 && $(v e_shoal_rx_drop) == drops" \
	"shoal_rx_drop: $(v e_shoal_rx_drop) for $drops counted, each reason its counter's${bad:+ (not:$bad)}"
tap_ok "trim_events > 0 && $(v e_trim_packet) == trim_events && $(v e_cut) == trim_bytes" \
	"trim_packet: $(v e_trim_packet) for $trim_events trims, $(v e_cut) bytes cut ($trim_bytes)"
tap_ok "trim_bounced > 0 && $(v e_trim_bounce) == trim_bounced" \
	"trim_bounce: $(v e_trim_bounce), bounced $trim_bounced"
tap_ok "afq_pushout > 0 && $(v e_afq_pushout) == afq_pushout" \
	"afq_pushout: $(v e_afq_pushout), pushout_drops $afq_pushout"
tap_ok "sqr_failures == 1 && $(v e_sqr_failover) == 1 && $(v e_committed) == sqr_committed" \
	"sqr_failover: $(v e_sqr_failover) for $sqr_failures failures, $(v e_committed) copies ($sqr_committed)"
tap_ok "sqr_resent > 0 && $(v e_copies) == sqr_resent &&
	$(v e_sqr_resend) == sqr_resent + sqr_diverted" \
	"sqr_resend: $(v e_copies) copies ($sqr_resent resent), $(v e_sqr_resend) in all (+$sqr_diverted diverted)"

# ---- perf counts them too ----
ip netns exec "$TOPO_RX" "$MSGS_PY" recv $PORT 5 60 >"$TOPO_TMP/perf-rx.json" &
rpid=$!
topo_nap 1
perf stat -x, -e shoal:shoal_msg_send -a -o "$TOPO_TMP/perf.csv" -- \
	ip netns exec "$(topo_sender_ns 1)" "$MSGS_PY" send "$RXADDR" $PORT 5 1000 \
	>"$TOPO_TMP/perf-tx.json" 2>"$TOPO_TMP/perf.err"
wait "$rpid"
sent=$(awk -F, '$3 == "shoal:shoal_msg_send" { print $1 }' "$TOPO_TMP/perf.csv")
echo "# perf: $(grep -v '^#' "$TOPO_TMP/perf.csv" | grep . | tr '\n' ' ')"
tap_ok "${sent:-0} == 5" "perf stat -e shoal:shoal_msg_send: ${sent:-none} for 5 messages sent"
tap_done
