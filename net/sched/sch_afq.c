// SPDX-License-Identifier: GPL-2.0
/*
 * sch_afq: approximate fair queueing (Sharma et al., "Approximating Fair
 * Queueing on Reconfigurable Switches", NSDI 2018; thesis chapter 5).
 *
 * Every flow has a bid, the virtual byte clock of its last queued byte,
 * kept in a count-min sketch (min-read, max-update).  Rounds of `bpr`
 * bytes map bids onto `nqueues` FIFOs used as a rotating calendar: a
 * packet of round r waits in FIFO r mod nqueues, and the head of the
 * calendar is the current round R.  Dequeue serves the head FIFO and moves
 * R to the next non-empty round when it drains.  The algorithm itself is
 * pure C in afq_core.h and calendar_core.h, shared with the unit tests.
 * See Documentation/sch_afq.md.
 *
 * Locking: enqueue, dequeue, peek and reset run under the qdisc root lock,
 * in BH context (no sleeping, GFP_ATOMIC only; nothing is allocated there
 * but GSO segments).  init, change, dump and destroy run under RTNL.
 * change allocates any new sketch, flow table or FIFO array with
 * GFP_KERNEL before it takes sch_tree_lock(), swaps them in and shrinks the
 * queues under that lock, and frees the old ones after dropping it, so the
 * fast path reads q->set, q->afq and q->queues without further locking.
 * dump reads the settings under RTNL only, which change also holds.
 * dump_stats is not called under the root lock on 6.1, so it takes
 * sch_tree_lock() to copy the counters.
 *
 * Accounting: sch->q.qlen and sch->qstats.backlog are the packets and
 * bytes in all FIFOs.  A packet dropped after a parent (tbf, htb) counted
 * it, by pushout or by a shrinking change, is reported with
 * qdisc_tree_reduce_backlog().  The arrival is queued before any pushout
 * so that the qdisc never looks empty to its parent in the middle of an
 * enqueue.
 */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/inet_ecn.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_shoal.h>

#include "afq_core.h"
#include "afq_flow.h"
#include "calendar_core.h"
#include "shoal_gso.h"
#include "shoal_qdisc_gfp.h"

#define CREATE_TRACE_POINTS
#include "afq_trace.h"

#define AFQ_MAX_LIMIT		1000000U
#define AFQ_MIN_BPR		64U
#define AFQ_MAX_BPR		16777216U
#define AFQ_MIN_COLS		16U
#define AFQ_MAX_ECN_ROUNDS	4096U
#define AFQ_MIN_EXACT_FLOWS	256U
#define AFQ_MAX_EXACT_FLOWS	4194304U

/* The whole configuration, so a change is checked before any of it lands */
struct afq_settings {
	u64 rate;		/* bytes per second, 0 = no own shaper */
	u32 limit;
	u32 limit_bytes;
	u32 nqueues;
	u32 bpr;
	u32 rows;
	u32 cols;
	u32 ecn_rounds;
	u32 exact_flows;
	u32 seed;		/* as configured: 0 = random key */
	u16 shoal_port;		/* UDP port of Shoal packets; 0 = none */
	u8 flow_key;
	u8 overflow;
	u8 exact;
};

/* Bid state memory, allocated by change before the swap */
struct afq_bidmem {
	u64 *cells;		/* rows * cols sketch cells */
	struct afq_slot *slots;	/* exact mode flow table, or NULL */
};

struct afq_sched_data {
	struct afq_settings set;
	struct afq_state afq;		/* sketch, table, bpr, nqueues */
	struct cal_core cal;		/* head = R, bitmap of FIFOs */
	struct sk_buff_head *queues;	/* nqueues FIFOs */
	siphash_key_t key;		/* flow hash key */
	u64 row_seed;			/* sketch row seeds derive from it */
	u64 t_next;			/* own shaper: earliest next departure */
	u32 bid_gen;			/* bumped when the bids are reset */
	struct qdisc_watchdog watchdog;
	struct tc_afq_xstats st;
	/* The verdict on the packet being enqueued (under the root lock).
	 * Not on the stack: the kernel zeroes every stack variable
	 * (CONFIG_INIT_STACK_ALL_ZERO), a rep stos of 88 bytes per packet
	 * that emulation makes costly; afq_decide() writes what is read.
	 */
	struct afq_verdict v;
};

