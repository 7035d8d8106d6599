// SPDX-License-Identifier: GPL-2.0
/*
 * sch_calq: a programmable calendar queue (Sharma, "Building Efficient
 * Network Protocols for Data Centers using Programmable Switches",
 * chapter 4).
 *
 * `buckets` FIFO days on the shared calendar core: a packet's rank picks
 * an absolute day, day d waits in bucket d mod buckets, and the head day
 * is served first.  A logical calendar moves its head when the head day
 * is empty; a physical one maps day d to the wall-clock interval starting
 * at epoch + d * interval and moves its head with time, serving stale
 * days first, and either runs ahead of time when it has nothing due
 * (work-conserving, the thesis's delta) or waits for the next day (nwc).
 * Ranks: EDT timestamps, priority or mark, the Shoal header's slack (LSTF,
 * rewritten per hop) or deadline (EDF), or the AFQ round of the flow.
 * Days beyond the horizon are dropped, clamped to the last day, or parked
 * in an rbtree until they come into range.  ECT packets leaving while the
 * backlog is over ecn_thresh get CE.  See Documentation/sch_calq.md.
 *
 * Locking: enqueue, dequeue, peek and reset run under the qdisc root
 * lock, in BH context (no sleeping, GFP_ATOMIC only).  init, change, dump,
 * dump_stats and destroy run under RTNL.  change allocates the arrays it
 * needs before taking sch_tree_lock(), swaps them and shrinks the queue
 * under it, and frees the old ones after.  dump_stats takes the tree lock
 * itself for a consistent snapshot (6.1 calls it without the root lock).
 *
 * Accounting: sch->q.qlen and sch->qstats.backlog count every packet
 * held, parked ones included, and are exact under a parent (tbf, htb):
 * .peek returns the packet a .dequeue in the same hold of the root lock
 * would return (an arrival in between may rank before it), GSO
 * segmentation and limit shrinks report their changes upwards with
 * qdisc_tree_reduce_backlog().
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/inet_ecn.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/sock.h>
#include <linux/pkt_sched_shoal.h>

#include "afq_core.h"
#include "afq_flow.h"
#include "calq_core.h"
#include "shoal_gso.h"
#include "shoal_qdisc_gfp.h"

#define CALQ_MAX_LIMIT		1000000U
#define CALQ_MIN_INTERVAL	1000ULL			/* 1 us */
#define CALQ_MAX_INTERVAL	10000000000ULL		/* 10 s */
#define CALQ_MIN_QUANTUM	64U
#define CALQ_MAX_QUANTUM	16777216U
#define CALQ_DEF_ROWS		2
#define CALQ_DEF_COLS		1024	/* thesis: 2 x 1024 misses < 1% */
#define CALQ_MIN_COLS		16U
#define CALQ_MAX_SHIFT		63U
#define CALQ_GUARD		3	/* head moves per dequeue: see below */
#define CALQ_B_PARKED		U32_MAX		/* "bucket" of a parked packet */
#define CALQ_B_OVERDUE		(U32_MAX - 1)	/* of an overdue packet */

struct calq_skb_cb {
	u64 fine;	/* fine rank: ns, value or bid (enum calq_kind) */
	u64 day;	/* absolute day; read back when a parked packet returns */
	u16 field_off;	/* slack: the Shoal field, from the network header */
	u8 kind;	/* enum calq_kind */
	u8 pad;
} __packed;

/* The whole configuration, so a change is checked before any of it lands */
struct calq_settings {
	u64 interval;		/* ns per day */
	u64 rate;		/* bytes per second, 0 = no own shaper */
	u32 limit;
	u32 limit_bytes;
	u32 buckets;
	u32 quantum;
	u32 rows;
	u32 cols;
	u32 flags;
	u32 ecn_thresh;		/* backlog bytes above which CE is set; 0 = off */
	u16 port;
	u8 flow_key;		/* fq rank: enum afq_flow_key */
	u8 mode;
	u8 rank;
	u8 fallback;
	u8 shift;
	u8 horizon;
};

/* Extended stats as dumped: the counters, then the peaks */
struct calq_xs {
	struct tc_calq_xstats st;
	u32 peak[CALQ_MAX_PEAKS];
};

struct calq_bucket {
	struct sk_buff_head q;	/* FIFO of one day; its lock is never used */
	struct calq_order order;
};

struct calq_sched_data {
	struct calq_settings set;
	struct cal_core cal;		/* head, non-empty bitmap, horizon */
	struct calq_clock clk;		/* physical: start of the head day */
	struct calq_bucket *bkt;	/* set.buckets days */
	struct rb_root parked;		/* beyond the horizon, by day */
	struct rb_root overdue;		/* ranked before the head day, by fine rank */
	struct afq_state afq;		/* fq ranks; sk.cells only when used */
	u64 bid_max;			/* largest AFQ bid recorded */
	siphash_key_t flow_key;
	struct calq_xs xs;
	u64 t_next;			/* own shaper: earliest next departure */
	u64 wd_wait;			/* nwc: the day start last waited for */
	bool timed;			/* the settings need the clock */
	struct qdisc_watchdog watchdog;
	/* The fq rank's verdict on the packet being enqueued (under the
	 * root lock), not on the stack, which the kernel zeroes for every
	 * packet (CONFIG_INIT_STACK_ALL_ZERO: an 88-byte rep stos)
	 */
	struct afq_verdict v;
	/* Untimed: calq_peek()'s packet and bucket, which the next dequeue
	 * takes without searching again.  An arrival, a reset or a change
	 * forgets it; with nothing else moving the head, a second search
	 * would find the same packet.
	 */
	struct sk_buff *peeked;
	u32 peeked_b;
};

/* Arrays a configuration needs, allocated before the tree lock is taken */
struct calq_mem {
	struct calq_bucket *bkt;
	u64 *cells;
};

