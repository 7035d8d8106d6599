// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the message core (shoal_msg_core.h).  The first byte
 * picks what the input drives:
 *  - the receiver, on adds, trimmed notes, gap listings, time steps and
 *    resets, against a byte bitmap and per-byte ask times: exact new-byte
 *    counts and refusals, the range table equal to the bitmap's runs,
 *    completion, asks that agree with the model, gaps that never list a
 *    received byte and list every due one;
 *  - the sender, on credits, grants, resend requests, acks and pieces:
 *    never past the authorised offset or msg_len, new data only once every
 *    request was resent, no request ever forgotten, a bounded queue;
 *  - both ends over a lossy network (drops, trims, duplicates, reordering)
 *    that heals: the message must then complete within a bounded time;
 *  - the receiver's resend tick over a message's life (time passing, new
 *    bytes, probes, credit, owed RESENDs) on a clock that may wrap,
 *    against a model on a clock that does not: the action it must be,
 *    the counters it must leave, RESENDs only at quiet 2, 4, 8, ... and
 *    never for a message whose granted bytes all came, forgotten exactly
 *    after the limit's silent intervals and never while it waits for
 *    credit or its data may be queued behind earlier credit.
 * Any violation aborts.  A libFuzzer target with -DSHOAL_LIBFUZZER,
 * otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_driver.h"
#include "shoal_msg_core.h"

/* the paths the inputs must reach (fuzz_driver.h): each mode's outcomes */
enum { P_RX_NEW, P_RX_DUP, P_RX_INVALID, P_RX_FRAG, P_RX_TRIMMED, P_RX_GAPS,
       P_RX_FORGOTTEN, P_RX_COMPLETE, P_TX_NEW, P_TX_RESEND, P_TX_NONE,
       P_BOUNCE_RESEND, P_BOUNCE_STALE, P_BOUNCE_BAD, P_LOOP_DONE,
       P_LOOP_TRIMMED, P_LOOP_HEALED, P_TICK, P_MAX = P_TICK + 6 };
static struct fuzz_path paths[P_MAX] = {
	[P_RX_NEW] = { "rx new bytes" }, [P_RX_DUP] = { "rx duplicate" },
	[P_RX_INVALID] = { "rx past msg_len" },
	[P_RX_FRAG] = { "rx range table full" },
	[P_RX_TRIMMED] = { "rx trimmed listed" },
	[P_RX_GAPS] = { "rx gaps listed" },
	[P_RX_FORGOTTEN] = { "rx asks forgotten" },
	[P_RX_COMPLETE] = { "rx complete" }, [P_TX_NEW] = { "tx new" },
	[P_TX_RESEND] = { "tx resend" }, [P_TX_NONE] = { "tx nothing" },
	[P_BOUNCE_RESEND] = { "bounce resent" },
	[P_BOUNCE_STALE] = { "bounce stale" },
	[P_BOUNCE_BAD] = { "bounce refused" },
	[P_LOOP_DONE] = { "lossy message completed" },
	[P_LOOP_TRIMMED] = { "lossy trims" },
	[P_LOOP_HEALED] = { "completed after healing" },
	[P_TICK + SHOAL_TICK_IDLE] = { "tick idle" },
	[P_TICK + SHOAL_TICK_BUSY] = { "tick busy" },
	[P_TICK + SHOAL_TICK_FORGET] = { "tick forget" },
	[P_TICK + SHOAL_TICK_WAIT] = { "tick wait" },
	[P_TICK + SHOAL_TICK_RESEND] = { "tick resend" },
	[P_TICK + SHOAL_TICK_QUEUED] = { "tick queued" },
};

#define MAXLEN	4096

struct in {
	const uint8_t *d;
	size_t size;
	size_t i;
};

static u32 get8(struct in *in)
{
	return in->i < in->size ? in->d[in->i++] : 0;
}

static u32 get16(struct in *in)
{
	u32 v = get8(in);

	return v << 8 | get8(in);
}

static u32 get32(struct in *in)
{
	u32 v = get16(in);

	return v << 16 | get16(in);
}

