// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/afq_core.h: the bid rule (idle bump, round of
 * the last byte, extreme bpr and values near 2^64), the count-min sketch
 * (min-read/max-update, never below the exact bid, geometry, seeds), the
 * exact flow table, afq_decide/afq_commit (horizon, ECN, refused packets,
 * the exact-mode shadow), and the whole scheduler on afq_model.h: fairness
 * by Jain's index, the sketch's misplacement rate against exact bids
 * (thesis Fig. 5.18), per-flow ECN, order and accounting.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afq_model.h"
#include "unit.h"

typedef unsigned long long ull;

static struct afq_model m;

/* xorshift64*: the tests' own reproducible random numbers */
static u64 rng_state = 88172645463325252ULL;

static u64 rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static u32 rnd(u32 n)
{
	return (u32)(rnd64() % n);
}

/* A sketch over freshly allocated cells of exactly rows * cols */
static int sketch_new(struct afq_sketch *s, u32 rows, u32 cols, u64 seed)
{
	s->rows = rows;
	s->cols_log = afq_log2(cols);
	s->cells = calloc((size_t)rows * cols, sizeof(u64));
	afq_sketch_seed(s, seed);
	return s->cells ? 0 : -1;
}

/* ---- 1. the bid rule ---- */

static void test_bid_basic(void)
{
	struct afq_bid b;

	afq_bid(0, 10, 1000, 100, &b);
	CHECK(b.bumped && b.bid == 10100 && b.round == 10,
	      "idle flow (bid 0) starts at R * bpr: bid %llu round %llu",
	      (ull)b.bid, (ull)b.round);
	afq_bid(9999, 10, 1000, 100, &b);
	CHECK(b.bumped && b.bid == 10100,
	      "a bid one byte below R * bpr is bumped to it");
	afq_bid(10000, 10, 1000, 100, &b);
	CHECK(!b.bumped && b.bid == 10100 && b.round == 10,
	      "a bid of exactly R * bpr is not a bump (same start)");
	afq_bid(12345, 10, 1000, 100, &b);
	CHECK(!b.bumped && b.bid == 12445 && b.round == 12,
	      "a flow ahead keeps its bid: 12345 + 100 is round 12");

	/* The packet belongs to the round of its last byte */
	afq_bid(0, 0, 1500, 1500, &b);
	CHECK(b.bid == 1500 && b.round == 0,
	      "a packet exactly filling round 0 stays in it (thesis bid/bpr = 1)");
	afq_bid(1500, 0, 1500, 1500, &b);
	CHECK(b.bid == 3000 && b.round == 1, "the next full packet fills round 1");
	afq_bid(0, 0, 1500, 1501, &b);
	CHECK(b.round == 1, "one byte more spills into round 1");
	afq_bid(2999, 2, 1500, 1, &b);
	CHECK(b.bumped && b.bid == 3001 && b.round == 2,
	      "first byte of round 2 after a bump");
}

static void test_bid_sequence(void)
{
	static const u32 bprs[] = { 1, 100, 1500, 65536 };
	u32 i, k, n, per_round[12] = { 0 }, len;
	struct afq_bid b;
	u64 prev = 0, sum;
	bool ok = true;

	/* 500-byte packets, 1500 bytes a round: exactly 3 per round */
	for (k = 0; k < 36; k++) {
		afq_bid(prev, 0, 1500, 500, &b);
		prev = b.bid;
		if (b.round < 12)
			per_round[b.round]++;
	}
	for (k = 0; k < 12; k++)
		ok &= per_round[k] == 3;
	CHECK(ok && prev == 18000,
	      "back-to-back 500 B packets at bpr 1500: 3 per round for 12 rounds");

	/* Random lengths: round == (bytes sent so far - 1) / bpr, one
	 * round per bpr bytes, whatever the bpr.
	 */
	for (i = 0; i < sizeof(bprs) / sizeof(bprs[0]); i++) {
		ok = true;
		prev = 0;
		sum = 0;
		for (n = 0; n < 20000; n++) {
			len = 1 + rnd(9000);
			afq_bid(prev, 0, bprs[i], len, &b);
			sum += len;
			ok &= !b.bumped || n == 0;
			ok &= b.bid == sum && b.round == (sum - 1) / bprs[i];
			prev = b.bid;
		}
		CHECK(ok, "bpr %u: 20000 back-to-back packets advance one round per bpr bytes (%llu rounds)",
		      bprs[i], (ull)((sum - 1) / bprs[i]));
	}

	afq_bid(0, 7, 1, 5, &b);
	CHECK(b.bid == 12 && b.round == 11,
	      "bpr 1: every byte is a round (5 bytes from R 7: round 11)");
	afq_bid(12, 7, 1, 1, &b);
	CHECK(!b.bumped && b.round == 12, "bpr 1: the next byte is round 12");
	afq_bid(0, 3, UINT32_MAX, 65535, &b);
	CHECK(b.bumped && b.round == 3 &&
	      b.bid == 3ULL * UINT32_MAX + 65535,
	      "bpr 2^32-1: a 64 KB packet stays in round 3");
	afq_bid(4ULL * UINT32_MAX - 1, 3, UINT32_MAX, 1, &b);
	CHECK(b.round == 3, "bpr 2^32-1: the last byte of round 3 is round 3");
	afq_bid(4ULL * UINT32_MAX - 1, 3, UINT32_MAX, 2, &b);
	CHECK(b.round == 4, "bpr 2^32-1: one byte more is round 4");
}

/* Bids are absolute bytes of virtual time in a u64: the core is exact as
 * long as R * bpr + (bytes a flow is ahead) + len stays below 2^64, which
 * is 46 years of a 100 Gb/s link.  Beyond that the arithmetic wraps (u64,
 * never undefined: UBSan runs with -fno-sanitize-recover here).
 */
