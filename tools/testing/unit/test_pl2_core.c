// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of PL2's host arithmetic (include/net/shoal/pl2_core.h): a
 * slot's length, the GRT's two slots and the later of them, Eq. 1 with
 * the paper's numbers, the RSV-GRT estimate (the minimum of the last
 * PL2_EST_N samples), Algorithm 2 (unsolicited only after a small and
 * recent grant; a busy port sends the burst again), the uplink's clock,
 * and times too large for 64 bits.
 */
#include <stdio.h>

#include <net/shoal/pl2_core.h>
#include "unit.h"

/* the paper's testbed: 1500-byte slots at 100 Gbit/s, K 4, t 15 */
static const struct pl2_cfg paper = {
	.k = 4, .t = 15, .slot_ns = 120, .rate_bps = 100000000000ULL,
};

static void test_slot(void)
{
	CHECK_EQ(pl2_slot_ns(1500, 100000), 120, "1500 B at 100 Gbit/s: 120 ns");
	CHECK_EQ(pl2_slot_ns(1514, 100), 121120, "1514 B at 100 Mbit/s");
	CHECK_EQ(pl2_slot_ns(1500, 1000), 12000,
		 "1500 B at 1 Gbit/s: pl2-switch's default slot");
	CHECK_EQ(pl2_slot_ns(1, 1000000), 1, "never 0 ns");
	CHECK_EQ(pl2_bytes_ns(1, 3000000000ULL), 3, "rounded up");
	CHECK_EQ(pl2_bytes_ns(1500, 0), 0, "rate 0: no time");
}

static void test_grt_word(void)
{
	/* Figure 2: the switch reports (4, 5); H1 sends at 5 */
	u32 w = 4 << 16 | 5;

	CHECK_EQ(pl2_grt_in(w), 4, "input slot from the high half");
	CHECK_EQ(pl2_grt_out(w), 5, "output slot from the low half");
	CHECK_EQ(pl2_chosen(w), 5, "Figure 2: max(4, 5) = 5");
	CHECK_EQ(pl2_chosen(9 << 16 | 2), 9, "the input port can be later");
	CHECK_EQ(pl2_chosen(0xffffffffU), 0xffff, "saturated slots");
	CHECK_EQ(pl2_chosen(0), 0, "an idle pair: at once");
}

static void test_eq1(void)
{
	/* slot 20 at 120 ns = 2400 ns; 2050 ns RSV-GRT (the paper's
	 * software median); 100 ns queued: wait 250 ns
	 */
	CHECK_EQ(pl2_wait_ns(&paper, 20, 2050, 100), 250, "Eq. 1");
	CHECK_EQ(pl2_wait_ns(&paper, 15, 2050, 0), 0,
		 "slot within the RSV-GRT time: at once");
	CHECK_EQ(pl2_wait_ns(&paper, 20, 2400, 0), 0, "exactly due: at once");
	CHECK_EQ(pl2_wait_ns(&paper, 0, 0, 0), 0, "slot 0: at once");
	CHECK_EQ(pl2_wait_ns(&paper, 0xffff, 0, 0), 0xffffULL * 120,
		 "the largest slot does not overflow");
}

static void test_est(void)
{
	struct pl2_est e = { 0 };
	u64 s[] = { 900, 500, 700, 3000, 650, 800, 820, 990 };
	unsigned int i;

	CHECK_EQ(pl2_est_min(&e), 0, "no sample: 0");
	for (i = 0; i < 8; i++)
		pl2_est_add(&e, s[i]);
	CHECK_EQ(pl2_est_min(&e), 500, "the smallest of the last 8");
	pl2_est_add(&e, 600);	/* the 900 goes */
	CHECK_EQ(pl2_est_min(&e), 500, "the 500 is still among the last 8");
	pl2_est_add(&e, 610);	/* the 500 goes */
	CHECK_EQ(pl2_est_min(&e), 600, "the 500 aged out");
	CHECK_EQ(e.n, PL2_EST_N, "at most PL2_EST_N kept");
}