#define FAIL(...)							\
	do {								\
		fprintf(stderr, "fuzz_shoal_msg: " __VA_ARGS__);	\
		fprintf(stderr, "\n");					\
		abort();						\
	} while (0)

/* ---- receiver against a bitmap ---- */

struct rx_model {
	u32 len;
	u8 got[MAXLEN];
	u8 asked[MAXLEN];
	u64 at[MAXLEN];
};

static u32 model_runs(const struct rx_model *m)
{
	u32 b, runs = 0;

	for (b = 0; b < m->len; b++)
		runs += m->got[b] && (!b || !m->got[b - 1]);
	return runs;
}

static void check_rx(const struct shoal_rx_ranges *rx, const struct rx_model *m)
{
	u32 i, b, k = 0, cnt = 0;

	if (rx->nr > SHOAL_RX_RANGES || rx->nr_asked > SHOAL_RX_ASKED)
		FAIL("tables overflow: %u %u", rx->nr, rx->nr_asked);
	for (i = 0; i < rx->nr; i++) {
		if (rx->rcv[i].start >= rx->rcv[i].end ||
		    rx->rcv[i].end > m->len ||
		    (i && rx->rcv[i].start <= rx->rcv[i - 1].end))
			FAIL("range %u %u-%u not sorted, disjoint, apart", i,
			     rx->rcv[i].start, rx->rcv[i].end);
	}
	/* the table is exactly the bitmap's runs */
	for (b = 0; b < m->len; b++) {
		while (k < rx->nr && rx->rcv[k].end <= b)
			k++;
		if (m->got[b] != (k < rx->nr && rx->rcv[k].start <= b))
			FAIL("byte %u: model %u, table disagrees", b, m->got[b]);
		cnt += m->got[b];
	}
	if (rx->received != cnt || shoal_rx_complete(rx) != !(m->len - cnt))
		FAIL("received %u, model %u of %u", rx->received, cnt, m->len);
	b = 0;
	while (b < m->len && m->got[b])
		b++;
	if (shoal_rx_prefix(rx) != b)
		FAIL("prefix %u, model %u", shoal_rx_prefix(rx), b);
	for (i = 0; i < rx->nr_asked; i++) {
		const struct shoal_rx_ask *a = &rx->asked[i];

		if (a->start >= a->end || a->end > m->len ||
		    (i && a->start < rx->asked[i - 1].end))
			FAIL("ask %u %u-%u not sorted and disjoint", i,
			     a->start, a->end);
		for (b = a->start; b < a->end; b++)
			if (!m->asked[b] || m->at[b] != a->at)
				FAIL("ask of byte %u at %llu, model %u at %llu",
				     b, (unsigned long long)a->at, m->asked[b],
				     (unsigned long long)m->at[b]);
	}
}

static bool due(const struct rx_model *m, u32 b, u64 now, u64 interval)
{
	return !m->got[b] && (!m->asked[b] || now - m->at[b] >= interval);
}

/* Add [off, off + len) to both, checking the result exactly */
static s64 rx_add(struct shoal_rx_ranges *rx, struct rx_model *m, u32 off,
		  u32 len)
{
	s64 r = shoal_rx_add(rx, off, len), want = 0;
	u32 b, runs;
	bool touch = false;

	if ((u64)off + len > m->len) {
		want = SHOAL_RX_INVALID;
	} else if (len) {
		for (b = off ? off - 1 : 0; b < off + len + 1 && b < m->len; b++)
			touch |= m->got[b];
		runs = model_runs(m);
		if (!touch && (runs >= SHOAL_RX_RANGES ||
			       (runs >= SHOAL_RX_RANGES - 1 && off))) {
			want = SHOAL_RX_FRAGMENTED;
		} else {
			for (b = off; b < off + len; b++) {
				want += !m->got[b];
				m->got[b] = 1;
			}
		}
	}
	if (r != want)
		FAIL("add %u+%u: %lld, model %lld", off, len, (long long)r,
		     (long long)want);
	paths[r > 0 ? P_RX_NEW : !r ? P_RX_DUP :
	      r == SHOAL_RX_INVALID ? P_RX_INVALID : P_RX_FRAG].hits++;
	paths[P_RX_COMPLETE].hits += r > 0 && shoal_rx_complete(rx);
	return r;
}