static void test_bid_limits(void)
{
	struct afq_state a = { .bpr = 1500, .nqueues = 32 };
	struct afq_verdict v;
	struct afq_bid b;
	u64 r, prev;

	r = (UINT64_MAX - 65535) / 1500;
	afq_bid(0, r, 1500, 65535, &b);
	CHECK(b.bumped && b.bid == r * 1500 + 65535 && b.round == r + 43,
	      "bpr 1500, R = %llu (the largest with 64 KB of room): round R + 43",
	      (ull)r);
	afq_bid(UINT64_MAX - 1, UINT64_MAX - 100, 1, 1, &b);
	CHECK(!b.bumped && b.bid == UINT64_MAX && b.round == UINT64_MAX - 1,
	      "bpr 1: the last representable bid 2^64-1 is round 2^64-2");
	r = UINT64_MAX / UINT32_MAX - 1;	/* 2^32: R * bpr = 2^64 - 2^32 */
	prev = r * UINT32_MAX + UINT32_MAX - 2;
	afq_bid(prev, r, UINT32_MAX, 1, &b);
	CHECK(!b.bumped && b.round == r && b.bid == UINT64_MAX - 1,
	      "bpr 2^32-1 at R = 2^32: the last round before 2^64 is exact");

	/* Past the limit: the bid wraps to a small number.  afq_decide then
	 * sees the packet about 2^64 / bpr rounds away and refuses it, so
	 * the wrap drops packets rather than misplacing them.
	 */
	prev = UINT64_MAX - 9;
	afq_bid(prev, prev / 1500, 1500, 100, &b);
	CHECK(b.bid == 90 && b.round == 0 && !b.bumped,
	      "documented limit: UINT64_MAX - 9 + 100 wraps to bid 90 (round 0)");
	if (sketch_new(&a.sk, 2, 16, 1)) {
		CHECK(0, "allocation");
		return;
	}
	afq_sketch_index(&a.sk, 42, v.idx);
	afq_sketch_update(&a.sk, v.idx, prev);
	afq_decide(&a, 42, 100, prev / 1500, &v);
	CHECK(v.horizon && v.b.bid == 90,
	      "past the limit afq_decide refuses the wrapped packet (ahead %llu)",
	      (ull)v.ahead);
	free(a.sk.cells);
}

/* ---- 2. the sketch ---- */

/* Two hashes sharing their row 0 cell but not their row 1 cell; false
 * when there are none (rows that are not independent)
 */
static bool find_row0_pair(const struct afq_sketch *s, u64 *h1, u64 *h2)
{
	u32 i1[AFQ_ROWS_MAX], i2[AFQ_ROWS_MAX];
	u64 h;

	*h1 = 1;
	afq_sketch_index(s, *h1, i1);
	for (h = 2; h < 100000; h++) {
		afq_sketch_index(s, h, i2);
		if (i2[0] == i1[0] && i2[1] != i1[1]) {
			*h2 = h;
			return true;
		}
	}
	return false;
}

/* afq_bid() skips the division when the packet ends in the current
 * round; for any input, wrapped products and bids included, it must give
 * what the division gives.
 */
static void test_bid_no_division(void)
{
	u64 prev = 0, r, start, bid, bad = 0, fast = 0;
	struct afq_bid b;
	u32 bpr, len, n;

	for (n = 0; n < 1000000; n++) {
		bpr = n % 4 ? 64 + rnd(16777153) : 1 + rnd(64);
		r = n % 3 ? rnd64() >> rnd(64) : rnd64();
		len = 1 + rnd(n % 2 ? 65535 : bpr);
		switch (n % 4) {
		case 0:
			prev = rnd64();
			break;
		case 1:
			prev = r * bpr + rnd(2 * bpr);
			break;
		case 2:
			prev = 0;
			break;
		default:
			prev = UINT64_MAX - rnd(70000);
			break;
		}
		afq_bid(prev, r, bpr, len, &b);
		start = r * bpr;
		bid = (prev < start ? start : prev) + len;
		bad += b.bid != bid || b.bumped != (prev < start) ||
		       b.round != (bid - 1) / bpr;
		fast += b.round == r;
	}
	CHECK(bad == 0 && fast > 100000,
	      "10^6 random bids (wraps included): the round is (bid - 1) / bpr every time (%llu differ), %llu of them in the current round",
	      (ull)bad, (ull)fast);
}

static void test_sketch_minmax(void)
{
	u32 i1[AFQ_ROWS_MAX], i2[AFQ_ROWS_MAX];
	struct afq_sketch s;
	u64 h1, h2;

	if (sketch_new(&s, 2, 16, 3)) {
		CHECK(0, "allocation");
		return;
	}
	CHECK_EQ(afq_sketch_read(&s, (u32[]){ 0, 16 }), 0,
		 "an empty sketch reads 0");
	if (!find_row0_pair(&s, &h1, &h2)) {
		CHECK(0, "two flows sharing only their row 0 cell exist");
		free(s.cells);
		return;
	}
	afq_sketch_index(&s, h1, i1);
	afq_sketch_index(&s, h2, i2);
	afq_sketch_update(&s, i1, 100);
	afq_sketch_update(&s, i2, 300);
	CHECK(s.cells[i1[0]] == 300 && s.cells[i1[1]] == 100 &&
	      s.cells[i2[1]] == 300,
	      "max-update: the shared cell keeps the larger bid (300)");
	CHECK(afq_sketch_read(&s, i1) == 100 && afq_sketch_read(&s, i2) == 300,
	      "min-read: a flow colliding in one row only reads its own bid");
	afq_sketch_update(&s, i1, 50);
	CHECK(s.cells[i1[0]] == 300 && s.cells[i1[1]] == 100,
	      "max-update never lowers a cell");
	afq_sketch_update(&s, i2, 400);
	afq_sketch_update(&s, i1, 350);
	CHECK(afq_sketch_read(&s, i1) == 350 && s.cells[i1[0]] == 400,
	      "after 400 and 350: the shared cell holds 400, the flow reads 350");
	afq_sketch_clear(&s);
	CHECK(afq_sketch_read(&s, i1) == 0 && afq_sketch_read(&s, i2) == 0 &&
	      s.cells[i1[0]] == 0 && s.cells[i2[1]] == 0,
	      "afq_sketch_clear zeroes every cell");
	free(s.cells);
}

/* Many flows in a small sketch against an exact map of the same bids:
 * the sketch's bid is never below the exact one (Sharma §5.2.3).
 */
static void test_sketch_never_under(void)
{
	enum { FLOWS = 3000, PKTS = 200000 };
	static u64 exact[FLOWS];
	u32 idx[AFQ_ROWS_MAX], f, n, len;
	struct afq_bid be, bs;
	u64 r = 0, sk, over = 0, under = 0;
	struct afq_sketch s;

	if (sketch_new(&s, 2, 256, 5)) {
		CHECK(0, "allocation");
		return;
	}
	memset(exact, 0, sizeof(exact));
	for (n = 0; n < PKTS; n++) {
		if (!(n % 64))
			r += rnd(3);	/* the head moves on now and then */
		f = rnd(FLOWS);
		len = 40 + rnd(1461);
		afq_sketch_index(&s, afqm_flow_hash(f), idx);
		sk = afq_sketch_read(&s, idx);
		afq_bid(exact[f], r, 1500, len, &be);
		afq_bid(sk, r, 1500, len, &bs);
		if (sk < exact[f] || bs.bid < be.bid)
			under++;
		if (bs.round > be.round)
			over++;
		exact[f] = be.bid;
		afq_sketch_update(&s, idx, bs.bid);
	}
	CHECK(under == 0,
	      "3000 flows in a 2x256 sketch, 200000 packets: the sketch never under-estimates (%llu times)",
	      (ull)under);
	CHECK(over > 0,
	      "... and over-estimates a round sometimes (%.2f%% of packets)",
	      100.0 * over / PKTS);
	free(s.cells);
}

