// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr: in-network loss recovery from link failures (Qu et al., "SQR:
 * In-network Packet Loss Recovery from Link Failures for Highly Reliable
 * Datacenter Networks").
 *
 * The root qdisc of a port keeps a copy of every protected packet it sends
 * for `hold`, the bound on failure detection: the frame, written into a
 * preallocated ring buffer, or a clone for what a copy cannot carry (GSO,
 * large frames).  A copy that has served its time is freed.  When the
 * link is found down (carrier poll, device events, an external verdict or
 * the fault injector) the copies still held are committed (each becomes
 * a packet again only as it goes out) and resent, in order and before
 * anything newer, which waits in the fail queue, on the backup:
 * another device with the Ethernet addresses rewritten, or the same port
 * once it is back (ShareBackup's reconfiguration).  The state machine, the
 * match, the injector's schedule, the ring buffer's arithmetic and the
 * heartbeat's frame and verdict are pure C in sqr_core.h, shared with the
 * unit tests.
 * See Documentation/sch_sqr.md.
 *
 * The module in layers, each calling only those below it:
 *   sch_sqr_main.c  this file: the qdisc's ops, the timer, configuration,
 *                   dump and the device notifier
 *   sqr_hb.c        the heartbeat and its packet handler
 *   sqr_guard.c     the netfilter egress guard of a detached port
 *   sqr_fault.c     the fault injector
 *   sqr_ring.c      the ring and held copies, fail over, divert, arming
 *                   the timer
 *   sch_sqr.h       their private header; sqr_core.h the algorithm core
 *
 * Linux tears a port's qdisc down on carrier loss: dev_deactivate()
 * attaches noop_qdisc and resets ours under its lock.  So the ring and
 * the fail queue are not counted in sch->q.qlen (qdisc_reset() zeroes it),
 * a reset with the device down keeps them, and everything that must
 * happen while the port is detached runs from our own timer.
 *
 * Locking: sqr is always the root qdisc, so its root lock is its own
 * qdisc_lock(sch), from init on (sch_tree_lock() would take the lock of
 * the qdisc it replaces until the graft).  enqueue, dequeue, peek and
 * reset run under it in BH context.  The timer is a soft hrtimer (softirq
 * context); it takes the lock, takes a batch of packets to send on another
 * device off the ring and the fail queue, drops the lock and only then
 * calls dev_queue_xmit() (never under a qdisc lock), holding a reference
 * on that device while it does.  A reset keeps the copies; the one
 * __qdisc_destroy() makes runs without the lock, so it does nothing and
 * destroy, with the timer stopped, frees everything.  init, change, dump and destroy run under
 * RTNL; change applies a checked configuration under the lock (at init a
 * `force down` may arm the timer while the child is still noop_qdisc,
 * which it handles).  The list of instances, which the netdevice notifier
 * walks, is guarded by sqr_list_lock (a mutex: the notifier and
 * init/destroy run in process context); the notifier takes an instance's
 * lock inside it.  q->backup is written under RTNL and the lock, so either
 * holder may read it.  dump_stats takes the lock to copy the counters.
 * The copy buffer is allocated in init and change, before the lock (it may
 * sleep), swapped in under it, and the old one freed after it.
 * The files below this one have locking notes of their own.
 */

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/dst.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_shoal.h>

#include "sch_sqr.h"
#include "shoal_qdisc_gfp.h"

#define CREATE_TRACE_POINTS
#include "sqr_trace.h"

#define SQR_RELEASE_BATCH	256	/* held packets sent per timer run */

/* every copy buffer, as held_pkts every held packet (sqr_ring.c), so
 * that a test can see that none is leaked
 */
static atomic_long_t sqr_buffers = ATOMIC_LONG_INIT(0);
static LIST_HEAD(sqr_instances);
static DEFINE_MUTEX(sqr_list_lock);

module_param_cb(buffers, &sqr_count_ops, &sqr_buffers, 0444);
MODULE_PARM_DESC(buffers, "copy buffers allocated, all instances");

/* ---- the timer ---- */

/* Count one held skb handed on: a committed copy or a diverted packet */
static void sqr_count_out(struct sqr_sched_data *q, const struct sk_buff *skb)
{
	trace_sqr_resend(q->sch, qdisc_pkt_len(skb), sqr_cb(skb)->copy);
	if (sqr_cb(skb)->copy) {
		q->st.resent++;
		q->st.resent_bytes += qdisc_pkt_len(skb);
	} else {
		q->st.diverted++;
	}
}

/* Rewrite the Ethernet header of @skb for @dev and send it there */
static int sqr_xmit_backup(struct sk_buff *skb, struct net_device *dev,
			   const u8 *dmac)
{
	struct ethhdr *eth;

	/* the data may be shared with the original, still in flight */
	if (skb->len < ETH_HLEN || skb_cow_head(skb, 0)) {
		kfree_skb(skb);
		return NET_XMIT_DROP;
	}
	eth = (struct ethhdr *)skb->data;
	ether_addr_copy(eth->h_dest, dmac);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	skb->dev = dev;
	skb->tstamp = 0;	/* an EDT time of the primary's pacing */
	skb_set_queue_mapping(skb, 0);
	skb_dst_drop(skb);
	return dev_queue_xmit(skb);
}

static enum hrtimer_restart sqr_timer_fn(struct hrtimer *t)
{
	struct sqr_sched_data *q = container_of(t, struct sqr_sched_data,
					       timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock = qdisc_lock(sch);	/* we are the root */
	struct net_device *dev = NULL;
	struct sk_buff_head out;
	u32 acts, probe, errors = 0;
	bool probe_due;
	u8 dmac[ETH_ALEN];
	struct sk_buff *skb;
	u64 now, next;

	__skb_queue_head_init(&out);
	spin_lock(root_lock);
	now = ktime_get_ns();
	q->timer_at = 0;

	if (q->set.fault.len_ns)
		sqr_fault_run(sch, now, NULL);
	probe_due = sqr_hb_tick(sch, now, &probe);
	if (q->fsm.state == SQR_STATE_UP && sqr_primary_down(q))
		sqr_fail(sch, now, sqr_down_by(q), 0, 0, NULL);
	else if (q->fsm.state == SQR_STATE_UP)
		q->poll_up = now;
	if (q->fsm.state == SQR_STATE_UP)
		sqr_expire(q, now);

	acts = sqr_fsm_step(&q->fsm, &q->set.fsm, now, sqr_primary_ok(q),
			    sqr_backup_ok(q), sqr_held_empty(q), &next);
	if (acts & SQR_A_GIVE_UP)
		sqr_give_up(q);
	if (q->fsm.state != SQR_STATE_FAILED && sqr_release_here(q)) {
		/* our dequeue sends what is held, or what the child held
		 * back while the port was failed; never a detached qdisc
		 * (dev_deactivate() sets the bit under this lock)
		 */
		if ((!sqr_held_empty(q) || sch->q.qlen) &&
		    !test_bit(__QDISC_STATE_DEACTIVATED, &sch->state))
			__netif_schedule(sch);
	} else if (sqr_releasing(q) && !sqr_held_empty(q)) {
		/* a batch at a time, the lock not held for all of it */
		dev = q->backup;
		dev_hold(dev);
		memcpy(dmac, q->set.dmac, ETH_ALEN);
		while (skb_queue_len(&out) < SQR_RELEASE_BATCH &&
		       (skb = sqr_release_one(q))) {
			sqr_count_out(q, skb);
			__skb_queue_tail(&out, skb);
		}
		if (sqr_held_empty(q))
			q->st.recovery_last = now - q->fsm.t_detect;
	}
	sqr_arm(q, now, next);
	spin_unlock(root_lock);

	if (probe_due)
		sqr_hb_probe(sch, probe, now);
	if (!dev)
		return HRTIMER_NORESTART;
	while ((skb = __skb_dequeue(&out)))
		if (sqr_xmit_backup(skb, dev, dmac) != NET_XMIT_SUCCESS)
			errors++;
	dev_put(dev);
	spin_lock(root_lock);
	q->st.xmit_errors += errors;
	sqr_arm_at(q, ktime_get_ns());	/* the next batch, or the state */
	spin_unlock(root_lock);
	return HRTIMER_NORESTART;
}

/* ---- the data path ---- */

/* The child: pfifo unless replaced.  pfifo is called directly, as its
 * own enqueue and dequeue would run: two indirect calls a packet are a
 * measurable part of what sqr costs over a plain pfifo.
 */
static bool sqr_child_is_fifo(const struct Qdisc *child)
{
	return child->ops == &pfifo_qdisc_ops;
}

static int sqr_child_enqueue(struct sk_buff *skb, struct Qdisc *child,
			     struct sk_buff **to_free)
{
	/* a size table of the child's own: the core sizes the packet */
	if (!sqr_child_is_fifo(child) || rcu_access_pointer(child->stab))
		return qdisc_enqueue(skb, child, to_free);
	if (likely(child->q.qlen < child->limit))
		return qdisc_enqueue_tail(skb, child);
	return qdisc_drop(skb, child, to_free);
}

static struct sk_buff *sqr_child_dequeue(struct Qdisc *child)
{
	/* a packet peeked by a caller that is not us waits in gso_skb */
	if (sqr_child_is_fifo(child) && !child->gso_skb.qlen)
		return qdisc_dequeue_head(child);
	return qdisc_dequeue_peeked(child);
}

/* A held packet's queue may be gone (ethtool -L since) */
static void sqr_cap_queue(struct net_device *dev, struct sk_buff *skb)
{
	skb_set_queue_mapping(skb, netdev_cap_txqueue(dev,
						      skb_get_queue_mapping(skb)));
}

static int sqr_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int ret;

	if (unlikely(sqr_fsm_diverting(&q->fsm)) && q->set.divert) {
		if (!sqr_divert(q, skb))
			return qdisc_drop(skb, sch, to_free);
		return NET_XMIT_SUCCESS;
	}
	ret = sqr_child_enqueue(skb, q->child, to_free);
	if (ret != NET_XMIT_SUCCESS) {
		if (net_xmit_drop_count(ret))
			qdisc_qstats_drop(sch);
		return ret;
	}
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *sqr_peek(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (sqr_same_port(q) && q->fsm.state == SQR_STATE_FAILED)
		return NULL;
	if (sqr_releasing(q) && sqr_release_here(q) && !sqr_held_empty(q)) {
		/* no caller at the root; a peek must not lose the order */
		sqr_uncommit_all(q);
		return skb_peek(&q->failq);
	}
	return q->child->ops->peek(q->child);
}

static struct sk_buff *sqr_dequeue(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct sqr_rec *copy;
	struct sk_buff *skb;
	u64 now;

	if (unlikely(q->fsm.state != SQR_STATE_UP)) {
		/* the reconfigured port: held until the release */
		if (sqr_same_port(q) && q->fsm.state == SQR_STATE_FAILED)
			return NULL;
		/* then the committed copies and the diverted packets first */
		skb = sqr_releasing(q) && sqr_release_here(q) ?
		      sqr_release_one(q) : NULL;
		if (skb) {
			sqr_cap_queue(qdisc_dev(sch), skb);
			sqr_count_out(q, skb);
			if (sqr_held_empty(q)) {
				u64 now = ktime_get_ns();

				/* drained: the state machine may move on */
				q->st.recovery_last = now - q->fsm.t_detect;
				sqr_arm_at(q, now);
			}
			qdisc_bstats_update(sch, skb);
			return skb;
		}
	}
again:
	/* the qdisc runs until a dequeue finds nothing: once a packet */
	if (!sch->q.qlen)
		return NULL;
	skb = sqr_child_dequeue(q->child);
	if (!skb)
		return NULL;
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	now = ktime_get_ns();
	if (unlikely(q->set.fault.len_ns))
		sqr_fault_run(sch, now, &skb);
	if (skb && q->fsm.state == SQR_STATE_UP) {
		if (!sqr_primary_down(q))
			q->seen_up = now;
		else
			sqr_fail(sch, now, sqr_down_by(q), 0, 0, &skb);
	}
	if (!skb)
		return NULL;	/* found down just now: held, not sent */
	copy = NULL;
	if (q->fsm.state == SQR_STATE_UP && q->set.hold_ns) {
		copy = sqr_keep_copy(q, skb, now);
		sqr_expire(q, now);
		if (!sqr_timer_settled(q->timer_at, now,
				       sqr_watch_ns(q->set.poll_ns,
						    q->set.hold_ns)))
			sqr_arm_busy(q, now);
	}
	/* the injector's outage: lost on the wire, and counted */
	if (unlikely(q->set.fault.len_ns) && sqr_fault_lost(q, copy, now)) {
		kfree_skb(skb);
		goto again;
	}
	qdisc_bstats_update(sch, skb);
	return skb;
}

/* On a failure Linux detaches the port and resets its qdisc: then the
 * copies are what we are here for.  They stay on any reset (the ring
 * empties itself as copies expire); destroy purges them.  The reset
 * __qdisc_destroy() makes runs without the lock, with the timer still
 * live: it is left to destroy, which stops the timer first.
 */
static void sqr_reset(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (!refcount_read(&sch->refcnt))
		return;
	if (!sqr_dev_ok(qdisc_dev(sch)))
		sqr_fail(sch, ktime_get_ns(), SQR_BY_LINK, 0, 0, NULL);
	qdisc_reset(q->child);
}

/* ---- configuration ---- */

/* Times in us; NLA_POLICY_MAX() only reaches 32767 (the 6.1 policy
 * takes these by non-const pointer)
 */
static struct netlink_range_validation sqr_time = {
	.max = SQR_MAX_TIME,
};

static struct netlink_range_validation sqr_long_time = {
	.max = 10 * SQR_MAX_TIME,
};

static struct netlink_range_validation sqr_poll_time = {
	.min = 10,	/* a shorter poll only burns the CPU */
	.max = SQR_MAX_TIME,
};

static struct netlink_range_validation sqr_max_hold_time = {
	.min = 100,
	.max = 10 * SQR_MAX_TIME,
};

static struct netlink_range_validation sqr_ring_pkts = {
	.min = 1,
	.max = 1000000,
};

static struct netlink_range_validation sqr_ring_bytes = {
	.min = SQR_MIN_RING_BYTES,
	.max = SQR_MAX_RING_BYTES,
};

static struct netlink_range_validation sqr_copy_max = {
	.max = SQR_MAX_COPY_MAX,
};

static struct netlink_range_validation sqr_hb_miss = {
	.min = 1,
	.max = SQR_MAX_HB_MISS,
};

static const struct nla_policy sqr_policy[TCA_SQR_MAX + 1] = {
	[TCA_SQR_HOLD]		= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_RING_BYTES]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_ring_bytes),
	[TCA_SQR_RING_PKTS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_ring_pkts),
	[TCA_SQR_BACKUP]	= { .type = NLA_U32 },
	[TCA_SQR_BACKUP_DMAC]	= NLA_POLICY_ETH_ADDR,
	[TCA_SQR_RECONF]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_RELEASE]	= NLA_POLICY_MAX(NLA_U8, __SQR_RELEASE_MAX - 1),
	[TCA_SQR_MAX_HOLD]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_max_hold_time),
	[TCA_SQR_FAILBACK]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_DIVERT]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_SQR_DETECT]	= NLA_POLICY_MASK(NLA_U32, SQR_DETECT_MASK),
	[TCA_SQR_POLL]		= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_poll_time),
	[TCA_SQR_DEDUP_GUARD]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_MATCH]		= NLA_POLICY_MASK(NLA_U32, SQR_MATCH_MASK),
	[TCA_SQR_DSCP]		= NLA_POLICY_MAX(NLA_U8, 63),
	[TCA_SQR_DSCP_MASK]	= NLA_POLICY_RANGE(NLA_U8, 1, 63),
	[TCA_SQR_PROTO]		= { .type = NLA_U8 },
	[TCA_SQR_PORT_MIN]	= { .type = NLA_U16 },
	[TCA_SQR_PORT_MAX]	= { .type = NLA_U16 },
	[TCA_SQR_MARK]		= { .type = NLA_U32 },
	[TCA_SQR_MARK_MASK]	= NLA_POLICY_MIN(NLA_U32, 1),
	[TCA_SQR_FORCE]		= NLA_POLICY_RANGE(NLA_U8, 1, __SQR_FORCE_MAX - 1),
	[TCA_SQR_FAULT_LEN]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_FAULT_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_long_time),
	[TCA_SQR_FAULT_DETECT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_FAULT_COUNT]	= { .type = NLA_U32 },
	[TCA_SQR_FAULT_OFFSET]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_long_time),
	[TCA_SQR_COPY_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_copy_max),
	[TCA_SQR_HB_INTERVAL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_time),
	[TCA_SQR_HB_MISS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &sqr_hb_miss),
};

