/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Algorithm core of sch_calq, the programmable calendar queue (Sharma,
 * chapter 4): where a packet's rank puts it on the calendar, the clock of
 * a physical calendar, the Shoal slack/deadline field, the slack left
 * after a hop, and the FIFO-within-a-day inversion count.  The calendar
 * itself (ring, bitmap, horizon) is calendar_core.h.  Plain C, no kernel
 * calls: the module and the userspace unit tests build this file.
 *
 * A rank becomes a signed offset in days from the head: negative means a
 * day already past (served at the head), and offsets are saturated well
 * inside the s64 range, so `head + offset` is exact modulo 2^64 and the
 * calendar's relative comparisons stay right when absolute days wrap.
 *
 * Physical time is kept as `base`, the CLOCK_MONOTONIC ns at which the
 * head day starts (the thesis's epoch + head * dT); the calendar is ahead
 * of real time by base - now (the thesis's delta).
 */
#ifndef _SHOAL_CALQ_CORE_H
#define _SHOAL_CALQ_CORE_H

#include <net/shoal/pkt_parse.h>
#include <net/shoal/wire.h>
#include "calendar_core.h"

#define CALQ_S64_MAX		((s64)(~0ULL >> 1))
#define CALQ_S64_MIN		(-CALQ_S64_MAX - 1)
#define CALQ_OFF_LIMIT		0x4000000000000000LL	/* 2^62 days: past any horizon */
#define CALQ_PARSE_LEN		192	/* IPv6 with options + UDP + Shoal */
#define CALQ_FIELD_FROM_UDP	(8 + SHOAL_OFF_DEADLINE)	/* UDP + Shoal */

/* What a queued packet's fine rank is; decides misses and inversions */
enum calq_kind {
	CALQ_K_NONE,		/* fallback head/last: no fine rank */
	CALQ_K_TSTAMP,		/* EDT departure time, ns */
	CALQ_K_VALUE,		/* skb->priority or skb->mark */
	CALQ_K_SLACK,		/* arrival + slack (a virtual deadline), ns */
	CALQ_K_DEADLINE,	/* absolute deadline, ns */
	CALQ_K_BID,		/* AFQ bid, bytes */
};

enum calq_shoal_res {
	CALQ_SH_OK,
	CALQ_SH_NOTIP,		/* not IPv4/IPv6 */
	CALQ_SH_FRAG,		/* an IP fragment: no UDP header to trust */
	CALQ_SH_MALFORMED,	/* IP or UDP headers not sound */
	CALQ_SH_NOTUDP,
	CALQ_SH_PORT,		/* UDP to another port */
	CALQ_SH_SHORT,		/* the field is not in the packet (or the copy) */
	CALQ_SH_VERSION,	/* not Shoal version 1 */
	CALQ_SH_NOFLAG,		/* SHOAL_F_DEADLINE clear: no field */
	CALQ_SH_HDRLEN,		/* hdr_len says the field is not there */
};

struct calq_shoal {
	u64 field;		/* the 64-bit field, host order */
	u16 off;		/* its offset from the network header */
	u16 l4off;		/* the UDP header's offset */
	u8 ipver;
};

/* The calendar's notion of time */
struct calq_clock {
	u64 base;		/* physical: CLOCK_MONOTONIC ns the head day starts */
	u64 interval;		/* ns per day, >= 1 */
	bool physical;
};

/* Largest fine rank that left a bucket since it was last empty */
struct calq_order {
	u64 max;
	bool valid;
};

/* Find the Shoal slack/deadline field in @avail bytes at the network
 * header of a packet of @pktlen bytes from there on: a UDP packet to
 * @port, not a fragment, Shoal version 1 with SHOAL_F_DEADLINE and a
 * header long enough to hold the field.  The shared parsers read the
 * headers (pkt_parse.h, wire.h); only these checks are calq's.
 */
static inline enum calq_shoal_res calq_parse_shoal(const u8 *p, u32 avail,
						   u32 pktlen, u16 port,
						   struct calq_shoal *sh)
{
	struct shoal_wire_pkt w;
	struct shoal_pkt_hdrs pk;
	enum shoal_pkt_res c;
	u32 hdr, end;

	c = shoal_pkt_parse(p, avail, pktlen, &pk);
	if (c == SHOAL_PKT_NONIP)
		return CALQ_SH_NOTIP;
	if (c == SHOAL_PKT_FRAG)
		return CALQ_SH_FRAG;
	if (c != SHOAL_PKT_OK)
		return CALQ_SH_MALFORMED;
	if (pk.l4proto != 17)
		return CALQ_SH_NOTUDP;
	if (pk.dport != port)
		return CALQ_SH_PORT;
	hdr = (u32)pk.l4off + 8;
	end = hdr + SHOAL_HDR_DEADLINE_LEN;
	if (end > pk.l3len || end > avail)
		return CALQ_SH_SHORT;
	if (shoal_wire_read(p + hdr, avail - hdr, &w))
		return CALQ_SH_SHORT;
	if (w.version != SHOAL_VERSION)
		return CALQ_SH_VERSION;
	if (!(w.flags & SHOAL_F_DEADLINE))
		return CALQ_SH_NOFLAG;
	if (w.hdr_len < SHOAL_HDR_DEADLINE_LEN)
		return CALQ_SH_HDRLEN;
	sh->field = w.deadline;
	sh->off = (u16)(hdr + SHOAL_OFF_DEADLINE);
	sh->l4off = pk.l4off;
	sh->ipver = pk.ipver;
	return CALQ_SH_OK;
}

/* floor(@a / @d) for a signed @a and 1 <= @d < 2^63 */
static inline s64 calq_floor_div(s64 a, u64 d)
{
	if (a >= 0)
		return (s64)shoal_div64((u64)a, d);
	/* -a - 1 never overflows, and floor(a/d) = -((-a - 1)/d) - 1 */
	return -(s64)shoal_div64((u64)(-(a + 1)), d) - 1;
}

/* Offsets are kept so that offset * interval fits in 62 bits: a physical
 * head may jump that far (base moves with it) without overflowing.
 */
static inline s64 calq_off_max(const struct calq_clock *ck)
{
	if (!ck->physical)
		return CALQ_OFF_LIMIT;
	return (s64)shoal_div64((u64)CALQ_OFF_LIMIT, ck->interval);
}

static inline s64 calq_off_sat(const struct calq_clock *ck, s64 off)
{
	s64 max = calq_off_max(ck);

	if (off > max)
		return max;
	if (off < -max)
		return -max;
	return off;
}

/* Days from the head to the day of time @t (ns).  Physical: the
 * wall-clock day of @t; logical: whole intervals from @now.  Times more
 * than 2^63 ns before the reference count as past.
 */
static inline s64 calq_off_time(const struct calq_clock *ck, u64 now, u64 t)
{
	s64 d = (s64)(t - (ck->physical ? ck->base : now));

	return calq_off_sat(ck, calq_floor_div(d, ck->interval));
}

/* Days from the head for @slack ns of slack left at @now (LSTF): the day
 * of now + slack on a physical calendar, slack / interval on a logical one.
 */
static inline s64 calq_off_slack(const struct calq_clock *ck, u64 now,
				 s64 slack)
{
	s64 d = slack;

	if (ck->physical &&
	    __builtin_add_overflow(slack, (s64)(now - ck->base), &d))
		d = slack < 0 ? CALQ_S64_MIN : CALQ_S64_MAX;
	return calq_off_sat(ck, calq_floor_div(d, ck->interval));
}

/* Days from the head for a priority or mark: value >> shift */
static inline s64 calq_off_value(const struct calq_clock *ck, u32 v, u8 shift)
{
	return calq_off_sat(ck, (s64)((u64)v >> (shift & 63)));
}

/* Days from the head for something already counted in days (AFQ rounds) */
static inline s64 calq_off_days(const struct calq_clock *ck, u64 days)
{
	u64 max = (u64)calq_off_max(ck);

	return (s64)(days > max ? max : days);
}

/* The absolute day @off days from @head; wraps like the calendar does */
static inline u64 calq_day(u64 head, s64 off)
{
	return head + (u64)off;
}

/* Physical: whole days from the head day to the day holding @now; 0 when
 * the head day holds now or lies ahead of it.
 */
static inline u64 calq_days_due(const struct calq_clock *ck, u64 now)
{
	s64 d = (s64)(now - ck->base);

	return d > 0 ? shoal_div64((u64)d, ck->interval) : 0;
}

/* Move the head forward to @day (never past the earliest non-empty day,
 * see cal_advance); a physical calendar's base moves with it.  Returns the
 * days moved.
 */
static inline u64 calq_move_head(struct cal_core *c, struct calq_clock *ck,
				 u64 day)
{
	u64 old = c->head;

	cal_advance(c, day);
	if (ck->physical)
		ck->base += (c->head - old) * ck->interval;
	return c->head - old;
}

/* Physical: the head moves to the day holding @now, stale days first */
static inline u64 calq_rotate_time(struct cal_core *c, struct calq_clock *ck,
				   u64 now)
{
	u64 due = calq_days_due(ck, now);

	return due ? calq_move_head(c, ck, c->head + due) : 0;
}

/* Physical: the calendar drained.  If it ran ahead of real time, the head
 * day starts now again (the thesis resets delta to 0 when the buffer
 * empties), so a later packet is never placed ahead of its real time.
 */
static inline void calq_reanchor(struct calq_clock *ck, u64 now)
{
	if ((s64)(ck->base - now) > 0)
		ck->base = now;
}

/* Physical: when day @day (at or after the head) starts, in ns */
static inline u64 calq_day_start(const struct cal_core *c,
				 const struct calq_clock *ck, u64 day)
{
	return ck->base + (day - c->head) * ck->interval;
}

/* How far the calendar runs ahead of real time (the thesis's delta) */
static inline s64 calq_ahead_ns(const struct calq_clock *ck, u64 now)
{
	return ck->physical ? (s64)(ck->base - now) : 0;
}

/* @slack minus @sojourn, saturated at the s64 range */
static inline s64 calq_slack_sub(s64 slack, u64 sojourn)
{
	s64 r;

	if (sojourn > (u64)CALQ_S64_MAX) {
		/* the result is negative; exact while it fits */
		if (slack < 0 || sojourn - (u64)slack > (u64)CALQ_S64_MAX + 1)
			return CALQ_S64_MIN;
		return (s64)((u64)slack - sojourn);
	}
	if (__builtin_sub_overflow(slack, (s64)sojourn, &r))
		return CALQ_S64_MIN;
	return r;
}

/* Slack left when a packet leaves at @now: it arrived with @slack and was
 * given the fine rank @fine = arrival + slack, so the arrival time is
 * fine - slack and the sojourn follows without keeping it.
 */
static inline s64 calq_slack_left(s64 slack, u64 fine, u64 now)
{
	return calq_slack_sub(slack, now - (fine - (u64)slack));
}

/* Did a packet due at @t leave more than @grace ns after @t? */
static inline bool calq_late(u64 now, u64 t, u64 grace)
{
	s64 d = (s64)(now - t);

	return d > 0 && (u64)d > grace;
}

/* A packet of fine rank @fine leaves its bucket.  True (an inversion)
 * when a packet of larger rank left the same bucket before it since the
 * bucket was last empty; ranks compare modulo 2^64 like days.
 */
static inline bool calq_order_leave(struct calq_order *o, u64 fine)
{
	if (o->valid && (s64)(fine - o->max) < 0)
		return true;
	o->max = fine;
	o->valid = true;
	return false;
}

/* Set CE on a packet leaving while @backlog bytes are queued, itself
 * included?  Only above a non-zero @thresh.  Bytes queued, not days
 * ahead: a calq rank (a deadline, a departure time, a priority) says when
 * a packet should leave, not how congested the port is, and a packet
 * paced far ahead on an idle port is no congestion signal.  The backlog
 * is what the port has to drain, the signal trim's ecn_thresh and DCTCP's
 * K give.
 */
static inline bool calq_ecn_mark(u32 thresh, u32 backlog)
{
	return thresh && backlog > thresh;
}

/* Would a packet of @len bytes exceed the limits? */
static inline bool calq_full(u32 qlen, u32 backlog, u32 len, u32 limit,
			     u32 limit_bytes)
{
	return qlen >= limit ||
	       (limit_bytes && (u64)backlog + len > limit_bytes);
}

static inline bool calq_over(u32 qlen, u32 backlog, u32 limit, u32 limit_bytes)
{
	return qlen > limit || (limit_bytes && backlog > limit_bytes);
}

#endif /* _SHOAL_CALQ_CORE_H */