/* A packet's place on the calendar, as its rank gives it */
struct calq_pos {
	s64 off;	/* days after the head; negative: past */
	u64 fine;
	u16 field_off;
	u8 kind;
	bool fq;	/* an AFQ bid to record once queued */
};

static struct calq_skb_cb *calq_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct calq_skb_cb));
	return (struct calq_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* Days with a peak entry: a qdisc dump must fit one netlink page */
static u32 calq_npeaks(u32 buckets)
{
	return min_t(u32, buckets, CALQ_MAX_PEAKS);
}

static size_t calq_xs_size(u32 buckets)
{
	BUILD_BUG_ON(offsetof(struct calq_xs, peak) !=
		     sizeof(struct tc_calq_xstats));
	return offsetof(struct calq_xs, peak) +
	       calq_npeaks(buckets) * sizeof(u32);
}

static bool calq_uses_fq(const struct calq_settings *s)
{
	return s->rank == CALQ_RANK_FQ || s->fallback == CALQ_FALLBACK_FQ;
}

/* Whether any packet's place or bookkeeping depends on the time: else the
 * fast path never reads the clock (an HPET read costs microseconds in a VM)
 */
static bool calq_settings_timed(const struct calq_settings *s)
{
	return s->mode == CALQ_MODE_PHYSICAL || s->rate ||
	       s->rank == CALQ_RANK_TSTAMP || s->rank == CALQ_RANK_SLACK ||
	       s->rank == CALQ_RANK_DEADLINE;
}

/* A packet that finds the qdisc empty leaves first whatever its rank when
 * the calendar is logical, nothing paces it, and no rank is refused for
 * being too far ahead: then the root qdisc may hand it straight to the
 * driver, as fq_codel does, and nothing is lost by not queueing it.
 */
static bool calq_settings_bypass(const struct calq_settings *s)
{
	return !calq_settings_timed(s) && s->horizon != CALQ_HORIZON_DROP;
}

static u64 calq_now(const struct calq_sched_data *q)
{
	return q->timed ? ktime_get_ns() : 0;
}

/* The fine-rank kind of packets ranked by the configured source: only
 * those are compared for inversions (fallback packets rank differently)
 */
static u8 calq_rank_kind(u8 rank)
{
	switch (rank) {
	case CALQ_RANK_TSTAMP:
		return CALQ_K_TSTAMP;
	case CALQ_RANK_SLACK:
		return CALQ_K_SLACK;
	case CALQ_RANK_DEADLINE:
		return CALQ_K_DEADLINE;
	case CALQ_RANK_FQ:
		return CALQ_K_BID;
	default:
		return CALQ_K_VALUE;
	}
}

/* ---- ranks ---- */

/* An EDT departure time in CLOCK_MONOTONIC ns.  6.1 marks TCP's EDT
 * stamps mono_delivery_time, but not those of SO_TXTIME: on the sender's
 * own egress, the socket's clock says what such a stamp is.
 */
static bool calq_skb_edt(const struct sk_buff *skb, u64 *t)
{
	const struct sock *sk = skb->sk;

	if (!skb->tstamp)
		return false;
	if (!skb->mono_delivery_time &&
	    !(sk && sk_fullsock(sk) && sock_flag(sk, SOCK_TXTIME) &&
	      sk->sk_clockid == CLOCK_MONOTONIC))
		return false;
	*t = ktime_to_ns(skb->tstamp);
	return true;
}

/* The Shoal slack/deadline field of @skb; skb->data is at the MAC header */
static bool calq_skb_shoal(const struct calq_sched_data *q,
			   const struct sk_buff *skb, struct calq_shoal *sh)
{
	u8 buf[CALQ_PARSE_LEN];
	__be16 proto;
	const u8 *p;
	u32 avail;
	int nh;

	proto = skb_protocol(skb, true);
	if ((proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6)) ||
	    skb->encapsulation)
		return false;
	nh = skb_network_offset(skb);
	if (nh < 0 || nh >= skb->len)
		return false;
	avail = min_t(u32, skb->len - nh, CALQ_PARSE_LEN);
	p = skb_header_pointer(skb, nh, avail, buf);
	if (!p)
		return false;
	return calq_parse_shoal(p, avail, skb->len - nh, q->set.port, sh) ==
	       CALQ_SH_OK &&
	       sh->ipver == (proto == htons(ETH_P_IP) ? 4 : 6);
}

static void calq_rank_fq(struct calq_sched_data *q, struct sk_buff *skb,
			 struct calq_pos *r, struct afq_verdict *v)
{
	u64 hash = afq_flow_hash(skb, q->set.flow_key, q->set.port,
				 &q->flow_key);

	afq_decide(&q->afq, hash, qdisc_pkt_len(skb), q->cal.head, v);
	r->off = calq_off_days(&q->clk, v->ahead);
	r->fine = v->b.bid;
	r->kind = CALQ_K_BID;
	r->fq = true;
}

/* Rank @skb by @src; false when the packet carries no such rank */
static bool calq_rank_by(struct calq_sched_data *q, struct sk_buff *skb,
			 u8 src, u64 now, struct calq_pos *r,
			 struct afq_verdict *v)
{
	struct calq_shoal sh;
	u64 t;

	switch (src) {
	case CALQ_RANK_TSTAMP:
		if (!calq_skb_edt(skb, &t))
			return false;
		r->off = calq_off_time(&q->clk, now, t);
		r->fine = t;
		r->kind = CALQ_K_TSTAMP;
		return true;
	case CALQ_RANK_PRIO:
	case CALQ_RANK_MARK:
		t = src == CALQ_RANK_PRIO ? skb->priority : skb->mark;
		r->off = calq_off_value(&q->clk, (u32)t, q->set.shift);
		/* physical: days from now, not from a head that may lag
		 * behind the clock or have run ahead of it
		 */
		if (q->clk.physical)
			r->off = calq_off_sat(&q->clk, r->off +
					      calq_off_time(&q->clk, now, now));
		r->fine = t;
		r->kind = CALQ_K_VALUE;
		return true;
	case CALQ_RANK_SLACK:
	case CALQ_RANK_DEADLINE:
		if (!calq_skb_shoal(q, skb, &sh))
			return false;
		r->field_off = sh.off;
		if (src == CALQ_RANK_DEADLINE) {
			r->off = calq_off_time(&q->clk, now, sh.field);
			r->fine = sh.field;
			r->kind = CALQ_K_DEADLINE;
		} else {
			r->off = calq_off_slack(&q->clk, now, (s64)sh.field);
			r->fine = now + sh.field;	/* a virtual deadline */
			r->kind = CALQ_K_SLACK;
		}
		return true;
	default:
		calq_rank_fq(q, skb, r, v);
		return true;
	}
}

