// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of SIRD's arithmetic (sird_core.h) with the paper's defaults
 * (BDP 100 KB, B 1.5 BDP, UnschT 1 BDP, SThr 0.5 BDP): the unscheduled
 * prefix at its edges, the AIMD loops (alpha settles at the marked
 * fraction, a marked window cuts by alpha / 2, growth of an MSS per
 * bucket, the BDP ceiling and the floor, the smaller loop wins, SThr off),
 * SRPT among the candidates with room, B never passed, credit returned
 * without going below zero, pacing at the link rate, the byte clock that
 * says when granted data is due, the measured round trip, the receiver's
 * round robin over hosts, the csn bit and the
 * sender's split between fair share and SRPT.
 */
#include <stdio.h>

#include "sird_core.h"
#include "unit.h"

#define BDP	100000U
#define MSS	1400U

static const struct sird_cfg cfg = {
	.mss = MSS, .bdp = BDP, .b = BDP * 3 / 2, .unsch_thresh = BDP,
	.sthr = BDP / 2, .min_bkt = MSS, .g_shift = 4, .rtt_ns = 10000,
	.rate_bps = 1000000000ULL, .overhead = 60, .fair_permille = 500,
};

static void test_unsched(void)
{
	struct sird_cfg c = cfg;

	CHECK_EQ(sird_unsched(&c, 1), 1, "1 byte: all unscheduled");
	CHECK_EQ(sird_unsched(&c, BDP - 1), BDP - 1, "UnschT - 1: all of it");
	CHECK_EQ(sird_unsched(&c, BDP), BDP, "UnschT: all of it (<=)");
	CHECK_EQ(sird_unsched(&c, BDP + 1), 0, "UnschT + 1: all scheduled");
	c.unsch_thresh = 2 * BDP;
	CHECK_EQ(sird_unsched(&c, BDP * 3 / 2), BDP,
		 "UnschT 2 BDP, 1.5 BDP message: the first BDP unscheduled");
}

/* The allowance: unscheduled bytes out to one receiver host stay within a
 * BDP; a message past it sends what is left and asks credit for the rest
 */
static void test_unsched_allowed(void)
{
	struct sird_cfg c = cfg;

	CHECK_EQ(sird_unsched_allowed(&c, 60000, 0), 60000,
		 "nothing out: the whole prefix");
	CHECK_EQ(sird_unsched_allowed(&c, 60000, 60000), BDP - 60000,
		 "60 KB out: what is left of the BDP");
	CHECK_EQ(sird_unsched_allowed(&c, 60000, BDP), 0,
		 "a BDP out: all scheduled");
	CHECK_EQ(sird_unsched_allowed(&c, 60000, 5ULL * BDP), 0,
		 "more than a BDP out (the BDP was lowered): none");
	CHECK_EQ(sird_unsched_allowed(&c, BDP + 1, 0), 0,
		 "past UnschT: all scheduled, as before");
	CHECK_EQ(sird_unsched_allowed(&c, 8, BDP - 8), 8,
		 "8 bytes into the last 8: unscheduled");
	c.unsch_thresh = 0;
	CHECK_EQ(sird_unsched_allowed(&c, 1, 0), 0, "UnschT 0: none");
}

/* Sizes from the link: rate x RTT within [4 MSS, 64 KB], the paper's
 * ratios; no rate: the old defaults
 */
static void test_link_sizes(void)
{
	struct sird_sizes z;

	z = sird_link_sizes(0, 5000, MSS);
	CHECK_EQ(z.bdp, 65536, "no rate: 64 KB");
	CHECK_EQ(z.b, 98304, "no rate: B 96 KB, the old default");
	CHECK_EQ(z.sthr, 32768, "no rate: SThr 32 KB, the old default");
	CHECK_EQ(z.unsch_thresh, 65536, "no rate: UnschT 64 KB");
	z = sird_link_sizes(50, 5000, MSS);
	CHECK_EQ(z.bdp, 31250, "50 Mbit/s x 5 ms: 31250 bytes");
	CHECK_EQ(z.unsch_thresh, 31250, "UnschT: the BDP");
	CHECK_EQ(z.b, 46875, "B: 1.5 BDP");
	CHECK_EQ(z.sthr, 15625, "SThr: 0.5 BDP");
	z = sird_link_sizes(100, 5000, MSS);
	CHECK_EQ(z.bdp, 62500, "100 Mbit/s x 5 ms");
	z = sird_link_sizes(10000, 5000, MSS);
	CHECK_EQ(z.bdp, 65536, "10 Gbit/s: at most 64 KB");
	z = sird_link_sizes(1, 5000, MSS);
	CHECK_EQ(z.bdp, 4 * MSS, "1 Mbit/s: at least 4 MSS");
	z = sird_link_sizes(1, 5000, 65000);
	CHECK_EQ(z.bdp, 65536, "a huge MSS: the floor stays within 64 KB");
	z = sird_link_sizes(1000000, 10000000, MSS);
	CHECK_EQ(z.bdp, 65536, "the largest sysctls: no overflow");
}

