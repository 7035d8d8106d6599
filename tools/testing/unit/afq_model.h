/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace model of the whole AFQ scheduler, built only from the two
 * cores sch_afq uses: afq_core.h decides the round of each arrival and
 * calendar_core.h keeps the ring of FIFOs.  The round R is the calendar
 * head.  Dequeue rotates lazily: when the head FIFO is empty and packets
 * remain, the head jumps to the next non-empty day (thesis Fig. 5.2,
 * several empty rounds at once).  A link sends `rate` bytes per tick.
 *
 * Every step checks the invariants the qdisc relies on: per-flow FIFO
 * order (sequence numbers), every accepted packet leaves exactly once, the
 * queue length never goes negative, every queued packet sits in its own
 * round's bucket within [head, head + nqueues), bids grow per flow, and in
 * exact mode the sketch's shadow round is never earlier than the exact
 * one.  The first broken invariant is kept in m->error.  Shared by the
 * unit test and the fuzz target.
 */
#ifndef _SHOAL_AFQ_MODEL_H
#define _SHOAL_AFQ_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "afq_core.h"
#include "calendar_core.h"

#define AFQM_MAX_FLOWS	1024
#define AFQM_MAX_PKTS	(1u << 17)
#define AFQM_NIL	0xffffffffu

struct afqm_cfg {
	u32 nqueues;		/* calendar buckets = rounds ahead, power of 2 */
	u32 bpr;		/* bytes per round, >= 1 */
	u32 rows;		/* sketch rows, 1..AFQ_ROWS_MAX */
	u32 cols;		/* sketch columns, power of 2, >= 2 */
	u32 ecn_rounds;		/* 0 = no marking */
	u32 limit;		/* packets, all queues, 1..AFQM_MAX_PKTS */
	bool pushout;		/* full: drop the furthest round's tail */
	u32 exact_slots;	/* 0 = sketch mode, else a power of 2 >= 8 */
	u64 seed;		/* sketch seed */
	u64 head;		/* the first round */
};

struct afqm_pkt {
	u64 seq;		/* per-flow accept order */
	u64 round;
	u64 bid;
	u32 flow;
	u32 len;
	u32 next;		/* pool index of the next packet in its FIFO */
	bool ecn;
};

struct afqm_flow {
	u64 hash;
	u64 accepted;		/* next sequence number to give */
	u64 served;		/* next sequence number expected out */
	u64 last_bid;		/* bid of the last accepted packet */
	bool has_bid;		/* last_bid is valid (cleared on reconfig) */
	bool refunded;		/* a refund may have lowered its cells */
	u64 queued;		/* packets in the queues */
	u64 offered_bytes;
	u64 sent_bytes;		/* delivered since the last stats reset */
	u64 drops_horizon;
	u64 drops_limit;
	u64 pushed_out;
	u64 ecn;
};

enum afqm_res {
	AFQM_QUEUED,
	AFQM_DROP_HORIZON,
	AFQM_DROP_LIMIT,
};

struct afq_model {
	struct afq_state a;
	struct cal_core c;
	struct afqm_cfg cfg;
	struct afqm_pkt *pool;
	u32 free_head;
	u32 qhead[CAL_MAX_BUCKETS];
	u32 qtail[CAL_MAX_BUCKETS];
	u32 qcnt[CAL_MAX_BUCKETS];
	struct afqm_flow flow[AFQM_MAX_FLOWS];
	s64 qlen;
	s64 backlog;
	s64 credit;		/* link bytes left in this tick */
	u64 enqueued, dequeued, pushed_out;
	u64 drops_horizon, drops_limit;
	u64 ecn_marked, bumps;
	u64 exact_pkts;		/* exact mode: accepted with a slot */
	u64 misplaced;		/* ... whose shadow round was later */
	u64 extra_rounds;	/* ... sum of shadow - exact */
	u64 table_full;		/* exact mode: no slot, sketch bid used */
	u64 max_ahead;
	u32 nflows;		/* flows 0..nflows-1 have been seen */
	const char *error;	/* first broken invariant, or NULL */
};

static inline void afqm_fail(struct afq_model *m, const char *what)
{
	if (!m->error)
		m->error = what;
}

/* Default flow hashes: any fixed 64-bit values do; tests may overwrite */
static inline u64 afqm_flow_hash(u32 f)
{
	return afq_mix(0x5ca1ab1e00000000ULL | f);
}

static inline void afqm_free_state(struct afq_model *m)
{
	free(m->a.sk.cells);
	free(m->a.ex.slots);
	m->a.sk.cells = NULL;
	m->a.ex.slots = NULL;
}

