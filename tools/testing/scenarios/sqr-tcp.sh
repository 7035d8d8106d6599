#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sqr-tcp: short TCP flows (web-search sizes up to 100 KB, one after the
# other, a new connection each) cross the switch's port r0 while sqr's
# injector fails it every 40 ms for 6 ms, each outage found after 2 ms and
# rerouted to the backup link b0.  Without copies (hold 0) the packets of
# the detection window are lost and some flows wait for a retransmission
# timeout (a lost SYN waits a second); with sqr those packets come a few
# milliseconds late and no flow hits one.  The sender's kernel counters
# (TcpExtTCPTimeouts) tell.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/sqr.sh
source "$HERE/../lib/sqr.sh"

FLOWS=${SQR_TCP_FLOWS:-100}
FAULT="fault_len 6ms fault_detect 2ms fault_period 40ms"

topo_modules sch_sqr
topo_init sqrtcp
topo_build 1 >/dev/null
sqr_backup_link
s1=$(topo_sender_ns 1)
# TSO off: the injector drops what a GSO packet carries as one
ip netns exec "$s1" ethtool -K eth0 tso off gso off >/dev/null

sqr_rpc_server "$TOPO_TMP"

# run NAME SQR_OPTS: FLOWS flows under the injected outages; sets rto
# (timeouts on the sender), flows_ok, p99_us and max_us
run()
{
	local name=$1 t0

	sw tc qdisc replace dev r0 root handle 1: sqr $2 || topo_die "sqr $2"
	sw tc qdisc change dev r0 root sqr $FAULT || topo_die "the injector"
	t0=$(sqr_timeouts)
	sqr_rpc_call --flows "$FLOWS" --seed 7 --json "$TOPO_TMP/$name.json" \
		2>"$TOPO_TMP/$name.log" || topo_log "$name: $(cat "$TOPO_TMP/$name.log")"
	rto=$(($(sqr_timeouts) - t0))
	eval "$(sqr_counters)"
	read -r flows_ok p99_us max_us < <(python3 "$HERE/../lib/fct_p99.py" \
		"$TOPO_TMP/$name.json")
	echo "# $name: $flows_ok flows, $rto retransmission timeouts, fct p99 ${p99_us} us" \
		"max ${max_us} us; sqr: outages $fault_outages fault_drops $fault_drops" \
		"resent $resent lost $lost"
	sw tc qdisc del dev r0 root
}

backup="backup b0 dmac $SQR_BACKUP_MAC failback 5ms"
run nosqr "hold 0 poll 200us $backup"
tap_ok "flows_ok == FLOWS && fault_outages >= 10" \
	"no copies: all $flows_ok flows completed across $fault_outages outages"
tap_ok "rto >= 1 && fault_drops >= 1" \
	"no copies: $rto retransmission timeouts for the $fault_drops packets lost"
nosqr_max=$max_us

run sqr "hold 20ms poll 200us $backup"
tap_ok "flows_ok == FLOWS && fault_outages >= 10 && fault_drops >= 1" \
	"sqr: all $flows_ok flows completed across $fault_outages outages that dropped $fault_drops packets"
tap_ok "rto == 0 && lost == 0" "sqr: no retransmission timeout ($rto), nothing lost ($lost)"
echo "# the slowest flow: ${max_us} us with sqr, ${nosqr_max} us without copies"
tap_done