static void test_sketch_geometry(void)
{
	u32 rows, cl, j, n, idx[AFQ_ROWS_MAX];
	struct afq_sketch s;
	bool ok = true, alloc_ok = true;
	u64 h, v;

	/* Indices stay in their row for every geometry; where the cells are
	 * small enough they are really allocated at their exact size, so
	 * ASan sees any access beyond rows * cols.
	 */
	for (rows = 1; rows <= AFQ_ROWS_MAX; rows++) {
		for (cl = 4; cl <= 20; cl++) {
			bool real = ((u64)rows << cl) <= (1u << 21);

			s.cells = NULL;
			if (real && sketch_new(&s, rows, 1u << cl, rows * 100 + cl)) {
				alloc_ok = false;
				continue;
			}
			s.rows = rows;
			s.cols_log = cl;
			afq_sketch_seed(&s, rows * 100 + cl);
			for (n = 0; n < 300; n++) {
				h = n < 4 ? (n < 2 ? n : UINT64_MAX - n) : rnd64();
				afq_sketch_index(&s, h, idx);
				for (j = 0; j < rows; j++)
					ok &= idx[j] >> cl == j;
				if (!real)
					continue;
				v = 1 + rnd64() % 1000000;
				afq_sketch_update(&s, idx, v);
				ok &= afq_sketch_read(&s, idx) >= v;
			}
			if (real) {
				afq_sketch_clear(&s);
				for (j = 0; j < rows; j++)
					ok &= s.cells[(j << cl) + rnd(1u << cl)] == 0 &&
					      s.cells[((j + 1) << cl) - 1] == 0;
			}
			free(s.cells);
		}
	}
	CHECK(ok && alloc_ok,
	      "rows 1..8 x cols 16..2^20: every index in its own row, read/update/clear within the cells");
}

static void test_sketch_hashing(void)
{
	u32 cnt[2][16] = { { 0 } }, i1[AFQ_ROWS_MAX], i2[AFQ_ROWS_MAX];
	u32 lo = ~0u, hi = 0, j, k, same_rows = 0, same_seed = 0;
	struct afq_sketch s1, s2;
	bool distinct = true;
	u64 h;

	s1 = (struct afq_sketch){ .rows = 2, .cols_log = 4 };
	s2 = (struct afq_sketch){ .rows = 2, .cols_log = 10 };
	afq_sketch_seed(&s1, 1);
	/* Sequential hashes are the hard case for a weak mixer */
	for (h = 0; h < 16000; h++) {
		afq_sketch_index(&s1, h, i1);
		cnt[0][i1[0]]++;
		cnt[1][i1[1] - 16]++;
		same_rows += i1[0] == i1[1] - 16;
	}
	for (j = 0; j < 2; j++)
		for (k = 0; k < 16; k++) {
			lo = cnt[j][k] < lo ? cnt[j][k] : lo;
			hi = cnt[j][k] > hi ? cnt[j][k] : hi;
		}
	CHECK(lo >= 850 && hi <= 1150,
	      "16000 sequential hashes over 16 columns: %u..%u per column (1000 +- 5 sigma)",
	      lo, hi);
	CHECK(same_rows >= 800 && same_rows <= 1200,
	      "rows are independent: same column in rows 0 and 1 for %u of 16000 (1/16 = 1000)",
	      same_rows);

	s1.cols_log = 10;
	afq_sketch_seed(&s2, 2);
	for (j = 0; j < AFQ_ROWS_MAX; j++)
		for (k = 0; k < AFQ_ROWS_MAX; k++)
			distinct &= s1.seed[j] != s2.seed[k] &&
				    (j == k || s1.seed[j] != s1.seed[k]);
	for (h = 0; h < 100000; h++) {
		afq_sketch_index(&s1, h, i1);
		afq_sketch_index(&s2, h, i2);
		same_seed += i1[0] == i2[0];
	}
	CHECK(distinct && same_seed < 200,
	      "seeds 1 and 2 give different rows: same row-0 column for %u of 100000 (1/1024 = 98)",
	      same_seed);
}

/* ---- 3. the exact table ---- */

static void test_exact(void)
{
	static struct afq_slot slots8[8], slots1k[1024];
	struct afq_exact t = { .slots = slots8, .mask = 7 };
	struct afq_slot *s, *own[9], *first;
	u64 keys[9], k, base;
	u32 i, n, reused;
	bool ok = true;

	/* With 8 slots every probe window is the whole table */
	for (i = 0; i < 8; i++) {
		own[i] = afq_exact_slot(&t, 100 + i, 0);
		ok &= own[i] && own[i]->key == 100 + i && own[i]->bid == 0;
		if (own[i])
			own[i]->bid = 1000 * (i + 1);
	}
	CHECK(ok, "8 flows take the 8 slots");
	if (!ok)
		return;
	ok = true;
	for (i = 0; i < 8; i++)
		ok &= afq_exact_slot(&t, 100 + i, 0) == own[i] &&
		      own[i]->bid == 1000 * (i + 1);
	CHECK(ok, "a flow finds its own slot and bid again");
	CHECK(!afq_exact_slot(&t, 999, 999),
	      "a full probe window returns NULL (every bid above the floor 999)");
	for (i = 0; i < 8; i++)
		own[i]->bid = 0;
	ok = true;
	for (i = 0; i < 8; i++)
		ok &= afq_exact_slot(&t, 100 + i, 0) == own[i];
	CHECK(ok, "an idle flow keeps its slot although earlier slots are free");
	for (i = 0; i < 8; i++)
		own[i]->bid = 1000 * (i + 1);
	s = afq_exact_slot(&t, 999, 1000);
	reused = 0;
	for (i = 0; i < 8; i++)
		reused += own[i]->key == 999;
	CHECK(s && s == own[0] && s->key == 999 && s->bid == 0 && reused == 1,
	      "the one slot whose bid is <= the floor (1000 <= 1000) is reused, bid reset to 0");
	CHECK(own[3]->key == 103 && own[3]->bid == 4000,
	      "live slots (bid 4000 > floor) are untouched");
	first = s;
	s = afq_exact_slot(&t, 999, 1000);
	CHECK(s && s == first && s->key == 999,
	      "the new flow then keeps its slot");

	afq_exact_clear(&t);
	ok = true;
	for (i = 0; i < 8; i++)
		ok &= slots8[i].key == 0 && slots8[i].bid == 0;
	CHECK(ok && t.full_bid == 0, "afq_exact_clear zeroes every slot");
	s = afq_exact_slot(&t, 103, 0);
	CHECK(s && s->bid == 0, "after a clear a flow starts from bid 0");

	/* 1024 slots: nine keys of one window; the ninth finds no slot,
	 * a key of the next window still does (one slot further).
	 */
	t.slots = slots1k;
	t.mask = 1023;
	base = afq_mix(1) & 1023;
	for (n = 0, k = 1; n < 9 && k < (1 << 24); k++)
		if ((afq_mix(k) & 1023) == base)
			keys[n++] = k;
	ok = n == 9;
	for (i = 0; i < 8 && ok; i++) {
		s = afq_exact_slot(&t, keys[i], 0);
		ok &= s && s == &slots1k[(base + i) & 1023];
		if (s)
			s->bid = 1;
	}
	CHECK(ok && !afq_exact_slot(&t, keys[8], 0),
	      "1024 slots: 8 flows fill one probe window in order, the 9th gets NULL");
	for (k = 1; k < (1 << 24); k++)
		if ((afq_mix(k) & 1023) == ((base + 1) & 1023))
			break;
	first = afq_exact_slot(&t, k, 0);
	CHECK(first == &slots1k[(base + 8) & 1023],
	      "an overlapping window still finds its last slot");
}

