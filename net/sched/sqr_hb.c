// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr's heartbeat: a layer-2 probe on the primary every hb_interval,
 * answered by the peer's kernel, for the gray failures a carrier does not
 * show.  The timer (sch_sqr_main.c) asks sqr_hb_tick() whether a probe
 * is due, which also judges the probes so far and fails the link over
 * (sqr_fail() in sqr_ring.c) after hb_miss of them went unanswered; it
 * then sends the probe with sqr_hb_probe().  The packet handler for the
 * EtherType answers probes on any device and takes an echo to the sqr at
 * its root.  The frame and the verdict are in sqr_core.h.
 *
 * Locking: probes and echoes go out with dev_direct_xmit() (past the
 * qdiscs: it tests the link, not the queues) and no qdisc lock held.
 * sqr_hb_tick() runs under the instance's lock, in the timer's softirq;
 * sqr_hb_retry() takes it, from the timer with the lock dropped;
 * sqr_hb_probe() needs none (it reads hb_id, set once at init).  The
 * packet_type handler runs in the receive softirq: it answers probes
 * without any lock and takes an echo to the device's root qdisc under RCU
 * (qdiscs are freed after a grace period) and, if it is an sqr, under its
 * lock.  No transmit path calls it with that lock held:
 * sch_direct_xmit() drops the lock before the driver, and a driver's
 * receive side runs in its own softirq.  sqr_hb_restart() runs under the
 * lock from change (process context, BH off).  sqr_hb_ops is written once
 * before the handler is added and read by it after.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/skbuff.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "sch_sqr.h"

/* where probes go: the nearest-bridge group, never forwarded by a bridge */
static const u8 sqr_hb_group[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };

/* the ops of an sqr qdisc, to know one at a device's root */
static const struct Qdisc_ops *sqr_hb_ops;

static atomic_long_t sqr_hb_answered = ATOMIC_LONG_INIT(0);

module_param_cb(hb_answered, &sqr_count_ops, &sqr_hb_answered, 0444);
MODULE_PARM_DESC(hb_answered, "heartbeat probes of peers answered, all devices");

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
bool sqr_hb_tick(struct Qdisc *sch, u64 now, u32 *seq)
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

	if (!root || root->ops != sqr_hb_ops)
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

/* From the timer without the lock: send probe @seq that sqr_hb_tick()
 * numbered at @now, or take it back for another try
 */
void sqr_hb_probe(struct Qdisc *sch, u32 seq, u64 now)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct sqr_hb_msg m = { .type = SQR_HB_PROBE, .id = q->hb_id,
				.seq = seq, .tx_ns = now };

	if (!sqr_hb_send(qdisc_dev(sch), &m, sqr_hb_group))
		sqr_hb_retry(sch, seq, now);
}

/* Under the lock, from a change of hb_interval or hb_miss (q->set holds
 * the new ones): the heartbeat starts over, a probe at once; a link found
 * down stays down until an echo says otherwise
 */
void sqr_hb_restart(struct sqr_sched_data *q)
{
	q->hb.echoed = q->hb.sent;
	q->hb.down_at = q->hb.sent;
	q->hb.down = q->hb.down && q->set.hb_ns;
	q->hb_next = ktime_get_ns();
	if (!q->set.hb_ns) {
		/* turned on again, it knows nothing until answered */
		q->hb_good = 0;
		q->win_hb = (struct sqr_win){ 0 };
	}
}

/* From module init, once @ops is registered: answer and take heartbeats */
void sqr_hb_listen(const struct Qdisc_ops *ops)
{
	sqr_hb_ops = ops;
	dev_add_pack(&sqr_hb_ptype);
}

void sqr_hb_unlisten(void)
{
	dev_remove_pack(&sqr_hb_ptype);	/* waits for the handlers running */
}
