#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pl2-host: PL2 for unmodified applications (sch_pl2).  Six senders send
# plain UDP (shoal-blast to a port that is not Shoal's) and TCP (shoal-perf
# RPCs) into one receiver through the switch namespace, whose ports all run
# pl2-switch with --any-transport (counter mode, the output's queue
# counted).  The switch's port to the receiver is a tbf at RATE over a
# drop-tail FIFO of QLIMIT packets; each sender's eth0 is either `pl2`
# (rate RATE, slot SLOT_NS, K 4) or the device's default queue.
#   1. UDP at 6 x the port's rate, IPv4 with pl2 the root of every
#      sender's eth0, then IPv6 with pl2 the child of a tbf at RATE there
#      (its RSVs go through the tbf): every datagram arrives and the port
#      drops none; every RSV
#      was answered (no burst went for want of its GRT, beyond a few in a
#      hundred for the guest's timers); bursts of at most K; the switch's
#      counters back to 0, the TCP/UDP packets counted as DATA (foreign).
#   2. The same UDP without pl2: the port drops what is beyond its rate (checked,
#      so that the checks of 1 can fail).
#   3. TCP RPCs: a client on the receiver asks each sender's server for
#      64 KB answers (at each of RESP_LOADS x the port in all, the
#      issue's 400% and 800%): with pl2 every RPC is answered and the port
#      drops nothing; without it (reported) the same arrivals at the first
#      load.  Their latencies are the bench's (pl2-host part).
#   4. Mixed: senders 1-3 send 64 KB messages over Shoal PL2 sockets
#      (which reserve themselves; pl2 passes them), senders 4-6 64 KB TCP
#      requests through pl2, each group offering 1.5x the port: nothing
#      dropped at the port, every message and request answered, and
#      neither group starves (each carries at least a quarter of what
#      the port carried: a fair share is half).
#   5. Exchanges, with the receiver answering the RSVs with chosen slots
#      (no switch): a second exchange starts while the first burst waits,
#      bursts go in the order their exchanges started; a forwarded
#      packet's RSV comes from the host's own address.
#   6. Wrong uses: k 0, a bad domain: refused with a message, the old
#      configuration kept; pl2 under prio is accepted.
#   7. The module unloads once its qdiscs are gone.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"

N=6
RATE=${PL2_HOST_RATE:-20}	# Mbit/s, the receiver's port
FRAME=1514
# a slot: a full frame at 95% of RATE, as pl2-incast: the guest's tbf
# delivers a little below its nominal rate
SLOT_NS=$(((FRAME * 8 * 1000 * 100 + RATE * 95 - 1) / (RATE * 95)))
K=4
PORT_BURST=$((RATE * 1000000 / 8 / 100))	# 10 ms of the link
QLIMIT=100			# the port's FIFO, packets
UDP_PORT=9000			# not Shoal's: plain UDP to pl2
SIZE=1000			# UDP payload
PPS=$((RATE * 1000000 / 8 / (SIZE + 74)))	# each sender at the port's rate
COUNT=${PL2_HOST_COUNT:-1000}	# per sender
RESP=65536
REQ=100
RESP_LOADS=${PL2_HOST_RESP_LOADS:-4 8}	# TCP answers, of the port, in all
RPC_DUR=2
PERF_PORT=4800
PL2SW=$TREE/tools/pl2-switch/pl2-switch
PERF=$TREE/tools/shoal-perf/shoal-perf
DIR=${OUT:-${VM_OUT:-/tmp}}/pl2-host.d

if [ ! -x "$PERF" ] || [ ! -x "$PL2SW" ]; then
	topo_die "build the tools first: make tools"
fi
topo_modules sch_pl2
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"
shoal_module
topo_init pl2host
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
	topo_die "cannot mount the BPF filesystem"
