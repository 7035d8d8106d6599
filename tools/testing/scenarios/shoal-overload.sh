#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-overload: SIRD at three times what its receiver's port carries,
# next to a TCP flow.  Four senders each offer 60% of a 10 Mbit/s switch
# port in 60 KB Poisson RPCs (answered by 8 bytes) over Shoal sockets, a
# fifth the same over TCP cubic (together 300% of the port), for
# QDISC in turn: pfifo limit 1000, trim limit 100 and afq limit 1000 (its
# default key: Shoal's flows are all one there).  The hosts state the link
# (net.shoal.link_mbps 10: pacing and sizes follow it) and wait 50 ms
# before a resend (the guest's round trip swings up to 8 ms).
#
# Checks, for each queue:
#   - no SIRD message fails (ETIMEDOUT, ECONNRESET: both ends are alive
#     all along) and every RPC is answered once the arrivals stop;
#   - the port stays busy, as the issue asks: at least 90% of its rate
#     delivered while the arrivals last (the tbf's bytes between two
#     samples).  98-100% is measured with each queue; 80-83% while the
#     receiver still sent a BUSY per waiting message each interval (the
#     guest's CPU went to them: the BUSY bound below catches that
#     directly).  The port is 10 Mbit/s because on a slower host the
#     guest's CPUs were the limit at 20: the port 61-80% busy there with
#     every other check passing.  The port's tbf bucket is 10 ms
#     (perf_burst): with 4 ms a stall of the guest's timer was capacity
#     lost, counted as idle (82-88% seen);
#   - TCP keeps a share: its goodput at least 10% of the port, half of a
#     fair fifth.  SIRD's receiver paces credit at the whole link and knows
#     nothing of TCP; what TCP gets is what a FIFO gives a window against
#     SIRD's bounded bytes in flight.  Without the allowance the SIRD
#     senders' unscheduled messages alone fill any queue (the issue's
#     pfifo run: TCP never had its first SYN answered).
#   - control stays bounded: at most two BUSYs a resend interval per
#     sender socket (one per tick of the receiver's, which ticks twice an
#     interval), plus one per CREDIT_REQ a sender sent (a probe is
#     answered), however many messages wait;
#   - the prefixes the allowance cut are reported, not checked: a 60 KB
#     message is above unsch_thresh (the stated link's rate times
#     link_rtt_us: 6250 at 10 Mbit/s) and scheduled anyway.  With
#     messages under it the allowance cuts nearly every prefix; before
#     a BUSY covered a sender socket's backlog and a full receiver
#     answered NOTHELD, the receiver's per-message control
#     grew with the backlog and the guest collapsed (results/shoal.md).
#     Not run here.
# Documentation/shoal.md ("How a message travels") has the why;
# Documentation/results/shoal.md the numbers.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"
# shellcheck source=../../../scripts/lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

LINK=${OVERLOAD_LINK:-10}	# Mbit/s
NSIRD=4
SIZE=60000		# SIRD's
TSIZE=60000		# TCP's
LOAD=0.6		# each sender's share of the port
DUR=${OVERLOAD_SECONDS:-5}
PORT=4800
RESEND_MS=50
N=$((NSIRD + 1))	# the last sender sends over TCP

VM_OUT=${OUT:-$TOPO_TMP} perf_fabric shoal-overload "$N"
topo_modules sch_afq
perf_on_hosts sysctl -qw net.shoal.link_mbps=$LINK net.shoal.resend_ms=$RESEND_MS ||
	topo_die "the hosts' sysctls"

# client I PROTO TAG SIZE: a shoal-perf client on sender I, in the
# background (its pid added to the caller's pids)
client()
{
	ip netns exec "$(topo_sender_ns "$1")" "$PERF" client --proto "$2" \
		--server "$SRV:$PORT" --workload "fixed:$4" --json --seed "$1" \
		--load "$LOAD" --link-mbps "$LINK" --duration "$DUR" --drain 60 \
		>"$DIR/$3-$1.json" 2>"$DIR/$3-$1.txt" &
	pids+=($!)
}