static void sqr_settings_default(struct sqr_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->hold_ns = SQR_DEF_HOLD * NSEC_PER_USEC;
	s->poll_ns = SQR_DEF_POLL * NSEC_PER_USEC;
	s->guard_ns = SQR_DEF_DEDUP_GUARD * NSEC_PER_USEC;
	s->ring_bytes = SQR_DEF_RING_BYTES;
	s->ring_pkts = SQR_DEF_RING_PKTS;
	s->copy_max = SQR_DEF_COPY_MAX;
	s->hb_miss = SQR_DEF_HB_MISS;
	s->detect = SQR_DETECT_CARRIER | SQR_DETECT_NOTIFIER;
	s->divert = 1;
	s->match.dscp_mask = 0x3f;
	s->match.mark_mask = ~0U;
	s->match.port_hi = 0xffff;
	s->fsm.max_hold_ns = (u64)SQR_DEF_MAX_HOLD * NSEC_PER_USEC;
	s->fsm.release = SQR_RELEASE_TIMER;
	s->fsm.same_port = true;
}

static u64 sqr_us(struct nlattr *a)
{
	return (u64)nla_get_u32(a) * NSEC_PER_USEC;
}

static void sqr_parse_match(struct sqr_match *m, struct nlattr **tb)
{
	if (tb[TCA_SQR_MATCH])
		m->flags = nla_get_u32(tb[TCA_SQR_MATCH]);
	if (tb[TCA_SQR_DSCP]) {
		m->dscp_val = nla_get_u8(tb[TCA_SQR_DSCP]);
		m->flags |= SQR_MATCH_DSCP;
	}
	if (tb[TCA_SQR_DSCP_MASK])
		m->dscp_mask = nla_get_u8(tb[TCA_SQR_DSCP_MASK]);
	if (tb[TCA_SQR_PROTO]) {
		m->proto = nla_get_u8(tb[TCA_SQR_PROTO]);
		m->flags |= SQR_MATCH_PROTO;
	}
	if (tb[TCA_SQR_PORT_MIN]) {
		m->port_lo = nla_get_u16(tb[TCA_SQR_PORT_MIN]);
		m->flags |= SQR_MATCH_PORTS;
	}
	if (tb[TCA_SQR_PORT_MAX]) {
		m->port_hi = nla_get_u16(tb[TCA_SQR_PORT_MAX]);
		m->flags |= SQR_MATCH_PORTS;
	}
	if (tb[TCA_SQR_MARK]) {
		m->mark_val = nla_get_u32(tb[TCA_SQR_MARK]);
		m->flags |= SQR_MATCH_MARK;
	}
	if (tb[TCA_SQR_MARK_MASK])
		m->mark_mask = nla_get_u32(tb[TCA_SQR_MARK_MASK]);
}

