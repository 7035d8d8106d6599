// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PL2 switch logic (tools/pl2-switch/pl2_switch_core.h),
 * the code the tc-BPF program runs: parsing, Algorithm 1's counters with
 * the paper's Figure 2 example, the saturating decrement, the unsolicited
 * drop past T, the pairwise and joint clocks, the packets of other
 * transports counted as DATA (--any-transport), and the configuration
 * check.
 * Single-threaded: the atomics are exercised for their arithmetic only.
 */
#include <stddef.h>
#include <string.h>

#include "pl2_switch_core.h"
#include "unit.h"

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static void hdr(u8 *h, u32 type, u32 flags, u32 word)
{
	memset(h, 0, SHOAL_HDR_LEN);
	h[0] = (u8)(SHOAL_VERSION << 4 | type);
	h[1] = (u8)flags;
	h[6] = SHOAL_HDR_LEN;
	put32(h + 16, 10000);
	put32(h + 28, word);
}

static void test_classify(void)
{
	struct pl2_pkt p;
	u8 h[SHOAL_HDR_LEN];

	hdr(h, SHOAL_T_RSV, 0, 3);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_RSV && p.demand == 3, "RSV of demand 3");
	hdr(h, SHOAL_T_RSV, 0, 9);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_RSV && p.demand == 4, "demand 9 capped at kmax 4");
	hdr(h, SHOAL_T_RSV, 0, 0);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "RSV of demand 0 is malformed");
	hdr(h, SHOAL_T_RSV, 0, 7 << 16 | 2);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_RSV && p.demand == 2 && p.word == (7 << 16 | 2),
	      "an RSV carrying slot 7: demand 2 (%u), its word kept", p.demand);
	hdr(h, SHOAL_T_RSV, 0, 7 << 16);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "a carried slot and demand 0 is malformed");
	hdr(h, SHOAL_T_RSV, SHOAL_F_BOUNCED, 2);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "a bounced RSV is malformed (no second bounce)");
	hdr(h, SHOAL_T_DATA, SHOAL_F_SCHED, 0);
	pl2_classify(h, 1432, 4, &p);
	CHECK(p.kind == PL2_DATA && !p.unsol, "DATA with SCHED is solicited");
	hdr(h, SHOAL_T_DATA, 0, 0);
	pl2_classify(h, 1432, 4, &p);
	CHECK(p.kind == PL2_DATA && p.unsol, "DATA without SCHED is unsolicited");
	hdr(h, SHOAL_T_GRT, SHOAL_F_BOUNCED, 0x10002);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_OTHER, "a GRT passes as other");
	hdr(h, SHOAL_T_ACK, 0, 0);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_OTHER, "an ACK passes as other");
	hdr(h, SHOAL_T_DATA, 0, 0);
	pl2_classify(h, 31, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "31 bytes are malformed");
	h[0] = 2 << 4 | SHOAL_T_DATA;
	pl2_classify(h, 1432, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "version 2 is malformed");
	hdr(h, 0, 0, 0);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "type 0 is malformed");
	hdr(h, 15, 0, 0);
	pl2_classify(h, 32, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "type 15 is malformed");
	hdr(h, SHOAL_T_DATA, 0, 0);
	h[6] = 20;
	pl2_classify(h, 1432, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "hdr_len 20 is malformed");
	h[6] = 40;
	pl2_classify(h, 36, 4, &p);
	CHECK(p.kind == PL2_MALFORMED, "hdr_len past the payload is malformed");
}

static void test_word(void)
{
	CHECK_EQ(pl2_grt_word(4, 5), 0x40005, "word of (4, 5)");
	CHECK_EQ(pl2_grt_word(70000, 1), 0xffff0001, "input slot saturates at 65535");
	CHECK_EQ(pl2_grt_word(2, 1ULL << 40), 0x2ffff, "output slot saturates at 65535");
}

