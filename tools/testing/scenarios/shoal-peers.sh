#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-peers: one server socket and thousands of peer hosts, by
# tools/testing/selftests/shoal_peers.c (built by scripts/check).
#
# Two namespaces on a veth pair.  The client's has PEERS_N (2000)
# addresses 10.1.x.y, the server's as many 10.2.x.y, and the client's
# route to server address j has client address j for its source: Shoal
# sends from the route's address, so client socket j, sending to server
# address j, is a host of its own to the server, which answers from the
# address it was sent to.  Every route goes through the one neighbour on
# each side (no neighbour table of thousands).  SIRD, then PL2: the
# clients send one request each (200 B to 7 KB, 1 to 6 packets; above
# 1000 B they ask for credit) to the one server socket, PEERS_WAVE (250)
# clients at once, the next wave once the last is answered; the server
# answers each; then the sockets close.  Then SIRD and PL2 again with all
# the clients at once.
#
# Checked for each: every request arrives once, whole, from its client's
# address, and every response comes back whole with its request's id
# (the program); the server namespace made one SIRD peer per client
# (peers + peers_freed in /proc/net/shoal/sird), held at least half a
# wave's at once, and shoal.ko's count of PL2 destinations rose as far;
# the slab caches grew by at most PEERS_SLAB_KB; once every
# socket is closed the server namespace keeps at most
# SHOAL_SIRD_PEERS_KEEP (256) idle peers and nothing else, and once the
# namespaces are gone every count is 0.  Then the module unloads.
# All at once, the peers' keep-alive is what a receiver that makes
# thousands of senders wait, and a sender whose thousands of receivers
# are slow to answer, send: BUSYs and probes back off (a BUSY at a
# wait's quiet intervals 1, 2, 4, then every 8; probes after 2, 4, then
# every 8 intervals of silence), so the control packets of both sides
# (BUSY and CREDIT_REQ) stay within 8 + 3 x (the run's intervals / 8)
# per request.  Before they backed off, 2000 at once sent 164,803 BUSYs
# and 204,745 CREDIT_REQs in 60 s, the guest's backlog held 1 GB of
# packets, and 853 requests and 1423 responses timed out.  A server's
# answer to a waiting request's probe does not bring the next probe
# nearer either, so that all the packets of both sides stay within 14 a
# request (its DATA, up to 6 packets, the response's, their credit or
# reservations and ACKs) and 2 per 8 of the run's intervals (a probe and
# its answer): when each answer brought the next probe two intervals
# near, PL2 took 24-36 packets a request here (3000 at once: 55, the
# slab 260 MB up instead of 100, the server's responses each sent 6
# times), SIRD 27.  Those bounds held while the guest drained its backlog
# faster than the probes came; on a slower day they did not (answers
# took seconds, 31-98 packets a request, hundreds timed out), and the
# resend interval now follows the peers' measured answer delay: each run
# logs it.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

BIN=$TREE/build/selftests/shoal_peers
N=${PEERS_N:-2000}
WAVE=${PEERS_WAVE:-250}
PORT=7100
KEEP=256		# SHOAL_SIRD_PEERS_KEEP (net/transport/shoal_sird.h)
SLAB_KB=${PEERS_SLAB_KB:-131072}
OBJS=/sys/kernel/debug/shoal/objects

[ -x "$BIN" ] || topo_die "missing $BIN (scripts/check builds it)"
shoal_module
topo_init peers
C=$TOPO_PREFIX-c
S=$TOPO_PREFIX-s
cleanup()
{
	topo_teardown
	rmmod shoal 2>/dev/null
}
trap cleanup EXIT

# obj NAME: shoal.ko's count of NAME now
obj()
{
	awk -v k="$1" '$1 == k { print $2 }' "$OBJS"
}

# key NAME FILE: a "key NAME VALUE" line of the program's output
key()
{
	awk -v k="$1" '$1 == "key" && $2 == k { v = $3 } END { print v + 0 }' "$2"
}

start=$SECONDS
ip netns add "$C" && ip netns add "$S" || topo_die "namespaces"
# client address j and server address j, as shoal_peers.c makes them
awk -v n="$N" -v side=c 'BEGIN {
	print "link set lo up"
	print "link add v0 type veth peer name v1"
	print "addr add 10.9.0.1/24 dev v0"
	print "link set v0 up"
	for (j = 0; j < n; j++) {
		x = int(j / 250); y = j % 250 + 1
		printf "addr add 10.1.%d.%d/32 dev lo\n", x, y
		printf "route add 10.2.%d.%d/32 via 10.9.0.2 src 10.1.%d.%d\n", x, y, x, y
	}
}' >"$TOPO_TMP/c.batch"
awk -v n="$N" 'BEGIN {
	print "link set lo up"
	print "addr add 10.9.0.2/24 dev v1"
	print "link set v1 up"
	print "route add 10.1.0.0/16 via 10.9.0.1"
	for (j = 0; j < n; j++)
		printf "addr add 10.2.%d.%d/32 dev lo\n", int(j / 250), j % 250 + 1
}' >"$TOPO_TMP/s.batch"
# the client's batch makes the veth; its peer end goes to the server
head -4 "$TOPO_TMP/c.batch" >"$TOPO_TMP/c0.batch"
tail -n +5 "$TOPO_TMP/c.batch" >"$TOPO_TMP/c1.batch"
ip -n "$C" -batch "$TOPO_TMP/c0.batch" &&
	ip -n "$C" link set v1 netns "$S" &&
	ip -n "$S" -batch "$TOPO_TMP/s.batch" &&
	ip -n "$C" -batch "$TOPO_TMP/c1.batch" || topo_die "addresses and routes"
