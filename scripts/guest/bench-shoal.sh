#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Shoal transport part of `make bench`, inside the VM: SIRD (shoal.ko)
# against TCP cubic and DCTCP on one topology, in one run.  BENCH_SHOAL_CLIENTS
# client namespaces -> switch namespace -> one server namespace; the switch
# port towards the server is the bottleneck (tbf), its queue one marking
# FIFO for all three transports:
#
#   trim limit 100000 limit_bytes QLIMIT*1514 ecn_thresh K ctrl_dscp none
#        elig_dscp 63
#
# i.e. sch_trim with nothing eligible for trimming (SIRD's data carries
# DSCP 0, TCP is not UDP) and no header queue (SIRD's control packets get
# no priority TCP's ACKs do not get): a drop-tail FIFO of QLIMIT full
# packets' bytes (in bytes, as a switch's buffer: a limit in packets
# filled with W1's small messages and dropped before the marking
# threshold in bytes was ever reached) that sets CE on ECT packets leaving
# while more than K bytes wait, and keeps its peak length in packets and
# in bytes (data_qlen_max, data_backlog_max) exactly, which sampling from
# user space could not under TCG.  The peak in bytes is the one judged.
# DCTCP and SIRD (whose DATA is ECT(0) and whose receiver runs an ECN loop
# per sender) see the marks; cubic is not ECN-capable (tcp_ecn stays at
# its default, 2) and sees a drop-tail FIFO.
#
#   1. Small-RPC rate per core: closed loop, 8-byte requests and responses,
#      BENCH_SHOAL_RPC_OUTSTANDING in flight per client (shoal-perf with
#      arrivals far above what completes: the line is never empty), over
#      an unlimited port; completions a second over the CPUs busy meanwhile
#      (/proc/stat, all of the guest: client, server, softirq).
#   2. Slowdown: shoal-perf open loop, every workload of
#      BENCH_SHOAL_WORKLOADS at every load of BENCH_SHOAL_LOADS, each
#      workload at its own link rate (BENCH_SHOAL_LINKS; the guest completes
#      about a thousand RPCs a second, so W1's 188-byte mean needs a slow
#      link), per workload one transport after the other over the loads
#      (the same seeds for all three).  Every transport's
#      slowdown is against the same ideal: the smaller of SIRD's and TCP's
#      idle round trips from part 1.  Per run: goodput, slowdown p50/p99
#      (all messages, and group A: below one MSS), the port's peak queue.
# shellcheck source-path=SCRIPTDIR
set -u

TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=../../tools/testing/lib/topo.sh
source "$TREE/tools/testing/lib/topo.sh"
# shellcheck source=../../tools/testing/lib/shoal.sh
source "$TREE/tools/testing/lib/shoal.sh"
# shellcheck source=../lib/perf-lib.sh
source "$TREE/scripts/lib/perf-lib.sh"

CLIENTS=${BENCH_SHOAL_CLIENTS:-2}
WORKLOADS=${BENCH_SHOAL_WORKLOADS:-W1 W2 W3 W4 W5}
LOADS=${BENCH_SHOAL_LOADS:-0.25 0.5 0.75}
LINKS=${BENCH_SHOAL_LINKS:-W1:1 W2:3 W3:20 W4:100 W5:100}	# Mbit/s
DUR=${BENCH_SHOAL_SECONDS:-5}		# of arrivals, per run
QLIMIT=${BENCH_SHOAL_QLIMIT:-100}	# the switch port's buffer, full-size packets
ECN_PKTS=${BENCH_SHOAL_ECN:-20}		# marking threshold, full-size packets
RPC_SECONDS=${BENCH_SHOAL_RPC_SECONDS:-5}
RPC_OUT=${BENCH_SHOAL_RPC_OUTSTANDING:-8}
# arrivals a second per client: a few times what completes under TCG, so
# the line never empties, but not many more (the client wakes for each)
RPC_OFFER=${BENCH_SHOAL_RPC_OFFER:-3000}
RESEND_MS=${BENCH_SHOAL_RESEND_MS:-50}	# see tools/testing/scenarios/shoal-perf.sh
SIRD_RTT_MS=${BENCH_SHOAL_SIRD_RTT_MS:-5}	# SIRD's BDP = link rate x this
PORT=4800
DIR=${VM_OUT:-/tmp}/bench-shoal
PERF_DIR=$DIR
ECN_BYTES=$((ECN_PKTS * 1514))

