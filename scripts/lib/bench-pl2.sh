#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PL2 part of `make bench`, inside the VM: PL2 (shoal.ko's IPPROTO_PL2
# sockets, tools/pl2-switch in counter mode on every switch port) against
# TCP cubic on one topology, in one run, as the paper's memcached
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
# (perf_fifo: sch_trim with nothing eligible, which keeps its peak).
#
# For each transport, two phases of BENCH_PL2_SECONDS:
#   idle    the RPC client alone: BENCH_PL2_RPC_RATE small requests
#           (BENCH_PL2_RPC_SIZE bytes, answered by 8) a second, Poisson
#   incast  the same RPCs while BENCH_PL2_INCAST senders each keep
#           BENCH_PL2_INCAST_OUTSTANDING messages of BENCH_PL2_INCAST_SIZE
#           bytes in flight to the same receiver (arrivals far above
#           what completes: each sender offers its whole uplink, together
#           BENCH_PL2_INCAST times the receiver's link)
# Measured: the RPCs' completion time p50/p99 (request sent until its
# answer is back), the incast's goodput as a fraction of the link, the
# port's peak queue and drops, and from the hosts' counters PL2's control
# bytes (RSVs and GRTs) against its data bytes.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

LINK=${BENCH_PL2_MBIT:-20}			# Mbit/s, every link
INCAST=${BENCH_PL2_INCAST:-4}			# background senders
DUR=${BENCH_PL2_SECONDS:-8}			# a phase
QLIMIT=${BENCH_PL2_QLIMIT:-100}			# the port's buffer, full packets
RPC_SIZE=${BENCH_PL2_RPC_SIZE:-64}		# bytes a request
RPC_RATE=${BENCH_PL2_RPC_RATE:-200}		# requests a second
INC_SIZE=${BENCH_PL2_INCAST_SIZE:-65536}	# bytes an incast message
INC_OUT=${BENCH_PL2_INCAST_OUTSTANDING:-4}	# in flight per incast sender
RESEND_MS=${BENCH_PL2_RESEND_MS:-50}		# as the SIRD part's
PORT=4800
DIR=${VM_OUT:-/tmp}/bench-pl2
PERF_DIR=$DIR
# a slot: a full frame at the link rate, as the endpoint counts it
SLOT_NS=$((1514 * 8 * 1000 / LINK))

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
perf_on_hosts sysctl -qw net.shoal.pl2_rate_mbps="$LINK" net.shoal.resend_ms="$RESEND_MS" \
	net.ipv4.tcp_congestion_control=cubic || topo_die "the hosts' sysctls"
perf_shape_edges "$LINK"
perf_server pl2 pl2 "$PORT"
perf_server tcp tcp "$PORT"