static void check_out(const struct shoal_range *out, u32 n, u32 lo, u32 hi,
		      u32 max_len, const struct rx_model *m)
{
	u32 i, b;

	for (i = 0; i < n; i++) {
		if (out[i].start >= out[i].end || out[i].start < lo ||
		    out[i].end > hi || (i && out[i].start < out[i - 1].end))
			FAIL("listed %u-%u outside %u-%u or unsorted",
			     out[i].start, out[i].end, lo, hi);
		if (max_len && out[i].end - out[i].start > max_len)
			FAIL("piece %u-%u over %u", out[i].start, out[i].end,
			     max_len);
		if (i && out[i].start == out[i - 1].end &&
		    out[i - 1].end - out[i - 1].start != max_len)
			FAIL("run %u-%u not coalesced", out[i - 1].start,
			     out[i].end);
		for (b = out[i].start; b < out[i].end; b++)
			if (m->got[b])
				FAIL("listed received byte %u", b);
	}
}

static void mark(struct rx_model *m, const struct shoal_range *out, u32 n,
		 u64 now)
{
	u32 i, b;

	for (i = 0; i < n; i++)
		for (b = out[i].start; b < out[i].end; b++) {
			m->asked[b] = 1;
			m->at[b] = now;
		}
}

static void fuzz_rx(struct in *in)
{
	static struct rx_model m;
	struct shoal_range out[24], last[24];
	struct shoal_rx_ranges rx;
	u32 nlast = 0, off, len, n, i, b, cap, lim, bound, max_len, max_out;
	u32 stride;
	u64 now = 1000, interval = 1 + get8(in) % 64;
	bool inlist, small = get8(in) & 1;

	memset(&m, 0, sizeof(m));
	m.len = 1 + get16(in) % (small ? 64 : MAXLEN);
	shoal_rx_init(&rx, m.len);
	while (in->i < in->size) {
		u32 op = get8(in);

		off = get16(in) % (m.len + 2);
		len = (op & 0xc0) == 0xc0 ? get16(in) % (m.len + 2) :
		      1 + get8(in) % 24;
		switch (op % 8) {
		case 0:
		case 1:
			rx_add(&rx, &m, off, len);
			break;
		case 2:		/* a burst with losses: many islands */
			stride = len + 1 + get8(in) % 32;
			for (i = 0; i < 24 && off + len <= m.len; i++) {
				rx_add(&rx, &m, off, len);
				off += stride;
			}
			break;
		case 3:		/* the last listed ranges arrive */
			for (i = 0; i < nlast; i++)
				rx_add(&rx, &m, last[i].start,
				       last[i].end - last[i].start);
			nlast = 0;
			break;
		case 4:
			max_out = get8(in) % 20;
			if (op & 0x20)	/* trimmed a while ago */
				now += 1 + get8(in) % 8;
			n = shoal_rx_trimmed(&rx, off, len, now, out, max_out);
			paths[P_RX_TRIMMED].hits += !!n;
			if ((u64)off + len > m.len) {
				if (n)
					FAIL("trimmed past msg_len listed %u", n);
				break;
			}
			check_out(out, n, off, off + len, 0, &m);
			/* every missing byte of it, up to where the list stops */
			cap = max_out < SHOAL_RX_ASKED ? max_out : SHOAL_RX_ASKED;
			lim = n < cap ? off + len : n ? out[n - 1].end : off;
			for (b = off, i = 0; b < lim; b++) {
				while (i < n && out[i].end <= b)
					i++;
				inlist = i < n && out[i].start <= b;
				if (inlist != !m.got[b])
					FAIL("trimmed: byte %u listed %u", b,
					     inlist);
			}
			mark(&m, out, n, now);
			break;
		case 5:
			bound = get16(in) % (m.len + 64);
			max_len = get8(in) % 4 ? 1 + get8(in) * 3 : 0;
			max_out = get8(in) % 20;
			n = shoal_rx_gaps(&rx, bound, now, interval, max_len,
					  out, max_out);
			paths[P_RX_GAPS].hits += !!n;
			paths[P_RX_FORGOTTEN].hits += !!rx.forgotten;
			bound = bound < m.len ? bound : m.len;
			check_out(out, n, 0, bound, max_len, &m);
			cap = max_out < SHOAL_RX_ASKED ? max_out : SHOAL_RX_ASKED;
			lim = n < cap ? bound : n ? out[n - 1].end : 0;
			for (b = 0, i = 0; b < lim; b++) {
				while (i < n && out[i].end <= b)
					i++;
				inlist = i < n && out[i].start <= b;
				if (inlist && !due(&m, b, now, interval) &&
				    !rx.forgotten)
					FAIL("gaps: byte %u asked at %llu listed again at %llu",
					     b, (unsigned long long)m.at[b],
					     (unsigned long long)now);
				if (!inlist && due(&m, b, now, interval))
					FAIL("gaps: due byte %u not listed", b);
			}
			mark(&m, out, n, now);
			/* expired asks are gone, and so are received ones */
			for (b = 0; b < m.len; b++)
				if (m.asked[b] && now - m.at[b] >= interval)
					m.asked[b] = 0;
			for (i = 0; i < rx.nr_asked; i++) {
				for (b = rx.asked[i].start;
				     b < rx.asked[i].end && m.got[b]; b++)
					;
				if (b == rx.asked[i].end)
					FAIL("ask %u-%u kept, all received",
					     rx.asked[i].start, rx.asked[i].end);
			}
			memcpy(last, out, n * sizeof(out[0]));
			nlast = n;
			break;
		case 6:
			now += get8(in) % 40;
			break;
		default:
			if (op & 0x40) {
				memset(&m, 0, sizeof(m));
				m.len = 1 + off % MAXLEN;
				shoal_rx_init(&rx, m.len);
				nlast = 0;
			}
			break;
		}
		check_rx(&rx, &m);
	}
}