/* @n packets of an MSS, 1000 ns apart, one in @every CE-marked (0:
 * none)
 */
static void run_packets(struct sird_rx_peer *p, int n, int every, u64 *now)
{
	int k;

	for (k = 0; k < n; k++) {
		*now += 1000;
		sird_rx_sample(&cfg, p, MSS, false, every && k % every == 0,
			       *now);
	}
}

static void test_aimd(void)
{
	struct sird_rx_peer p;
	struct sird_loop l;
	u64 now = 0;
	u32 a;

	sird_rx_peer_init(&cfg, &p, 0);
	CHECK(sird_bucket(&p) == BDP && p.sb == 0, "a new sender: bucket BDP");
	run_packets(&p, 2000, 0, &now);
	CHECK(sird_bucket(&p) == BDP && p.net.alpha == 0,
	      "no marks: the bucket stays at the BDP ceiling, alpha 0");

	sird_rx_peer_init(&cfg, &p, 0);
	run_packets(&p, 40000, 4, &now);
	a = p.net.alpha;
	CHECK(a > SIRD_ONE / 4 - SIRD_ONE / 50 && a < SIRD_ONE / 4 + SIRD_ONE / 50,
	      "a quarter of the bytes marked: alpha settles at 0.25 (%.3f)",
	      a / (double)SIRD_ONE);
	CHECK(p.snd.alpha == 0 && p.snd.bkt == BDP,
	      "no csn: the sender loop stays open");
	CHECK(sird_bucket(&p) == p.net.bkt && p.net.bkt < BDP,
	      "the smaller loop (network, %u) is the bucket", p.net.bkt);

	l = (struct sird_loop){ .bkt = BDP, .alpha = SIRD_ONE / 2 };
	sird_loop_window(&cfg, &l, 1000, 1000);
	CHECK(l.alpha == SIRD_ONE / 2 + SIRD_ONE / 32 && l.bkt == 73438,
	      "alpha 0.5, a window all marked: alpha 0.53125, bucket x (1 - 0.265625) = 73438 (%u)",
	      l.bkt);
	l = (struct sird_loop){ .bkt = 50000, .alpha = SIRD_ONE / 2 };
	sird_loop_window(&cfg, &l, 0, 1000);
	CHECK(l.alpha == SIRD_ONE / 2 - SIRD_ONE / 32 && l.bkt == 50000,
	      "an unmarked window: alpha decays by g, the bucket stays");
	l = (struct sird_loop){ .bkt = 50000 };
	sird_loop_grow(&cfg, &l, 50000);
	CHECK_EQ(l.bkt, 50000 + MSS, "a bucket's worth unmarked: one MSS more");
	l = (struct sird_loop){ .bkt = BDP - 10 };
	sird_loop_grow(&cfg, &l, MSS);
	CHECK_EQ(l.bkt, BDP, "growth stops at the BDP");
	l = (struct sird_loop){ .bkt = 2000, .alpha = SIRD_ONE };
	sird_loop_window(&cfg, &l, 1, 1);
	CHECK_EQ(l.bkt, MSS, "a cut stops at the floor (one MSS)");

	sird_rx_peer_init(&cfg, &p, 0);
	now = 0;
	for (int k = 0; k < 20000; k++) {
		now += 1000;
		sird_rx_sample(&cfg, &p, MSS, true, false, now);
	}
	CHECK(p.snd.bkt == MSS && p.net.bkt == BDP && sird_bucket(&p) == MSS,
	      "csn on everything: the sender loop closes to the floor, the bucket with it");
	{
		struct sird_cfg off = cfg;

		off.sthr = 0;
		sird_rx_peer_init(&off, &p, 0);
		now = 0;
		for (int k = 0; k < 20000; k++) {
			now += 1000;
			sird_rx_sample(&off, &p, MSS, true, false, now);
		}
		CHECK(p.snd.bkt == BDP && p.snd.alpha == 0,
		      "SThr off: csn is ignored, the sender loop stays open");
	}
}