/* What a queued packet needs to give its bytes back if it is dropped;
 * packed to fit the 20 bytes of qdisc_skb_cb (the u64s stay aligned)
 */
struct afq_skb_cb {
	u64 hash;		/* its flow */
	u64 bid;		/* its flow's bid after it */
	u32 bid_gen;		/* bids of another generation are not refunded */
} __packed;

static struct afq_skb_cb *afq_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct afq_skb_cb));
	return (struct afq_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* ---- queues ---- */

static void afq_queue_tail(struct Qdisc *sch, u64 round, struct sk_buff *skb)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	u32 b = cal_bucket(&q->cal, round);

	__skb_queue_tail(&q->queues[b], skb);
	cal_mark(&q->cal, b);
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
}

/* Unlink the last packet of the furthest day, NULL when empty, and give
 * its bytes back to its flow: it is dropped by pushout or a shrink.
 */
static struct sk_buff *afq_unlink_furthest(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	struct afq_skb_cb *cb;
	u64 day;
	u32 b;

	if (!cal_last_day(&q->cal, &day))
		return NULL;
	b = cal_bucket(&q->cal, day);
	skb = __skb_dequeue_tail(&q->queues[b]);
	if (skb_queue_empty(&q->queues[b]))
		cal_unmark(&q->cal, b);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	cb = afq_cb(skb);
	if (cb->bid_gen == q->bid_gen)
		afq_refund(&q->afq, cb->hash, cb->bid, qdisc_pkt_len(skb), day);
	return skb;
}

static bool afq_over(const struct Qdisc *sch, const struct afq_settings *s,
		     u32 extra_pkts, u32 extra_bytes)
{
	return sch->q.qlen + extra_pkts > s->limit ||
	       (s->limit_bytes &&
		(u64)sch->qstats.backlog + extra_bytes > s->limit_bytes);
}

/* Is a day later than @round (both within the calendar)? */
static bool afq_later(const struct cal_core *c, u64 day, u64 round)
{
	return day - c->head > round - c->head;
}

/* Could dropping packets of rounds later than @round make room for @len
 * bytes?  Walks tails from the furthest day back; with a packet limit
 * only, the first packet settles it.
 */
static bool afq_pushout_room(struct Qdisc *sch, u64 round, u32 len)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	const struct afq_settings *s = &q->set;
	u32 pkts = 0, bytes = 0;
	struct sk_buff *skb;
	u64 day;

	if (!cal_last_day(&q->cal, &day))
		return false;
	for (; afq_later(&q->cal, day, round); day--) {
		struct sk_buff_head *list;

		list = &q->queues[cal_bucket(&q->cal, day)];
		skb_queue_reverse_walk(list, skb) {
			pkts++;
			bytes += qdisc_pkt_len(skb);
			if (sch->q.qlen + 1 - pkts <= s->limit &&
			    (!s->limit_bytes ||
			     (u64)sch->qstats.backlog + len - bytes <=
			     s->limit_bytes))
				return true;
		}
	}
	return false;
}

/* The arrival of @round is queued and the buffer is over its limits: drop
 * from the tail of the furthest days until it fits.  afq_pushout_room()
 * said this ends before reaching the arrival's own round.
 */
static void afq_pushout(struct Qdisc *sch, u64 round,
			struct sk_buff **to_free)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;

	while (afq_over(sch, &q->set, 0, 0) &&
	       (skb = afq_unlink_furthest(sch))) {
		pkts++;
		bytes += qdisc_pkt_len(skb);
		q->st.pushout_drops++;
		trace_afq_pushout(sch, qdisc_pkt_len(skb), round);
		qdisc_drop(skb, sch, to_free);
	}
	/* the parents counted these packets when they arrived */
	qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