/* ---- sender against a model ---- */

static u8 req[MAXLEN + 1];

static bool queued(const struct shoal_tx_state *tx, u32 b)
{
	u32 i;

	for (i = 0; i < tx->nr_resend; i++)
		if (tx->resend[i].start <= b && b < tx->resend[i].end)
			return true;
	return false;
}

static void check_tx(const struct shoal_tx_state *tx, u32 next, u32 auth,
		     u32 acked)
{
	u32 i, b, k = 0;

	if (tx->next_off != next || tx->authorised != auth ||
	    tx->acked != acked)
		FAIL("tx next %u auth %u acked %u, model %u %u %u",
		     tx->next_off, tx->authorised, tx->acked, next, auth,
		     acked);
	if (acked > next || next > auth || auth > tx->msg_len)
		FAIL("tx order acked %u next %u auth %u len %u", acked, next,
		     auth, tx->msg_len);
	if (tx->nr_resend > SHOAL_TX_RESENDS)
		FAIL("resend queue %u", tx->nr_resend);
	for (i = 0; i < tx->nr_resend; i++)
		if (tx->resend[i].start >= tx->resend[i].end ||
		    tx->resend[i].start < acked || tx->resend[i].end > next ||
		    (i && tx->resend[i].start <= tx->resend[i - 1].end))
			FAIL("resend %u-%u bad", tx->resend[i].start,
			     tx->resend[i].end);
	/* every pending request is in the queue */
	for (b = 0; b < tx->msg_len; b++) {
		while (k < tx->nr_resend && tx->resend[k].end <= b)
			k++;
		if (req[b] && !(k < tx->nr_resend && tx->resend[k].start <= b))
			FAIL("request for byte %u forgotten", b);
	}
}