/* (Re)build the bid state of @cfg, empty, as the qdisc must on a change of
 * bpr, rows, cols or mode: old bids are in units of the old bpr.
 */
static inline int afqm_set_state(struct afq_model *m,
				 const struct afqm_cfg *cfg)
{
	afqm_free_state(m);
	m->a.sk.rows = cfg->rows;
	m->a.sk.cols_log = afq_log2(cfg->cols);
	m->a.sk.cells = calloc((size_t)cfg->rows * cfg->cols, sizeof(u64));
	if (!m->a.sk.cells)
		return -1;
	afq_sketch_seed(&m->a.sk, cfg->seed);
	if (cfg->exact_slots) {
		m->a.ex.slots = calloc(cfg->exact_slots,
				       sizeof(struct afq_slot));
		if (!m->a.ex.slots) {
			afqm_free_state(m);
			return -1;
		}
		m->a.ex.mask = cfg->exact_slots - 1;
	}
	m->a.bpr = cfg->bpr;
	m->a.nqueues = cfg->nqueues;
	m->a.ecn_rounds = cfg->ecn_rounds;
	return 0;
}

static inline void afqm_reset_stats(struct afq_model *m)
{
	u32 f;

	for (f = 0; f < AFQM_MAX_FLOWS; f++) {
		m->flow[f].sent_bytes = 0;
		m->flow[f].offered_bytes = 0;
	}
	m->exact_pkts = 0;
	m->misplaced = 0;
	m->extra_rounds = 0;
	m->table_full = 0;
}

static inline void afqm_release(struct afq_model *m)
{
	afqm_free_state(m);
	free(m->pool);
	m->pool = NULL;
}

/* Returns -1 when an allocation fails (nothing is left allocated) */
static inline int afqm_init(struct afq_model *m, const struct afqm_cfg *cfg)
{
	u32 i;

	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	/* one more: pushout queues the arrival before it drops */
	m->pool = calloc(cfg->limit + 1, sizeof(*m->pool));
	if (!m->pool || afqm_set_state(m, cfg)) {
		afqm_release(m);
		return -1;
	}
	for (i = 0; i <= cfg->limit; i++)
		m->pool[i].next = i + 1 <= cfg->limit ? i + 1 : AFQM_NIL;
	m->free_head = 0;
	for (i = 0; i < CAL_MAX_BUCKETS; i++) {
		m->qhead[i] = AFQM_NIL;
		m->qtail[i] = AFQM_NIL;
	}
	for (i = 0; i < AFQM_MAX_FLOWS; i++)
		m->flow[i].hash = afqm_flow_hash(i);
	cal_init(&m->c, cfg->nqueues, CAL_HORIZON_DROP, cfg->head);
	return 0;
}

/* Change bpr/rows/cols/mode of an empty scheduler; R stays where it is */
static inline int afqm_reconfig(struct afq_model *m,
				const struct afqm_cfg *cfg)
{
	u32 f;

	if (m->qlen)
		afqm_fail(m, "reconfig with packets queued");
	m->cfg.bpr = cfg->bpr;
	m->cfg.rows = cfg->rows;
	m->cfg.cols = cfg->cols;
	m->cfg.exact_slots = cfg->exact_slots;
	m->cfg.seed = cfg->seed;
	m->cfg.ecn_rounds = cfg->ecn_rounds;
	for (f = 0; f < AFQM_MAX_FLOWS; f++)
		m->flow[f].has_bid = false;
	return afqm_set_state(m, &m->cfg);
}

/* The qdisc's overflow pushout: the arrival is queued, the tail of the
 * furthest round (later than the arrival's) leaves, and its bytes go back
 * to its flow with afq_refund().  That packet must be its flow's latest.
 */
static inline void afqm_pushout(struct afq_model *m)
{
	u32 b, i, prev = AFQM_NIL, f;
	struct afqm_flow *fl;
	struct afqm_pkt *p;
	u64 day, to;

	if (!cal_last_day(&m->c, &day)) {
		afqm_fail(m, "over the limit with nothing queued");
		return;
	}
	b = cal_bucket(&m->c, day);
	for (i = m->qhead[b]; i != m->qtail[b]; i = m->pool[i].next)
		prev = i;
	p = &m->pool[i];
	fl = &m->flow[p->flow];
	if (p->seq + 1 != fl->accepted)
		afqm_fail(m, "pushed out a packet that was not its flow's latest");
	if (prev == AFQM_NIL)
		m->qhead[b] = AFQM_NIL;
	else
		m->pool[prev].next = AFQM_NIL;
	m->qtail[b] = prev;
	if (--m->qcnt[b] == 0)
		cal_unmark(&m->c, b);
	afq_refund(&m->a, fl->hash, p->bid, p->len, day);
	/* The bound check_all() holds the sketch to: a refund may lower
	 * a cell shared with flows whose bids are no larger, down to @to
	 */
	to = p->bid - p->len;
	if (to < day * m->cfg.bpr)
		to = day * m->cfg.bpr;
	for (f = 0; f < m->nflows; f++)
		if (m->flow[f].has_bid && m->flow[f].last_bid > to &&
		    m->flow[f].last_bid <= p->bid) {
			m->flow[f].last_bid = to;
			m->flow[f].refunded = true;
		}
	fl->accepted--;
	fl->queued--;
	fl->pushed_out++;
	m->qlen--;
	m->backlog -= p->len;
	m->pushed_out++;
	p->next = m->free_head;
	m->free_head = i;
}

