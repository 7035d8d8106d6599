/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calendar queue core shared by sch_afq and sch_calq (Sharma, chapters 4
 * and 5): N buckets used as a rotating calendar of "days".  A packet of
 * day d goes to bucket d mod N; the head is an absolute 64-bit day that
 * only moves forward.  This file keeps the geometry, the non-empty bitmap
 * and the horizon policy; the caller keeps the FIFOs themselves and tells
 * the core when a bucket becomes empty or non-empty.
 *
 * Days are compared by their distance from the head (u64 arithmetic), so
 * the absolute indices may wrap around 2^64.  Plain C, no kernel calls.
 */
#ifndef _SHOAL_CALENDAR_CORE_H
#define _SHOAL_CALENDAR_CORE_H

#include <net/shoal/types.h>

#define CAL_MAX_BUCKETS		4096
#define CAL_WORDS		(CAL_MAX_BUCKETS / 64)

enum cal_horizon {
	CAL_HORIZON_DROP,	/* a day beyond the calendar is refused */
	CAL_HORIZON_CLAMP,	/* it goes to the last bucket */
	CAL_HORIZON_OVERFLOW,	/* the caller parks it until it comes in range */
};

enum cal_place {
	CAL_PLACED,
	CAL_DROPPED,
	CAL_PARKED,
};

struct cal_stats {
	u64 rotations;		/* head moves */
	u64 clamped_past;	/* days before the head, served at the head */
	u64 clamped_future;	/* days beyond the horizon, put in the last bucket */
	u64 horizon_drops;
	u64 parked;		/* days beyond the horizon, parked (overflow) */
};

struct cal_core {
	u64 head;		/* absolute day of the head bucket */
	u32 nbuckets;		/* power of 2, 2..CAL_MAX_BUCKETS */
	u32 nonempty;		/* buckets marked non-empty */
	u8 horizon;		/* enum cal_horizon */
	u64 bitmap[CAL_WORDS];	/* bit b: bucket b is non-empty */
	struct cal_stats st;
};

static inline bool cal_valid_nbuckets(u32 n)
{
	return n >= 2 && n <= CAL_MAX_BUCKETS && !(n & (n - 1));
}

/* Start an empty calendar whose head is @head */
static inline void cal_init(struct cal_core *c, u32 nbuckets, u8 horizon,
			    u64 head)
{
	u32 i;

	c->head = head;
	c->nbuckets = nbuckets;
	c->nonempty = 0;
	c->horizon = horizon;
	for (i = 0; i < CAL_WORDS; i++)
		c->bitmap[i] = 0;
	c->st = (struct cal_stats){ 0 };
}

static inline u32 cal_bucket(const struct cal_core *c, u64 day)
{
	return (u32)(day & (c->nbuckets - 1));
}

/* Is @day before the head?  Half the u64 range counts as the past. */
static inline bool cal_before_head(const struct cal_core *c, u64 day)
{
	return (s64)(day - c->head) < 0;
}

/* Is @day within the calendar, head included? */
static inline bool cal_in_range(const struct cal_core *c, u64 day)
{
	return !cal_before_head(c, day) && day - c->head < c->nbuckets;
}

/* Decide where a packet of @day goes.  On CAL_PLACED, *@day is the day it
 * is queued under (clamped as the policy says) and *@bucket its bucket.
 */
static inline enum cal_place cal_place(struct cal_core *c, u64 *day,
				       u32 *bucket)
{
	if (cal_before_head(c, *day)) {
		c->st.clamped_past++;
		*day = c->head;
	} else if (*day - c->head >= c->nbuckets) {
		switch (c->horizon) {
		case CAL_HORIZON_CLAMP:
			c->st.clamped_future++;
			*day = c->head + c->nbuckets - 1;
			break;
		case CAL_HORIZON_OVERFLOW:
			c->st.parked++;
			return CAL_PARKED;
		default:
			c->st.horizon_drops++;
			return CAL_DROPPED;
		}
	}
	*bucket = cal_bucket(c, *day);
	return CAL_PLACED;
}

