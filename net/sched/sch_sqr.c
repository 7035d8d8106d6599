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
 *
 * Heartbeats: the timer sends a probe on the primary every hb_interval,
 * with dev_direct_xmit() (past the qdiscs: it tests the link, not the
 * queues) and the lock dropped.  A packet_type handler for the EtherType,
 * in the receive softirq, answers probes on any device and takes an echo
 * to the device's root qdisc: under RCU (qdiscs are freed after a grace
 * period) and, if it is an sqr, under its lock.  No transmit path calls
 * it with that lock held: sch_direct_xmit() drops the lock before the
 * driver, and a driver's receive side runs in its own softirq.
 *
 * The guard: a netfilter egress hook on the port (registered in init,
 * removed in destroy, which then waits a grace period) runs in
 * __dev_queue_xmit(), BH off, before any qdisc.  It returns at once
 * unless linkwatch has the port detached with sqr asleep as its root;
 * then it takes the lock, as our enqueue would be taken, and holds the
 * packet.  dev_queue_xmit() on the port is never called under the lock.
 *
 * Objects: every packet held in a ring or a fail queue is counted in
 * sqr_held_pkts, and every copy buffer in sqr_buffers, exported read-only
 * as /sys/module/sch_sqr/parameters/held_pkts and buffers, so a test can
 * see that none is leaked.
 */

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/pkt_sched.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/dst.h>
#include <net/dst_metadata.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <asm/unaligned.h>
#include <linux/pkt_sched_shoal.h>

#include "sqr_core.h"

#define SQR_PARSE_BYTES		128	/* headers the match looks at */
#define SQR_WORD_COPY_MAX	256	/* frames up to this copied by words */
#define SQR_RELEASE_BATCH	256	/* held packets sent per timer run */

/* where probes go: the nearest-bridge group, never forwarded by a bridge */
static const u8 sqr_hb_group[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

static struct Qdisc_ops sqr_qdisc_ops;

struct sqr_settings {
	u64 hold_ns;		/* 0: no copies, a plain pass-through */
	u64 poll_ns;
	u64 guard_ns;
	u32 ring_bytes;
	u32 ring_pkts;
	u32 copy_max;
	u64 hb_ns;		/* heartbeat interval; 0: none */
	u32 hb_miss;
	u32 backup_ifindex;	/* 0: the same port */
	u32 detect;		/* SQR_DETECT_* */
	u8 dmac[ETH_ALEN];
	u8 divert;
	struct sqr_match match;
	struct sqr_fsm_cfg fsm;
	struct sqr_fault_cfg fault;	/* len_ns 0: injector off */
};

struct sqr_sched_data {
	struct sqr_settings set;
	struct Qdisc *sch;
	struct Qdisc *child;
	u8 *buf;			/* the copy buffer */
	struct sqr_buf ring;		/* the copies in it, oldest first */
	u32 committed;			/* 0, or all the ring: to resend */
	struct sk_buff_head failq;	/* diverted, behind those */
	u64 ring_bytes;			/* of the packets copied */
	u64 ring_mem;			/* records' size, clones' truesize */
	struct sqr_fsm fsm;
	struct net_device *backup;	/* NULL: same port, or it went away */
	netdevice_tracker backup_tracker;
	struct hrtimer timer;		/* expiry, poll, release, injector */
	u64 timer_at;			/* when it is armed for; 0: not */
	u64 seen_up;			/* the last dequeue found the link up */
	u64 poll_up;			/* ... and the timer's last read */
	struct sqr_win win_link;	/* copies expired since either */
	bool forced_down;		/* TCA_SQR_FORCE down in force */
	/* the fault injector */
	u64 fault_start;		/* the change that armed it */
	u64 fault_e;			/* next event, see sqr_fault_event() */
	u64 fault_onset;		/* start of the outage under way */
	bool fault_down;		/* ... and it has been detected */
	/* heartbeats */
	struct sqr_hb hb;		/* probes sent and answered */
	u32 hb_id;			/* ours, in every probe */
	u64 hb_next;			/* when the next probe is due */
	u64 hb_good;			/* the newest answered probe was sent */
	struct sqr_win win_hb;		/* copies expired since */
	struct list_head node;		/* in sqr_instances */
#if IS_ENABLED(CONFIG_NETFILTER_EGRESS)
	struct nf_hook_ops guard;	/* .hook NULL: not registered */
#endif
	struct tc_sqr_xstats st;
};

/* A copy in the ring: a record in the buffer with the frame after it, or
 * with a clone of the original for what a copy cannot carry
 */
struct sqr_rec {
	u64 tx_ns;		/* when the original was sent */
	struct sk_buff *clone;	/* NULL: the frame follows */
	u32 size;		/* bytes in the buffer, this header included */
	u32 pkt_len;		/* qdisc_pkt_len(), for the byte counts */
	u32 mark;
	u32 priority;
	u16 len;		/* the frame's bytes */
	__be16 protocol;
	u16 queue_mapping;
	u16 network_off;	/* offsets from the frame's start */
	u16 transport_off;	/* SQR_NO_OFF: not set */
	u16 csum_start;		/* CHECKSUM_PARTIAL: where the sum starts */
	u16 csum_offset;
	u8 ip_summed;		/* CHECKSUM_PARTIAL or CHECKSUM_NONE */
	u8 wire_lost;		/* the injector dropped its original */
};

#define SQR_NO_OFF	0xffff

/* What a held skb carries in its qdisc cb */
struct sqr_cb {
	u8 copy;		/* a copy, not a diverted original */
};

static struct sqr_cb *sqr_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct sqr_cb));
	return (struct sqr_cb *)qdisc_skb_cb(skb)->data;
}

