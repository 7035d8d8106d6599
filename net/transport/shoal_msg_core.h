/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bookkeeping of one message in flight, shared by the SIRD and PL2
 * endpoints of shoal.ko: on the receiver, which byte ranges arrived and
 * which missing ones were asked for when, and what each resend interval
 * does with a quiet message; on the sender, what to send next (resend
 * requests first, then new data up to the authorised offset).
 *
 * Plain C, no kernel calls and no allocation: each state is a fixed-size
 * struct embedded in the message, and every operation is O(entries) of its
 * small tables (one that lists n ranges, O(n * entries)).  The module and
 * the userspace unit tests and fuzzers build this file.  Nothing here
 * locks: the caller serialises all calls on one state (the message's
 * lock).  Offsets and lengths are u32 (a message has
 * at most 2^32 - 1 bytes); times are u64 of one monotonic clock in any unit
 * the caller likes, the resend interval in the same unit (the resend
 * tick's are its tick clock's, which may wrap: see there).
 */
#ifndef _SHOAL_MSG_CORE_H
#define _SHOAL_MSG_CORE_H

#include <net/shoal/types.h>

/* A byte range [start, end) of a message */
struct shoal_range {
	u32 start;
	u32 end;
};

/* ---- receiver: which bytes arrived, which were asked for ---- */

/* Received ranges kept sorted, disjoint and never adjacent (touching ranges
 * merge).  One slot is kept for a range that starts at offset 0: every gap
 * then begins where a received range ends, so the first packet of a resend
 * asked from the start of a gap always merges, and a full table still
 * makes progress.  A packet that would need a slot beyond that is refused
 * (SHOAL_RX_FRAGMENTED): the caller drops it and asks for it again later.
 */
#define SHOAL_RX_RANGES		16
/* Ranges asked for (RESEND sent), each with the time it was asked */
#define SHOAL_RX_ASKED		16

#define SHOAL_RX_FRAGMENTED	(-1)	/* refused: too many islands */
#define SHOAL_RX_INVALID	(-2)	/* beyond msg_len */

struct shoal_rx_ask {
	u32 start;
	u32 end;
	u64 at;
};

struct shoal_rx_ranges {
	u32 msg_len;
	u32 received;		/* bytes present, without duplicates */
	u32 nr;			/* rcv[] entries in use */
	u32 nr_asked;		/* asked[] entries in use */
	u32 forgotten;		/* asks dropped from a full asked[] table */
	struct shoal_range rcv[SHOAL_RX_RANGES];
	struct shoal_rx_ask asked[SHOAL_RX_ASKED];
};

static inline void shoal_rx_init(struct shoal_rx_ranges *rx, u32 msg_len)
{
	*rx = (struct shoal_rx_ranges){ .msg_len = msg_len };
}

static inline bool shoal_rx_complete(const struct shoal_rx_ranges *rx)
{
	return rx->received == rx->msg_len;
}

static inline u32 shoal_rx_received(const struct shoal_rx_ranges *rx)
{
	return rx->received;
}

/* Bytes present in order from offset 0 (what could be delivered as a
 * stream)
 */
static inline u32 shoal_rx_prefix(const struct shoal_rx_ranges *rx)
{
	return rx->nr && !rx->rcv[0].start ? rx->rcv[0].end : 0;
}

static inline u32 shoal_msg_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 shoal_msg_max(u32 a, u32 b)
{
	return a > b ? a : b;
}

/* Bytes of @r inside [start, end) */
static inline u32 shoal_range_overlap(const struct shoal_range *r, u32 start,
				      u32 end)
{
	u32 lo = shoal_msg_max(r->start, start), hi = shoal_msg_min(r->end, end);

	return hi > lo ? hi - lo : 0;
}

/* Note that [off, off + len) arrived.  Returns how many of its bytes are
 * new (0: a pure duplicate, to be dropped and counted), SHOAL_RX_FRAGMENTED
 * if the table has no room for it (nothing changed: drop the packet), or
 * SHOAL_RX_INVALID if it runs past msg_len (nothing changed).
 */