/* Nothing is queued, yet a packet that fits the calendar on its own lands
 * beyond the horizon.  Only a bid left by a dropped packet whose bytes
 * could not be given back (a cell another flow raised, or a packet queued
 * before the bids were reset) can do that, and as R moves only with
 * queued packets the flow would be locked out for good: move the head to
 * the flow's round instead.  Every flow is idle, so no one is owed service
 * from the rounds skipped.
 */
static void afq_idle_jump(struct afq_sched_data *q, u64 round)
{
	q->st.rotations++;
	q->st.empty_skips += round - q->cal.head - 1;
	cal_advance(&q->cal, round);
}

static int afq_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	const struct afq_settings *s = &q->set;
	u32 len = qdisc_pkt_len(skb);
	struct afq_verdict *v = &q->v;
	bool pushout = false;
	u64 hash;

	hash = afq_flow_hash(skb, s->flow_key, s->shoal_port, &q->key);
	afq_decide(&q->afq, hash, len, q->cal.head, v);
	if (v->horizon && !q->cal.nonempty && (len - 1) / s->bpr < s->nqueues) {
		afq_idle_jump(q, v->b.round);
		afq_decide(&q->afq, hash, len, q->cal.head, v);
	}
	if (v->horizon) {
		q->st.horizon_drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (afq_over(sch, s, 1, len)) {
		pushout = s->overflow == AFQ_OVERFLOW_PUSHOUT &&
			  afq_pushout_room(sch, v->b.round, len);
		if (!pushout) {
			q->st.limit_drops++;
			return qdisc_drop(skb, sch, to_free);
		}
	}
	if (v->ecn) {
		if (INET_ECN_set_ce(skb))
			q->st.ecn_marked++;
		else
			q->st.ecn_nonect++;
	}
	afq_queue_tail(sch, v->b.round, skb);
	afq_commit(&q->afq, v);
	afq_cb(skb)->hash = hash;
	afq_cb(skb)->bid = v->b.bid;
	afq_cb(skb)->bid_gen = q->bid_gen;
	if (pushout)
		afq_pushout(sch, v->b.round, to_free);

	q->st.enqueued++;
	if (v->b.bumped)
		q->st.bid_bumps++;
	if (q->afq.ex.slots) {
		q->st.exact_pkts++;
		if (v->shadow_round > v->b.round) {
			q->st.sketch_misplaced++;
			q->st.sketch_extra_rounds += v->shadow_round - v->b.round;
		}
		if (v->table_full)
			q->st.exact_table_full++;
	}
	q->st.max_ahead = max_t(u32, q->st.max_ahead, v->ahead);
	q->st.active_queues_max = max(q->st.active_queues_max,
				      q->cal.nonempty);
	return NET_XMIT_SUCCESS;
}

/* One skb per packet: a 64 KB GSO skb spans dozens of rounds of one MTU
 * and would always land beyond the horizon.
 */
static int afq_segment(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct afq_sched_data *q = qdisc_priv(sch);

	return shoal_gso_segment(skb, sch, to_free, afq_enqueue_one,
				 &q->st.gso_split, NULL);
}

static int afq_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return afq_segment(skb, sch, to_free);
	return afq_enqueue_one(skb, sch, to_free);
}

/* Own shaper (rate set): true, and the watchdog armed, while the next
 * departure must wait.
 */
static bool afq_throttled(struct afq_sched_data *q, u64 now)
{
	if (now >= q->t_next)
		return false;
	qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
	return true;
}

/* Peek and a dequeue in the same hold of the root lock agree: the head
 * of the earliest non-empty day (an arrival in between may land before
 * it).  Peek leaves R where it is, so a packet arriving in between still
 * sees the round it would have seen without the peek.
 */
