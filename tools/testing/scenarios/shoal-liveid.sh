#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-liveid: forged packets that name live messages, while RPCs run
# (issue 24, item 5).  Three clients (SIRD from s1 and s2, PL2 from s3)
# keep RPCs of 100 B to 90 KB in flight to a server through the switch
# namespace; every request and response carries a CRC-32 of its bytes.
# In the switch, on the path, an attacker (tools/testing/lib/
# shoal_liveid.py attack) sees every Shoal packet it forwards, learns the
# live messages from their DATA (addresses, Shoal ports, id, REQUEST or
# RESPONSE, length, the ranges that went by) and injects forged packets
# that name them, from the peer's address (raw IPv4): CREDIT and RESEND
# inside, at and past the end and with huge words, BUSY, UNKNOWN with
# any errno, ACK of unfinished messages (and of five requests as soon as
# DATA from their middle goes by: before the fix of shoal_in_rcv() a
# request acknowledged half-way hung for ever, client and server keeping
# each other alive), ABORT both ways,
# GRT, returned (BOUNCED) headers of bytes sent and not, CREDIT_REQ, DATA
# with another msg_len, out of range, with no payload_len, with more
# payload than it says, trimmed, overlapping bytes that arrived, with a
# folded ACK for a live response, truncated headers, bad hdr_len and
# version, and live packets with 1-3 bits flipped.
# Checks:
#   - every packet that reached each host's Shoal port is counted once:
#     for the server and each client, rx_packets == the packets the
#     switch sent it (forwarded and forged, seen by AF_PACKET) == UDP's
#     InDatagrams, and every rx_<type>, rx_drop_<reason> and rx_trimmed
#     moved by exactly what wire.h's rules (mirrored in Python) make of
#     those packets;
#   - no message is corrupted: every request the server read and every
#     response a client read has its CRC;
#   - every RPC ends: answered, or failed with an error; failures only
#     with the errors a forged packet can cause, and no more failures
#     than names a lethal forgery (ABORT, ACK, UNKNOWN, a flip that made
#     one) hit;
#   - after the run SIRD's credit state is 0 on every host (b, wanting,
#     tx_held, tx_ready), and shoal.ko's objects are 0 once the sockets
#     close; no WARN or oops (the test bed's vm/guest-log).
# What cannot be asserted: a host on the path can forge anything,
# including DATA with bytes a receiver has not had yet, which the
# receiver must take (nothing authenticates a Shoal packet); the
# attacker forges DATA bytes only where the receiver has had them for
# 0.3 s, in a message no lethal forgery hit, and never a whole message
# (a forged ABORT followed by forged bytes would legitimately make a
# corrupt message).  Which RPC fails, and how, depends on timing: only
# the bound above is asserted.
# SEED (default: random, printed) makes the forgeries repeatable;
# LIVEID_SECONDS (15) and LIVEID_RATE (400 a second) size the run.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