static inline s64 shoal_rx_add(struct shoal_rx_ranges *rx, u32 off, u32 len)
{
	struct shoal_range *r = rx->rcv;
	u32 end, i, j, k, dup = 0, gone;

	if ((u64)off + len > rx->msg_len)
		return SHOAL_RX_INVALID;
	if (!len)
		return 0;
	end = off + len;
	/* r[i..j-1] overlap or touch [off, end) */
	for (i = 0; i < rx->nr && r[i].end < off; i++)
		;
	for (j = i; j < rx->nr && r[j].start <= end; j++)
		dup += shoal_range_overlap(&r[j], off, end);
	if (i == j) {
		if (rx->nr >= SHOAL_RX_RANGES ||
		    (rx->nr == SHOAL_RX_RANGES - 1 && off))
			return SHOAL_RX_FRAGMENTED;
		for (k = rx->nr; k > i; k--)
			r[k] = r[k - 1];
		r[i].start = off;
		r[i].end = end;
		rx->nr++;
	} else {
		r[i].start = shoal_msg_min(off, r[i].start);
		r[i].end = shoal_msg_max(end, r[j - 1].end);
		gone = j - i - 1;
		for (k = i + 1; k + gone < rx->nr; k++)
			r[k] = r[k + gone];
		rx->nr -= gone;
	}
	rx->received += len - dup;
	return len - dup;
}

/* Whether [start, end) lies inside one received range */
static inline bool shoal_rx_has(const struct shoal_rx_ranges *rx, u32 start,
				u32 end)
{
	u32 i;

	for (i = 0; i < rx->nr && rx->rcv[i].end < end; i++)
		;
	return i < rx->nr && rx->rcv[i].start <= start;
}

static inline void shoal_rx_ask_add(struct shoal_rx_ask *t, u32 *n, u32 start,
				    u32 end, u64 at)
{
	if (*n && t[*n - 1].end == start && t[*n - 1].at == at) {
		t[*n - 1].end = end;	/* pieces asked together: one entry */
		return;
	}
	t[*n].start = start;
	t[*n].end = end;
	t[*n].at = at;
	(*n)++;
}

/* Record [start, end) as asked at @now, replacing whatever was recorded for
 * those bytes.  A full table forgets its oldest asks: those bytes may then
 * be asked again before their interval passed (a duplicate RESEND, never a
 * missing one).
 */
static inline void shoal_rx_mark(struct shoal_rx_ranges *rx, u32 start,
				 u32 end, u64 now)
{
	struct shoal_rx_ask t[SHOAL_RX_ASKED + 2], *a;
	u32 i, n = 0, old;
	bool placed = false;

	for (i = 0; i < rx->nr_asked; i++) {
		a = &rx->asked[i];
		if (!placed && a->start >= start) {
			shoal_rx_ask_add(t, &n, start, end, now);
			placed = true;
		}
		if (a->end <= start || a->start >= end) {
			shoal_rx_ask_add(t, &n, a->start, a->end, a->at);
			continue;
		}
		if (a->start < start)
			shoal_rx_ask_add(t, &n, a->start, start, a->at);
		if (!placed) {
			shoal_rx_ask_add(t, &n, start, end, now);
			placed = true;
		}
		if (a->end > end)
			shoal_rx_ask_add(t, &n, end, a->end, a->at);
	}
	if (!placed)
		shoal_rx_ask_add(t, &n, start, end, now);
	while (n > SHOAL_RX_ASKED) {
		for (old = 0, i = 1; i < n; i++)
			if (t[i].at < t[old].at)
				old = i;
		for (i = old; i + 1 < n; i++)
			t[i] = t[i + 1];
		n--;
		rx->forgotten++;
	}
	for (i = 0; i < n; i++)
		rx->asked[i] = t[i];
	rx->nr_asked = n;
}

/* A trimmed packet told us [off, off + len) was sent and lost its payload:
 * write its missing parts (at most @max_out ranges, at most SHOAL_RX_ASKED)
 * to @out and record them as asked at @now, so the caller sends a RESEND
 * for each at once, whatever was asked before.  Returns how many were
 * written; 0 if nothing in it is missing or it runs past msg_len.
 */