/* per CPU, summed when read: no shared cache line on every copy (a
 * CPU's count goes negative when another frees what it held)
 */
static DEFINE_PER_CPU(long, sqr_held_pkts);
static atomic_long_t sqr_buffers = ATOMIC_LONG_INIT(0);
static atomic_long_t sqr_hb_answered = ATOMIC_LONG_INIT(0);
static LIST_HEAD(sqr_instances);
static DEFINE_MUTEX(sqr_list_lock);

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

static const struct kernel_param_ops sqr_count_ops = {
	.get = sqr_count_get,
};

module_param_cb(buffers, &sqr_count_ops, &sqr_buffers, 0444);
MODULE_PARM_DESC(buffers, "copy buffers allocated, all instances");
module_param_cb(hb_answered, &sqr_count_ops, &sqr_hb_answered, 0444);
MODULE_PARM_DESC(hb_answered, "heartbeat probes of peers answered, all devices");

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

static void sqr_free_held(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = sqr_unhold(list)))
		kfree_skb(skb);
}

static struct sqr_rec *sqr_oldest(const struct sqr_sched_data *q)
{
	return q->ring.count ? (struct sqr_rec *)(q->buf + q->ring.tail) : NULL;
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
static void sqr_ring_trim(struct sqr_sched_data *q, u32 size)
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
static u8 *sqr_ring_move(struct sqr_sched_data *q, u8 *buf, u32 size)
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

/* When the carrier was last read up, by a dequeue or the timer */
static u64 sqr_link_good(const struct sqr_sched_data *q)
{
	return max(q->seen_up, q->poll_up);
}

/* What left before the newest answered probe, less this, got through: a
 * probe skips the queues, and data still in another TX ring may cross
 * the link after it
 */
static u64 sqr_hb_guard(const struct sqr_sched_data *q)
{
	return q->set.guard_ns + q->set.hb_ns;
}

/* Free the copies whose hold is over.  Lazily: a late free only costs
 * memory, an early one could lose a packet.
 */
static void sqr_expire(struct sqr_sched_data *q, u64 now)
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

static bool sqr_held_empty(const struct sqr_sched_data *q)
{
	return !q->committed && skb_queue_empty(&q->failq);
}

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

/* A held packet's queue may be gone (ethtool -L since) */
static void sqr_cap_queue(struct net_device *dev, struct sk_buff *skb)
{
	skb_set_queue_mapping(skb, netdev_cap_txqueue(dev,
						      skb_get_queue_mapping(skb)));
}

/* The next held packet to go out */
static struct sk_buff *sqr_release_one(struct sqr_sched_data *q)
{
	return sqr_uncommit(q) ?: sqr_unhold(&q->failq);
}

/* Every committed copy into the fail queue, ahead of what is there: for
 * what needs them as packets (peek, a ring about to be moved)
 */
static void sqr_uncommit_all(struct sqr_sched_data *q)
{
	struct sk_buff_head copies;
	struct sk_buff *skb;

	__skb_queue_head_init(&copies);
	while ((skb = sqr_uncommit(q)))
		sqr_hold(&copies, skb);
	skb_queue_splice(&copies, &q->failq);
}

/* No way out in time: drop what is held */
static void sqr_give_up(struct sqr_sched_data *q)
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
static struct sqr_rec *sqr_keep_copy(struct sqr_sched_data *q,
				     struct sk_buff *skb, u64 now)
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

/* ---- link state ---- */

static bool sqr_dev_ok(const struct net_device *dev)
{
	return dev && netif_running(dev) && netif_carrier_ok(dev) &&
	       netif_device_present(dev);
}

static bool sqr_same_port(const struct sqr_sched_data *q)
{
	return !q->set.backup_ifindex;
}

static bool sqr_primary_ok(const struct sqr_sched_data *q)
{
	return !q->forced_down && !q->fault_down && !q->hb.down &&
	       sqr_dev_ok(qdisc_dev(q->sch));
}

/* Found down, by a verdict (forced, injected, heartbeat), which always
 * counts, or by the carrier, with detect carrier
 */
static bool sqr_primary_down(const struct sqr_sched_data *q)
{
	if (q->forced_down || q->fault_down || q->hb.down)
		return true;
	return (q->set.detect & SQR_DETECT_CARRIER) &&
	       !sqr_dev_ok(qdisc_dev(q->sch));
}

/* Who found a failure: the carrier or a device event, the heartbeat, or
 * a verdict that brings its own account (the injector counts its losses
 * exactly, an external detector knows its own bound)
 */
enum sqr_by {
	SQR_BY_LINK,
	SQR_BY_HB,
	SQR_BY_VERDICT,
};

/* Who found the primary down, sqr_primary_down() being true */
static enum sqr_by sqr_down_by(const struct sqr_sched_data *q)
{
	if (q->hb.down)
		return SQR_BY_HB;
	return q->forced_down || q->fault_down ? SQR_BY_VERDICT : SQR_BY_LINK;
}

static bool sqr_backup_ok(const struct sqr_sched_data *q)
{
	return sqr_same_port(q) ? sqr_primary_ok(q) : sqr_dev_ok(q->backup);
}

/* The fail queue leaves through our own dequeue, on the primary: for the
 * same port, and when the backup device is down or gone (the state
 * machine releases only once the primary is back then)
 */
static bool sqr_release_here(const struct sqr_sched_data *q)
{
	return sqr_same_port(q) || !sqr_dev_ok(q->backup);
}

/* Held packets may leave now (RELEASING or FAILBACK) */
static bool sqr_releasing(const struct sqr_sched_data *q)
{
	return q->fsm.state == SQR_STATE_RELEASING ||
	       q->fsm.state == SQR_STATE_FAILBACK;
}

/* ---- the timer ---- */

/* Arm the timer for @at unless it fires earlier already */
static void sqr_arm_at(struct sqr_sched_data *q, u64 at)
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
static void sqr_arm(struct sqr_sched_data *q, u64 now, u64 next)
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
static void sqr_arm_busy(struct sqr_sched_data *q, u64 now)
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
static void sqr_fail(struct Qdisc *sch, u64 now, enum sqr_by by, u64 onset,
		     u64 guard, struct sk_buff **pending)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct sqr_rec *rec;
	u64 n_link, n_hb;

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
	if (onset && now >= onset) {
		q->st.detect_latency_last = now - onset;
		q->st.detect_latency_max = max(q->st.detect_latency_max,
					       now - onset);
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

/* Run the injector's events due by @now, in order: from the timer, and
 * from dequeue, so that a detection is on time whenever packets flow
 * (timers on a busy host fire late); @pending as for sqr_fail()
 */
static void sqr_fault_run(struct Qdisc *sch, u64 now,
			  struct sk_buff **pending)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	enum sqr_fault_ev ev;
	u64 at;

	for (;;) {
		ev = sqr_fault_event(&q->set.fault, q->fault_start, q->fault_e,
				     &at);
		if (ev == SQR_F_NONE || (ev != SQR_F_SKIP && at > now))
			return;
		q->fault_e++;
		if (ev == SQR_F_ONSET) {
			q->fault_onset = at;
			q->st.fault_outages++;
		} else if (ev == SQR_F_DETECT) {
			q->fault_down = true;
			sqr_fail(sch, now, SQR_BY_VERDICT, q->fault_onset,
				 q->set.guard_ns, pending);
		} else if (ev == SQR_F_END) {
			q->fault_down = false;
		}
	}
}

/* ---- heartbeats ---- */

/* Send a probe or an echo @m on @dev to @dst, past the qdiscs; without
 * the lock: dev_direct_xmit() takes the device's.  False: it did not go.
 */
static bool sqr_hb_send(struct net_device *dev, const struct sqr_hb_msg *m,
			const u8 *dst)
{
	struct sk_buff *skb;
	struct ethhdr *eth;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + ETH_ZLEN + dev->needed_tailroom,
			GFP_ATOMIC);
	if (!skb)
		return false;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	eth = skb_put_zero(skb, ETH_ZLEN);
	ether_addr_copy(eth->h_dest, dst);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = htons(SQR_HB_ETHERTYPE);
	sqr_hb_write((u8 *)(eth + 1), m);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth->h_proto;
	skb->priority = TC_PRIO_CONTROL;
	skb->dev = dev;
	/* it frees the skb when the device cannot take it */
	return dev_direct_xmit(skb, 0) == NETDEV_TX_OK;
}

