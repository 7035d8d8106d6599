#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-rmem: what Shoal sockets hold of what they received is bounded
# for the machine (net.shoal.mem, as udp_mem) and charged to the
# receiving socket's memory cgroup.  One sender sends COUNT messages of
# SIZE bytes (SIRD, the hosts at 100 Mbit/s) to a socket whose SO_RCVBUF
# takes them all, and which reads nothing for HOLD_S seconds.
#   1. net.shoal.mem at LIMIT pages (max; min and pressure below it): the
#      protocol's memory (/proc/net/protocols, sampled while the receiver
#      holds) stays within LIMIT, the CPUs' reserves (the core counts
#      net.core.mem_pcpu_rsv pages a CPU late) and a few pages, below half
#      the COUNT x SIZE bytes sent (every byte would be held without the
#      limit), and reaches a quarter of LIMIT (the limit, not the test,
#      held it back); once it reads, every message arrives intact and is
#      acknowledged, none failed;
#   2. the default limit, the receiver in a memory cgroup: while it holds,
#      the cgroup's socket memory (memory.stat "sock") counts at least
#      three quarters of what was sent; once it has read and closed, the
#      charge is gone and no process was killed;
#   3. after both, the protocol's memory is back within the CPUs' reserves
#      (net.core.mem_pcpu_rsv pages each) and shoal.ko's objects at 0.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

COUNT=24
SIZE=1000000
# seconds the receiver reads nothing: most of the 24 MB must arrive
# meanwhile, longer on a slower kernel (make check-debug)
HOLD_S=$((5 * ${SHOAL_TIMEOUT_FACTOR:-1}))
LIMIT=1024			# pages: 4 MiB of the 24 MB sent
PORT=7200
CG=/sys/fs/cgroup/shoal-rmem.$$
MEM=/proc/sys/net/shoal/mem

topo_modules
shoal_module
topo_init shrm
MEM_WAS=$(cat "$MEM") || topo_die "no $MEM (shoal.ko without net.shoal.mem?)"
cleanup()
{
	echo "$MEM_WAS" >"$MEM"
	topo_teardown
	rmdir "$CG" 2>/dev/null
}
trap cleanup EXIT
topo_build 1 >/dev/null
S=$(topo_sender_ns 1)
RXADDR=$(topo_rx_addr 4)
for ns in "$S" "$TOPO_RX"; do
	ip netns exec "$ns" sysctl -qw net.shoal.link_mbps=100 \
		net.shoal.resend_ms=50 || topo_die "sysctls in $ns"
done
RSV=$(sysctl -n net.core.mem_pcpu_rsv 2>/dev/null || echo 256)
SLACK=$((RSV * $(nproc)))

# proto_pages: the memory column of SIRD in /proc/net/protocols (pages)
proto_pages()
{
	awk '$1 == "SIRD" { print $4 }' /proc/net/protocols
}

# rx_stat NAME: counter NAME of the receiver's namespace
rx_stat()
{
	ip netns exec "$TOPO_RX" awk -v n="$1" \
		'$1 == n { print $2; f = 1 } END { if (!f) print 0 }' /proc/net/shoal/stats
}

# round CGROUP TAG: a receiver (in CGROUP when one is named) that holds
# HOLD_S seconds and then reads COUNT messages, and a sender of them;
# samples the protocol's memory (peak in peak_pages) and the cgroup's
# socket memory (peak in peak_sock) while the receiver holds; the two
# JSONs in $TOPO_TMP/TAG.{recv,send}
round()
{
	local cg=$1 tag=$2 i pages sock send_pid

	SHOAL_RCVBUF=$((32 << 20)) SHOAL_READ_DELAY=$HOLD_S \
		shoal_recv "$TOPO_RX" $PORT $COUNT "$TOPO_TMP/$tag.recv" "$cg"
	ip netns exec "$S" "$SHOAL_MSGS" send "$RXADDR" $PORT $COUNT $SIZE 1 \
		>"$TOPO_TMP/$tag.send" &
	send_pid=$!
	peak_pages=0 peak_sock=0
	# sample until a second before the receiver reads
	for ((i = 0; i < (HOLD_S - 1) * 4; i++)); do
		topo_nap 0.25
		pages=$(proto_pages)
		((pages > peak_pages)) && peak_pages=$pages
		if [ -n "$cg" ]; then
			sock=$(awk '$1 == "sock" { print $2 }' "$cg/memory.stat")
			((sock > peak_sock)) && peak_sock=$sock
		fi
	done
	wait "$recv_pid" "$send_pid"
	eval "$(shoal_verdict "$TOPO_TMP/$tag.recv" "$TOPO_TMP/$tag.send")"
}

