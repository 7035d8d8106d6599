// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for PL2's host arithmetic (include/net/shoal/pl2_core.h).  The
 * input picks a configuration (K, t, the slot and the uplink's rate, from
 * ordinary to 0, 1 and 2^64 - 1), then drives one destination through
 * GRTs (any word, the clock going forward and now and then back, bursts
 * that went unsolicited or not), Algorithm 2's decision and its "recent"
 * window, the uplink's clock, and the bare helpers
 * with any operands.  A model kept here in 128-bit arithmetic checks
 * every answer: Eq. 1 exactly (saturated only where 64 bits cannot hold
 * it) and never more than chosen slots; the estimate is the smallest of
 * the model's last 8 samples; the unsolicited decision and the GRT's
 * action are Algorithm 2's; the window and slot lengths are the exact
 * products, saturated; the uplink's clock never goes back and holds what
 * the model says.  A libFuzzer target with -DSHOAL_LIBFUZZER, otherwise
 * a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_driver.h"
#include <net/shoal/pl2_core.h>

#define MAX64	((__uint128_t)~0ULL)

static unsigned long grts, unsol_yes, resends, saturated;

static u64 sat(__uint128_t v)
{
	if (v > MAX64) {
		saturated++;
		return ~0ULL;
	}
	return (u64)v;
}

static u64 get64(const uint8_t *d, size_t size, size_t *i)
{
	u64 v = 0;
	int k;

	for (k = 0; k < 8; k++)
		v = v << 8 | (*i < size ? d[(*i)++] : 0);
	return v;
}

/* A value from one selector byte and 8 more: the edges, small, any */
static u64 pick(const uint8_t *d, size_t size, size_t *i)
{
	u8 s = *i < size ? d[(*i)++] : 0;
	u64 v = get64(d, size, i);

	switch (s % 8) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ~0ULL - (v & 0xff);
	case 3:
		return v & 0xffff;
	case 4:
		return v & 0xffffffffULL;
	default:
		return v;
	}
}

/* pl2_bytes_ns's contract: exact, rounded up, below 2^31 bytes */
static u64 model_bytes_ns(u64 bytes, u64 rate)
{
	__uint128_t bits;

	if (!rate)
		return 0;
	bits = (__uint128_t)bytes * 8000000000ULL;
	if (bits >= MAX64)
		return ~0ULL;
	return sat((bits + rate - 1) / rate);
}

/* What Algorithm 2 and Eq. 1 see of one destination */
struct model {
	u64 s[PL2_EST_N];	/* every sample, newest last */
	u32 n;
	s64 last_chosen;
	u64 last_resp;
};

static u64 model_est(const struct model *m)
{
	u64 min = 0;
	u32 i, from = m->n > PL2_EST_N ? m->n - PL2_EST_N : 0;

	for (i = from; i < m->n; i++)
		if (i == from || m->s[i % PL2_EST_N] < min)
			min = m->s[i % PL2_EST_N];
	return min;
}

static u64 model_wait(u64 slot_ns, u32 chosen, u64 est, u64 pending)
{
	__uint128_t slots = (__uint128_t)chosen * slot_ns, ahead = (__uint128_t)est + pending;
	u64 w;

	/* the core saturates each side to 64 bits first */
	if (slots > MAX64)
		slots = MAX64;
	if (ahead > MAX64)
		ahead = MAX64;
	w = slots > ahead ? (u64)(slots - ahead) : 0;
	if ((__uint128_t)w > (__uint128_t)chosen * slot_ns)
		abort();	/* never later than the slot itself */
	if ((__uint128_t)chosen * slot_ns <= MAX64 && (__uint128_t)est + pending <= MAX64 &&
	    w != ((__uint128_t)chosen * slot_ns > (__uint128_t)est + pending ?
		  (u64)((__uint128_t)chosen * slot_ns - est - pending) : 0))
		abort();	/* Eq. 1, exactly, whenever 64 bits hold it */
	return w;
}

static u64 model_recent(const struct model *m)
{
	u64 recent = sat((__uint128_t)2 * model_est(m));

	return recent < PL2_RECENT_MIN_NS ? PL2_RECENT_MIN_NS : recent;
}

static bool model_unsol(const struct pl2_cfg *c, const struct model *m,
			u64 now)
{
	u64 recent = model_recent(m);

	return c->t && m->last_chosen >= 0 && m->last_chosen < c->t &&
	       m->n && now >= m->last_resp && now - m->last_resp <= recent;
}

static void check_peer(const struct pl2_peer *p, const struct model *m)
{
	if (p->est.n != (m->n < PL2_EST_N ? m->n : PL2_EST_N) ||
	    pl2_est_min(&p->est) != model_est(m) ||
	    p->last_chosen != m->last_chosen ||
	    (m->last_chosen >= 0 && p->last_resp_ns != m->last_resp))
		abort();
}