static inline enum afqm_res afqm_enqueue(struct afq_model *m, u32 f, u32 len)
{
	struct afqm_flow *fl = &m->flow[f];
	struct afq_verdict v;
	struct afqm_pkt *p;
	u64 day;
	u32 b, i;

	if (f >= m->nflows)
		m->nflows = f + 1;
	fl->offered_bytes += len;
	afq_decide(&m->a, fl->hash, len, m->c.head, &v);
	if (v.horizon) {
		fl->drops_horizon++;
		m->drops_horizon++;
		return AFQM_DROP_HORIZON;
	}
	if (m->qlen >= (s64)m->cfg.limit &&
	    (!m->cfg.pushout || !cal_last_day(&m->c, &day) ||
	     day - m->c.head <= v.b.round - m->c.head)) {
		fl->drops_limit++;
		m->drops_limit++;
		return AFQM_DROP_LIMIT;
	}
	day = v.b.round;
	if (cal_place(&m->c, &day, &b) != CAL_PLACED || day != v.b.round) {
		afqm_fail(m, "accepted round outside the calendar");
		return AFQM_DROP_HORIZON;
	}
	i = m->free_head;
	if (i == AFQM_NIL) {
		afqm_fail(m, "packet pool exhausted below the limit");
		return AFQM_DROP_LIMIT;
	}
	afq_commit(&m->a, &v);
	if (fl->has_bid && v.b.bid <= fl->last_bid)
		afqm_fail(m, "a flow's bid went backwards");
	if (m->a.ex.slots) {
		if (v.table_full) {
			m->table_full++;
		} else {
			m->exact_pkts++;
			/* a refund may put a sharing flow's cells up to
			 * one packet early (see afq_refund())
			 */
			if (v.shadow_round < v.b.round && !fl->refunded)
				afqm_fail(m, "sketch shadow earlier than exact");
			if (v.shadow_round > v.b.round) {
				m->misplaced++;
				m->extra_rounds += v.shadow_round - v.b.round;
			}
		}
	}
	fl->last_bid = v.b.bid;
	fl->has_bid = true;
	fl->refunded = false;
	if (v.b.bumped)
		m->bumps++;
	if (v.ecn) {
		fl->ecn++;
		m->ecn_marked++;
	}
	if (v.ahead > m->max_ahead)
		m->max_ahead = v.ahead;

	p = &m->pool[i];
	m->free_head = p->next;
	p->seq = fl->accepted++;
	p->round = v.b.round;
	p->bid = v.b.bid;
	p->flow = f;
	p->len = len;
	p->ecn = v.ecn;
	p->next = AFQM_NIL;
	if (m->qtail[b] == AFQM_NIL)
		m->qhead[b] = i;
	else
		m->pool[m->qtail[b]].next = i;
	m->qtail[b] = i;
	if (m->qcnt[b]++ == 0)
		cal_mark(&m->c, b);
	fl->queued++;
	m->qlen++;
	m->backlog += len;
	m->enqueued++;
	if (m->qlen > (s64)m->cfg.limit)
		afqm_pushout(m);
	return AFQM_QUEUED;
}

