#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fairness part of `make bench`, inside the VM: Jain's index over the
# goodputs of K UDP flows (K = 2 .. 10000, BENCH_FAIR_FLOWS) sharing a
# 2 Mbit/s switch port (tbf), for afq and the in-tree fair queues, then for
# afq against its sketch size.  Half the flows offer exactly their fair
# share on the wire, the other half three times it, so a fair queue gives
# every flow the same goodput (Jain 1.0) and a FIFO gives the greedy half
# three times more (Jain 0.8).  Arrivals are Poisson: fixed gaps lock into
# step with a FIFO's departures.  The queue holds 1000 packets, or one per
# flow beyond that: with fewer slots than flows no queue can be fair.
# Fixed-bucket queues (sfq: 128 queues; fq_codel: 1024) collide once K
# nears their bucket count.  Memory is the growth of the kernel's slab and
# vmalloc use from before the qdisc was added to the end of the run, queues
# drained: a measurement, with some noise from other allocations.  The
# senders report how much of their schedule they kept; a run where one fell
# behind is marked.  Each cell is recorded for results.json too
# (scripts/lib/bench_record.py).
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/flows.sh
source "$TREE/tools/testing/lib/flows.sh"

LINK_BPS=2000000
SIZE=100			# UDP payload bytes: 1760 packets/s at the port
WIRE=$((SIZE + 42))		# what tbf counts: Ethernet, IPv4, UDP headers
SHARE_BPS=$((LINK_BPS * SIZE / WIRE / 2))	# half the link, as payload
DUR=${BENCH_FAIR_SECONDS:-12}	# a run; 5x that from 2000 flows up, so
				# that every flow still gets ~10 packets
FLOW_COUNTS=${BENCH_FAIR_FLOWS:-2 16 128 1024 10000}
DIR=${VM_OUT:-/tmp}/bench-fair
mkdir -p "$DIR"

topo_modules sch_afq
modprobe -a sch_fq_codel sch_fq sch_sfq
topo_init bfair
topo_build 2 >/dev/null

# kernel memory in slab and vmalloc, KiB
kmem()
{
	awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo
}

# run K QDISC...: prints "jain min_pct mem_kib kept_pct" for K flows
# through QDISC; kept_pct is the smaller share of its schedule a sender
# kept (below 95, the guest could not offer the load asked for)
run()
{
	local k=$1 half t0 m0 dir dur=$DUR kept lim=1000

	shift
	# a queue cannot be fair to more flows than it holds a packet of
	((k > lim)) && lim=$k
	set -- "${@//LIMIT/$lim}"
	half=$((k / 2))
	((k >= 2000)) && dur=$((5 * DUR))
	dir=$DIR/k$k-${*// /_}
	m0=$(kmem)
	topo_link_qdisc 2mbit 3k 10m "$@" || topo_die "qdisc $*"
	flows_recv "$dir" --idle-ms 2000 --timeout $((dur + 60))
	t0=$(flows_now_plus $((3 + k / 2000)))
	flows_send 1 --id 1 --flows "$half" --udp "$SHARE_BPS" --size "$SIZE" \
		--poisson --duration "$dur" --start-at "$t0" 2>"$dir/send1.log"
	flows_send 2 --id 100000 --flows "$half" --udp $((3 * SHARE_BPS)) \
		--size "$SIZE" --poisson --duration "$dur" --start-at "$t0" \
		2>"$dir/send2.log"
	flows_wait || topo_log "a flow endpoint failed" >&2
	kept=$(sed -n 's/.*(\([0-9]*\)\.[0-9]%).*/\1/p' "$dir"/send*.log |
		sort -n | head -n 1)
	# every flow started counts: one the receiver never saw has goodput 0
	flows_eval share "$(echo "$t0" | awk '{print $1 + 3}')" \
		"$(echo "$t0 $dur" | awk '{print $1 + $2 - 1}')" "$LINK_BPS" $((2 * half))
	echo "$jain $min_pct $(($(kmem) - m0)) ${kept:-0}"
	topo_link_qdisc_del
}

# QDISCS: "label=spec" entries; BENCH_FAIR_QDISCS replaces them (";"-separated)
# (LIMIT: the queue's packets).  afq's rounds are one packet (bpr 142,
# not the default MTU): the senders' packets are small and every flow
# should get its turn each round; pushout keeps the queue for the flows
# that are behind.
QDISCS=("pfifo=pfifo limit LIMIT" "sfq=sfq limit LIMIT"
	"fq_codel=fq_codel limit LIMIT" "fq_codel-64k=fq_codel limit LIMIT flows 65536"
	"fq=fq limit LIMIT" "afq=afq limit LIMIT bpr $WIRE overflow pushout")
[ -n "${BENCH_FAIR_QDISCS:-}" ] && IFS=';' read -r -a QDISCS <<<"$BENCH_FAIR_QDISCS"
echo
echo "== fairness against the number of flows: Jain's index over all flows"
echo "   (1.0 = fair; * = a sender fell behind its schedule), the worst flow"
echo "   in percent of the mean, and the kernel memory the run added (KiB)."
echo "   A 2 Mbit/s port (tbf), a queue of 1000 packets or one per flow;"
echo "   $SIZE-byte UDP, Poisson arrivals; half the flows at their fair share,"
echo "   half at three times it (a FIFO gives Jain 0.8); $DUR s a run, $((5 * DUR)) s"
echo "   from 2000 flows up.  afq: bpr $WIRE (one packet), overflow pushout."
printf '%-7s' flows
for q in "${QDISCS[@]}"; do
	printf ' %19s' "${q%%=*}"
done
echo
for k in $FLOW_COUNTS; do
	printf '%-7s' "$k"
	for q in "${QDISCS[@]}"; do
		# shellcheck disable=SC2086	# the qdisc spec is a word list
		read -r j p m kept <<<"$(run "$k" ${q#*=})"
		python3 "$TREE/scripts/lib/bench_record.py" case fair "$k flows ${q%%=*}" \
			jain="$j" worst_pct="$p" kib="$m" kept_pct="$kept"
		((kept >= 95)) || j="$j*"
		printf ' %7s %4s%% %5sK' "$j" "$p" "$m"
	done
	echo
done

K=1024
[ "${BENCH_FAIR_SKETCH:-1}" = 0 ] && exit 0
echo
echo "== afq against its sketch size, $K flows (thesis: 2 x 1024 misplaces < 1%)"
printf '%-14s %8s %7s %8s\n' sketch jain worst KiB
for cols in 64 256 1024 4096 16384; do
	read -r j p m kept <<<"$(run "$K" afq limit LIMIT bpr "$WIRE" overflow pushout \
		rows 2 cols "$cols")"
	python3 "$TREE/scripts/lib/bench_record.py" case fair "sketch 2 x $cols" \
		jain="$j" worst_pct="$p" kib="$m" kept_pct="$kept"
	((kept >= 95)) || j="$j*"
	printf '%-14s %8s %6s%% %7sK\n' "2 x $cols" "$j" "$p" "$m"
done
echo
echo "Raw results: $DIR"