static void calq_rank_skb(struct calq_sched_data *q, struct sk_buff *skb,
			  u64 now, struct calq_pos *r, struct afq_verdict *v)
{
	memset(r, 0, sizeof(*r));
	if (calq_rank_by(q, skb, q->set.rank, now, r, v))
		return;
	q->xs.st.no_rank++;
	switch (q->set.fallback) {
	case CALQ_FALLBACK_LAST:
		r->off = q->set.buckets - 1;
		break;
	case CALQ_FALLBACK_FQ:
		calq_rank_fq(q, skb, r, v);
		break;
	default:
		r->off = 0;
		break;
	}
}

/* ---- days, buckets and the parking lot ---- */

static void calq_bucket_add(struct calq_sched_data *q, struct sk_buff *skb,
			    u64 day)
{
	u32 b = cal_bucket(&q->cal, day);
	struct calq_bucket *bk = &q->bkt[b];
	u32 k = min_t(u64, day - q->cal.head, calq_npeaks(q->set.buckets) - 1);
	u32 *peak = &q->xs.peak[k];

	__skb_queue_tail(&bk->q, skb);
	cal_mark(&q->cal, b);
	*peak = max(*peak, bk->q.qlen);
}

static void calq_bucket_unlink(struct calq_sched_data *q, struct sk_buff *skb,
			       u32 b)
{
	struct calq_bucket *bk = &q->bkt[b];

	__skb_unlink(skb, &bk->q);
	if (skb_queue_empty(&bk->q)) {
		cal_unmark(&q->cal, b);
		bk->order.valid = false;
	}
}

/* Park a packet beyond the horizon: by day, FIFO among equal days */
static void calq_park(struct calq_sched_data *q, struct sk_buff *skb)
{
	struct rb_node **p = &q->parked.rb_node, *parent = NULL;
	u64 day = calq_cb(skb)->day;

	while (*p) {
		parent = *p;
		if ((s64)(day - calq_cb(rb_to_skb(parent))->day) < 0)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&skb->rbnode, parent, p);
	rb_insert_color(&skb->rbnode, &q->parked);
	q->xs.st.parked_now++;
}

static void calq_unpark_one(struct Qdisc *sch, struct sk_buff *skb)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	rb_erase(&skb->rbnode, &q->parked);
	skb->dev = qdisc_dev(sch);	/* skb->rbnode overlays skb->dev */
	q->xs.st.parked_now--;
}

/* An overdue packet (its day is before the head day): by fine rank, FIFO
 * among equal ones.  The calendar cannot order days it has passed, and a
 * work-conserving physical calendar that ran ahead to a far day makes
 * every nearer deadline overdue: in arrival order they would leave out of
 * deadline order by far more than a day.
 */
static void calq_overdue_add(struct calq_sched_data *q, struct sk_buff *skb)
{
	struct rb_node **p = &q->overdue.rb_node, *parent = NULL;
	u64 fine = calq_cb(skb)->fine;

	while (*p) {
		parent = *p;
		if (fine < calq_cb(rb_to_skb(parent))->fine)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&skb->rbnode, parent, p);
	rb_insert_color(&skb->rbnode, &q->overdue);
}

static void calq_overdue_unlink(struct Qdisc *sch, struct sk_buff *skb)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	rb_erase(&skb->rbnode, &q->overdue);
	skb->dev = qdisc_dev(sch);	/* skb->rbnode overlays skb->dev */
}

/* The head moved: parked packets whose day is now in range go into the
 * calendar (a day the head passed goes to the head)
 */
static void calq_unpark(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 day;

	while ((skb = skb_rb_first(&q->parked))) {
		day = calq_cb(skb)->day;
		if (cal_before_head(&q->cal, day))
			day = q->cal.head;
		else if (day - q->cal.head >= q->cal.nbuckets)
			break;
		calq_unpark_one(sch, skb);
		q->xs.st.unparked++;
		calq_bucket_add(q, skb, day);
	}
}

/* Work-conserving, with only parked packets left: bring the first one in
 * on the calendar's last day instead of jumping the head out to its day.
 * The head stands for the clock on a physical calendar, and a rank from a
 * packet (a deadline) could otherwise put it any distance ahead of time.
 */
static u64 calq_unpark_last(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb = skb_rb_first(&q->parked);
	u64 day = q->cal.head + q->cal.nbuckets - 1;

	calq_unpark_one(sch, skb);
	q->xs.st.unparked++;
	calq_cb(skb)->day = day;
	calq_bucket_add(q, skb, day);
	return day;
}

/* The earliest day holding a packet: in the calendar, else parked */
static bool calq_next_day(const struct calq_sched_data *q, u64 *day)
{
	struct sk_buff *skb;

	if (cal_next_day(&q->cal, day))
		return true;
	skb = skb_rb_first(&q->parked);
	if (!skb)
		return false;
	*day = calq_cb(skb)->day;
	return true;
}

static void calq_goto(struct Qdisc *sch, u64 day, u64 *counter)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	if (calq_move_head(&q->cal, &q->clk, day)) {
		(*counter)++;
		calq_unpark(sch);
	}
}

/* Physical: the head follows the clock (stale days first), and an empty
 * calendar that ran ahead starts again at real time
 */
