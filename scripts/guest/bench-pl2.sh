#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PL2 part of `make bench`, inside the VM: PL2 (shoal.ko's IPPROTO_PL2
# sockets, tools/pl2-switch on every switch port, in each mode of
# BENCH_PL2_MODES: the paper's counters, and the self-healing clocks)
# against TCP cubic on one topology, in one run, as the paper's memcached
# experiment (section 6.2.1, spec section 4.3 E2) scaled to an emulated
# link:
#
#   sender 1 (RPC client) ----\
#   senders 2..N+1 (incast) ---- switch netns --(r0)--> receiver (servers)
#
# Every link runs at BENCH_PL2_MBIT both ways (a tbf on each switch port
# and on each host's uplink, so a sender cannot offer more than its link);
# the switch port towards the receiver is the bottleneck, one drop-tail
# FIFO of BENCH_PL2_QLIMIT full packets' bytes for both transports
# (perf_fifo: sch_trim with nothing eligible, which keeps its peak), with
# a band served first for DSCP CS6, where Shoal's control packets (PL2's
# RSVs and GRTs among them) go: the paper's switch gives them an 802.1Q
# priority so that they never wait behind data.  TCP marks nothing.
#
# For each transport (PL2 in each switch mode, cubic), two phases of
# BENCH_PL2_SECONDS:
#   idle    the RPC client alone: BENCH_PL2_RPC_RATE small requests
#           (BENCH_PL2_RPC_SIZE bytes, answered by 8) a second, Poisson
#   incast  the same RPCs while BENCH_PL2_INCAST senders each keep
#           BENCH_PL2_INCAST_OUTSTANDING messages of BENCH_PL2_INCAST_SIZE
#           bytes in flight to the same receiver (arrivals far above
#           what completes: each sender offers its whole uplink, together
#           BENCH_PL2_INCAST times the receiver's link)
# Measured: the RPCs' completion time p50/p99 (request sent until its
# answer is back), the incast's goodput as a fraction of the link, what
# the port really sent meanwhile, its peak queue and drops, and from the
# hosts' counters PL2's control bytes (RSVs and GRTs) against its data
# bytes, with the switch's counters.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

LINK=${BENCH_PL2_MBIT:-20}			# Mbit/s, every link
INCAST=${BENCH_PL2_INCAST:-4}			# background senders
DUR=${BENCH_PL2_SECONDS:-12}			# a phase
QLIMIT=${BENCH_PL2_QLIMIT:-100}			# the port's buffer, full packets
RPC_SIZE=${BENCH_PL2_RPC_SIZE:-64}		# bytes a request
# requests a second: 3% of the link's slots (1514-byte frames), as the
# paper's memcached client (about 90000 GETs a second at 100 Gbit/s); a
# PL2 burst of one small request takes a whole slot
RPC_RATE=${BENCH_PL2_RPC_RATE:-50}
INC_SIZE=${BENCH_PL2_INCAST_SIZE:-65536}	# bytes an incast message
INC_OUT=${BENCH_PL2_INCAST_OUTSTANDING:-4}	# in flight per incast sender
RESEND_MS=${BENCH_PL2_RESEND_MS:-50}		# as the SIRD part's
MODES=${BENCH_PL2_MODES:-counter clock}		# pl2-switch --mode, one run each
# the rate PL2 is told (pl2_rate_mbps, and the switch's slot): the link's;
# below it, headroom for an emulated link that delivers less than its rate
RATE=${BENCH_PL2_RATE:-$LINK}
# more pl2-switch options and sysctls of every host (ablations, e.g.
# "net.shoal.pl2_t=0": no unsolicited bursts)
SWITCH=${BENCH_PL2_SWITCH:-}
SYSCTLS=${BENCH_PL2_SYSCTLS:-}
PORT=4800
DIR=${VM_OUT:-/tmp}/bench-pl2
PERF_DIR=$DIR
# a slot: a full frame at that rate, as the endpoint counts it
SLOT_NS=$((1514 * 8 * 1000 / RATE))