static void fuzz_tx(struct in *in)
{
	struct shoal_tx_state tx;
	u32 len = 1 + get16(in) % MAXLEN, unsched = get16(in) % (MAXLEN + 64);
	u32 next = 0, acked = 0, auth, off, l, mss, b, q, want;
	enum shoal_tx_kind k;

	memset(req, 0, sizeof(req));
	shoal_tx_init(&tx, len, unsched);
	auth = unsched < len ? unsched : len;
	while (in->i < in->size) {
		u32 op = get8(in), x = get16(in) % (len + 64);

		switch (op % 8) {
		case 0:
			shoal_tx_credit(&tx, x % 1000);
			auth = auth + x % 1000 < len ? auth + x % 1000 : len;
			break;
		case 1:
			shoal_tx_authorise(&tx, x);
			if (x > auth)
				auth = x < len ? x : len;
			break;
		case 2:
		case 3:
		case 4:
			l = (op & 0xe0) == 0xe0 ? get16(in) : get8(in) % 64;
			q = shoal_tx_queued(&tx);
			want = 0;
			for (b = x; b < x + l && b < next; b++)
				if (b >= acked) {
					want += !queued(&tx, b);
					req[b] = 1;
				}
			b = shoal_tx_resend(&tx, x, l);
			/* more only when a full table merged two requests */
			if (b < want || b != shoal_tx_queued(&tx) - q ||
			    (b > want && tx.nr_resend < SHOAL_TX_RESENDS))
				FAIL("resend %u+%u grew the queue by %u, not %u",
				     x, l, b, want);
			break;
		case 5:
			if ((op & 0x60) == 0x20) {	/* a bounce */
				u32 ro = 0, rl = 0;
				enum shoal_bounce_res br;

				l = get16(in) % 1600;
				mss = 1 + (op & 0x80 ? x % 1600 : x % 64);
				br = shoal_tx_bounce(&tx, mss, x, l, &ro, &rl);
				paths[br == SHOAL_BOUNCE_RESEND ? P_BOUNCE_RESEND :
				      br == SHOAL_BOUNCE_STALE ? P_BOUNCE_STALE :
				      P_BOUNCE_BAD].hits++;
				if ((br == SHOAL_BOUNCE_BAD) !=
				    (!l || l > mss || (u64)x + l > next))
					FAIL("bounce %u+%u mss %u next %u: %d",
					     x, l, mss, next, br);
				if (br == SHOAL_BOUNCE_RESEND &&
				    (ro < acked || ro < x || !rl || rl > l ||
				     rl > mss || ro + rl != x + l))
					FAIL("bounce %u+%u resends %u+%u",
					     x, l, ro, rl);
				if (br == SHOAL_BOUNCE_STALE && x + l > acked)
					FAIL("bounce %u+%u stale, acked %u",
					     x, l, acked);
				break;
			}
			if (op & 0x60)	/* acks are rarer than the rest */
				break;
			b = op & 0x80 ? x : acked + x % 32;
			shoal_tx_ack(&tx, b);
			b = b < next ? b : next;
			acked = b > acked ? b : acked;
			for (b = 0; b < acked; b++)
				req[b] = 0;
			break;
		default:
			mss = op & 0x80 ? x % 1600 : x % 64;
			k = shoal_tx_next(&tx, mss, &off, &l);
			paths[k == SHOAL_TX_NEW ? P_TX_NEW : k == SHOAL_TX_NONE ?
			      P_TX_NONE : P_TX_RESEND].hits++;
			for (b = 0; b < len && !req[b]; b++)
				;
			if (k == SHOAL_TX_NONE) {
				if (mss && (b < len || next < auth))
					FAIL("nothing sent with work pending");
				break;
			}
			if (!l || l > mss)
				FAIL("piece of %u with mss %u", l, mss);
			if (k == SHOAL_TX_NEW) {
				if (b < len)
					FAIL("new data before the resend of %u", b);
				if (off != next || off + l > auth)
					FAIL("new %u+%u, next %u auth %u", off,
					     l, next, auth);
				next += l;
			} else {
				if (off < acked || off + l > next || off > b)
					FAIL("resend %u+%u, acked %u next %u first request %u",
					     off, l, acked, next, b);
				for (b = off; b < off + l; b++)
					req[b] = 0;
			}
			break;
		}
		check_tx(&tx, next, auth, acked);
	}
	/* drain: everything goes out, in a bounded number of pieces */
	shoal_tx_authorise(&tx, len);
	for (b = 0; b < 2 * MAXLEN + 8; b++)
		if (shoal_tx_next(&tx, 1 + b % 97, &off, &l) == SHOAL_TX_NONE)
			break;
	if (!shoal_tx_idle(&tx))
		FAIL("sender not idle after draining");
}