/* An RSV passed on by the sender's leaf, then answered by the receiver's */
static void test_carry(void)
{
	CHECK_EQ(pl2_rsv_carry(3, 0x40009), 9 << 16 | 3,
		 "passed on: the later slot (9) carried, demand 3 kept");
	CHECK_EQ(pl2_rsv_carry(12 << 16 | 3, 0x40009), 12 << 16 | 3,
		 "a later carried slot stays");
	CHECK_EQ(pl2_rsv_carry(0xffff, 0), 0xffff, "slots 0: nothing carried, demand 65535 kept");
	CHECK_EQ(pl2_grt_carried(0x20005, 9 << 16 | 3), 0x90005,
		 "answered: input slot 2 raised to the carried 9, output 5 kept");
	CHECK_EQ(pl2_grt_carried(0xa0005, 9 << 16 | 3), 0xa0005,
		 "an input slot after the carried one stays");
	CHECK_EQ(pl2_grt_carried(0x20005, 3), 0x20005, "nothing carried: the GRT as reserved");
	CHECK_EQ(pl2_grt_later(0x40009), 9, "the later of (4, 9)");
}

/* An uplink reserves nothing: each function acts on the other port alone */
static void test_one_side(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 6, 1000, 0, 1, 0 };
	struct pl2_port p;
	u32 w, cl;

	memset(&p, 0, sizeof(p));
	p.in_res = 4;
	w = pl2_counter_rsv(&c, &p, NULL, 3, 0);
	CHECK(w == 0x40000 && p.in_res == 7, "counter, no output: (4, 0), in %d", p.in_res);
	w = pl2_counter_rsv(&c, NULL, &p, 2, 0);
	CHECK(w == 0x00000 && p.out_res == 2, "counter, no input: (0, 0), out %d", p.out_res);
	CHECK(!pl2_data(&c, &p, NULL, false, 0, &cl) && p.in_res == 6 && !cl &&
	      p.out_drain == 0, "DATA to an uplink: in %d, no drain", p.in_res);
	CHECK(!pl2_data(&c, NULL, &p, false, 0, &cl) && p.out_res == 1 && !cl &&
	      p.out_drain == 1000, "DATA from an uplink: out %d, drain %llu",
	      p.out_res, (unsigned long long)p.out_drain);
	p.in_res = 10;
	CHECK(pl2_data(&c, &p, NULL, true, 0, &cl), "unsolicited, backlog 10 of the input alone > T 6");
	c.mode = PL2_MODE_CLOCK;
	memset(&p, 0, sizeof(p));
	w = pl2_clock_rsv(&c, &p, NULL, 4, 5000);
	CHECK(w == 0 && p.in_next == 9000 && !p.out_next, "clock, no output: in_next %llu",
	      (unsigned long long)p.in_next);
	w = pl2_clock_rsv(&c, &p, NULL, 2, 5000);
	CHECK_EQ(w, 0x40000, "clock, no output, second: (4, 0)");
	c.mode = PL2_MODE_JOINT;
	memset(&p, 0, sizeof(p));
	p.out_next = 8000;
	w = pl2_joint_rsv(&c, NULL, &p, 1, 5000);
	CHECK(w == 0x30003 && p.out_next == 9000 && !p.in_next,
	      "joint, no input: (3, 3), out_next %llu", (unsigned long long)p.out_next);
	c.mode = PL2_MODE_COUNTER;
	c.expire_ns = 100;
	memset(&p, 0, sizeof(p));
	p.in_res = 2;
	CHECK(pl2_lease(&c, &p, NULL, 0, 1000) == 2 && !p.in_res,
	      "a lease with no output forgets the input's overdue 2");
	CHECK(pl2_lease(&c, NULL, NULL, 4, 1000) == 0, "no port at all: nothing");
}

