#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-packet cost part of `make bench`, inside the VM: the qdisc's own
# cost, against the number of concurrent flows (K = 1 .. 10000,
# BENCH_FLOWS_COUNTS).  pktgen, in the kernel, sends BENCH_FLOWS_PACKETS
# UDP frames with 64-byte payloads through dev_queue_xmit to a dummy
# device that frees them, its source port stepping round robin over K
# ports, so nothing but the allocation of the skb, the qdisc and the
# dummy's free is on the path: the qdisc is a fifth to a third of it, where
# through sockets and a forwarding netns it was lost in the noise.  Twice:
# queued (under a tbf that never limits, every packet enqueued and
# dequeued) and at the root (where a qdisc that allows it lets a packet
# that finds it empty go straight to the device).  Each qdisc's rate is a
# ratio to pfifo's (no per-flow state) and to fq_codel's at the same K in
# the same round, median over BENCH_FLOWS_ROUNDS (9) interleaved rounds.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../lib/pktgen.sh
source "$TREE/scripts/lib/pktgen.sh"

ROUNDS=${BENCH_FLOWS_ROUNDS:-9}
PACKETS=${BENCH_FLOWS_PACKETS:-100000}
COUNTS=${BENCH_FLOWS_COUNTS:-1 100 10000}
DIR=${VM_OUT:-/tmp}/bench-flows
DEV=pgdum0
FAST="tbf rate 10gbit burst 1m limit 10m"
# "label=spec" entries; BENCH_FLOWS_QDISCS replaces them (";"-separated)
QDISCS=("pfifo=pfifo limit 10000" "fq_codel=fq_codel" "sfq=sfq" "fq=fq"
	"afq=afq limit 10000" "calq=calq limit 10000 rank fq horizon clamp")
[ -n "${BENCH_FLOWS_QDISCS:-}" ] && IFS=';' read -r -a QDISCS <<<"$BENCH_FLOWS_QDISCS"
mkdir -p "$DIR"

topo_modules sch_afq sch_calq
modprobe -a sch_fq_codel sch_fq sch_sfq sch_tbf || topo_die "cannot load the in-tree qdiscs"
pktgen_setup "$DEV" "$PACKETS"

# measure K PLACE LABEL QDISC...: one run, appends "LABEL PLACE K pps round"
measure()
{
	local k=$1 place=$2 label=$3 pps sent

	shift 3
	tc qdisc del dev "$DEV" root 2>/dev/null
	if [ "$place" = queued ]; then
		# shellcheck disable=SC2086	# the spec is a word list
		tc qdisc add dev "$DEV" root handle 1: $FAST &&
			tc qdisc add dev "$DEV" parent 1:1 "$@"
	else
		tc qdisc add dev "$DEV" root "$@"
	fi || topo_die "cannot set up $*"
	pps=$(pktgen_run "$DEV" "$k")
	sent=$(tc -s -j qdisc show dev "$DEV" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["packets"])')
	# a run whose packets did not all leave measured something else
	[ "${pps:-0}" -gt 0 ] && [ "$sent" -ge "$PACKETS" ] ||
		topo_die "$label $place K=$k: ${pps:-no} pps, $sent of $PACKETS sent"
	echo "$label $place $k $pps $r" >>"$DIR/samples"
}