SEED=${SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RUN=${LIVEID_SECONDS:-15}
RATE=${LIVEID_RATE:-400}
WINDOW=2			# RPCs in flight per client
LIVEID=$HERE/../lib/shoal_liveid.py

t0=$(date +%s)
shoal_module
topo_init slid
trap 'topo_teardown; rmmod shoal 2>/dev/null' EXIT
topo_build 3 >/dev/null
RXADDR=$(topo_rx_addr 4)
HOSTS=("$TOPO_RX" "$(topo_sender_ns 1)" "$(topo_sender_ns 2)" "$(topo_sender_ns 3)")
DEVS=(r0 s1 s2 s3)
echo "# seed $SEED (SEED=$SEED to repeat), $RUN s of RPCs, $RATE forged packets a second"

for ns in "${HOSTS[@]}"; do
	ip netns exec "$ns" sysctl -qw net.shoal.resend_ms=50 || topo_die "resend_ms"
done
max_len=$(ip netns exec "$TOPO_RX" sysctl -n net.shoal.max_msg_len)

# the attacker first: it must see every packet the hosts get
ip netns exec "$TOPO_SW" "$LIVEID" attack "$RUN" "$SEED" "$RATE" "$max_len" \
	"$TOPO_TMP/ids.json" >"$TOPO_TMP/attack.json" 2>"$TOPO_TMP/attack.err" &
attacker=$!
TOPO_PIDS+=("$attacker")
for _ in $(seq 300); do
	grep -q capturing "$TOPO_TMP/attack.err" 2>/dev/null && break
	topo_nap 0.1
done
grep -q capturing "$TOPO_TMP/attack.err" || topo_die "the attacker did not start"

for i in "${!HOSTS[@]}"; do
	ip netns exec "${HOSTS[$i]}" cat /proc/net/shoal/stats >"$TOPO_TMP/before$i"
	udp_before[i]=$(ip netns exec "${HOSTS[$i]}" "$SHOAL_CRAFT" udp InDatagrams)
done
topo_softnet_drops
softnet=$TOPO_SOFTNET

ip netns exec "$TOPO_RX" "$LIVEID" serve "$TOPO_TMP/ready" sird:7000 pl2:7001 \
	>"$TOPO_TMP/server.json" &
server=$!
TOPO_PIDS+=("$server")
for _ in $(seq 300); do
	[ -e "$TOPO_TMP/ready" ] && break
	topo_nap 0.1
done
[ -e "$TOPO_TMP/ready" ] || topo_die "the server did not bind"

start=$(date +%s)
"$LIVEID" call "$RUN" "$SEED" "$RXADDR" $WINDOW "${HOSTS[1]}:sird:7000:1" \
	"${HOSTS[2]}:sird:7000:2" "${HOSTS[3]}:pl2:7001:3" >"$TOPO_TMP/clients.json" ||
	topo_die "the clients"
kill -TERM "$server"
wait "$server"
# every socket is closed: wait until no host hears anything for a second
prev=
for _ in $(seq 30); do
	now=
	for ns in "${HOSTS[@]}"; do
		now+="$(shoal_stat "$ns" rx_packets) "
	done
	[ "$now" = "$prev" ] && break
	prev=$now
	topo_nap 1
done
kill -TERM "$attacker"
wait "$attacker"
echo "# RPCs and attack took $(($(date +%s) - start)) s"
topo_softnet_drops
softnet=$((TOPO_SOFTNET - softnet))

specs=()
for i in "${!HOSTS[@]}"; do
	ip netns exec "${HOSTS[$i]}" cat /proc/net/shoal/stats >"$TOPO_TMP/after$i"
	udp=$(($(ip netns exec "${HOSTS[$i]}" "$SHOAL_CRAFT" udp InDatagrams) - udp_before[i]))
	specs+=("${DEVS[$i]}:$TOPO_TMP/before$i:$TOPO_TMP/after$i:$udp")
done
cat "$TOPO_TMP/attack.err"
echo "# attacker: $(cat "$TOPO_TMP/attack.json")"
echo "# server: $(cat "$TOPO_TMP/server.json")"
sed 's/^/# client: /' "$TOPO_TMP/clients.json"
# what named the RPCs that never ended, for a report
python3 - "$TOPO_TMP/clients.json" "$TOPO_TMP/ids.json" <<'EOF'
import json, sys
log = json.load(open(sys.argv[2]))
for line in open(sys.argv[1]):
    for i in json.loads(line).get("stuck", []):
        for what in log.get(i, ["nothing seen"]):
            print("# stuck %s: %s" % (i, what))
EOF

eval "$(python3 - "$TOPO_TMP/attack.json" "$TOPO_TMP/server.json" \
	"$TOPO_TMP/clients.json" <<'EOF'
import errno, json, sys
a = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
cs = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
print("injected=%d kinds=%d send_err=%d cap_drops=%d lethal=%d" %
      (a["injected"], len(a["kinds"]), a["send_err"], a["capture_drops"],
       a["lethal_names"]))
print("kinds_list='%s'" % " ".join("%s:%d" % kv for kv in sorted(a["kinds"].items())))
print("s_good=%d s_bad=%d s_dup=%d s_plain=%d s_replied=%d s_send_err=%d" %
      (s["good"], s["bad"], s["dup"], s["plain"], s["replied"], s["send_err"]))
print("s_errors='%s'" % " ".join("%s:%d" % kv for kv in sorted(s["errors"].items())))
ok = ("ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EMSGSIZE")
print("s_failed=%d s_other_errors=%d" %
      (sum(s["errors"].values()),
       sum(v for k, v in s["errors"].items() if k not in ok)))
tot = lambda k: sum(c[k] for c in cs)
errs = {}
for c in cs:
    for k, v in c["errors"].items():
        errs[k] = errs.get(k, 0) + v
print("clients=%d issued=%d good=%d bad=%d stray=%d unresolved=%d c_send_err=%d" %
      (len(cs), tot("issued"), tot("good"), tot("bad"), tot("stray"),
       tot("unresolved"), tot("send_err")))
print("failed=%d other_errors=%d c_errors='%s'" %
      (sum(errs.values()), sum(v for k, v in errs.items() if k not in ok),
       " ".join("%s:%d" % kv for kv in sorted(errs.items()))))
print("pl2_good=%d" % sum(c["good"] for c in cs if c["proto"] == "pl2"))
EOF
)"
eval "$("$LIVEID" account "$TOPO_TMP/attack.json" "${specs[@]}")"