static void sqr_parse_fault(struct sqr_fault_cfg *f, struct nlattr **tb)
{
	if (tb[TCA_SQR_FAULT_LEN])
		f->len_ns = sqr_us(tb[TCA_SQR_FAULT_LEN]);
	if (tb[TCA_SQR_FAULT_PERIOD])
		f->period_ns = sqr_us(tb[TCA_SQR_FAULT_PERIOD]);
	if (tb[TCA_SQR_FAULT_DETECT])
		f->detect_ns = sqr_us(tb[TCA_SQR_FAULT_DETECT]);
	if (tb[TCA_SQR_FAULT_COUNT])
		f->count = nla_get_u32(tb[TCA_SQR_FAULT_COUNT]);
	if (tb[TCA_SQR_FAULT_OFFSET])
		f->offset_ns = sqr_us(tb[TCA_SQR_FAULT_OFFSET]);
}

/* Apply @tb on top of @s and check the whole; a message names the fault */
static int sqr_settings_parse(struct sqr_settings *s, struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	if (tb[TCA_SQR_HOLD])
		s->hold_ns = sqr_us(tb[TCA_SQR_HOLD]);
	if (tb[TCA_SQR_RING_BYTES])
		s->ring_bytes = nla_get_u32(tb[TCA_SQR_RING_BYTES]);
	if (tb[TCA_SQR_RING_PKTS])
		s->ring_pkts = nla_get_u32(tb[TCA_SQR_RING_PKTS]);
	if (tb[TCA_SQR_COPY_MAX])
		s->copy_max = nla_get_u32(tb[TCA_SQR_COPY_MAX]);
	if (tb[TCA_SQR_HB_INTERVAL])
		s->hb_ns = sqr_us(tb[TCA_SQR_HB_INTERVAL]);
	if (tb[TCA_SQR_HB_MISS])
		s->hb_miss = nla_get_u32(tb[TCA_SQR_HB_MISS]);
	if (tb[TCA_SQR_BACKUP])
		s->backup_ifindex = nla_get_u32(tb[TCA_SQR_BACKUP]);
	if (tb[TCA_SQR_BACKUP_DMAC])
		nla_memcpy(s->dmac, tb[TCA_SQR_BACKUP_DMAC], ETH_ALEN);
	if (tb[TCA_SQR_RECONF])
		s->fsm.reconf_ns = sqr_us(tb[TCA_SQR_RECONF]);
	if (tb[TCA_SQR_RELEASE])
		s->fsm.release = nla_get_u8(tb[TCA_SQR_RELEASE]);
	if (tb[TCA_SQR_MAX_HOLD])
		s->fsm.max_hold_ns = sqr_us(tb[TCA_SQR_MAX_HOLD]);
	if (tb[TCA_SQR_FAILBACK])
		s->fsm.failback_ns = sqr_us(tb[TCA_SQR_FAILBACK]);
	if (tb[TCA_SQR_DIVERT])
		s->divert = nla_get_u8(tb[TCA_SQR_DIVERT]);
	if (tb[TCA_SQR_DETECT])
		s->detect = nla_get_u32(tb[TCA_SQR_DETECT]);
	if (tb[TCA_SQR_POLL])
		s->poll_ns = sqr_us(tb[TCA_SQR_POLL]);
	if (tb[TCA_SQR_DEDUP_GUARD])
		s->guard_ns = sqr_us(tb[TCA_SQR_DEDUP_GUARD]);
	sqr_parse_match(&s->match, tb);
	sqr_parse_fault(&s->fault, tb);
	s->fsm.same_port = !s->backup_ifindex;

	if (ALIGN(s->copy_max, 8) + sizeof(struct sqr_rec) > s->ring_bytes) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_COPY_MAX] ?:
				    tb[TCA_SQR_RING_BYTES],
				    "sqr: ring_bytes must hold a copy of copy_max bytes and its record");
		return -EINVAL;
	}
	if (s->match.port_lo > s->match.port_hi) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_PORT_MIN] ?:
				    tb[TCA_SQR_PORT_MAX],
				    "sqr: port_min must not exceed port_max");
		return -EINVAL;
	}
	if (s->match.dscp_val & ~s->match.dscp_mask) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_DSCP] ?:
				    tb[TCA_SQR_DSCP_MASK],
				    "sqr: dscp has bits outside dscp_mask");
		return -EINVAL;
	}
	if (s->match.mark_val & ~s->match.mark_mask) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_MARK] ?:
				    tb[TCA_SQR_MARK_MASK],
				    "sqr: mark has bits outside mark_mask");
		return -EINVAL;
	}
	/* A detector slower than hold is allowed (memory may bound hold
	 * below it), with a warning: what expires before a detection is
	 * not resent, and window_lost counts it.
	 */
	if ((s->detect & SQR_DETECT_CARRIER) && s->hold_ns &&
	    s->poll_ns >= s->hold_ns)
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_POLL] ?: tb[TCA_SQR_HOLD],
				    "sqr: poll not shorter than hold: an idle port's failure may be found after the copies are gone (window_lost counts them)");
	if (s->hb_ns && s->hb_ns < 10 * NSEC_PER_USEC) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_HB_INTERVAL],
				    "sqr: a heartbeat interval below 10us only burns the CPU");
		return -EINVAL;
	}
	/* the probe after the last one missed finds the failure */
	if (s->hb_ns && s->hold_ns &&
	    (s->hb_miss + 1) * s->hb_ns >= s->hold_ns)
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_HB_INTERVAL] ?:
				    tb[TCA_SQR_HB_MISS] ?: tb[TCA_SQR_HOLD],
				    "sqr: (hb_miss + 1) x heartbeat not shorter than hold: a gray failure is found after the copies are gone (window_lost counts them)");
	if (s->fsm.release == SQR_RELEASE_TIMER &&
	    s->fsm.reconf_ns >= s->fsm.max_hold_ns) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_RECONF] ?:
				    tb[TCA_SQR_MAX_HOLD],
				    "sqr: reconf must be shorter than max_hold, or the held packets are given up before their release");
		return -EINVAL;
	}
	if (s->backup_ifindex && !is_valid_ether_addr(s->dmac)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_BACKUP_DMAC] ?:
				    tb[TCA_SQR_BACKUP],
				    "sqr: a backup device needs dmac, the next hop's unicast address there");
		return -EINVAL;
	}
	if (s->fault.len_ns && s->fault.period_ns &&
	    s->fault.period_ns <= s->fault.len_ns) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_FAULT_PERIOD] ?:
				    tb[TCA_SQR_FAULT_LEN],
				    "sqr: fault_period must be longer than fault_len");
		return -EINVAL;
	}
	return 0;
}

