#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sqr-heartbeat: a gray failure, the link up but nothing crossing it: the
# receiver drops everything that reaches its end of r0 (an XDP program,
# tools/bpf/xdp_drop.bpf.c, before any capture) while the carrier stays
# up.  sqr on r0 probes the link every
# HB; the receiver's kernel answers (sch_sqr answers probes on any
# device).  After HB_MISS probes unanswered in a row sqr fails over to
# the backup link b0 with the copies it holds, and comes back when the
# probes are answered again.  With heartbeats nothing is lost and order
# is kept; with the carrier alone, what the filter dropped is lost.  With
# a verdict later than hold, what expired meanwhile is lost and
# window_lost counts it, close above; within hold it counts 0.  Idle,
# the probes raise no false alarm; deleting the qdisc while echoes arrive
# every 50 us crashes nothing.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/sqr.sh
source "$HERE/../lib/sqr.sh"

RATE=2000		# packets per second
COUNT=8000		# 4 s of stream: loading the XDP program takes a while
GRAY=0.3		# seconds the filter drops everything
# a probe every 2 ms, down after 10 unanswered: echoes here come late by
# a few ms now and then (TCG), 20 ms without one is a failure
HB=2ms
HB_MISS=10
HOLD_NS=50000000
HOLD="hold $((HOLD_NS / 1000000))ms poll 200us"	# above (HB_MISS + 1) x HB, with room for late timers
ANSWERED=/sys/module/sch_sqr/parameters/hb_answered

topo_modules sch_sqr
topo_init sqrh
topo_build 1 >/dev/null
sqr_backup_link
backup="backup b0 dmac $SQR_BACKUP_MAC failback 5ms"

# the receiver drops everything on its end of r0 for GRAY seconds (from
# when the program is in: loading it takes up to a second under TCG)
gray()
{
	local t0=${EPOCHREALTIME/./}

	rx ip link set dev eth0 xdpgeneric obj "$TREE/tools/bpf/xdp_drop.bpf.o" sec xdp ||
		topo_log "cannot attach xdp_drop"
	echo "# xdp_drop attached after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
	topo_nap "$GRAY"
	rx ip link set dev eth0 xdpgeneric off
}

# 1. idle, no failure: the probes are answered, no false alarm
answered0=$(cat "$ANSWERED")
sw tc qdisc replace dev r0 root handle 1: sqr $HOLD heartbeat $HB hb_miss $HB_MISS $backup ||
	topo_die "sqr with heartbeats"
topo_nap 1
eval "$(sqr_counters)"
answered=$(($(cat "$ANSWERED") - answered0))
tap_ok "hb_sent >= 50 && hb_sent - hb_echoes <= 5 && answered >= hb_echoes && failures == 0" \
	"idle 1 s: $hb_sent probes, $hb_echoes answered (the module answered $answered by now), $failures failures"

# 2. a gray failure under a stream, found by the heartbeat
sqr_stream gray-hb "$COUNT" "$RATE" gray
eval "$(sqr_counters)"
echo "# heartbeat: $distinct of $COUNT arrived, $dups duplicates, $reordered out of order;" \
	"sqr: hb_failures $hb_failures committed $committed resent $resent dup_avoided $dup_avoided" \
	"diverted $diverted detect_latency ${detect_latency_last}ns"
tap_ok "hb_failures >= 1 && failures == hb_failures && committed > 0" \
	"gray failure ${GRAY}s: found by the heartbeat ($hb_failures times, the last after $((detect_latency_last / 1000)) us), $committed copies committed"
tap_ok "distinct == COUNT" "gray failure, heartbeat: none lost ($distinct of $COUNT arrived)"
tap_ok "reordered == 0 && dups <= 100" \
	"gray failure, heartbeat: order kept ($reordered out of order), $dups duplicates (bound: hold x rate)"
# within hold nothing expires before the verdict; a verdict later than
# hold (the guest's timers stalled: the probes go every HB) lets copies
# expire, and that case is the one checked below with a slow heartbeat
within="gray failure found within hold: nothing expired unresent in the window (window_lost $window_lost, verdict after $((detect_latency_last / 1000)) us)"
if ((detect_latency_last > HOLD_NS)); then
	tap_skip "$within" "the verdict came after hold ($((detect_latency_last / 1000)) us > $((HOLD_NS / 1000)) us; probes every $HB): the guest's timers stalled"
else
	tap_ok "window_lost == 0" "$within"
fi
sw tc -s qdisc show dev r0 | grep -q "state up"
tap_ok "$? == 0" "the probes answered again: back on the primary"
sw tc qdisc del dev r0 root

# 2b. the same failure found after hold: hold 5 ms, the heartbeat's
# verdict after (HB_MISS + 1) x HB = 22 ms (accepted with a warning).
# What expired before the verdict is lost, and window_lost counts it: all
# of it (the lost packets were sent after the newest answered probe), and
# at most those sent from HB + dedup_guard before that probe to the
# failure's onset on top, one probe interval or two, 2 x HB x RATE = 8
# packets; timers here come late by a few ms, so the margin is 30.
sw tc qdisc replace dev r0 root handle 1: sqr hold 5ms poll 200us heartbeat $HB \
	hb_miss $HB_MISS $backup 2>"$TOPO_TMP/late.err" || topo_die "sqr, late heartbeat"
grep -q "Warning: sqr: (hb_miss + 1) x heartbeat not shorter than hold" "$TOPO_TMP/late.err"
tap_ok "$? == 0" "a heartbeat slower than hold: accepted, with a warning"
sqr_stream gray-late "$COUNT" "$RATE" gray
eval "$(sqr_counters)"
lost=$((COUNT - distinct))
echo "# late heartbeat: $distinct of $COUNT arrived ($lost lost), $dups duplicates, $reordered" \
	"out of order; hb_failures $hb_failures committed $committed expired $expired" \
	"window_lost $window_lost detect_latency ${detect_latency_last}ns"
tap_ok "hb_failures >= 1 && lost > 0" \
	"gray failure found after hold: $lost packets lost (found $((detect_latency_last / 1000)) us after the newest answered probe)"
tap_ok "window_lost >= lost && window_lost <= lost + 30" \
	"gray failure found after hold: window_lost $window_lost, an upper bound close to the $lost lost"
sw tc qdisc del dev r0 root

# 3. the same without heartbeats: the carrier stays up, nothing is found
sw tc qdisc replace dev r0 root handle 1: sqr $HOLD $backup || topo_die "sqr"
sqr_stream gray-carrier "$COUNT" "$RATE" gray
eval "$(sqr_counters)"
tap_ok "failures == 0 && COUNT - distinct >= 200" \
	"gray failure, the carrier alone: not found, $((COUNT - distinct)) lost"
sw tc qdisc del dev r0 root

# 4. deleted while echoes arrive every 50 us
sw tc qdisc replace dev r0 root handle 1: sqr hold 1ms heartbeat 50us hb_miss 10 ||
	topo_die "sqr heartbeat 50us"
topo_nap 0.5
eval "$(sqr_counters)"
sw tc qdisc del dev r0 root
tap_ok "$? == 0 && hb_echoes > 0" "deleted while echoes arrive ($hb_echoes echoes of $hb_sent probes)"
tap_ok "$(cat /sys/module/sch_sqr/parameters/held_pkts) == 0 && $(cat /sys/module/sch_sqr/parameters/buffers) == 0" \
	"no packet and no copy buffer held once the qdiscs are gone"
tap_done