static struct sk_buff *afq_peek(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	u64 day;

	if (!cal_next_day(&q->cal, &day))
		return NULL;
	if (q->set.rate && afq_throttled(q, ktime_get_ns()))
		return NULL;
	return skb_peek(&q->queues[cal_bucket(&q->cal, day)]);
}

static struct sk_buff *afq_dequeue(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = 0, day;
	u32 b;

	if (!cal_next_day(&q->cal, &day))
		return NULL;	/* R stays: the thesis spins while idle */
	if (q->set.rate) {
		now = ktime_get_ns();
		if (afq_throttled(q, now))
			return NULL;
	}
	if (day != q->cal.head) {
		/* the head round drained: rotate to the next busy one */
		q->st.rotations++;
		q->st.empty_skips += day - q->cal.head - 1;
		cal_advance(&q->cal, day);
	}
	b = cal_bucket(&q->cal, day);
	skb = __skb_dequeue(&q->queues[b]);
	if (skb_queue_empty(&q->queues[b]))
		cal_unmark(&q->cal, b);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	q->st.dequeued++;
	if (q->set.rate)
		q->t_next = max(q->t_next, now) +
			    div64_u64((u64)qdisc_pkt_len(skb) * NSEC_PER_SEC,
				      q->set.rate);
	return skb;
}

static void afq_purge(struct afq_sched_data *q)
{
	u32 i;

	if (!q->queues)
		return;
	for (i = 0; i < q->set.nqueues; i++)
		__skb_queue_purge(&q->queues[i]);
}

/* Empty queues and zeroed bids; R stays, the bids are relative to it */
static void afq_reset(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);

	afq_purge(q);
	cal_init(&q->cal, q->set.nqueues, CAL_HORIZON_DROP, q->cal.head);
	if (q->afq.sk.cells)
		afq_sketch_clear(&q->afq.sk);
	if (q->afq.ex.slots)
		afq_exact_clear(&q->afq.ex);
	q->afq.floor = 0;
	q->t_next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- configuration ---- */

/* Ranges beyond the s16 of NLA_POLICY_RANGE(); the 6.1 policy takes them
 * by non-const pointer.
 */
static struct netlink_range_validation afq_limit_range = {
	.min = 1,
	.max = AFQ_MAX_LIMIT,
};

static struct netlink_range_validation afq_bpr_range = {
	.min = AFQ_MIN_BPR,
	.max = AFQ_MAX_BPR,
};

static struct netlink_range_validation afq_cols_range = {
	.min = AFQ_MIN_COLS,
	.max = AFQ_MAX_COLS,
};

static struct netlink_range_validation afq_exact_flows_range = {
	.min = AFQ_MIN_EXACT_FLOWS,
	.max = AFQ_MAX_EXACT_FLOWS,
};

/* A value out of range is refused here, by the policy, with its attribute
 * named in the extack; afq_settings_parse() checks the powers of 2.
 */
static const struct nla_policy afq_policy[TCA_AFQ_MAX + 1] = {
	[TCA_AFQ_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &afq_limit_range),
	[TCA_AFQ_LIMIT_BYTES]	= { .type = NLA_U32 },
	[TCA_AFQ_NQUEUES]	= NLA_POLICY_RANGE(NLA_U32, 2, AFQ_MAX_NQUEUES),
	[TCA_AFQ_BPR]		= NLA_POLICY_FULL_RANGE(NLA_U32, &afq_bpr_range),
	[TCA_AFQ_ROWS]		= NLA_POLICY_RANGE(NLA_U32, 1, AFQ_MAX_ROWS),
	[TCA_AFQ_COLS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &afq_cols_range),
	[TCA_AFQ_ECN_ROUNDS]	= NLA_POLICY_MAX(NLA_U32, AFQ_MAX_ECN_ROUNDS),
	[TCA_AFQ_FLOW_KEY]	= NLA_POLICY_MAX(NLA_U8, __AFQ_KEY_MAX - 1),
	[TCA_AFQ_OVERFLOW]	= NLA_POLICY_MAX(NLA_U8, __AFQ_OVERFLOW_MAX - 1),
	[TCA_AFQ_EXACT]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_AFQ_EXACT_FLOWS]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&afq_exact_flows_range),
	[TCA_AFQ_SEED]		= { .type = NLA_U32 },
	[TCA_AFQ_RATE]		= { .type = NLA_U64 },
	[TCA_AFQ_SHOAL_PORT]	= { .type = NLA_U16 },
};