/* The backup device of @s in *@devp (no reference taken: RTNL is held),
 * or NULL for the same port
 */
static int sqr_backup_get(struct Qdisc *sch, const struct sqr_settings *s,
			  struct nlattr **tb, struct net_device **devp,
			  struct netlink_ext_ack *extack)
{
	struct net_device *me = qdisc_dev(sch), *dev;

	*devp = NULL;
	if (!s->backup_ifindex)
		return 0;
	dev = __dev_get_by_index(dev_net(me), s->backup_ifindex);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_BACKUP],
				    "sqr: no backup device with that index in this netns");
		return -ENODEV;
	}
	if (dev == me) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_BACKUP],
				    "sqr: the backup must be another device (omit it for the same port)");
		return -EINVAL;
	}
	if (dev->type != ARPHRD_ETHER || me->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_BACKUP],
				    "sqr: a backup device is for Ethernet ports only");
		return -EINVAL;
	}
	/* what a VLAN or a bond over this port sends comes back here */
	if (netdev_has_upper_dev(me, dev)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_BACKUP],
				    "sqr: the backup is stacked on this port (a VLAN, bond or bridge over it) and would loop");
		return -EINVAL;
	}
	*devp = dev;
	return 0;
}

static int sqr_configure(struct Qdisc *sch, struct nlattr *opt, bool init,
			 struct netlink_ext_ack *extack)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_SQR_MAX + 1];
	struct net_device *backup = NULL;
	struct sqr_settings s = q->set;
	u8 *buf = NULL, *old = NULL;
	bool fault_changed, hb_changed;
	u32 buf_size;
	u8 force = 0;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_SQR_MAX, opt, sqr_policy,
				       extack);
		if (err < 0)
			return err;
	} else {
		memset(tb, 0, sizeof(tb));
	}
	err = sqr_settings_parse(&s, tb, extack);
	if (err)
		return err;
	/* only a new backup is looked up: the old one may be gone, and its
	 * index taken by another device since
	 */
	if (tb[TCA_SQR_BACKUP]) {
		err = sqr_backup_get(sch, &s, tb, &backup, extack);
		if (err)
			return err;
	}
	if (s.hb_ns && qdisc_dev(sch)->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_HB_INTERVAL],
				    "sqr: heartbeats are for Ethernet ports only");
		return -EINVAL;
	}
	hb_changed = tb[TCA_SQR_HB_INTERVAL] || tb[TCA_SQR_HB_MISS];
	if (tb[TCA_SQR_FORCE])
		force = nla_get_u8(tb[TCA_SQR_FORCE]);
	fault_changed = tb[TCA_SQR_FAULT_LEN] || tb[TCA_SQR_FAULT_PERIOD] ||
			tb[TCA_SQR_FAULT_DETECT] || tb[TCA_SQR_FAULT_COUNT] ||
			tb[TCA_SQR_FAULT_OFFSET];
	/* the copy buffer, allocated here where we may sleep; none is kept
	 * without copies
	 */
	buf_size = s.hold_ns ? s.ring_bytes : 0;
	if (buf_size && buf_size != q->ring.size) {
		buf = kvmalloc(buf_size, SHOAL_QDISC_GFP);
		if (!buf) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SQR_RING_BYTES],
					    "sqr: no memory for a copy buffer of ring_bytes");
			return -ENOMEM;
		}
		atomic_long_inc(&sqr_buffers);
	}

	spin_lock_bh(qdisc_lock(sch));
	if (tb[TCA_SQR_BACKUP] && backup != q->backup) {
		/* a timer sending to the old one holds a reference of its own */
		if (q->backup)
			netdev_put(q->backup, &q->backup_tracker);
		if (backup)
			netdev_hold(backup, &q->backup_tracker, GFP_ATOMIC);
		q->backup = backup;
	}
	q->set = s;
	if (buf_size != q->ring.size) {
		/* committed copies wait as packets, the rest move */
		sqr_uncommit_all(q);
		old = sqr_ring_move(q, buf, buf_size);
	}
	if (hb_changed)
		sqr_hb_restart(q);
	if (fault_changed)
		sqr_fault_restart(q);
	if (force == SQR_FORCE_DOWN) {
		q->forced_down = true;
		sqr_fail(sch, ktime_get_ns(), SQR_BY_VERDICT, 0, 0, NULL);
	} else if (force == SQR_FORCE_UP) {
		q->forced_down = false;
	}
	if (!init)
		sqr_arm_at(q, ktime_get_ns());	/* reconsider everything now */
	spin_unlock_bh(qdisc_lock(sch));
	if (old) {
		kvfree(old);
		atomic_long_dec(&sqr_buffers);
	}
	return 0;
}