static inline bool cal_is_marked(const struct cal_core *c, u32 bucket)
{
	return (c->bitmap[bucket / 64] >> (bucket % 64)) & 1;
}

/* The caller's FIFO for @bucket went from empty to non-empty */
static inline void cal_mark(struct cal_core *c, u32 bucket)
{
	if (!cal_is_marked(c, bucket)) {
		c->bitmap[bucket / 64] |= 1ULL << (bucket % 64);
		c->nonempty++;
	}
}

/* The caller's FIFO for @bucket became empty */
static inline void cal_unmark(struct cal_core *c, u32 bucket)
{
	if (cal_is_marked(c, bucket)) {
		c->bitmap[bucket / 64] &= ~(1ULL << (bucket % 64));
		c->nonempty--;
	}
}

/* v != 0 in both; the builtins become single bsf/bsr instructions */
static inline u32 cal_ctz64(u64 v)
{
	return (u32)__builtin_ctzll(v);
}

static inline u32 cal_clz64(u64 v)
{
	return (u32)__builtin_clzll(v);
}

/* First marked bucket at or after @from (no wrap), or nbuckets */
static inline u32 cal_scan(const struct cal_core *c, u32 from)
{
	u32 w = from / 64, words = (c->nbuckets + 63) / 64;
	u64 bits;

	if (from >= c->nbuckets)
		return c->nbuckets;
	bits = c->bitmap[w] & (~0ULL << (from % 64));
	for (;;) {
		if (bits) {
			from = w * 64 + cal_ctz64(bits);
			return from < c->nbuckets ? from : c->nbuckets;
		}
		if (++w >= words)
			return c->nbuckets;
		bits = c->bitmap[w];
	}
}

/* The earliest non-empty day at or after the head, in *@day.  Returns
 * false when the calendar is empty.  At most N/64 word reads.
 */
static inline bool cal_next_day(const struct cal_core *c, u64 *day)
{
	u32 hb = cal_bucket(c, c->head), b;

	if (!c->nonempty)
		return false;
	b = cal_scan(c, hb);
	if (b < c->nbuckets) {
		*day = c->head + (b - hb);
		return true;
	}
	b = cal_scan(c, 0);	/* wrapped: days beyond the end of the ring */
	*day = c->head + (c->nbuckets - hb) + b;
	return true;
}

/* Last marked bucket at or before @from (no wrap), or nbuckets */
static inline u32 cal_scan_back(const struct cal_core *c, u32 from)
{
	u32 w = from / 64;
	u64 bits;

	bits = c->bitmap[w] & (~0ULL >> (63 - from % 64));
	for (;;) {
		if (bits)
			return w * 64 + 63 - cal_clz64(bits);
		if (!w--)
			return c->nbuckets;
		bits = c->bitmap[w];
	}
}

/* The latest non-empty day (the furthest ahead of the head) in *@day.
 * Returns false when the calendar is empty.
 */
static inline bool cal_last_day(const struct cal_core *c, u64 *day)
{
	u32 hb = cal_bucket(c, c->head), b;

	if (!c->nonempty)
		return false;
	if (hb) {
		b = cal_scan_back(c, hb - 1);	/* days past the ring's end */
		if (b < c->nbuckets) {
			*day = c->head + (c->nbuckets - hb) + b;
			return true;
		}
	}
	b = cal_scan_back(c, c->nbuckets - 1);
	*day = c->head + (b - hb);
	return true;
}

/* Move the head forward to @day, but never backward and never past the
 * earliest non-empty day: stale packets are served first, so every queued
 * day stays within [head, head + N).
 */
static inline void cal_advance(struct cal_core *c, u64 day)
{
	u64 next;

	if (cal_next_day(c, &next) && (s64)(next - day) < 0)
		day = next;
	if (cal_before_head(c, day) || day == c->head)
		return;
	c->head = day;
	c->st.rotations++;
}

#endif /* _SHOAL_CALENDAR_CORE_H */
