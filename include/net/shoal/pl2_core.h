/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PL2's host arithmetic (Documentation/shoal.md, "PL2",
 * ../shared/specs/pl2.md): a slot's length, the GRT's two slots, the
 * paper's Eq. 1 (how long a granted burst waits), the RSV-GRT delay
 * estimate, and Algorithm 2's unsolicited bursts.  Plain C with no kernel
 * calls and no allocation; the endpoint keeps one struct pl2_peer per
 * destination host and serialises calls on it (its socket's lock).
 * Unit-tested and fuzzed in userspace.
 *
 * Decisions where the paper is silent (PL2, arXiv 2101.06537, section 4):
 * - A slot is one full packet of mtu bytes at the link rate, as the
 *   paper's MTU / linerate; rounded up, never 0.
 * - The RSV-GRT delay in Eq. 1 is the smallest of the last PL2_EST_N
 *   samples: the paper measures it "continuously" without saying how.
 *   An exchange whose RSV waited in a queue measures a long delay;
 *   subtracting that would send the burst early into someone else's
 *   slot.  The minimum leans late, as the paper does.
 * - "Recent" in Algorithm 2 is twice that minimum (an exchange's time),
 *   and never less than PL2_RECENT_MIN_NS (a timer's slack).
 * - Before any GRT the peer has no estimate: nothing goes unsolicited.
 */
#ifndef _PL2_CORE_H
#define _PL2_CORE_H

#include <net/shoal/types.h>

#define PL2_EST_N		8	/* RSV-GRT samples the estimate keeps */
#define PL2_RECENT_MIN_NS	20000ULL	/* "recent": never below */
#define PL2_SLOT_FIELD		0xffffU	/* a GRT carries 16-bit slots */

struct pl2_cfg {
	u32 k;			/* packets per burst, at most */
	u32 t;			/* unsolicited below this many slots, 0: never */
	u64 slot_ns;		/* one full packet at the link rate */
	u64 rate_bps;		/* the uplink's rate: what its queue holds */
};

/* The RSV-GRT delay: the last PL2_EST_N samples, in ns */
struct pl2_est {
	u64 s[PL2_EST_N];
	u32 n;			/* samples so far, at most PL2_EST_N */
	u32 next;		/* where the next one goes */
};

/* A destination host, as Algorithm 2 sees it */
struct pl2_peer {
	s32 last_chosen;	/* the last GRT's chosen slot, -1: none */
	u64 last_resp_ns;	/* when it came */
	struct pl2_est est;
};

/* What to do with a burst once its GRT is in */
enum pl2_grt_action {
	PL2_SEND_AT,		/* send it at the time given */
	PL2_UNSOL_DONE,		/* it went unsolicited and that was right */
	PL2_UNSOL_RESEND,	/* it went unsolicited into a busy port:
				 * send it again at the time given
				 */
};

#define PL2_NS_MAX		(~0ULL)	/* every time saturates here */

/* Time sums and products saturate: a wrapped one would turn a long wait
 * or timeout into none
 */
static inline u64 pl2_add_sat(u64 a, u64 b)
{
	u64 r;

	return __builtin_add_overflow(a, b, &r) ? PL2_NS_MAX : r;
}

static inline u64 pl2_mul_sat(u64 a, u64 b)
{
	u64 r;

	return __builtin_mul_overflow(a, b, &r) ? PL2_NS_MAX : r;
}

/* ns of @bytes at @rate_bps, rounded up; 0 when the rate is 0.  Exact
 * below 2^31 bytes (far more than a burst); beyond, PL2_NS_MAX.
 */
static inline u64 pl2_bytes_ns(u64 bytes, u64 rate_bps)
{
	u64 bit_ns, q;

	if (!rate_bps)
		return 0;
	bit_ns = pl2_mul_sat(bytes, 8 * 1000000000ULL);
	if (bit_ns == PL2_NS_MAX)
		return PL2_NS_MAX;
	/* not (a + rate - 1) / rate: that wraps for rates near 2^64 */
	q = shoal_div64(bit_ns, rate_bps);
	return q + (q * rate_bps != bit_ns);
}

/* One slot: a packet of @mtu bytes at @rate_mbps, at least 1 ns */
static inline u64 pl2_slot_ns(u32 mtu, u32 rate_mbps)
{
	u64 ns = pl2_bytes_ns(mtu, (u64)rate_mbps * 1000000ULL);

	return ns ? ns : 1;
}

/* The GRT's word: the input port's slot (high half), the output port's
 * (low half); the burst goes at the later of the two
 */
static inline u32 pl2_grt_in(u32 word)
{
	return word >> 16;
}

static inline u32 pl2_grt_out(u32 word)
{
	return word & PL2_SLOT_FIELD;
}

static inline u32 pl2_chosen(u32 word)
{
	u32 in = pl2_grt_in(word), out = pl2_grt_out(word);

	return in > out ? in : out;
}

static inline void pl2_peer_init(struct pl2_peer *p)
{
	*p = (struct pl2_peer){ .last_chosen = -1 };
}

static inline void pl2_est_add(struct pl2_est *e, u64 ns)
{
	e->s[e->next] = ns;
	e->next = (e->next + 1) % PL2_EST_N;
	if (e->n < PL2_EST_N)
		e->n++;
}

/* The estimate: the smallest recent sample, 0 with none */
static inline u64 pl2_est_min(const struct pl2_est *e)
{
	u64 m = 0;
	u32 i;

	for (i = 0; i < e->n; i++)
		if (!i || e->s[i] < m)
			m = e->s[i];
	return m;
}

/* Eq. 1: how long a burst granted slot @chosen waits after its GRT came.
 * The first packet reaches the switch at the reservation's time plus
 * chosen slots: the GRT took about half of @rsv_grt_ns to come back, the
 * packet takes the other half plus @pending_ns behind what the uplink
 * still holds.  0: at once.
 */
static inline u64 pl2_wait_ns(const struct pl2_cfg *c, u32 chosen,
			      u64 rsv_grt_ns, u64 pending_ns)
{
	u64 slots = pl2_mul_sat(chosen, c->slot_ns);
	u64 ahead = pl2_add_sat(rsv_grt_ns, pending_ns);

	return slots > ahead ? slots - ahead : 0;
}

/* How long after its last GRT a peer's ports count as known */
static inline u64 pl2_recent_ns(const struct pl2_peer *p)
{
	u64 r = pl2_mul_sat(2, pl2_est_min(&p->est));

	return r > PL2_RECENT_MIN_NS ? r : PL2_RECENT_MIN_NS;
}

/* Algorithm 2: whether a new burst to @p goes at once, unsolicited (the
 * last grant was small and recent), besides its RSV
 */
static inline bool pl2_may_unsol(const struct pl2_cfg *c,
				 const struct pl2_peer *p, u64 now)
{
	if (!c->t || p->last_chosen < 0 || (u32)p->last_chosen >= c->t ||
	    !p->est.n)
		return false;
	return now >= p->last_resp_ns && now - p->last_resp_ns <=
	       pl2_recent_ns(p);
}

static inline u64 pl2_uplink_pending(u64 free_ns, u64 now)
{
	return free_ns > now ? free_ns - now : 0;
}

/* A GRT with @word came at @now for a burst whose RSV left at @rsv_ns and
 * which went unsolicited or not (@unsol); the uplink is busy until
 * @uplink_free_ns.  Updates the peer (the estimate, the last grant) and
 * says what to do; *@wait_ns: how long from now, for PL2_SEND_AT and
 * PL2_UNSOL_RESEND.  The sample is this exchange's delay, but the wait
 * uses the estimate, of which it is now part.
 *
 * Eq. 1's pendingDataDelay is what the uplink holds when the burst is
 * handed to it, not when the GRT comes: the burst waits first, and the
 * uplink drains meanwhile.  Taken at the GRT, as the paper's formula
 * reads, it would send the burst early by all the uplink sends while it
 * waits (a previous burst of this host, typically: a slot or two).  So
 * the burst is handed over when it should leave, less what the uplink
 * will still hold then, which is nothing unless it is busy past that.
 */
static inline enum pl2_grt_action pl2_on_grt(const struct pl2_cfg *c,
					     struct pl2_peer *p, u64 now,
					     u64 rsv_ns, u32 word, bool unsol,
					     u64 uplink_free_ns, u64 *wait_ns)
{
	u32 chosen = pl2_chosen(word);
	enum pl2_grt_action a = PL2_SEND_AT;
	u64 est, leave, held;

	if (now >= rsv_ns)
		pl2_est_add(&p->est, now - rsv_ns);
	/* Algorithm 2, lines 16-19: a burst that went ahead of its grant
	 * into a busy port goes again in its slot (the switch may have
	 * dropped it, or it collided); the receiver drops duplicates
	 */
	if (unsol)
		a = chosen > c->t ? PL2_UNSOL_RESEND : PL2_UNSOL_DONE;
	p->last_chosen = (s32)chosen;
	p->last_resp_ns = now;
	*wait_ns = 0;
	if (a == PL2_UNSOL_DONE)
		return a;
	est = pl2_est_min(&p->est);
	leave = pl2_add_sat(now, pl2_wait_ns(c, chosen, est, 0));
	held = pl2_uplink_pending(uplink_free_ns, leave);
	*wait_ns = pl2_wait_ns(c, chosen, est, held);
	return a;
}

/* The uplink: *@free_ns is when it has sent everything handed to it.
 * @bytes more leave at @now; returns what it held before them, in ns
 * (Eq. 1's pendingDataDelay).
 */
static inline u64 pl2_uplink_add(u64 *free_ns, u64 now, u64 bytes,
				 u64 rate_bps)
{
	u64 pending = *free_ns > now ? *free_ns - now : 0;

	*free_ns = pl2_add_sat(now + pending, pl2_bytes_ns(bytes, rate_bps));
	return pending;
}

#endif /* _PL2_CORE_H */