/* Under the lock, from the timer, when a probe is due at @now: the
 * verdict on the probes so far, then the next probe, numbered in *@seq;
 * false: none is due
 */
static bool sqr_hb_tick(struct Qdisc *sch, u64 now, u32 *seq)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (!q->set.hb_ns || now < q->hb_next)
		return false;
	if (sqr_hb_verdict(&q->hb, q->set.hb_miss) > 0) {
		/* in any state: a failure during fail-back counts too.  What
		 * left a heartbeat before the newest answered probe got
		 * through (see sqr_hb_guard()).  Its time is the newest
		 * really answered: a change that starts the count over
		 * answers none.
		 */
		q->st.hb_failures++;
		sqr_fail(sch, now, SQR_BY_HB, q->hb_good, sqr_hb_guard(q),
			 NULL);
	}
	q->hb_next = now + q->set.hb_ns;
	q->st.hb_sent++;
	*seq = sqr_hb_next(&q->hb, now);
	return true;
}

/* Probe @seq did not go (the device's queue was stopped): no miss, and
 * another try a quarter interval on
 */
static void sqr_hb_retry(struct Qdisc *sch, u32 seq, u64 now)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	spin_lock(qdisc_lock(sch));
	sqr_hb_unsend(&q->hb, seq);
	q->st.hb_sent--;
	q->st.hb_xmit_errors++;
	if (q->set.hb_ns) {
		q->hb_next = min(q->hb_next, now + q->set.hb_ns / 4);
		sqr_arm_at(q, q->hb_next);
	}
	spin_unlock(qdisc_lock(sch));
}