static void calq_sync(struct Qdisc *sch, u64 now)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	if (!sch->q.qlen)
		calq_reanchor(&q->clk, now);
	if (calq_rotate_time(&q->cal, &q->clk, now)) {
		q->xs.st.rotations_time++;
		calq_unpark(sch);
	}
}

/* ---- enqueue ---- */

static int calq_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct calq_skb_cb *cb = calq_cb(skb);
	struct afq_verdict *v = &q->v;
	struct calq_pos r;
	u64 now, day;
	u32 b;

	q->peeked = NULL;	/* the arrival may rank before it */
	if (calq_full(sch->q.qlen, sch->qstats.backlog, qdisc_pkt_len(skb),
		      q->set.limit, q->set.limit_bytes)) {
		q->xs.st.limit_drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	now = calq_now(q);
	if (q->clk.physical)
		calq_sync(sch, now);
	calq_rank_skb(q, skb, now, &r, v);
	day = calq_day(q->cal.head, r.off);
	cb->fine = r.fine;
	cb->field_off = r.field_off;
	cb->kind = r.kind;
	if (r.off < 0) {
		/* Its day has passed (the calendar ran ahead of the clock,
		 * or the packet came late): more urgent than all of the
		 * head day, so it leaves before it, by fine rank.
		 */
		q->cal.st.clamped_past++;
		cb->day = q->cal.head;
		calq_overdue_add(q, skb);
		goto queued;
	}
	switch (cal_place(&q->cal, &day, &b)) {
	case CAL_DROPPED:	/* counted by the calendar: horizon_drops */
		return qdisc_drop(skb, sch, to_free);
	case CAL_PARKED:
		cb->day = day;
		calq_park(q, skb);
		break;
	default:
		cb->day = day;
		calq_bucket_add(q, skb, day);
		break;
	}
queued:
	/* only a queued packet costs its flow bytes of virtual time */
	if (r.fq) {
		afq_commit(&q->afq, v);
		q->bid_max = max(q->bid_max, v->b.bid);
	}
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	q->xs.st.enqueued++;
	return NET_XMIT_SUCCESS;
}

/* One skb per packet before ranking: each segment has its own rank and
 * the sketch charges a flow per packet
 */
static int calq_segment(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	return shoal_gso_segment(skb, sch, to_free, calq_enqueue_one,
				 &q->xs.st.gso_split, NULL);
}

static int calq_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return calq_segment(skb, sch, to_free);
	return calq_enqueue_one(skb, sch, to_free);
}

/* ---- dequeue ---- */

static void calq_wait(struct calq_sched_data *q, u64 start)
{
	if (start != q->wd_wait) {
		q->wd_wait = start;
		q->xs.st.watchdog_arms++;
	}
	/* hrtimer slack: a day of 10us cannot wait for a precise timer */
	qdisc_watchdog_schedule_range_ns(&q->watchdog, start,
					 q->clk.interval / 8);
}

/* The packet the next dequeue sends, left in place, and its bucket in
 * *@bucket; NULL when nothing may leave now.  Moves the head as the mode
 * says, so peek and dequeue see the same packet: the head only moves to
 * a non-empty day (or with the clock, never past one), and an arrival
 * before the head day joins the head day's tail.
 */
static struct sk_buff *calq_head_skb(struct Qdisc *sch, u64 now, u32 *bucket)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	u64 next, start;
	int guard;
	u32 b;

	if (!sch->q.qlen)
		return NULL;
	if (q->set.rate && now < q->t_next) {
		qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
		return NULL;
	}
	if (q->clk.physical)
		calq_sync(sch, now);
	if (!RB_EMPTY_ROOT(&q->overdue)) {
		*bucket = CALQ_B_OVERDUE;
		return skb_rb_first(&q->overdue);
	}
	/* at most: serve, or move once to the next day (unparking it) */
	for (guard = 0; guard < CALQ_GUARD; guard++) {
		b = cal_bucket(&q->cal, q->cal.head);
		if (!skb_queue_empty(&q->bkt[b].q)) {
			*bucket = b;
			return skb_peek(&q->bkt[b].q);
		}
		if (!calq_next_day(q, &next))
			break;
		if (q->set.flags & CALQ_F_NWC) {
			start = calq_day_start(&q->cal, &q->clk, next);
			if ((s64)(start - now) > 0) {
				calq_wait(q, start);
				return NULL;
			}
			calq_goto(sch, next, &q->xs.st.rotations_time);
		} else {
			if (next - q->cal.head >= q->cal.nbuckets)
				next = calq_unpark_last(sch);
			calq_goto(sch, next, &q->xs.st.rotations_empty);
		}
	}
	WARN_ONCE(1, "calq: %u packets but no day to serve\n", sch->q.qlen);
	return NULL;
}

/* Write the slack left back into the Shoal header and fix the UDP
 * checksum incrementally: CHECKSUM_PARTIAL needs nothing (the checksum is
 * computed later over the new bytes), otherwise the check field absorbs
 * the change, which also keeps a CHECKSUM_COMPLETE sum valid.
 */
static void calq_rewrite_slack(struct Qdisc *sch, struct sk_buff *skb,
			       const __be32 *old, s64 left)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	u16 off = calq_cb(skb)->field_off;
	int nh = skb_network_offset(skb);
	__be32 new[2];
	struct udphdr *uh;
	u8 *p;

	if (skb_ensure_writable(skb, nh + off + 8)) {
		q->xs.st.rewrite_errors++;
		return;
	}
	p = skb_network_header(skb);
	uh = (struct udphdr *)(p + off - CALQ_FIELD_FROM_UDP);
	new[0] = htonl((u32)((u64)left >> 32));
	new[1] = htonl((u32)left);
	/* a zero UDP checksum means none (IPv4, and RFC 6935 IPv6 tunnels) */
	if (uh->check || skb->ip_summed == CHECKSUM_PARTIAL) {
		inet_proto_csum_replace4(&uh->check, skb, old[0], new[0], false);
		inet_proto_csum_replace4(&uh->check, skb, old[1], new[1], false);
		if (!uh->check && skb->ip_summed != CHECKSUM_PARTIAL)
			uh->check = CSUM_MANGLED_0;
	} else if (skb->ip_summed == CHECKSUM_COMPLETE) {
		/* no UDP checksum: nothing absorbs the change */
		skb->ip_summed = CHECKSUM_NONE;
	}
	memcpy(p + off, new, sizeof(new));
	q->xs.st.slack_rewrites++;
}