# 1. the machine's bound
echo "$((LIMIT / 2)) $((LIMIT * 3 / 4)) $LIMIT" >"$MEM" || topo_die "cannot write $MEM"
drops0=$(rx_stat rx_drop_mem)
ip netns exec "$S" cat /proc/net/shoal/stats >"$TOPO_TMP/s0"
ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats >"$TOPO_TMP/r0"
round "" limit
drops=$(($(rx_stat rx_drop_mem) - drops0))
ip netns exec "$S" cat /proc/net/shoal/stats >"$TOPO_TMP/s1"
ip netns exec "$TOPO_RX" cat /proc/net/shoal/stats >"$TOPO_TMP/r1"
sent_pages=$((COUNT * SIZE / 4096))
topo_log "net.shoal.mem $(cat "$MEM"): the protocol held at most $peak_pages pages of the $sent_pages sent; rx_drop_mem $drops; received $good intact, $bad bad; acknowledged $acked, failed $failed ($errors)"
topo_log "the sender's counters: $(shoal_stats_delta "$(cat "$TOPO_TMP/s0")" "$(cat "$TOPO_TMP/s1")" | tr '\n' ' ')"
topo_log "the receiver's counters: $(shoal_stats_delta "$(cat "$TOPO_TMP/r0")" "$(cat "$TOPO_TMP/r1")" | tr '\n' ' ')"
tap_ok "peak_pages <= LIMIT + SLACK + 64 && peak_pages * 2 < sent_pages" \
	"net.shoal.mem's max of $LIMIT pages held: at most $peak_pages pages held while the receiver read nothing (<= $LIMIT + $SLACK, the CPUs' reserves, + 64), of $sent_pages sent"
tap_ok "peak_pages >= LIMIT / 4" \
	"the receiver held what the limit allowed: $peak_pages pages at its peak (>= $((LIMIT / 4)): the test reached the limit)"
tap_ok "good == COUNT && bad == 0 && acked == COUNT && failed == 0" \
	"once read, every message arrived intact ($good of $COUNT, $bad bad) and was acknowledged ($acked, $failed failed)"
echo "$MEM_WAS" >"$MEM"

# 2. the cgroup's charge
[ -e /sys/fs/cgroup/cgroup.controllers ] || topo_die "no cgroup v2"
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control ||
	topo_die "cannot enable the memory controller"
mkdir "$CG" || topo_die "mkdir $CG"
round "$CG" memcg
after_sock=$(awk '$1 == "sock" { print $2 }' "$CG/memory.stat")
ooms=$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")
topo_log "in a cgroup: socket memory at most $((peak_sock >> 20)) MiB while holding, $after_sock bytes after; received $good intact, acknowledged $acked; OOM kills $ooms"
tap_ok "peak_sock >= COUNT * SIZE * 3 / 4" \
	"the receiving socket's cgroup was charged for what it held: memory.stat sock at most $((peak_sock >> 20)) MiB while it read nothing (>= $((COUNT * SIZE * 3 / 4 >> 20)) MiB of $((COUNT * SIZE >> 20)) sent)"
tap_ok "after_sock == 0 && ooms == 0 && good == COUNT && acked == COUNT" \
	"once read and closed, the charge is gone (sock $after_sock bytes), no OOM kill ($ooms), $good of $COUNT messages intact and $acked acknowledged"

# 3. nothing left
pages=$(proto_pages)
tap_ok "pages <= SLACK" \
	"the protocol's memory back to $pages pages (<= $SLACK: the CPUs' reserves)"
shoal_objects_zero "once the receivers closed" out_msgs in_msgs done_names send_errors
tap_done
