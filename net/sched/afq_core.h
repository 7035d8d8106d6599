/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Approximate fair queueing core (Sharma, chapter 5, Fig. 5.2): per-flow
 * bids, in bytes of virtual time, kept in a count-min sketch read with min
 * and updated with max; coarse rounds of `bpr` bytes; the round of a
 * packet decides its calendar day (calendar_core.h does the rest).
 *
 * Also an exact per-flow bid table for the ablation the thesis measures in
 * Fig. 5.18: the exact bid places the packet and the sketch is kept as a
 * shadow, so we count how often the sketch would have put a packet in a
 * later round.  The table is open addressing over caller-owned memory; a
 * slot whose bid is below the current round's start is free, because the
 * idle bump makes such a bid equal to zero.  A flow that finds no free
 * slot is placed by the sketch; while such packets may be queued, a flow
 * taking a fresh slot starts from its sketch bid so that it keeps its
 * order.  Plain C, no kernel calls.
 */
#ifndef _SHOAL_AFQ_CORE_H
#define _SHOAL_AFQ_CORE_H

#include <net/shoal/types.h>

#define AFQ_ROWS_MAX		8
#define AFQ_PROBE		8	/* exact table: slots looked at per flow */

struct afq_sketch {
	u64 *cells;		/* rows * cols, row-major */
	u32 rows;
	u32 cols_log;		/* cols = 1 << cols_log */
	u64 seed[AFQ_ROWS_MAX];	/* one per row, mixed into the flow hash */
};

struct afq_slot {
	u64 key;		/* flow hash */
	u64 bid;
};

struct afq_exact {
	struct afq_slot *slots;
	u32 mask;		/* slots - 1, slots a power of 2 */
	u64 full_bid;		/* largest bid placed by the sketch, no slot */
};

/* The verdict on one arriving packet */
struct afq_bid {
	u64 bid;		/* the flow's bid after this packet */
	u64 round;		/* round of the packet's last byte */
	bool bumped;		/* the flow was idle: bid raised to R * bpr */
};

static inline u32 afq_log2(u32 v)
{
	return 31 - (u32)__builtin_clz(v);
}

/* A 64-bit finaliser (splitmix64): every input bit moves every output bit,
 * so rows indexed from one flow hash with different seeds collide
 * independently.
 */