[ -x "$PERF" ] || topo_die "missing $PERF (make tools)"
rm -rf "$DIR"
mkdir -p "$DIR"
shoal_module
topo_modules sch_trim
modprobe tcp_dctcp || topo_die "modprobe tcp_dctcp"
# a namespace may only choose what the initial one allows
sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
	topo_die "tcp_allowed_congestion_control"
topo_init bshoal
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build "$CLIENTS" >/dev/null
SRV=$(topo_rx_addr 4)
PERF_HOSTS=("$TOPO_RX")
for ((i = 1; i <= CLIENTS; i++)); do
	PERF_HOSTS+=("$(topo_sender_ns "$i")")
done

# port RATE_MBIT: the switch port at RATE, the marking FIFO below it
port()
{
	perf_fifo "$1" "$QLIMIT" "$ECN_BYTES"
}

# The servers stay up throughout: one SIRD socket on PORT, and a TCP
# listener per congestion control, each started under it: a server accepts
# ECN only from a listener that needs it (a SYN with ECT, as DCTCP's is, is
# otherwise taken for a broken middlebox's), and an accepted connection
# takes the namespace's congestion control of the moment, which cc() sets
# on every host before each run.
perf_on_hosts sysctl -qw net.shoal.resend_ms="$RESEND_MS" || topo_die "net.shoal.resend_ms"
declare -A SPORT=([sird]=$PORT [cubic]=$PORT [dctcp]=$((PORT + 1)))
perf_server sird sird "${SPORT[sird]}"
perf_cc dctcp
perf_server dctcp tcp "${SPORT[dctcp]}"
perf_cc cubic
perf_server cubic tcp "${SPORT[cubic]}"