/* ---- 4. afq_decide and afq_commit ---- */

static void test_decide_horizon(void)
{
	struct afq_state a = { .bpr = 1000, .nqueues = 8, .ecn_rounds = 4 };
	struct afq_verdict v, v2;
	u64 *snap, r = 100;
	bool ok = true;
	u32 k;

	if (sketch_new(&a.sk, 2, 1024, 7)) {
		CHECK(0, "allocation");
		return;
	}
	snap = malloc(2 * 1024 * sizeof(u64));
	if (!snap) {
		CHECK(0, "allocation");
		free(a.sk.cells);
		return;
	}
	for (k = 0; k < 8; k++) {
		afq_decide(&a, 77, 1000, r, &v);
		ok &= !v.horizon && v.ahead == k && v.b.round == r + k &&
		      v.ecn == (k >= 4) && v.b.bumped == (k == 0);
		afq_commit(&a, &v);
	}
	CHECK(ok, "8 full-round packets from R: ahead 0..7 accepted (nqueues - 1 is the last), ECN from 4 on");
	memcpy(snap, a.sk.cells, 2 * 1024 * sizeof(u64));
	afq_decide(&a, 77, 1000, r, &v);
	CHECK(v.horizon && v.ahead == 8,
	      "a packet exactly nqueues (8) rounds ahead is refused");
	afq_decide(&a, 77, 1, r, &v2);
	CHECK(v2.horizon && v2.ahead == 8, "... even a 1-byte one");
	CHECK(!memcmp(snap, a.sk.cells, 2 * 1024 * sizeof(u64)),
	      "a refused packet (not committed) leaves the sketch untouched");
	afq_decide(&a, 77, 1000, r + 1, &v);
	CHECK(!v.horizon && v.ahead == 7 && v.b.round == r + 8,
	      "once R moves on, the flow fits again (ahead 7)");

	a.ecn_rounds = 0;
	afq_decide(&a, 77, 1000, r + 1, &v);
	CHECK(!v.ecn, "ecn_rounds 0: no marking even 7 rounds ahead");
	a.ecn_rounds = 9;
	afq_decide(&a, 77, 1000, r + 1, &v);
	CHECK(!v.ecn, "ecn_rounds above nqueues: never marks");
	a.ecn_rounds = 7;
	afq_decide(&a, 77, 1000, r + 1, &v);
	CHECK(v.ecn, "ecn_rounds 7: marks at exactly 7 ahead");

	afq_decide(&a, 78, 1001, r, &v);
	CHECK(!v.horizon && v.ahead == 1 && v.b.bumped,
	      "a new flow's 1001-byte packet at bpr 1000 ends in round R + 1");
	a.nqueues = 1;
	afq_decide(&a, 78, 1000, r, &v);
	CHECK(!v.horizon && v.ahead == 0, "nqueues 1: a packet filling round R fits");
	afq_decide(&a, 78, 1001, r, &v);
	CHECK(v.horizon, "nqueues 1: a packet reaching round R + 1 does not");
	free(snap);
	free(a.sk.cells);
}

/* Exact mode on random traffic with R moving on: the sketch's shadow
 * round is never earlier than the exact round; returns misplacements.
 */
static u64 exact_run(struct afq_state *a, const u64 *hashes, u32 nflows,
		     u32 pkts, bool *ok)
{
	struct afq_verdict v;
	u64 r = 0, mis = 0, h;
	u32 n, len;

	/* About one round of bytes per flow per round: some flows run
	 * ahead to the horizon, others fall back and get bumped.
	 */
	for (n = 0; n < pkts; n++) {
		if (!(n % 200))
			r++;
		h = hashes[rnd(nflows)];
		len = 40 + rnd(1461);
		afq_decide(a, h, len, r, &v);
		*ok &= !v.table_full && v.slot && v.shadow_round >= v.b.round;
		mis += v.shadow_round > v.b.round;
		if (!v.horizon)
			afq_commit(a, &v);
	}
	return mis;
}

static void test_decide_exact(void)
{
	struct afq_state a = { .bpr = 1500, .nqueues = 32 };
	static struct afq_slot slots[256];
	u32 i, n, idx[AFQ_ROWS_MAX];
	u64 hashes[100], mis;
	bool ok = true, used[1024] = { false };

	a.ex.slots = slots;
	a.ex.mask = 255;
	if (sketch_new(&a.sk, 2, 16, 9)) {
		CHECK(0, "allocation");
		return;
	}
	for (i = 0; i < 100; i++)
		hashes[i] = afqm_flow_hash(i);
	mis = exact_run(&a, hashes, 100, 50000, &ok);
	CHECK(ok && mis > 0,
	      "exact mode, 100 flows on a 2x16 sketch: shadow >= exact for 50000 packets, %.1f%% later",
	      100.0 * mis / 50000);
	free(a.sk.cells);

	/* 40 flows with distinct row-0 cells: no collision, no error */
	if (sketch_new(&a.sk, 2, 1024, 9)) {
		CHECK(0, "allocation");
		return;
	}
	afq_exact_clear(&a.ex);
	for (i = 0, n = 0; n < 40; i++) {
		afq_sketch_index(&a.sk, afqm_flow_hash(1000 + i), idx);
		if (used[idx[0]])
			continue;
		used[idx[0]] = true;
		hashes[n++] = afqm_flow_hash(1000 + i);
	}
	ok = true;
	mis = exact_run(&a, hashes, 40, 50000, &ok);
	CHECK(ok && mis == 0,
	      "exact mode without collisions: shadow == exact for 50000 packets (%llu differ)",
	      (ull)mis);
	free(a.sk.cells);
}