/* Figure 2: H1 -> H2, in[H1] = 4 and out[H2] = 5 before: GRT (4, 5) */
static void test_counter(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 6, 0, 0, 0, 0 };
	struct pl2_port p[3];
	u32 w, cl, i;
	bool drop;

	memset(p, 0, sizeof(p));
	p[0].in_res = 4;
	p[1].out_res = 5;
	w = pl2_counter_rsv(&c, &p[0], &p[1], 4, 0);
	CHECK_EQ(w, 0x40005, "Figure 2: GRT (4, 5)");
	CHECK(p[0].in_res == 8 && p[1].out_res == 9,
	      "demand added to both (in %d, out %d)", p[0].in_res, p[1].out_res);
	CHECK(p[0].out_res == 0 && p[1].in_res == 0,
	      "the other direction untouched");
	w = pl2_counter_rsv(&c, &p[2], &p[1], 2, 0);
	CHECK_EQ(w, 0x00009, "an idle sender to the busy port: (0, 9)");
	CHECK_EQ(p[1].out_res, 11, "output port counter");
	/* hairpin: one port both input and output */
	w = pl2_counter_rsv(&c, &p[2], &p[2], 1, 0);
	CHECK_EQ(w, 0x20000, "one port as input and output: (2, 0)");
	p[2].in_res = 2;
	p[2].out_res = 0;

	/* data counts off both, never below 0 */
	for (i = 0; i < 8; i++) {
		drop = pl2_data(&c, &p[0], &p[1], false, 0, &cl);
		CHECK(!drop && cl == 0, "DATA %u from 0 to 1 passes", i);
	}
	CHECK(p[0].in_res == 0 && p[1].out_res == 3,
	      "after 8 DATA: in %d out %d", p[0].in_res, p[1].out_res);
	drop = pl2_data(&c, &p[0], &p[1], false, 0, &cl);
	CHECK(!drop && cl == 1 && p[0].in_res == 0 && p[1].out_res == 2,
	      "a 9th DATA clamps the input at 0 (clamps %u)", cl);
	p[1].out_res = 0;
	drop = pl2_data(&c, &p[0], &p[1], false, 0, &cl);
	CHECK(!drop && cl == 2 && p[0].in_res == 0 && p[1].out_res == 0,
	      "both at 0: two clamps, both stay 0");

	/* unsolicited past T = 6 */
	p[1].out_res = 7;
	drop = pl2_data(&c, &p[0], &p[1], true, 0, &cl);
	CHECK(drop && p[1].out_res == 7,
	      "unsolicited DATA at backlog 7 > T 6 dropped, counting nothing off");
	drop = pl2_data(&c, &p[0], &p[1], false, 0, &cl);
	CHECK(!drop && p[1].out_res == 6, "solicited DATA passes at any backlog");
	drop = pl2_data(&c, &p[0], &p[1], true, 0, &cl);
	CHECK(!drop && p[1].out_res == 5, "unsolicited DATA at backlog 6 (not > T) passes");
	p[0].in_res = 9;
	drop = pl2_data(&c, &p[0], &p[1], true, 0, &cl);
	CHECK(drop, "the input port's backlog counts too");
	c.t_unsol = 0;
	drop = pl2_data(&c, &p[0], &p[1], true, 0, &cl);
	CHECK(!drop, "T = 0: never dropped");
	CHECK_EQ(pl2_slot_of(-1), 0, "a transiently negative counter reads as slot 0");
}

