// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/sqr_core.h: parsing and the protection match
 * (DSCP, protocol, either port, mark; neighbour discovery and non-IP never),
 * the hold and commit rules, the ring backstop, the copy buffer (against
 * a model FIFO), the failure state machine in the paper's two deployments
 * (ShareBackup: the same port after a reconfiguration delay; local
 * rerouting: a backup port at once) and its edge cases, the fault
 * injector's schedule, the heartbeat's frame and verdict, and the
 * unavoidable window's count (against the copies really lost).
 */
#include <string.h>

#include "sqr_core.h"
#include "unit.h"

typedef unsigned long long ull;

/* ---- packets ---- */

static u32 ipv4(u8 *p, u8 dscp, u8 proto, u16 sport, u16 dport, u16 frag)
{
	u32 len = 20 + (proto == 6 ? 20 : 8) + 10;

	memset(p, 0, 128);
	p[0] = 0x45;
	p[1] = (u8)(dscp << 2);
	p[2] = (u8)(len >> 8);
	p[3] = (u8)len;
	p[6] = (u8)(frag >> 8);
	p[7] = (u8)frag;
	p[9] = proto;
	p[20] = (u8)(sport >> 8);
	p[21] = (u8)sport;
	p[22] = (u8)(dport >> 8);
	p[23] = (u8)dport;
	if (proto == 17) {
		p[24] = 0;
		p[25] = (u8)(len - 20);
	} else if (proto == 6) {
		p[32] = 5 << 4;
	}
	return len;
}

static u32 ipv6(u8 *p, u8 dscp, u8 proto, u8 l4_first, u16 dport)
{
	u32 plen = proto == 6 ? 20 : 8;

	memset(p, 0, 128);
	p[0] = (u8)(0x60 | (dscp >> 2));
	p[1] = (u8)((dscp & 3) << 6);
	p[5] = (u8)plen;
	p[6] = proto;
	p[40] = l4_first;
	p[42] = (u8)(dport >> 8);
	p[43] = (u8)dport;
	if (proto == 17)
		p[45] = (u8)plen;
	if (proto == 6)
		p[52] = 5 << 4;
	return 40 + plen;
}

static void test_parse(void)
{
	struct sqr_pkt pk;
	u8 p[128];
	u32 n;

	n = ipv4(p, 46, 17, 40000, 4797, 0);
	sqr_parse(p, n, n, 7, &pk);
	CHECK(pk.ip && !pk.neigh && pk.dscp == 46 && pk.proto == 17 &&
	      pk.sport == 40000 && pk.dport == 4797 && pk.mark == 7,
	      "IPv4 UDP: dscp %u proto %u ports %u -> %u mark %u", pk.dscp,
	      pk.proto, pk.sport, pk.dport, pk.mark);
	n = ipv4(p, 0, 6, 5001, 80, 0);
	sqr_parse(p, n, n, 0, &pk);
	CHECK(pk.ip && pk.proto == 6 && pk.sport == 5001 && pk.dport == 80,
	      "IPv4 TCP: ports %u -> %u", pk.sport, pk.dport);
	n = ipv4(p, 10, 17, 1, 2, 0x2000);	/* MF: a first fragment */
	sqr_parse(p, n, n, 0, &pk);
	CHECK(pk.ip && pk.dscp == 10 && pk.proto == 17 && !pk.sport &&
	      !pk.dport, "IPv4 fragment: IP, dscp %u, no ports", pk.dscp);
	n = ipv4(p, 0, 17, 1, 2, 0);
	sqr_parse(p, 12, n, 0, &pk);
	CHECK(!pk.ip, "IPv4 header cut at 12 bytes: not IP");
	n = ipv6(p, 34, 17, 0, 4797);
	sqr_parse(p, n, n, 0, &pk);
	CHECK(pk.ip && pk.dscp == 34 && pk.proto == 17 && pk.dport == 4797,
	      "IPv6 UDP: dscp %u dport %u", pk.dscp, pk.dport);
	n = ipv6(p, 48, 58, 135, 0);
	sqr_parse(p, n, n, 0, &pk);
	CHECK(pk.ip && pk.neigh, "ICMPv6 neighbour solicitation: neighbour discovery");
	n = ipv6(p, 0, 58, 128, 0);
	sqr_parse(p, n, n, 0, &pk);
	CHECK(pk.ip && !pk.neigh, "ICMPv6 echo request: not neighbour discovery");
	memset(p, 0, sizeof(p));
	p[0] = 0x00;		/* an ARP payload starts with hardware type 1 */
	p[1] = 0x01;
	sqr_parse(p, 28, 28, 0, &pk);
	CHECK(!pk.ip, "ARP: not IP");
	sqr_parse(p, 0, 0, 0, &pk);
	CHECK(!pk.ip, "empty: not IP");
}

