#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# shoal-coexist: shoal.ko beside another module on its protocol number
# (tools/testing/modules/ipproto_hold.ko holds one as Homa holds 253:
# the number's slot in the IP protocol table and SOCK_DGRAM sockets of
# it).  Checked:
#   1. with 253 held, shoal.ko refuses to load and says which number and
#      which parameter to set; a tool asking for a SIRD socket then gets
#      the other module's, and says that it is not a Shoal socket (exit 1,
#      not a crash);
#   2. with proto_sird=252 proto_pl2=251 it loads beside the holder, its
#      parameters say the numbers, and the tools find them: a SIRD and a
#      PL2 message and shoal-perf's RPCs go through;
#   3. a module loaded after it cannot take 252, 253 is free again once
#      its holder is gone, and IP packets of 252 (Shoal never sends one)
#      are counted rx_drop_ip_proto;
#   4. both unload, and shoal.ko loads again with its defaults.
# shellcheck source-path=SCRIPTDIR
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

HOLD=$TREE/tools/testing/modules/ipproto_hold.ko
SHOAL_KO=$TREE/net/transport/shoal.ko
PERF=$TREE/tools/shoal-perf/shoal-perf
SEND=$TREE/tools/examples/shoal-send
[ -e "$HOLD" ] || topo_die "missing $HOLD (make test-modules)"

modprobe udp_tunnel 2>/dev/null
modprobe ip6_udp_tunnel 2>/dev/null
rmmod shoal 2>/dev/null
rmmod ipproto_hold 2>/dev/null
topo_init shcx
trap 'topo_teardown; rmmod shoal 2>/dev/null; rmmod ipproto_hold 2>/dev/null' EXIT
NS=$TOPO_PREFIX-h
ip netns add "$NS" && ip -n "$NS" link set lo up || topo_die "namespace"

# 1. 253 held: shoal.ko refuses, the tools say what they got
insmod "$HOLD" proto=253 || topo_die "insmod ipproto_hold proto=253"
seen=$(dmesg | wc -l)	# the guest's log stays whole for vm/guest-log
insmod "$SHOAL_KO" 2>"$TOPO_TMP/insmod"
rc=$?
why=$(dmesg | tail -n +$((seen + 1)) | grep -o 'shoal: IP protocol 253 .*' | head -n 1)
tap_ok "$rc != 0 && $([ -n "$why" ] && echo 1 || echo 0) &&
	$(grep -c '^shoal ' /proc/modules) == 0" \
	"253 held: shoal.ko refuses to load ($(tr -d '\n' <"$TOPO_TMP/insmod"); '$why')"
ip netns exec "$NS" "$PERF" server --proto sird --port 4800 >/dev/null 2>"$TOPO_TMP/perf.err"
rc=$?
tap_ok "$rc == 1 && $(grep -c 'not a Shoal socket' "$TOPO_TMP/perf.err") == 1" \
	"shoal-perf on another module's 253: exit $rc, '$(tr -d '\n' <"$TOPO_TMP/perf.err")'"
ip netns exec "$NS" "$SEND" 127.0.0.1 4800 hello >/dev/null 2>"$TOPO_TMP/send.err"
rc=$?
tap_ok "$rc == 1 && $(grep -c 'not a Shoal socket' "$TOPO_TMP/send.err") == 1" \
	"shoal-send on another module's 253: exit $rc, '$(tr -d '\n' <"$TOPO_TMP/send.err")'"

# 2. other numbers: beside the holder, and the tools follow
insmod "$SHOAL_KO" proto_sird=252 proto_pl2=251 ||
	topo_die "insmod shoal.ko proto_sird=252 proto_pl2=251"
sird=$(cat /sys/module/shoal/parameters/proto_sird)
pl2=$(cat /sys/module/shoal/parameters/proto_pl2)
tap_ok "$sird == 252 && $pl2 == 251" "loaded beside the holder: proto_sird $sird, proto_pl2 $pl2"
for p in sird pl2; do
	ip netns exec "$NS" env SHOAL_PROTO=$p "$SHOAL_MSGS" recv 7300 1 20 \
		"$TOPO_TMP/$p.ready" >"$TOPO_TMP/$p.rx" &
	rx=$!
	for _ in $(seq 100); do
		[ -e "$TOPO_TMP/$p.ready" ] && break
		topo_nap 0.05
	done
	ip netns exec "$NS" env SHOAL_PROTO=$p "$SHOAL_MSGS" send 127.0.0.1 7300 1 5000 \
		>"$TOPO_TMP/$p.tx"
	wait "$rx"
	read -r good acked < <(python3 -c '
import json, sys
print(json.load(open(sys.argv[1]))["good"], json.load(open(sys.argv[2]))["tx_acked"])' \
		"$TOPO_TMP/$p.rx" "$TOPO_TMP/$p.tx")
	tap_ok "${good:-0} == 1 && ${acked:-0} == 1" \
		"$p on its number: a message intact ($good) and acknowledged ($acked)"
done
ip netns exec "$NS" "$PERF" server --proto sird --port 4800 \
	--ready "$TOPO_TMP/perf.ready" 2>/dev/null &
server=$!
for _ in $(seq 100); do
	[ -e "$TOPO_TMP/perf.ready" ] && break
	topo_nap 0.05
done
ip netns exec "$NS" "$PERF" client --server 127.0.0.1:4800 --proto sird --workload fixed:2000 \
	--load 0.1 --link-mbps 10 --duration 1 --drain 5 --json >"$TOPO_TMP/perf.json" \
	2>"$TOPO_TMP/perf.log"
rc=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
done_n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["messages"]["completed"])' \
	"$TOPO_TMP/perf.json" 2>/dev/null)
tap_ok "$rc == 0 && ${done_n:-0} >= 1" "shoal-perf on proto_sird: $done_n RPCs completed (exit $rc)"

# 3. the numbers stay Shoal's; 253 is free once its holder goes
rmmod ipproto_hold || topo_die "rmmod ipproto_hold (253)"
seen=$(dmesg | wc -l)
insmod "$HOLD" proto=252 2>/dev/null
rc=$?
why=$(dmesg | tail -n +$((seen + 1)) | grep -o 'ipproto_hold: IP protocol 252 .*' | head -n 1)
[ "$rc" = 0 ] && rmmod ipproto_hold
tap_ok "$rc != 0 && $([ -n "$why" ] && echo 1 || echo 0)" \
	"a module loaded after shoal.ko cannot take 252 (insmod exit $rc, '$why')"
insmod "$HOLD" proto=253 && rmmod ipproto_hold
tap_ok "$? == 0" "253 is free once its first holder unloaded"
before=$(ip netns exec "$NS" cat /proc/net/shoal/stats)
ip netns exec "$NS" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 252)
for _ in range(3):
    s.sendto(b"not Shoal", ("127.0.0.1", 0))' || topo_die "raw send"
topo_nap 0.2
got=$(shoal_stats_delta "$before" "$(ip netns exec "$NS" cat /proc/net/shoal/stats)")
tap_ok "$([ "$got" = rx_drop_ip_proto+3 ] && echo 1 || echo 0)" \
	"IP packets of protocol 252: counted as 'rx_drop_ip_proto+3' (got '$got')"

# 4. both gone, the defaults back
ip netns del "$NS"
topo_nap 0.5
rmmod shoal
tap_ok "$? == 0" "shoal.ko unloads"
insmod "$SHOAL_KO" &&
	sird=$(cat /sys/module/shoal/parameters/proto_sird) &&
	rmmod shoal
tap_ok "$? == 0 && $sird == 253" "shoal.ko loads again with its defaults (proto_sird $sird)"
tap_done