static void test_clock(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_CLOCK, 4, 6, 1000, 0, 0, 0 };
	struct pl2_port p[3];
	u32 w, cl;
	u64 now = 1000000;

	memset(p, 0, sizeof(p));
	w = pl2_clock_rsv(&c, &p[0], &p[1], 4, now);
	CHECK_EQ(w, 0, "clock: idle ports, slots (0, 0)");
	CHECK(p[0].in_next == now + 4000 && p[1].out_next == now + 4000,
	      "clock: both busy for 4 slots");
	w = pl2_clock_rsv(&c, &p[2], &p[1], 2, now + 1000);
	CHECK_EQ(w, 3, "clock: 1 slot later the output has 3 slots ahead: (0, 3)");
	CHECK_EQ(p[1].out_next, now + 6000, "clock: output busy until +6 slots");
	CHECK_EQ(pl2_backlog(&c, &p[2], &p[1], now + 2000), 4,
		 "clock: backlog of the pair at +2 slots is 4");
	CHECK(!pl2_data(&c, &p[2], &p[1], true, now + 1000, &cl),
	      "clock: unsolicited DATA passes at backlog 5, T = 6");
	c.t_unsol = 4;
	CHECK(pl2_data(&c, &p[2], &p[1], true, now + 1000, &cl),
	      "clock: unsolicited DATA dropped at backlog 5 > T = 4");
	CHECK(!pl2_data(&c, &p[2], &p[1], false, now + 1000, &cl) &&
	      p[1].out_next == now + 6000,
	      "clock: DATA does not move the clocks");
	/* a lost packet or dead sender costs nothing once the time passed */
	w = pl2_clock_rsv(&c, &p[0], &p[1], 1, now + 10000);
	CHECK_EQ(w, 0, "clock: after the reservations' time, slots (0, 0): self-healing");
	CHECK_EQ(pl2_backlog(&c, &p[0], &p[1], now + 20000), 0, "clock: idle backlog 0");
	CHECK_EQ(pl2_clock_take(&p[0].in_next, now + 10500, 500), now + 11000,
		 "clock: a take starts at the port's clock when it is ahead");
}

static void test_joint(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_JOINT, 4, 0, 1000, 0, 0, 0 };
	struct pl2_port p[4];
	u32 w;

	memset(p, 0, sizeof(p));
	w = pl2_joint_rsv(&c, &p[0], &p[1], 4, 0);
	CHECK_EQ(w, 0, "joint: idle, (0, 0)");
	w = pl2_joint_rsv(&c, &p[2], &p[1], 2, 0);
	CHECK_EQ(w, pl2_grt_word(4, 4), "joint: the idle input gets the busy output's start");
	CHECK(p[2].in_next == 6000 && p[1].out_next == 6000,
	      "joint: both ports busy until the same time");
	w = pl2_joint_rsv(&c, &p[2], &p[3], 1, 1000);
	CHECK_EQ(w, pl2_grt_word(5, 5), "joint: a busy input delays an idle output (5, 5)");
	/* the pairwise clock would have given (0, 4): the collision-free
	 * ideal never schedules two bursts onto one port at once
	 */
}

/* counter mode's lease: overdue counts are forgotten, others kept */
static void test_lease(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 0, 1000, 5000, 0, 0 };
	struct pl2_port p[3];
	u32 w, cl, n;

	memset(p, 0, sizeof(p));
	n = pl2_lease(&c, &p[0], &p[1], 4, 0);
	CHECK_EQ(n, 0, "lease: nothing to forget");
	w = pl2_counter_rsv(&c, &p[0], &p[1], 4, 0);
	CHECK(w == 0 && p[0].in_next == 4000 && p[1].out_next == 4000,
	      "lease: the RSV's 4 packets are due by 4 slots");
	n = pl2_lease(&c, &p[2], &p[1], 2, 1000);
	CHECK_EQ(n, 0, "lease: not overdue at 1 slot");
	w = pl2_counter_rsv(&c, &p[2], &p[1], 2, 0);
	CHECK(w == 4 && p[1].out_next == 6000,
	      "lease: the slots stay the counters' (0, 4); the output due by 6 slots");
	n = pl2_lease(&c, &p[0], &p[1], 0, 9000);
	CHECK_EQ(n, 0, "lease: not overdue at due + expire");
	n = pl2_lease(&c, &p[0], &p[1], 0, 11000);
	CHECK_EQ(n, 4, "lease: the input's 4 forgotten after its due + expire");
	CHECK_EQ(p[1].out_res, 6, "lease: the output's 6 are due 2 slots later");
	n = pl2_lease(&c, &p[0], &p[1], 0, 11001);
	CHECK_EQ(n, 6, "lease: then they are forgotten too");
	CHECK(p[0].in_res == 0 && p[1].out_res == 0 && p[2].in_res == 2,
	      "lease: those counters are 0, the other input keeps its 2");
	CHECK(!pl2_data(&c, &p[0], &p[1], false, 11001, &cl) && cl == 2,
	      "lease: a late DATA then clamps");
	c.expire_ns = 0;
	p[0].in_res = 3;
	n = pl2_lease(&c, &p[0], &p[1], 1, 1000000);
	CHECK_EQ(n, 0, "lease off: nothing forgotten");
	CHECK_EQ(p[0].in_res, 3, "lease off: the count stays");
	c.mode = PL2_MODE_CLOCK;
	c.expire_ns = 5000;
	n = pl2_lease(&c, &p[0], &p[1], 1, 1000000);
	CHECK_EQ(n, 0, "lease: counter mode only");
}

