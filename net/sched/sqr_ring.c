// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr's lower layer: what an instance holds and how it fails over.
 * The ring of copies (a record and the frame in the copy buffer, or a
 * clone), their expiry, the commit of the copies still held when the
 * link is found down, the fail queue behind them (the child's packets and
 * new ones, diverted), the release of both one packet at a time, and the
 * arming of the timer for whatever is due next.  The heartbeat, the guard
 * and the fault injector sit above this file and call into it; it calls
 * none of them, nor the qdisc at the top (sch_sqr_main.c).
 *
 * Locking: every function here runs under the instance's qdisc_lock(sch)
 * (sqr is the root, so that is its root lock), from the data path in BH
 * context, from the timer in softirq context, from the netfilter hook
 * with BH off, or from process context under RTNL with spin_lock_bh()
 * (change, device events).  The one exception is destroy, which empties
 * the ring and the fail queue under RTNL without the lock: by then the
 * timer is cancelled, the guard's hook is gone and synchronize_net() has
 * run, so nothing else can reach the instance.  None sleeps:
 * allocations are GFP_ATOMIC, and nothing is sent from here (the callers
 * send with the lock dropped).  The timer is armed with hrtimer_start(),
 * safe under the lock; timer_at, which shadows it, is under the lock.
 *
 * Objects: every packet held in a ring or a fail queue is counted in
 * sqr_held_pkts, exported read-only as
 * /sys/module/sch_sqr/parameters/held_pkts (the copy buffers are counted
 * in buffers, sch_sqr_main.c), so a test can see that none is leaked.
 */

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/dst_metadata.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <asm/unaligned.h>

#include "sch_sqr.h"
#include "sqr_trace.h"

#define SQR_PARSE_BYTES		128	/* headers the match looks at */
#define SQR_WORD_COPY_MAX	256	/* frames up to this copied by words */

/* per CPU, summed when read: no shared cache line on every copy (a
 * CPU's count goes negative when another frees what it held)
 */
static DEFINE_PER_CPU(long, sqr_held_pkts);

static int sqr_held_get(char *buf, const struct kernel_param *kp)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(sqr_held_pkts, cpu);
	return sysfs_emit(buf, "%ld\n", n);
}

static const struct kernel_param_ops sqr_held_ops = {
	.get = sqr_held_get,
};

module_param_cb(held_pkts, &sqr_held_ops, NULL, 0444);
MODULE_PARM_DESC(held_pkts, "packets held in rings and fail queues, all instances");

/* a read-only count of the module's, kept in the atomic_long_t @kp->arg */
static int sqr_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

const struct kernel_param_ops sqr_count_ops = {
	.get = sqr_count_get,
};

/* ---- the ring and the fail queue ---- */

static void sqr_hold(struct sk_buff_head *list, struct sk_buff *skb)
{
	__skb_queue_tail(list, skb);
	this_cpu_inc(sqr_held_pkts);
}

static struct sk_buff *sqr_unhold(struct sk_buff_head *list)
{
	struct sk_buff *skb = __skb_dequeue(list);

	if (skb)
		this_cpu_dec(sqr_held_pkts);
	return skb;
}

void sqr_free_held(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = sqr_unhold(list)))
		kfree_skb(skb);
}

/* Forget the oldest copy, @rec; its clone, if any, is the caller's */
static void sqr_ring_drop(struct sqr_sched_data *q, const struct sqr_rec *rec)
{
	q->ring_bytes -= rec->pkt_len;
	q->ring_mem -= rec->size + (rec->clone ? rec->clone->truesize : 0);
	sqr_buf_drop(&q->ring, rec->size);
	this_cpu_dec(sqr_held_pkts);
}

/* Drop the oldest copies until those left take @size bytes at most */
void sqr_ring_trim(struct sqr_sched_data *q, u32 size)
{
	struct sqr_rec *rec;

	while (q->ring.used > size && (rec = sqr_oldest(q))) {
		struct sk_buff *clone = rec->clone;

		if (rec->wire_lost)
			q->st.lost++;
		sqr_ring_drop(q, rec);
		kfree_skb(clone);
	}
}

/* Move the copies into @buf of @size (NULL and 0: none wanted any more),
 * the oldest dropped if they do not all fit; returns the old buffer
 */