/* ---- both ends over a lossy network that heals ---- */

static u32 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (u32)(*s >> 11);
}

static void fuzz_loop(struct in *in)
{
	struct shoal_range out[SHOAL_RX_ASKED];
	struct shoal_rx_ranges rx;
	struct shoal_tx_state tx;
	u32 len = 1 + get16(in) % MAXLEN, mss = 1 + get8(in) % 200;
	u32 loss = get8(in) % 60, trim = get8(in) % 60, dup = get8(in) % 60;
	u32 max_len = get8(in) % 3 ? 0 : 1 + get8(in) * 4;
	u32 unsched = get16(in) % (len + 1), interval = 1 + get8(in) % 30;
	u32 max_out = 1 + get8(in) % 8, heal = get16(in) % 4000;
	u32 held_off = 0, held_len = 0, off, l, n, i, step, limit;
	u64 seed = 0x9e3779b97f4a7c15ull;
	bool held = false;
	s64 r;

	while (in->i < in->size)
		seed = seed * 31 + get8(in);
	shoal_rx_init(&rx, len);
	shoal_tx_init(&tx, len, unsched);
	/* healed at step heal: then at most a few intervals per piece */
	limit = heal + 64 * (len / mss + 2) * (interval + 2);
	for (step = 0; !shoal_rx_complete(&rx); step++) {
		bool bad = step < heal;

		if (step > limit)
			FAIL("no completion: len %u mss %u received %u step %u",
			     len, mss, rx.received, step);
		/* the receiver grants one MSS per step up to the end */
		if (rnd(&seed) % 4 == 0)
			shoal_tx_credit(&tx, mss);
		if (shoal_tx_next(&tx, mss, &off, &l) != SHOAL_TX_NONE) {
			u32 p = rnd(&seed) % 100;

			if (bad && p < loss / 2) {
				;	/* dropped */
			} else if (bad && p < loss / 2 + trim / 2) {
				n = shoal_rx_trimmed(&rx, off, l, step, out,
						     max_out);
				paths[P_LOOP_TRIMMED].hits++;
				for (i = 0; i < n; i++)
					shoal_tx_resend(&tx, out[i].start,
							out[i].end - out[i].start);
			} else if (bad && !held && rnd(&seed) % 4 == 0) {
				held = true;	/* overtaken by the next one */
				held_off = off;
				held_len = l;
			} else {
				r = shoal_rx_add(&rx, off, l);
				if (r < 0 && r != SHOAL_RX_FRAGMENTED)
					FAIL("add %u+%u: %lld", off, l,
					     (long long)r);
				if (bad && p > 100 - dup / 2)
					shoal_rx_add(&rx, off, l);
				if (held) {
					shoal_rx_add(&rx, held_off, held_len);
					held = false;
				}
			}
		}
		if (step % 3 == 0) {
			n = shoal_rx_gaps(&rx, tx.authorised, step, interval,
					  max_len, out, max_out);
			for (i = 0; i < n; i++)
				if (!bad || rnd(&seed) % 100 >= loss / 2)
					shoal_tx_resend(&tx, out[i].start,
							out[i].end - out[i].start);
		}
		if (tx.next_off > tx.authorised || tx.authorised > len)
			FAIL("sent past authorised");
	}
	paths[P_LOOP_DONE].hits++;
	paths[P_LOOP_HEALED].hits += step > heal;
}

/* ---- the receiver's resend tick against a model ---- */