static void afq_settings_default(struct afq_settings *s, u32 mtu)
{
	memset(s, 0, sizeof(*s));
	s->limit = AFQ_DEF_LIMIT;
	s->nqueues = AFQ_DEF_NQUEUES;
	s->bpr = clamp(mtu, AFQ_MIN_BPR, AFQ_MAX_BPR);	/* one MTU */
	s->rows = AFQ_DEF_ROWS;
	s->cols = AFQ_DEF_COLS;
	s->ecn_rounds = AFQ_DEF_ECN_ROUNDS;
	s->exact_flows = AFQ_DEF_EXACT_FLOWS;
	s->flow_key = AFQ_KEY_FLOW;
	s->overflow = AFQ_OVERFLOW_DROP;
	s->shoal_port = AFQ_DEF_SHOAL_PORT;
}

/* Apply @tb (its ranges checked by afq_policy) on top of @s; refuse a
 * size that must be a power of 2 and is not, naming its attribute.
 */
static int afq_settings_parse(struct afq_settings *s, struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	if (tb[TCA_AFQ_LIMIT])
		s->limit = nla_get_u32(tb[TCA_AFQ_LIMIT]);
	if (tb[TCA_AFQ_LIMIT_BYTES])
		s->limit_bytes = nla_get_u32(tb[TCA_AFQ_LIMIT_BYTES]);
	if (tb[TCA_AFQ_NQUEUES])
		s->nqueues = nla_get_u32(tb[TCA_AFQ_NQUEUES]);
	if (tb[TCA_AFQ_BPR])
		s->bpr = nla_get_u32(tb[TCA_AFQ_BPR]);
	if (tb[TCA_AFQ_ROWS])
		s->rows = nla_get_u32(tb[TCA_AFQ_ROWS]);
	if (tb[TCA_AFQ_COLS])
		s->cols = nla_get_u32(tb[TCA_AFQ_COLS]);
	if (tb[TCA_AFQ_ECN_ROUNDS])
		s->ecn_rounds = nla_get_u32(tb[TCA_AFQ_ECN_ROUNDS]);
	if (tb[TCA_AFQ_FLOW_KEY])
		s->flow_key = nla_get_u8(tb[TCA_AFQ_FLOW_KEY]);
	if (tb[TCA_AFQ_OVERFLOW])
		s->overflow = nla_get_u8(tb[TCA_AFQ_OVERFLOW]);
	if (tb[TCA_AFQ_EXACT])
		s->exact = nla_get_u8(tb[TCA_AFQ_EXACT]);
	if (tb[TCA_AFQ_EXACT_FLOWS])
		s->exact_flows = nla_get_u32(tb[TCA_AFQ_EXACT_FLOWS]);
	if (tb[TCA_AFQ_SEED])
		s->seed = nla_get_u32(tb[TCA_AFQ_SEED]);
	if (tb[TCA_AFQ_RATE])
		s->rate = nla_get_u64(tb[TCA_AFQ_RATE]);
	if (tb[TCA_AFQ_SHOAL_PORT])
		s->shoal_port = nla_get_u16(tb[TCA_AFQ_SHOAL_PORT]);

	if (!is_power_of_2(s->nqueues)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AFQ_NQUEUES],
				    "afq: nqueues must be a power of 2 from 2 to 4096");
		return -EINVAL;
	}
	if (!is_power_of_2(s->cols)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AFQ_COLS],
				    "afq: cols must be a power of 2 from 16 to 1048576");
		return -EINVAL;
	}
	if (!is_power_of_2(s->exact_flows)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AFQ_EXACT_FLOWS],
				    "afq: exact_flows must be a power of 2 from 256 to 4194304");
		return -EINVAL;
	}
	if (s->flow_key == AFQ_KEY_SHOAL_MSG && !s->shoal_port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AFQ_SHOAL_PORT] ?:
				    tb[TCA_AFQ_FLOW_KEY],
				    "afq: flow_key shoal_msg needs a shoal_port (not 0)");
		return -EINVAL;
	}
	return 0;
}