/* The table-full fallback.  Regression: a flow placed by the sketch while
 * the table was full, then given a slot, restarted from bid 0 and its
 * next packet overtook the queued ones.
 */
static void test_decide_table_full(void)
{
	struct afq_state a = { .bpr = 1000, .nqueues = 16 };
	static struct afq_slot slots[8];
	struct afq_verdict v;
	u32 i, idx[AFQ_ROWS_MAX];
	u64 r = 50, last;

	a.ex.slots = slots;
	a.ex.mask = 7;
	if (sketch_new(&a.sk, 2, 1024, 11)) {
		CHECK(0, "allocation");
		return;
	}
	for (i = 0; i < 8; i++) {	/* 8 flows, 2 rounds each */
		afq_decide(&a, 200 + i, 2000, r, &v);
		afq_commit(&a, &v);
	}
	afq_decide(&a, 300, 1000, r, &v);
	afq_commit(&a, &v);
	afq_decide(&a, 300, 1000, r, &v);
	CHECK(v.table_full && !v.slot && v.b.round == r + 1 &&
	      v.shadow_round == v.b.round,
	      "table full: the 9th flow is placed by the sketch (round R + 1)");
	afq_commit(&a, &v);
	last = v.b.bid;
	CHECK(a.ex.full_bid == last, "the fallback bid is remembered (%llu)",
	      (ull)a.ex.full_bid);
	/* R + 1: the 8 flows' last packets are in round R + 1 too, so
	 * their bids (R + 2) * bpr are above the floor; make one idle.
	 */
	slots[3].bid = (r + 1) * 1000;
	afq_decide(&a, 300, 100, r + 1, &v);
	CHECK(v.slot && !v.table_full && v.b.bid > last &&
	      v.b.round >= r + 1,
	      "given a slot, its next packet does not overtake the sketch-placed one (bid %llu > %llu)",
	      (ull)v.b.bid, (ull)last);
	afq_commit(&a, &v);

	/* Once R has passed every fallback bid, a fresh slot is exact
	 * again even where the sketch over-estimates.
	 */
	afq_sketch_index(&a.sk, 400, idx);
	afq_sketch_update(&a.sk, idx, 90000);		/* a collision */
	afq_decide(&a, 400, 100, r + 10, &v);
	CHECK(v.slot && v.b.bid == (r + 10) * 1000 + 100 &&
	      v.shadow_round > v.b.round,
	      "after R passes the fallback bids, a new flow's bid is exact (shadow %llu rounds later)",
	      (ull)(v.shadow_round - v.b.round));
	free(a.sk.cells);
}

/* ---- 5. the whole scheduler ---- */

struct traffic {
	u32 nflows;
	u32 bpr;
	u32 rate;		/* link bytes per tick */
	double load[AFQM_MAX_FLOWS];	/* offered bytes per tick */
	u32 size[AFQM_MAX_FLOWS];	/* 0: random 64..1500 */
	double credit[AFQM_MAX_FLOWS];
	u32 next_len[AFQM_MAX_FLOWS];
};

static struct traffic tr;

static u32 pkt_size(u32 f)
{
	return tr.size[f] ? tr.size[f] : 64 + rnd(1437);
}

/* Offered loads in units of the fair share rate / N; sizes cycle over
 * 64, 200, 576, 1000, 1500 and random, flow 0 sends @aggr times its share.
 */
static void traffic_mix(u32 n, u32 bpr, double aggr, double lo, double hi)
{
	static const u32 sizes[] = { 64, 200, 576, 1000, 1500, 0 };
	double share;
	u32 f;

	memset(&tr, 0, sizeof(tr));
	tr.nflows = n;
	tr.bpr = bpr;
	tr.rate = n * bpr / 8;		/* a round lasts 8 ticks */
	share = (double)tr.rate / n;
	for (f = 0; f < n; f++) {
		/* flows 1.. cycle over 7 loads from @lo to @hi */
		double step = n > 2 ? (f + 6) % 7 / 6.0 : 0.5;

		tr.load[f] = f ? share * (lo + (hi - lo) * step) : share * aggr;
		tr.size[f] = sizes[f % 6];
		tr.next_len[f] = pkt_size(f);
	}
}

/* One tick: arrivals (starting at a rotating flow), then the link */
static void traffic_tick(struct afq_model *md, u64 t)
{
	u32 i, f;

	for (i = 0; i < tr.nflows; i++) {
		f = (u32)((t * 7 + i) % tr.nflows);
		tr.credit[f] += tr.load[f];
		while (tr.credit[f] >= tr.next_len[f]) {
			tr.credit[f] -= tr.next_len[f];
			afqm_enqueue(md, f, tr.next_len[f]);
			tr.next_len[f] = pkt_size(f);
		}
	}
	afqm_tick(md, tr.rate);
	if (!(t % 64))
		afqm_check_all(md);
}

static void run_ticks(struct afq_model *md, u64 *t, u64 n)
{
	u64 end = *t + n;

	while (*t < end && !md->error)
		traffic_tick(md, (*t)++);
}

static double jain(const struct afq_model *md, u32 n)
{
	double s = 0, s2 = 0, x;
	u32 f;

	for (f = 0; f < n; f++) {
		x = (double)md->flow[f].sent_bytes;
		s += x;
		s2 += x * x;
	}
	return s2 > 0 ? s * s / (n * s2) : 0;
}

