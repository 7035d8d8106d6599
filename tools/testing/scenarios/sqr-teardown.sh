#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sqr-teardown: sqr holds copies (a 1 s hold) or a fail queue (a failure
# whose release waits, or packets its guard took from the detached port)
# while it is deleted, replaced, its backup device
# deleted, or its whole namespace deleted, or its ring resized or given
# up.  Nothing crashes (the guest log is checked by the test bed) and the
# module's own counts of the packets it holds and of its copy buffers,
# /sys/module/sch_sqr/parameters/held_pkts and buffers, return to zero.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/sqr.sh
source "$HERE/../lib/sqr.sh"

HELD=/sys/module/sch_sqr/parameters/held_pkts
# a copy's hold: sqr's longest (1 s); on a slower kernel (make
# check-debug) the fail queue is held longer, up to sqr's longest (10 s),
# to outlive the reads and commands between the checks
F=${SHOAL_TIMEOUT_FACTOR:-1}
HOLD=1s
MAX_HOLD=$((5 * F < 10 ? 5 * F : 10))s
BUFS=/sys/module/sch_sqr/parameters/buffers

topo_modules sch_sqr
topo_init sqrt
topo_build 1 >/dev/null
sw ip link add b0 type veth peer name b1 || topo_die "backup link"
sw ip link set b0 up && sw ip link set b1 up || topo_die "backup link up"

# send N packets through r0
traffic()
{
	topo_blast 1 4 "$TOPO_TMP" --count "$1" --rate 20000 --size 100 >/dev/null 2>&1
}

# held_now: the module's counts of packets and buffers, summed, after the
# RCU callbacks that free qdiscs
held_now()
{
	topo_nap 0.3
	echo $(($(cat "$HELD") + $(cat "$BUFS")))
}

# 1. delete while copies are held
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms || topo_die "sqr"
traffic 300
# the count first: the ring only shrinks from here (the first copies
# expire about a second after they were taken, as slow as reads are here)
held=$(cat "$HELD")
eval "$(sqr_counters)"
tap_ok "ring_pkts >= 100 && held >= ring_pkts" \
	"copies held before the delete: $ring_pkts in the ring, $held counted"
sw tc qdisc del dev r0 root
tap_ok "$(held_now) == 0" "delete with copies held: none left ($(cat "$HELD"))"

# 2. replace while copies are held, as clones this time
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms copy_max 0 || topo_die "sqr"
traffic 300
eval "$(sqr_counters)"
tap_ok "cloned >= 100 && cloned == cached" "copy_max 0: every copy a clone ($cloned of $cached)"
sw tc qdisc replace dev r0 root pfifo limit 100
tap_ok "$? == 0 && $(held_now) == 0" "replace by pfifo with clones held: none left"

# 2b. the ring moves to a smaller buffer twice while copies are held:
# the oldest that no longer fit are dropped (counted as backstop), the
# rest kept.  No read in between: under TCG a read takes long enough for
# the copies' hold to run out.
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms || topo_die "sqr"
traffic 300
sw tc qdisc change dev r0 root sqr ring_bytes 1mb
sw tc qdisc change dev r0 root sqr ring_bytes 8kb copy_max 1kb
# the count first, as in 1.: the ring only shrinks from here
held=$(cat "$HELD")
eval "$(sqr_counters)"
# a 100-byte payload makes a frame of about 150 bytes, a record of about
# 200: some 40 fit in 8kb (and may have expired since); every copy is
# held, expired or dropped, once
tap_ok "cached >= 100 && backstop + expired + ring_pkts == cached && backstop > 0 && held <= 45 && held >= ring_pkts && $(cat "$BUFS") == 1" \
	"$cached copies moved to a 1mb ring, then an 8kb one: the oldest $backstop dropped, the newest kept ($ring_pkts held, $expired expired since)"
sw tc qdisc change dev r0 root sqr hold 0
eval "$(sqr_counters)"
tap_ok "ring_pkts == 0 && $(held_now) == 0" "hold 0: the copies and the buffer are gone"
sw tc qdisc del dev r0 root

# 3. a failure on the same port, its release waiting for the port: the
# copies and the new packets sit in the fail queue; then the delete
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms max_hold $MAX_HOLD || topo_die "sqr"
traffic 200
sw tc qdisc change dev r0 root sqr force down
traffic 100
eval "$(sqr_counters)"
tap_ok "failures == 1 && failq_pkts >= 250" \
	"forced down, same port: $failq_pkts packets held in the fail queue"
sw tc qdisc del dev r0 root
tap_ok "$(held_now) == 0" "delete with a fail queue held: none left"

# 3b. the port loses its carrier (the receiver's end goes down) with the
# routes through it kept: linkwatch detaches sqr, and its guard takes what
# the FIB still sends there into the fail queue (same port: the release
# waits for the port); then the delete, while the port is detached.
sqr_keep_routes
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms max_hold $MAX_HOLD || topo_die "sqr"
traffic 100
rx ip link set eth0 down
sqr_r0_wait NO-CARRIER
traffic 100
eval "$(sqr_counters)"
tap_ok "failures == 1 && guarded >= 90 && failq_pkts >= guarded" \
	"carrier lost, routes kept: the guard took $guarded packets of the detached port ($failq_pkts held)"
sw tc qdisc del dev r0 root
tap_ok "$? == 0 && $(held_now) == 0" "delete while detached, with the guard's packets held: none left"
rx ip link set eth0 up
sqr_r0_wait LOWER_UP

# 4. the backup device goes away while packets wait for it: b0 is down,
# so the release waits (event release: as soon as the backup is up)
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms max_hold $MAX_HOLD \
	backup b0 dmac 02:00:00:00:00:b1 release event || topo_die "sqr backup"
sw ip link set b0 down
traffic 200
sw tc qdisc change dev r0 root sqr force down
eval "$(sqr_counters)"
tap_ok "failq_pkts >= 150 && backup_ok == 0" \
	"backup down: $failq_pkts packets wait for it"
sw ip link del b0
tap_ok "$? == 0" "the backup device can be deleted while packets wait for it"
eval "$(sqr_counters)"
tap_ok "backup_ok == 0 && failq_pkts >= 150" \
	"the packets still wait, with no backup ($failq_pkts)"
# a change that does not name the backup still works without it
sw tc qdisc change dev r0 root sqr force up
tap_ok "$? == 0" "a change without the gone backup is accepted"
topo_nap 0.5
eval "$(sqr_counters)"
tap_ok "failq_pkts == 0 && resent >= 150" \
	"the backup gone, the primary up: the held packets left on it ($resent resent)"
sw tc qdisc del dev r0 root
tap_ok "$(held_now) == 0" "none left after the backup went away"

# 5. the namespace goes, with copies and a fail queue held
sw tc qdisc replace dev r0 root handle 1: sqr hold $HOLD poll 1ms max_hold $MAX_HOLD || topo_die "sqr"
traffic 200
sw tc qdisc change dev r0 root sqr force down
traffic 50
topo_teardown
tap_ok "$(held_now) == 0" "deleting the namespace with packets held: none left"
rmmod sch_sqr
tap_ok "$? == 0" "the module unloads"
insmod "$TREE/net/sched/sch_sqr.ko"
tap_done