static inline u64 afq_mix(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline void afq_sketch_seed(struct afq_sketch *s, u64 seed)
{
	u32 j;

	for (j = 0; j < AFQ_ROWS_MAX; j++)
		s->seed[j] = afq_mix(seed + 0x9e3779b97f4a7c15ULL * (j + 1));
}

/* Cell of @hash in each row, as offsets into s->cells */
static inline void afq_sketch_index(const struct afq_sketch *s, u64 hash,
				    u32 *idx)
{
	u32 j;

	for (j = 0; j < s->rows; j++)
		idx[j] = (j << s->cols_log) +
			 (u32)(afq_mix(hash ^ s->seed[j]) >> (64 - s->cols_log));
}

/* Min-read: collisions only ever raise the estimate */
static inline u64 afq_sketch_read(const struct afq_sketch *s, const u32 *idx)
{
	u64 v = ~0ULL;
	u32 j;

	for (j = 0; j < s->rows; j++)
		if (s->cells[idx[j]] < v)
			v = s->cells[idx[j]];
	return v;
}

/* Max-update: each cell keeps the largest bid of the flows mapped to it */
static inline void afq_sketch_update(struct afq_sketch *s, const u32 *idx,
				     u64 bid)
{
	u32 j;

	for (j = 0; j < s->rows; j++)
		if (s->cells[idx[j]] < bid)
			s->cells[idx[j]] = bid;
}

static inline void afq_sketch_clear(struct afq_sketch *s)
{
	u64 n = (u64)s->rows << s->cols_log, i;

	for (i = 0; i < n; i++)
		s->cells[i] = 0;
}

/* The bid of a packet of @len bytes whose flow's last bid is @prev, in
 * round @round_now.  The packet belongs to the round of its last byte:
 * a packet that exactly fills a round stays in it (the thesis's bid / bpr
 * would push it to the next one).  @bpr and @len are at least 1.
 */
static inline void afq_bid(u64 prev, u64 round_now, u32 bpr, u32 len,
			   struct afq_bid *out)
{
	u64 now_start, start;
	bool exact;

	/* round_now * bpr, and whether it is the true product */
	exact = !__builtin_mul_overflow(round_now, (u64)bpr, &now_start);
	start = now_start;
	out->bumped = prev < start;
	if (!out->bumped)
		start = prev;
	out->bid = start + len;
	/* Most packets end in the current round (every new or idle flow's
	 * does): then the quotient is round_now, and a 64-bit division,
	 * a helper call under emulation, is saved.  Only when nothing
	 * wrapped, so the result is the division's in every case.
	 */
	if (exact && out->bid > start && out->bid - 1 - now_start < bpr)
		out->round = round_now;
	else
		out->round = shoal_div64(out->bid - 1, (u64)bpr);
}

/* Exact table: the slot of flow @key, taking a free one (a bid at or
 * below @floor, the start of the current round) if it has none.  NULL
 * when all AFQ_PROBE slots of its window hold live flows.
 */
static inline struct afq_slot *afq_exact_slot(struct afq_exact *t, u64 key,
					      u64 floor)
{
	struct afq_slot *free_slot = NULL, *sl;
	u32 base = (u32)afq_mix(key), i;

	for (i = 0; i < AFQ_PROBE; i++) {
		sl = &t->slots[(base + i) & t->mask];
		if (sl->key == key)
			return sl;
		if (!free_slot && sl->bid <= floor)
			free_slot = sl;
	}
	if (free_slot) {
		free_slot->key = key;
		free_slot->bid = 0;
	}
	return free_slot;
}

/* One AFQ instance's bid state and the parameters it is checked with */
struct afq_state {
	struct afq_sketch sk;
	struct afq_exact ex;	/* ex.slots NULL: sketch mode */
	u32 bpr;		/* bytes per round, >= 1 */
	u32 nqueues;		/* rounds ahead that fit, >= 1 */
	u32 ecn_rounds;		/* 0 = no marking */
	u64 floor;		/* no bid starts below this, see afq_decide() */
};

struct afq_verdict {
	u32 idx[AFQ_ROWS_MAX];
	struct afq_slot *slot;	/* exact mode: the flow's slot */
	struct afq_bid b;
	u64 ahead;		/* b.round - the current round */
	u64 shadow_round;	/* exact mode: the round the sketch gives */
	bool horizon;		/* nqueues or more rounds ahead: drop */
	bool ecn;		/* ecn_rounds or more ahead: mark */
	bool table_full;	/* exact mode without a slot: sketch bid used */
};

/* Decide about a packet of @len bytes of flow @hash in round @round_now.
 * Only a free exact slot may be taken (harmless: it held no live bid);
 * afq_commit() records the bid once the packet is really queued, so a
 * dropped packet costs its flow nothing.
 */
static inline void afq_decide(struct afq_state *a, u64 hash, u32 len,
			      u64 round_now, struct afq_verdict *v)
{
	u64 sketched, prev, start = round_now * a->bpr;
	struct afq_bid shadow;

	afq_sketch_index(&a->sk, hash, v->idx);
	sketched = afq_sketch_read(&a->sk, v->idx);
	/* The bids were reset while packets were queued (a new sketch,
	 * key or round size): no flow may start before the furthest queued
	 * day, or its next packet could overtake its own queued ones.
	 */
	if (sketched < a->floor)
		sketched = a->floor;
	prev = sketched;
	v->slot = NULL;
	v->table_full = false;
	if (a->ex.slots) {
		v->slot = afq_exact_slot(&a->ex, hash, start);
		v->table_full = !v->slot;
	}
	if (v->slot) {
		prev = v->slot->bid;
		/* An idle slot may belong to a flow whose packets the sketch
		 * placed while the table was full; those may still be queued
		 * (a bid above R * bpr), so start no lower than the sketch
		 * or this packet would overtake them.
		 */
		if (prev <= start && a->ex.full_bid > start && prev < sketched)
			prev = sketched;
		if (prev < a->floor)
			prev = a->floor;
	}
	afq_bid(prev, round_now, a->bpr, len, &v->b);
	v->shadow_round = v->b.round;	/* sketch mode: the sketch placed it */
	if (a->ex.slots) {
		afq_bid(sketched, round_now, a->bpr, len, &shadow);
		v->shadow_round = shadow.round;
	}
	v->ahead = v->b.round - round_now;
	v->horizon = v->ahead >= a->nqueues;	/* the thesis's "> nQ" wraps */
	v->ecn = a->ecn_rounds && v->ahead >= a->ecn_rounds;
}

static inline void afq_commit(struct afq_state *a, const struct afq_verdict *v)
{
	afq_sketch_update(&a->sk, v->idx, v->b.bid);
	if (v->slot)
		v->slot->bid = v->b.bid;
	else if (v->table_full && a->ex.full_bid < v->b.bid)
		a->ex.full_bid = v->b.bid;
}

/* A queued packet of flow @hash, whose bid was @bid, in round @round, is
 * dropped after all (pushed out, or cut by a smaller limit): give its @len
 * bytes back, so a flow pays for what it sends and not for what the buffer
 * threw away.  (Charged for its pushed-out packets, a heavy flow runs
 * ahead to the horizon and ends up with less than its share.)  The packet
 * was the tail of the furthest round, so it was its flow's latest: a cell
 * that still holds @bid holds it for this flow, or for others whose bids
 * are no larger.  Such a cell goes back by @len, but never below the start
 * of @round: every flow that may share it has its packets in rounds up to
 * @round, so its next packet still lands no earlier than its queued ones
 * (no reordering), at most @len bytes early.  A cell another flow raised
 * above @bid stays.
 */
static inline void afq_refund(struct afq_state *a, u64 hash, u64 bid, u32 len,
			      u64 round)
{
	u64 to = bid - len, start = round * a->bpr;
	u32 idx[AFQ_ROWS_MAX], base, j;
	struct afq_slot *sl;

	if (to < start)
		to = start;
	afq_sketch_index(&a->sk, hash, idx);
	for (j = 0; j < a->sk.rows; j++)
		if (a->sk.cells[idx[j]] == bid)
			a->sk.cells[idx[j]] = to;
	if (!a->ex.slots)
		return;
	base = (u32)afq_mix(hash);
	for (j = 0; j < AFQ_PROBE; j++) {
		sl = &a->ex.slots[(base + j) & a->ex.mask];
		if (sl->key == hash) {
			if (sl->bid == bid)
				sl->bid = to;
			return;
		}
	}
}

static inline void afq_exact_clear(struct afq_exact *t)
{
	u32 i;

	for (i = 0; i <= t->mask; i++)
		t->slots[i] = (struct afq_slot){ 0 };
	t->full_bid = 0;
}

#endif /* _SHOAL_AFQ_CORE_H */