static int sqr_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct Qdisc *child;
	int err;

	q->sch = sch;
	q->hb_id = get_random_u32();
	__skb_queue_head_init(&q->failq);
	INIT_LIST_HEAD(&q->node);
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	q->timer.function = sqr_timer_fn;
	q->child = &noop_qdisc;
	sqr_settings_default(&q->set);

	if (sch->parent != TC_H_ROOT) {
		NL_SET_ERR_MSG(extack,
			       "sqr must be the root qdisc: it sends held packets while the port is detached, which a parent would not see");
		return -EOPNOTSUPP;
	}
	err = sqr_configure(sch, opt, true, extack);
	if (err)
		return err;
	child = fifo_create_dflt(sch, &pfifo_qdisc_ops,
				 max_t(u32, qdisc_dev(sch)->tx_queue_len, 1),
				 extack);
	if (IS_ERR(child))
		return PTR_ERR(child);
	q->child = child;
	qdisc_hash_add(child, true);
	err = sqr_guard_add(sch, extack);
	if (err)
		return err;
	mutex_lock(&sqr_list_lock);
	list_add(&q->node, &sqr_instances);
	mutex_unlock(&sqr_list_lock);
	spin_lock_bh(qdisc_lock(sch));
	sqr_arm_at(q, ktime_get_ns());	/* a device already down, the injector */
	spin_unlock_bh(qdisc_lock(sch));
	return 0;
}

