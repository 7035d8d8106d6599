/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIRD's arithmetic (Documentation/shoal.md, ../shared/specs/sird.md):
 * which bytes go unscheduled, the receiver's credit buckets and their two
 * DCTCP-style loops, which message gets the next credit, how fast credit
 * goes out, and the sender's congestion bit and choice of receiver.
 * Plain C with no kernel calls and no allocation; the endpoint keeps the
 * state in its peers and messages and serialises calls on each (its
 * locks).  Unit-tested and fuzzed in userspace.
 *
 * Decisions where the paper is silent (SIRD, NSDI'25, sections 3-4):
 * - The AIMD loops run on every DATA packet, unscheduled ones too (its
 *   Algorithm 1 samples every packet).  Additive increase: one MSS per
 *   bucket's worth of unmarked bytes (about one MSS per RTT).  The
 *   multiplicative decrease and the alpha update come once per window,
 *   which ends after an RTT or a bucket's worth of bytes, whichever is
 *   later: DCTCP's once-per-RTT, measured in what arrived.
 * - alpha is fixed point (SIRD_ONE = 1.0); gain g = 2^-g_shift, g_shift
 *   0..16.
 * - Buckets stay within [min_bkt, BDP]: the floor keeps feedback flowing
 *   to a sender that was cut back.
 * - Credit is granted a packet's worth (at most one MSS) at a time, to the
 *   message with the fewest bytes still to arrive (SRPT) among those whose
 *   sender's bucket and the global B both have room.  rx_fair_permille
 *   of the grants go round robin over the sender hosts instead (the
 *   paper's other policy), chosen as the sender's split chooses
 *   (sird_choice_*(), which the endpoint's list walk and the arrays here
 *   share).
 * - Credit is paced at the downlink rate counting each packet's headers,
 *   so that the data it lets in fits the link.  A pacer whose timer fired
 *   late makes up at most sird_pace_catchup() of the lost time with a
 *   burst (sird_pace_next()).
 * - The sender splits its turns between fair share (round robin over
 *   receivers) and SRPT by a running sum of fair_permille: exactly that
 *   share over any 1000 turns, no randomness to test around.
 *
 * Decisions beyond the paper (issue 22, Documentation/shoal.md "How a
 * message travels"):
 * - Unscheduled bytes are governed by their sender: the unscheduled bytes
 *   a sender has out to one receiver host (sent, their message not yet
 *   acknowledged) stay within one BDP.  A message that would pass it sends
 *   only what is left of the allowance unscheduled and asks for credit
 *   for the rest.  In the paper unscheduled bytes have no congestion
 *   control at all (a message <= UnschT sends its first BDP at once,
 *   whatever waits at the receiver), so an overloaded receiver's port
 *   fills with them and its control packets die in the queue.  Homa
 *   instead charges them to the receiver's max_incoming, which bounds
 *   only the scheduled bytes on top of them, not the unscheduled ones.
 *   With the allowance a sender whose earlier message to that receiver
 *   is still in flight (it is waiting there) goes scheduled: the receiver
 *   then orders it with the others, and the bytes in flight towards a
 *   port are at most B plus a BDP per sender.
 * - SRPT's ties go to the newest message, and rx_fifo_permille of the
 *   grants (100 by default) to the oldest, as Homa's grant_fifo_fraction
 *   does.  The paper does not say how ties go; they are the common case
 *   when messages are of one size (an incast of RPCs): all that have
 *   not begun have the same bytes left.  Oldest first is FIFO, whose
 *   median at high load is a queue's (60 KB RPCs at 95% of 50 Mbit/s:
 *   1.5x TCP cubic's); newest first serves most messages at once and
 *   leaves a few to wait long (p50 0.4x cubic's, p99 as bad as cubic's);
 *   the oldest's share bounds that wait (p99 0.3x).  Results:
 *   Documentation/results/shoal.md, "Ties and the oldest".
 * - Sizes that fit the link: with the link's rate known, the BDP is that
 *   rate times the round trip a grant sees under load, within [4 MSS,
 *   64 KB] (64 KB, the old default, is 100 Mbit/s x 5 ms: a faster
 *   device's nominal rate says nothing of the path, and a larger BDP
 *   only lets more bytes go unscheduled); UnschT is the BDP, B 1.5 BDP and
 *   SThr 0.5 BDP, the paper's ratios.
 */
#ifndef _SIRD_CORE_H
#define _SIRD_CORE_H

#include <net/shoal/types.h>

#define SIRD_ONE	65536U		/* alpha 1.0 */

struct sird_cfg {
	u32 mss;		/* payload bytes of a full DATA packet */
	u32 bdp;		/* bytes: per-sender bucket ceiling */
	u32 b;			/* global credit bucket B, bytes */
	u32 unsch_thresh;	/* UnschT: longer messages are all scheduled */
	u32 sthr;		/* sender congestion threshold; 0: loop off */
	u32 min_bkt;		/* bucket floor, at least mss */
	u32 g_shift;		/* DCTCP gain 2^-g_shift, 0..16 */
	u64 rtt_ns;		/* the loops' window */
	u64 rate_bps;		/* credit pacing; 0: not paced */
	u32 overhead;		/* header bytes per packet on the wire */
	u32 fair_permille;	/* sender turns given to fair share */
	u32 rx_fair_permille;	/* receiver grants given round robin */
	u32 rx_fifo_permille;	/* receiver grants given to the oldest */
};

/* One AIMD loop: a bucket size and DCTCP's alpha */
struct sird_loop {
	u32 bkt;
	u32 alpha;		/* of SIRD_ONE */
};

/* What a receiver keeps per sender host */
struct sird_rx_peer {
	struct sird_loop snd;		/* from the csn bit */
	struct sird_loop net;		/* from ECN CE marks */
	u32 sb;				/* credit outstanding to it */
	u64 win_start;			/* the window's first packet */
	u64 win_bytes;			/* bytes in the window */
	u64 win_csn;			/* of which with csn */
	u64 win_ce;			/* of which CE-marked */
};

/* A message that may get credit */
struct sird_cand {
	u64 order;		/* its sender host's place in the round */
	u64 born;		/* when it came, in any increasing unit */
	u32 left;		/* bytes still to arrive (SRPT's key) */
	u32 rem;		/* bytes wanted but not yet granted */
	u32 sb;			/* its sender's outstanding credit */
	u32 bkt;		/* its sender's bucket */
};

/* The unscheduled prefix of a message of @len bytes */
static inline u32 sird_unsched(const struct sird_cfg *c, u32 len)
{
	if (len > c->unsch_thresh)
		return 0;
	return len < c->bdp ? len : c->bdp;
}

static inline u32 sird_min(u32 a, u32 b)
{
	return a < b ? a : b;
}

/* The unscheduled prefix of a message of @len bytes whose sender has @out
 * unscheduled bytes out to the same receiver host (messages not yet
 * acknowledged): what is left of the allowance of one BDP, at most
 */
static inline u32 sird_unsched_allowed(const struct sird_cfg *c, u32 len,
				       u64 out)
{
	u32 want = sird_unsched(c, len);

	if (out >= c->bdp)
		return 0;
	return sird_min(want, c->bdp - (u32)out);
}

/* The sizes that fit a link of @rate_mbps and a loaded round trip of
 * @rtt_us, for @mss-byte packets (0 rate: the old defaults)
 */
struct sird_sizes {
	u32 bdp;
	u32 unsch_thresh;
	u32 b;
	u32 sthr;
};

#define SIRD_BDP_MAX	65536U		/* 100 Mbit/s x 5 ms */

static inline struct sird_sizes sird_link_sizes(u32 rate_mbps, u32 rtt_us,
						u32 mss)
{
	u64 bdp = shoal_div64((u64)rate_mbps * rtt_us, 8);
	u64 floor = 4ULL * mss;

	if (!rate_mbps || bdp > SIRD_BDP_MAX)
		bdp = SIRD_BDP_MAX;
	if (bdp < floor)
		bdp = floor > SIRD_BDP_MAX ? SIRD_BDP_MAX : floor;
	return (struct sird_sizes){
		.bdp = (u32)bdp,
		.unsch_thresh = (u32)bdp,
		.b = (u32)(bdp + bdp / 2),
		.sthr = (u32)(bdp / 2),
	};
}

static inline void sird_rx_peer_init(const struct sird_cfg *c,
				     struct sird_rx_peer *p, u64 now)
{
	*p = (struct sird_rx_peer){
		.snd = { .bkt = c->bdp },
		.net = { .bkt = c->bdp },
		.win_start = now,
	};
}

/* The sender's bucket: the smaller loop's */
static inline u32 sird_bucket(const struct sird_rx_peer *p)
{
	return sird_min(p->snd.bkt, p->net.bkt);
}

static inline u32 sird_clamp(const struct sird_cfg *c, u64 bkt)
{
	u32 floor = c->min_bkt > c->bdp ? c->bdp : c->min_bkt;

	if (bkt < floor)
		return floor;
	return bkt > c->bdp ? c->bdp : (u32)bkt;
}

/* Additive increase for @len unmarked bytes: an MSS per bucket's worth */
static inline void sird_loop_grow(const struct sird_cfg *c,
				  struct sird_loop *l, u32 len)
{
	u64 step = shoal_div64((u64)c->mss * len, l->bkt ? l->bkt : 1);

	l->bkt = sird_clamp(c, (u64)l->bkt + (step ? step : 1));
}

/* End of a window with @marked of @bytes marked: alpha moves toward the
 * fraction by g; a marked window cuts the bucket by alpha / 2
 */
static inline void sird_loop_window(const struct sird_cfg *c,
				    struct sird_loop *l, u64 marked, u64 bytes)
{
	u32 frac = bytes ? (u32)shoal_div64(marked * SIRD_ONE, bytes) : 0;
	u32 shift = c->g_shift > 16 ? 16 : c->g_shift;

	if (frac >= l->alpha)
		l->alpha += (frac - l->alpha) >> shift;
	else
		l->alpha -= (l->alpha - frac) >> shift;
	if (marked)
		l->bkt = sird_clamp(c, l->bkt -
				       shoal_div64((u64)l->bkt * l->alpha,
						   2 * SIRD_ONE));
}

/* A DATA packet of @len bytes from this sender arrived at @now, with the
 * csn bit or not, CE-marked or not
 */
static inline void sird_rx_sample(const struct sird_cfg *c,
				  struct sird_rx_peer *p, u32 len, bool csn,
				  bool ce, u64 now)
{
	if (!csn || !c->sthr)
		sird_loop_grow(c, &p->snd, len);
	if (!ce)
		sird_loop_grow(c, &p->net, len);
	p->win_bytes += len;
	if (csn && c->sthr)
		p->win_csn += len;
	if (ce)
		p->win_ce += len;
	if (now - p->win_start < c->rtt_ns || p->win_bytes < sird_bucket(p))
		return;
	sird_loop_window(c, &p->snd, p->win_csn, p->win_bytes);
	sird_loop_window(c, &p->net, p->win_ce, p->win_bytes);
	p->win_start = now;
	p->win_bytes = 0;
	p->win_csn = 0;
	p->win_ce = 0;
}

/* A picker's fair turns: the receiver's over sender hosts, the sender's
 * over receiver hosts
 */
struct sird_turns {
	u32 acc;		/* fair_permille summed, mod 1000 */
	u32 fifo_acc;		/* the oldest's share summed, mod 1000 */
	u64 last;		/* order of the host a fair turn served last */
};

/* Whether this turn is a fair one: @permille of the turns, exactly, by a
 * running sum in @acc (no randomness to test around)
 */
static inline bool sird_fair_turn(u32 *acc, u32 permille)
{
	*acc += permille > 1000 ? 1000 : permille;
	if (*acc < 1000)
		return false;
	*acc -= 1000;
	return true;
}

/* Round robin's order over hosts, @last the one served last: a host at
 * @order with a message of @left bytes goes before the choice so far
 * (@cur_order, @cur_left; none if !@have) if it comes sooner after @last,
 * wrapping around; within a host the shorter message first
 */
static inline bool sird_rr_before(u64 last, u64 order, u32 left, bool have,
				  u64 cur_order, u32 cur_left)
{
	bool after = order > last, cur_after = cur_order > last;

	if (!have)
		return true;
	if (after != cur_after)
		return after;
	if (order != cur_order)
		return order < cur_order;
	return left < cur_left;
}

/* A pick in progress over candidates offered one at a time (an array's
 * elements or a list's entries): SRPT's choice (of equals the newest),
 * round robin's and the oldest so far (each the first of equals), kept as
 * the caller's pointers
 */
enum { SIRD_SRPT, SIRD_RR, SIRD_OLD, SIRD_CHOICES };

struct sird_choice {
	const void *kept[SIRD_CHOICES];	/* NULL: none chosen yet */
	bool fair;		/* sird_choice_take() took a fair turn */
	bool fifo;		/* ... or one for the oldest */
	u32 srpt_left, rr_left;
	u64 srpt_born, rr_order, old_born;
};

/* The shares of the turns that do not go to SRPT, in permille */
struct sird_shares {
	u32 fair;		/* round robin over hosts */
	u32 fifo;		/* the oldest candidate (lowest born) */
};

static inline void sird_choice_init(struct sird_choice *ch)
{
	*ch = (struct sird_choice){ .fair = false };
}

/* Candidate @what, a message of @left bytes of the host at @order that
 * came @born'th, may be chosen (@t: the turns so far)
 */
static inline void sird_choice_offer(struct sird_choice *ch,
				     const struct sird_turns *t, u64 order,
				     u32 left, u64 born, const void *what)
{
	if (!ch->kept[SIRD_SRPT] || left < ch->srpt_left ||
	    (left == ch->srpt_left && born > ch->srpt_born)) {
		ch->kept[SIRD_SRPT] = what;
		ch->srpt_left = left;
		ch->srpt_born = born;
	}
	if (!ch->kept[SIRD_OLD] || born < ch->old_born) {
		ch->kept[SIRD_OLD] = what;
		ch->old_born = born;
	}
	if (sird_rr_before(t->last, order, left, ch->kept[SIRD_RR],
			   ch->rr_order, ch->rr_left)) {
		ch->kept[SIRD_RR] = what;
		ch->rr_order = order;
		ch->rr_left = left;
	}
}

/* The candidate chosen, NULL: none was offered.  @s->fifo of the turns go
 * to the oldest; of the others @s->fair are fair: round robin's choice,
 * whose host becomes @t->last; the rest SRPT's.  Each share is exact by
 * its running sum in @t.  A pick without a choice spends no turn.
 */
static inline const void *sird_choice_take(struct sird_choice *ch,
					   const struct sird_shares *s,
					   struct sird_turns *t)
{
	if (!ch->kept[SIRD_SRPT])
		return NULL;
	ch->fifo = sird_fair_turn(&t->fifo_acc, s->fifo);
	if (ch->fifo)
		return ch->kept[SIRD_OLD];
	ch->fair = sird_fair_turn(&t->acc, s->fair);
	if (!ch->fair)
		return ch->kept[SIRD_SRPT];
	t->last = ch->rr_order;
	return ch->kept[SIRD_RR];
}

/* The credit the next grant to @m would give: a packet's worth */
static inline u32 sird_grant_size(const struct sird_cfg *c,
				  const struct sird_cand *m)
{
	return sird_min(m->rem, c->mss);
}

/* Whether @m may get credit now, with @b outstanding in all */
static inline bool sird_can_grant(const struct sird_cfg *c, u32 b,
				  const struct sird_cand *m)
{
	u64 n = sird_grant_size(c, m);

	return n && (u64)m->sb + n <= m->bkt && (u64)b + n <= c->b;
}

/* The candidate to credit next, -1: none has room.  rx_fair_permille of
 * the grants go round the senders' hosts in @order (after @t->last), the
 * others to the fewest bytes left (SRPT).
 */
static inline int sird_pick(const struct sird_cfg *c, u32 b,
			    struct sird_turns *t,
			    const struct sird_cand *cands, u32 n)
{
	const struct sird_shares sh = {
		.fair = c->rx_fair_permille,
		.fifo = c->rx_fifo_permille,
	};
	const struct sird_cand *m;
	struct sird_choice ch;
	u32 i;

	sird_choice_init(&ch);
	for (i = 0; i < n; i++)
		if (sird_can_grant(c, b, &cands[i]))
			sird_choice_offer(&ch, t, cands[i].order,
					  cands[i].left, cands[i].born,
					  &cands[i]);
	m = sird_choice_take(&ch, &sh, t);
	return m ? (int)(m - cands) : -1;
}

/* Credit of @n bytes granted to sender @p (the caller checked room) */
static inline void sird_granted(u32 *b, struct sird_rx_peer *p, u32 n)
{
	*b += n;
	p->sb += n;
}

/* The byte clock: @arrived counts the data bytes the receiver host has
 * heard.  Credit granted when @b bytes were out (itself included) has its
 * data behind theirs on the path, so it is due once @arrived passed the
 * value at the grant plus @b.  Before that, a message that hears nothing
 * may only be queued (a deep queue, or a link slower than the pacer),
 * and asking for its bytes again would add them on top of B.
 */
static inline u64 sird_due(u64 arrived, u32 b)
{
	return arrived + b;
}

static inline bool sird_before_due(u64 arrived, u64 due)
{
	return (s64)(arrived - due) < 0;
}

/* Credit of @n bytes used up (its DATA arrived) or reclaimed (lost, or
 * the message gone).  At most what the sender has out, whatever a
 * duplicate claims, so that @b stays the sum of the senders' credit.
 */
static inline void sird_returned(u32 *b, struct sird_rx_peer *p, u32 n)
{
	n = sird_min(n, p->sb);
	p->sb -= n;
	*b -= sird_min(*b, n);
}

/* The round trip a grant sees, as its receiver measures it: from the
 * CREDIT to the DATA that ends at its offset.  The smallest sample of the
 * last SIRD_RTT_WINDOW_NS stands for the path without a queue (as BBR's
 * min_rtt does), srtt is an average with TCP's gain of 1/8.  Reported
 * (/proc/net/shoal/sird), not used: they tell a queue from a slow path.
 */
struct sird_rtt {
	u64 min_ns;		/* 0: no sample yet */
	u64 min_at;		/* when min_ns was taken */
	u64 srtt_ns;
	u64 samples;
};

#define SIRD_RTT_WINDOW_NS	2000000000ULL

static inline void sird_rtt_sample(struct sird_rtt *r, u64 rtt, u64 now)
{
	if (!rtt)
		rtt = 1;
	if (!r->min_ns || rtt <= r->min_ns ||
	    now - r->min_at > SIRD_RTT_WINDOW_NS) {
		r->min_ns = rtt;
		r->min_at = now;
	}
	if (r->srtt_ns)
		r->srtt_ns += (rtt >> 3) - (r->srtt_ns >> 3);
	else
		r->srtt_ns = rtt;
	r->samples++;
}

/* Nanoseconds the downlink needs for the packet @n bytes of credit let
 * in: the pacer's spacing between grants; 0 when not paced.  A grant is
 * a packet: past 16 MB it counts as 16 MB (no overflow).
 */
static inline u64 sird_pace_ns(const struct sird_cfg *c, u32 n)
{
	u64 bytes = (u64)n + c->overhead;
	u64 bits;

	if (bytes > (1U << 24))
		bytes = 1U << 24;
	bits = bytes * 8 * 1000000000ULL;

	if (!c->rate_bps)
		return 0;
	return shoal_div64(bits + c->rate_bps - 1, c->rate_bps);
}

/* The time a pacer may make up at once: a timer that fires late (a busy
 * or virtual host fires them a millisecond or more late) would otherwise
 * make its lateness the rate.  A time, not a number of packets: a cap of
 * a few packets is a few microseconds at 10 Gbit/s, and a pacer at a
 * device's speed then sent a few packets a firing, far below the rate,
 * and held the rest as bursts synchronised by the timer ticks.  But at
 * least SIRD_PACE_CATCHUP_PKTS full packets: where one takes longer than
 * the time (2.4 ms at 5 Mbit/s), a pacer made up less than a packet, and
 * timers 2 ms late set the rate at 70% of the link's.  Two packets keep a
 * slow link's bursts short: what a pacer makes up the link's own queue
 * must hold.
 */
#define SIRD_PACE_CATCHUP_NS	1000000ULL
#define SIRD_PACE_CATCHUP_PKTS	2

static inline u64 sird_pace_catchup(const struct sird_cfg *c)
{
	u64 pkts = SIRD_PACE_CATCHUP_PKTS * sird_pace_ns(c, c->mss);

	return pkts > SIRD_PACE_CATCHUP_NS ? pkts : SIRD_PACE_CATCHUP_NS;
}

/* A pacer's clock once a packet that takes @t ns on the link goes at
 * @now: it lags @now by at most sird_pace_catchup() (the time a late
 * timer lost is made up by a burst), and moves on by @t.  Beyond the
 * paper, whose pacers are exact.
 */
static inline u64 sird_pace_next(const struct sird_cfg *c, u64 next,
				 u64 now, u64 t)
{
	u64 lag = sird_pace_catchup(c);
	u64 floor = now > lag ? now - lag : 0;

	return (next > floor ? next : floor) + t;
}

/* ---- the sender ---- */

/* The csn bit for a sender holding @credit unused bytes from all its
 * receivers
 */
static inline bool sird_csn(const struct sird_cfg *c, u64 credit)
{
	return c->sthr && credit >= c->sthr;
}

/* A receiver the sender may send scheduled bytes to */
struct sird_tx_cand {
	u64 order;		/* its place in the fair turns, distinct */
	u32 credit;		/* unused credit from it */
	u32 left;		/* bytes of its shortest message still to send */
};

static inline bool sird_tx_eligible(const struct sird_tx_cand *r)
{
	return r->credit && r->left;
}

/* Which receiver's packet goes next, -1: none has credit and bytes.
 * fair_permille of the turns go round the receivers in @order (the next
 * one after @t->last: a receiver that comes or goes does not reset the
 * round); the others to the shortest message.
 */
static inline int sird_tx_pick(const struct sird_cfg *c,
			       struct sird_turns *t,
			       const struct sird_tx_cand *r, u32 n)
{
	const struct sird_shares sh = { .fair = c->fair_permille };
	const struct sird_tx_cand *k;
	struct sird_choice ch;
	u32 i;

	sird_choice_init(&ch);
	for (i = 0; i < n; i++)
		if (sird_tx_eligible(&r[i]))
			sird_choice_offer(&ch, t, r[i].order, r[i].left, 0,
					  &r[i]);
	k = sird_choice_take(&ch, &sh, t);
	return k ? (int)(k - r) : -1;
}

#endif /* _SIRD_CORE_H */