/* the lease's sweep: a port's overdue counts go with no packet passing */
static void test_sweep(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 0, 1000, 8000000, 0, 0 };
	struct pl2_port p[2];

	CHECK_EQ(pl2_sweep_ns(&c), 2000000, "sweep: every lease / 4");
	c.expire_ns = 4000;
	CHECK_EQ(pl2_sweep_ns(&c), PL2_SWEEP_NS_MIN, "sweep: at most every 100 us");
	memset(p, 0, sizeof(p));
	pl2_lease(&c, &p[0], &p[1], 4, 0);
	pl2_counter_rsv(&c, &p[0], &p[1], 4, 0);
	CHECK_EQ(pl2_sweep_port(&c, &p[0], 8000), 0, "sweep: not overdue at due + expire");
	CHECK_EQ(pl2_sweep_port(&c, &p[0], 8001), 4, "sweep: the input's 4 forgotten");
	CHECK(p[0].in_res == 0 && p[1].out_res == 4,
	      "sweep: only the port swept changes");
	CHECK_EQ(pl2_sweep_port(&c, &p[1], 8001), 4, "sweep: the output's 4 forgotten");
	CHECK_EQ(pl2_sweep_port(&c, &p[1], 9000), 0, "sweep: nothing twice");
	c.mode = PL2_MODE_CLOCK;
	p[0].in_res = 3;
	CHECK(pl2_sweep_ns(&c) == 0 && pl2_sweep_port(&c, &p[0], 100000) == 0 &&
	      p[0].in_res == 3, "sweep: counter mode only");
	c.mode = PL2_MODE_COUNTER;
	c.expire_ns = 0;
	CHECK(pl2_sweep_ns(&c) == 0 && pl2_sweep_port(&c, &p[0], 100000) == 0,
	      "sweep: none without a lease");
}

static void test_cfg(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 60, 0, 0, 0, 0 };

	CHECK(!pl2_cfg_check(&c), "counter mode needs no slot");
	c.expire_ns = 1000;
	CHECK(pl2_cfg_check(&c), "counter mode with a lease needs a slot");
	c.expire_ns = 0;
	c.mode = PL2_MODE_CLOCK;
	CHECK(pl2_cfg_check(&c), "clock mode needs a slot");
	c.slot_ns = 12000;
	CHECK(!pl2_cfg_check(&c), "clock mode with 12 us slots");
	c.mode = PL2_MODE_NR;
	CHECK(pl2_cfg_check(&c), "unknown mode refused");
	c.mode = PL2_MODE_COUNTER;
	c.kmax = 0;
	CHECK(pl2_cfg_check(&c), "kmax 0 refused");
	c.kmax = 4;
	c.udp_port = 70000;
	CHECK(pl2_cfg_check(&c), "port 70000 refused");
}