static int sqr_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	return sqr_configure(sch, opt, false, extack);
}

/* Also after a failed init: the core calls destroy then */
static void sqr_destroy(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	sqr_guard_del(sch);
	mutex_lock(&sqr_list_lock);
	list_del_init(&q->node);
	mutex_unlock(&sqr_list_lock);
	hrtimer_cancel(&q->timer);
	sqr_ring_trim(q, 0);
	if (q->buf) {
		kvfree(q->buf);
		atomic_long_dec(&sqr_buffers);
	}
	sqr_free_held(&q->failq);
	qdisc_put(q->child);
	if (q->backup)
		netdev_put(q->backup, &q->backup_tracker);
	q->backup = NULL;
}

/* ---- dump ---- */

static int sqr_put_us(struct sk_buff *skb, int type, u64 ns)
{
	return nla_put_u32(skb, type, div_u64(ns, NSEC_PER_USEC));
}

static int sqr_dump_match(struct sk_buff *skb, const struct sqr_match *m)
{
	if (nla_put_u32(skb, TCA_SQR_MATCH, m->flags))
		return -EMSGSIZE;
	if ((m->flags & SQR_MATCH_DSCP) &&
	    (nla_put_u8(skb, TCA_SQR_DSCP, m->dscp_val) ||
	     nla_put_u8(skb, TCA_SQR_DSCP_MASK, m->dscp_mask)))
		return -EMSGSIZE;
	if ((m->flags & SQR_MATCH_PROTO) &&
	    nla_put_u8(skb, TCA_SQR_PROTO, m->proto))
		return -EMSGSIZE;
	if ((m->flags & SQR_MATCH_PORTS) &&
	    (nla_put_u16(skb, TCA_SQR_PORT_MIN, m->port_lo) ||
	     nla_put_u16(skb, TCA_SQR_PORT_MAX, m->port_hi)))
		return -EMSGSIZE;
	if ((m->flags & SQR_MATCH_MARK) &&
	    (nla_put_u32(skb, TCA_SQR_MARK, m->mark_val) ||
	     nla_put_u32(skb, TCA_SQR_MARK_MASK, m->mark_mask)))
		return -EMSGSIZE;
	return 0;
}