/* Deadline bookkeeping of a leaving packet; the per-hop slack rewrite */
static void calq_leave(struct Qdisc *sch, struct sk_buff *skb, u64 now)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct calq_skb_cb *cb = calq_cb(skb);
	__be32 buf[2];
	const __be32 *old;
	s64 slack, left;

	switch (cb->kind) {
	case CALQ_K_TSTAMP:
		if (calq_late(now, cb->fine, q->clk.interval))
			q->xs.st.deadline_misses++;
		return;
	case CALQ_K_DEADLINE:
		if (calq_late(now, cb->fine, 0))
			q->xs.st.deadline_misses++;
		return;
	case CALQ_K_SLACK:
		break;
	default:
		return;
	}
	old = skb_header_pointer(skb, skb_network_offset(skb) + cb->field_off,
				 sizeof(buf), buf);
	if (!old) {
		q->xs.st.rewrite_errors++;
		return;
	}
	if (old != buf)		/* the rewrite may move the data */
		memcpy(buf, old, sizeof(buf));
	slack = (s64)shoal_get64((const u8 *)buf);
	left = calq_slack_left(slack, cb->fine, now);
	if (left < 0)
		q->xs.st.deadline_misses++;
	if (!(q->set.flags & CALQ_F_NOREWRITE))
		calq_rewrite_slack(sch, skb, buf, left);
}

/* CE on an ECT packet leaving while the backlog, itself included, is
 * over ecn_thresh; see calq_ecn_mark()
 */
static void calq_ecn(struct calq_sched_data *q, struct sk_buff *skb,
		     u32 backlog)
{
	if (!calq_ecn_mark(q->set.ecn_thresh, backlog))
		return;
	if (INET_ECN_set_ce(skb))
		q->xs.st.ecn_marked++;
	else
		q->xs.st.ecn_nonect++;
}

static struct sk_buff *calq_peek(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	skb = calq_head_skb(sch, calq_now(q), &q->peeked_b);
	/* a parent (tbf, htb) dequeues right after a successful peek */
	q->peeked = q->timed ? NULL : skb;
	return skb;
}

static struct sk_buff *calq_dequeue(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	u64 now = calq_now(q);
	struct calq_skb_cb *cb;
	struct sk_buff *skb;
	u32 b, backlog;

	if (q->peeked) {
		skb = q->peeked;
		b = q->peeked_b;
		q->peeked = NULL;
	} else {
		skb = calq_head_skb(sch, now, &b);
		if (!skb)
			return NULL;
	}
	cb = calq_cb(skb);
	backlog = sch->qstats.backlog;
	if (b == CALQ_B_OVERDUE) {
		calq_overdue_unlink(sch, skb);
	} else {
		if (cb->kind == calq_rank_kind(q->set.rank) &&
		    calq_order_leave(&q->bkt[b].order, cb->fine))
			q->xs.st.inversions++;
		calq_bucket_unlink(q, skb, b);
	}
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	q->xs.st.dequeued++;
	calq_leave(sch, skb, now);
	calq_ecn(q, skb, backlog);
	if (q->set.rate)
		q->t_next = max(q->t_next, now) +
			    div64_u64((u64)qdisc_pkt_len(skb) * NSEC_PER_SEC,
				      q->set.rate);
	if (!sch->q.qlen && q->clk.physical)
		calq_reanchor(&q->clk, now);
	return skb;
}

/* Free every packet, parked ones too; the caller fixes qlen/backlog */
static void calq_purge(struct calq_sched_data *q)
{
	struct sk_buff *skb;
	u32 i;

	if (q->bkt) {
		for (i = 0; i < q->set.buckets; i++) {
			__skb_queue_purge(&q->bkt[i].q);
			q->bkt[i].order.valid = false;
		}
	}
	while ((skb = skb_rb_first(&q->parked))) {
		rb_erase(&skb->rbnode, &q->parked);
		kfree_skb(skb);
	}
	while ((skb = skb_rb_first(&q->overdue))) {
		rb_erase(&skb->rbnode, &q->overdue);
		kfree_skb(skb);
	}
	q->xs.st.parked_now = 0;
}