/* Bytes of bid state the settings need (the xstats "memory") */
static u32 afq_bidmem_bytes(const struct afq_settings *s)
{
	u32 bytes = s->rows * s->cols * sizeof(u64);

	if (s->exact)
		bytes += s->exact_flows * sizeof(struct afq_slot);
	return bytes;
}

static void afq_bidmem_free(struct afq_bidmem *m)
{
	kvfree(m->cells);
	kvfree(m->slots);
}

/* Zeroed sketch (and table) for @s: all flows start from the current round */
static int afq_bidmem_alloc(struct afq_bidmem *m, const struct afq_settings *s,
			    struct netlink_ext_ack *extack)
{
	m->cells = kvcalloc((size_t)s->rows * s->cols, sizeof(u64),
			    SHOAL_QDISC_GFP);
	m->slots = NULL;
	if (!m->cells) {
		NL_SET_ERR_MSG(extack, "afq: no memory for a sketch of rows x cols");
		return -ENOMEM;
	}
	if (!s->exact)
		return 0;
	m->slots = kvcalloc(s->exact_flows, sizeof(struct afq_slot),
			    SHOAL_QDISC_GFP);
	if (!m->slots) {
		kvfree(m->cells);
		m->cells = NULL;
		NL_SET_ERR_MSG(extack, "afq: no memory for exact_flows slots");
		return -ENOMEM;
	}
	return 0;
}

static struct sk_buff_head *afq_queues_alloc(u32 n,
					     struct netlink_ext_ack *extack)
{
	struct sk_buff_head *queues;
	u32 i;

	queues = kvcalloc(n, sizeof(*queues), SHOAL_QDISC_GFP);
	if (!queues) {
		NL_SET_ERR_MSG(extack, "afq: no memory for nqueues queues");
		return NULL;
	}
	for (i = 0; i < n; i++)
		__skb_queue_head_init(&queues[i]);
	return queues;
}

/* The flow hash key and the sketch row seeds: random per instance, or
 * derived from a non-zero seed for runs that can be repeated.
 */
static void afq_make_key(u32 seed, siphash_key_t *key, u64 *row_seed)
{
	if (!seed) {
		get_random_bytes(key, sizeof(*key));
		*row_seed = get_random_u64();
		return;
	}
	key->key[0] = afq_mix(seed);
	key->key[1] = afq_mix(key->key[0] ^ 0x736f6d6570736575ULL);
	*row_seed = afq_mix(key->key[1] + seed);
}

/* Did a setting that the bids depend on change?  Bids are byte clocks in
 * rounds of bpr, hashed with the key: a new key, flow definition (the
 * Shoal port is part of it), shape or round size makes the old ones
 * meaningless.
 */
static bool afq_new_bids(const struct afq_settings *a,
			 const struct afq_settings *b)
{
	return a->rows != b->rows || a->cols != b->cols ||
	       a->bpr != b->bpr || a->seed != b->seed ||
	       a->flow_key != b->flow_key || a->exact != b->exact ||
	       a->shoal_port != b->shoal_port ||
	       (b->exact && a->exact_flows != b->exact_flows);
}