static inline u32 shoal_rx_trimmed(struct shoal_rx_ranges *rx, u32 off,
				   u32 len, u64 now, struct shoal_range *out,
				   u32 max_out)
{
	u32 i, n = 0, pos = off, end;

	if ((u64)off + len > rx->msg_len)
		return 0;
	end = off + len;
	max_out = shoal_msg_min(max_out, SHOAL_RX_ASKED);
	for (i = 0; i < rx->nr && pos < end && n < max_out; i++) {
		if (rx->rcv[i].end <= pos)
			continue;
		if (rx->rcv[i].start >= end)
			break;
		if (rx->rcv[i].start > pos) {
			out[n].start = pos;
			out[n++].end = rx->rcv[i].start;
		}
		pos = rx->rcv[i].end;
	}
	if (pos < end && n < max_out) {
		out[n].start = pos;
		out[n++].end = end;
	}
	for (i = 0; i < n; i++)
		shoal_rx_mark(rx, out[i].start, out[i].end, now);
	return n;
}

/* Drop asks whose interval passed or whose bytes all arrived */
static inline void shoal_rx_prune(struct shoal_rx_ranges *rx, u64 now,
				  u64 interval)
{
	struct shoal_rx_ask *a;
	u32 i, n = 0;

	for (i = 0; i < rx->nr_asked; i++) {
		a = &rx->asked[i];
		if (now >= a->at && now - a->at >= interval)
			continue;
		if (shoal_rx_has(rx, a->start, a->end))
			continue;
		rx->asked[n++] = *a;
	}
	rx->nr_asked = n;
}

/* Append [start, end) to @out in pieces of at most @max_len (0: any) */
static inline void shoal_rx_emit(struct shoal_range *out, u32 *n, u32 max_out,
				 u32 start, u32 end, u32 max_len)
{
	u32 l;

	while (start < end && *n < max_out) {
		l = end - start;
		if (max_len && l > max_len)
			l = max_len;
		out[*n].start = start;
		out[*n].end = start + l;
		(*n)++;
		start += l;
	}
}

/* The next ranges to ask for: missing bytes below @bound (the highest
 * offset granted or expected; clipped to msg_len) not asked for within the
 * last @interval, lowest first, each maximal run cut into pieces of at most
 * @max_len bytes (0: no limit), at most @max_out pieces (and at most
 * SHOAL_RX_ASKED).  They are recorded as asked at @now.  Returns how many
 * were written to @out.
 */
static inline u32 shoal_rx_gaps(struct shoal_rx_ranges *rx, u32 bound,
				u64 now, u64 interval, u32 max_len,
				struct shoal_range *out, u32 max_out)
{
	u32 i, a = 0, n = 0, gs, ge, prev = 0;
	struct shoal_rx_ask *q;

	shoal_rx_prune(rx, now, interval);
	bound = shoal_msg_min(bound, rx->msg_len);
	max_out = shoal_msg_min(max_out, SHOAL_RX_ASKED);
	for (i = 0; i <= rx->nr && n < max_out; i++) {
		gs = prev;
		ge = i < rx->nr ? rx->rcv[i].start : rx->msg_len;
		if (i < rx->nr)
			prev = rx->rcv[i].end;
		ge = shoal_msg_min(ge, bound);
		if (gs >= bound)
			break;
		/* what is left of the gap once the live asks are taken out */
		for (; a < rx->nr_asked && gs < ge; a++) {
			q = &rx->asked[a];
			if (q->end <= gs)
				continue;
			if (q->start >= ge)
				break;
			shoal_rx_emit(out, &n, max_out, gs,
				      shoal_msg_min(q->start, ge), max_len);
			gs = q->end;
			if (q->end > ge)
				break;	/* it may reach into the next gap */
		}
		shoal_rx_emit(out, &n, max_out, gs, ge, max_len);
	}
	for (i = 0; i < n; i++)
		shoal_rx_mark(rx, out[i].start, out[i].end, now);
	return n;
}

/* ---- receiver: bytes owed (trimmed), asked for again in pieces ---- */

/* Add [start, end) to the owed list @r (*@n used of @max), in the order
 * they were trimmed.  It merges into the last range when it overlaps or
 * touches it, or when the list is full: the bytes between are then asked
 * for too, and their copies dropped by offset, rather than a range
 * forgotten.
 */