static void test_fairness(void)
{
	static const u32 ns[] = { 2, 8, 32, 200 };
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = 2, .cols = 16384,
		.ecn_rounds = 8, .limit = AFQM_MAX_PKTS, .seed = 1,
		.head = 1000,
	};
	double j, agg, minf, fair, x;
	u64 t, total, rounds0;
	u32 i, n, f;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		n = ns[i];
		traffic_mix(n, cfg.bpr, 10.0, 1.2, 3.0);
		if (afqm_init(&m, &cfg)) {
			CHECK(0, "allocation");
			return;
		}
		t = 0;
		run_ticks(&m, &t, 60 * 8);		/* 60 rounds warm-up */
		afqm_reset_stats(&m);
		rounds0 = m.c.head;
		run_ticks(&m, &t, 300 * 8);		/* 300 rounds */
		total = 0;
		minf = 1e18;
		for (f = 0; f < n; f++) {
			x = (double)m.flow[f].sent_bytes;
			total += m.flow[f].sent_bytes;
			minf = x < minf ? x : minf;
		}
		fair = (double)total / n;
		j = jain(&m, n);
		agg = m.flow[0].sent_bytes / fair;
		CHECK(!m.error && j >= 0.99 && agg <= 1.1 && minf >= 0.9 * fair,
		      "N=%u, sizes 64..1500, loads 1.2..3x and one 10x: Jain %.5f, aggressive %.3fx fair, smallest %.3fx (%llu rounds)%s%s",
		      n, j, agg, minf / fair, (ull)(m.c.head - rounds0),
		      m.error ? ": " : "", m.error ? m.error : "");
		CHECK(total >= (u64)tr.rate * 300 * 8 - 3000 &&
		      m.flow[0].drops_horizon > 0 && m.drops_limit == 0,
		      "N=%u: the link never idled (%llu of %llu bytes), the aggressive flow hit the horizon %llu times",
		      n, (ull)total, (ull)tr.rate * 300 * 8,
		      (ull)m.flow[0].drops_horizon);
		for (f = 0; f < n; f++)
			tr.load[f] = 0;
		afqm_drain(&m);
		CHECK(!m.error && m.enqueued == m.dequeued && m.qlen == 0,
		      "N=%u: %llu packets each left once, per-flow in order, qlen never negative%s%s",
		      n, (ull)m.enqueued, m.error ? ": " : "",
		      m.error ? m.error : "");
		afqm_release(&m);
	}
}

/* Max-min fair rates of the offered loads: water-filling */
static void maxmin(const double *load, u32 n, double cap, double *alloc)
{
	bool done[AFQM_MAX_FLOWS] = { false };
	u32 f, left = n, fixed;
	double level;

	while (left) {
		level = cap / left;
		fixed = 0;
		for (f = 0; f < n; f++)
			if (!done[f] && load[f] <= level) {
				alloc[f] = load[f];
				cap -= load[f];
				done[f] = true;
				fixed++;
			}
		if (!fixed) {
			for (f = 0; f < n; f++)
				if (!done[f])
					alloc[f] = level;
			break;
		}
		left -= fixed;
	}
}

/* Flows below and above their share: how close each gets to its max-min
 * fair rate.  Returns Jain's index of rate / fair rate, -1 on error.
 */
static double maxmin_run(u32 n, u32 rows, u32 cols, double *dev, u32 *capped)
{
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = rows, .cols = cols,
		.limit = AFQM_MAX_PKTS, .seed = 2, .head = 5,
	};
	static double alloc[AFQM_MAX_FLOWS];
	double d, s = 0, s2 = 0, x, j;
	u64 t = 0, ticks = 300 * 8;
	u32 f;

	traffic_mix(n, cfg.bpr, 10.0, 0.2, 3.0);
	maxmin(tr.load, n, tr.rate, alloc);
	*dev = 0;
	*capped = 0;
	if (afqm_init(&m, &cfg))
		return -1;
	run_ticks(&m, &t, 60 * 8);
	afqm_reset_stats(&m);
	run_ticks(&m, &t, ticks);
	for (f = 0; f < n; f++) {
		x = m.flow[f].sent_bytes / (alloc[f] * ticks);
		d = fabs(x - 1);
		if (d > *dev)
			*dev = d;
		s += x;
		s2 += x * x;
		*capped += alloc[f] < tr.load[f] * 0.999;
	}
	j = m.error ? -1 : s * s / (n * s2);
	afqm_release(&m);
	return j;
}

static void test_maxmin(void)
{
	double j, dev;
	u32 capped;

	j = maxmin_run(32, 2, 16384, &dev, &capped);
	CHECK(j >= 0.99 && dev <= 0.05,
	      "max-min, N=32 on 2x16384, loads 0.2..3x + 10x (%u flows above the fair rate): Jain of rate/fair rate %.5f, worst flow off by %.2f%%",
	      capped, j, 100 * dev);
	j = maxmin_run(100, 2, 1024, &dev, &capped);
	CHECK(j >= 0.99 && dev <= 0.05,
	      "max-min, N=100 on 2x1024 (%u flows above the fair rate): Jain %.5f, worst flow off by %.2f%%",
	      capped, j, 100 * dev);
	/* Fig 5.15a: fairness goes once the flows outnumber the sketch */
	j = maxmin_run(100, 2, 64, &dev, &capped);
	CHECK(j >= 0 && j < 0.99 && dev > 0.2,
	      "... and it degrades when 100 flows share a 2x64 sketch: Jain %.5f, worst flow off by %.1f%%",
	      j, 100 * dev);
}

/* Misplacement rate of the sketch against exact bids (the fraction of
 * packets whose shadow round is later than the exact one): 100 flows, all
 * with packets queued, random sizes 64..1500, loads 1..3x their share
 * plus one 10x flow.  With lighter loads (0.2..3x, 74 flows queued on
 * average) the rates are the same within 0.02 points.
 */
static double misplaced_rate(u32 rows, u32 cols, u64 seed, double *extra,
			     double *active)
{
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = rows, .cols = cols,
		.limit = AFQM_MAX_PKTS, .exact_slots = 4096, .seed = seed,
		.head = 0,
	};
	u64 t = 0, busy = 0, end;
	double rate;
	u32 f;

	traffic_mix(100, cfg.bpr, 10.0, 1.0, 3.0);
	for (f = 0; f < AFQM_MAX_FLOWS; f++)
		tr.size[f] = 0;
	if (afqm_init(&m, &cfg))
		return -1;
	for (f = 0; f < 100; f++)
		m.flow[f].hash = afq_mix(seed * 1000003 + f);
	run_ticks(&m, &t, 40 * 8);
	afqm_reset_stats(&m);
	for (end = t + 200 * 8; t < end && !m.error;) {
		traffic_tick(&m, t++);
		for (f = 0; f < 100; f++)	/* flows with packets queued */
			busy += m.flow[f].queued > 0;
	}
	*active = (double)busy / (200 * 8);
	rate = m.exact_pkts ? (double)m.misplaced / m.exact_pkts : 1;
	*extra = m.misplaced ? (double)m.extra_rounds / m.misplaced : 0;
	if (m.error || m.table_full)
		rate = -1;
	afqm_release(&m);
	return rate;
}

/* Sketch geometries measured against exact bids, 16 seeds each */
static const u32 mis_geo[][2] = {
	{ 2, 16 }, { 2, 256 }, { 4, 256 }, { 2, 512 }, { 2, 1024 },
	{ 4, 1024 }, { 2, 2048 }, { 2, 4096 },
};

#define MIS_GEOS	(sizeof(mis_geo) / sizeof(mis_geo[0]))

static double mis_mean[MIS_GEOS], mis_worst[MIS_GEOS];

static double mis(u32 rows, u32 cols)
{
	u32 g;

	for (g = 0; g < MIS_GEOS; g++)
		if (mis_geo[g][0] == rows && mis_geo[g][1] == cols)
			return mis_mean[g];
	return -1;
}