# phase PROTO PHASE: one run; PROTO is pl2 or cubic, PHASE idle or incast
phase()
{
	local proto=$1 ph=$2 p=$1 name="$1-$2" i n=0 pids=()

	[ "$p" = cubic ] && p=tcp
	perf_fifo "$LINK" "$QLIMIT"
	if [ "$proto" = pl2 ]; then
		perf_pl2_attach --mode counter --slot-ns "$SLOT_NS"
		perf_shoal_stats "$DIR/$name.stats0"
	fi
	[ "$ph" = incast ] && n=$INCAST
	# every client at once: each first times a few RPCs alone (its idle
	# round trip), which the network still is then
	for ((i = 2; i <= n + 1; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$p" \
			--server "$SRV:$PORT" --json --seed "$i"\
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
	wait "${pids[@]}"
	topo_qdisc_save "$DIR/$name.qdisc"
	if [ "$proto" = pl2 ]; then
		# the exchanges still running end within a resend interval
		topo_nap 0.5
		perf_shoal_stats "$DIR/$name.stats1"
		perf_pl2_show "$DIR/$name.switch"
		perf_pl2_detach
	fi
	echo "$proto $ph" >>"$DIR/runs"
}

: >"$DIR/runs"
for proto in pl2 cubic; do
	for ph in idle incast; do
		echo "pl2: $proto, $ph" >&2
		phase "$proto" "$ph"
	done
done
topo_link_qdisc_del
perf_servers_stop

python3 - "$DIR" "$LINK" "$INCAST" "$QLIMIT" "$DUR" "$RPC_SIZE" "$RPC_RATE" "$INC_SIZE" \
	"$INC_OUT" <<'PY'
import json, sys
d = sys.argv[1]
link, incast, qlimit, dur, rsz, rrate, isz, iout = (float(sys.argv[2]), int(sys.argv[3]),
    int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), sys.argv[7], int(sys.argv[8]),
    int(sys.argv[9]))
# bytes on the wire below a Shoal header: UDP, IPv4, Ethernet
HDR, UNDER = 32, 8 + 20 + 14

def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return None

def stats(p):
    s = {}
    try:
        for l in open(p):
            ns, k, v = l.split()
            s[k] = s.get(k, 0) + int(v)
    except OSError:
        pass
    return s

print("PL2 (shoal.ko, pl2-switch counter mode, K 4) against TCP cubic: 1 RPC client and %d"
      " incast senders -> switch -> 1 server" % incast)
print("every link %g Mbit/s both ways (tbf); the port to the server one drop-tail FIFO of %d full"
      " packets (%d KB) for both" % (link, qlimit, qlimit * 1514 / 1000))
print("RPCs: %d-byte requests answered by 8 bytes, %s a second (Poisson), %s s a phase;"
      " incast: each sender %d messages" % (rsz, rrate, dur, iout))
print("of %d KB in flight, offering its whole uplink (%d senders: %d%% of the server's link)"
      % (isz / 1000, incast, incast * 100))
print()
print("%-6s %-7s %6s %8s %8s %8s %9s %6s %6s %6s %5s" % ("proto", "phase", "RPCs", "p50 us",
      "p99 us", "max us", "incast", "of link", "peak", "KB", "drops"))
print("(RPCs: completed (failed or unanswered); p50..max: their completion times;")
print(" incast: its goodput, Mbit/s, and that as a fraction of the link; peak, KB, drops:")
print(" the port's longest queue in packets and in KB, and its drops)")
res = {}
for line in open(d + "/runs"):
    proto, ph = line.split()
    name = "%s-%s" % (proto, ph)
    r = res[(proto, ph)] = {}
    rpc = load("%s/%s-rpc.json" % (d, name))
    if rpc:
        b = [x for x in rpc["buckets"] if x["name"] == "all"][0]
        m = rpc["messages"]
        r["n"], r["lost"] = m["completed"], m["failed"] + m["unanswered"]
        if b["count"]:
            r.update(p50=b["latency_us"]["p50"], p99=b["latency_us"]["p99"],
                     max=b["latency_us"]["max"])
    incs = [load("%s/%s-inc%d.json" % (d, name, i)) for i in range(2, incast + 2)]
    if ph == "incast":
        got = [c for c in incs if c]
        r["inc_ok"] = len(got)
        r["gp"] = sum(c["goodput_mbps"] for c in got)
        r["inc_lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in got)
        r["inc_msgs"] = sum(c["messages"]["completed"] for c in got)
    q = [x for x in (load("%s/%s.qdisc" % (d, name)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    r["peak"], r["kb"] = q.get("data_qlen_max", -1), q.get("data_backlog_max", -1) / 1e3
    r["drops"] = q.get("drops", -1)
    if proto == "pl2":
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        r["st"] = {k: s1[k] - s0.get(k, 0) for k in s1}
        r["sw"] = load("%s/%s.switch" % (d, name)) or {"ports": []}

def f(v, fmt="%.0f"):
    return "-" if v is None else fmt % v

for (proto, ph), r in res.items():
    gp = r.get("gp")
    print("%-6s %-7s %6s %8s %8s %8s %9s %6s %6d %6.0f %5d" % (proto, ph,
          "%d" % r.get("n", 0) + ("(%d)" % r["lost"] if r.get("lost") else ""),
          f(r.get("p50")), f(r.get("p99")), f(r.get("max")), f(gp, "%.2f"),
          f(gp / link if gp is not None else None, "%.2f"), r["peak"], r["kb"], r["drops"]))
print()
for (proto, ph), r in res.items():
    if ph == "incast" and (r.get("inc_ok", 0) < incast or r.get("inc_lost")):
        print("%s incast: %d of %d senders gave a result, %d messages failed or unanswered"
              % (proto, r.get("inc_ok", 0), incast, r.get("inc_lost", 0)))

over = {}
for ph in ("idle", "incast"):
    r = res.get(("pl2", ph))
    if not r:
        continue
    s = r["st"]
    ctrl = (s.get("tx_rsv", 0) + s.get("rx_grt", 0)) * (HDR + UNDER)
    data = s.get("tx_bytes", 0) - HDR * (s.get("tx_packets", 0) - s.get("tx_data", 0)) + \
        UNDER * s.get("tx_data", 0)
    over[ph] = ctrl / data if data else None
    g = s.get("pl2_grts", 0)
    print("PL2 %s, all hosts: %d bursts of %.2f packets on average, %d unsolicited (%d sent"
          " again), %d RSVs, %d GRTs (%d stale)," % (ph, s.get("pl2_bursts", 0),
          s.get("pl2_burst_pkts", 0) / max(s.get("pl2_bursts", 0), 1), s.get("pl2_unsol", 0),
          s.get("pl2_unsol_resent", 0), s.get("tx_rsv", 0), s.get("rx_grt", 0),
          s.get("pl2_grt_stale", 0)))
    print("  %d RSVs timed out, %d answered by a host (no switch); RSV-GRT delay %.0f us and"
          " wait for the slot %.0f us on average;" % (s.get("pl2_rsv_timeout", 0),
          s.get("pl2_rsv_answered", 0), s.get("pl2_rsv_grt_ns", 0) / max(g, 1) / 1e3,
          s.get("pl2_wait_ns", 0) / max(g, 1) / 1e3))
    print("  DATA resent %d, RESENDs after a quiet interval %d; control bytes (RSV+GRT) / data"
          " bytes on the wire: %s" % (s.get("tx_retx_packets", 0), s.get("rx_resend_quiet", 0),
          f(100 * over[ph] if over[ph] is not None else None, "%.1f%%")))
    sw = r["sw"]["ports"]
    left = [(p["dev"], p["in_res"], p["out_res"]) for p in sw if p["in_res"] or p["out_res"]]
    print("  switch: %d RSVs answered, %d DATA counted, %d unsolicited dropped, %d clamps;"
          " reservations left after the phase: %s" % (sum(p["rsv"] for p in sw),
          sum(p["data"] for p in sw), sum(p["unsol_drop"] for p in sw),
          sum(p["clamp"] for p in sw),
          ", ".join("%s in %d out %d" % x for x in left) if left else "none"))
print()

pi, ci = res.get(("pl2", "incast"), {}), res.get(("cubic", "incast"), {})
pd, cd = res.get(("pl2", "idle"), {}), res.get(("cubic", "idle"), {})

def ratio(a, b):
    return a / b if a is not None and b else None

p99 = ratio(ci.get("p99"), pi.get("p99"))
print("ratios:")
print("  RPC p99 under the incast, cubic / PL2: %s (the paper: 127 / 56 us = 2.27x)"
      % f(p99, "%.2fx"))
print("  RPC p99 idle, PL2 / cubic: %s; PL2 under the incast / PL2 idle: %s"
      % (f(ratio(pd.get("p99"), cd.get("p99")), "%.2fx"),
         f(ratio(pi.get("p99"), pd.get("p99")), "%.2fx")))
gpr = ratio(pi.get("gp"), ci.get("gp"))
print("  incast goodput, PL2 / cubic: %s (of the link: PL2 %s, cubic %s)" % (f(gpr, "%.2fx"),
      f(ratio(pi.get("gp"), link), "%.2f"), f(ratio(ci.get("gp"), link), "%.2f")))
print("  PL2's control bytes / data bytes: idle %s, incast %s (the paper: at least 2%%)"
      % (f(100 * over["idle"] if over.get("idle") is not None else None, "%.1f%%"),
         f(100 * over["incast"] if over.get("incast") is not None else None, "%.1f%%")))
print()

def goal(what, ok):
    print("goal: %s: %s" % (what, "met" if ok else "NOT met"))
goal("RPC p99 under a %d-way incast at least 2.27x below cubic's (the paper's 56 vs 127 us)"
     % incast, p99 is not None and p99 >= 2.27)
goal("no loss with PL2 (the port dropped nothing, every message answered)",
     all(res.get(("pl2", ph), {}).get("drops", -1) == 0 and not res[("pl2", ph)].get("lost")
         and not res[("pl2", ph)].get("inc_lost") for ph in ("idle", "incast")))
goal("the incast's goodput at least 0.9x cubic's", gpr is not None and gpr >= 0.9)
PY