/* An echo on @dev: news for the sqr at its root, if the probe was its */
static void sqr_hb_echoed(struct net_device *dev, const struct sqr_hb_msg *m)
{
	struct Qdisc *root = rcu_dereference(dev->qdisc);
	struct sqr_sched_data *q;

	if (!root || root->ops != &sqr_qdisc_ops)
		return;
	q = qdisc_priv(root);
	spin_lock(qdisc_lock(root));
	if (q->set.hb_ns && m->id == q->hb_id && sqr_hb_echo(&q->hb, m->seq)) {
		q->st.hb_echoes++;
		q->hb_good = max(q->hb_good, sqr_hb_onset(&q->hb));
	}
	spin_unlock(qdisc_lock(root));
}

/* Every frame of the EtherType, on any device: answer a probe to the
 * group with an echo to its sender; take an echo to us to the qdisc that
 * sent the probe.  The link is the port it came in on: a bond or a
 * bridge over that port hands it over as its own.
 */
static int sqr_hb_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	struct net_device *link = dev;
	u8 buf[SQR_HB_LEN];
	struct sqr_hb_msg m;
	const u8 *p;

	if (netif_is_lag_master(dev) || netif_is_bridge_master(dev))
		link = orig_dev;
	p = skb_header_pointer(skb, 0, SQR_HB_LEN, buf);
	if (!p || !sqr_hb_read(p, SQR_HB_LEN, &m) ||
	    link->type != ARPHRD_ETHER || !skb_mac_header_was_set(skb))
		goto out;
	if (m.type == SQR_HB_PROBE) {
		/* never to a broadcast: one frame must not draw a crowd */
		if (ether_addr_equal(eth_hdr(skb)->h_dest, sqr_hb_group) &&
		    is_valid_ether_addr(eth_hdr(skb)->h_source)) {
			m.type = SQR_HB_ECHO;
			if (sqr_hb_send(link, &m, eth_hdr(skb)->h_source))
				atomic_long_inc(&sqr_hb_answered);
		}
	} else if (skb->pkt_type == PACKET_HOST) {
		sqr_hb_echoed(link, &m);
	}
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type sqr_hb_ptype __read_mostly = {
	.type	= cpu_to_be16(SQR_HB_ETHERTYPE),
	.func	= sqr_hb_rcv,
};