static void test_match(void)
{
	struct sqr_match m = { 0 };
	struct sqr_pkt pk = { .ip = true, .dscp = 46, .proto = 6,
			      .sport = 5001, .dport = 80, .mark = 0x1234 };
	struct sqr_pkt nd = { .ip = true, .neigh = true, .proto = 58 };
	struct sqr_pkt arp = { 0 };

	CHECK(sqr_protected(&m, &pk) && !sqr_protected(&m, &nd) &&
	      !sqr_protected(&m, &arp),
	      "no criteria: every IP packet, but never ND or non-IP");
	m.flags = SQR_MATCH_DSCP;
	m.dscp_val = 46;
	m.dscp_mask = 0x3f;
	CHECK(sqr_protected(&m, &pk), "dscp 46/0x3f matches 46");
	m.dscp_val = 40;
	m.dscp_mask = 0x38;
	CHECK(sqr_protected(&m, &pk), "dscp 40/0x38 (class 5) matches 46");
	m.dscp_val = 0;
	CHECK(!sqr_protected(&m, &pk), "dscp 0/0x38 does not match 46");

	m = (struct sqr_match){ .flags = SQR_MATCH_PORTS, .port_lo = 80,
				.port_hi = 80 };
	CHECK(sqr_protected(&m, &pk), "port 80 matches the destination");
	m.port_lo = 5000;
	m.port_hi = 5010;
	CHECK(sqr_protected(&m, &pk), "ports 5000-5010 match the source");
	m.port_lo = 81;
	m.port_hi = 5000;
	CHECK(!sqr_protected(&m, &pk), "ports 81-5000 match neither");
	pk.proto = 132;
	m.port_lo = 80;
	m.port_hi = 80;
	CHECK(!sqr_protected(&m, &pk), "a port range needs TCP or UDP (SCTP: no)");
	pk.proto = 6;

	m = (struct sqr_match){ .flags = SQR_MATCH_PROTO | SQR_MATCH_MARK, .proto = 6,
				.mark_val = 0x1200, .mark_mask = 0xff00 };
	CHECK(sqr_protected(&m, &pk), "TCP and mark 0x1200/0xff00: both hold");
	pk.mark = 0x2234;
	CHECK(!sqr_protected(&m, &pk), "... mark 0x2234 fails the second");
	pk.mark = 0x1234;
	pk.proto = 17;
	CHECK(!sqr_protected(&m, &pk), "... UDP fails the first");
}

