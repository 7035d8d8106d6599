#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# calq-ecn: calq sets CE above its threshold, and only there.  Two TCP
# cubic senders with ECN (net.ipv4.tcp_ecn=1, so their data is ECT) cross
# a 10 Mbit/s switch port (tbf) whose queue is calq, its buffer capped at
# 45000 bytes (limit_bytes).  Three runs:
#   off:   no ecn_thresh: no packet leaves with CE, TCP fills the buffer
#          and loses packets (limit_drops);
#   15000: marks (calq's ecn_marked, and CE packets counted on the
#          receiver's ingress, by a u32 filter on the ECN bits), on ECT
#          packets: the few not-ECT ones over the threshold (ecn_nonect:
#          TCP retransmits without ECT, RFC 3168) leave unmarked;
#   46000: above the buffer: the backlog can never exceed it, so no
#          mark although the buffer fills (limit_drops): marks come from
#          the threshold, not from a full queue.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/flows.sh
source "$HERE/../lib/flows.sh"

DUR=6
BUF=45000
CASES=()

topo_modules sch_calq
topo_init calqecn
topo_build 2 >/dev/null
for ns in "$TOPO_RX" "$(topo_sender_ns 1)" "$(topo_sender_ns 2)"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1 || topo_die "tcp_ecn in $ns"
done

# ce_filter: count the CE packets arriving at the receiver
ce_filter()
{
	tc -n "$TOPO_RX" qdisc del dev eth0 ingress 2>/dev/null
	tc -n "$TOPO_RX" qdisc add dev eth0 handle ffff: ingress ||
		topo_die "ingress qdisc on the receiver"
	tc -n "$TOPO_RX" filter add dev eth0 parent ffff: protocol ip \
		prio 1 u32 match ip tos 0x03 0x03 action pass ||
		topo_die "CE filter on the receiver"
}

ce_count()
{
	tc -n "$TOPO_RX" -s -j filter show dev eth0 parent ffff: |
		python3 -c 'import json,sys
n = -1
for f in json.load(sys.stdin):
    for a in f.get("options", {}).get("actions", []):
        n = a.get("stats", {}).get("packets", n)
print(n)'
}

# run NAME QDISC...: the two senders through QDISC; sets ce (CE packets
# at the receiver) and the child_* counters of calq
run()
{
	local name=$1 dir t0

	shift
	dir=${OUT:-$TOPO_TMP}/calq-ecn.d/$name
	topo_link_qdisc 10mbit 6k 10m "$@" || topo_die "qdisc $*"
	ce_filter
	flows_recv "$dir" --idle-ms 2000 --timeout $((DUR + 30))
	t0=$(flows_now_plus 1)
	flows_send 1 --id 1 --cc cubic --duration "$DUR" --start-at "$t0"
	flows_send 2 --id 2 --cc cubic --duration "$DUR" --start-at "$t0"
	flows_wait || topo_log "a flow endpoint failed"
	child_ecn_marked=-1 child_ecn_nonect=-1 child_limit_drops=-1 child_dequeued=-1
	eval "$(topo_qstats r0)"
	ce=$(ce_count)
	topo_log "$name ($*): $child_ecn_marked marked, $child_ecn_nonect not ECT," \
		"$ce CE at the receiver, $child_limit_drops drops of $child_dequeued sent"
	CASES+=("{\"case\": \"$name\", \"ecn_marked\": $child_ecn_marked, \"ecn_nonect\": $child_ecn_nonect, \"ce_at_receiver\": $ce, \"limit_drops\": $child_limit_drops, \"dequeued\": $child_dequeued}")
}

run off calq limit 1000 limit_bytes $BUF
tap_ok "child_ecn_marked == 0 && ce == 0" \
	"no ecn_thresh: no CE ($child_ecn_marked marked, $ce at the receiver)"
tap_ok "child_limit_drops > 0" "no ecn_thresh: TCP fills the buffer ($child_limit_drops drops)"

run below calq limit 1000 limit_bytes $BUF ecn_thresh 15000
tap_ok "child_ecn_marked > 0" "ecn_thresh 15000: calq marks ($child_ecn_marked)"
tap_ok "ce > 0 && ce <= child_ecn_marked" \
	"ecn_thresh 15000: the receiver sees CE ($ce of $child_ecn_marked marked)"
tap_ok "child_ecn_nonect >= 0 && child_ecn_nonect * 20 <= child_ecn_marked" \
	"ecn_thresh 15000: packets over the threshold were ECT, bar a few retransmissions ($child_ecn_nonect not, <= 5% of $child_ecn_marked)"

run above calq limit 1000 limit_bytes $BUF ecn_thresh 46000
tap_ok "child_ecn_marked == 0 && ce == 0" \
	"ecn_thresh 46000 over a 45000-byte buffer: no CE ($child_ecn_marked marked, $ce at the receiver)"
tap_ok "child_limit_drops > 0" \
	"ecn_thresh 46000: the buffer did fill ($child_limit_drops drops)"

topo_write_results "${OUT:-$TOPO_TMP}/calq-ecn.json" \
	"\"link_bps\": 10000000, \"duration_s\": $DUR, \"buffer_bytes\": $BUF"
tap_done