/* After a change: drop from the furthest days until the limits hold */
static void afq_shrink(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	unsigned int pkts = 0, bytes = 0;
	struct sk_buff *skb;

	while (afq_over(sch, &q->set, 0, 0) &&
	       (skb = afq_unlink_furthest(sch))) {
		pkts++;
		bytes += qdisc_pkt_len(skb);
		q->st.limit_drops++;
		qdisc_qstats_drop(sch);
		rtnl_kfree_skbs(skb, skb);
	}
	if (pkts)
		qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

static int afq_configure(struct Qdisc *sch, struct nlattr *opt, bool init,
			 struct netlink_ext_ack *extack)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	struct sk_buff_head *queues = NULL, *old_queues = NULL;
	struct afq_bidmem mem = {}, old_mem = {};
	struct nlattr *tb[TCA_AFQ_MAX + 1] = {};
	bool new_queues, new_bids, new_key;
	struct afq_settings s;
	siphash_key_t key = {};
	u64 row_seed = 0;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_AFQ_MAX, opt, afq_policy,
				       extack);
		if (err < 0)
			return err;
	} else if (!init) {
		return 0;
	}
	s = q->set;
	err = afq_settings_parse(&s, tb, extack);
	if (err)
		return err;

	new_queues = init || s.nqueues != q->set.nqueues;
	new_key = init || s.seed != q->set.seed;
	new_bids = init || afq_new_bids(&q->set, &s);
	if (new_queues) {
		queues = afq_queues_alloc(s.nqueues, extack);
		if (!queues)
			return -ENOMEM;
	}
	if (new_bids) {
		err = afq_bidmem_alloc(&mem, &s, extack);
		if (err)
			goto out_free;
	}
	if (new_key)
		afq_make_key(s.seed, &key, &row_seed);

	sch_tree_lock(sch);
	if (!init && new_queues && sch->q.qlen) {
		sch_tree_unlock(sch);
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_AFQ_NQUEUES],
				    "afq: nqueues can change only while the qdisc is empty");
		err = -EBUSY;
		goto out_free;
	}
	if (new_queues) {
		/* empty: nothing to move, R stays */
		old_queues = q->queues;
		q->queues = queues;
		queues = NULL;
		cal_init(&q->cal, s.nqueues, CAL_HORIZON_DROP, q->cal.head);
	}
	if (new_key) {
		q->key = key;
		q->row_seed = row_seed;
	}
	if (new_bids) {
		/* Queued packets stay where they are; new bids start at the
		 * furthest queued day, so no flow overtakes its own packets.
		 */
		u64 last;

		q->afq.floor = cal_last_day(&q->cal, &last) ? last * s.bpr : 0;
		q->bid_gen++;
		q->afq.ex.full_bid = 0;
		old_mem.cells = q->afq.sk.cells;
		old_mem.slots = q->afq.ex.slots;
		q->afq.sk.cells = mem.cells;
		q->afq.sk.rows = s.rows;
		q->afq.sk.cols_log = ilog2(s.cols);
		afq_sketch_seed(&q->afq.sk, q->row_seed);
		q->afq.ex.slots = mem.slots;
		q->afq.ex.mask = s.exact_flows - 1;
		mem = old_mem;
	}
	q->afq.bpr = s.bpr;
	q->afq.nqueues = s.nqueues;
	q->afq.ecn_rounds = s.ecn_rounds;
	if (s.rate != q->set.rate) {
		q->t_next = 0;
		/* the watchdog may be armed for the old rate's next departure */
		if (sch->q.qlen)
			qdisc_watchdog_schedule_ns(&q->watchdog, ktime_get_ns());
	}
	q->set = s;
	/* While nothing is queued no flow waits for another, so there is
	 * nothing to be fair about: a packet that finds the root qdisc empty
	 * may go straight to the driver uncharged, as with fq_codel and sfq.
	 * Not when the own shaper has to see every packet, nor when a
	 * calendar shorter than the MTU would refuse some packets.
	 */
	if (!s.rate && (u64)s.nqueues * s.bpr >= psched_mtu(qdisc_dev(sch)))
		sch->flags |= TCQ_F_CAN_BYPASS;
	else
		sch->flags &= ~TCQ_F_CAN_BYPASS;
	afq_shrink(sch);
	sch_tree_unlock(sch);
	err = 0;