static void test_ring_rules(void)
{
	bool ok;

	CHECK(!sqr_expired(1000, 30, 1029) && sqr_expired(1000, 30, 1030),
	      "hold 30: held at 29 ns, expired at 30");
	CHECK(!sqr_expired(1000, 30, 999), "a clock before the send never expires it");
	CHECK(sqr_expired(1000, 0, 1000), "hold 0: expired at once");
	CHECK(sqr_poll_due(5000, 0, 100, 1000) == 5100,
	      "idle (no dequeue yet): poll 100 after now");
	CHECK(sqr_poll_due(5000, 4950, 100, 1000) == 5450,
	      "busy (a dequeue 50 ago): the watchdog half a hold after it");
	CHECK(sqr_poll_due(5000, 4900, 100, 1000) == 5100,
	      "the last dequeue a poll ago: idle again, poll 100 after now");
	CHECK(sqr_poll_due(5000, 4990, 100, 200) == 5090,
	      "half a hold no longer than poll: the watchdog at poll");
	CHECK(sqr_poll_due(5000, 5010, 100, 1000) == 5100,
	      "a dequeue stamped after now (another CPU's clock): idle");
	ok = true;
	for (u64 seen = 3000; seen <= 5000; seen += 7) {
		u64 due = sqr_poll_due(5000, seen, 100, 1000);

		/* a failure just after the last dequeue: read in half a
		 * hold; idle: in a poll
		 */
		ok &= due > 5000 && (due <= seen + 500 || due <= 5100);
	}
	CHECK(ok, "always after now; within half a hold of the last dequeue or a poll of now");
	CHECK(sqr_watch_ns(100, 1000) == 500 && sqr_watch_ns(100, 200) == 100 &&
	      sqr_watch_ns(600, 1000) == 600,
	      "the watch period: half a hold, at least a poll");
	CHECK(!sqr_timer_push(5062, 5000, 100, 1000) &&
	      sqr_timer_push(5061, 5000, 100, 1000) &&
	      sqr_timer_push(5001, 5000, 100, 1000),
	      "hold 1000: pushed out when due in less than 500/8 = 62");
	CHECK(!sqr_timer_push(5000, 5000, 100, 1000) &&
	      !sqr_timer_push(4000, 5000, 100, 1000),
	      "a timer due now or overdue fires, never pushed");
	CHECK(!sqr_timer_push(5012, 5000, 100, 200) &&
	      sqr_timer_push(5011, 5000, 100, 200),
	      "half a hold not above poll: within 100/8 = 12");
	ok = true;
	for (u64 at = 4000; at <= 6000; at += 3) {
		/* a pushed timer is re-armed at least a watch period out,
		 * so a busy port pushes it once per 7/8 period at most
		 */
		if (sqr_timer_push(at, 5000, 100, 1000))
			ok &= at > 5000 && sqr_poll_due(5000, 5000, 100, 1000) >=
			      at + 500 - 500 / 8;
	}
	CHECK(ok, "a push moves the timer at least 7/8 of a watch period later");
	CHECK(sqr_expiry_due(1000, 1000, 0, 500) == 2250,
	      "idle: the oldest copy freed a quarter hold after it expires");
	CHECK(sqr_expiry_due(1000, 1000, 2100, 500) == 2600,
	      "busy (a dequeue at 2100): not before the watchdog's time");
	ok = true;
	for (u64 seen = 0; seen <= 4000; seen += 13)
		ok &= sqr_expiry_due(1000, 1000, seen, 500) >= 2250 &&
		      sqr_expiry_due(1000, 1000, seen, 500) >= seen + 500 &&
		      sqr_expiry_due(1000, 1000, seen, 500) <=
		      (seen + 500 > 2250 ? seen + 500 : 2250);
	CHECK(ok, "the later of the two, never earlier than either");
	CHECK(sqr_timer_settled(5031, 5000, 250) &&
	      sqr_timer_settled(5250, 5000, 250) &&
	      !sqr_timer_settled(5030, 5000, 250) &&
	      !sqr_timer_settled(5251, 5000, 250) && !sqr_timer_settled(0, 5000, 250),
	      "settled from 250/8 = 31 to a watch period (250) out; unarmed is not");
	ok = true;
	for (u64 at = 4000; at <= 6000; at += 1) {
		bool settled = sqr_timer_settled(at, 5000,
						 sqr_watch_ns(100, 1000));

		/* settled: armed no later than the poll a busy port needs
		 * (a watch period after this dequeue) and not to be pushed
		 */
		ok &= settled == (at <= sqr_poll_due(5000, 5000, 100, 1000) &&
				  at > 5000 && !sqr_timer_push(at, 5000, 100, 1000));
	}
	CHECK(ok, "settled exactly when neither an earlier arm nor a push is due");
	CHECK(sqr_commit_copy(100, 0, 5), "unknown onset: every copy is resent");
	CHECK(!sqr_commit_copy(100, 200, 5) && sqr_commit_copy(195, 200, 5) &&
	      sqr_commit_copy(300, 200, 5),
	      "onset 200, guard 5: a copy of 100 got through, 195 and 300 are resent");
	CHECK(sqr_ring_room(9, 900, 100, 10, 1000) &&
	      !sqr_ring_room(10, 0, 100, 10, 1000) &&
	      !sqr_ring_room(0, 901, 100, 10, 1000),
	      "backstop: 10 packets and 1000 bytes; the 11th or 1001st byte stops caching");
}

/* ---- the copy buffer ---- */

/* Live records of a model FIFO: they must never overlap, stay inside the
 * buffer and be freed from where sqr_buf says the oldest is
 */
struct live {
	u32 off[64];
	u32 n[64];
	int first;
	int count;
};

static int buf_consistent(const struct sqr_buf *b, const struct live *l)
{
	u32 used = 0;
	int i, j;

	if (l->count != (int)b->count)
		return 0;
	if (l->count && l->off[l->first % 64] != b->tail)
		return 0;
	for (i = 0; i < l->count; i++) {
		int a = (l->first + i) % 64;

		used += l->n[a];
		if (l->off[a] + l->n[a] > b->size)
			return 0;
		for (j = i + 1; j < l->count; j++) {
			int c = (l->first + j) % 64;

			if (l->off[a] < l->off[c] + l->n[c] &&
			    l->off[c] < l->off[a] + l->n[a])
				return 0;
		}
	}
	return used == b->used;
}

