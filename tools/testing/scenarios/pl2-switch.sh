#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pl2-switch: the PL2 switch (tools/pl2-switch) on the ports of the switch
# namespace.  Crafted RSVs from the senders come back as GRTs carrying the
# slots of Algorithm 1 (IPv4 and IPv6, received by a UDP socket, so their
# checksums are right); DATA counts the reservations back to 0 and never
# below; unsolicited DATA is dropped past T; malformed Shoal packets and
# other traffic pass untouched and are counted; the clock modes drain with
# time and the joint mode gives both ports one slot; counter mode with a
# lease forgets a dead sender's reservations; an uplink passes on what
# leaves by it and reserves what comes in by it; with --any-transport,
# TCP, UDP to other ports and ICMP count off the reservations as scheduled
# DATA (foreign), without it they pass as other traffic; detach removes
# everything; wrong uses fail with a clear message.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2154	# values arrive by eval
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/topo.sh
source "$HERE/../lib/topo.sh"
# shellcheck source=../lib/shoal.sh
source "$HERE/../lib/shoal.sh"

PL2SW=$TREE/tools/pl2-switch/pl2-switch
CRAFT=$TREE/tools/testing/lib/shoal_craft.py
PORT=4797
RX4=10.200.0.1
RX6=fd00:200::1

topo_init pl2sw
[ -x "$PL2SW" ] || topo_die "build the tools first: make tools"
[ -f "$TREE/tools/pl2-switch/pl2_switch.bpf.o" ] || topo_die "no pl2_switch.bpf.o: make tools"
# the pins live in the BPF filesystem of this (pid 1's) mount namespace
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
	topo_die "cannot mount the BPF filesystem"
topo_build 2 >/dev/null

sw()
{
	ip netns exec "$TOPO_SW" "$PL2SW" "$@"
}

# rsv I ADDR DEMAND...: RSVs from sender I; GRT lines in $grts
rsv()
{
	local i=$1

	shift
	grts=$(ip netns exec "$(topo_sender_ns "$i")" python3 "$CRAFT" rsv "$1" "$PORT" "${@:2}")
	topo_log "RSVs ${*:2} from sender $i to $1: $(echo "$grts" | tr '\n' ';')"
}

# grt N: type flags in out from of the Nth GRT line as g_type ... g_from
grt()
{
	read -r g_type g_flags g_in g_out g_from <<<"$(echo "$grts" | sed -n "$1p")"
	[ "$g_type" = none ] && g_type=-1
	g_type=${g_type:--1} g_flags=${g_flags:--1} g_in=${g_in:--1} g_out=${g_out:--1}
	return 0
}

data()
{
	ip netns exec "$(topo_sender_ns "$1")" python3 "$CRAFT" pl2data "$2" "$PORT" "$3" "${4:-}"
}

# udp9 I ADDR N: N UDP packets to port 9 (not Shoal's) from sender I,
# carrying unsolicited DATA bytes that the switch must not read
udp9()
{
	ip netns exec "$(topo_sender_ns "$1")" python3 "$CRAFT" pl2data "$2" 9 "$3" unsol
}

# sweep_on: 1 while the lease's sweep runs, by `show -j`
sweep_on()
{
	sw show -j | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["sweep"]))'
}

# counters: <dev>_<field> for every port of `show -j` (absent: -1)
counters()
{
	eval "$(sw show -j | python3 "$HERE/../lib/pl2_switch_counters.py")"
}