static void test_alg2(void)
{
	struct pl2_cfg c = paper;
	struct pl2_peer p;
	u64 wait = 99;
	enum pl2_grt_action a;

	pl2_peer_init(&p);
	CHECK(!pl2_may_unsol(&c, &p, 1000), "no grant yet: nothing unsolicited");
	/* RSV at 0, GRT at 2000 with slots (3, 10) */
	a = pl2_on_grt(&c, &p, 2000, 0, 3 << 16 | 10, false, 0, &wait);
	CHECK_EQ(a, PL2_SEND_AT, "a solicited burst is sent in its slot");
	CHECK_EQ(wait, 0, "slot 10 = 1200 ns, within the 2000 ns exchange");
	CHECK_EQ(p.last_chosen, 10, "the chosen slot is kept");
	CHECK(pl2_may_unsol(&c, &p, 2000 + PL2_RECENT_MIN_NS),
	      "slot 10 < t 15, recent: the next burst goes unsolicited");
	CHECK(!pl2_may_unsol(&c, &p, 2001 + PL2_RECENT_MIN_NS),
	      "too old: wait for the GRT");
	c.t = 0;
	CHECK(!pl2_may_unsol(&c, &p, 2000), "t 0: never unsolicited");
	c.t = 10;
	CHECK(!pl2_may_unsol(&c, &p, 2000), "slot 10 is not below t 10");
	c.t = 15;
	/* an unsolicited burst into a port that turned busy (slot 40) */
	a = pl2_on_grt(&c, &p, 10000, 8000, 40, true, 0, &wait);
	CHECK_EQ(a, PL2_UNSOL_RESEND, "Algorithm 2: chosen 40 > t, send again");
	CHECK_EQ(wait, 40 * 120 - 2000,
		 "again in its slot, by the estimate (min 2000 ns)");
	CHECK(!pl2_may_unsol(&c, &p, 10000), "a busy port: no more ahead");
	a = pl2_on_grt(&c, &p, 20000, 19000, 15, true, 0, &wait);
	CHECK_EQ(a, PL2_UNSOL_DONE, "chosen 15 = t: the copy was right");
	CHECK_EQ(wait, 0, "nothing to wait for");
	CHECK_EQ(pl2_est_min(&p.est), 1000, "the estimate took the 1000 ns");
	/* a GRT stamped before its RSV (a clock step): no sample */
	a = pl2_on_grt(&c, &p, 100, 200, 0, false, 0, &wait);
	CHECK_EQ(p.est.n, 3, "no sample from a negative delay");
}

static void test_pending(void)
{
	struct pl2_peer p;
	u64 wait;

	/* GRT at 500 ns, RSV-GRT 500 ns, slot 50 x 120 ns: the burst should
	 * leave the host at 6000 - 500 = 5500 ns from now
	 */
	pl2_peer_init(&p);
	pl2_on_grt(&paper, &p, 500, 0, 50, false, 1500, &wait);
	CHECK_EQ(wait, 50 * 120 - 500,
		 "the uplink busy 1000 ns more: drained before the burst goes");
	pl2_peer_init(&p);
	pl2_on_grt(&paper, &p, 500, 0, 50, false, 500 + 5500 + 1000, &wait);
	CHECK_EQ(wait, 50 * 120 - 500 - 1000,
		 "busy 1000 ns past the burst's time: handed over that early");
	pl2_peer_init(&p);
	pl2_on_grt(&paper, &p, 500, 0, 50, false, 500 + 9000, &wait);
	CHECK_EQ(wait, 50 * 120 - 500 - 3500,
		 "busy 3500 ns past it: the wait shrinks by as much");
}

static void test_uplink(void)
{
	u64 free_ns = 0, held;

	/* 1250 bytes at 1 Gbit/s: 10 us each (CHECK_EQ evaluates twice) */
	held = pl2_uplink_add(&free_ns, 1000, 1250, 1000000000ULL);
	CHECK_EQ(held, 0, "an idle uplink holds nothing");
	CHECK_EQ(free_ns, 11000, "busy until 11 us");
	CHECK_EQ(pl2_uplink_pending(free_ns, 5000), 6000, "6 us still held");
	held = pl2_uplink_add(&free_ns, 5000, 1250, 1000000000ULL);
	CHECK_EQ(held, 6000, "the next one waits behind 6 us");
	CHECK_EQ(free_ns, 21000, "then busy until 21 us");
	CHECK_EQ(pl2_uplink_pending(free_ns, 30000), 0, "drained");
}

/* Found by fuzz_pl2_core: products and sums of times wrapped, turning
 * long waits and windows into short ones; now they saturate
 */
static void test_saturation(void)
{
	struct pl2_cfg c = paper;
	struct pl2_peer p;
	u64 free_ns = PL2_NS_MAX - 5, held;

	CHECK_EQ(pl2_bytes_ns(1500, PL2_NS_MAX), 1,
		 "a rate near 2^64: still rounded up, not wrapped to 0");
	CHECK(pl2_bytes_ns(1ULL << 40, 1) == PL2_NS_MAX,
	      "2^40 bytes at 1 bit/s saturates");
	CHECK_EQ(pl2_bytes_ns(1ULL << 31, 8000000000000ULL), 2147484,
		 "exact up to 2^31 bytes");
	CHECK(pl2_slot_ns(0xffffffffU, 1) == PL2_NS_MAX,
	      "a 4 GB slot at 1 Mbit/s saturates");
	c.slot_ns = 1ULL << 60;
	CHECK(pl2_wait_ns(&c, 0xffff, 0, 0) == PL2_NS_MAX,
	      "Eq. 1: 65535 huge slots saturate, not wrap short");
	CHECK_EQ(pl2_wait_ns(&paper, 100, PL2_NS_MAX, 10), 0,
		 "Eq. 1: a huge delay plus pending is not a small one");
	pl2_peer_init(&p);
	pl2_est_add(&p.est, 1ULL << 63);
	CHECK(pl2_recent_ns(&p) == PL2_NS_MAX,
	      "twice a huge estimate saturates");
	held = pl2_uplink_add(&free_ns, 0, 1250, 1000000000ULL);
	CHECK(held == PL2_NS_MAX - 5 && free_ns == PL2_NS_MAX,
	      "the uplink's clock saturates, never goes back");
}

int main(void)
{
	test_slot();
	test_grt_word();
	test_eq1();
	test_est();
	test_alg2();
	test_pending();
	test_uplink();
	test_saturation();
	return unit_done();
}