static void test_grant(void)
{
	struct sird_cand c[3] = {
		{ .left = 5000, .rem = 5000, .sb = 0, .bkt = BDP },
		{ .left = 3000, .rem = 3000, .sb = BDP - 100, .bkt = BDP },
		{ .left = 8000, .rem = 8000, .sb = 0, .bkt = BDP },
	};
	struct sird_turns t = { 0 };
	struct sird_rx_peer p;
	u32 b = 0;

	CHECK_EQ(sird_pick(&cfg, 0, &t, c, 3), 0,
		 "SRPT among those with room: 5000 left (the 3000 one's bucket is full)");
	c[1].sb = 0;
	CHECK_EQ(sird_pick(&cfg, 0, &t, c, 3), 1, "room again: the 3000 one");
	CHECK_EQ(sird_grant_size(&cfg, &c[1]), MSS, "a grant is one MSS");
	c[1].rem = 200;
	CHECK_EQ(sird_grant_size(&cfg, &c[1]), 200, "or what is left to grant");
	CHECK_EQ(sird_pick(&cfg, cfg.b - MSS + 1, &t, c, 3), 1,
		 "B nearly used: only the 200-byte grant fits");
	CHECK_EQ(sird_pick(&cfg, cfg.b - 199, &t, c, 3), -1, "B full: nobody");
	c[0].rem = c[1].rem = c[2].rem = 0;
	CHECK_EQ(sird_pick(&cfg, 0, &t, c, 3), -1, "nothing wanted: nobody");
	c[2].rem = 100;
	c[2].left = 100;
	c[0].rem = 100;
	c[0].left = 100;
	CHECK_EQ(sird_pick(&cfg, 0, &t, c, 3), 0, "a tie: the earlier candidate");
	c[0].born = 4;
	c[2].born = 9;
	CHECK_EQ(sird_pick(&cfg, 0, &t, c, 3), 2, "a tie: the newer message");

	sird_rx_peer_init(&cfg, &p, 0);
	sird_granted(&b, &p, 3000);
	sird_returned(&b, &p, 1400);
	CHECK(b == 1600 && p.sb == 1600, "3000 granted, 1400 arrived: 1600 out");
	sird_returned(&b, &p, 5000);
	CHECK(b == 0 && p.sb == 0,
	      "a duplicate claiming more: zero, not a wrap");
}

static void test_pace(void)
{
	struct sird_cfg c = cfg;

	CHECK_EQ(sird_pace_ns(&c, MSS), 11680,
		 "1 Gbit/s: (1400 + 60) bytes take 11680 ns");
	c.rate_bps = 400000000000ULL;
	CHECK_EQ(sird_pace_ns(&c, MSS), 30,
		 "400 Gbit/s: 29.2 ns, rounded up to 30");
	c.rate_bps = 100000000ULL;
	CHECK_EQ(sird_pace_ns(&c, 0xffffffffu), (u64)(1 << 24) * 80,
		 "a huge grant counts as 16 MB, no overflow");
	c.rate_bps = 0;
	CHECK_EQ(sird_pace_ns(&c, MSS), 0, "pacing off: no wait");
}

/* The pacer's clock: at the rate while on time; a late timer makes up
 * SIRD_PACE_CATCHUP_NS of the lost time at most, or two full packets'
 * time where that is longer
 */