static void calq_reset(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct cal_stats st = q->cal.st;
	u64 head = q->cal.head;

	calq_purge(q);
	q->peeked = NULL;
	/* Forget the bids of the packets just dropped without clearing a
	 * sketch of up to 64 MB here: from a head past every recorded bid,
	 * afq_bid() treats all of them as idle flows.
	 */
	if (q->afq.sk.cells && q->bid_max / q->set.quantum >= head)
		head = q->bid_max / q->set.quantum + 1;
	cal_init(&q->cal, q->set.buckets, q->set.horizon, head);
	q->cal.st = st;
	q->clk.base = ktime_get_ns();
	q->t_next = 0;
	q->wd_wait = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- configuration ---- */

/* Ranges beyond the s16 of NLA_POLICY_RANGE(); the 6.1 policy takes them
 * by non-const pointer.
 */
static struct netlink_range_validation calq_limit_range = {
	.min = 1,
	.max = CALQ_MAX_LIMIT,
};

static struct netlink_range_validation calq_interval_range = {
	.min = CALQ_MIN_INTERVAL,
	.max = CALQ_MAX_INTERVAL,
};

static struct netlink_range_validation calq_quantum_range = {
	.min = CALQ_MIN_QUANTUM,
	.max = CALQ_MAX_QUANTUM,
};

static struct netlink_range_validation calq_cols_range = {
	.min = CALQ_MIN_COLS,
	.max = AFQ_MAX_COLS,
};

/* A value out of range is refused here, by the policy, with its attribute
 * named in the extack; calq_settings_parse() checks the powers of 2 and
 * the settings that depend on each other.
 */
static const struct nla_policy calq_policy[TCA_CALQ_MAX + 1] = {
	[TCA_CALQ_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &calq_limit_range),
	[TCA_CALQ_LIMIT_BYTES]	= { .type = NLA_U32 },
	[TCA_CALQ_BUCKETS]	= NLA_POLICY_RANGE(NLA_U32, 2, CALQ_MAX_BUCKETS),
	[TCA_CALQ_MODE]		= NLA_POLICY_MAX(NLA_U8, __CALQ_MODE_MAX - 1),
	[TCA_CALQ_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U64,
							&calq_interval_range),
	[TCA_CALQ_RANK]		= NLA_POLICY_MAX(NLA_U8, __CALQ_RANK_MAX - 1),
	[TCA_CALQ_FALLBACK]	= NLA_POLICY_MAX(NLA_U8, __CALQ_FALLBACK_MAX - 1),
	[TCA_CALQ_SHIFT]	= NLA_POLICY_MAX(NLA_U8, CALQ_MAX_SHIFT),
	[TCA_CALQ_HORIZON]	= NLA_POLICY_MAX(NLA_U8, __CALQ_HORIZON_MAX - 1),
	[TCA_CALQ_QUANTUM]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&calq_quantum_range),
	[TCA_CALQ_ROWS]		= NLA_POLICY_RANGE(NLA_U32, 1, AFQ_MAX_ROWS),
	[TCA_CALQ_COLS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &calq_cols_range),
	[TCA_CALQ_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[TCA_CALQ_FLAGS]	= NLA_POLICY_MASK(NLA_U32, CALQ_F_MASK),
	[TCA_CALQ_RATE]		= { .type = NLA_U64 },
	[TCA_CALQ_FLAGS_MASK]	= NLA_POLICY_MASK(NLA_U32, CALQ_F_MASK),
	[TCA_CALQ_FLOW_KEY]	= NLA_POLICY_MAX(NLA_U8, __AFQ_KEY_MAX - 1),
	[TCA_CALQ_ECN_THRESH]	= { .type = NLA_U32 },
};

static void calq_settings_default(struct calq_settings *s, struct Qdisc *sch)
{
	memset(s, 0, sizeof(*s));
	s->limit = CALQ_DEF_LIMIT;
	s->buckets = CALQ_DEF_BUCKETS;
	s->mode = CALQ_MODE_LOGICAL;
	s->interval = CALQ_DEF_INTERVAL;
	s->rank = CALQ_RANK_PRIO;
	s->fallback = CALQ_FALLBACK_HEAD;
	s->horizon = CALQ_HORIZON_DROP;
	s->quantum = clamp_t(u32, psched_mtu(qdisc_dev(sch)),
			     CALQ_MIN_QUANTUM, CALQ_MAX_QUANTUM);
	s->rows = CALQ_DEF_ROWS;
	s->cols = CALQ_DEF_COLS;
	s->port = CALQ_DEF_PORT;
	s->flow_key = AFQ_KEY_FLOW;
}

static void calq_settings_read(struct calq_settings *s, struct nlattr **tb)
{
	u32 mask = CALQ_F_MASK;

	if (tb[TCA_CALQ_LIMIT])
		s->limit = nla_get_u32(tb[TCA_CALQ_LIMIT]);
	if (tb[TCA_CALQ_LIMIT_BYTES])
		s->limit_bytes = nla_get_u32(tb[TCA_CALQ_LIMIT_BYTES]);
	if (tb[TCA_CALQ_BUCKETS])
		s->buckets = nla_get_u32(tb[TCA_CALQ_BUCKETS]);
	if (tb[TCA_CALQ_MODE])
		s->mode = nla_get_u8(tb[TCA_CALQ_MODE]);
	if (tb[TCA_CALQ_INTERVAL])
		s->interval = nla_get_u64(tb[TCA_CALQ_INTERVAL]);
	if (tb[TCA_CALQ_RANK])
		s->rank = nla_get_u8(tb[TCA_CALQ_RANK]);
	if (tb[TCA_CALQ_FALLBACK])
		s->fallback = nla_get_u8(tb[TCA_CALQ_FALLBACK]);
	if (tb[TCA_CALQ_SHIFT])
		s->shift = nla_get_u8(tb[TCA_CALQ_SHIFT]);
	if (tb[TCA_CALQ_HORIZON])
		s->horizon = nla_get_u8(tb[TCA_CALQ_HORIZON]);
	if (tb[TCA_CALQ_QUANTUM])
		s->quantum = nla_get_u32(tb[TCA_CALQ_QUANTUM]);
	if (tb[TCA_CALQ_ROWS])
		s->rows = nla_get_u32(tb[TCA_CALQ_ROWS]);
	if (tb[TCA_CALQ_COLS])
		s->cols = nla_get_u32(tb[TCA_CALQ_COLS]);
	if (tb[TCA_CALQ_PORT])
		s->port = nla_get_u16(tb[TCA_CALQ_PORT]);
	if (tb[TCA_CALQ_RATE])
		s->rate = nla_get_u64(tb[TCA_CALQ_RATE]);
	if (tb[TCA_CALQ_FLOW_KEY])
		s->flow_key = nla_get_u8(tb[TCA_CALQ_FLOW_KEY]);
	if (tb[TCA_CALQ_ECN_THRESH])
		s->ecn_thresh = nla_get_u32(tb[TCA_CALQ_ECN_THRESH]);
	/* flags come with a mask, so "tc change ... nwc" keeps norewrite */
	if (tb[TCA_CALQ_FLAGS_MASK])
		mask = nla_get_u32(tb[TCA_CALQ_FLAGS_MASK]);
	if (tb[TCA_CALQ_FLAGS])
		s->flags = (s->flags & ~mask) |
			   (nla_get_u32(tb[TCA_CALQ_FLAGS]) & mask);
}

/* Apply @tb (its ranges checked by calq_policy) on top of @s; refuse what
 * the policy cannot check: a size that is not a power of 2, or settings
 * that must agree with each other.
 */
static int calq_settings_parse(struct calq_settings *s, struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	calq_settings_read(s, tb);
	if (!is_power_of_2(s->buckets)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CALQ_BUCKETS],
				    "calq: buckets must be a power of 2 from 2 to 4096");
		return -EINVAL;
	}
	if (!is_power_of_2(s->cols)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CALQ_COLS],
				    "calq: cols must be a power of 2 from 16 to 1048576");
		return -EINVAL;
	}
	if ((s->flags & CALQ_F_NWC) && s->mode != CALQ_MODE_PHYSICAL) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_CALQ_FLAGS] ?:
				    tb[TCA_CALQ_MODE],
				    "calq: nwc needs mode physical (a logical calendar has no clock to wait for)");
		return -EINVAL;
	}
	return 0;
}