# clients NAME TRANSPORT ARGS...: every client at once, DIR/NAME-I.json;
# TRANSPORT is sird, cubic or dctcp (whose congestion control is set)
clients()
{
	local name=$1 t=$2 proto=tcp i pids=()

	shift 2
	if [ "$t" = sird ]; then
		proto=sird
	elif [ "$t" != "$CC" ]; then
		perf_cc "$t"
		CC=$t
	fi
	for ((i = 1; i <= CLIENTS; i++)); do
		ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto "$proto" \
			--server "$SRV:${SPORT[$t]}" --json --seed "$i" "$@" \
			>"$DIR/$name-$i.json" 2>"$DIR/$name-$i.txt" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# 1. small RPCs, closed loop: RPC_OFFER arrivals a second per client, more
# than complete, so RPC_OUT are always in flight and as many wait
port 10000
ip netns exec "$TOPO_RX" sysctl -qw net.shoal.sird_rate_mbps=0
echo "shoal: small-RPC rate, $CLIENTS clients x $RPC_OUT in flight, ${RPC_SECONDS}s" >&2
CC=cubic
for p in sird cubic; do
	head -n 1 /proc/stat >"$DIR/rpc-$p.cpu0"
	clients "rpc-$p" "$p" --workload fixed:8 --load 1 \
		--link-mbps "$(awk -v r="$RPC_OFFER" 'BEGIN { print r * 64 / 1e6 }')" \
		--duration "$RPC_SECONDS" --drain 5 --max-outstanding "$RPC_OUT" \
		--connections "$RPC_OUT"
	head -n 1 /proc/stat >"$DIR/rpc-$p.cpu1"
done
RTT=$(python3 - "$DIR" "$CLIENTS" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
rtts = []
for p in ("sird", "cubic"):
    for i in range(1, n + 1):
        try:
            rtts.append(json.load(open("%s/rpc-%s-%d.json" % (d, p, i)))["idle_rtt_us"])
        except (OSError, ValueError, KeyError):
            pass
print(int(min(rtts)) if rtts else 1000)
PY
)

# sird_link RATE_MBIT: SIRD's settings for a link of RATE, on every host.
# As the paper sets them: B = 1.5 BDP, UnschT = BDP, credit paced at the
# downlink's rate; the BDP over SIRD_RTT_MS, the round trip a grant sees
# under load in this guest (its idle one is a few hundred us, but a loaded
# one is milliseconds of CPU), and at least 2 MSS.  resend_ms at least the
# time 20 full packets take on the link (the marking threshold's worth of
# queue), at least RESEND_MS: at 1 Mbit/s a packet takes 12 ms, and a
# fixed 50 ms would take a few packets of queue for loss (TCP's RTO
# follows its round trip and is 200 ms at least).
sird_link()
{
	local bdp rs

	bdp=$(awk -v r="$1" -v t="$SIRD_RTT_MS" 'BEGIN { b = r * 1e3 * t / 8; printf "%d", b < 2800 ? 2800 : b }')
	rs=$(awk -v r="$1" -v m="$RESEND_MS" 'BEGIN { t = 20 * 1514 * 8 / (r * 1e3); printf "%d", t < m ? m : t + 1 }')
	perf_on_hosts sysctl -qw net.shoal.bdp="$bdp" net.shoal.unsch_thresh="$bdp" \
		net.shoal.sird_b=$((bdp * 3 / 2)) net.shoal.resend_ms="$rs" \
		net.shoal.sird_rate_mbps="$1" || topo_die "SIRD's sysctls for $1 Mbit/s"
	echo "$1 $bdp $((bdp * 3 / 2)) $rs" >>"$DIR/sird-settings"
}

# 2. the matrix: workload x load, the three transports in turn per cell
: >"$DIR/runs"
for w in $WORKLOADS; do
	link=$(tr ' ' '\n' <<<"$LINKS" | awk -F: -v w="$w" '$1 == w { print $2 }')
	[ -n "$link" ] || topo_die "no link rate for $w in BENCH_SHOAL_LINKS"
	sird_link "$link"
	echo "shoal: $w at $link Mbit/s" >&2
	# transport by transport (a change of congestion control costs a
	# few namespace execs), each over the loads
	for p in sird cubic dctcp; do
		for load in $LOADS; do
			port "$link"
			name="$w-$load-$p"
			clients "$name" "$p" --workload "$w" \
				--load "$(awk -v l="$load" -v n="$CLIENTS" 'BEGIN { print l / n }')" \
				--link-mbps "$link" --duration "$DUR" --drain 30 --rtt-us "$RTT"
			topo_qdisc_save "$DIR/$name.qdisc"
			echo "$w $load $p $link $name" >>"$DIR/runs"
		done
	done
done
topo_link_qdisc_del
perf_servers_stop

PYTHONPATH=$TREE/scripts/lib python3 - "$DIR" "$CLIENTS" "$RTT" "$QLIMIT" "$ECN_PKTS" "$DUR" "$RPC_OUT" <<'PY'
import json, re, statistics, sys
d, n, rtt, qlimit, ecn, dur, rpc_out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7])

from perf_report import load

def clients(name):
    return [c for c in (load("%s/%s-%d.json" % (d, name, i)) for i in range(1, n + 1)) if c]

def cpu(path):
    f = open(path).read().split()[1:]
    v = [int(x) for x in f]
    return sum(v) - v[3] - v[4], sum(v)	# busy, all (idle and iowait out)

print("Shoal transport: SIRD (shoal.ko) against TCP cubic and DCTCP, %d client hosts -> switch"
      " -> 1 server host" % n)
print("switch port: tbf at the link rate over one FIFO for all, %d full packets' bytes (%d KB),"
      " CE on ECT above %d (SIRD, DCTCP)" % (qlimit, qlimit * 1514 / 1000, ecn))
try:
    for l in open(d + "/sird-settings"):
        mb, bdp, b, rs = l.split()
        print("SIRD at %s Mbit/s: bdp = unsch_thresh %s B, B %s B, credit paced at %s Mbit/s,"
              " resend_ms %s" % (mb, bdp, b, mb, rs))
except OSError:
    pass