static inline void shoal_owed_add(struct shoal_range *r, u32 *n, u32 max,
				  u32 start, u32 end)
{
	struct shoal_range *last = *n ? &r[*n - 1] : NULL;

	if (start >= end)
		return;
	if (last && (*n >= max ||
		     (start <= last->end && end >= last->start))) {
		last->start = shoal_msg_min(last->start, start);
		last->end = shoal_msg_max(last->end, end);
		return;
	}
	r[*n].start = start;
	r[(*n)++].end = end;
}

/* The next owed piece, at most @len bytes of the first range: its offset
 * and length (0: nothing owed); the list moves past it
 */
static inline u32 shoal_owed_take(struct shoal_range *r, u32 *n, u32 len,
				  u32 *off)
{
	u32 i, l;

	if (!*n || !len)
		return 0;
	l = shoal_msg_min(r[0].end - r[0].start, len);
	*off = r[0].start;
	r[0].start += l;
	if (r[0].start >= r[0].end) {
		for (i = 0; i + 1 < *n; i++)
			r[i] = r[i + 1];
		(*n)--;
	}
	return l;
}

/* ---- receiver: what a resend tick does with a message ---- */

/* Every resend interval the receiver's timer looks at each message it is
 * receiving.  A message nothing arrived for during an interval, since its
 * last new bytes and since its last credit, is quiet; each quiet interval
 * it is told one of these.  Times here are the caller's tick clock
 * (jiffies): unsigned long, compared as time_before() does, so that the
 * clock may wrap.
 */
enum shoal_tick_act {
	SHOAL_TICK_IDLE,	/* not quiet: nothing to do */
	SHOAL_TICK_BUSY,	/* it waits for credit: tell its sender */
	SHOAL_TICK_FORGET,	/* its sender went silent: free it */
	SHOAL_TICK_WAIT,	/* quiet, but no RESEND this interval */
	SHOAL_TICK_RESEND,	/* ask for its gaps below what was granted */
	SHOAL_TICK_QUEUED,	/* quiet, but its data may be queued */
};

/* Silent intervals after which a message of which nothing ever arrived
 * is forgotten, if the caller's limit is not lower: a forged CREDIT_REQ
 * must not make the receiver send RESENDs to a victim for long
 */
#define SHOAL_SILENT_EMPTY	3

/* A message as the tick sees it */
struct shoal_tick_in {
	unsigned long heard;	/* its last new bytes, or the last tick
				 * that found it quiet
				 */
	unsigned long granted_at;	/* its last credit */
	u32 quiet;		/* quiet intervals in a row */
	u32 silent;		/* of which data was expected */
	u32 granted;		/* credit given: [0, granted) was invited */
	bool owed;		/* RESENDs owed it by the credit pacer */
	bool queued;		/* its last credit's data may still wait in
				 * a queue behind data granted before it
				 */
};

/* A message waiting for credit tells its sender BUSY at its quiet
 * intervals 1, 2 and 4, then every SHOAL_BUSY_EVERY: the keep-alive of a
 * long wait costs a packet per message per SHOAL_BUSY_EVERY intervals,
 * not one per interval (2000 senders waiting at a 50 ms interval were
 * 40,000 BUSYs a second).  Each BUSY says when the next comes
 * (SHOAL_BUSY_WAIT()), so that its sender does not probe meanwhile.
 */
#define SHOAL_BUSY_EVERY	8

/* Intervals from quiet interval @quiet to the next one that tells BUSY */
static inline u32 shoal_busy_wait(u32 quiet)
{
	u32 next = 1;

	if (quiet >= SHOAL_BUSY_EVERY)
		return SHOAL_BUSY_EVERY - quiet % SHOAL_BUSY_EVERY;
	while (next <= quiet)
		next <<= 1;
	return next - quiet;
}

/* Whether quiet interval @quiet tells BUSY */
static inline bool shoal_busy_tells(u32 quiet)
{
	if (quiet >= SHOAL_BUSY_EVERY)
		return !(quiet % SHOAL_BUSY_EVERY);
	return quiet && !(quiet & (quiet - 1));
}