out_free:
	afq_bidmem_free(&mem);
	kvfree(queues);
	kvfree(old_queues);
	return err;
}

static int afq_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	return afq_configure(sch, opt, false, extack);
}

static int afq_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct afq_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_init(&q->watchdog, sch);
	afq_settings_default(&q->set, psched_mtu(qdisc_dev(sch)));
	return afq_configure(sch, opt, true, extack);
}

/* Also cleans up after a failed init */
static void afq_destroy(struct Qdisc *sch)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	struct afq_bidmem mem = {
		.cells = q->afq.sk.cells,
		.slots = q->afq.ex.slots,
	};

	qdisc_watchdog_cancel(&q->watchdog);
	afq_purge(q);
	kvfree(q->queues);
	afq_bidmem_free(&mem);
}

static int afq_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	const struct afq_settings *s = &q->set;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_AFQ_LIMIT, s->limit) ||
	    nla_put_u32(skb, TCA_AFQ_LIMIT_BYTES, s->limit_bytes) ||
	    nla_put_u32(skb, TCA_AFQ_NQUEUES, s->nqueues) ||
	    nla_put_u32(skb, TCA_AFQ_BPR, s->bpr) ||
	    nla_put_u32(skb, TCA_AFQ_ROWS, s->rows) ||
	    nla_put_u32(skb, TCA_AFQ_COLS, s->cols) ||
	    nla_put_u32(skb, TCA_AFQ_ECN_ROUNDS, s->ecn_rounds) ||
	    nla_put_u8(skb, TCA_AFQ_FLOW_KEY, s->flow_key) ||
	    nla_put_u8(skb, TCA_AFQ_OVERFLOW, s->overflow) ||
	    nla_put_u8(skb, TCA_AFQ_EXACT, s->exact) ||
	    nla_put_u32(skb, TCA_AFQ_EXACT_FLOWS, s->exact_flows) ||
	    nla_put_u32(skb, TCA_AFQ_SEED, s->seed) ||
	    nla_put_u64_64bit(skb, TCA_AFQ_RATE, s->rate, TCA_AFQ_PAD) ||
	    nla_put_u16(skb, TCA_AFQ_SHOAL_PORT, s->shoal_port))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int afq_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct afq_sched_data *q = qdisc_priv(sch);
	struct tc_afq_xstats st;

	sch_tree_lock(sch);
	st = q->st;
	st.round = q->cal.head;
	st.active_queues = q->cal.nonempty;
	st.memory = afq_bidmem_bytes(&q->set);
	sch_tree_unlock(sch);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops afq_qdisc_ops __read_mostly = {
	.id		= "afq",
	.priv_size	= sizeof(struct afq_sched_data),
	.enqueue	= afq_enqueue,
	.dequeue	= afq_dequeue,
	.peek		= afq_peek,
	.init		= afq_init,
	.reset		= afq_reset,
	.destroy	= afq_destroy,
	.change		= afq_change,
	.dump		= afq_dump,
	.dump_stats	= afq_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init afq_module_init(void)
{
	return register_qdisc(&afq_qdisc_ops);
}

static void __exit afq_module_exit(void)
{
	unregister_qdisc(&afq_qdisc_ops);
}

module_init(afq_module_init);
module_exit(afq_module_exit);
MODULE_DESCRIPTION("Approximate fair queueing: count-min bids over a calendar of FIFOs");
MODULE_AUTHOR("Shoal developers");
MODULE_LICENSE("GPL");