/* Serve one packet the way the qdisc does; false when empty */
static inline bool afqm_dequeue(struct afq_model *m, struct afqm_pkt *out)
{
	u32 b = cal_bucket(&m->c, m->c.head), i;
	struct afqm_flow *fl;
	u64 day;

	if (!m->qcnt[b]) {
		if (!cal_next_day(&m->c, &day)) {
			if (m->qlen)
				afqm_fail(m, "calendar empty, packets queued");
			return false;
		}
		cal_advance(&m->c, day);	/* R jumps the empty rounds */
		if (m->c.head != day)
			afqm_fail(m, "head did not reach the next day");
		b = cal_bucket(&m->c, day);
		if (!m->qcnt[b]) {
			afqm_fail(m, "marked bucket is empty");
			return false;
		}
	}
	if (m->qlen <= 0 || m->backlog <= 0) {
		afqm_fail(m, "qlen or backlog would go negative");
		return false;
	}
	i = m->qhead[b];
	*out = m->pool[i];
	m->qhead[b] = out->next;
	if (--m->qcnt[b] == 0) {
		m->qtail[b] = AFQM_NIL;
		cal_unmark(&m->c, b);
	}
	m->pool[i].next = m->free_head;
	m->free_head = i;

	if (out->round != m->c.head)
		afqm_fail(m, "served a packet outside the head round");
	fl = &m->flow[out->flow];
	if (out->seq != fl->served)
		afqm_fail(m, "a flow's packets left out of order");
	fl->served = out->seq + 1;
	fl->queued--;
	fl->sent_bytes += out->len;
	m->qlen--;
	m->backlog -= out->len;
	m->dequeued++;
	return true;
}

/* One tick of a link of @rate bytes: an idle link saves no credit */
static inline u64 afqm_tick(struct afq_model *m, u32 rate)
{
	struct afqm_pkt p;
	u64 sent = 0;

	m->credit += rate;
	while (m->credit > 0 && afqm_dequeue(m, &p)) {
		m->credit -= p.len;
		sent += p.len;
	}
	if (!m->qlen && m->credit > 0)
		m->credit = 0;
	return sent;
}

/* Serve everything; the scheduler must end empty */
static inline void afqm_drain(struct afq_model *m)
{
	struct afqm_pkt p;
	u32 f;

	while (!m->error && afqm_dequeue(m, &p))
		;
	if (m->qlen || m->backlog || m->c.nonempty)
		afqm_fail(m, "not empty after draining");
	if (m->enqueued != m->dequeued + m->pushed_out)
		afqm_fail(m, "packets lost or duplicated");
	for (f = 0; f < m->nflows; f++)
		if (m->flow[f].accepted != m->flow[f].served ||
		    m->flow[f].queued)
			afqm_fail(m, "a flow's packets lost or duplicated");
}

/* Walk every queued packet: O(qlen + nqueues + flows * rows) */
static inline void afqm_check_all(struct afq_model *m)
{
	u64 queued[AFQM_MAX_FLOWS] = { 0 }, last_seq[AFQM_MAX_FLOWS];
	u32 seen[AFQM_MAX_FLOWS] = { 0 };	/* bucket + 1 seen last in */
	u32 b, i, n, idx[AFQ_ROWS_MAX], f;
	s64 qlen = 0, backlog = 0;

	for (b = 0; b < m->cfg.nqueues; b++) {
		n = 0;
		for (i = m->qhead[b]; i != AFQM_NIL; i = m->pool[i].next) {
			const struct afqm_pkt *p = &m->pool[i];

			if (!cal_in_range(&m->c, p->round))
				afqm_fail(m, "queued round outside [R, R + nQ)");
			if (cal_bucket(&m->c, p->round) != b)
				afqm_fail(m, "packet in another round's bucket");
			if (seen[p->flow] == b + 1 &&
			    p->seq <= last_seq[p->flow])
				afqm_fail(m, "a bucket holds a flow out of order");
			seen[p->flow] = b + 1;
			last_seq[p->flow] = p->seq;
			queued[p->flow]++;
			qlen++;
			backlog += p->len;
			if (++n > m->cfg.limit) {
				afqm_fail(m, "FIFO list loops");
				return;
			}
		}
		if (n != m->qcnt[b])
			afqm_fail(m, "bucket count is wrong");
		if (cal_is_marked(&m->c, b) != !!n)
			afqm_fail(m, "bitmap disagrees with the FIFOs");
	}
	if (qlen != m->qlen || backlog != m->backlog || m->qlen < 0)
		afqm_fail(m, "qlen or backlog is wrong");
	if (m->enqueued - m->dequeued - m->pushed_out != (u64)m->qlen)
		afqm_fail(m, "enqueued - dequeued - pushed out != qlen");
	for (f = 0; f < m->nflows; f++) {
		const struct afqm_flow *fl = &m->flow[f];

		if (queued[f] != fl->queued ||
		    fl->accepted - fl->served != fl->queued)
			afqm_fail(m, "a flow's queued count is wrong");
		if (!fl->has_bid)
			continue;
		/* Collisions only raise the estimate: never below the bid */
		afq_sketch_index(&m->a.sk, fl->hash, idx);
		if (afq_sketch_read(&m->a.sk, idx) < fl->last_bid)
			afqm_fail(m, "sketch below a flow's last bid");
	}
}

#endif /* _SHOAL_AFQ_MODEL_H */