/* Settings that reshape the calendar or change what ranks mean */
static bool calq_geometry_differs(const struct calq_settings *a,
				  const struct calq_settings *b)
{
	return a->buckets != b->buckets || a->mode != b->mode ||
	       a->interval != b->interval || a->rank != b->rank ||
	       a->fallback != b->fallback || a->quantum != b->quantum ||
	       a->rows != b->rows || a->cols != b->cols ||
	       a->flow_key != b->flow_key;
}

static void calq_mem_free(struct calq_mem *m)
{
	kvfree(m->bkt);
	kvfree(m->cells);
}

/* What the new settings @s need that the qdisc does not have yet */
static int calq_mem_alloc(const struct calq_sched_data *q,
			  const struct calq_settings *s, bool geo,
			  struct calq_mem *m, struct netlink_ext_ack *extack)
{
	if (!q->bkt || s->buckets != q->set.buckets) {
		m->bkt = kvcalloc(s->buckets, sizeof(*m->bkt),
				  SHOAL_QDISC_GFP);
		if (!m->bkt)
			goto nomem;
	}
	/* a fresh (zeroed) sketch whenever rounds mean something new */
	if (calq_uses_fq(s) && (!q->afq.sk.cells || geo)) {
		m->cells = kvcalloc((size_t)s->rows * s->cols, sizeof(u64),
				    SHOAL_QDISC_GFP);
		if (!m->cells)
			goto nomem;
	}
	return 0;
nomem:
	calq_mem_free(m);
	NL_SET_ERR_MSG(extack, "calq: no memory for the buckets or the fq sketch");
	return -ENOMEM;
}

/* Under the tree lock: take @s, the new arrays in @m, and hand the
 * replaced ones back in @old
 */
static void calq_apply(struct Qdisc *sch, const struct calq_settings *s,
		       bool geo, struct calq_mem *m, struct calq_mem *old)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct cal_stats st = q->cal.st;
	u32 i;

	q->peeked = NULL;
	if (m->bkt) {
		for (i = 0; i < s->buckets; i++)
			__skb_queue_head_init(&m->bkt[i].q);
		old->bkt = q->bkt;
		q->bkt = m->bkt;
	}
	if (geo) {
		/* empty here: the new days start at the old head */
		cal_init(&q->cal, s->buckets, s->horizon, q->cal.head);
		q->cal.st = st;
		q->clk.interval = s->interval;
		q->clk.physical = s->mode == CALQ_MODE_PHYSICAL;
		q->clk.base = ktime_get_ns();
		memset(q->xs.peak, 0, sizeof(q->xs.peak));	/* per geometry */
		for (i = 0; i < s->buckets; i++)
			q->bkt[i].order.valid = false;
	}
	q->cal.horizon = s->horizon;
	if (m->cells || (!calq_uses_fq(s) && q->afq.sk.cells)) {
		old->cells = q->afq.sk.cells;
		q->afq.sk.cells = m->cells;
		q->bid_max = 0;
	}
	q->afq.sk.rows = s->rows;
	q->afq.sk.cols_log = ilog2(s->cols);
	q->afq.bpr = s->quantum;
	q->afq.nqueues = s->buckets;
	q->afq.ecn_rounds = 0;
	q->afq.ex.slots = NULL;
	if (s->rate != q->set.rate)
		q->t_next = 0;
	q->set = *s;
	q->timed = calq_settings_timed(s);
	if (calq_settings_bypass(s))
		sch->flags |= TCQ_F_CAN_BYPASS;
	else
		sch->flags &= ~TCQ_F_CAN_BYPASS;
	memset(m, 0, sizeof(*m));
}

/* The packet on the furthest day: the last parked, else the last day's
 * tail; its bucket in *@b (CALQ_B_PARKED or CALQ_B_OVERDUE for those)
 */
static struct sk_buff *calq_furthest(struct calq_sched_data *q, u32 *b)
{
	struct sk_buff *skb = skb_rb_last(&q->parked);
	u64 day;

	if (skb) {
		*b = CALQ_B_PARKED;
		return skb;
	}
	if (!cal_last_day(&q->cal, &day)) {
		*b = CALQ_B_OVERDUE;
		return skb_rb_last(&q->overdue);
	}
	*b = cal_bucket(&q->cal, day);
	return skb_peek_tail(&q->bkt[*b].q);
}