static void test_misplacement(void)
{
	enum { SEEDS = 16 };
	double r, extra, late, act, active = 0;
	bool ok = true;
	u32 g, s;

	for (g = 0; g < MIS_GEOS; g++) {
		late = 0;
		for (s = 1; s <= SEEDS; s++) {
			r = misplaced_rate(mis_geo[g][0], mis_geo[g][1], s,
					   &extra, &act);
			ok &= r >= 0;
			mis_mean[g] += r / SEEDS;
			late += extra / SEEDS;
			active += act / (SEEDS * MIS_GEOS);
			if (r > mis_worst[g])
				mis_worst[g] = r;
		}
		printf("# misplacement %ux%u: %.3f%% of packets (worst seed %.3f%%), %.2f rounds late on average\n",
		       mis_geo[g][0], mis_geo[g][1], 100 * mis_mean[g],
		       100 * mis_worst[g], late);
	}
	CHECK(ok, "exact-mode runs with 100 flows: invariants held, no table overflow");
	CHECK(mis(2, 1024) < 0.01,
	      "2x1024 sketch, 100 flows (%.1f with packets queued on average): %.3f%% of packets misplaced over 16 seeds (thesis Fig 5.18: < 1%%)",
	      active, 100 * mis(2, 1024));
	CHECK(mis(2, 16) > 10 * mis(2, 1024) && mis(2, 16) > 0.05,
	      "2x16 sketch: misplacement grows to %.2f%% (%.0fx the 2x1024 rate)",
	      100 * mis(2, 16), mis(2, 16) / mis(2, 1024));
	CHECK(mis(2, 256) > mis(2, 1024) && mis(2, 1024) > mis(2, 4096),
	      "more columns, fewer misplacements: 2x256 %.3f%% > 2x1024 %.3f%% > 2x4096 %.3f%%",
	      100 * mis(2, 256), 100 * mis(2, 1024), 100 * mis(2, 4096));
	CHECK(mis(4, 256) < mis(2, 256) && mis(4, 1024) < mis(2, 1024),
	      "more rows, fewer misplacements: 4x256 %.3f%% < 2x256, 4x1024 %.3f%% < 2x1024",
	      100 * mis(4, 256), 100 * mis(4, 1024));
}

/* Per-flow ECN at 8 rounds ahead.  14 flows offer 0.3..0.8 of rate / 16,
 * which leaves 4.15 shares each to flows 0 (10x) and 1 (6x): those two
 * are above their max-min share and get marked, the 14 never are.
 */
static void test_ecn(void)
{
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = 2, .cols = 16384,
		.ecn_rounds = 8, .limit = AFQM_MAX_PKTS, .seed = 3,
	};
	u64 t = 0, light = 0;
	u32 f;

	traffic_mix(16, cfg.bpr, 10.0, 0.3, 0.8);
	tr.load[1] = 6.0 * tr.rate / 16;
	if (afqm_init(&m, &cfg)) {
		CHECK(0, "allocation");
		return;
	}
	run_ticks(&m, &t, 200 * 8);
	for (f = 2; f < 16; f++)
		light += m.flow[f].ecn;
	CHECK(!m.error && m.flow[0].ecn > 0 && m.flow[1].ecn > 0 && !light,
	      "ECN at 8 rounds: 10x flow marked %llu times, 6x flow %llu, 14 flows below their share 0",
	      (ull)m.flow[0].ecn, (ull)m.flow[1].ecn);
	afqm_release(&m);
}

/* A small packet limit: arrivals dropped, accounting exact */
static void test_limit(void)
{
	struct afqm_cfg cfg = {
		.nqueues = 16, .bpr = 1000, .rows = 2, .cols = 1024,
		.limit = 40, .exact_slots = 64, .seed = 4, .head = 77,
	};
	u64 t = 0;
	u32 f;

	traffic_mix(8, cfg.bpr, 10.0, 1.5, 4.0);
	if (afqm_init(&m, &cfg)) {
		CHECK(0, "allocation");
		return;
	}
	run_ticks(&m, &t, 500);
	CHECK(!m.error && m.drops_limit > 0 && m.qlen <= 40,
	      "limit 40: %llu arrivals dropped at the limit, qlen %lld",
	      (ull)m.drops_limit, (long long)m.qlen);
	for (f = 0; f < 8; f++)
		tr.load[f] = 0;
	afqm_drain(&m);
	CHECK(!m.error && m.enqueued == m.dequeued,
	      "limit 40: every one of %llu accepted packets left once, in order",
	      (ull)m.enqueued);
	afqm_release(&m);
}

/* What the qdisc must do on a change of bpr: bids are bytes of the old
 * bpr, R is a round.  Lowering bpr without clearing puts an idle flow
 * far beyond the horizon, and with the queue empty R never moves on: the
 * flow would be refused for good.
 */
static void test_bpr_change(void)
{
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = 2, .cols = 1024,
		.limit = 4096, .seed = 5,
	};
	struct afq_verdict v;
	u64 t = 0;

	traffic_mix(4, cfg.bpr, 2.0, 1.5, 1.5);
	if (afqm_init(&m, &cfg)) {
		CHECK(0, "allocation");
		return;
	}
	run_ticks(&m, &t, 4000);
	memset(tr.load, 0, sizeof(tr.load));
	afqm_drain(&m);
	m.a.bpr = 100;
	afq_decide(&m.a, m.flow[0].hash, 100, m.c.head, &v);
	CHECK(!m.error && v.horizon && v.ahead > 1000,
	      "bpr 1500 -> 100 without clearing (R %llu): an idle flow is %llu rounds ahead, refused while R cannot move",
	      (ull)m.c.head, (ull)v.ahead);
	afq_sketch_clear(&m.a.sk);
	afq_decide(&m.a, m.flow[0].hash, 100, m.c.head, &v);
	CHECK(!v.horizon && v.ahead == 0 && v.b.bumped,
	      "after afq_sketch_clear it starts in round R again");
	afqm_release(&m);
}

/* Bids reset with packets queued: the floor keeps every flow behind the
 * furthest queued day, and stops mattering once R has passed it
 */