static void test_pace_catchup(void)
{
	struct sird_cfg c = cfg;
	u64 t = sird_pace_ns(&cfg, MSS), next = 10000000, now, start;
	u64 cap = SIRD_PACE_CATCHUP_NS / t;	/* packets in the cap */
	int k, sent;

	CHECK(cap > 20 && cap < 200, "1 Gbit/s: the cap is tens of packets");
	CHECK_EQ(sird_pace_catchup(&c), SIRD_PACE_CATCHUP_NS,
		 "1 Gbit/s: the cap is the time");
	CHECK_EQ(sird_pace_next(&c, next, next, t), next + t,
		 "on time: the clock moves by a packet");
	CHECK_EQ(sird_pace_next(&c, next + 5 * t, next, t), next + 6 * t,
		 "ahead of now: it stays ahead (the caller waits)");
	CHECK_EQ(sird_pace_next(&c, next, next + 1000 * t, t),
		 next + 1000 * t - SIRD_PACE_CATCHUP_NS + t,
		 "1000 packets late: it lags by 1 ms at most");
	CHECK_EQ(sird_pace_next(&c, 0, 10, t), t,
		 "near time 0: no underflow");
	/* a timer 3 packets late: the caller sends while now + one
	 * packet's slack reaches the clock, 5 packets, the rate kept
	 */
	now = next + 3 * t;
	for (sent = 0, k = 0; k < 1000 && now + t >= next; k++, sent++)
		next = sird_pace_next(&c, next, now, t);
	CHECK_EQ(sent, 5, "3 packets late: 3 made up, plus one due, plus slack");
	now += 10 * t;
	for (sent = 0, k = 0; k < 1000 && now + t >= next; k++, sent++)
		next = sird_pace_next(&c, next, now, t);
	CHECK_EQ(sent, 10, "10 packets late: 10 sent, the rate kept");
	now += 1000 * t;
	for (sent = 0, k = 0; k < 1000 && now + t >= next; k++, sent++)
		next = sird_pace_next(&c, next, now, t);
	CHECK(sent >= (int)cap && sent <= (int)cap + 2,
	      "1000 packets late: a burst of the 1 ms cap (and slack) at most");
	c.rate_bps = 10000000000ULL;	/* 10 Gbit/s: 1.2 us a packet */
	t = sird_pace_ns(&c, MSS);
	next = 10000000;
	now = next + 100 * t;		/* a timer 0.12 ms late */
	for (sent = 0, k = 0; k < 1000 && now + t >= next; k++, sent++)
		next = sird_pace_next(&c, next, now, t);
	CHECK(sent >= 100, "10 Gbit/s, 100 packets late: all made up (a cap in packets kept the rate at the timer's)");
	c.rate_bps = 5000000ULL;	/* 2.3 ms a packet */
	t = sird_pace_ns(&c, MSS);
	CHECK(t > SIRD_PACE_CATCHUP_NS, "5 Mbit/s: a packet takes longer than 1 ms");
	CHECK_EQ(sird_pace_catchup(&c), 2 * t,
		 "5 Mbit/s: the cap is two packets");
	CHECK_EQ(sird_pace_next(&c, 0, 100 * t, t), 99 * t,
		 "5 Mbit/s, 100 packets late: it lags by two packets");
	/* every timer 2 ms late: the rate stays the link's (a 1 ms cap
	 * lost a millisecond a firing, 82% of it)
	 */
	next = 100 * t;
	now = next;
	start = now;
	for (sent = 0, k = 0; k < 100; k++) {
		now += 2000000;		/* the timer fires 2 ms after the clock */
		while (now + t >= next && sent < 10000) {
			next = sird_pace_next(&c, next, now, t);
			sent++;
		}
		now = next > now ? next : now;
	}
	CHECK(sent * t * 100 >= 97 * (now - start),
	      "5 Mbit/s, every timer 2 ms late: at least 97 percent of the rate");
}

/* The byte clock: credit is due once the bytes out before it arrived */
static void test_due(void)
{
	u64 due = sird_due(5000, 3000);
	u64 wrap = sird_due(~0ULL - 999, 3000);

	CHECK(sird_before_due(7999, due) && !sird_before_due(8000, due) &&
	      !sird_before_due(9000, due),
	      "granted at 5000 with 3000 out: queued until 8000 arrived");
	CHECK(sird_before_due(~0ULL, wrap) && sird_before_due(1999, wrap) &&
	      !sird_before_due(2000, wrap),
	      "the clock may wrap: due 2000 bytes past the wrap");
}