u8 *sqr_ring_move(struct sqr_sched_data *q, u8 *buf, u32 size)
{
	u32 before = q->ring.count;
	struct sqr_rec *rec;
	struct sqr_buf to;
	u8 *old = q->buf;

	sqr_ring_trim(q, size);
	q->st.backstop += before - q->ring.count;
	/* in order from 0: what is left fits without a wrap */
	sqr_buf_init(&to, size);
	while ((rec = sqr_oldest(q))) {
		memcpy(buf + sqr_buf_take(&to, rec->size), rec, rec->size);
		sqr_buf_drop(&q->ring, rec->size);
	}
	q->ring = to;
	q->buf = buf;
	return old;
}

/* Free the copies whose hold is over.  Lazily: a late free only costs
 * memory, an early one could lose a packet.
 */
void sqr_expire(struct sqr_sched_data *q, u64 now)
{
	u64 good = sqr_link_good(q);
	struct sqr_rec *rec;

	while ((rec = sqr_oldest(q)) &&
	       sqr_expired(rec->tx_ns, q->set.hold_ns, now)) {
		struct sk_buff *clone = rec->clone;

		/* the injector lost its original and nobody noticed */
		if (rec->wire_lost)
			q->st.lost++;
		/* a failure not yet found may have lost it */
		sqr_win_expire(&q->win_link, good, q->set.guard_ns, rec->tx_ns);
		if (q->set.hb_ns)
			sqr_win_expire(&q->win_hb, q->hb_good, sqr_hb_guard(q),
				       rec->tx_ns);
		q->st.expired++;
		sqr_ring_drop(q, rec);
		if (clone)
			consume_skb(clone);
	}
}

static bool sqr_protects(const struct sqr_sched_data *q,
			 const struct sk_buff *skb)
{
	int off = skb_network_offset(skb);
	u8 buf[SQR_PARSE_BYTES];
	struct sqr_pkt pk;
	const u8 *p;
	u32 avail;

	if (off < 0 || skb->len <= off)
		return false;
	/* every IPv4 packet, the common case, needs no parse: IPv4 has no
	 * neighbour discovery to leave out (ARP is not IPv4)
	 */
	if (!q->set.match.flags && skb->protocol == htons(ETH_P_IP))
		return true;
	avail = min_t(u32, skb->len - off, SQR_PARSE_BYTES);
	p = skb_header_pointer(skb, off, avail, buf);
	if (!p)
		return false;
	sqr_parse(p, avail, skb->len - off, skb->mark, &pk);
	return sqr_protected(&q->set.match, &pk);
}

/* A copy in the buffer costs a write where the ring's head is: no skb to
 * allocate now, none to free at expiry, and the original's memory goes
 * back at once.  What it cannot carry a clone keeps: GSO, an offloaded
 * VLAN tag, tunnel offsets, a CRC offload, frames above copy_max, and
 * what the driver needs beside the frame (extensions such as an IPsec
 * offload's state, tunnel metadata, a TLS record to encrypt): a copy
 * without them could leave in the clear, or not at all.
 */
static bool sqr_copyable(struct sk_buff *skb, u32 copy_max)
{
	if (skb->len > copy_max || skb_is_gso(skb) ||
	    skb_vlan_tag_present(skb) || skb->encapsulation ||
	    skb->csum_not_inet || skb_has_extensions(skb) ||
	    skb_metadata_dst(skb))
		return false;
#if IS_ENABLED(CONFIG_TLS_DEVICE)
	if (skb->decrypted)
		return false;
#endif
	/* a checksum to finish must lie in the frame */
	return skb->ip_summed != CHECKSUM_PARTIAL ||
	       (skb_checksum_start_offset(skb) >= 0 &&
		skb_checksum_start_offset(skb) + skb->csum_offset + 2 <=
		skb->len);
}

/* A linear frame into its record.  A small one, where the packet rate
 * is highest, a word at a time, the last word overlapping the one before
 * it: the string instructions memcpy() uses have a start-up cost of their
 * own, and an emulating hypervisor (QEMU's TCG) runs them a byte a step.
 */
static void sqr_copy_frame(u8 *to, const u8 *from, u32 len)
{
	u32 i;

	if (len < sizeof(u64) || len > SQR_WORD_COPY_MAX) {
		memcpy(to, from, len);
		return;
	}
	for (i = 0; i + sizeof(u64) <= len; i += sizeof(u64))
		put_unaligned(get_unaligned((const u64 *)(from + i)),
			      (u64 *)(to + i));
	i = len - sizeof(u64);
	put_unaligned(get_unaligned((const u64 *)(from + i)), (u64 *)(to + i));
}

