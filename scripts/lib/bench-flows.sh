#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-packet cost part of `make bench`, inside the VM: packets per
# second through one switch port against the number of concurrent flows
# (K = 1 .. 10000, BENCH_FLOWS_COUNTS), every packet enqueued and dequeued
# (under a tbf that never limits).  One shoal-flows sender sends 64-byte
# UDP datagrams round robin over K sockets as fast as it can, for
# BENCH_FLOWS_SECONDS; the rate is what the switch port sent (the
# receiver drops it all on arrival).  pfifo keeps no per-flow state: the
# ratio of a qdisc's rate to pfifo's at the same K is its own cost, and a cost
# that grows with the flows shows as a ratio that falls as K grows (the
# sender's own cost of many sockets is in both).  BENCH_ROUNDS interleaved
# runs, the median counts.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/flows.sh
source "$TREE/tools/testing/lib/flows.sh"

ROUNDS=${BENCH_ROUNDS:-5}
SECONDS_RUN=${BENCH_FLOWS_SECONDS:-4}
COUNTS=${BENCH_FLOWS_COUNTS:-1 100 10000}
DIR=${VM_OUT:-/tmp}/bench-flows
FAST="tbf rate 10gbit burst 1m limit 10m"
# "label=spec" entries; BENCH_FLOWS_QDISCS replaces them (";"-separated)
QDISCS=("pfifo=pfifo limit 10000" "fq_codel=fq_codel" "sfq=sfq" "fq=fq"
	"afq=afq limit 10000" "calq=calq limit 10000 rank fq")
[ -n "${BENCH_FLOWS_QDISCS:-}" ] && IFS=';' read -r -a QDISCS <<<"$BENCH_FLOWS_QDISCS"
mkdir -p "$DIR"

topo_modules sch_afq sch_calq
modprobe -a sch_fq_codel sch_fq sch_sfq
topo_init bflows
topo_build 1 >/dev/null
# the receiver drops everything on arrival: no socket, no ICMP back
if ! ip netns exec "$TOPO_RX" tc qdisc add dev eth0 clsact ||
	! ip netns exec "$TOPO_RX" tc filter add dev eth0 ingress matchall action drop; then
	topo_die "cannot set up the receiver's drop filter"
fi

# packets the switch port's root (the tbf) sent
port_packets()
{
	ip netns exec "$TOPO_SW" tc -s -j qdisc show dev r0 |
		python3 -c 'import json, sys
print(next(q["packets"] for q in json.load(sys.stdin) if q["kind"] == "tbf"))'
}

# measure K LABEL QDISC...: one run; appends "LABEL K pps round" to the
# samples, pps being what the switch port sent: a sender faster than the
# path loses the excess before the port, and counts it as sent
measure()
{
	local k=$1 label=$2 dir=$DIR/run t0 p0 secs

	shift 2
	# shellcheck disable=SC2086	# the spec is a word list
	if ! ip netns exec "$TOPO_SW" tc qdisc replace dev r0 root handle 1: $FAST ||
		! ip netns exec "$TOPO_SW" tc qdisc add dev r0 parent 1:1 "$@"; then
		topo_die "cannot set up $*"
	fi
	mkdir -p "$dir"
	p0=$(port_packets)
	# time to open K sockets first
	t0=$(flows_now_plus $((2 + k / 2000)))
	flows_send 1 --id 1 --flows "$k" --udp 100000000000 --size 64 \
		--duration "$SECONDS_RUN" --start-at "$t0" 2>"$dir/send.log"
	wait "${FLOWS_SENDERS[@]}" || topo_log "the sender failed" >&2
	FLOWS_SENDERS=()
	# over the time it sent: opening 10000 sockets may outlast the lead
	secs=$(sed -n 's/.* for \([0-9.]*\) s$/\1/p' "$dir/send.log")
	echo "$label $k $(($(port_packets) - p0)) $r ${secs:-0}" |
		awk '$5 > 0 { printf "%s %s %d %s\n", $1, $2, $3 / $5, $4 }' >>"$DIR/samples"
	ip netns exec "$TOPO_SW" tc qdisc del dev r0 root
}

: >"$DIR/samples"
for r in $(seq 1 "$ROUNDS"); do
	echo "flows round $r of $ROUNDS" >&2
	for k in $COUNTS; do
		for ((i = 0; i < ${#QDISCS[@]}; i++)); do
			q=${QDISCS[(i + r) % ${#QDISCS[@]}]}
			# shellcheck disable=SC2086	# the spec is a word list
			measure "$k" "${q%%=*}" ${q#*=}
		done
	done
done

python3 - "$DIR/samples" "$SECONDS_RUN" "$ROUNDS" <<'PY'
import statistics, sys
runs, by_round = {}, {}
for line in open(sys.argv[1]):
    q, k, pps, rnd = line.split()
    runs.setdefault((q, int(k)), []).append(int(pps))
    by_round[(q, int(k), rnd)] = int(pps)
med = {key: statistics.median(v) for key, v in runs.items()}
def ratio(q, k):
    """median over the rounds of q's rate / pfifo's in the same round"""
    rs = [p / by_round[("pfifo", kk, r)] for (qq, kk, r), p in by_round.items()
          if qq == q and kk == k and by_round.get(("pfifo", kk, r))]
    return statistics.median(rs) if rs else 0.0
ks = sorted({k for _, k in med})
qs = []
for q, _ in runs:
    if q not in qs:
        qs.append(q)
qs.sort(key=lambda q: (q != "pfifo", q))
print()
print("== per-packet cost against the number of flows: pps with K UDP flows")
print("   (64-byte payloads, a socket each, round robin), every packet queued")
print("   (under a tbf that never limits); ratio to pfifo at the same K and round,")
print("   median over the rounds;")
print("   %s s a run, median of %s interleaved runs" % (sys.argv[2], sys.argv[3]))
print("%-10s" % "qdisc" + "".join("%18s" % ("%d flow%s" % (k, "s" if k > 1 else "")) for k in ks))
for q in qs:
    cells = []
    for k in ks:
        cells.append("%18s" % ("%d %5.2fx" % (med.get((q, k), 0), ratio(q, k))))
    print("%-10s" % q + "".join(cells))
lo, hi = ks[0], ks[-1]
for q in ("afq", "calq"):
    if (q, lo) not in med or (q, hi) not in med:
        continue
    a, b = ratio(q, lo), ratio(q, hi)
    print("%s per-packet cost, %d flows against %d: %.2fx pfifo against %.2fx "
          "(goal: does not grow with flows, at least 0.9 of it): %s"
          % (q, hi, lo, b, a, "met" if b >= 0.9 * a else "NOT met"))
PY
echo "Raw results: $DIR/samples"
