#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sqr part of `make bench`, inside the VM.
#
# Packets per second: pktgen sends BENCH_SQR_PACKETS UDP frames through
# the root qdisc of a dummy device (see pktgen.sh): pfifo, sqr keeping no
# copies, and sqr copying every packet for 1 ms and for 10 ms into its
# ring buffer, for 1 ms as clones (copy_max 0), and for 1 ms without the
# carrier poll's timer (detect notifier): what that timer costs.  Each rate
# as a ratio to pfifo's in the same round, median of BENCH_SQR_ROUNDS
# interleaved rounds.  Goal: sqr copying everything at 0.8x pfifo or more.
#
# Memory: at pktgen's full rate, the copies held at peak and the memory
# they keep (the ring buffer they fill: frame and 48-byte record each)
# against hold, with the rate x hold the model expects; then at a rate
# 10x lower (pktgen's delay), the same.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# counters arrive by eval
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../lib/pktgen.sh
source "$TREE/scripts/lib/pktgen.sh"

ROUNDS=${BENCH_SQR_ROUNDS:-9}
PACKETS=${BENCH_SQR_PACKETS:-100000}
DIR=${VM_OUT:-/tmp}/bench-sqr
DEV=sqrdum0
CONFIGS=("pfifo=pfifo limit 10000" "sqr-0=sqr hold 0"
	"sqr-1ms=sqr hold 1ms" "sqr-10ms=sqr hold 10ms ring_pkts 100000 ring_bytes 64mb"
	"sqr-1ms-clones=sqr hold 1ms copy_max 0"
	"sqr-1ms-nopoll=sqr hold 1ms detect notifier")
mkdir -p "$DIR"

topo_modules sch_sqr
pktgen_setup "$DEV" "$PACKETS"

# counters of the root qdisc as NAME=VALUE lines
counters()
{
	tc -s -j qdisc show dev "$DEV" | python3 -c '
import json, sys
for k, v in json.load(sys.stdin)[0].items():
    if isinstance(v, int) and not isinstance(v, bool):
        print("%s=%d" % (k, v))'
}

: >"$DIR/samples"
for r in $(seq 1 "$ROUNDS"); do
	echo "sqr round $r of $ROUNDS" >&2
	for ((i = 0; i < ${#CONFIGS[@]}; i++)); do
		c=${CONFIGS[(i + r) % ${#CONFIGS[@]}]}
		# a run that a signal cut short (pktgen stops then, and gives
		# no rate) is run again on a fresh qdisc, twice at most
		for try in 1 2 3; do
			tc qdisc del dev "$DEV" root 2>/dev/null
			# shellcheck disable=SC2086	# the spec is a word list
			tc qdisc add dev "$DEV" root handle 1: ${c#*=} ||
				topo_die "cannot set up ${c#*=}"
			pps=$(pktgen_run "$DEV" 1)
			eval "$(counters)"
			[ "${pps:-0}" -gt 0 ] && [ "$packets" -ge "$PACKETS" ] && break
			echo "${c%%=*}: ${pps:-no} pps, $packets of $PACKETS sent (try $try)" >&2
		done
		[ "${pps:-0}" -gt 0 ] && [ "$packets" -ge "$PACKETS" ] ||
			topo_die "${c%%=*}: ${pps:-no} pps, $packets of $PACKETS sent"
		echo "${c%%=*} $pps $r" >>"$DIR/samples"
	done
done

# memory held against hold, at pktgen's full rate and at a tenth of it
: >"$DIR/memory"
full=$(python3 -c '
import statistics, sys
print(int(statistics.median(int(l.split()[1]) for l in open(sys.argv[1])
                            if l.startswith("sqr-1ms "))))' "$DIR/samples")
for delay in 0 $((10 * 1000000000 / full)); do
	pktgen_cmd "$DEV" "delay $delay"
	for hold in 100us 1ms 10ms 50ms; do
		tc qdisc del dev "$DEV" root 2>/dev/null
		tc qdisc add dev "$DEV" root handle 1: sqr hold "$hold" poll 50us \
			ring_pkts 1000000 ring_bytes 64mb || topo_die "sqr hold $hold"
		pps=$(pktgen_run "$DEV" 1)
		eval "$(counters)"
		echo "$hold $pps $ring_peak_pkts $ring_peak_bytes $ring_peak_mem $cached" >>"$DIR/memory"
	done
done
pktgen_cmd "$DEV" "delay 0"
pktgen_done "$DEV"

python3 - "$DIR/samples" "$DIR/memory" "$PACKETS" "$ROUNDS" <<'PY'
import statistics, sys
by_round, runs = {}, {}
for line in open(sys.argv[1]):
    name, pps, rnd = line.split()
    by_round[(name, rnd)] = int(pps)
    runs.setdefault(name, []).append(int(pps))
def ratio(name):
    rs = sorted(p / by_round[("pfifo", r)] for (n, r), p in by_round.items()
                if n == name and by_round.get(("pfifo", r)))
    if not rs:
        return 0, 0, 0
    q = statistics.quantiles(rs, n=4) if len(rs) > 1 else [rs[0]] * 3
    return statistics.median(rs), q[0], q[2]
print()
print("== sqr: packets per second through the root of a dummy device (pktgen,")
print("   %s UDP frames with 64-byte payloads a run), every packet protected;" % sys.argv[3])
print("   ratio to pfifo in the same round, median of %s rounds (quartiles)" % sys.argv[4])
notes = {"pfifo": "pfifo limit 10000 (baseline)", "sqr-0": "sqr hold 0: no copies",
         "sqr-1ms": "sqr hold 1ms: a copy of every packet",
         "sqr-10ms": "sqr hold 10ms: a copy of every packet",
         "sqr-1ms-clones": "sqr hold 1ms copy_max 0: a clone of every packet",
         "sqr-1ms-nopoll": "sqr hold 1ms detect notifier: copies, no 100us poll timer"}
for name in ("pfifo", "sqr-0", "sqr-1ms", "sqr-10ms", "sqr-1ms-clones", "sqr-1ms-nopoll"):
    if name not in runs:
        continue
    m, a, b = ratio(name)
    kpps = statistics.median(runs[name]) / 1000
    print("%-14s %8.0f kpps %5.2fx (%.2f-%.2f)  %s" % (name, kpps, m, a, b, notes[name]))
m, a, b = ratio("sqr-1ms")
print("sqr copying every packet for 1 ms (ring buffer): %.2fx pfifo (goal: at least 0.8x): %s"
      % (m, "met" if m >= 0.8 else "within the spread" if b >= 0.8 else "NOT met"))
print()
print("== sqr: memory held against hold (peak of the ring; mem is the ring buffer")
print("   the copies fill: each frame and its 48-byte record)")
print("%-7s %9s %11s %11s %11s %12s %10s" % ("hold", "rate pps", "peak pkts", "rate x hold",
                                            "peak bytes", "peak mem", "mem/pkt"))
scale = {"us": 1e-6, "ms": 1e-3}
for line in open(sys.argv[2]):
    hold, pps, pkts, byts, mem, cached = line.split()
    h = float(hold[:-2]) * scale[hold[-2:]]
    print("%-7s %9d %11s %11.0f %11s %12s %10.0f" % (hold, int(pps), pkts, int(pps) * h, byts,
                                                    mem, int(mem) / max(1, int(pkts))))
PY
echo "Raw results: $DIR/samples $DIR/memory"