# run TAG QDISC...: the SIRD senders and the TCP sender at once through
# r0 under QDISC; then the checks
run()
{
	local tag=$1 i pids=() t0 t1

	shift
	topo_link_qdisc "${LINK}mbit" "$(perf_burst "$LINK" 10)" 10000000 "$@" ||
		topo_die "$tag on r0"
	perf_shoal_stats "$DIR/$tag.st0"
	perf_server "$tag-sird" sird "$PORT"
	perf_server "$tag-tcp" tcp "$PORT"
	t0=$(date +%s%N)
	for ((i = 1; i <= NSIRD; i++)); do
		client "$i" sird "$tag" "$SIZE"
	done
	client "$N" tcp "$tag" "$TSIZE"
	topo_nap 1
	rm -f "$DIR/$tag.port"
	perf_port_sample "$DIR/$tag.port"
	topo_nap $((DUR - 1))
	perf_port_sample "$DIR/$tag.port"
	wait "${pids[@]}"
	t1=$(date +%s%N)
	topo_qdisc_save "$DIR/$tag.qdisc"
	perf_shoal_stats "$DIR/$tag.st1"
	perf_servers_stop
	eval "$(python3 - "$DIR" "$tag" "$NSIRD" "$N" "$LINK" <<'EOF'
import json, sys
d, tag, nsird, n, link = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return None
cs = [load("%s/%s-%d.json" % (d, tag, i)) for i in range(1, nsird + 1)]
t = load("%s/%s-%d.json" % (d, tag, n))
ok = [c for c in cs if c]
print("parsed=%d" % (len(ok) + (1 if t else 0)))
m = lambda k: sum(c["messages"][k] for c in ok)
print("s_issued=%d s_completed=%d s_failed=%d s_unanswered=%d"
      % (m("issued"), m("completed"), m("failed"), m("unanswered")))
print("s_sock_failed=%d" % sum(c.get("socket", {}).get("tx_failed", 0) for c in ok))
print("s_goodput=%.1f" % sum(c["goodput_mbps"] for c in ok))
print("t_goodput=%.1f" % (t["goodput_mbps"] if t else -1))
print("t_pct=%d" % (round(100 * t["goodput_mbps"] / link) if t else -1))
print("t_completed=%d t_issued=%d" % ((t["messages"]["completed"], t["messages"]["issued"]) if t else (-1, 0)))
s = [l.split() for l in open("%s/%s.port" % (d, tag))]
busy = (int(s[1][1]) - int(s[0][1])) * 8e9 / (int(s[1][0]) - int(s[0][0])) / (link * 1e6) if len(s) == 2 else 0
print("busy_pct=%d" % round(100 * busy))
st = {}
for f, sign in (("st0", -1), ("st1", 1)):
    for line in open("%s/%s.%s" % (d, tag, f)):
        _, k, v = line.split()
        st[k] = st.get(k, 0) + sign * int(v)
for k in ("tx_timeout", "tx_rpc_lost", "tx_unsched_cut", "rx_resend_quiet", "tx_data", "tx_credit_req", "tx_busy"):
    print("st_%s=%d" % (k, st.get(k, 0)))
EOF
)"
	tap_ok "parsed == $N" "$tag: every client's JSON parses ($parsed of $N)"
	topo_log "$tag: SIRD ${s_goodput} Mbit/s, TCP ${t_goodput} Mbit/s ($t_completed of $t_issued RPCs), port ${busy_pct}% busy; timeouts $st_tx_timeout, prefixes cut $st_tx_unsched_cut, quiet RESENDs $st_rx_resend_quiet, DATA $st_tx_data, CREDIT_REQ $st_tx_credit_req, BUSY $st_tx_busy"
	tap_ok "s_failed == 0 && s_sock_failed == 0 && st_tx_timeout == 0 && st_tx_rpc_lost == 0" \
		"$tag: no SIRD message failed ($s_failed on the error queue, $s_sock_failed counted by the sockets, $st_tx_timeout timed out, $st_tx_rpc_lost requests lost)"
	tap_ok "s_issued > 0 && s_completed == s_issued && s_unanswered == 0" \
		"$tag: every SIRD RPC answered ($s_completed of $s_issued)"
	tap_ok "busy_pct >= 90" "$tag: the port was ${busy_pct}% busy while the arrivals lasted (>= 90%)"
	tap_ok "t_pct >= 10" "$tag: TCP's goodput is ${t_pct}% of the port (>= 10%: half a fair fifth)"
	# one BUSY per sender socket a tick (twice an interval), whatever
	# its backlog, and at most one answering each probe
	busy_max=$(((t1 - t0) / 1000000 * 2 * NSIRD / RESEND_MS + st_tx_credit_req))
	tap_ok "st_tx_busy <= busy_max" \
		"$tag: $st_tx_busy BUSYs for $NSIRD sender sockets over $(((t1 - t0) / 1000000)) ms (<= $busy_max: two a resend interval each, plus one a CREDIT_REQ)"
}

run pfifo pfifo limit 1000
run trim trim limit 100
run afq afq limit 1000
tap_done