/* Count one held skb handed on: a committed copy or a diverted packet */
static void sqr_count_out(struct sqr_sched_data *q, const struct sk_buff *skb)
{
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

	if (probe_due) {
		struct sqr_hb_msg m = { .type = SQR_HB_PROBE, .id = q->hb_id,
					.seq = probe, .tx_ns = now };

		if (!sqr_hb_send(qdisc_dev(sch), &m, sqr_hb_group))
			sqr_hb_retry(sch, probe, now);
	}
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

/* A new packet while failed, with divert: behind the held packets, so
 * that it never overtakes them.  False: the fail queue is full (counted),
 * the caller drops it.
 */
static bool sqr_divert(struct sqr_sched_data *q, struct sk_buff *skb)
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

/* ---- the guard: packets routed to the detached port ---- */

#if IS_ENABLED(CONFIG_NETFILTER_EGRESS)
/* The port's netfilter egress hook, from __dev_queue_xmit() before the
 * qdisc, BH off, under RCU.  Linkwatch detaches the port on carrier loss
 * (noop_qdisc in our place) before the FIB hears of it: a packet routed
 * here meanwhile would be dropped before any qdisc saw it.  While sqr is
 * the detached root, it takes such a packet behind the held ones, as its
 * enqueue would on a failure.  Attached, or replaced by another qdisc,
 * the packet goes on to the qdisc in place.
 */
static unsigned int sqr_guard_hook(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct Qdisc *sch = priv;
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct netdev_queue *txq = netdev_get_tx_queue(qdisc_dev(sch), 0);
	unsigned int verdict = NF_ACCEPT;

	if (likely(rcu_access_pointer(txq->qdisc) != &noop_qdisc) ||
	    READ_ONCE(txq->qdisc_sleeping) != sch)
		return NF_ACCEPT;
	spin_lock(qdisc_lock(sch));
	if (q->set.hold_ns && q->set.divert) {
		/* before our own reset, the dequeue or the timer find it */
		if (q->fsm.state == SQR_STATE_UP && sqr_primary_down(q))
			sqr_fail(sch, ktime_get_ns(), sqr_down_by(q), 0, 0,
				 NULL);
		if (sqr_fsm_diverting(&q->fsm)) {
			if (sqr_divert(q, skb)) {
				q->st.guarded++;
				verdict = NF_STOLEN;
			} else {
				qdisc_qstats_drop(sch);
				verdict = NF_DROP;
			}
		}
	}
	spin_unlock(qdisc_lock(sch));
	return verdict;
}

/* Registering may sleep: from init, under RTNL */
static int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	int err;

	q->guard = (struct nf_hook_ops){
		.hook		= sqr_guard_hook,
		.priv		= sch,
		.dev		= dev,
		.pf		= NFPROTO_NETDEV,
		.hooknum	= NF_NETDEV_EGRESS,
		.priority	= INT_MAX,	/* after the user's filters */
	};
	err = nf_register_net_hook(dev_net(dev), &q->guard);
	if (err) {
		q->guard.hook = NULL;
		NL_SET_ERR_MSG(extack,
			       "sqr: cannot hook the port's egress to guard it while detached");
	}
	return err;
}