/* With queue (beyond the paper): a burst that arrived all at once, its
 * count taken off, still waits in the output's queue; the next grant
 * counts it, in every mode, and the queue drains with time
 */
static void test_queue(void)
{
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 0, 1000, 0, 1, 0 };
	struct pl2_port p[3];
	u32 w, cl, i;

	memset(p, 0, sizeof(p));
	w = pl2_counter_rsv(&c, &p[0], &p[1], 4, 10000);
	CHECK_EQ(w, 0, "counter: an idle pair, (0, 0)");
	for (i = 0; i < 4; i++)
		pl2_data(&c, &p[0], &p[1], false, 10000, &cl);
	CHECK(p[1].out_res == 0 && p[1].out_drain == 14000,
	      "the burst arrived at once: counted off, queued until 14 us (%llu)",
	      (unsigned long long)p[1].out_drain);
	w = pl2_counter_rsv(&c, &p[2], &p[1], 4, 10000);
	CHECK_EQ(w, 4, "counter: the next grant waits for the 4 queued (0, 4)");
	w = pl2_counter_rsv(&c, &p[2], &p[1], 1, 12500);
	CHECK_EQ(w, 4 << 16 | 5,
		 "2.5 us later: 4 reserved + 1 queued slot left (4, 5)");
	c.queue = 0;
	w = pl2_counter_rsv(&c, &p[0], &p[1], 1, 12500);
	CHECK_EQ(w, 5, "queue off: the paper's counters alone (0, 5)");

	c = (struct pl2_cfg){ 4797, PL2_MODE_CLOCK, 4, 0, 1000, 0, 1, 0 };
	memset(p, 0, sizeof(p));
	for (i = 0; i < 6; i++)		/* 6 packets nobody reserved */
		pl2_data(&c, &p[0], &p[1], false, 20000, &cl);
	w = pl2_clock_rsv(&c, &p[2], &p[1], 4, 20000);
	CHECK_EQ(w, 6, "clock: the reservation starts when the queue drains (0, 6)");
	CHECK_EQ(p[1].out_next, 30000, "and holds the port 4 slots after that");
	w = pl2_clock_rsv(&c, &p[2], &p[1], 4, 40000);
	CHECK_EQ(w, 0, "drained and idle 10 us later: (0, 0)");

	c = (struct pl2_cfg){ 4797, PL2_MODE_JOINT, 4, 0, 1000, 0, 1, 0 };
	memset(p, 0, sizeof(p));
	pl2_data(&c, &p[0], &p[1], false, 5000, &cl);
	pl2_data(&c, &p[0], &p[1], false, 5000, &cl);
	w = pl2_joint_rsv(&c, &p[2], &p[1], 1, 5000);
	CHECK_EQ(w, 2 << 16 | 2, "joint: both ports start after the queue (2, 2)");
	CHECK(pl2_cfg_check(&c) == NULL, "queue on with a slot: valid");
	c.queue = 2;
	CHECK(pl2_cfg_check(&c) != NULL, "queue 2: refused");
	c = (struct pl2_cfg){ 4797, PL2_MODE_COUNTER, 4, 0, 0, 0, 1, 0 };
	CHECK(pl2_cfg_check(&c) != NULL, "queue on needs a slot length");
}

/* the map values' layout: any reuses cfg's pad, foreign is appended */
_Static_assert(sizeof(struct pl2_cfg) == 40 &&
	       offsetof(struct pl2_cfg, queue) == 32 &&
	       offsetof(struct pl2_cfg, any) == 36, "pl2_cfg's layout");
_Static_assert(offsetof(struct pl2_stats, transit) == 10 * 8 &&
	       offsetof(struct pl2_stats, foreign) == 11 * 8 &&
	       sizeof(struct pl2_stats) == 12 * 8, "pl2_stats' layout");