static void test_buf(void)
{
	struct sqr_buf b;
	struct live l = { 0 };
	unsigned int seed = 12345;
	int step, bad = 0, took = 0, full = 0;

	sqr_buf_init(&b, 1000);
	CHECK(sqr_buf_take(&b, 400) == 0 && sqr_buf_take(&b, 400) == 400 &&
	      sqr_buf_take(&b, 400) == SQR_BUF_FULL,
	      "a 1000-byte buffer takes 400 at 0, 400 at 400, not a third");
	sqr_buf_drop(&b, 400);
	CHECK(sqr_buf_take(&b, 300) == 0 && b.wrapped && b.wrap == 800,
	      "with the oldest freed, the next wraps to 0 and skips 800..1000");
	CHECK(sqr_buf_take(&b, 200) == SQR_BUF_FULL && sqr_buf_take(&b, 100) == 300,
	      "wrapped: only up to the oldest (100 fits at 300, 200 does not)");
	sqr_buf_drop(&b, 400);
	CHECK(!b.wrapped && b.tail == 0 && b.used == 400,
	      "freeing the last record before the skipped end moves the tail to 0");
	sqr_buf_drop(&b, 300);
	sqr_buf_drop(&b, 100);
	CHECK(b.count == 0 && b.head == 0 && b.tail == 0 &&
	      sqr_buf_take(&b, 1000) == 0,
	      "empty again: the whole buffer in one piece");
	sqr_buf_drop(&b, 1000);
	sqr_buf_take(&b, 600);
	sqr_buf_take(&b, 400);
	CHECK(b.head == 1000 && sqr_buf_take(&b, 8) == SQR_BUF_FULL,
	      "filled exactly to the end: full, not wrapped onto itself");
	sqr_buf_drop(&b, 600);
	CHECK(sqr_buf_take(&b, 600) == 0 && b.wrap == 1000,
	      "then the freed start is taken, nothing skipped");

	/* random takes and drops against the model */
	sqr_buf_init(&b, 4096);
	for (step = 0; step < 200000; step++) {
		u32 n, off;

		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) % 3 && l.count < 64) {
			n = 8 * (1 + (seed >> 8) % 128);
			off = sqr_buf_take(&b, n);
			if (off == SQR_BUF_FULL) {
				full++;
				/* an empty buffer takes any record */
				if (!l.count)
					bad++;
				continue;
			}
			took++;
			l.off[(l.first + l.count) % 64] = off;
			l.n[(l.first + l.count) % 64] = n;
			l.count++;
		} else if (l.count) {
			sqr_buf_drop(&b, l.n[l.first % 64]);
			l.first = (l.first + 1) % 64;
			l.count--;
		}
		if (!buf_consistent(&b, &l))
			bad++;
	}
	CHECK(!bad && took > 50000 && full > 1000,
	      "200000 random steps: records in order, inside, never overlapping (%d taken, %d refused, %d wrong)",
	      took, full, bad);
}

/* ---- the state machine ---- */

static const char *const st_name[] = { "UP", "FAILED", "RELEASING", "FAILBACK" };

static void test_sharebackup(void)
{
	struct sqr_fsm_cfg c = { .reconf_ns = 730, .max_hold_ns = 100000,
				 .release = SQR_RELEASE_TIMER, .same_port = true };
	struct sqr_fsm f = { 0 };
	u64 next;
	u32 a;

	a = sqr_fsm_down(&f, &c, 1030);
	CHECK(a == SQR_A_COMMIT && f.state == SQR_STATE_FAILED && f.t_release == 1760,
	      "SB': detected at 1030: ring committed, release at 1760 (%llu)",
	      (ull)f.t_release);
	CHECK(sqr_fsm_diverting(&f), "SB': new packets wait behind the copies");
	a = sqr_fsm_down(&f, &c, 1100);
	CHECK(a == 0 && f.t_release == 1760, "a second detection changes nothing");
	a = sqr_fsm_step(&f, &c, 1500, true, true, false, &next);
	CHECK(a == 0 && f.state == SQR_STATE_FAILED && next == 1760,
	      "port back at 1500, before the reconfiguration ends: wait until %llu",
	      (ull)next);
	a = sqr_fsm_step(&f, &c, 1760, true, true, false, &next);
	CHECK(a == SQR_A_XMIT && f.state == SQR_STATE_RELEASING,
	      "at 1760: release, %s", st_name[f.state]);
	a = sqr_fsm_step(&f, &c, 1800, true, true, true, &next);
	CHECK(a == 0 && f.state == SQR_STATE_UP && !sqr_fsm_diverting(&f),
	      "fail queue drained, port healthy: %s", st_name[f.state]);

	/* the port is still dead when the reconfiguration should be over */
	f = (struct sqr_fsm){ 0 };
	sqr_fsm_down(&f, &c, 0);
	a = sqr_fsm_step(&f, &c, 730, false, false, false, &next);
	CHECK(a == 0 && f.state == SQR_STATE_FAILED && next == 100000,
	      "release due but the port is down: hold (next step at %llu)",
	      (ull)next);
	a = sqr_fsm_step(&f, &c, 100000, false, false, false, &next);
	CHECK(a == SQR_A_GIVE_UP && f.state == SQR_STATE_FAILED && next == 200000,
	      "max_hold reached with no path: give up on what is held, new window to %llu",
	      (ull)next);
	a = sqr_fsm_step(&f, &c, 150000, true, true, false, &next);
	CHECK(a == SQR_A_XMIT && f.state == SQR_STATE_RELEASING,
	      "the port comes back later: release what came since");

	/* flapping during the release */
	a = sqr_fsm_down(&f, &c, 150010);
	CHECK(a == 0 && f.state == SQR_STATE_FAILED && f.t_release == 150740,
	      "SB' port down again while releasing: hold again until %llu",
	      (ull)f.t_release);
}