/* A hook running still may use the qdisc: wait for it, before the rest
 * of destroy frees what it uses
 */
static void sqr_guard_del(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (!q->guard.hook)
		return;
	nf_unregister_net_hook(dev_net(qdisc_dev(sch)), &q->guard);
	q->guard.hook = NULL;
	synchronize_net();
}
#else
static int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	return 0;	/* no egress hook in this kernel: documented */
}

static void sqr_guard_del(struct Qdisc *sch)
{
}
#endif

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
	/* by the clock, not by the timer: its events run late by up to
	 * a softirq's latency, the outage starts on time
	 */
	if (unlikely(q->set.fault.len_ns) &&
	    sqr_fault_blackout(&q->set.fault, q->fault_start, now)) {
		/* lost on the wire; a copy taken above will make up for it */
		if (copy)
			copy->wire_lost = 1;
		else
			q->st.lost++;
		q->st.fault_drops++;
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
		buf = kvmalloc(buf_size, GFP_KERNEL | __GFP_NOWARN);
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
	if (hb_changed) {
		/* the heartbeat starts over, a probe at once; a link found
		 * down stays down until an echo says otherwise
		 */
		q->hb.echoed = q->hb.sent;
		q->hb.down_at = q->hb.sent;
		q->hb.down = q->hb.down && s.hb_ns;
		q->hb_next = ktime_get_ns();
		if (!s.hb_ns) {
			/* turned on again, it knows nothing until answered */
			q->hb_good = 0;
			q->win_hb = (struct sqr_win){ 0 };
		}
	}
	if (fault_changed) {
		/* the injector starts over from this change */
		q->fault_start = ktime_get_ns();
		q->fault_e = 0;
		q->fault_down = false;
	}
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
	err = register_netdevice_notifier(&sqr_notifier);
	if (err)
		return err;
	err = register_qdisc(&sqr_qdisc_ops);
	if (err) {
		unregister_netdevice_notifier(&sqr_notifier);
		return err;
	}
	dev_add_pack(&sqr_hb_ptype);
	return 0;
}

static void __exit sqr_module_exit(void)
{
	dev_remove_pack(&sqr_hb_ptype);	/* waits for the handlers running */
	unregister_qdisc(&sqr_qdisc_ops);
	unregister_netdevice_notifier(&sqr_notifier);
}

module_init(sqr_module_init);
module_exit(sqr_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SQR: in-network loss recovery from link failures");