# a 50 ms resend interval, as the benches' (the guest is slow); the
# clients ask for credit for every request above 1000 bytes, so that the
# server's SIRD receiver schedules most of them at once
ip netns exec "$C" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.v0.rp_filter=0 net.shoal.resend_ms=50 \
	net.shoal.unsch_thresh=1000 &&
	ip netns exec "$S" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.v1.rp_filter=0 net.shoal.resend_ms=50 ||
	topo_die "sysctls"
topo_backlog
topo_log "$N client and $N server addresses, $N routes: $((SECONDS - start)) s"

# control NS: the BUSYs and CREDIT_REQs namespace NS has sent
control()
{
	echo $(($(shoal_stat "$1" tx_busy) + $(shoal_stat "$1" tx_credit_req)))
}

IVAL_MS=50		# the resend interval set above

# ival NS: the resend interval namespace NS counts now, which follows its
# peers' measured answer delay
ival()
{
	ip netns exec "$1" awk '$1 == "resend_ival_us" { print $2 }' \
		/proc/net/shoal/sird
}
runs=(sird:"$WAVE" pl2:"$WAVE")
[ "$WAVE" -lt "$N" ] && runs+=(sird:"$N" pl2:"$N")
for i in "${!runs[@]}"; do
	run=${runs[i]}
	proto=${run%:*}
	wave=${run#*:}
	opt=()
	[ $proto = pl2 ] && opt=(-P)
	tag=$proto
	[ "$wave" != "$WAVE" ] && tag="$proto, all at once"
	out=$TOPO_TMP/$proto-$wave.out
	start=$SECONDS
	port=$((PORT + i))
	ctl0=$(($(control "$C") + $(control "$S")))
	pk0=$(($(shoal_stat "$C" tx_packets) + $(shoal_stat "$S" tx_packets)))
	"$BIN" -C "/run/netns/$C" -S "/run/netns/$S" -n "$N" -p $port \
		-w "$wave" "${opt[@]}" -t $((60 * ${SHOAL_TIMEOUT_FACTOR:-1})) >"$out" 2>&1
	status=$?
	ctl=$(($(control "$C") + $(control "$S") - ctl0))
	pk=$(($(shoal_stat "$C" tx_packets) + $(shoal_stat "$S" tx_packets) - pk0))
	grep -v '^key ' "$out" | sed -E 's/^(not )?ok [0-9]+ - /# \1ok: /; s/^1\.\./# 1../'
	topo_log "$tag: resend interval after the run: server $(ival "$S") us, client $(ival "$C") us (configured $((IVAL_MS * 1000)))"
	elapsed=$(key elapsed_s "$out")
	tap_ok "$status == 0" \
		"$tag: $N peer hosts into one server socket: every request once, whole, from its own address, every response back ($elapsed s, $((SECONDS - start)) s with the sockets' set-up)"
	if [ "$tag" != "$proto" ]; then
		# whole intervals the run took, from the program's seconds
		ivals=$(awk -v s="$elapsed" -v i=$IVAL_MS 'BEGIN { printf "%d", s * 1000 / i + 1 }')
		most=$((N * (8 + 3 * ivals / 8)))
		tap_ok "ctl <= most" \
			"$tag: the keep-alive backs off: $ctl BUSYs and CREDIT_REQs from both sides for $N requests over $ivals intervals (<= $most: 8 + 3 x $ivals / 8 a request)"
		most=$((N * (14 + 2 * ivals / 8)))
		tap_ok "pk <= most" \
			"$tag: $pk packets from both sides, $((pk / N)).$((pk * 10 / N % 10)) a request (<= $most: 14 for the RPC, 2 per 8 intervals for a probe and its answer)"
	fi
	made=$(key server_peers_made "$out")
	kept=$(key server_peers_before "$out")
	tap_ok "made + kept >= $N" \
		"$tag: the server namespace had a SIRD peer for every client host: $made made, $kept kept idle from before, for $N (one freed while idle is made again by a late packet)"
	if [ "$tag" = "$proto" ]; then
		peak=$(key server_peers_peak "$out")
		tap_ok "peak >= $wave / 2" \
			"$proto: the server namespace held $peak SIRD peers at once (>= $((wave / 2)), half a wave of clients)"
	fi
	if [ "$tag" = pl2 ]; then
		dsts=$(key peak_pl2_dsts "$out")
		tap_ok "dsts >= $WAVE / 2" \
			"pl2: shoal.ko's pl2_dsts rose to $dsts (>= $((WAVE / 2)): a destination per client for the server's responses, and the clients' own)"
	fi
	slab=$(key slab_growth_kb "$out")
	tap_ok "slab <= $SLAB_KB" \
		"$tag: the slab caches grew by $slab kB at their peak (<= $SLAB_KB kB for $N peers)"
	# the sockets are closed: only idle peers are kept, in each namespace
	for ((try = 0; try < 40; try++)); do
		peers=$(obj sird_peers)
		busy=$(awk '$1 != "sird_peers" && $2 != 0 { printf "%s %s ", $1, $2 }' "$OBJS")
		[ -z "$busy" ] && [ "$peers" -le $((2 * KEEP)) ] && break
		topo_nap 0.25
	done
	tap_ok "$([ -z "$busy" ] && [ "$peers" -le $((2 * KEEP)) ] && echo 1 || echo 0)" \
		"$tag: every socket closed: sird_peers $peers (<= $((2 * KEEP)), $KEEP idle kept per namespace), nothing else held${busy:+: $busy}"
done

start=$SECONDS
ip netns del "$C"
ip netns del "$S"
shoal_objects_zero "once the two namespaces are gone ($N addresses each)"
topo_log "namespaces deleted in $((SECONDS - start)) s"
rmmod shoal
tap_ok "$? == 0" "shoal.ko unloads"
tap_done