static void test_floor(void)
{
	struct afq_state a = { .bpr = 1000, .nqueues = 32 };
	struct afq_exact ex = { 0 };
	struct afq_slot slots[64] = { { 0 } };
	struct afq_verdict v;
	u64 r = 50;

	if (sketch_new(&a.sk, 2, 256, 3)) {
		CHECK(0, "allocation");
		return;
	}
	a.floor = 60 * 1000;	/* queued packets reach day 60 */
	afq_decide(&a, 11, 1000, r, &v);
	CHECK(!v.horizon && v.b.round == 60,
	      "after a reset with day 60 queued, a forgotten flow starts at day 60, not R 50 (%llu)",
	      (ull)v.b.round);
	afq_commit(&a, &v);
	afq_decide(&a, 11, 1000, r, &v);
	CHECK(v.b.round == 61, "its next packet follows it (%llu)", (ull)v.b.round);
	ex.slots = slots;
	ex.mask = 63;
	a.ex = ex;
	afq_decide(&a, 12, 500, r, &v);
	CHECK(v.slot && v.b.round == 60,
	      "exact mode: a fresh slot starts at the floor too (%llu)", (ull)v.b.round);
	afq_decide(&a, 13, 500, 70, &v);
	CHECK(v.b.round == 70 && v.b.bumped,
	      "once R (70) has passed the floor it no longer matters (%llu)", (ull)v.b.round);
	free(a.sk.cells);
}

/* afq_refund(): a dropped packet's bytes go back to its flow, never below
 * the start of its round, and never from a cell another flow raised
 */
static void test_refund(void)
{
	struct afq_state a = { .bpr = 1000, .nqueues = 32 };
	static struct afq_slot slots[64];
	u32 ia[AFQ_ROWS_MAX], ib[AFQ_ROWS_MAX];
	u64 ha = afqm_flow_hash(1), hb = 0;
	struct afq_verdict v;
	u32 i;

	if (sketch_new(&a.sk, 2, 16, 3)) {
		CHECK(0, "allocation");
		return;
	}
	afq_sketch_index(&a.sk, ha, ia);
	/* a flow sharing exactly one of A's cells */
	for (i = 2; i < 1000 && !hb; i++) {
		afq_sketch_index(&a.sk, afqm_flow_hash(i), ib);
		if (ib[0] == ia[0] && ib[1] != ia[1])
			hb = afqm_flow_hash(i);
	}
	CHECK(hb, "a flow that shares one cell of another");
	afq_sketch_update(&a.sk, ia, 5700);
	afq_refund(&a, ha, 5700, 300, 5);
	CHECK(afq_sketch_read(&a.sk, ia) == 5400,
	      "refund of 300 bytes: bid 5700 back to %llu (5400)",
	      (ull)afq_sketch_read(&a.sk, ia));
	afq_refund(&a, ha, 5400, 600, 5);
	CHECK(afq_sketch_read(&a.sk, ia) == 5000,
	      "refund across the round start: %llu, not below round 5 (5000)",
	      (ull)afq_sketch_read(&a.sk, ia));
	afq_sketch_update(&a.sk, ib, 5900);
	afq_sketch_update(&a.sk, ia, 5600);
	afq_refund(&a, ha, 5600, 500, 5);
	CHECK(a.sk.cells[ia[0]] == 5900 && a.sk.cells[ia[1]] == 5100 &&
	      afq_sketch_read(&a.sk, ib) == 5900,
	      "a cell another flow raised stays (%llu), the flow's own goes back (%llu)",
	      (ull)a.sk.cells[ia[0]], (ull)a.sk.cells[ia[1]]);

	/* exact mode: the slot goes back; a stale bid changes nothing */
	a.ex.slots = slots;
	a.ex.mask = 63;
	afq_decide(&a, ha, 400, 7, &v);
	afq_commit(&a, &v);
	CHECK(v.slot && v.slot->bid == 7400, "exact slot bid 7400 (%llu)",
	      v.slot ? (ull)v.slot->bid : 0ULL);
	afq_refund(&a, ha, 7000, 400, 7);
	CHECK(v.slot && v.slot->bid == 7400,
	      "refund of a bid the flow no longer has: slot unchanged");
	afq_refund(&a, ha, 7400, 400, 7);
	CHECK(v.slot && v.slot->bid == 7000, "exact refund: slot back to 7000");
	free(a.sk.cells);
}

/* Overflow pushout with refunds on the whole scheduler: a buffer too small
 * for every flow's horizon, four flows at 1.4 and four at 4.2 times their
 * share.  Pushout keeps max-min fairness where dropping arrivals gives the
 * heavy flows the most; the pushed-out packets are always their flows'
 * latest (the model checks it), so refunds never reorder a flow.
 */
static double overload_jain(bool pushout, bool exact, u64 *pushed)
{
	struct afqm_cfg cfg = {
		.nqueues = 32, .bpr = 1500, .rows = 2, .cols = 1024,
		.limit = 60, .pushout = pushout, .seed = 5, .head = 3,
		.exact_slots = exact ? 256 : 0,
	};
	double share, j;
	u64 t = 0;
	u32 f;

	traffic_mix(8, cfg.bpr, 1, 1, 1);
	share = (double)tr.rate / 8;
	for (f = 0; f < 8; f++) {
		tr.load[f] = share * (f < 4 ? 1.4 : 4.2);
		tr.size[f] = 500;
		tr.next_len[f] = 500;
	}
	if (afqm_init(&m, &cfg)) {
		CHECK(0, "allocation");
		return 0;
	}
	run_ticks(&m, &t, 50 * 8);
	afqm_reset_stats(&m);
	run_ticks(&m, &t, 400 * 8);
	j = jain(&m, 8);
	*pushed = m.pushed_out;
	for (f = 0; f < 8; f++)
		tr.load[f] = 0;
	afqm_drain(&m);
	CHECK(!m.error, "overload, pushout %d exact %d: invariants hold (%s)",
	      pushout, exact, m.error ? m.error : "ok");
	afqm_release(&m);
	return j;
}

static void test_pushout(void)
{
	double drop, sketch, exact;
	u64 pushed, pushed_exact;

	drop = overload_jain(false, false, &pushed);
	sketch = overload_jain(true, false, &pushed);
	exact = overload_jain(true, true, &pushed_exact);
	CHECK(sketch >= 0.97 && exact >= 0.97 && pushed > 1000 &&
	      pushed_exact > 1000,
	      "overloaded buffer, pushout: Jain %.4f (sketch), %.4f (exact), %llu pushed out",
	      sketch, exact, (ull)pushed);
	CHECK(drop < sketch - 0.05,
	      "... dropping arrivals instead: Jain %.4f", drop);
}

int main(void)
{
	test_bid_basic();
	test_bid_sequence();
	test_bid_limits();
	test_bid_no_division();
	test_sketch_minmax();
	test_sketch_never_under();
	test_sketch_geometry();
	test_sketch_hashing();
	test_exact();
	test_decide_horizon();
	test_decide_exact();
	test_decide_table_full();
	test_fairness();
	test_maxmin();
	test_misplacement();
	test_ecn();
	test_limit();
	test_bpr_change();
	test_floor();
	test_refund();
	test_pushout();
	return unit_done();
}