static void cfg_pick(struct pl2_cfg *c, const uint8_t *data, size_t size,
		     size_t *at)
{
	u8 sel = data[(*at)++];
	u32 mtu, mbps;

	c->k = 1 + data[(*at)++] % 64;
	switch (sel % 4) {
	case 0:		/* the paper's and ours */
		c->t = 15;
		break;
	case 1:
		c->t = 0;
		break;
	case 2:
		c->t = (u32)get64(data, size, at);
		break;
	default:
		c->t = data[(*at)++] % 40;
		break;
	}
	mtu = (u32)pick(data, size, at);
	mbps = (u32)pick(data, size, at);
	if (sel & 4) {	/* the kernel's way: a slot from MTU and rate */
		c->rate_bps = (u64)mbps * 1000000ULL;
		c->slot_ns = model_bytes_ns(mtu, c->rate_bps);
		if (pl2_slot_ns(mtu, mbps) != (c->slot_ns ? c->slot_ns : 1))
			abort();	/* exact, and never 0 */
		c->slot_ns = pl2_slot_ns(mtu, mbps);
	} else {	/* any slot, any rate */
		c->slot_ns = pick(data, size, at);
		c->rate_bps = pick(data, size, at);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m = { .last_chosen = -1 };
	struct pl2_peer p;
	struct pl2_cfg c;
	enum pl2_grt_action a;
	u64 now, free_ns = 0, model_free = 0, prev_free, v, w, rsv, pend;
	u32 word, chosen;
	size_t at = 0;
	bool unsol;
	u8 op;

	if (size < 24)
		return 0;
	cfg_pick(&c, data, size, &at);
	now = get64(data, size, &at) >> (data[at % size] % 64);
	pl2_peer_init(&p);
	while (at < size) {
		op = data[at++];
		switch (op % 8) {
		case 0:		/* a GRT */
		case 1:
			word = (u32)get64(data, size, &at);
			if (op & 0x10)	/* mostly small slots, as switches give */
				word &= 0x001f001f;
			v = pick(data, size, &at);
			rsv = op & 0x20 ? now - (v & 0xfffff) : v;
			unsol = op & 0x40;
			/* when the uplink is free: anywhere, or near now */
			pend = op & 0x80 ? pick(data, size, &at) : 0;
			if (op & 0x08)
				pend = sat((__uint128_t)now + (pend >> 40));
			chosen = pl2_chosen(word);
			if (chosen != (word >> 16 > (word & 0xffff) ?
				       word >> 16 : (word & 0xffff)) ||
			    chosen > PL2_SLOT_FIELD)
				abort();
			w = 12345;
			a = pl2_on_grt(&c, &p, now, rsv, word, unsol, pend, &w);
			if (now >= rsv) {
				m.s[m.n % PL2_EST_N] = now - rsv;
				m.n++;
			}
			m.last_chosen = chosen;
			m.last_resp = now;
			if (a != (!unsol ? PL2_SEND_AT : chosen > c.t ?
				  PL2_UNSOL_RESEND : PL2_UNSOL_DONE))
				abort();
			if (a != PL2_UNSOL_DONE) {
				/* pend is when the uplink is free: what it
				 * holds when the burst should leave counts
				 */
				u64 leave = sat((__uint128_t)now +
					       model_wait(c.slot_ns, chosen,
							  model_est(&m), 0));
				u64 held = pend > leave ? pend - leave : 0;

				if (w != model_wait(c.slot_ns, chosen,
						    model_est(&m), held))
					abort();
			} else if (w) {
				abort();
			}
			resends += a == PL2_UNSOL_RESEND;
			grts++;
			break;
		case 2:		/* Algorithm 2: may the next burst go ahead? */
			unsol = pl2_may_unsol(&c, &p, now);
			if (unsol != model_unsol(&c, &m, now))
				abort();
			unsol_yes += unsol;
			break;
		case 3:		/* the "recent" window: twice the estimate */
			if (pl2_recent_ns(&p) != model_recent(&m))
				abort();
			break;
		case 4:		/* packets handed to the uplink */
			v = op & 0x10 ? pick(data, size, &at) :
			    get64(data, size, &at) & 0xffff;
			prev_free = free_ns;
			w = pl2_uplink_add(&free_ns, now, v, c.rate_bps);
			if (w != (model_free > now ? model_free - now : 0))
				abort();
			model_free = sat((__uint128_t)(model_free > now ? model_free :
						now) + model_bytes_ns(v,
								      c.rate_bps));
			if (free_ns != model_free || free_ns < prev_free ||
			    pl2_uplink_pending(free_ns, now) !=
			    (free_ns > now ? free_ns - now : 0))
				abort();
			break;
		case 5:		/* Eq. 1 and the slot helpers, any operands */
			chosen = (u32)pick(data, size, &at);
			v = pick(data, size, &at);
			pend = pick(data, size, &at);
			w = pl2_wait_ns(&c, chosen, v, pend);
			if (w != model_wait(c.slot_ns, chosen, v, pend))
				abort();
			if (pl2_bytes_ns(v, pend) != model_bytes_ns(v, pend))
				abort();
			break;
		case 6:		/* time goes on: mostly within "recent" */
			v = get64(data, size, &at);
			now += op & 0x80 ? v >> (op >> 3 & 15) :
			       v >> (44 + (op >> 3 & 15));
			break;
		default:	/* or back (a clock step, a GRT from before) */
			now -= get64(data, size, &at) >> (44 + (op >> 3 & 15));
			break;
		}
		check_peer(&p, &m);
	}
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_pl2_core", 200000, 25);
	unsigned char buf[512];
	unsigned long i;
	size_t len, k;

	for (i = 0; i < iters; i++) {
		len = 24 + rand() % (sizeof(buf) - 24);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	if (grts < iters || !unsol_yes || !resends || !saturated) {
		printf("not ok 1 - fuzz_pl2_core: %lu GRTs, %lu unsolicited, ",
		       grts, unsol_yes);
		printf("%lu resends, %lu saturated in %lu inputs\n", resends,
		       saturated, iters);
		return 1;
	}
	printf("ok 1 - fuzz_pl2_core: %lu inputs (GRTs, Algorithm 2, windows, ",
	       iters);
	printf("uplink, clock steps, extreme rates), ");
	printf("%lu GRTs, %lu unsolicited, %lu resends, %lu saturated, the model held\n",
	       grts, unsol_yes, resends, saturated);
	printf("1..1\n");
	return 0;
}
#endif