static int sqr_dump_fault(struct sk_buff *skb, const struct sqr_fault_cfg *f)
{
	if (sqr_put_us(skb, TCA_SQR_FAULT_LEN, f->len_ns))
		return -EMSGSIZE;
	if (!f->len_ns)
		return 0;
	if (sqr_put_us(skb, TCA_SQR_FAULT_PERIOD, f->period_ns) ||
	    sqr_put_us(skb, TCA_SQR_FAULT_DETECT, f->detect_ns) ||
	    nla_put_u32(skb, TCA_SQR_FAULT_COUNT, f->count) ||
	    sqr_put_us(skb, TCA_SQR_FAULT_OFFSET, f->offset_ns))
		return -EMSGSIZE;
	return 0;
}

static int sqr_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	const struct sqr_settings *s = &q->set;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (sqr_put_us(skb, TCA_SQR_HOLD, s->hold_ns) ||
	    nla_put_u32(skb, TCA_SQR_RING_BYTES, s->ring_bytes) ||
	    nla_put_u32(skb, TCA_SQR_RING_PKTS, s->ring_pkts) ||
	    nla_put_u32(skb, TCA_SQR_COPY_MAX, s->copy_max) ||
	    sqr_put_us(skb, TCA_SQR_HB_INTERVAL, s->hb_ns) ||
	    nla_put_u32(skb, TCA_SQR_HB_MISS, s->hb_miss) ||
	    nla_put_u32(skb, TCA_SQR_BACKUP, s->backup_ifindex) ||
	    (s->backup_ifindex &&
	     nla_put(skb, TCA_SQR_BACKUP_DMAC, ETH_ALEN, s->dmac)) ||
	    sqr_put_us(skb, TCA_SQR_RECONF, s->fsm.reconf_ns) ||
	    nla_put_u8(skb, TCA_SQR_RELEASE, s->fsm.release) ||
	    sqr_put_us(skb, TCA_SQR_MAX_HOLD, s->fsm.max_hold_ns) ||
	    sqr_put_us(skb, TCA_SQR_FAILBACK, s->fsm.failback_ns) ||
	    nla_put_u8(skb, TCA_SQR_DIVERT, s->divert) ||
	    nla_put_u32(skb, TCA_SQR_DETECT, s->detect) ||
	    sqr_put_us(skb, TCA_SQR_POLL, s->poll_ns) ||
	    sqr_put_us(skb, TCA_SQR_DEDUP_GUARD, s->guard_ns) ||
	    sqr_dump_match(skb, &s->match) ||
	    sqr_dump_fault(skb, &s->fault))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int sqr_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct tc_sqr_xstats st;

	spin_lock_bh(qdisc_lock(sch));
	st = q->st;
	/* what the ring holds is committed all or none */
	st.ring_pkts = q->committed ? 0 : q->ring.count;
	st.ring_bytes = q->committed ? 0 : q->ring_bytes;
	st.failq_pkts = q->committed + skb_queue_len(&q->failq);
	st.state = q->fsm.state;
	st.backup_ok = sqr_backup_ok(q);
	spin_unlock_bh(qdisc_lock(sch));
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- the one class, 1:1, holding the child (as tbf and netem do) ---- */

