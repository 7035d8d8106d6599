#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trim-change: `tc qdisc change` on a live, backlogged trim under tbf.
# A slow link (50 kbit/s) keeps the queues full while the limits shrink:
# the qdisc drops from the head down to the new limits, reports the drops
# to its parent (tbf's qlen and backlog follow trim's), refuses a mode
# change while packets are queued, and the old settings stay after a
# refused change.  Then everything drains and both qdiscs read zero.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

topo_modules
topo_init change
topo_build 1 >/dev/null
sw() { ip netns exec "$TOPO_SW" "$@"; }

# snapshot: tbf_* and trim_* integer fields of r0's qdiscs, one dump
snapshot()
{
	sw tc -s -j qdisc show dev r0 | python3 "$HERE/../lib/trim_tbf_counters.py"
}

# a slow port, slower on a slower kernel (make check-debug): the queues
# must stay full across the commands between the checks
RATE=$((50 / ${SHOAL_TIMEOUT_FACTOR:-1}))kbit
sw tc qdisc add dev r0 root handle 1: tbf rate "$RATE" burst 4k limit 1m &&
	sw tc qdisc add dev r0 parent 1:1 handle 10: trim limit 200 hdr_limit 400 ||
	topo_die "qdisc setup"
d=$TOPO_TMP/blast
mkdir -p "$d"
topo_blast 1 4 "$d" --count 300 --size 1000 >/dev/null 2>&1
eval "$(snapshot)"
echo "# before: trim data_qlen $trim_data_qlen hdr_qlen $trim_hdr_qlen, tbf qlen $tbf_qlen"
tap_ok "trim_data_qlen > 20 && trim_hdr_qlen > 10" \
	"queues are full before the change (data $trim_data_qlen, headers $trim_hdr_qlen)"
drops0=$trim_drops

sw tc qdisc change dev r0 parent 1:1 handle 10: trim limit 20 hdr_limit 30
tap_ok "$? == 0" "change limits on a live qdisc"
eval "$(snapshot)"
echo "# after: trim data_qlen $trim_data_qlen hdr_qlen $trim_hdr_qlen qlen $trim_qlen" \
	"backlog $trim_backlog drops $trim_drops; tbf qlen $tbf_qlen backlog $tbf_backlog"
tap_ok "trim_data_qlen <= 20 && trim_hdr_qlen <= 30" \
	"queues shrank to the new limits (data $trim_data_qlen, headers $trim_hdr_qlen)"
tap_ok "trim_drops > drops0" "the shrink counted its drops ($((trim_drops - drops0)))"
# the dumps of the two qdiscs are not atomic: one departure may fall between
tap_ok "tbf_qlen - trim_qlen <= 1 && trim_qlen - tbf_qlen <= 1" \
	"tbf's qlen follows trim's ($tbf_qlen vs $trim_qlen)"
tap_ok "tbf_backlog - trim_backlog <= 1200 && trim_backlog - tbf_backlog <= 1200" \
	"tbf's backlog follows trim's ($tbf_backlog vs $trim_backlog)"

if ((trim_qlen > 0)); then
	sw tc qdisc change dev r0 parent 1:1 handle 10: trim mode same 2>"$TOPO_TMP/err"
	rc=$?
	tap_ok "rc != 0" "mode change refused while packets are queued (status $rc: $(cat "$TOPO_TMP/err"))"
else
	tap_ok 0 "the queue drained too fast to test a refused mode change"
fi
sw tc qdisc change dev r0 parent 1:1 handle 10: trim limit 0 2>/dev/null
sw tc qdisc show dev r0 | grep -q "trim 10: .*limit 20p .*hdr_limit 30p .*mode prio"
tap_ok "$? == 0" "a refused change leaves the settings in force"

for _ in $(seq 1 100); do
	eval "$(snapshot)"
	((tbf_qlen == 0 && trim_qlen == 0)) && break
	topo_nap 0.2
done
tap_ok "tbf_qlen == 0 && tbf_backlog == 0 && trim_backlog == 0" \
	"drained: tbf qlen $tbf_qlen backlog $tbf_backlog, trim backlog $trim_backlog"
sw tc qdisc change dev r0 parent 1:1 handle 10: trim mode same
tap_ok "$? == 0" "mode change accepted once empty"
sw tc qdisc del dev r0 root
tap_done