static void sqr_rec_fill(struct sqr_rec *rec, const struct sk_buff *skb)
{
	rec->len = skb->len;
	rec->protocol = skb->protocol;
	rec->mark = skb->mark;
	rec->priority = skb->priority;
	rec->queue_mapping = skb_get_queue_mapping(skb);
	rec->network_off = skb_network_offset(skb);	/* checked: >= 0 */
	rec->transport_off = SQR_NO_OFF;
	if (skb_transport_header_was_set(skb) &&
	    skb_transport_offset(skb) >= 0 &&
	    skb_transport_offset(skb) <= skb->len)
		rec->transport_off = skb_transport_offset(skb);
	rec->ip_summed = CHECKSUM_NONE;	/* the sums are in the frame */
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		rec->ip_summed = CHECKSUM_PARTIAL;
		rec->csum_start = skb_checksum_start_offset(skb);
		rec->csum_offset = skb->csum_offset;
	}
	if (!skb->data_len)
		sqr_copy_frame((u8 *)(rec + 1), skb->data, skb->len);
	else
		skb_copy_bits(skb, 0, rec + 1, skb->len);
}

/* The packet to resend for the copy @rec: its clone, or the frame again */
static struct sk_buff *sqr_rec_skb(struct sqr_sched_data *q,
				   const struct sqr_rec *rec)
{
	struct sk_buff *skb;

	if (rec->clone)
		return rec->clone;
	skb = __netdev_alloc_skb(qdisc_dev(q->sch), rec->len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_put_data(skb, rec + 1, rec->len);
	qdisc_skb_cb(skb)->pkt_len = rec->pkt_len;
	skb->protocol = rec->protocol;
	skb->mark = rec->mark;
	skb->priority = rec->priority;
	skb_set_queue_mapping(skb, rec->queue_mapping);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, rec->network_off);
	skb_reset_mac_len(skb);
	if (rec->transport_off != SQR_NO_OFF)
		skb_set_transport_header(skb, rec->transport_off);
	if (rec->ip_summed == CHECKSUM_PARTIAL) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) + rec->csum_start;
		skb->csum_offset = rec->csum_offset;
	}
	return skb;
}

/* ---- what a failure holds: committed copies, then the fail queue ---- */

/* The oldest committed copy as a packet again, its record freed; NULL:
 * none left.  One at a time as they go out, not all at the failure: no
 * burst of atomic allocations under the lock, no memory held twice.
 */
static struct sk_buff *sqr_uncommit(struct sqr_sched_data *q)
{
	struct sqr_rec *rec;
	struct sk_buff *skb;

	while (q->committed) {
		rec = sqr_oldest(q);
		if (WARN_ON_ONCE(!rec)) {
			q->committed = 0;
			break;
		}
		skb = sqr_rec_skb(q, rec);
		sqr_ring_drop(q, rec);
		q->committed--;
		if (skb) {
			*sqr_cb(skb) = (struct sqr_cb){ .copy = 1 };
			return skb;
		}
		q->st.commit_nomem++;
	}
	return NULL;
}

/* The next held packet to go out */
struct sk_buff *sqr_release_one(struct sqr_sched_data *q)
{
	return sqr_uncommit(q) ?: sqr_unhold(&q->failq);
}

/* Every committed copy into the fail queue, ahead of what is there: for
 * what needs them as packets (peek, a ring about to be moved)
 */
void sqr_uncommit_all(struct sqr_sched_data *q)
{
	struct sk_buff_head copies;
	struct sk_buff *skb;

	__skb_queue_head_init(&copies);
	while ((skb = sqr_uncommit(q)))
		sqr_hold(&copies, skb);
	skb_queue_splice(&copies, &q->failq);
}

/* No way out in time: drop what is held */
void sqr_give_up(struct sqr_sched_data *q)
{
	struct sqr_rec *rec;

	q->st.gave_up += q->committed + skb_queue_len(&q->failq);
	for (; q->committed && (rec = sqr_oldest(q)); q->committed--) {
		struct sk_buff *clone = rec->clone;

		sqr_ring_drop(q, rec);
		kfree_skb(clone);
	}
	q->committed = 0;
	sqr_free_held(&q->failq);
}

/* Keep a copy of @skb, about to go out at @now, if it is protected;
 * returns it, or NULL
 */