print()
rate, rtts = {}, {}
for p in ("sird", "cubic"):
    cs = clients("rpc-" + p)
    done = sum(c["messages"]["completed"] for c in cs)
    el = max([c["elapsed_s"] for c in cs] or [1])
    b0, a0 = cpu("%s/rpc-%s.cpu0" % (d, p))
    b1, a1 = cpu("%s/rpc-%s.cpu1" % (d, p))
    ncpu = sum(1 for l in open("/proc/stat") if re.match(r"cpu[0-9]", l))
    cpus = (b1 - b0) / ((a1 - a0) or 1) * ncpu
    rate[p] = (done / el, cpus, done / el / cpus if cpus else 0)
    rtts[p] = [c["idle_rtt_us"] for c in cs]
    lat = [c["buckets"][0]["latency_us"]["p50"] for c in cs if c["buckets"][0]["count"]]
    print("small RPCs (8 B each way, closed loop, %d in flight per client), %s: %.0f RPC/s on"
          " %.2f CPUs busy = %.0f RPC/s per core; p50 %s us; idle RTT %s us" %
          (rpc_out, "SIRD" if p == "sird" else "TCP ", rate[p][0], cpus, rate[p][2],
           "/".join("%d" % x for x in lat), "/".join("%d" % x for x in rtts[p])))
rpc_ratio = rate["sird"][2] / rate["cubic"][2] if rate["cubic"][2] else 0
print("small-RPC rate per core, SIRD / TCP: %.2fx" % rpc_ratio)
print()
print("slowdown against one ideal for all: idle RTT %d us (the smaller of the two above) +"
      " bytes at the link rate" % rtt)
print("%s s of Poisson arrivals a run, the load split over the clients; p99: the largest of the"
      " clients' p99s" % dur)