/* The model keeps true times (u64, from 0, never wrapping); the tick sees
 * them from @base on, an unsigned long that may wrap
 */
struct tick_model {
	u64 now, heard, granted_at;
	u32 quiet, silent;
};

static bool pow2(u32 q)
{
	return q && !(q & (q - 1));
}

/* A wait for credit is told BUSY at quiet 1, 2, 4, 8, 16, 24, ...: the
 * intervals to the next telling one from @q if @q tells, else 0
 */
static u32 busy_model(u32 q)
{
	u32 n;

	if (!(pow2(q) && q < SHOAL_BUSY_EVERY) &&
	    !(q >= SHOAL_BUSY_EVERY && q % SHOAL_BUSY_EVERY == 0))
		return 0;
	for (n = q + 1;; n++)
		if ((pow2(n) && n < SHOAL_BUSY_EVERY) ||
		    (n >= SHOAL_BUSY_EVERY && n % SHOAL_BUSY_EVERY == 0) ||
		    n == 0)
			return n - q;
}

/* Bytes of [0, upto) that arrived */
static u32 rx_below(const struct shoal_rx_ranges *rx, u32 upto)
{
	u32 i, sum = 0;

	for (i = 0; i < rx->nr; i++)
		sum += shoal_range_overlap(&rx->rcv[i], 0, upto);
	return sum;
}

/* One tick: what shoal_rx_tick() says against what the model says it
 * must; the model moves on as the caller's counters would
 */
static enum shoal_tick_act tick_step(struct tick_model *m,
				     struct shoal_tick_in *in,
				     const struct shoal_rx_ranges *rx,
				     unsigned long base, u64 ival, u32 limit)
{
	bool since = m->granted_at > m->heard;
	u64 last = since ? m->granted_at : m->heard;
	bool waits = !in->granted || in->owed ||
		     rx_below(rx, in->granted) == in->granted;
	u32 most = rx->received ? limit :
		   (limit < SHOAL_SILENT_EMPTY ? limit : SHOAL_SILENT_EMPTY);
	struct shoal_tick t;

	in->heard = base + m->heard;
	in->granted_at = base + m->granted_at;
	in->quiet = m->quiet;
	in->silent = m->silent;
	t = shoal_rx_tick(in, rx, base + m->now, ival, limit);
	if (t.act > SHOAL_TICK_QUEUED)
		FAIL("tick: action %d", t.act);
	if (since)
		m->quiet = 0;
	if (m->now - last < ival) {
		if (t.act != SHOAL_TICK_IDLE || t.reclaim ||
		    t.heard != in->heard || t.quiet != m->quiet ||
		    t.silent != m->silent)
			FAIL("tick: %llu of %llu since the news: act %d",
			     (unsigned long long)(m->now - last),
			     (unsigned long long)ival, t.act);
		return t.act;
	}
	m->heard = m->now;
	m->quiet++;
	if (!waits && in->queued) {
		/* its data may wait behind earlier credit: not silence, and
		 * the interval starts again
		 */
		m->quiet = 0;
		if (t.act != SHOAL_TICK_QUEUED || t.reclaim ||
		    t.heard != base + m->now || t.quiet ||
		    t.silent != m->silent)
			FAIL("tick: queued, act %d quiet %u silent %u", t.act,
			     t.quiet, t.silent);
		return t.act;
	}
	if (t.act == SHOAL_TICK_QUEUED)
		FAIL("tick: QUEUED with nothing queued");
	if (t.heard != base + m->now || t.quiet != m->quiet)
		FAIL("tick: quiet %u heard %lu, model %u %lu", t.quiet,
		     t.heard, m->quiet, (unsigned long)(base + m->now));
	if (waits) {
		m->silent = 0;
		if (t.act != SHOAL_TICK_BUSY || t.silent ||
		    t.reclaim != (m->quiet >= 2))
			FAIL("tick: waits for credit, act %d reclaim %d",
			     t.act, t.reclaim);
		if (t.busy_wait != busy_model(m->quiet))
			FAIL("tick: BUSY at quiet %u says the next in %u, model %u",
			     m->quiet, t.busy_wait, busy_model(m->quiet));
		return t.act;
	}
	if (t.act == SHOAL_TICK_BUSY)
		FAIL("tick: BUSY with granted bytes missing");
	m->silent++;
	if (t.silent != m->silent)
		FAIL("tick: silent %u, model %u", t.silent, m->silent);
	if (m->silent > most) {
		if (t.act != SHOAL_TICK_FORGET || t.reclaim)
			FAIL("tick: silent %u of %u, act %d", m->silent, most,
			     t.act);
		return t.act;
	}
	if (t.act == SHOAL_TICK_FORGET)
		FAIL("tick: forgotten at silent %u of %u", m->silent, most);
	if ((t.act == SHOAL_TICK_RESEND) != (m->quiet >= 2 && pow2(m->quiet)))
		FAIL("tick: act %d at quiet %u", t.act, m->quiet);
	if (t.reclaim != (t.act == SHOAL_TICK_RESEND))
		FAIL("tick: reclaim %d with act %d", t.reclaim, t.act);
	if (t.act == SHOAL_TICK_RESEND &&
	    (shoal_rx_complete(rx) || rx_below(rx, in->granted) >= in->granted))
		FAIL("tick: RESEND with every granted byte here");
	return t.act;
}