struct sqr_rec *sqr_keep_copy(struct sqr_sched_data *q, struct sk_buff *skb,
			      u64 now)
{
	bool copy = sqr_copyable(skb, q->set.copy_max);
	u32 len = qdisc_pkt_len(skb), size, off;
	struct sk_buff *clone = NULL;
	struct sqr_rec *rec;

	if (!sqr_protects(q, skb)) {
		q->st.unprotected++;
		return NULL;
	}
	if (!sqr_ring_room(q->ring.count, q->ring_bytes, len,
			   q->set.ring_pkts, q->set.ring_bytes)) {
		q->st.backstop++;
		return NULL;
	}
	if (!copy) {
		clone = skb_clone(skb, GFP_ATOMIC);
		if (!clone) {
			q->st.clone_fail++;
			return NULL;
		}
	}
	size = sizeof(*rec) + (copy ? ALIGN(skb->len, 8) : 0);
	off = sqr_buf_take(&q->ring, size);
	if (off == SQR_BUF_FULL) {
		consume_skb(clone);
		q->st.backstop++;
		return NULL;
	}
	rec = (struct sqr_rec *)(q->buf + off);
	/* what a clone's record uses; sqr_rec_fill() sets the rest */
	rec->tx_ns = now;
	rec->clone = clone;
	rec->size = size;
	rec->pkt_len = len;
	rec->wire_lost = 0;
	if (copy)
		sqr_rec_fill(rec, skb);
	else
		q->st.cloned++;
	this_cpu_inc(sqr_held_pkts);
	q->ring_bytes += len;
	q->ring_mem += size + (clone ? clone->truesize : 0);
	q->st.cached++;
	q->st.cached_bytes += len;
	if (q->ring.count > q->st.ring_peak_pkts)
		q->st.ring_peak_pkts = q->ring.count;
	if (q->ring_bytes > q->st.ring_peak_bytes) {
		q->st.ring_peak_bytes = q->ring_bytes;
		q->st.ring_peak_mem = q->ring_mem;
	}
	return rec;
}

/* ---- arming the timer ---- */