print()
runs = [l.split() for l in open(d + "/runs")]
cells = {}
wl_peak = {}	# (workload, link) -> protocol -> the highest peak (KB) over the loads
for w, ld, p, link, name in runs:
    cs = clients(name)
    r = {"ok": len(cs) == n}
    if cs:
        r["gp"] = sum(c["goodput_mbps"] for c in cs)
        r["issued"] = sum(c["messages"]["issued"] for c in cs)
        r["lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
        for b in ("all", "A"):
            bs = [x for c in cs for x in c["buckets"] if x["name"] == b and x["count"]]
            cnt = sum(x["count"] for x in bs)
            r[b + "n"] = cnt
            r[b + "50"] = sum(x["slowdown"]["p50"] * x["count"] for x in bs) / cnt if cnt else None
            r[b + "99"] = max(x["slowdown"]["p99"] for x in bs) if bs else None
    q = load("%s/%s.qdisc" % (d, name)) or []
    kids = [x for x in q if x.get("handle") == "10:"]
    r["peak"] = kids[0].get("data_qlen_max", -1) if kids else -1
    r["kb"] = kids[0].get("data_backlog_max", -1) / 1e3 if kids else -1
    r["marks"] = kids[0].get("ecn_mark", -1) if kids else -1
    r["drops"] = kids[0].get("drops", -1) if kids else -1
    cells.setdefault((w, ld, link), {})[p] = r
    top = wl_peak.setdefault((w, link), {})
    top[p] = max(top.get(p, -1), r["kb"])

def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v

hdr = "%-3s %4s %5s  %-5s %7s %9s %7s %7s %7s %5s %6s %6s %5s" % (
    "wl", "load", "Mbit", "proto", "goodput", "msgs", "sd p50", "sd p99", "A p99", "peak", "KB",
    "marks", "drops")
print(hdr)
print("(goodput Mbit/s; msgs: issued (failed or unanswered); sd: slowdown of all messages;"
      " A: below 1 MSS;")
print(" peak, KB: the port's longest queue in packets, and in KB;")
print(" marks, drops: CE marks and drops there)")
ratios = {"peak_c": [], "peak_d": [], "gp": [], "a99_c": [], "a99_d": [], "p99_c": [], "p99_d": []}
verdict = {"queue": [], "gp": [], "a99": []}
for (w, ld, link), ps in cells.items():
    for p in ("sird", "cubic", "dctcp"):
        r = ps.get(p)
        if not r:
            continue
        msgs = "%d" % r.get("issued", 0) + ("(%d)" % r["lost"] if r.get("lost") else "")
        print("%-3s %4s %5s  %-5s %7s %9s %7s %7s %7s %5d %6.0f %6d %5d" % (
            w, ld, link, p, f(r.get("gp"), "%.2f"), msgs, f(r.get("all50")), f(r.get("all99")),
            f(r.get("A99")), r["peak"], r["kb"], r["marks"], r["drops"]))
    s, c, dc = ps.get("sird"), ps.get("cubic"), ps.get("dctcp")
    if not (s and c and dc):
        continue
    def ratio(a, b):
        return a / b if a is not None and b else None
    for key, other in (("c", c), ("d", dc)):
        ratios["peak_" + key].append(ratio(max(s["kb"], 0), other["kb"]))
        ratios["a99_" + key].append(ratio(s.get("A99"), other.get("A99")))
        ratios["p99_" + key].append(ratio(s.get("all99"), other.get("all99")))
    best = max(c.get("gp", 0), dc.get("gp", 0))
    ratios["gp"].append(ratio(s.get("gp"), best))
    verdict["queue"].append(s["kb"] >= 0 and s["kb"] <= 0.5 * min(c["kb"], dc["kb"]))
    verdict["gp"].append(bool(best) and s.get("gp", 0) >= 0.9 * best)
    if s.get("A99") is not None and c.get("A99") is not None:
        verdict["a99"].append(s["A99"] < c["A99"])
print()

def summ(v):
    v = [x for x in v if x is not None]
    if not v:
        return "-"
    return "median %.2fx (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
print("ratios over the %d cells, median (range):" % len(ratios["gp"]))
print("  peak queue (KB) SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["peak_c"]), summ(ratios["peak_d"])))
print("  p99 slowdown    SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["p99_c"]), summ(ratios["p99_d"])))
print("  A p99 slowdown  SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["a99_c"]), summ(ratios["a99_d"])))
print("  goodput         SIRD / the better TCP %s" % summ(ratios["gp"]))
print("  small-RPC rate per core  SIRD / TCP %.2fx" % rpc_ratio)
print()

# The paper's "max ToR queuing": per workload, the highest peak over the
# load levels (its Table 5), and over the workloads the mean of SIRD's
# over each protocol's (its Table 4 averages normalised values): far
# below is a mean of at most half of each TCP's, and never above either
wl_half, wl_below, wl_ratio = [], [], {"cubic": [], "dctcp": []}
line = []
for (w, link), top in wl_peak.items():
    if not all(p in top and top[p] > 0 for p in ("sird", "cubic", "dctcp")):
        continue
    for p in ("cubic", "dctcp"):
        wl_ratio[p].append(top["sird"] / top[p])
    wl_half.append(top["sird"] <= 0.5 * min(top["cubic"], top["dctcp"]))
    wl_below.append(top["sird"] <= min(top["cubic"], top["dctcp"]))
    line.append("%s %.0f/%.0f/%.0f" % (w, top["sird"], top["cubic"], top["dctcp"]))
print("peak queue per workload, the highest over its loads (KB, SIRD/cubic/DCTCP): " + ", ".join(line))
mean = {p: statistics.mean(v) if v else 0 for p, v in wl_ratio.items()}
print("  SIRD's over the workloads, mean: %.2fx cubic's, %.2fx DCTCP's; at most half of both"
      " in %d of %d workloads, %d of %d cells" % (mean["cubic"], mean["dctcp"], sum(wl_half),
      len(wl_half), sum(verdict["queue"]), len(verdict["queue"])))

def goal(what, v, unit="cells"):
    ok = sum(v)
    print("goal: %s: %s (%d of %d %s)" % (what, "met" if v and ok == len(v) else "NOT met", ok, len(v), unit))
q_ok = bool(wl_below) and all(wl_below) and mean["cubic"] <= 0.5 and mean["dctcp"] <= 0.5
print("goal: peak switch queue far below TCP's and DCTCP's (the paper's max ToR queuing: each"
      " workload's highest peak over its loads, on average at most half of each TCP's and in no"
      " workload above either): %s (%.2fx, %.2fx; below both in %d of %d workloads)" % (
      "met" if q_ok else "NOT met", mean["cubic"], mean["dctcp"], sum(wl_below), len(wl_below)))
goal("goodput within 10% of the best", verdict["gp"])
goal("p99 slowdown of small messages (A) below TCP cubic's", verdict["a99"])
PY
