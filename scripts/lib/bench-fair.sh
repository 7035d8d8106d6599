#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fairness part of `make bench`, inside the VM: Jain's index over the
# goodputs of K UDP flows (K = 2 .. 10000, BENCH_FAIR_FLOWS) sharing a 2 Mbit/s
# switch port (tbf), for afq and the in-tree fair queues, then for afq
# against its sketch size.  Half the flows offer exactly their fair share,
# the other half three times it, so a fair queue gives every flow the same
# goodput (Jain 1.0) and a FIFO gives the greedy half three times more
# (Jain 0.8).  Fixed-bucket queues (sfq, fq_codel: 1024 buckets) collide
# once K nears their bucket count.  Memory is the growth of the kernel's
# slab and vmalloc use from before the qdisc was added to the end of the
# run, queues drained: a measurement, with some noise from other allocations.
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

# run K QDISC...: prints "jain mem_kib" for K flows through QDISC
run()
{
	local k=$1 half t0 m0 dir dur=$DUR

	shift
	half=$((k / 2))
	((k >= 2000)) && dur=$((5 * DUR))
	dir=$DIR/k$k-${*// /_}
	m0=$(kmem)
	topo_link_qdisc 2mbit 3k 10m "$@" || topo_die "qdisc $*"
	flows_recv "$dir" --idle-ms 2000 --timeout $((dur + 60))
	t0=$(flows_now_plus 3)
	flows_send 1 --id 1 --flows "$half" --udp $((LINK_BPS / 2)) --size "$SIZE" \
		--duration "$dur" --start-at "$t0"
	flows_send 2 --id 100000 --flows "$half" --udp $((3 * LINK_BPS / 2)) \
		--size "$SIZE" --duration "$dur" --start-at "$t0"
	flows_wait || topo_log "a flow endpoint failed" >&2
	echo "$(python3 "$FLOWS_PY" share "$FLOWS_JSON" \
		"$(echo "$t0" | awk '{print $1 + 3}')" \
		"$(echo "$t0 $dur" | awk '{print $1 + $2 - 1}')" "$LINK_BPS" |
		awk -F= '$1 == "jain" { print $2 }') $(($(kmem) - m0))"
	topo_link_qdisc_del
}

QDISCS=("pfifo limit 1000" "sfq limit 1000" "fq_codel limit 1000" "fq limit 1000"
	"afq limit 1000")
echo
echo "== fairness against the number of flows: Jain's index (1.0 = fair) and"
echo "   kernel memory the run added (KiB); 2 Mbit/s port, $SIZE-byte UDP,"
echo "   half the flows offer their share, half three times it; $DUR s a run"
echo "   ($((5 * DUR)) s from 2000 flows up)"
printf '%-8s' flows
for q in "${QDISCS[@]}"; do
	printf ' %17s' "${q%% *}"
done
echo
for k in $FLOW_COUNTS; do
	printf '%-8s' "$k"
	for q in "${QDISCS[@]}"; do
		# shellcheck disable=SC2086	# the qdisc spec is a word list
		read -r j m <<<"$(run "$k" $q)"
		printf ' %9s %5sK' "$j" "$m"
	done
	echo
done

K=1024
echo
echo "== afq against its sketch size, $K flows (thesis: 2 x 1024 misplaces < 1%)"
printf '%-14s %8s %8s\n' sketch jain KiB
for cols in 64 256 1024 4096 16384; do
	read -r j m <<<"$(run "$K" afq limit 1000 rows 2 cols "$cols")"
	printf '%-14s %8s %7sK\n' "2 x $cols" "$j" "$m"
done
echo
echo "Raw results: $DIR"