static int sqr_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
		     struct Qdisc **old, struct netlink_ext_ack *extack)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (!new)
		new = &noop_qdisc;
	*old = qdisc_replace(sch, new, &q->child);
	return 0;
}

static struct Qdisc *sqr_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	return q->child;
}

static unsigned long sqr_find(struct Qdisc *sch, u32 classid)
{
	return 1;
}

static int sqr_dump_class(struct Qdisc *sch, unsigned long cl,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	tcm->tcm_handle |= TC_H_MIN(1);
	tcm->tcm_info = q->child->handle;
	return 0;
}

static void sqr_walk(struct Qdisc *sch, struct qdisc_walker *walker)
{
	if (walker->stop)
		return;
	if (walker->count >= walker->skip && walker->fn(sch, 1, walker) < 0) {
		walker->stop = 1;
		return;
	}
	walker->count++;
}

static const struct Qdisc_class_ops sqr_class_ops = {
	.graft		= sqr_graft,
	.leaf		= sqr_leaf,
	.find		= sqr_find,
	.walk		= sqr_walk,
	.dump		= sqr_dump_class,
};

/* ---- device events ---- */

/* Under RTNL: the primary went down (sooner than a poll), or the backup
 * came up (a release may be due) or goes away (its reference is dropped:
 * the held packets then wait, up to max_hold, for a device to be set).
 */
static void sqr_dev_event(struct sqr_sched_data *q, struct net_device *dev,
			  unsigned long event)
{
	struct Qdisc *sch = q->sch;
	struct net_device *gone = NULL;

	spin_lock_bh(qdisc_lock(sch));
	if (dev == qdisc_dev(sch) && (q->set.detect & SQR_DETECT_NOTIFIER) &&
	    !sqr_dev_ok(dev))
		sqr_fail(sch, ktime_get_ns(), SQR_BY_LINK, 0, 0, NULL);
	if (dev == q->backup && event == NETDEV_UNREGISTER) {
		gone = dev;
		q->backup = NULL;
	}
	if (q->fsm.state != SQR_STATE_UP)
		sqr_arm_at(q, ktime_get_ns());
	spin_unlock_bh(qdisc_lock(sch));
	if (gone)
		netdev_put(gone, &q->backup_tracker);
}

static int sqr_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct sqr_sched_data *q;

	switch (event) {
	case NETDEV_GOING_DOWN:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_UP:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}
	if (event == NETDEV_UNREGISTER)
		sqr_guard_forget(dev);
	mutex_lock(&sqr_list_lock);
	list_for_each_entry(q, &sqr_instances, node)
		if (dev == qdisc_dev(q->sch) || dev == q->backup)
			sqr_dev_event(q, dev, event);
	mutex_unlock(&sqr_list_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sqr_notifier = {
	.notifier_call = sqr_netdev_event,
};

static struct Qdisc_ops sqr_qdisc_ops __read_mostly = {
	.id		= "sqr",
	.cl_ops		= &sqr_class_ops,
	.priv_size	= sizeof(struct sqr_sched_data),
	.enqueue	= sqr_enqueue,
	.dequeue	= sqr_dequeue,
	.peek		= sqr_peek,
	.init		= sqr_init,
	.reset		= sqr_reset,
	.destroy	= sqr_destroy,
	.change		= sqr_change,
	.dump		= sqr_dump,
	.dump_stats	= sqr_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init sqr_module_init(void)
{
	int err;

	/* the newest answered probe's send time outlives hb_miss probes */
	BUILD_BUG_ON(SQR_MAX_HB_MISS + 1 >= SQR_HB_SLOTS);
	sqr_guard_setup(&sqr_qdisc_ops);
	err = register_netdevice_notifier(&sqr_notifier);
	if (err)
		return err;
	err = register_qdisc(&sqr_qdisc_ops);
	if (err) {
		unregister_netdevice_notifier(&sqr_notifier);
		return err;
	}
	sqr_hb_listen(&sqr_qdisc_ops);
	return 0;
}

static void __exit sqr_module_exit(void)
{
	sqr_hb_unlisten();	/* waits for the handlers running */
	unregister_qdisc(&sqr_qdisc_ops);
	sqr_guard_forget_all();	/* while the notifier still sees ports go */
	unregister_netdevice_notifier(&sqr_notifier);
}

module_init(sqr_module_init);
module_exit(sqr_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SQR: in-network loss recovery from link failures");