/* What to do with it, and its heard, quiet and silent after the tick */
struct shoal_tick {
	enum shoal_tick_act act;
	bool reclaim;		/* first take back the credit it has out */
	u32 busy_wait;		/* SHOAL_TICK_BUSY: tell its sender now,
				 * and that the next BUSY comes this many
				 * intervals later; 0: not this interval
				 */
	unsigned long heard;
	u32 quiet;
	u32 silent;
};

static inline bool shoal_tick_before(unsigned long a, unsigned long b)
{
	return (long)(a - b) < 0;
}

/* The tick at @now for message @in whose received bytes are @rx, with a
 * resend interval of @ival and @limit silent intervals before a message
 * is forgotten (net.shoal.timeout_resends)
 */
static inline struct shoal_tick
shoal_rx_tick(const struct shoal_tick_in *in, const struct shoal_rx_ranges *rx,
	      unsigned long now, unsigned long ival, u32 limit)
{
	struct shoal_tick t = {
		.act = SHOAL_TICK_IDLE,
		.heard = in->heard,
		.quiet = in->quiet,
		.silent = in->silent,
	};
	unsigned long last = in->heard;
	u32 most;

	/* data may wait in a queue behind credit: the interval runs from
	 * the later of the last news and the last credit, and credit since
	 * the last news starts the count of quiet intervals afresh
	 */
	if (shoal_tick_before(in->heard, in->granted_at)) {
		last = in->granted_at;
		t.quiet = 0;
	}
	if (shoal_tick_before(now, last + ival))
		return t;
	t.heard = now;
	t.quiet++;
	/* all it was invited to send is here, or the pacer owes it RESENDs:
	 * it waits for credit, which is not its sender's silence; credit
	 * still counted out after two intervals is stale (a RESEND's charge
	 * for bytes that came anyway)
	 */
	if (!in->granted || shoal_rx_has(rx, 0, in->granted) || in->owed) {
		t.act = SHOAL_TICK_BUSY;
		t.reclaim = t.quiet >= 2;
		t.silent = 0;
		if (shoal_busy_tells(t.quiet))
			t.busy_wait = shoal_busy_wait(t.quiet);
		return t;
	}
	/* the receiver still hears data that was granted before this
	 * message's last credit: its data may wait behind that in a deep or
	 * slow queue, which is not loss.  The interval starts again.
	 */
	if (in->queued) {
		t.act = SHOAL_TICK_QUEUED;
		t.quiet = 0;
		return t;
	}
	/* a message nothing of which ever came (a spoofed one?) is given
	 * up soon: it must not make us a RESEND reflector
	 */
	most = shoal_rx_received(rx) ? limit :
				       shoal_msg_min(limit, SHOAL_SILENT_EMPTY);
	if (++t.silent > most) {
		t.act = SHOAL_TICK_FORGET;
		return t;
	}
	/* RESENDs after 2, 4, 8, ... quiet intervals: a lost RESEND is
	 * repeated, and a forged message costs a few at most.  No cap: the
	 * message is forgotten first, after @limit silent intervals.
	 */
	if (t.quiet < 2 || (t.quiet & (t.quiet - 1))) {
		t.act = SHOAL_TICK_WAIT;
		return t;
	}
	/* one quiet interval may be a deep queue; after two, credit still
	 * out is stranded (its data or the CREDIT was lost) or held by a
	 * sender whose uplink is busy: it comes back only as the RESENDs ask
	 * for the same bytes again, so that a busy sender is not given new
	 * bytes on top of what it holds
	 */
	t.act = SHOAL_TICK_RESEND;
	t.reclaim = true;
	return t;
}

/* ---- sender: what to send next ---- */

/* Resend requests kept sorted, disjoint and never adjacent.  A full table
 * merges the two closest requests into one: the bytes between them are
 * sent once more (the receiver drops them as duplicates) rather than a
 * request being forgotten.
 */
#define SHOAL_TX_RESENDS	8

enum shoal_tx_kind {
	SHOAL_TX_NONE,		/* nothing may be sent now */
	SHOAL_TX_NEW,		/* first transmission */
	SHOAL_TX_RESEND,	/* asked for again: set the RETX flag */
};