/*
 * --any-transport: every unicast IP packet but Shoal's (what sch_pl2
 * reserves for) is scheduled DATA; a burst of them after an RSV brings
 * the counters back to 0
 */
static void test_foreign(void)
{
	static const u8 a4[][4] = {
		{ 10, 0, 0, 1 }, { 224, 0, 0, 1 }, { 239, 255, 255, 250 },
		{ 255, 255, 255, 255 }, { 0, 1, 2, 3 }, { 240, 0, 0, 1 },
		{ 255, 255, 255, 254 }, { 223, 255, 255, 255 },
	};
	static const bool u4[] = { true, false, false, false, false, true, true, true };
	u8 a6[16] = { 0xfd, 0 };
	struct pl2_cfg c = { 4797, PL2_MODE_COUNTER, 4, 6, 1000, 0, 1, 0 };
	struct pl2_port p[2];
	struct pl2_pkt k;
	u32 w, cl, i, n;

	for (i = 0; i < sizeof(u4) / sizeof(u4[0]); i++)
		CHECK(pl2_unicast4(a4[i]) == u4[i], "%u.%u.%u.%u is %sunicast",
		      a4[i][0], a4[i][1], a4[i][2], a4[i][3], u4[i] ? "" : "not ");
	CHECK(pl2_unicast6(a6), "fd00:: is unicast");
	a6[0] = 0xff;
	CHECK(!pl2_unicast6(a6), "ff00::/8 is not");

	k.kind = PL2_OTHER;
	CHECK(!pl2_foreign(&c, PL2_IP_TCP, false, true, 0, 0, &k) && k.kind == PL2_OTHER,
	      "without any: TCP is other traffic, *p untouched");
	CHECK(!pl2_foreign(&c, PL2_IP_UDP, false, true, 9, 0, &k) &&
	      !pl2_foreign(&c, PL2_IP_ICMP, false, true, 0, 0, &k) &&
	      !pl2_foreign(&c, PL2_IP_UDP, true, true, 0, 0, &k),
	      "without any: UDP to port 9, ICMP, a fragment are other");
	c.any = 1;
	CHECK(pl2_foreign(&c, PL2_IP_TCP, false, true, 0, 0, &k) && k.kind == PL2_DATA &&
	      !k.unsol && k.segs == 1 && !k.demand && !k.word,
	      "any: TCP is scheduled DATA of 1 packet");
	CHECK(pl2_foreign(&c, PL2_IP_TCP, false, true, 4797, 0, &k) && k.kind == PL2_DATA,
	      "any: TCP to port 4797 too (Shoal is UDP)");
	CHECK(pl2_foreign(&c, PL2_IP_UDP, false, true, 9, 1, &k) && k.kind == PL2_DATA && k.segs == 1,
	      "any: UDP to port 9 is scheduled DATA");
	k.kind = PL2_OTHER;
	CHECK(!pl2_foreign(&c, PL2_IP_UDP, false, true, 4797, 0, &k) && k.kind == PL2_OTHER,
	      "any: UDP to the Shoal port is Shoal's (pl2_classify), not foreign");
	CHECK(pl2_foreign(&c, PL2_IP_UDP, true, true, 4797, 0, &k) &&
	      pl2_foreign(&c, PL2_IP_UDP, true, true, 0, 0, &k),
	      "any: an IPv4 fragment is foreign, even one of a datagram to the Shoal port (sch_pl2 reserves it)");
	c.udp_port = 5000;
	CHECK(!pl2_foreign(&c, PL2_IP_UDP, false, true, 5000, 0, &k) &&
	      pl2_foreign(&c, PL2_IP_UDP, false, true, 4797, 0, &k),
	      "any: the Shoal port is the configured one");
	c.udp_port = 4797;
	CHECK(pl2_foreign(&c, PL2_IP_ICMP, false, true, 0, 0, &k) &&
	      pl2_foreign(&c, 58, false, true, 0, 0, &k) &&
	      pl2_foreign(&c, 132, false, true, 0, 0, &k) &&
	      pl2_foreign(&c, 44, false, true, 0, 0, &k),
	      "any: ICMP, ICMPv6, SCTP, an IPv6 fragment header are foreign");
	CHECK(!pl2_foreign(&c, PL2_IP_TCP, false, false, 0, 0, &k) &&
	      !pl2_foreign(&c, PL2_IP_UDP, false, false, 9, 0, &k),
	      "any: nothing to a multicast or broadcast destination (sch_pl2 passes it)");
	CHECK(pl2_foreign(&c, PL2_IP_TCP, false, true, 80, 44, &k) && k.segs == 44,
	      "any: a TCP GSO packet of 44 segments is 44 packets");

	/* the scenario's: RSV 4, then 4 UDP packets to port 9 */
	memset(p, 0, sizeof(p));
	w = pl2_counter_rsv(&c, &p[0], &p[1], 4, 10000);
	CHECK_EQ(w, 0, "an RSV for 4: (0, 0)");
	for (i = 0, n = 0; i < 4; i++) {
		pl2_foreign(&c, PL2_IP_UDP, false, true, 9, 0, &k);
		n += !pl2_data_n(&c, &p[0], &p[1], k.unsol, k.segs, 10000, &cl) && !cl;
	}
	CHECK(n == 4 && p[0].in_res == 0 && p[1].out_res == 0 && p[1].out_drain == 14000,
	      "4 UDP packets to port 9 pass, counters back to 0 (%d, %d), queued 4 slots (%llu)",
	      p[0].in_res, p[1].out_res, (unsigned long long)p[1].out_drain);
	/* never unsolicited: passes at any backlog */
	p[1].out_res = 50;
	CHECK(!pl2_data_n(&c, &p[0], &p[1], k.unsol, k.segs, 10000, &cl) &&
	      p[1].out_res == 49 && cl == 1,
	      "backlog 50 > T 6: a foreign packet still passes (out %d, the input clamped)",
	      p[1].out_res);

	/* a GSO packet counts off its segments, clamping what found 0 */
	memset(p, 0, sizeof(p));
	p[0].in_res = 10;
	p[1].out_res = 3;
	CHECK(!pl2_data_n(&c, &p[0], &p[1], false, 5, 0, &cl) && cl == 2 &&
	      p[0].in_res == 5 && p[1].out_res == 0 && p[1].out_drain == 5000,
	      "5 segments: in 10 -> %d, out 3 -> %d, 2 clamped (%u), queue 5 slots (%llu)",
	      p[0].in_res, p[1].out_res, cl, (unsigned long long)p[1].out_drain);
	p[0].in_res = -1;	/* a racing clamp not yet undone */
	CHECK(pl2_sub_sat(&p[0].in_res, 3) == 3 && p[0].in_res == -1,
	      "a negative count (a racing undo) takes nothing, all 3 clamp");
	p[0].in_res = 7;
	CHECK(pl2_sub_sat(&p[0].in_res, 1) == 0 && p[0].in_res == 6 &&
	      pl2_sub_sat(&p[0].in_res, 6) == 0 && p[0].in_res == 0 &&
	      pl2_sub_sat(&p[0].in_res, 1) == 1 && p[0].in_res == 0,
	      "subtract 1, 6 (to 0), then 1 more clamps");
	c.any = 2;
	CHECK(pl2_cfg_check(&c) != NULL, "any 2: refused");
	c.any = 1;
	CHECK(pl2_cfg_check(&c) == NULL, "any 1: valid");
}

int main(void)
{
	test_classify();
	test_carry();
	test_one_side();
	test_word();
	test_counter();
	test_clock();
	test_joint();
	test_lease();
	test_sweep();
	test_queue();
	test_foreign();
	test_cfg();
	return unit_done();
}