static void test_local_reroute(void)
{
	struct sqr_fsm_cfg c = { .max_hold_ns = 100000,
				 .release = SQR_RELEASE_IMMEDIATE };
	struct sqr_fsm f = { 0 };
	u64 next;
	u32 a;

	a = sqr_fsm_down(&f, &c, 30);
	a |= sqr_fsm_step(&f, &c, 30, false, true, false, &next);
	CHECK(a == (SQR_A_COMMIT | SQR_A_XMIT) && f.state == SQR_STATE_RELEASING,
	      "LRR: detected at 30, committed and sent on the backup at once");
	a = sqr_fsm_step(&f, &c, 500, false, true, true, &next);
	CHECK(a == 0 && f.state == SQR_STATE_RELEASING && sqr_fsm_diverting(&f),
	      "primary still down: new packets keep going to the backup");
	a = sqr_fsm_down(&f, &c, 600);
	CHECK(a == 0 && f.state == SQR_STATE_RELEASING,
	      "the primary seen down again: the backup carries on");
	a = sqr_fsm_step(&f, &c, 800, true, true, false, &next);
	CHECK(f.state == SQR_STATE_RELEASING,
	      "primary back but the fail queue is not empty: no fail-back yet");
	a = sqr_fsm_step(&f, &c, 810, true, true, true, &next);
	CHECK(f.state == SQR_STATE_UP, "drained and primary back: UP");

	/* the backup is down at detection: wait for it (EVENT-like) */
	f = (struct sqr_fsm){ 0 };
	sqr_fsm_down(&f, &c, 0);
	a = sqr_fsm_step(&f, &c, 0, false, false, false, &next);
	CHECK(a == 0 && f.state == SQR_STATE_FAILED && next == 100000,
	      "backup down too: hold (never into a dead link)");
	a = sqr_fsm_step(&f, &c, 40, false, true, false, &next);
	CHECK(a == SQR_A_XMIT && f.state == SQR_STATE_RELEASING,
	      "backup up at 40: release");
	a = sqr_fsm_step(&f, &c, 60, false, false, false, &next);
	CHECK(a == 0 && f.state == SQR_STATE_FAILED && f.t_detect == 60 &&
	      next == 60 + 100000,
	      "the backup dies while releasing: held again, max_hold from 60");
	a = sqr_fsm_step(&f, &c, 90, true, false, false, &next);
	CHECK(a == SQR_A_XMIT && f.state == SQR_STATE_RELEASING,
	      "backup still down, the primary back at 90: release through it");
	a = sqr_fsm_step(&f, &c, 95, true, false, true, &next);
	CHECK(f.state == SQR_STATE_UP, "drained through the primary: UP");

	/* a reconfiguration longer than max_hold: the give-up comes first */
	c = (struct sqr_fsm_cfg){ .reconf_ns = 5000, .max_hold_ns = 3000,
				  .release = SQR_RELEASE_TIMER, .same_port = true };
	f = (struct sqr_fsm){ 0 };
	sqr_fsm_down(&f, &c, 0);
	sqr_fsm_step(&f, &c, 0, true, true, false, &next);
	CHECK(next == 3000, "reconf 5000 > max_hold 3000: next step at 3000, got %llu",
	      (ull)next);
}

static void test_failback(void)
{
	struct sqr_fsm_cfg c = { .max_hold_ns = 100000, .failback_ns = 500,
				 .release = SQR_RELEASE_EVENT };
	struct sqr_fsm f = { 0 };
	u64 next;
	u32 a;

	sqr_fsm_down(&f, &c, 100);
	sqr_fsm_step(&f, &c, 100, false, true, false, &next);
	a = sqr_fsm_step(&f, &c, 1000, true, true, true, &next);
	CHECK(a == 0 && f.state == SQR_STATE_FAILBACK && next == 1500 &&
	      sqr_fsm_diverting(&f),
	      "failback 500: still diverting until %llu", (ull)next);
	a = sqr_fsm_step(&f, &c, 1200, true, true, true, &next);
	CHECK(f.state == SQR_STATE_FAILBACK && next == 1500, "at 1200: still diverting");
	a = sqr_fsm_down(&f, &c, 1300);
	CHECK(a == SQR_A_COMMIT && f.state == SQR_STATE_FAILED,
	      "a failure during fail-back is a new failure");
	sqr_fsm_step(&f, &c, 1300, false, true, false, &next);
	sqr_fsm_step(&f, &c, 2000, true, true, true, &next);
	a = sqr_fsm_step(&f, &c, 2500, true, true, true, &next);
	CHECK(f.state == SQR_STATE_UP, "fail-back over at 2500: UP");
}