/* The round trip: a windowed minimum and an average */
static void test_rtt(void)
{
	const u64 ms = 1000000, s = 1000 * ms;
	struct sird_rtt r = { 0 };

	sird_rtt_sample(&r, 8 * ms, 1 * s);
	sird_rtt_sample(&r, 20 * ms, 2 * s);
	CHECK(r.min_ns == 8 * ms && r.samples == 2 &&
	      r.srtt_ns == 8 * ms + (20 * ms >> 3) - (8 * ms >> 3),
	      "the smaller sample stays, srtt moves by 1/8 (%llu %llu)",
	      (unsigned long long)r.min_ns, (unsigned long long)r.srtt_ns);
	sird_rtt_sample(&r, 80 * ms, 1 * s + SIRD_RTT_WINDOW_NS);
	CHECK_EQ(r.min_ns, 8 * ms, "within the window the minimum stays");
	sird_rtt_sample(&r, 80 * ms, 1 * s + SIRD_RTT_WINDOW_NS + 1);
	CHECK_EQ(r.min_ns, 80 * ms, "past it, a larger sample replaces it");
	sird_rtt_sample(&r, 0, 3 * s + SIRD_RTT_WINDOW_NS);
	CHECK_EQ(r.min_ns, 1, "a sample of 0 counts as 1 ns: 0 means none");
}

/* The receiver's turns for the oldest message: exactly their share of
 * the picks, to the lowest born among those with room; the other turns
 * stay SRPT's and round robin's as before
 */
static void test_rx_fifo(void)
{
	struct sird_cand c[3] = {
		{ .order = 1, .born = 7, .left = 900, .rem = 900, .bkt = BDP },
		{ .order = 2, .born = 3, .left = 90000, .rem = 90000,
		  .bkt = BDP },
		{ .order = 3, .born = 5, .left = 50000, .rem = 50000,
		  .bkt = BDP },
	};
	struct sird_turns t = { 0 };
	struct sird_cfg rc = cfg;
	int turn, got[4], old = 0;

	rc.rx_fifo_permille = 250;
	for (turn = 0; turn < 4; turn++)
		got[turn] = sird_pick(&rc, 0, &t, c, 3);
	CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 1,
	      "a quarter for the oldest: SRPT three times, then the one born first (%d %d %d %d)",
	      got[0], got[1], got[2], got[3]);
	c[1].sb = BDP;
	for (turn = 0; turn < 4; turn++)
		got[turn] = sird_pick(&rc, 0, &t, c, 3);
	CHECK_EQ(got[3], 2, "the oldest without room: the oldest with room");
	/* one host: round robin's choice is its shortest, never the oldest */
	c[0].order = c[2].order = 1;
	rc.rx_fifo_permille = 300;
	rc.rx_fair_permille = 1000;
	t = (struct sird_turns){ 0 };
	for (turn = 0; turn < 1000; turn++)
		old += sird_pick(&rc, 0, &t, c, 3) == 2;
	CHECK(old == 300 && t.last == 1,
	      "300 permille for the oldest, the rest round robin: %d of 1000 picks to it",
	      old);
	rc.rx_fair_permille = 0;
	rc.rx_fifo_permille = 1000;
	c[0].born = 1;
	CHECK_EQ(sird_pick(&rc, 0, &t, c, 3), 0, "all FIFO: the one born first");
}

/* The receiver's round robin over hosts: the order after the last one
 * served, wrapping around, the shorter message within a host; and the
 * running sum that makes exactly permille of the turns fair
 */