static void fuzz_tick(struct in *in)
{
	u32 len = 1 + get16(in) % MAXLEN, limit = get8(in) % 64;
	u64 ival = 1 + get8(in) % 50;
	struct shoal_tick_in s = { .granted = 0 };
	struct tick_model m = { .now = 0 };
	struct shoal_rx_ranges rx;
	enum shoal_tick_act act;
	unsigned long base;
	u32 off, l, step;

	/* a clock anywhere, near its wrap a quarter of the time */
	base = get32(in);
	base = base << 16 << 16 | get32(in);
	if (get8(in) % 4 == 0)
		base = ~0UL - get16(in);
	/* counters from anywhere, at times: they wrap as the caller's do */
	if (get8(in) % 8 == 0) {
		m.quiet = get32(in);
		m.silent = get32(in);
	}
	shoal_rx_init(&rx, len);
	for (step = 0; in->i < in->size && step < 4096; step++) {
		switch (get8(in) % 8) {
		case 0:		/* new bytes */
			off = get16(in) % len;
			l = 1 + get16(in) % (len - off);
			if (shoal_rx_add(&rx, off, l) > 0) {
				m.heard = m.now;
				m.quiet = 0;
			}
			m.silent = 0;	/* any packet: the sender lives */
			break;
		case 1:		/* a probe: no new bytes */
			m.silent = 0;
			break;
		case 2:		/* credit */
			s.granted += get16(in) % (len + 1);
			if (s.granted > len)
				s.granted = len;
			m.granted_at = m.now;
			break;
		case 3:		/* RESENDs owed; data queued behind credit */
			off = get8(in);
			s.owed = off & 1;
			s.queued = off & 2;
			break;
		default:	/* time passes, and the tick comes */
			m.now += get8(in) % (3 * ival + 1);
			act = tick_step(&m, &s, &rx, base, ival, limit);
			paths[P_TICK + act].hits++;
			if (act == SHOAL_TICK_FORGET)
				return;
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size, 1 };

	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_rx(&in);
		break;
	case 1:
		fuzz_tx(&in);
		break;
	case 2:
		fuzz_loop(&in);
		break;
	default:
		fuzz_tick(&in);
		break;
	}
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_shoal_msg", 5400, 29);
	unsigned char buf[1536];
	unsigned long i;
	size_t len, k;
	int ok;

	for (i = 0; i < iters; i++) {
		len = 1 + rand() % sizeof(buf);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_shoal_msg: %lu inputs (receiver against a bitmap, ",
	       iters);
	printf("sender against a model, both over a lossy network, the resend tick against a model), invariants held\n");
	ok = fuzz_paths_check(2, "fuzz_shoal_msg", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