/* A random walk of events: the invariants the qdisc relies on */
static u64 rng = 0x9e3779b97f4a7c15ULL;

static u32 rnd(u32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (u32)(rng % n);
}

static void test_fsm_walk(void)
{
	u32 i, commits = 0, xmits = 0, bad = 0, gives = 0, a;
	struct sqr_fsm_cfg c;
	struct sqr_fsm f;
	u64 now = 1, next;
	bool pri = true, bak = true, empty = true;

	for (i = 0; i < 200000; i++) {
		if (!(i % 5000)) {
			c = (struct sqr_fsm_cfg){
				.reconf_ns = rnd(1000), .max_hold_ns = 1 + rnd(5000),
				.failback_ns = rnd(2) ? rnd(800) : 0,
				.release = (u8)rnd(3), .same_port = rnd(2) };
			f = (struct sqr_fsm){ 0 };
		}
		now += rnd(300);
		switch (rnd(6)) {
		case 0:
			pri = false;
			if (c.same_port)
				bak = false;
			a = sqr_fsm_down(&f, &c, now);
			if (a & ~SQR_A_COMMIT)
				bad++;
			commits += !!a;
			break;
		case 1:
			pri = true;
			if (c.same_port)
				bak = true;
			break;
		case 2:
			if (!c.same_port)
				bak = !bak;
			break;
		case 3:
			empty = rnd(2);
			break;
		default:
			a = sqr_fsm_step(&f, &c, now, pri, bak, empty, &next);
			if ((a & SQR_A_XMIT) && !(c.same_port ? pri : bak || pri))
				bad++;	/* released into a dead link */
			if (a & SQR_A_COMMIT)
				bad++;	/* only a detection commits */
			if (next && next < now)
				bad++;	/* a timer in the past */
			xmits += !!(a & SQR_A_XMIT);
			gives += !!(a & SQR_A_GIVE_UP);
			break;
		}
		if (f.state > SQR_STATE_FAILBACK)
			bad++;
	}
	CHECK(!bad && commits && xmits && gives,
	      "200000 random events: no release into a dead link, no stray commit or past timer (%u commits, %u releases, %u give-ups)",
	      commits, xmits, gives);
}

/* ---- the fault injector ---- */

static void test_fault(void)
{
	struct sqr_fault_cfg c = { .offset_ns = 1000, .period_ns = 20000,
				   .len_ns = 760, .detect_ns = 30, .count = 3 };
	static const enum sqr_fault_ev kinds[] = {
		SQR_F_ONSET, SQR_F_DETECT, SQR_F_END };
	static const u64 at_exp[] = { 1000, 1030, 1760, 21000, 21030, 21760,
				      41000, 41030, 41760 };
	bool ok = true;
	u64 e, at = 0;

	for (e = 0; e < 9; e++)
		ok &= sqr_fault_event(&c, 0, e, &at) == kinds[e % 3] &&
		      at == at_exp[e];
	CHECK(ok && sqr_fault_event(&c, 0, 9, &at) == SQR_F_NONE,
	      "3 outages of 760 every 20000 from 1000, detected after 30: 9 events, then none");
	c.detect_ns = 760;
	CHECK(sqr_fault_event(&c, 0, 4, &at) == SQR_F_DETECT && at == 21760,
	      "a detection at the very end of the outage still comes, before the end");
	c.detect_ns = 761;
	CHECK(sqr_fault_event(&c, 0, 4, &at) == SQR_F_SKIP,
	      "a detection later than the end of the outage never comes");
	c.period_ns = 0;
	c.count = 0;
	CHECK(sqr_fault_event(&c, 5, 2, &at) == SQR_F_END && at == 1765 &&
	      sqr_fault_event(&c, 5, 3, &at) == SQR_F_NONE,
	      "period 0: one outage, from 1005 to %llu", (ull)at);
	c = (struct sqr_fault_cfg){ .offset_ns = 1000, .period_ns = 20000,
				    .len_ns = 760, .detect_ns = 30, .count = 2 };
	CHECK(!sqr_fault_blackout(&c, 0, 999) && sqr_fault_blackout(&c, 0, 1000) &&
	      sqr_fault_blackout(&c, 0, 1759) && !sqr_fault_blackout(&c, 0, 1760) &&
	      sqr_fault_blackout(&c, 0, 21500) && !sqr_fault_blackout(&c, 0, 41000),
	      "blackout: [1000, 1760) and [21000, 21760), and not a third time");
	c.count = 0;
	CHECK(sqr_fault_blackout(&c, 0, 1000 + 20000ULL * 1000000 + 5),
	      "count 0: outages go on (the millionth too)");
}

