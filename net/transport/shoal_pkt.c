// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: building packets.  A packet is its Shoal header
 * (net/shoal/wire.h builds it) in an skb with room before it for UDP, IP
 * and the link; a payload, if any, is the caller's to add.  Control
 * packets (everything but DATA) carry no payload and are built here whole,
 * with where they go, onto a queue the caller sends once it drops its
 * lock (shoal_xmit_list() in shoal_udp.c).
 *
 * Locking: see shoal_impl.h.  Nothing here locks or keeps state: the
 * callers build into a queue of their own, under whatever lock guards
 * the state they read (a socket's, a pacer's, or none for a reply built
 * from the received packet alone), in any context but hard interrupts.
 */
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "shoal_impl.h"

/* Room before a packet's Shoal header for UDP, IP and the link */
#define SHOAL_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

/* A packet with header @p and room for @payload bytes, which the caller
 * adds with skb_put_data(); NULL without memory
 */
struct sk_buff *shoal_pkt_alloc(const struct shoal_wire_pkt *p, u32 payload,
				gfp_t gfp)
{
	struct sk_buff *skb;
	u8 hdr[SHOAL_HDR_MAX];
	u32 n;

	n = shoal_wire_build(hdr, p);
	skb = alloc_skb(SHOAL_HEADROOM + n + payload, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, SHOAL_HEADROOM);
	skb_put_data(skb, hdr, n);
	return skb;
}

/* Queue @skb, a packet of @type, on @q to go to @dst from @saddr (NULL:
 * the route chooses)
 */
void shoal_pkt_queue(struct sk_buff *skb, const struct shoal_addr *dst,
		     const struct in6_addr *saddr, u8 type,
		     struct sk_buff_head *q)
{
	SHOAL_TX_CB(skb)->dst = *dst;
	SHOAL_TX_CB(skb)->saddr = saddr ? *saddr : in6addr_any;
	SHOAL_TX_CB(skb)->type = type;
	__skb_queue_tail(q, skb);
}

/* The control packet @c, queued on @q; counted as dropped without memory */
void shoal_ctrl(struct shoal_net *sn, const struct shoal_ctrl *c,
		struct sk_buff_head *q)
{
	struct shoal_wire_pkt p = {
		.type = c->type,
		.flags = c->flags,
		.sport = c->sport,
		.dport = c->dst->port,
		.msg_id = c->id,
		.msg_len = c->msg_len,
		.offset = c->offset,
		.word = c->word,
	};
	struct sk_buff *skb = shoal_pkt_alloc(&p, 0, GFP_ATOMIC);

	if (!skb) {
		shoal_stat_inc(sn, SHOAL_STAT_TX_DROP_NOMEM);
		return;
	}
	shoal_pkt_queue(skb, c->dst, c->saddr, c->type, q);
}