static void test_rx_round_robin(void)
{
	/* hosts 1..3 in order, two messages of host 2, all with room */
	struct sird_cand c[4] = {
		{ .order = 1, .left = 500, .rem = 500, .bkt = BDP },
		{ .order = 2, .left = 9000, .rem = 9000, .bkt = BDP },
		{ .order = 2, .left = 3000, .rem = 3000, .bkt = BDP },
		{ .order = 3, .left = 100, .rem = 100, .bkt = BDP },
	};
	struct sird_turns t = { 0 };
	struct sird_cfg rc = cfg;
	u32 acc = 0, fair = 0;
	int turn, got[4];

	rc.rx_fair_permille = 1000;
	for (turn = 0; turn < 4; turn++)
		got[turn] = sird_pick(&rc, 0, &t, c, 4);
	CHECK(got[0] == 0 && got[1] == 2 && got[2] == 3 && got[3] == 0,
	      "all fair: hosts in turn 1, 2 (its shorter message), 3, then 1 again (%d %d %d %d)",
	      got[0], got[1], got[2], got[3]);
	rc.rx_fair_permille = 500;
	t = (struct sird_turns){ 0 };
	for (turn = 0; turn < 4; turn++)
		got[turn] = sird_pick(&rc, 0, &t, c, 4);
	CHECK(got[0] == 3 && got[1] == 0 && got[2] == 3 && got[3] == 2,
	      "half fair: SRPT (100 left), host 1, SRPT, host 2 (%d %d %d %d)",
	      got[0], got[1], got[2], got[3]);
	c[0].rem = c[1].rem = c[2].rem = c[3].rem = 0;
	acc = t.acc;
	CHECK(sird_pick(&rc, 0, &t, c, 4) == -1 && t.acc == acc,
	      "nothing with room: -1, and no turn spent");
	for (turn = 0; turn < 1000; turn++)
		fair += sird_fair_turn(&acc, 300);
	CHECK_EQ(fair, 300U, "300 permille: exactly 300 fair turns in 1000");
	fair = 0;
	for (turn = 0; turn < 10; turn++)
		fair += sird_fair_turn(&acc, 0) + 2 * sird_fair_turn(&acc, 5000);
	CHECK_EQ(fair, 20U, "0: never; above 1000 counts as 1000: always");
}

static void test_sender(void)
{
	struct sird_tx_cand r[3] = {
		{ .order = 30, .credit = 5000, .left = 9000 },
		{ .order = 10, .credit = 5000, .left = 1000 },
		{ .order = 20, .credit = 5000, .left = 4000 },
	};
	struct sird_turns t = { 0 };
	struct sird_cfg c = cfg;
	int i, picks[3] = { 0 };

	CHECK(!sird_csn(&c, BDP / 2 - 1) && sird_csn(&c, BDP / 2),
	      "csn from SThr (50000) of credit held on");
	c.sthr = 0;
	CHECK(!sird_csn(&c, 1ULL << 40), "SThr off: never csn");
	c = cfg;
	for (i = 0; i < 1000; i++)
		picks[sird_tx_pick(&c, &t, r, 3)]++;
	/* 500 SRPT turns to receiver 1, 500 fair ones round all three */
	CHECK(picks[0] + picks[2] == 333 && picks[1] == 667 &&
	      picks[0] - picks[2] <= 1 && picks[2] - picks[0] <= 1,
	      "fair share 500: half the turns SRPT, half round robin (%d %d %d)",
	      picks[0], picks[1], picks[2]);
	c.fair_permille = 0;
	CHECK_EQ(sird_tx_pick(&c, &t, r, 3), 1, "fair share 0: pure SRPT");
	c.fair_permille = 1000;
	t.last = 0;
	CHECK(sird_tx_pick(&c, &t, r, 3) == 1 && sird_tx_pick(&c, &t, r, 3) == 2 &&
	      sird_tx_pick(&c, &t, r, 3) == 0 && sird_tx_pick(&c, &t, r, 3) == 1,
	      "fair share 1000: round robin by order 10, 20, 30, 10");
	/* receiver 20 leaves and 25 comes after 10 was served: the round
	 * goes on from 10, to 25, not back to the start
	 */
	r[2].order = 25;
	CHECK(sird_tx_pick(&c, &t, r, 3) == 2 && t.last == 25,
	      "a receiver joining mid-round gets its turn in order");
	c.fair_permille = 5000;
	CHECK_EQ(sird_tx_pick(&c, &t, r, 3), 0,
		 "fair share above 1000 counts as 1000");
	c.fair_permille = 1000;
	r[1].credit = 0;
	r[2].left = 0;
	CHECK_EQ(sird_tx_pick(&c, &t, r, 3), 0,
		 "only a receiver with credit and bytes is chosen");
	r[0].credit = 0;
	CHECK_EQ(sird_tx_pick(&c, &t, r, 3), -1, "none: -1");
}

int main(void)
{
	test_unsched();
	test_unsched_allowed();
	test_link_sizes();
	test_aimd();
	test_grant();
	test_pace();
	test_pace_catchup();
	test_due();
	test_rtt();
	test_rx_round_robin();
	test_rx_fifo();
	test_sender();
	return unit_done();
}