echo "# forged by kind: $kinds_list"
tap_ok "injected >= 1000 && kinds == 26 && send_err == 0" \
	"$injected packets forged, every one of the 26 kinds ($kinds), none refused by the stack ($send_err)"
tap_ok "cap_drops == 0" "the attacker saw every packet ($cap_drops lost by its capture)"
for i in "${!HOSTS[@]}"; do
	dev=v${i}_dev rx=v${i}_rx counted=v${i}_counted udp=v${i}_udp sent=v${i}_sent
	legit=v${i}_legit forged=v${i}_forged wrong=v${i}_wrong drops=v${i}_drops
	who=$([ "$i" = 0 ] && echo server || echo "client $i")
	tap_ok "${!forged} > 0 && ${!rx} == ${!sent} && ${!udp} == ${!rx} && ${!counted} == ${!rx}" \
		"$who: ${!rx} packets reached its port, as many as the switch sent it (${!legit} forwarded + ${!forged} forged = ${!sent}; UDP ${!udp}, softnet drops $softnet), each counted once (${!counted})"
	tap_ok "$([ -z "${!wrong}" ] && echo 1 || echo 0)" \
		"$who: every counter by type, parser reason and trim as the parser's rules say${!wrong:+ (counter:got/want ${!wrong})}; drops ${!drops:-none}"
done
tap_ok "s_bad == 0 && bad == 0" \
	"no message corrupted: $s_good requests and $good responses intact, $s_bad and $bad not"
tap_ok "s_good > 0 && good * 2 >= issued && pl2_good > 0" \
	"RPCs ran: $good of $issued answered ($pl2_good over PL2)"
tap_ok "unresolved == 0 && good + failed == issued" \
	"every RPC ended: $good answered, $failed failed ($c_errors), $unresolved still waiting; $stray responses after their request failed"
tap_ok "other_errors == 0 && s_other_errors == 0 && failed <= lethal && s_failed <= lethal" \
	"failures only with errors a forgery causes ($other_errors, $s_other_errors others), no more than names a lethal forgery hit ($failed requests, $s_failed responses; $lethal names)"
echo "# server: $s_replied answered, $s_dup duplicates, $s_plain not requests, errors ${s_errors:-none}"

left=
for ns in "${HOSTS[@]}"; do
	left+=$(ip netns exec "$ns" awk '($1 == "b" || $1 == "wanting" || $1 == "tx_held" ||
		$1 == "tx_ready") && $2 != 0 { printf "%s=%s ", $1, $2 }' /proc/net/shoal/sird)
done
tap_ok "$([ -z "$left" ] && echo 1 || echo 0)" \
	"SIRD's credit state back to 0 on every host (b, wanting, tx_held, tx_ready)${left:+: $left}"
shoal_objects_zero "once every socket is closed" out_msgs in_msgs done_names \
	send_errors pl2_dsts pl2_bursts
# SIRD's per-host state (sird_peers) lives as long as its namespace
topo_teardown
shoal_objects_zero "once the namespaces are gone"
echo "# the scenario took $(($(date +%s) - t0)) s"
tap_done