/* ---- heartbeats ---- */

static void test_hb(void)
{
	struct sqr_hb_msg m = { .type = SQR_HB_PROBE, .id = 0xdeadbeef,
				.seq = 7, .tx_ns = 0x0102030405060708ULL }, r;
	struct sqr_hb h = { 0 };
	u8 p[SQR_HB_LEN];
	int i, v, late = 0;
	bool ok;

	sqr_hb_write(p, &m);
	CHECK(sqr_hb_read(p, SQR_HB_LEN, &r) && r.type == SQR_HB_PROBE &&
	      r.id == 0xdeadbeef && r.seq == 7 && r.tx_ns == 0x0102030405060708ULL,
	      "a probe reads back as written");
	CHECK(p[0] == 'S' && p[3] == 'H' && p[16] == 1 && p[23] == 8,
	      "big-endian on the wire: magic \"SQRH\", the clock's high byte first");
	CHECK(!sqr_hb_read(p, SQR_HB_LEN - 1, &r), "one byte short: not ours");
	p[5] = 3;
	CHECK(!sqr_hb_read(p, SQR_HB_LEN, &r), "an unknown type: not ours");
	p[5] = SQR_HB_ECHO;
	p[4] = 2;
	CHECK(!sqr_hb_read(p, SQR_HB_LEN, &r), "another version: not ours");
	p[4] = SQR_HB_VERSION;
	p[0] = 'X';
	CHECK(!sqr_hb_read(p, SQR_HB_LEN, &r), "a wrong magic: not ours");

	h.sent = 3;
	CHECK(sqr_hb_echo(&h, 3) && h.echoed == 3 && !sqr_hb_echo(&h, 2) &&
	      !sqr_hb_echo(&h, 3) && !sqr_hb_echo(&h, 4),
	      "echoes: news only for a newer probe that was sent (not an old, a repeated or a forged one)");
	/* a timer that fires late sends late: time alone never fails it */
	for (i = 0; i < 100; i++) {
		h.sent++;
		v = sqr_hb_verdict(&h, 3);
		late |= v;
		sqr_hb_echo(&h, h.sent);
	}
	CHECK(!late && !h.down, "100 probes, each answered before the next: never down");
	h.sent++;			/* lost */
	CHECK(sqr_hb_verdict(&h, 3) == 0, "one unanswered: still up");
	h.sent++;
	CHECK(sqr_hb_verdict(&h, 3) == 0, "two unanswered: still up");
	h.sent++;
	CHECK(sqr_hb_verdict(&h, 3) == 1 && h.down && h.down_at == h.sent,
	      "three unanswered in a row with hb_miss 3: down");
	CHECK(sqr_hb_verdict(&h, 3) == 0, "down is said once");
	sqr_hb_echo(&h, h.sent - 1);	/* a late echo of a probe before */
	CHECK(sqr_hb_verdict(&h, 3) == 0 && h.down,
	      "a late echo of a probe sent before the failure does not bring it back");
	h.sent++;
	sqr_hb_echo(&h, h.sent);
	CHECK(sqr_hb_verdict(&h, 3) == -1 && !h.down,
	      "the echo of a probe sent after it went down: back up");
	h.sent = 0xfffffffe;
	h.echoed = 0xfffffffe;
	h.sent += 3;
	CHECK(sqr_hb_echo(&h, 0) && h.echoed == 0 && sqr_hb_verdict(&h, 3) == 0,
	      "sequence numbers wrap");

	/* the onset comes from our own record of the send */
	h = (struct sqr_hb){ 0 };
	CHECK(sqr_hb_onset(&h) == 0, "nothing answered yet: onset unknown");
	ok = true;
	for (i = 1; i <= 10; i++)
		ok &= sqr_hb_next(&h, 1000 * i) == (u32)i;
	CHECK(ok, "probes numbered from 1");
	sqr_hb_echo(&h, 7);
	CHECK_EQ(sqr_hb_onset(&h), 7000, "onset: when the newest answered probe left");
	for (i = 11; i <= 10 + SQR_HB_SLOTS; i++)
		sqr_hb_next(&h, 1000 * i);
	CHECK_EQ(sqr_hb_onset(&h), 0,
		 "its record overwritten (more probes since than kept): unknown");

	/* a probe the device would not take is no miss */
	h = (struct sqr_hb){ 0 };
	sqr_hb_next(&h, 10);
	sqr_hb_echo(&h, 1);
	for (i = 0; i < 10; i++) {
		u32 seq;

		v = sqr_hb_verdict(&h, 2);
		late |= v;
		seq = sqr_hb_next(&h, 20 + i);
		sqr_hb_unsend(&h, seq);
	}
	CHECK(!late && !h.down && h.sent == 1,
	      "ten probes that never left, hb_miss 2: still up, nothing counted");
	sqr_hb_next(&h, 40);
	sqr_hb_echo(&h, 2);
	sqr_hb_unsend(&h, 2);
	CHECK(h.sent == 2, "an answered probe is never taken back");

	/* down for longer than half the numbers: an echo still counts */
	h = (struct sqr_hb){ .sent = 5, .echoed = 5 };
	h.sent += 3;
	sqr_hb_verdict(&h, 3);
	h.sent += 0x90000000u;
	CHECK(!sqr_hb_echo(&h, 5) && !sqr_hb_echo(&h, 4),
	      "after 2^31 and more probes unanswered: old numbers still old");
	CHECK(!sqr_hb_echo(&h, h.sent + 1), "a number not yet sent is not news");
	CHECK(sqr_hb_echo(&h, h.sent) && sqr_hb_verdict(&h, 3) == -1 && !h.down,
	      "after 2^31 and more probes unanswered: the newest's echo brings it back");
}