topo_build $N >/dev/null
mkdir -p "$DIR"
rm -rf "${DIR:?}"/*

sw()
{
	ip netns exec "$TOPO_SW" "$PL2SW" "$@"
}

SW_PORTS=(r0)
for ((i = 1; i <= N; i++)); do
	SW_PORTS+=("s$i")
done
sw attach --any-transport --kmax $K --slot-ns $SLOT_NS "${SW_PORTS[@]}" ||
	topo_die "pl2-switch attach"

# senders_pl2 on|tbf|off: every sender's eth0: pl2 as the root, pl2
# under a tbf at RATE, or the default queue
senders_pl2()
{
	local i ns parent=root

	for ((i = 1; i <= N; i++)); do
		ns=$(topo_sender_ns "$i")
		tc -n "$ns" qdisc del dev eth0 root 2>/dev/null
		[ "$1" = off ] && continue
		if [ "$1" = tbf ]; then
			tc -n "$ns" qdisc add dev eth0 root handle 1: tbf \
				rate "${RATE}mbit" burst 3000 limit 10000000 ||
				topo_die "tbf on $ns"
			parent="parent 1:1"
		fi
		# shellcheck disable=SC2086	# parent is two words or one
		tc -n "$ns" qdisc add dev eth0 $parent handle 10: pl2 \
			rate "${RATE}mbit" slot ${SLOT_NS}ns k $K ||
			topo_die "pl2 on $ns"
	done
}

# pl2_sum FIELD: a pl2 xstats field summed over the senders
pl2_sum()
{
	local i s=0 v

	for ((i = 1; i <= N; i++)); do
		v=$(tc -n "$(topo_sender_ns "$i")" -s -j qdisc show dev eth0 |
			python3 -c 'import json, sys
q = [x for x in json.load(sys.stdin) if x.get("kind") == "pl2"]
print(q[0].get(sys.argv[1], -1) if q else -1)' "$1")
		[ "$v" -lt 0 ] && { echo -1; return; }
		s=$((s + v))
	done
	echo $s
}

# reserved / foreign: the switch's counters, summed over its ports
reserved()
{
	sw show -j | grep -oE '"(in|out)_res": -?[0-9]+' |
		awk '{ s += $2 } END { print s + 0 }'
}

foreign()
{
	sw show -j | grep -oE '"foreign": [0-9]+' | awk '{ s += $2 } END { print s + 0 }'
}

port_queue()
{
	topo_link_qdisc "${RATE}mbit" $PORT_BURST 10000000 pfifo limit $QLIMIT ||
		topo_die "r0 queue"
}

# udp NAME FAMILY: one blast of every sender into the port
udp()
{
	port_queue
	topo_run "$DIR/$1" $N "$2" --port $UDP_PORT --expect "$((N * COUNT))" \
		--idle 3000 --timeout 120 -- --port $UDP_PORT --count "$COUNT" \
		--size $SIZE --rate $PPS
	echo "# $1: sent $sent (errors $send_errors), arrived $s_distinct" \
		"(duplicates $s_duplicates), port drops $child_drops"
}

# ---- 1. UDP with pl2 ----
for fam in ${PL2_HOST_FAMS:-4 6}; do
	where=on
	[ "$fam" = 6 ] && where=${PL2_HOST_V6_WHERE:-tbf}
	senders_pl2 $where
	f0=$(foreign)
	udp "udp$fam" $fam
	rsv=$(pl2_sum rsv) grt=$(pl2_sum grt) tmo=$(pl2_sum timeouts)
	bursts=$(pl2_sum bursts) bpkts=$(pl2_sum burst_pkts)
	lim=$(pl2_sum drop_limit) stale=$(pl2_sum grt_stale)
	topo_nap 0.5
	res=$(reserved) fgn=$(($(foreign) - f0))
	echo "# udp$fam pl2: RSVs $rsv, GRTs $grt (stale $stale), timeouts $tmo," \
		"bursts $bursts of $bpkts packets, limit drops $lim;" \
		"switch: reserved now $res, foreign $fgn"
	tap_ok "sent == N * COUNT && send_errors == 0 && s_distinct == sent && s_duplicates == 0" \
		"UDP/IPv$fam at ${N}x the port with pl2: all $sent datagrams arrive once ($s_distinct)"
	tap_ok "child_drops == 0" \
		"UDP/IPv$fam with pl2: the port drops nothing ($child_drops)"
	tap_ok "rsv > 0 && grt + tmo == rsv && tmo * 20 <= rsv && lim == 0" \
		"UDP/IPv$fam: every burst reserved ($rsv RSVs), answered ($grt GRTs," \
		"$tmo sent without one)"
	tap_ok "bursts > 0 && bpkts == N * COUNT && bpkts <= K * bursts" \
		"UDP/IPv$fam: bursts of at most $K ($bpkts packets in $bursts)"
	tap_ok "res == 0 && fgn >= N * COUNT" \
		"UDP/IPv$fam: the switch's counters back to 0 ($res), its DATA counted" \
		"the UDP packets ($fgn)"
	if [ "$where" = tbf ]; then
		# the tbf was told of every RSV: its counts come back to 0
		held=$(for ((i = 1; i <= N; i++)); do
			tc -n "$(topo_sender_ns "$i")" -s -j qdisc show dev eth0
		done | python3 -c 'import json, sys
n = 0
for line in sys.stdin:
    for q in json.loads(line):
        if q.get("kind") == "tbf":
            n += abs(q.get("qlen", 1)) + abs(q.get("backlog", 1))
print(n)')
		tap_ok "held == 0" "UDP/IPv$fam: the senders' tbf parents hold 0 packets" \
			"and bytes once all is sent ($held), the RSVs counted"
	fi
done

# ---- 2. UDP without pl2 ----
senders_pl2 off
udp udp4-none 4
# the slowest sender reached rate_pct% of its rate, so together they
# offered at least N x that of the port's one: what is beyond it and the
# port's queue is dropped (half of that at least, for a guest's timing).
# A slow guest's senders reach a third (2900 drops of 6000, not 5000).
excess=$((sent - sent * 100 / (N * (rate_pct > 0 ? rate_pct : 1)) - QLIMIT))
tap_ok "excess > 0 && child_drops * 2 >= excess && s_distinct + child_drops == sent" \
	"UDP without pl2: the port drops what the senders send beyond its rate" \
	"($child_drops of $sent; at least $excess were beyond it, the senders at" \
	"${rate_pct}% of their rates; arrived $s_distinct)"
topo_nap 0.5
res=$(reserved)
tap_ok "res == 0" "without pl2 nothing was reserved ($res)"

# ---- 3. TCP RPCs ----
servers_start()
{
	local i ns

	SRV_PIDS=()
	for ((i = 1; i <= N; i++)); do
		ns=$(topo_sender_ns "$i")
		rm -f "$DIR/srv$i.ready"
		ip netns exec "$ns" "$PERF" server --proto tcp --port $PERF_PORT \
			--resp-size $RESP --ready "$DIR/srv$i.ready" 2>"$DIR/srv$i.log" &
		SRV_PIDS+=($!)
	done
	TOPO_PIDS+=("${SRV_PIDS[@]}")
	for ((i = 1; i <= N; i++)); do
		for ((t = 0; t < 600; t++)); do
			[ -e "$DIR/srv$i.ready" ] && break
			topo_nap 0.05
		done
	done
}

# rpcs NAME LOAD: a client per server, all at once, LOAD x the port in
# answers; sets rpc_rc, issued, answered, p99 (us, over every client's
# completion times), drops
rpcs()
{
	local i pids=() load files=()

	load=$(awk -v l="$2" -v n=$N -v q=$REQ -v r=$RESP \
		'BEGIN { printf "%.6f", l / n * q / r }')
	port_queue
	for ((i = 1; i <= N; i++)); do
		ip netns exec "$TOPO_RX" "$PERF" client --proto tcp \
			--server "10.100.$i.1:$PERF_PORT" --workload fixed:$REQ \
			--load "$load" --link-mbps "$RATE" --duration $RPC_DUR \
			--drain 30 --seed "$i" --connections 2 --json \
			>"$DIR/$1.rpc$i" 2>"$DIR/$1.rpc$i.log" &
		pids+=($!)
		files+=("$DIR/$1.rpc$i")
	done
	rpc_rc=0
	for i in "${pids[@]}"; do
		wait "$i" || rpc_rc=1
	done
	tc -n "$TOPO_SW" -s -j qdisc show dev r0 >"$DIR/$1.qdisc"
	drops=$(python3 -c 'import json, sys
print(sum(q.get("drops", 0) for q in json.load(open(sys.argv[1])) if q.get("handle") == "10:"))' \
		"$DIR/$1.qdisc")
	eval "$(python3 -c 'import json, sys
iss = done = 0
times = []
els = [0]
for f in sys.argv[1:]:
    try:
        j = json.load(open(f))
    except (OSError, ValueError):
        iss += 1
        continue
    iss += j["messages"]["issued"]
    done += j["messages"]["completed"]
    times += j.get("completion_us", [])
    els.append(j.get("elapsed_s", 0))
times.sort()
p99 = int(times[max(0, -(-len(times) * 99 // 100) - 1)]) if times else -1
p50 = int(times[max(0, -(-len(times) * 50 // 100) - 1)]) if times else -1
print("issued=%d answered=%d p99=%d p50=%d elapsed_ms=%d" % (iss, done, p99, p50, max(els) * 1000))' \
		"${files[@]}")"
	echo "# $1: $answered of $issued RPCs answered (rc $rpc_rc), p50 $p50 us," \
		"p99 $p99 us over all clients, the last answer after $elapsed_ms ms;" \
		"port drops $drops"
}

servers_start
senders_pl2 on
for l in $RESP_LOADS; do
	rpcs "tcp-pl2-$l" "$l"
	tap_ok "rpc_rc == 0 && issued > 0 && answered == issued" \
		"TCP RPCs at ${l}x with pl2: all $issued answered ($answered)"
	tap_ok "drops == 0" "TCP RPCs at ${l}x with pl2: the port drops nothing ($drops)"
	pl2_p99=$p99
done
senders_pl2 off
rpcs tcp-none "${RESP_LOADS%% *}"
echo "# TCP RPCs at ${RESP_LOADS%% *}x without pl2: p99 $p99 us" \
	"(port drops $drops; with pl2 at the last load: $pl2_p99 us)"

# ---- 4. PL2 sockets and TCP through pl2, both reserving ----
MIX_SIZE=65536
MIX_LOAD=${PL2_HOST_MIX_LOAD:-0.5}	# each sender, of the port: 3 x 0.5 a group
for ns in "$TOPO_RX" $(for ((i = 1; i <= N; i++)); do topo_sender_ns "$i"; done); do
	ip netns exec "$ns" sysctl -qw net.shoal.pl2_rate_mbps="$RATE" \
		net.shoal.pl2_slot_ns=$SLOT_NS net.shoal.pl2_k=$K net.shoal.resend_ms=50 ||
		topo_die "PL2 sysctls in $ns"
done
senders_pl2 on
port_queue
rm -f "$DIR"/mix-srv*.ready
for p in pl2 tcp; do
	ip netns exec "$TOPO_RX" "$PERF" server --proto $p --port $((PERF_PORT + 1)) \
		--ready "$DIR/mix-srv-$p.ready" 2>"$DIR/mix-srv-$p.log" &
	TOPO_PIDS+=($!)
done
for p in pl2 tcp; do
	for ((t = 0; t < 600; t++)); do
		[ -e "$DIR/mix-srv-$p.ready" ] && break
		topo_nap 0.05
	done
done
pids=()
mix_files=()
for ((i = 1; i <= N; i++)); do
	p=pl2
	((i > N / 2)) && p=tcp
	mix_files+=("$DIR/mix.$p$i")
	ip netns exec "$(topo_sender_ns "$i")" "$PERF" client --proto $p \
		--server "10.200.0.1:$((PERF_PORT + 1))" --workload fixed:$MIX_SIZE \
		--load "$MIX_LOAD" --link-mbps "$RATE" --duration $RPC_DUR --drain 30 \
		--seed "$i" --connections 2 --json >"$DIR/mix.$p$i" 2>"$DIR/mix.$p$i.log" &
	pids+=($!)
done
mix_rc=0
for i in "${pids[@]}"; do
	wait "$i" || mix_rc=1
done
tc -n "$TOPO_SW" -s -j qdisc show dev r0 >"$DIR/mix.qdisc"
eval "$(python3 -c 'import json, sys
drops = sum(q.get("drops", 0) for q in json.load(open(sys.argv[1])) if q.get("handle") == "10:")
out = {"mix_drops": drops}
for p in ("pl2", "tcp"):
    iss = done = byt = 0
    for f in sys.argv[2:]:
        if ".%s" % p not in f:
            continue
        try:
            m = json.load(open(f))["messages"]
        except (OSError, ValueError, KeyError):
            iss += 1
            continue
        iss += m["issued"]
        done += m["completed"]
        byt += m["completed_bytes"]
    out.update({p + "_issued": iss, p + "_done": done, p + "_bytes": byt})
print(" ".join("%s=%d" % kv for kv in out.items()))' "$DIR/mix.qdisc" \
	"${mix_files[@]}")"
echo "# mixed: PL2 sockets $pl2_done of $pl2_issued messages, $pl2_bytes bytes; TCP through" \
	"pl2 $tcp_done of $tcp_issued, $tcp_bytes bytes; port drops $mix_drops (rc $mix_rc)"
tap_ok "mix_rc == 0 && pl2_issued > 0 && pl2_done == pl2_issued && tcp_issued > 0 && tcp_done == tcp_issued" \
	"mixed: every PL2 message ($pl2_done) and TCP request ($tcp_done) answered"
tap_ok "mix_drops == 0" "mixed: the port drops nothing ($mix_drops)"
tap_ok "pl2_bytes * 4 >= pl2_bytes + tcp_bytes && tcp_bytes * 4 >= pl2_bytes + tcp_bytes" \
	"mixed: neither starves (PL2 $pl2_bytes, TCP $tcp_bytes bytes; each at least a quarter)"
senders_pl2 off

# ---- 5. exchanges at once, bursts in order ----
# No switch: the receiver answers each RSV itself (pl2_grant.py, on a
# port of its own: shoal.ko may hold 4797 there), the first with slot
# 300 (300 ms of 1 ms slots), the second with slot 0.
# Datagram 1 gets the first exchange; datagram 2, sent 50 ms later while
# burst 1 waits, gets the second at once (no wait for burst 1 to go),
# and its burst, granted first, still goes after burst 1's.
GRANT=$TREE/tools/testing/lib/pl2_grant.py
ns1=$(topo_sender_ns 1)

# grant_start OUT N SLOT...: pl2 on sender 1 (1 ms slots, a Shoal port of
# its own), and the receiver answering its RSVs with the SLOTs, reading N
# datagrams, into OUT; sets gpid
grant_start()
{
	local out=$1 n=$2 t

	shift 2
	tc -n "$ns1" qdisc add dev eth0 root pl2 rate "${RATE}mbit" slot 1ms \
		rsv_timeout 2s k $K shoal_port 5797 || topo_die "pl2 slot 1ms"
	rm -f "$DIR/grant.ready"
	ip netns exec "$TOPO_RX" python3 "$GRANT" serve 5797 $UDP_PORT "$n" \
		"$DIR/grant.ready" "$@" >"$out" 2>&1 &
	gpid=$!
	TOPO_PIDS+=("$gpid")
	for ((t = 0; t < 100; t++)); do
		[ -e "$DIR/grant.ready" ] && break
		topo_nap 0.05
	done
}

# grant_qdisc: "RSVS GRTS TIMEOUTS" of sender 1's pl2
grant_qdisc()
{
	tc -n "$ns1" -s -j qdisc show dev eth0 | python3 -c 'import json, sys
q = [q for q in json.load(sys.stdin) if q.get("kind") == "pl2"][0]
print(q["rsv"], q["grt"], q["timeouts"])'
}

sw detach "${SW_PORTS[@]}" || topo_die "pl2-switch detach"
grant_start "$DIR/grant.out" 2 300 0
ip netns exec "$ns1" python3 "$GRANT" send "$(topo_rx_addr 4)" $UDP_PORT 50 1 2
wait "$gpid"
sed 's/^/# grant: /' "$DIR/grant.out"
eval "$(awk '$1 == "rsv" { r[$2] = $4; n++ }
	$1 == "data" { d[++m] = $2; t[$2] = $3 }
	END { printf "g_rsv=%d g_rsv1=%d g_first=%d g_second=%d g_t1=%d g_t2=%d\n",
		n, r[1], d[1], d[2], t[1], t[2] }' "$DIR/grant.out")"
read -r g_qrsv g_qgrt g_tmo < <(grant_qdisc)
tap_ok "g_rsv == 2 && g_qrsv == 2 && g_qgrt == 2 && g_tmo == 0 && g_rsv1 < g_t1 - 100" \
	"the second exchange starts while the first burst waits (RSV 2 at $g_rsv1 ms, burst 1 at $g_t1 ms; the qdisc's RSVs $g_qrsv, GRTs $g_qgrt, timeouts $g_tmo)"
tap_ok "g_first == 1 && g_second == 2 && g_t1 >= 250" \
	"bursts in the order their exchanges started, slot 0 after slot 300 (arrived $g_first then $g_second; 1 at $g_t1 ms, 2 at $g_t2 ms)"
tc -n "$ns1" qdisc del dev eth0 root

# A packet the host forwards (its source another host's, as a
# container's behind a bridge): the RSV goes from the host's own address,
# so the GRT comes back to it rather than to the packet's source
grant_start "$DIR/grant-fwd.out" 1 5
ip netns exec "$ns1" python3 "$GRANT" sendfrom 10.99.0.5 "$(topo_rx_addr 4)" $UDP_PORT 7
wait "$gpid"
sed 's/^/# grant (forwarded): /' "$DIR/grant-fwd.out"
g_from=$(awk '$1 == "rsv" { print $5; exit }' "$DIR/grant-fwd.out")
read -r g_qrsv g_qgrt g_tmo < <(grant_qdisc)
tap_ok "$([ "$g_from" = "$(topo_sender_addr 1 4)" ] && echo 1 || echo 0) && g_qrsv == 1 && g_qgrt == 1 && g_tmo == 0" \
	"a forwarded packet's RSV from the host's address ($g_from), its GRT taken (RSVs $g_qrsv, GRTs $g_qgrt, timeouts $g_tmo)"
tc -n "$ns1" qdisc del dev eth0 root

# ---- 6. wrong uses ----
ns1=$(topo_sender_ns 1)
tc -n "$ns1" qdisc add dev eth0 root pl2 k 8 rate "${RATE}mbit" || topo_die "pl2 k 8"
msg=$(tc -n "$ns1" qdisc change dev eth0 root pl2 k 0 2>&1)
rc=$?
msg=${msg%%$'\n'*}
kept=$(tc -n "$ns1" qdisc show dev eth0 | grep -c ' k 8 ')
tap_ok "rc != 0 && $kept == 1" "k 0 refused ($msg), k 8 kept"
msg=$(tc -n "$ns1" qdisc change dev eth0 root pl2 domain 10.0.0.0/33 2>&1)
rc=$?
msg=${msg%%$'\n'*}
tap_ok "rc != 0" "a prefix length of 33 refused ($msg)"
tc -n "$ns1" qdisc del dev eth0 root
tc -n "$ns1" qdisc add dev eth0 root handle 1: prio || topo_die "prio"
tc -n "$ns1" qdisc add dev eth0 parent 1:1 handle 10: pl2
rc=$?
n=$(tc -n "$ns1" qdisc show dev eth0 | grep -c 'pl2 10: parent 1:1')
tap_ok "rc == 0 && $n == 1" "pl2 under prio accepted (shown $n times)"
tc -n "$ns1" qdisc del dev eth0 root

# ---- 7. unload ----
topo_teardown
trap - EXIT
for ((t = 0; t < 40; t++)); do
	rmmod sch_pl2 2>/dev/null && break
	sleep 0.25
done
tap_ok "$(grep -c '^sch_pl2 ' /proc/modules) == 0" "sch_pl2 unloads once its qdiscs are gone"
shoal_objects_zero "after the mixed run's sockets closed"
rmmod shoal 2>/dev/null
tap_done