struct shoal_tx_state {
	u32 msg_len;
	u32 next_off;		/* first byte never sent */
	u32 authorised;		/* [0, authorised) may be sent */
	u32 acked;		/* [0, acked) is known to have arrived */
	u32 nr_resend;
	struct shoal_range resend[SHOAL_TX_RESENDS];
};

/* A message of @msg_len bytes whose first @unsched bytes need no credit */
static inline void shoal_tx_init(struct shoal_tx_state *tx, u32 msg_len,
				 u32 unsched)
{
	*tx = (struct shoal_tx_state){
		.msg_len = msg_len,
		.authorised = shoal_msg_min(unsched, msg_len),
	};
}

/* A grant up to offset @upto (grants only grow) */
static inline void shoal_tx_authorise(struct shoal_tx_state *tx, u32 upto)
{
	upto = shoal_msg_min(upto, tx->msg_len);
	if (upto > tx->authorised)
		tx->authorised = upto;
}

/* A credit of @bytes more */
static inline void shoal_tx_credit(struct shoal_tx_state *tx, u32 bytes)
{
	u64 upto = (u64)tx->authorised + bytes;

	tx->authorised = upto > tx->msg_len ? tx->msg_len : (u32)upto;
}

static inline u32 shoal_tx_queued(const struct shoal_tx_state *tx)
{
	u32 i, sum = 0;

	for (i = 0; i < tx->nr_resend; i++)
		sum += tx->resend[i].end - tx->resend[i].start;
	return sum;
}

/* Bytes that may be sent now: queued resends and authorised new data */
static inline u64 shoal_tx_sendable(const struct shoal_tx_state *tx)
{
	return (u64)shoal_tx_queued(tx) + tx->authorised - tx->next_off;
}

/* Everything sent once and no resend pending */
static inline bool shoal_tx_idle(const struct shoal_tx_state *tx)
{
	return tx->next_off == tx->msg_len && !tx->nr_resend;
}

static inline bool shoal_tx_done(const struct shoal_tx_state *tx)
{
	return tx->acked == tx->msg_len;
}

/* Queue [off, off + len) to be sent again before new data.  Only bytes
 * already sent and not acknowledged are queued (bytes not sent yet go out
 * as new data anyway).  Returns how many bytes the queue grew by: 0 for a
 * request already queued.  The caller also uses this to put back a piece
 * shoal_tx_next() gave it but that it could not send.
 */
static inline u32 shoal_tx_resend(struct shoal_tx_state *tx, u32 off, u32 len)
{
	struct shoal_range t[SHOAL_TX_RESENDS + 1], *r;
	u64 e64 = (u64)off + len;
	u32 start, end, i, n = 0, best, before = shoal_tx_queued(tx);
	bool placed = false;

	start = shoal_msg_max(off, tx->acked);
	end = e64 > tx->next_off ? tx->next_off : (u32)e64;
	if (start >= end)
		return 0;
	for (i = 0; i <= tx->nr_resend; i++) {
		r = i < tx->nr_resend ? &tx->resend[i] : NULL;
		if (r && r->end < start) {
			t[n++] = *r;
		} else if (r && r->start <= end) {
			start = shoal_msg_min(start, r->start);	/* merge */
			end = shoal_msg_max(end, r->end);
		} else {
			if (!placed) {
				t[n].start = start;
				t[n++].end = end;
				placed = true;
			}
			if (r)
				t[n++] = *r;
		}
	}
	if (n > SHOAL_TX_RESENDS) {
		for (best = 0, i = 1; i + 1 < n; i++)
			if (t[i + 1].start - t[i].end <
			    t[best + 1].start - t[best].end)
				best = i;
		t[best].end = t[best + 1].end;
		for (i = best + 1; i + 1 < n; i++)
			t[i] = t[i + 1];
		n--;
	}
	for (i = 0; i < n; i++)
		tx->resend[i] = t[i];
	tx->nr_resend = n;
	return shoal_tx_queued(tx) - before;
}