: >"$DIR/samples"
for r in $(seq 1 "$ROUNDS"); do
	echo "per-packet cost round $r of $ROUNDS" >&2
	for k in $COUNTS; do
		for place in queued root; do
			for ((i = 0; i < ${#QDISCS[@]}; i++)); do
				q=${QDISCS[(i + r) % ${#QDISCS[@]}]}
				# shellcheck disable=SC2086	# the spec is a word list
				measure "$k" "$place" "${q%%=*}" ${q#*=}
			done
		done
	done
done
pktgen_done "$DEV"

python3 - "$DIR/samples" "$PACKETS" "$ROUNDS" <<'PY'
import statistics, sys
runs, by_round = {}, {}
for line in open(sys.argv[1]):
    q, place, k, pps, rnd = line.split()
    runs.setdefault((q, place, int(k)), []).append(int(pps))
    by_round[(q, place, int(k), rnd)] = int(pps)
med = {key: statistics.median(v) for key, v in runs.items()}
def ratio(q, place, k, base):
    """median over the rounds of q's rate / base's in the same round"""
    rs = [p / by_round[(base, pl, kk, r)] for (qq, pl, kk, r), p in by_round.items()
          if (qq, pl, kk) == (q, place, k) and by_round.get((base, pl, kk, r))]
    return statistics.median(rs) if rs else 0.0
ks = sorted({k for _, _, k in med})
qs = []
for q, _, _ in runs:
    if q not in qs:
        qs.append(q)
qs.sort(key=lambda q: (q != "pfifo", q != "fq_codel", q))
print()
print("== per-packet cost of the qdisc against the number of flows: pktgen sends")
print("   %s UDP frames (64-byte payloads) a run through the qdisc to a dummy" % sys.argv[2])
print("   device, source port round robin over K; kpps, and the ratio to pfifo")
print("   and to fq_codel at the same K in the same round, median of %s rounds" % sys.argv[3])
for place, what in (("queued", "every packet queued (under a tbf that never limits)"),
                    ("root", "at the root (an empty qdisc may pass a packet straight on)")):
    if not any(pl == place for _, pl, _ in med):
        continue
    print(what + ":")
    print("%-10s" % "qdisc" + "".join("%24s" % ("%d flow%s kpps /pfifo /fq_c" %
                                      (k, "s" if k > 1 else "")) for k in ks))
    for q in qs:
        cells = []
        for k in ks:
            if (q, place, k) not in med:
                cells.append("%24s" % "-")
                continue
            cells.append("%24s" % ("%.0f %5.2fx %5.2fx" % (med[(q, place, k)] / 1000,
                                   ratio(q, place, k, "pfifo"), ratio(q, place, k, "fq_codel"))))
        print("%-10s" % q + "".join(cells))
def spread(q, place, k, base):
    """the quartiles of the per-round ratios: the measurement's own spread"""
    rs = sorted(p / by_round[(base, pl, kk, r)] for (qq, pl, kk, r), p in by_round.items()
                if (qq, pl, kk) == (q, place, k) and by_round.get((base, pl, kk, r)))
    if len(rs) < 2:
        return rs[0], rs[0]
    qs = statistics.quantiles(rs, n=4)
    return qs[0], qs[2]
print("(at the root pfifo, fq_codel, sfq, afq and calq with horizon clamp pass a")
print(" packet that finds them empty straight on, so their ratios there show the")
print(" spread of the measurement itself)")
lo, hi = ks[0], ks[-1]
for q in ("afq", "calq"):
    for k in ks:
        if (q, "queued", k) not in med or ("fq_codel", "queued", k) not in med:
            continue
        r = ratio(q, "queued", k, "fq_codel")
        a, b = spread(q, "queued", k, "fq_codel")
        verdict = "met" if r >= 1.0 else "within the spread" if b >= 1.0 else "NOT met"
        print("%s queued, %d flow%s: %.2fx fq_codel, rounds' quartiles %.2f-%.2f "
              "(goal: at least 1.0x): %s" % (q, k, "s" if k > 1 else "", r, a, b, verdict))
    if (q, "queued", lo) in med and (q, "queued", hi) in med and lo != hi:
        a, b = ratio(q, "queued", lo, "pfifo"), ratio(q, "queued", hi, "pfifo")
        print("%s per-packet cost, %d flows against %d: %.2fx pfifo against %.2fx "
              "(goal: does not grow with flows, at least 0.9 of it): %s"
              % (q, hi, lo, b, a, "met" if b >= 0.9 * a else "NOT met"))
PY
echo "Raw results: $DIR/samples"