# ---- errors before anything is attached ----
out=$(sw attach nosuchdev 2>&1)
rc=$?
tap_ok "rc == 2" "attach of a missing device fails with status 2 ($rc): $out"
[[ $out == *"nosuchdev: no such device"* ]]
tap_ok "$? == 0" "... and says 'no such device'"
out=$(sw show 2>&1)
rc=$?
tap_ok "rc == 2" "show with nothing attached: status 2 ($rc): $out"
out=$(ip netns exec "$TOPO_SW" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$PL2SW" attach s1 2>&1)
rc=$?
tap_ok "rc != 0" "attach without privileges fails ($rc): $out"
[[ $out == *"BPF not permitted"* ]]
tap_ok "$? == 0" "... and says 'BPF not permitted'"
out=$(sw attach --mode fast s1 2>&1)
rc=$?
tap_ok "rc == 2" "an unknown mode is refused ($rc): $out"

# ---- counter mode (Algorithm 1), T = 6 slots ----
out=$(sw attach --t 6 --expire-us 0 s1 s2 r0 2>&1)
rc=$?
tap_ok "rc == 0" "attach s1 s2 r0 ($rc) $out"
out=$(sw attach s1 2>&1)
rc=$?
tap_ok "rc == 2" "attaching s1 twice fails ($rc): $out"
[[ $out == *"s1: already attached"* ]]
tap_ok "$? == 0" "... and says 'already attached'"
out=$(sw attach --mode clock s1 2>&1)
rc=$?
tap_ok "rc == 2" "other settings while ports are attached are refused ($rc): $out"
counters
tap_ok "nports == 3 && s1_in_res == 0 && r0_out_res == 0" "show: 3 ports, counters 0"

# the paper's Figure 2 arithmetic: each GRT carries the counters before
# its demand is added
rsv 1 $RX4 4 2
grt 1
tap_ok "g_type == 10 && (g_flags & 64) && g_in == 0 && g_out == 0" \
	"sender 1, demand 4: GRT (type $g_type, flags $g_flags) slots in $g_in out $g_out (0, 0)"
tap_ok "$([ "$g_from" = $RX4 ] && echo 1 || echo 0)" "... from the receiver's address ($g_from)"
grt 2
tap_ok "g_in == 4 && g_out == 4" "sender 1, demand 2: slots in $g_in out $g_out (4, 4)"
rsv 2 $RX4 3
grt 1
tap_ok "g_in == 0 && g_out == 6" "sender 2, demand 3: slots in $g_in out $g_out (0, 6)"
rsv 2 $RX6 1
grt 1
tap_ok "g_type == 10 && g_in == 3 && g_out == 9" "sender 2 over IPv6, demand 1: slots in $g_in out $g_out (3, 9)"
tap_ok "$([ "$g_from" = $RX6 ] && echo 1 || echo 0)" "... from the receiver's IPv6 address ($g_from)"
rsv 1 $RX4 100
grt 1
tap_ok "g_in == 6 && g_out == 10" "demand 100 is capped at kmax 4: slots in $g_in out $g_out (6, 10)"
counters
tap_ok "s1_in_res == 10 && s2_in_res == 4 && r0_out_res == 14" \
	"counters: s1 in $s1_in_res (10), s2 in $s2_in_res (4), r0 out $r0_out_res (14)"
tap_ok "s1_rsv == 3 && s2_rsv == 2" "RSVs answered: s1 $s1_rsv (3), s2 $s2_rsv (2)"

# DATA counts them off, never below 0
data 1 $RX4 10
data 2 $RX4 4
counters
tap_ok "s1_in_res == 0 && s2_in_res == 0 && r0_out_res == 0" \
	"14 DATA: counters back to 0 (s1 $s1_in_res, s2 $s2_in_res, r0 $r0_out_res)"
tap_ok "s1_data == 10 && s2_data == 4 && s1_clamp == 0" "DATA counted: s1 $s1_data (10), s2 $s2_data (4), clamps $s1_clamp"
data 1 $RX4 3
counters
tap_ok "s1_in_res == 0 && r0_out_res == 0 && s1_clamp == 6" \
	"3 more DATA: counters stay 0 (s1 $s1_in_res, r0 $r0_out_res), 6 clamped decrements ($s1_clamp)"

# unsolicited DATA past T = 6 is dropped, and takes nothing off
rsv 1 $RX4 4 4
rx_before=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" udp NoPorts)
data 1 $RX4 2 unsol
counters
tap_ok "s1_unsol_drop == 2 && s1_in_res == 8 && r0_out_res == 8" \
	"backlog 8 > T: 2 unsolicited DATA dropped ($s1_unsol_drop), counters kept (s1 $s1_in_res, r0 $r0_out_res)"
data 1 $RX4 8
data 1 $RX4 1 unsol
rx_after=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" udp NoPorts)
counters
tap_ok "s1_unsol == 1 && s1_unsol_drop == 2 && s1_in_res == 0 && r0_out_res == 0" \
	"backlog 0: unsolicited DATA passes (unsol $s1_unsol), counters 0 (s1 $s1_in_res, r0 $r0_out_res)"
tap_ok "rx_after - rx_before == 9" "the receiver got the 9 DATA that passed, not the dropped 2 ($((rx_after - rx_before)))"

# malformed Shoal packets and other traffic pass untouched, counted
rx_before=$rx_after
for c in short version type0; do
	ip netns exec "$(topo_sender_ns 1)" python3 "$CRAFT" send $c $RX4 $PORT
done
rx_after=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" udp NoPorts)
counters
tap_ok "s1_malformed == 3" "3 malformed packets counted ($s1_malformed)"
tap_ok "rx_after - rx_before == 3" "... and delivered untouched ($((rx_after - rx_before)))"
tap_ok "s1_in_res == 0 && r0_out_res == 0 && s1_grt_err == 0" "... moving no counter"
other_before=$s1_other
ip netns exec "$(topo_sender_ns 1)" python3 "$CRAFT" send grt $RX4 $PORT
ip netns exec "$(topo_sender_ns 1)" python3 "$CRAFT" send data $RX4 9
counters
tap_ok "s1_other - other_before >= 2 && s1_data == 22" \
	"a GRT and UDP to another port pass as other ($((s1_other - other_before))), not as DATA ($s1_data)"
# the switch itself is no switch port: nothing to reserve
rsv 1 10.100.1.254 1
counters
tap_ok "s1_unrouted == 1 && s1_rsv == 5" "an RSV to the switch's own address is unrouted ($s1_unrouted), no GRT (rsv $s1_rsv)"

on=$(sweep_on)
tap_ok "on == 0" "no lease (--expire-us 0): no sweep after all those RSVs ($on)"

# ---- detach ----
out=$(sw detach s2 2>&1)
rc=$?
counters
tap_ok "rc == 0 && nports == 2 && s2_rsv == -1" "detach s2 ($rc): 2 ports left $out"
out=$(sw detach s2 2>&1)
rc=$?
tap_ok "rc == 2" "detaching s2 again fails ($rc): $out"
[[ $out == *"s2: not attached"* ]]
tap_ok "$? == 0" "... and says 'not attached'"
rsv 2 $RX4 1
tap_ok "$([ "$grts" = none ] && echo 1 || echo 0)" "an RSV from the detached port gets no GRT ($grts)"
out=$(sw detach -a 2>&1)
rc=$?
filters=$(tc -n "$TOPO_SW" filter show dev s1 ingress | wc -l)
pins=$(ls /sys/fs/bpf/pl2-switch 2>/dev/null | wc -l)
tap_ok "rc == 0 && filters == 0 && pins == 0" \
	"detach -a ($rc): no filter on s1 ($filters lines), no pins ($pins) $out"
out=$(sw show 2>&1)
rc=$?
tap_ok "rc == 2" "show after detach: nothing attached ($rc): $out"

# ---- clock mode: 2 s slots, drained by time ----
sw attach --mode clock --slot-ns 2000000000 s1 s2 r0
rsv 1 $RX4 4
grt 1
tap_ok "g_in == 0 && g_out == 0" "clock: the first RSV gets slots (0, 0) ($g_in, $g_out)"
rsv 2 $RX4 2
grt 1
tap_ok "g_in == 0 && g_out >= 1 && g_out <= 3" \
	"clock: the second waits for the first on r0: slots ($g_in, $g_out), out 1..3 of 4"
data 1 $RX4 4
counters
tap_ok "$([ "$mode" = clock ] && echo 1 || echo 0) && s1_data == 4 && s1_in_res == 0 && r0_out_res == 0" \
	"clock: DATA passes without counting ($s1_data, $s1_in_res, $r0_out_res)"
sleep 9
rsv 2 $RX4 1
grt 1
tap_ok "g_in == 0 && g_out == 0" "clock: 9 s later the reservations drained: slots ($g_in, $g_out)"
sw detach -a

# ---- joint mode: one start for both ports ----
sw attach --mode joint --slot-ns 2000000000 s1 s2 r0
rsv 1 $RX4 4
rsv 2 $RX4 2
grt 1
tap_ok "g_in == g_out && g_in >= 1 && g_in <= 3" \
	"joint: sender 2 idle, yet both slots equal r0's ($g_in, $g_out)"
sw detach -a

# ---- counter mode with a lease: a dead sender's reservations expire ----
# The sweep (every lease / 4) forgets them without any packet: within
# 1.25 x the lease of their due time, 10 s here, plus the guest's lag
sw attach --expire-us 8000000 s1 s2 r0
on=$(sweep_on)
tap_ok "on == 0" "lease: no sweep before anything is reserved ($on)"
rsv 1 $RX4 4
counters
on=$(sweep_on)
tap_ok "s1_in_res == 4 && r0_out_res == 4 && s1_expired + r0_expired == 0 && on == 1" \
	"lease: within the lease (8 s) sender 1's 4 packets are reserved (s1 $s1_in_res, r0 $r0_out_res), the sweep runs ($on)"
sleep 11
# sender 1 "died": its 4 packets never came; no packet passed meanwhile
counters
on=$(sweep_on)
tap_ok "s1_in_res == 0 && r0_out_res == 0 && s1_expired == 4 && r0_expired == 4" \
	"lease: 11 s on, the sweep forgot them with no packet passing: counters s1 $s1_in_res, r0 $r0_out_res;" \
	"expired s1 $s1_expired, r0 $r0_expired (4 each)"
tap_ok "on == 0" "lease: with nothing reserved the sweep stopped ($on)"
rsv 2 $RX4 1
grt 1
on=$(sweep_on)
tap_ok "g_in == 0 && g_out == 0 && on == 1" \
	"lease: sender 2's next GRT sees free ports: slots ($g_in, $g_out); its RSV started the sweep again ($on)"
data 1 $RX4 1
counters
tap_ok "s1_in_res == 0 && r0_out_res == 0 && s2_in_res == 1" \
	"lease: counters s1 $s1_in_res (0), r0 $r0_out_res (0), s2 $s2_in_res (1: its RSV is not overdue)"
tap_ok "s2_expired == 0 && s1_expired + r0_expired == 8" \
	"lease: nothing of sender 2's forgotten ($s2_expired), s1 $s1_expired + r0 $r0_expired"
sw show | sed 's/^/# /'

# ---- reset: counters to 0 by hand ----
out=$(sw reset nosuchdev 2>&1)
rc=$?
tap_ok "rc == 2" "reset of a missing device fails ($rc): $out"
rsv_before=$s2_rsv
sw reset s2
counters
tap_ok "s2_in_res == 0 && rsv_before >= 1 && s2_rsv == rsv_before && s1_expired == 4" \
	"reset s2: its counter is 0 ($s2_in_res), statistics kept (rsv $s2_rsv of $rsv_before; s1 expired $s1_expired)"
sw detach -a

# ---- --any-transport: other transports' packets are scheduled DATA ----
# A host running the pl2 qdisc reserves with a Shoal RSV and sends its
# burst as plain TCP/UDP (any unicast IP).  Without the option they are
# other traffic and the reservation stays; with it they count it off, are
# never dropped as unsolicited (T = 2 here, below the backlog) and are
# counted as foreign.
sw attach --t 2 --expire-us 0 s1 s2 r0
rsv 1 $RX4 4
udp9 1 $RX4 4
counters
tap_ok "s1_in_res == 4 && r0_out_res == 4 && s1_foreign == 0 && s1_other >= 4" \
	"without --any-transport: 4 UDP packets to port 9 pass as other ($s1_other), the counters stay (s1 $s1_in_res, r0 $r0_out_res)"
out=$(sw attach --any-transport s1 2>&1)
rc=$?
tap_ok "rc == 2" "--any-transport while the switch runs without it is refused ($rc): $out"
[[ $out == *"other settings"*"any_transport off"* ]]
tap_ok "$? == 0" "... and says it runs with other settings, any_transport off"
sw detach -a
sw attach --any-transport --t 2 --expire-us 0 s1 s2 r0
any=$(sw show -j | python3 -c 'import json, sys; print(int(json.load(sys.stdin)["any_transport"]))')
shown=$(sw show | head -1)
tap_ok "any == 1 && $([[ $shown == *"any_transport on"* ]] && echo 1 || echo 0)" \
	"show: any_transport on ($any; $shown)"
rsv 1 $RX4 4
grt 1
rx_before=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" udp NoPorts)
udp9 1 $RX4 4
rx_after=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" udp NoPorts)
counters
tap_ok "g_in == 0 && g_out == 0 && s1_in_res == 0 && r0_out_res == 0 && s1_foreign == 4" \
	"--any-transport: an RSV for 4 ($g_in, $g_out), then 4 UDP packets to port 9 bring the counters to 0 (s1 $s1_in_res, r0 $r0_out_res), foreign $s1_foreign (4)"
tap_ok "s1_data == 0 && s1_unsol == 0 && s1_unsol_drop == 0 && s1_clamp == 0 && rx_after - rx_before == 4" \
	"... not as Shoal DATA ($s1_data), none unsolicited or dropped ($s1_unsol, $s1_unsol_drop) at backlog 4 > T 2, no clamp ($s1_clamp); delivered $((rx_after - rx_before))"
rsv 2 $RX6 1
udp9 2 $RX6 1
rsv 1 $RX4 2
data 1 $RX4 2
counters
tap_ok "s2_in_res == 0 && s2_foreign == 1 && s1_in_res == 0 && r0_out_res == 0 && s1_data == 2 && s1_foreign == 4" \
	"... over IPv6 too (s2 $s2_in_res, foreign $s2_foreign), and Shoal DATA still counts as data ($s1_data; r0 $r0_out_res)"
foreign_before=$s1_foreign
r0_before=$r0_foreign
# a TCP SYN to a closed port, and the RST coming back
ip netns exec "$(topo_sender_ns 1)" python3 -c '
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect((sys.argv[1], 9))
except OSError:
    pass' $RX4
counters
tap_ok "s1_foreign - foreign_before == 1 && r0_foreign - r0_before == 1" \
	"TCP counts too: the SYN on s1 ($((s1_foreign - foreign_before))), the RST on r0 ($((r0_foreign - r0_before)))"
foreign_before=$s1_foreign
r0_before=$r0_foreign
ip netns exec "$(topo_sender_ns 1)" ping -c 1 -W 2 $RX4 >/dev/null
counters
tap_ok "s1_foreign - foreign_before == 1 && r0_foreign - r0_before == 1" \
	"and ICMP (what sch_pl2 reserves too): the ping on s1 ($((s1_foreign - foreign_before))), its reply on r0 ($((r0_foreign - r0_before)))"
sw detach -a

# ---- uplinks: they reserve nothing, the receiver's switch answers ----
# r0 plays a leaf's port towards a spine: an RSV leaving by it is
# reserved on s1 alone and passed on, s1's slot in its word's high half,
# for the receiver's switch to answer; its DATA is counted off s1.  An
# RSV arriving on it with a carried slot is answered with that slot as
# the input's, reserved on the output alone.
out=$(sw attach --expire-us 0 s1 s2 --uplink r0 2>&1)
rc=$?
counters
tap_ok "rc == 0 && nports == 3 && r0_uplink == 1 && s1_uplink == 0 && s2_uplink == 0" \
	"attach s1 s2 --uplink r0 ($rc): r0 an uplink ($r0_uplink), s1 and s2 not $out"
out=$(sw attach --uplink s1 2>&1)
rc=$?
tap_ok "rc == 2" "an attached port cannot be made an uplink again ($rc): $out"
ready=$TOPO_TMP/catch.ready
rm -f "$ready"
ip netns exec "$TOPO_RX" python3 "$CRAFT" catch "$PORT" 2 "$ready" >"$TOPO_TMP/catch.out" &
catch_pid=$!
for _ in $(seq 50); do [ -e "$ready" ] && break; sleep 0.1; done
rsv 1 $RX4 4 2
wait "$catch_pid"
caught=$(tr '\n' ';' <"$TOPO_TMP/catch.out")
counters
tap_ok "$([ "$grts" = "none"$'\n'"none" ] && echo 1 || echo 0) && s1_transit == 2 && s1_rsv == 0" \
	"towards the uplink: no GRT ($(echo "$grts" | tr '\n' ' ')), 2 RSVs passed on (transit $s1_transit, rsv $s1_rsv)"
tap_ok "s1_in_res == 6 && r0_out_res == 0" \
	"... reserved on the sender's port (s1 in $s1_in_res, 6), not the uplink (r0 out $r0_out_res)"
tap_ok "$([ "$caught" = "9 4;9 $((4 << 16 | 2));" ] && echo 1 || echo 0)" \
	"... reaching the receiver as RSVs of demand 4 carrying slot 0, then 2 carrying slot 4 ($caught)"
data 1 $RX4 6
counters
tap_ok "s1_data == 6 && s1_in_res == 0 && r0_out_res == 0 && s1_clamp == 0" \
	"their 6 DATA counted off s1 alone (data $s1_data; s1 in $s1_in_res, r0 out $r0_out_res, clamps $s1_clamp)"
# as if a switch before had reserved slot 5 for it
grts=$(ip netns exec "$TOPO_RX" python3 "$CRAFT" rsv "$(topo_sender_addr 1 4)" "$PORT" $((5 << 16 | 3)))
grt 1
counters
tap_ok "g_type == 10 && g_in == 5 && g_out == 0 && r0_rsv == 1 && r0_in_res == 0 && s1_out_res == 3" \
	"from the uplink, carrying slot 5: GRT (type $g_type) slots ($g_in, $g_out) (5, 0); r0 in $r0_in_res (0), s1 out $s1_out_res (3)"
ip netns exec "$TOPO_RX" python3 "$CRAFT" pl2data "$(topo_sender_addr 1 4)" "$PORT" 3
counters
tap_ok "r0_data == 3 && r0_in_res == 0 && s1_out_res == 0 && r0_transit == 0" \
	"... and its 3 DATA counted off (data $r0_data; r0 in $r0_in_res, s1 out $s1_out_res)"
sw reset
counters
tap_ok "r0_uplink == 1 && s1_uplink == 0" "reset keeps r0 an uplink ($r0_uplink)"
sw detach -a

# ---- a host answers an RSV that a switch passed on ----
# No switch program on the path now: the receiver's shoal.ko answers the
# RSV itself, giving the slot it carries as the input's (a switch on the
# sender's side reserved it), to the sender's Shoal port
shoal_module
export SHOAL_PROTO=pl2
shoal_recv "$TOPO_RX" $((0x4321)) 1 "$TOPO_TMP/pl2rx.json"
unset SHOAL_PROTO
grts=$(ip netns exec "$(topo_sender_ns 1)" python3 "$CRAFT" rsvfrom "$PORT" $RX4 "$PORT" $((5 << 16 | 3)))
kill "$recv_pid" 2>/dev/null
wait "$recv_pid" 2>/dev/null
grt 1
tap_ok "g_type == 10 && g_in == 5 && g_out == 0" \
	"a receiving host answers an RSV carrying slot 5 itself: GRT (type $g_type) slots ($g_in, $g_out) (5, 0)"
tap_done