/* After a change: drop from the furthest days until the limits hold */
static void calq_shrink(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;
	u32 b;

	while (calq_over(sch->q.qlen, sch->qstats.backlog, q->set.limit,
			 q->set.limit_bytes)) {
		skb = calq_furthest(q, &b);
		if (!skb)
			break;
		if (b == CALQ_B_PARKED)
			calq_unpark_one(sch, skb);
		else if (b == CALQ_B_OVERDUE)
			calq_overdue_unlink(sch, skb);
		else
			calq_bucket_unlink(q, skb, b);
		pkts++;
		bytes += qdisc_pkt_len(skb);
		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		q->xs.st.limit_drops++;
		rtnl_kfree_skbs(skb, skb);
	}
	if (pkts)
		qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

static int calq_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_CALQ_MAX + 1] = { };
	struct calq_mem m = { }, old = { };
	struct calq_settings s;
	bool geo;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_CALQ_MAX, opt, calq_policy,
				       extack);
		if (err < 0)
			return err;
	}
	s = q->set;
	err = calq_settings_parse(&s, tb, extack);
	if (err)
		return err;
	geo = !q->bkt || calq_geometry_differs(&q->set, &s);
	err = calq_mem_alloc(q, &s, geo, &m, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	if (geo && sch->q.qlen) {
		sch_tree_unlock(sch);
		calq_mem_free(&m);
		NL_SET_ERR_MSG(extack,
			       "calq: buckets, mode, interval, rank, fallback, quantum, rows, cols and flow_key can change only while the qdisc is empty");
		return -EBUSY;
	}
	calq_apply(sch, &s, geo, &m, &old);
	calq_shrink(sch);
	/* wc, a new rate or horizon may let packets leave now, not when the
	 * watchdog armed under the old settings fires
	 */
	if (sch->q.qlen)
		qdisc_watchdog_schedule_ns(&q->watchdog, ktime_get_ns());
	sch_tree_unlock(sch);
	calq_mem_free(&old);
	return 0;
}

static int calq_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct calq_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_init(&q->watchdog, sch);
	q->parked = RB_ROOT;
	q->overdue = RB_ROOT;
	get_random_bytes(&q->flow_key, sizeof(q->flow_key));
	afq_sketch_seed(&q->afq.sk, get_random_u64());
	calq_settings_default(&q->set, sch);
	cal_init(&q->cal, q->set.buckets, q->set.horizon, 0);
	q->clk.interval = q->set.interval;
	q->clk.base = ktime_get_ns();
	return calq_change(sch, opt, extack);
}

static void calq_destroy(struct Qdisc *sch)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct calq_mem m = { .bkt = q->bkt, .cells = q->afq.sk.cells };

	qdisc_watchdog_cancel(&q->watchdog);
	calq_purge(q);
	calq_mem_free(&m);
	q->bkt = NULL;
	q->afq.sk.cells = NULL;
}

static int calq_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	const struct calq_settings *s = &q->set;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_CALQ_LIMIT, s->limit) ||
	    nla_put_u32(skb, TCA_CALQ_LIMIT_BYTES, s->limit_bytes) ||
	    nla_put_u32(skb, TCA_CALQ_BUCKETS, s->buckets) ||
	    nla_put_u8(skb, TCA_CALQ_MODE, s->mode) ||
	    nla_put_u64_64bit(skb, TCA_CALQ_INTERVAL, s->interval,
			      TCA_CALQ_PAD) ||
	    nla_put_u8(skb, TCA_CALQ_RANK, s->rank) ||
	    nla_put_u8(skb, TCA_CALQ_FALLBACK, s->fallback) ||
	    nla_put_u8(skb, TCA_CALQ_SHIFT, s->shift) ||
	    nla_put_u8(skb, TCA_CALQ_HORIZON, s->horizon) ||
	    nla_put_u32(skb, TCA_CALQ_QUANTUM, s->quantum) ||
	    nla_put_u32(skb, TCA_CALQ_ROWS, s->rows) ||
	    nla_put_u32(skb, TCA_CALQ_COLS, s->cols) ||
	    nla_put_u16(skb, TCA_CALQ_PORT, s->port) ||
	    nla_put_u32(skb, TCA_CALQ_FLAGS, s->flags) ||
	    nla_put_u64_64bit(skb, TCA_CALQ_RATE, s->rate, TCA_CALQ_PAD) ||
	    nla_put_u8(skb, TCA_CALQ_FLOW_KEY, s->flow_key) ||
	    nla_put_u32(skb, TCA_CALQ_ECN_THRESH, s->ecn_thresh))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int calq_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct calq_sched_data *q = qdisc_priv(sch);
	struct tc_calq_xstats *st = &q->xs.st;
	int err;

	sch_tree_lock(sch);
	st->head_day = q->cal.head;
	st->ahead_ns = calq_ahead_ns(&q->clk, ktime_get_ns());
	st->active_days = q->cal.nonempty;
	st->clamped_past = q->cal.st.clamped_past;
	st->clamped_future = q->cal.st.clamped_future;
	st->horizon_drops = q->cal.st.horizon_drops;
	st->parked = q->cal.st.parked;
	err = gnet_stats_copy_app(d, &q->xs, calq_xs_size(q->set.buckets));
	sch_tree_unlock(sch);
	return err;
}

static struct Qdisc_ops calq_qdisc_ops __read_mostly = {
	.id		= "calq",
	.priv_size	= sizeof(struct calq_sched_data),
	.enqueue	= calq_enqueue,
	.dequeue	= calq_dequeue,
	.peek		= calq_peek,
	.init		= calq_init,
	.reset		= calq_reset,
	.destroy	= calq_destroy,
	.change		= calq_change,
	.dump		= calq_dump,
	.dump_stats	= calq_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init calq_module_init(void)
{
	return register_qdisc(&calq_qdisc_ops);
}

static void __exit calq_module_exit(void)
{
	unregister_qdisc(&calq_qdisc_ops);
}

module_init(calq_module_init);
module_exit(calq_module_exit);
MODULE_DESCRIPTION("Programmable calendar queue (logical and physical)");
MODULE_AUTHOR("Shoal developers");
MODULE_LICENSE("GPL");