/* The unavoidable window: a stream of copies, one every 100 ns, held
 * 1000; the link known good at every packet sent until a failure at
 * @fail, found at @detect.  Returns the count; *@lost: the copies that
 * really expired unresent after the failure began.
 */
static u64 win_run(u64 fail, u64 detect, u64 guard, u64 *lost)
{
	struct sqr_win w = { 0 };
	u64 oldest = 0, now, good = 0;

	*lost = 0;
	for (now = 0; now < detect; now += 100) {
		if (now < fail)
			good = now;	/* a dequeue read the carrier up */
		/* expiry, as the dequeue does it: oldest first */
		for (; oldest + 1000 <= now; oldest += 100) {
			sqr_win_expire(&w, good, guard, oldest);
			*lost += oldest >= fail;
		}
	}
	return sqr_win_detect(&w, good, guard);
}

static void test_win(void)
{
	struct sqr_win w = { 0 };
	u64 n, lost;
	bool ok;

	n = win_run(50000, 50000 + 900, 5, &lost);
	CHECK(n == 0 && lost == 0, "found within hold: nothing expired in the window (%llu)",
	      (ull)n);
	n = win_run(50000, 50000 + 5000, 5, &lost);
	CHECK(lost == 40 && n == 41,
	      "found 5 hold late: 40 copies lost, counted 41 (the one sent at the last good read) (%llu, %llu)",
	      (ull)n, (ull)lost);
	n = win_run(50050, 50050 + 5000, 5, &lost);
	CHECK(lost == 40 && n == 41, "a failure between two reads: the same bound (%llu)",
	      (ull)n);
	n = win_run(50000, 50000 + 5000, 250, &lost);
	CHECK(lost == 40 && n == 43, "guard 250: the copies sent up to 250 before the last good read count too (%llu)",
	      (ull)n);
	ok = true;
	for (u64 f = 20000; f < 21000; f += 7)
		for (u64 d = f; d < f + 6000; d += 113) {
			n = win_run(f, d, 5, &lost);
			ok &= n >= lost && n <= lost + 1;
		}
	CHECK(ok, "every onset and detection: an upper bound, by at most the copy at the last good read");

	/* the heartbeat's kind: good comes late (an echo), behind the front */
	sqr_win_expire(&w, 1000, 0, 900);
	sqr_win_expire(&w, 1000, 0, 1000);
	sqr_win_expire(&w, 1000, 0, 1100);
	CHECK(w.at_risk == 2, "expired at or after good count (%llu)", (ull)w.at_risk);
	sqr_win_good(&w, 1050, 0);
	CHECK(w.at_risk == 2, "a good time older than the front: the count stays, an upper bound");
	sqr_win_good(&w, 1000, 0);
	CHECK(w.good == 1050, "good never goes back");
	sqr_win_good(&w, 1101, 0);
	CHECK(w.at_risk == 0, "a good time after the front clears the count");
	sqr_win_expire(&w, 1101, 0, 1200);
	CHECK(sqr_win_detect(&w, 1101, 0) == 1 && w.at_risk == 0,
	      "detection takes the count, the window starts over");
	w = (struct sqr_win){ 0 };
	sqr_win_expire(&w, 0, 5, 10);
	sqr_win_expire(&w, 0, 5, 20);
	CHECK(sqr_win_detect(&w, 0, 5) == 2,
	      "never known good (a heartbeat never answered): every expired copy counts");
}

int main(void)
{
	test_parse();
	test_match();
	test_ring_rules();
	test_buf();
	test_sharebackup();
	test_local_reroute();
	test_failback();
	test_fsm_walk();
	test_fault();
	test_hb();
	test_win();
	return unit_done();
}
