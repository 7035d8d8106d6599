/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GSO segmentation on enqueue, shared by the Shoal qdiscs (kernel only).
 *
 * A qdisc that decides per packet segments a GSO skb and enqueues every
 * segment on its own through @enqueue_one.  The parents counted one packet
 * of the GSO skb's length; the backlog is corrected for the segments that
 * were queued.
 */
#ifndef _SHOAL_GSO_H
#define _SHOAL_GSO_H

#include <linux/err.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>

typedef int (*shoal_enqueue_one_t)(struct sk_buff *skb, struct Qdisc *sch,
				   struct sk_buff **to_free);

/* Segment @skb and enqueue each segment with @enqueue_one.  @gso_split
 * counts the skbs segmented; @seg_err, if not NULL, counts the ones that
 * could not be (those are dropped).  Returns NET_XMIT_SUCCESS if any
 * segment was queued, else a drop code.
 */
static inline int shoal_gso_segment(struct sk_buff *skb, struct Qdisc *sch,
				    struct sk_buff **to_free,
				    shoal_enqueue_one_t enqueue_one,
				    u64 *gso_split, u64 *seg_err)
{
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0, seg_len;
	netdev_features_t features = netif_skb_features(skb);
	struct sk_buff *segs, *nskb;
	int ret, nb = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs)) {
		if (seg_err)
			(*seg_err)++;
		return qdisc_drop(skb, sch, to_free);
	}
	(*gso_split)++;
	skb_list_walk_safe(segs, segs, nskb) {
		skb_mark_not_on_list(segs);
		seg_len = segs->len;
		qdisc_skb_cb(segs)->pkt_len = seg_len;
		ret = enqueue_one(segs, sch, to_free);
		if (ret == NET_XMIT_SUCCESS) {
			nb++;
			len += seg_len;
		}
	}
	if (nb > 0) {
		/* the parents counted one packet of prev_len bytes */
		qdisc_tree_reduce_backlog(sch, 1 - nb, prev_len - len);
		consume_skb(skb);
		return NET_XMIT_SUCCESS;
	}
	kfree_skb(skb);
	return NET_XMIT_DROP;
}

#endif /* _SHOAL_GSO_H */