/* The receiver has [0, @upto): nothing below it is sent again */
static inline void shoal_tx_ack(struct shoal_tx_state *tx, u32 upto)
{
	u32 i, n = 0;

	upto = shoal_msg_min(upto, tx->next_off);
	if (upto <= tx->acked)
		return;
	tx->acked = upto;
	for (i = 0; i < tx->nr_resend; i++) {
		if (tx->resend[i].end <= upto)
			continue;
		tx->resend[n] = tx->resend[i];
		tx->resend[n].start = shoal_msg_max(tx->resend[n].start, upto);
		n++;
	}
	tx->nr_resend = n;
}

/* The next unscheduled piece, sent for the first time: new bytes below
 * @unsched need no credit and leave at once even when the sender paces
 * its uplink (resends and scheduled bytes wait for its pacer).  Counts as
 * sent when this returns true.
 */
static inline bool shoal_tx_next_unsched(struct shoal_tx_state *tx,
					 u32 unsched, u32 mss, u32 *off,
					 u32 *len)
{
	u32 end = shoal_msg_min(unsched, tx->authorised);

	if (!mss || tx->next_off >= end)
		return false;
	*off = tx->next_off;
	*len = shoal_msg_min(end - tx->next_off, mss);
	tx->next_off += *len;
	return true;
}

/* The next packet: the lowest queued resend first, then new data up to the
 * authorised offset.  A piece ends at @mss, at the end of its resend range,
 * or at the authorised offset, whichever comes first; it does not wait for
 * a full MSS (the grant's granularity is the receiver's choice).  The piece
 * counts as sent when this returns.
 */
static inline enum shoal_tx_kind shoal_tx_next(struct shoal_tx_state *tx,
					       u32 mss, u32 *off, u32 *len)
{
	struct shoal_range *r = &tx->resend[0];
	u32 i, l;

	if (!mss)
		return SHOAL_TX_NONE;
	if (tx->nr_resend) {
		l = shoal_msg_min(r->end - r->start, mss);
		*off = r->start;
		*len = l;
		r->start += l;
		if (r->start == r->end) {
			for (i = 0; i + 1 < tx->nr_resend; i++)
				tx->resend[i] = tx->resend[i + 1];
			tx->nr_resend--;
		}
		return SHOAL_TX_RESEND;
	}
	if (tx->next_off >= tx->authorised)
		return SHOAL_TX_NONE;
	l = shoal_msg_min(tx->authorised - tx->next_off, mss);
	*off = tx->next_off;
	*len = l;
	tx->next_off += l;
	return SHOAL_TX_NEW;
}

/* ---- sender: return to sender ---- */

/* What a header a switch returned (SHOAL_F_BOUNCED) asks of its sender */
enum shoal_bounce_res {
	SHOAL_BOUNCE_RESEND,	/* send the range again, now, once */
	SHOAL_BOUNCE_STALE,	/* the receiver has those bytes already */
	SHOAL_BOUNCE_BAD,	/* not a packet we sent: forged or corrupt */
};

/* A bounce of DATA [@off, @off + @len) of a message sending @tx in
 * packets of at most @mss bytes.  NDP's return to sender: the packet
 * never reached the receiver, which therefore neither knows it is
 * missing nor will ask for it before a quiet interval; the sender
 * resends it at once.  Only a range we sent can come back: at most one
 * packet (@mss), inside the bytes sent so far.  On SHOAL_BOUNCE_RESEND
 * *@roff and *@rlen are the bytes to send again, at most @len of them:
 * one bounce makes one packet, never more.
 */
static inline enum shoal_bounce_res shoal_tx_bounce(const struct shoal_tx_state *tx,
						    u32 mss, u32 off, u32 len,
						    u32 *roff, u32 *rlen)
{
	u64 end = (u64)off + len;
	u32 start;

	if (!len || len > mss || end > tx->next_off)
		return SHOAL_BOUNCE_BAD;
	start = shoal_msg_max(off, tx->acked);
	if (start >= end)
		return SHOAL_BOUNCE_STALE;
	*roff = start;
	*rlen = (u32)(end - start);
	return SHOAL_BOUNCE_RESEND;
}

#endif /* _SHOAL_MSG_CORE_H */