/* Arm the timer for @at unless it fires earlier already */
void sqr_arm_at(struct sqr_sched_data *q, u64 at)
{
	if (q->timer_at && q->timer_at <= at)
		return;
	q->timer_at = at;
	hrtimer_start(&q->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/* When the timer must next read the carrier, U64_MAX: never.  While
 * copies are @held, by sqr_poll_due(): only our dequeue's reads count as
 * packets flowing, never the timer's own.  Failed, every poll for the way
 * back, unless device events tell it.
 */
static u64 sqr_poll_at(const struct sqr_sched_data *q, u64 now, bool held)
{
	bool up = q->fsm.state == SQR_STATE_UP;

	if (!(q->set.detect & SQR_DETECT_CARRIER) ||
	    (!held && (up || (q->set.detect & SQR_DETECT_NOTIFIER))))
		return U64_MAX;
	if (!up)
		return now + q->set.poll_ns;
	return sqr_poll_due(now, q->seen_up, q->set.poll_ns, q->set.hold_ns);
}

/* The earliest thing due after @now, U64_MAX: nothing.  The ring's head
 * to expire, the next carrier poll, the injector's next event, the next
 * probe, and @next from the state machine (a release, the end of
 * max_hold, fail-back).
 */
static u64 sqr_next_at(const struct sqr_sched_data *q, u64 now, u64 next)
{
	struct sqr_rec *head = q->committed ? NULL : sqr_oldest(q);
	u64 at = next ?: U64_MAX, t;

	/* copies expire at dequeue while packets flow; the timer only
	 * frees what is left when they stop
	 */
	if (head)
		at = min(at, sqr_expiry_due(head->tx_ns, q->set.hold_ns,
					    q->seen_up,
					    sqr_watch_ns(q->set.poll_ns,
							 q->set.hold_ns)));
	at = min(at, sqr_poll_at(q, now, head));
	if (q->set.fault.len_ns &&
	    sqr_fault_event(&q->set.fault, q->fault_start, q->fault_e, &t) <
	    SQR_F_SKIP)
		at = min(at, t);
	if (q->set.hb_ns)
		at = min(at, q->hb_next);
	return at;
}

/* Arm the timer for the earliest thing due, unless it fires earlier */
void sqr_arm(struct sqr_sched_data *q, u64 now, u64 next)
{
	u64 at = sqr_next_at(q, now, next);

	if (at != U64_MAX)
		sqr_arm_at(q, max(at, now));
}

/* Move the timer later, to the earliest thing due: only from a dequeue
 * while up, which has just done the timer's work (read the carrier,
 * expired copies).
 */
static void sqr_arm_later(struct sqr_sched_data *q, u64 now)
{
	u64 at = sqr_next_at(q, now, 0);

	if (at == U64_MAX || at <= q->timer_at)
		return;
	q->timer_at = at;
	hrtimer_start(&q->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/* From a dequeue that found the link up: the next poll (or expiry) must
 * come within its period, whatever the timer was armed for before, and a
 * timer about to fire is pushed out instead.
 */
void sqr_arm_busy(struct sqr_sched_data *q, u64 now)
{
	if (!q->timer_at ||
	    q->timer_at > min(sqr_poll_at(q, now, true),
			      now + q->set.hold_ns + q->set.hold_ns / 4))
		sqr_arm(q, now, 0);
	else if (sqr_timer_push(q->timer_at, now, q->set.poll_ns,
				q->set.hold_ns))
		sqr_arm_later(q, now);
}

/* ---- failure ---- */

/* Move what the child gives out behind the committed copies: it was
 * never sent, so it makes no duplicates.  A child that holds packets back
 * (a shaper) keeps them for the primary.
 */
static void sqr_divert_child(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	while ((skb = qdisc_dequeue_peeked(q->child))) {
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		*sqr_cb(skb) = (struct sqr_cb){ 0 };
		sqr_hold(&q->failq, skb);
	}
}

/* The link was found down at @now, @by whom; @onset is when it failed, 0
 * unknown, and copies sent more than @guard before it got through.
 * *@pending, if set, is a packet dequeued but not sent: it goes behind
 * the copies and before the child's packets, which are all newer.
 */
void sqr_fail(struct Qdisc *sch, u64 now, enum sqr_by by, u64 onset, u64 guard,
	      struct sk_buff **pending)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	u64 n_link, n_hb, late;
	struct sqr_rec *rec;

	if (!(sqr_fsm_down(&q->fsm, &q->set.fsm, now) & SQR_A_COMMIT))
		return;
	q->st.failures++;
	/* what expired since the detector last knew the link good; both
	 * windows start over
	 */
	n_link = sqr_win_detect(&q->win_link, sqr_link_good(q),
				q->set.guard_ns);
	n_hb = sqr_win_detect(&q->win_hb, q->hb_good, sqr_hb_guard(q));
	if (by == SQR_BY_LINK)
		q->st.window_lost += n_link;
	else if (by == SQR_BY_HB)
		q->st.window_lost += n_hb;
	late = onset && now >= onset ? now - onset : 0;
	if (onset && now >= onset) {
		q->st.detect_latency_last = late;
		q->st.detect_latency_max = max(q->st.detect_latency_max, late);
	}
	/* copies go out oldest first, so those to free are the oldest */
	while ((rec = sqr_oldest(q)) &&
	       !sqr_commit_copy(rec->tx_ns, onset, guard)) {
		struct sk_buff *clone = rec->clone;

		q->st.dup_avoided++;
		sqr_ring_drop(q, rec);
		consume_skb(clone);
	}
	/* the rest stay where they are until each goes out (UP took no
	 * copies behind them, nor takes any until they are gone)
	 */
	q->committed = q->ring.count;
	q->st.committed += q->committed;
	trace_sqr_failover(sch, by, q->committed, late);
	if (q->set.divert) {
		if (pending && *pending) {
			*sqr_cb(*pending) = (struct sqr_cb){ 0 };
			sqr_hold(&q->failq, *pending);
			*pending = NULL;
		}
		sqr_divert_child(sch);
	}
	sqr_arm(q, now, now);	/* the release may be due at once */
}

/* A new packet while failed, with divert: behind the held packets, so
 * that it never overtakes them.  False: the fail queue is full (counted),
 * the caller drops it.
 */
bool sqr_divert(struct sqr_sched_data *q, struct sk_buff *skb)
{
	/* the copies a ring may hold, and a device queue's worth */
	if (skb_queue_len(&q->failq) >= (u64)q->set.ring_pkts +
	    qdisc_dev(q->sch)->tx_queue_len) {
		q->st.failq_drops++;
		return false;
	}
	*sqr_cb(skb) = (struct sqr_cb){ 0 };
	sqr_hold(&q->failq, skb);
	if (sqr_releasing(q) && !sqr_release_here(q))
		sqr_arm_at(q, ktime_get_ns());	/* to the backup */
	return true;
}