[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
rm -rf "$DIR"
mkdir -p "$DIR"
shoal_module
topo_modules sch_trim
topo_init bpl2
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build $((INCAST + 1)) >/dev/null
SRV=$(topo_rx_addr 4)
PERF_HOSTS=("$TOPO_RX")
for ((i = 1; i <= INCAST + 1; i++)); do
	PERF_HOSTS+=("$(topo_sender_ns "$i")")
done

# PL2 as the paper runs it (K 4) at the emulated link's rate; resends
# after RESEND_MS (the guest's round trip swings by milliseconds)
perf_on_hosts sysctl -qw net.shoal.pl2_rate_mbps="$RATE" net.shoal.resend_ms="$RESEND_MS" \
	net.ipv4.tcp_congestion_control=cubic || topo_die "the hosts' sysctls"
if [ -n "$SYSCTLS" ]; then
	# shellcheck disable=SC2086	# a word list
	perf_on_hosts sysctl -qw $SYSCTLS || topo_die "sysctl $SYSCTLS"
fi
perf_shape_edges "$LINK"
perf_server pl2 pl2 "$PORT"
perf_server tcp tcp "$PORT"

# phase NAME PHASE: one run; NAME is pl2-<switch mode> or cubic, PHASE
# idle or incast
phase()
{
	local t=$1 ph=$2 p=pl2 name="$1-$2" i n=0 pids=()

	[ "$t" = cubic ] && p=tcp
	perf_fifo "$LINK" "$QLIMIT" off 48
	if [ "$p" = pl2 ]; then
		# shellcheck disable=SC2086	# a word list
		perf_pl2_attach --mode "${t#pl2-}" --slot-ns "$SLOT_NS" $SWITCH
		perf_shoal_stats "$DIR/$name.stats0"
	fi
	[ "$ph" = incast ] && n=$INCAST
	# every client at once: each first times a few RPCs alone (its idle
	# round trip), which the network still is then
	for ((i = 2; i <= n + 1; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$p" \
			--server "$SRV:$PORT" --json --seed "$i" \
			--workload "fixed:$INC_SIZE" --load 2 --link-mbps "$LINK" \
			--duration "$DUR" --drain 20 --max-outstanding "$INC_OUT" \
			--connections "$INC_OUT" \
			>"$DIR/$name-inc$i.json" 2>"$DIR/$name-inc$i.txt" &
		pids+=($!)
	done
	ip netns exec "$(topo_sender_ns 1)" "$PERF" client --proto "$p" \
		--server "$SRV:$PORT" --json --seed 1 \
		--workload "fixed:$RPC_SIZE" --link-mbps "$LINK" \
		--load "$(awk -v r="$RPC_RATE" -v s="$RPC_SIZE" -v l="$LINK" \
			'BEGIN { print r * s * 8 / (l * 1e6) }')" \
		--duration "$DUR" --drain 20 --connections 8 \
		>"$DIR/$name-rpc.json" 2>"$DIR/$name-rpc.txt" &
	pids+=($!)
	if [ "$ph" = incast ]; then
		# the link's real rate over the middle half of the arrivals
		topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 4 }')"
		perf_port_sample "$DIR/$name.rate"
		topo_nap "$(awk -v d="$DUR" 'BEGIN { print d / 2 }')"
		perf_port_sample "$DIR/$name.rate"
	fi
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$name.qdisc"
	if [ "$p" = pl2 ]; then
		# the exchanges still running end within a resend interval
		topo_nap 0.5
		perf_shoal_stats "$DIR/$name.stats1"
		perf_pl2_show "$DIR/$name.switch"
		perf_pl2_detach
	fi
	echo "$t $ph" >>"$DIR/runs"
}

: >"$DIR/runs"
# shellcheck disable=SC2086	# a word list
for t in $(printf 'pl2-%s ' $MODES) cubic; do
	for ph in idle incast; do
		echo "pl2: $t, $ph" >&2
		phase "$t" "$ph"
	done
done
topo_link_qdisc_del
perf_servers_stop

PYTHONPATH=$TREE/scripts/lib python3 - "$DIR" "$LINK" "$INCAST" "$QLIMIT" "$DUR" "$RPC_SIZE" "$RPC_RATE" "$INC_SIZE" \
	"$INC_OUT" "$SWITCH" "$SYSCTLS" "$RATE" <<'PY'
import json, sys
d = sys.argv[1]
link, incast, qlimit, dur, rsz, rrate, isz, iout = (float(sys.argv[2]), int(sys.argv[3]),
    int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), sys.argv[7], int(sys.argv[8]),
    int(sys.argv[9]))
switch, sysctls, rate = sys.argv[10], sys.argv[11], float(sys.argv[12])
# bytes on the wire below a Shoal header: UDP, IPv4, Ethernet
HDR, UNDER = 32, 8 + 20 + 14

from perf_report import load, stats

print("PL2 (shoal.ko, K 4; pl2-switch on every switch port%s) against TCP cubic: 1 RPC client"
      " and %d incast" % (" " + switch if switch else "", incast))
print("senders -> switch -> 1 server; every link %g Mbit/s both ways (tbf), the port to the"
      " server one drop-tail" % link)
print("FIFO of %d full packets (%d KB) for all, DSCP CS6 (Shoal's control packets: RSV, GRT, ACK,"
      " ...) in a band" % (qlimit, qlimit * 1514 / 1000))
print("served first%s" % ("; every host: " + sysctls if sysctls else ""))
if rate != link:
    print("PL2 told a rate of %g Mbit/s (pl2_rate_mbps, the switch's slot), not the link's"
          % rate)
print("RPCs: %d-byte requests answered by 8 bytes, %s a second (Poisson), %s s a phase; incast:"
      " each sender" % (rsz, rrate, dur))
print("%d messages of %d KB in flight, offering its whole uplink (together %d%% of the server's"
      " link)" % (iout, isz / 1000, incast * 100))
print()
print("%-11s %-6s %6s %7s %7s %7s %7s %6s %5s %5s %5s %5s" % ("transport", "phase", "RPCs",
      "p50 ms", "p99 ms", "max ms", "incast", "of link", "wire", "peak", "KB", "drops"))
print("(RPCs: completed (failed or unanswered); p50..max: their completion times; incast: its")
print(" goodput, Mbit/s (all incast bytes answered over the longest sender's time), and that as")
print(" a fraction of the link; wire: what the port sent over the middle half of the arrivals,")
print(" a fraction of its rate; peak, KB, drops: its longest data queue in packets and KB, and")
print(" its drops)")
res, order = {}, []
for line in open(d + "/runs"):
    t, ph = line.split()
    name = "%s-%s" % (t, ph)
    order.append((t, ph))
    r = res[(t, ph)] = {}
    rpc = load("%s/%s-rpc.json" % (d, name))
    if rpc:
        b = [x for x in rpc["buckets"] if x["name"] == "all"][0]
        m = rpc["messages"]
        r["n"], r["lost"] = m["completed"], m["failed"] + m["unanswered"]
        if b["count"]:
            r.update(p50=b["latency_us"]["p50"] / 1e3, p99=b["latency_us"]["p99"] / 1e3,
                     max=b["latency_us"]["max"] / 1e3)
    if ph == "incast":
        got = [c for c in (load("%s/%s-inc%d.json" % (d, name, i))
                           for i in range(2, incast + 2)) if c]
        r["inc_ok"] = len(got)
        el = max([c["elapsed_s"] for c in got] or [0])
        r["gp"] = sum(c["messages"]["completed_bytes"] for c in got) * 8 / el / 1e6 if el else None
        r["inc_lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in got)
        try:
            (t0, b0), (t1, b1) = [map(int, l.split()) for l in open("%s/%s.rate" % (d, name))]
            r["wire"] = (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6
        except (OSError, ValueError):
            pass
    q = [x for x in (load("%s/%s.qdisc" % (d, name)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    r["peak"], r["kb"] = q.get("data_qlen_max", -1), q.get("data_backlog_max", -1) / 1e3
    r["drops"] = q.get("drops", -1)
    if t != "cubic":
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        r["st"] = {k: s1[k] - s0.get(k, 0) for k in s1}
        r["sw"] = load("%s/%s.switch" % (d, name)) or {"ports": []}

def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v

def ratio(a, b):
    return a / b if a is not None and b else None

for t, ph in order:
    r = res[(t, ph)]
    gp = r.get("gp")
    print("%-11s %-6s %6s %7s %7s %7s %7s %6s %5s %5d %5.0f %5d" % (t, ph,
          "%d" % r.get("n", 0) + ("(%d)" % r["lost"] if r.get("lost") else ""),
          f(r.get("p50")), f(r.get("p99")), f(r.get("max")), f(gp, "%.2f"),
          f(ratio(gp, link), "%.2f"), f(ratio(r.get("wire"), link), "%.2f"), r["peak"],
          r["kb"], r["drops"]))
for (t, ph), r in res.items():
    if ph == "incast" and (r.get("inc_ok", 0) < incast or r.get("inc_lost")):
        print("%s incast: %d of %d senders gave a result, %d messages failed or unanswered"
              % (t, r.get("inc_ok", 0), incast, r.get("inc_lost", 0)))
print()
over = {}
for (t, ph) in order:
    r = res[(t, ph)]
    if "st" not in r:
        continue
    s = r["st"]
    ctrl = (s.get("tx_rsv", 0) + s.get("rx_grt", 0)) * (HDR + UNDER)
    data = s.get("tx_bytes", 0) - HDR * (s.get("tx_packets", 0) - s.get("tx_data", 0)) + \
        UNDER * s.get("tx_data", 0)
    over[(t, ph)] = ctrl / data if data else None
    g = s.get("pl2_grts", 0)
    print("%s %s, all hosts: %d bursts of %.2f packets on average, %d unsolicited (%d sent"
          " again)," % (t, ph, s.get("pl2_bursts", 0),
          s.get("pl2_burst_pkts", 0) / max(s.get("pl2_bursts", 0), 1), s.get("pl2_unsol", 0),
          s.get("pl2_unsol_resent", 0)))
    print("  %d RSVs, %d GRTs (%d stale), %d RSVs timed out, %d answered by a host (no switch);"
          % (s.get("tx_rsv", 0), s.get("rx_grt", 0), s.get("pl2_grt_stale", 0),
             s.get("pl2_rsv_timeout", 0), s.get("pl2_rsv_answered", 0)))
    print("  RSV-GRT delay %.0f us, wait for the slot %.0f us on average; DATA resent %d, RESENDs"
          " after a quiet interval %d;" % (s.get("pl2_rsv_grt_ns", 0) / max(g, 1) / 1e3,
          s.get("pl2_wait_ns", 0) / max(g, 1) / 1e3, s.get("tx_retx_packets", 0),
          s.get("rx_resend_quiet", 0)))
    sw = r["sw"]["ports"]
    left = [(p["dev"], p["in_res"], p["out_res"]) for p in sw if p["in_res"] or p["out_res"]]
    print("  control bytes (RSV+GRT) / data bytes on the wire %s; switch: %d RSVs answered,"
          " %d DATA counted," % (f(100 * over[(t, ph)] if over[(t, ph)] is not None else None,
          "%.1f%%"), sum(p["rsv"] for p in sw), sum(p["data"] for p in sw)))
    print("  %d unsolicited dropped, %d clamps, %d expired; counters left after the phase: %s"
          % (sum(p["unsol_drop"] for p in sw), sum(p["clamp"] for p in sw),
             sum(p["expired"] for p in sw),
             ", ".join("%s in %d out %d" % x for x in left) if left else "none"))
print()

ci, cd = res.get(("cubic", "incast"), {}), res.get(("cubic", "idle"), {})
for t in [t for t, ph in order if ph == "incast" and t != "cubic"]:
    pi, pd = res.get((t, "incast"), {}), res.get((t, "idle"), {})
    p99 = ratio(ci.get("p99"), pi.get("p99"))
    gpr = ratio(pi.get("gp"), ci.get("gp"))
    print("%s against cubic:" % t)
    print("  RPC p99 under the incast, cubic / PL2: %s (the paper: 127 / 56 us = 2.27x)"
          % f(p99, "%.2fx"))
    print("  RPC p99 idle, PL2 / cubic: %s; PL2's under the incast / idle: %s"
          % (f(ratio(pd.get("p99"), cd.get("p99")), "%.2fx"),
             f(ratio(pi.get("p99"), pd.get("p99")), "%.2fx")))
    print("  incast goodput, PL2 / cubic: %s (of the link: PL2 %s, cubic %s)" % (f(gpr, "%.2fx"),
          f(ratio(pi.get("gp"), link), "%.2f"), f(ratio(ci.get("gp"), link), "%.2f")))
    print("  control bytes / data bytes: idle %s, incast %s (the paper: at least 2%%)"
          % tuple(f(100 * over[(t, ph)] if over.get((t, ph)) is not None else None, "%.1f%%")
                  for ph in ("idle", "incast")))
    def goal(what, ok):
        print("  goal: %s: %s" % (what, "met" if ok else "NOT met"))
    goal("RPC p99 under the %d-way incast at least 2.27x below cubic's (56 vs 127 us)" % incast,
         p99 is not None and p99 >= 2.27)
    goal("no loss (the port dropped nothing, every message answered)",
         all(res.get((t, ph), {}).get("drops", -1) == 0 and not res[(t, ph)].get("lost")
             and not res[(t, ph)].get("inc_lost") for ph in ("idle", "incast")))
    goal("the incast's goodput at least 0.9x cubic's", gpr is not None and gpr >= 0.9)
PY
