/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte bookkeeping of one message in flight, shared by SIRD and PL2:
 * which bytes a receiver has (packets arrive in any order, twice, or cut
 * by a switch) and which a sender sends next (what was asked for again
 * first, then new bytes up to what it may send).  Plain C with no kernel
 * calls and no allocation: fixed-size state in the message, unit-tested
 * and fuzzed in userspace.  The caller serialises calls on one message
 * (its lock).
 *
 * Ranges are [start, end) byte offsets, u32 like the wire's: a message is
 * shorter than 2^32 bytes.
 */
#ifndef _SHOAL_MSG_CORE_H
#define _SHOAL_MSG_CORE_H

#include "../sched/core_types.h"

/* Disjoint pieces a receiver keeps apart.  Arrivals in order keep one;
 * each gap a loss or a reordering opens costs one until it is filled.
 */
#define SHOAL_RX_RANGES		16
#define SHOAL_RX_FULL		(-1)	/* a new piece would not fit */

/* Ranges a sender is asked to send again and has not yet */
#define SHOAL_TX_RESENDS	8

struct shoal_range {
	u32 start;
	u32 end;
};

struct shoal_rx_msg {
	u32 msg_len;
	u32 received;			/* bytes, each counted once */
	u32 n;				/* pieces in use */
	struct shoal_range have[SHOAL_RX_RANGES];	/* sorted, apart */
};

static inline void shoal_rx_init(struct shoal_rx_msg *m, u32 msg_len)
{
	m->msg_len = msg_len;
	m->received = 0;
	m->n = 0;
}

static inline bool shoal_rx_complete(const struct shoal_rx_msg *m)
{
	return m->received == m->msg_len;
}

/* Bytes [@off, @off + @len) arrived.  Returns how many of them are new:
 * 0 for a duplicate, which the caller drops and counts.  SHOAL_RX_FULL:
 * the piece touches none kept and there is no room for another; the
 * caller drops the packet (it is asked for again later) and nothing
 * changes.  The range must lie inside the message (the parser saw to it).
 */
static inline int shoal_rx_add(struct shoal_rx_msg *m, u32 off, u32 len)
{
	u32 end = off + len, first, last, i, covered = 0;
	u32 start = off;

	if (!len)
		return 0;
	/* the pieces this one touches or overlaps: first .. last - 1 */
	for (first = 0; first < m->n && m->have[first].end < off; first++)
		;
	for (last = first; last < m->n && m->have[last].start <= end; last++)
		covered += (m->have[last].end < end ? m->have[last].end : end) -
			   (m->have[last].start > off ? m->have[last].start :
							off);
	if (first == last) {
		if (m->n == SHOAL_RX_RANGES)
			return SHOAL_RX_FULL;
		for (i = m->n; i > first; i--)
			m->have[i] = m->have[i - 1];
		m->n++;
	} else {
		/* touching pieces count no overlap but are merged too */
		if (m->have[first].start < start)
			start = m->have[first].start;
		if (m->have[last - 1].end > end)
			end = m->have[last - 1].end;
		for (i = last; i < m->n; i++)
			m->have[first + 1 + i - last] = m->have[i];
		m->n -= last - first - 1;
	}
	m->have[first].start = start;
	m->have[first].end = end;
	m->received += len - covered;
	return (int)(len - covered);
}

/* The first missing range below @limit (the bytes that should be here by
 * now: what was granted, or the whole message), at most @max bytes, from
 * @from on; false: none.  Call again from the range's end for the next.
 */
static inline bool shoal_rx_gap(const struct shoal_rx_msg *m, u32 from,
				u32 limit, u32 max, struct shoal_range *gap)
{
	u32 i;

	if (limit > m->msg_len)
		limit = m->msg_len;
	for (i = 0; i < m->n && from < limit; i++) {
		if (m->have[i].end <= from)
			continue;
		if (m->have[i].start > from)
			break;
		from = m->have[i].end;
	}
	if (from >= limit || !max)
		return false;
	gap->start = from;
	gap->end = i < m->n && m->have[i].start < limit ? m->have[i].start :
							 limit;
	if (gap->end - gap->start > max)
		gap->end = gap->start + max;
	return true;
}

/* ---- the sender ---- */

struct shoal_tx_msg {
	u32 msg_len;
	u32 next;			/* the first byte never sent */
	u32 allowed;			/* may send below this (credit) */
	u32 n;				/* resend ranges waiting */
	struct shoal_range resend[SHOAL_TX_RESENDS];	/* oldest first */
};

static inline void shoal_tx_init(struct shoal_tx_msg *m, u32 msg_len,
				 u32 allowed)
{
	m->msg_len = msg_len;
	m->next = 0;
	m->allowed = allowed < msg_len ? allowed : msg_len;
	m->n = 0;
}

/* More credit: the sender may send below @upto (never moves back) */
static inline void shoal_tx_allow(struct shoal_tx_msg *m, u32 upto)
{
	if (upto > m->msg_len)
		upto = m->msg_len;
	if (upto > m->allowed)
		m->allowed = upto;
}

/* The receiver asks for [@off, @off + @len) again.  Only bytes already
 * sent count (the rest go out anyway); a range that overlaps or touches
 * one waiting is merged into it.  False: no room, the request is dropped
 * (the receiver asks again).
 */
static inline bool shoal_tx_resend(struct shoal_tx_msg *m, u32 off, u32 len)
{
	u32 end = off + len, i;

	if (end > m->next)
		end = m->next;
	if (off >= end)
		return true;
	for (i = 0; i < m->n; i++) {
		struct shoal_range *r = &m->resend[i];

		if (off <= r->end && end >= r->start) {
			if (off < r->start)
				r->start = off;
			if (end > r->end)
				r->end = end;
			return true;
		}
	}
	if (m->n == SHOAL_TX_RESENDS)
		return false;
	m->resend[m->n].start = off;
	m->resend[m->n].end = end;
	m->n++;
	return true;
}

/* The next packet to send, at most @mss bytes: a resend first (*@retx
 * set), then new bytes below what is allowed.  False: nothing to send.
 */
static inline bool shoal_tx_next(struct shoal_tx_msg *m, u32 mss, u32 *off,
				 u32 *len, bool *retx)
{
	u32 i;

	if (!mss)
		return false;
	if (m->n) {
		struct shoal_range *r = &m->resend[0];

		*off = r->start;
		*len = r->end - r->start < mss ? r->end - r->start : mss;
		*retx = true;
		r->start += *len;
		if (r->start == r->end) {
			for (i = 1; i < m->n; i++)
				m->resend[i - 1] = m->resend[i];
			m->n--;
		}
		return true;
	}
	if (m->next >= m->allowed)
		return false;
	*off = m->next;
	*len = m->allowed - m->next < mss ? m->allowed - m->next : mss;
	*retx = false;
	m->next += *len;
	return true;
}

#endif /* _SHOAL_MSG_CORE_H */
