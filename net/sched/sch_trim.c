// SPDX-License-Identifier: GPL-2.0
/*
 * sch_trim: packet trimming in place of tail drop.
 *
 * A small data queue; when it is full the payload of a packet is cut off
 * and its headers go to a priority header queue, so the receiver learns of
 * every packet sent to it (Popa et al., "Implementing packet trimming
 * support in hardware", and NDP).  Headers and data are scheduled by strict
 * priority, packet WRR or byte DRR; a full header queue drops the header or
 * returns it to its sender.  See Documentation/sch_trim.md.
 *
 * Locking: enqueue, dequeue, peek and reset run under the qdisc root lock,
 * in BH context (no sleeping, GFP_ATOMIC only).  init, change, dump and
 * destroy run under RTNL; change takes sch_tree_lock() to swap the
 * configuration and shrink the queues, so the fast path reads q->set.cfg and
 * the other settings without further locking.  Dump reads them under RTNL
 * only, which change also holds.  dump_stats is called without the root
 * lock on 6.1 (tc_fill_qdisc passes none), so it takes sch_tree_lock()
 * for a consistent snapshot of the counters.
 *
 * Accounting: sch->q.qlen is the sum of both queues and sch->qstats.backlog
 * their bytes.  A trim shrinks a packet a parent (tbf, htb) has already
 * counted at full length, so every trim reports the cut bytes upwards with
 * qdisc_tree_reduce_backlog(), and a packet bounced before it was queued is
 * reported as stolen.  Return to sender re-injects with netif_rx(), which
 * only queues to the per-CPU backlog; we never transmit under the lock.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_shoal.h>

#include "trim_core.h"
#include "shoal_gso.h"

#define CREATE_TRACE_POINTS
#include "trim_trace.h"

#define TRIM_MAX_LIMIT		1000000U
#define TRIM_MAX_WEIGHT		1000U

/* What a queued packet is; decides counters, ECN and tail trimming */
enum trim_kind {
	TRIM_K_DATA,	/* eligible data, may still be trimmed */
	TRIM_K_INELIG,	/* data never trimmed (tail drop) */
	TRIM_K_HDR,	/* trimmed here */
	TRIM_K_FWDHDR,	/* trimmed by an earlier hop */
	TRIM_K_CTRL,	/* control DSCP */
	TRIM_K_SMALL,	/* too short to trim, queued whole as a header */
};

struct trim_skb_cb {
	u64 enq_ns;
	u8 kind;
};

/* The whole configuration, so a change is checked before any of it lands */
struct trim_settings {
	struct trim_config cfg;
	u64 rate;		/* bytes per second, 0 = no own shaper */
	u32 ecn_thresh;
	u32 flags;
	u8 hdr_mode;
	u8 overflow;
};

struct trim_sched_data {
	struct trim_settings set;

	struct sk_buff_head dataq;
	struct sk_buff_head hdrq;
	u32 data_bytes;
	u32 hdr_bytes;
	u64 t_next;		/* own shaper: earliest next departure */
	struct trim_sched_state sst;
	struct qdisc_watchdog watchdog;
	struct tc_trim_xstats st;
};

enum trim_fate {
	TRIM_QUEUED,
	TRIM_DROPPED,
	TRIM_BOUNCED,
};

static struct trim_skb_cb *trim_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct trim_skb_cb));
	return (struct trim_skb_cb *)qdisc_skb_cb(skb)->data;
}

static bool trim_kind_is_hdr(u8 kind)
{
	return kind >= TRIM_K_HDR;
}

/* ---- packet parsing and surgery ---- */

/* Parse the headers of @skb into @pk; returns SHOAL_PKT_OK when they are
 * sound.  skb->data is at the MAC header here; the stack set the network
 * header offset.
 */
static enum shoal_pkt_res trim_skb_parse(const struct sk_buff *skb,
					 struct shoal_pkt_hdrs *pk)
{
	u8 buf[SHOAL_PKT_PARSE_LEN];
	enum shoal_pkt_res parsed;
	__be16 proto;
	const u8 *p;
	u32 avail;
	int nh;

	proto = skb_protocol(skb, true);
	if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6))
		return SHOAL_PKT_NONIP;
	nh = skb_network_offset(skb);
	if (nh < 0 || nh >= skb->len)
		return SHOAL_PKT_BAD;
	avail = min_t(u32, skb->len - nh, SHOAL_PKT_PARSE_LEN);
	p = skb_header_pointer(skb, nh, avail, buf);
	if (!p)
		return SHOAL_PKT_BAD;
	parsed = shoal_pkt_parse(p, avail, skb->len - nh, pk);
	if (parsed != SHOAL_PKT_NONIP &&
	    pk->ipver != (proto == htons(ETH_P_IP) ? 4 : 6))
		return SHOAL_PKT_BAD;
	if (parsed == SHOAL_PKT_OK && skb->encapsulation)
		return SHOAL_PKT_BAD;
	return parsed;
}

/* The transport byte at mark_offset of the L4 payload, or -1 */
static int trim_skb_flags(const struct trim_config *c,
			  const struct sk_buff *skb, const struct shoal_pkt_hdrs *pk)
{
	u32 off = (u32)pk->l4off + pk->l4hdr + c->mark_offset;
	const u8 *fp;
	u8 fbuf;

	if (!pk->l4hdr || off >= pk->l3len)
		return -1;
	fp = skb_header_pointer(skb, skb_network_offset(skb) + off, 1, &fbuf);
	return fp ? *fp : -1;
}

static enum trim_class trim_skb_classify(const struct trim_config *c,
					 const struct sk_buff *skb,
					 struct shoal_pkt_hdrs *pk)
{
	enum shoal_pkt_res parsed = trim_skb_parse(skb, pk);
	int flags = -1;

	if (parsed == SHOAL_PKT_OK && c->mark_mask)
		flags = trim_skb_flags(c, skb, pk);
	return trim_classify(c, parsed, pk, flags);
}

/* Recompute the L4 checksum in software over what is left of the packet */
static void trim_fix_l4_csum(struct sk_buff *skb, const struct shoal_pkt_hdrs *pk)
{
	int l4 = skb_network_offset(skb) + pk->l4off;
	u32 len = pk->l3len - pk->l4off;
	__sum16 *check;
	__wsum csum;

	if (pk->l4proto == IPPROTO_UDP) {
		check = &((struct udphdr *)(skb->data + l4))->check;
		if (pk->ipver == 4 && !*check)
			goto done;	/* the sender chose no checksum */
	} else {
		check = &((struct tcphdr *)(skb->data + l4))->check;
	}
	*check = 0;
	csum = skb_checksum(skb, l4, len, 0);
	if (pk->ipver == 4) {
		const struct iphdr *iph = ip_hdr(skb);

		*check = csum_tcpudp_magic(iph->saddr, iph->daddr, len,
					   pk->l4proto, csum);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		*check = csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr, len,
					 pk->l4proto, csum);
	}
	if (pk->l4proto == IPPROTO_UDP && !*check)
		*check = CSUM_MANGLED_0;
done:
	skb->ip_summed = CHECKSUM_NONE;
}

/* Cut @skb down to its headers plus cfg.keep bytes, mark it and make its
 * lengths and checksums right.  Returns the bytes removed or -ENOMEM.
 */
static int trim_skb(const struct trim_config *c, struct sk_buff *skb,
		    struct shoal_pkt_hdrs *pk)
{
	u32 keep = trim_keep_len(c, pk);
	unsigned int old_len = skb->len;
	int nh = skb_network_offset(skb);
	u8 *l4;

	if (pskb_trim(skb, nh + keep) || skb_ensure_writable(skb, nh + keep))
		return -ENOMEM;
	pk->l3len = keep;
	l4 = skb_network_header(skb) + pk->l4off;
	if (pk->ipver == 4) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(keep);
		if (c->mark_dscp != TRIM_DSCP_KEEP)
			ipv4_change_dsfield(iph, INET_ECN_MASK,
					    c->mark_dscp << 2);
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ip6h->payload_len = htons(keep - sizeof(*ip6h));
		if (c->mark_dscp != TRIM_DSCP_KEEP)
			ipv6_change_dsfield(ip6h, INET_ECN_MASK,
					    c->mark_dscp << 2);
	}
	if (pk->l4proto == IPPROTO_UDP)
		((struct udphdr *)l4)->len = htons(keep - pk->l4off);
	if (c->mark_mask)	/* mark_offset < keep: checked by change */
		l4[pk->l4hdr + c->mark_offset] |= c->mark_mask;
	trim_fix_l4_csum(skb, pk);
	qdisc_skb_cb(skb)->pkt_len -= old_len - skb->len;
	return old_len - skb->len;
}

/* Return a header to its sender: swap addresses (and ports, but not a
 * Shoal packet's: trim_rts_plan()), mark it bounced and feed it to this
 * device's receive path, so the switch routes it back.  On -EINVAL or
 * -ENOMEM the skb is still ours; on -ENOBUFS it is gone.  @shoal tells
 * the caller it went to the sender's Shoal port.
 */
static int trim_bounce(struct Qdisc *sch, struct sk_buff *skb, bool *shoal)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	int nh = skb_network_offset(skb);
	struct shoal_pkt_hdrs pk;
	struct trim_rts plan;
	u32 flag_off;
	__be16 port;
	u8 *l4;

	/* l4hdr is set for UDP and TCP only: they have ports to swap */
	if (trim_skb_parse(skb, &pk) != SHOAL_PKT_OK || !pk.l4hdr)
		return -EINVAL;
	if (skb_ensure_writable(skb, nh + pk.l3len))
		return -ENOMEM;
	plan = trim_rts_plan(&q->set.cfg, &pk);
	*shoal = plan.shoal;
	if (pk.ipver == 4) {
		struct iphdr *iph = ip_hdr(skb);

		swap(iph->saddr, iph->daddr);
		if (plan.dscp != TRIM_DSCP_KEEP)
			ipv4_change_dsfield(iph, INET_ECN_MASK, plan.dscp << 2);
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		swap(ip6h->saddr, ip6h->daddr);
		if (plan.dscp != TRIM_DSCP_KEEP)
			ipv6_change_dsfield(ip6h, INET_ECN_MASK, plan.dscp << 2);
	}
	l4 = skb_network_header(skb) + pk.l4off;
	if (plan.swap_ports) {
		port = ((__be16 *)l4)[0];
		((__be16 *)l4)[0] = ((__be16 *)l4)[1];
		((__be16 *)l4)[1] = port;
	}
	flag_off = pk.l4off + pk.l4hdr + q->set.cfg.mark_offset;
	if (q->set.cfg.bounce_mask && flag_off < pk.l3len)
		l4[pk.l4hdr + q->set.cfg.mark_offset] |= q->set.cfg.bounce_mask;
	trim_fix_l4_csum(skb, &pk);

	skb_orphan(skb);
	skb_scrub_packet(skb, true);
	skb->dev = dev;
	if (dev->type == ARPHRD_ETHER && nh == ETH_HLEN &&
	    skb_mac_header_was_set(skb)) {
		struct ethhdr *eth = (struct ethhdr *)skb_mac_header(skb);
		u8 mac[ETH_ALEN];

		ether_addr_copy(mac, eth->h_source);
		ether_addr_copy(eth->h_source, eth->h_dest);
		ether_addr_copy(eth->h_dest, mac);
		skb->protocol = eth_type_trans(skb, dev);
	} else {
		__skb_pull(skb, nh);
		skb_reset_mac_header(skb);
		skb->mac_len = 0;
		skb->pkt_type = PACKET_HOST;
	}
	/* from here on the skb is netif_rx()'s, accepted or freed */
	return netif_rx(skb) == NET_RX_SUCCESS ? 0 : -ENOBUFS;
}

/* ---- queues ---- */

static void trim_queue_tail(struct Qdisc *sch, struct sk_buff_head *list,
			    struct sk_buff *skb, u8 kind)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	u32 len = qdisc_pkt_len(skb);

	trim_cb(skb)->kind = kind;
	__skb_queue_tail(list, skb);
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	if (list == &q->hdrq) {
		q->hdr_bytes += len;
		q->st.hdr_qlen_max = max(q->st.hdr_qlen_max, list->qlen);
		q->st.hdr_backlog_max = max(q->st.hdr_backlog_max,
					    q->hdr_bytes);
	} else {
		q->data_bytes += len;
		q->st.data_qlen_max = max(q->st.data_qlen_max, list->qlen);
		q->st.data_backlog_max = max(q->st.data_backlog_max,
					     q->data_bytes);
	}
	if (trim_kind_is_hdr(kind))
		q->st.hdr_enq++;
	else
		q->st.data_enq++;
}

static void trim_unlink(struct Qdisc *sch, struct sk_buff_head *list,
			struct sk_buff *skb)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	__skb_unlink(skb, list);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	if (list == &q->hdrq)
		q->hdr_bytes -= qdisc_pkt_len(skb);
	else
		q->data_bytes -= qdisc_pkt_len(skb);
}

static bool trim_hdr_room(const struct trim_sched_data *q, u32 len)
{
	const struct trim_config *c = &q->set.cfg;

	if (q->set.hdr_mode == TRIM_HDR_SAME)	/* CP: limit is a watermark */
		return q->dataq.qlen < c->limit + c->hdr_limit &&
		       (!c->hdr_limit_bytes || !c->limit_bytes ||
			q->data_bytes + len <=
			c->limit_bytes + c->hdr_limit_bytes);
	return !trim_hdr_full(c, q->hdrq.qlen, q->hdr_bytes, len);
}

static bool trim_was_bounced(const struct trim_sched_data *q,
			     const struct sk_buff *skb)
{
	struct shoal_pkt_hdrs pk;
	int flags;

	if (!q->set.cfg.bounce_mask || trim_skb_parse(skb, &pk) != SHOAL_PKT_OK)
		return false;
	flags = trim_skb_flags(&q->set.cfg, skb, &pk);
	return flags >= 0 &&
	       (flags & q->set.cfg.bounce_mask) == q->set.cfg.bounce_mask;
}

/* Queue a header, or deal with a full header queue */
static enum trim_fate trim_enqueue_hdr(struct Qdisc *sch, struct sk_buff *skb,
				       u8 kind, struct sk_buff **to_free)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	if (trim_hdr_room(q, qdisc_pkt_len(skb))) {
		trim_queue_tail(sch, q->set.hdr_mode == TRIM_HDR_SAME ?
				&q->dataq : &q->hdrq, skb, kind);
		return TRIM_QUEUED;
	}
	if (q->set.overflow == TRIM_OVERFLOW_RTS && kind != TRIM_K_CTRL &&
	    !trim_was_bounced(q, skb)) {
		bool shoal = false;
		int err = trim_bounce(sch, skb, &shoal);

		if (!err) {
			q->st.bounced++;
			if (shoal)
				q->st.bounced_shoal++;
			trace_trim_bounce(sch, qdisc_pkt_len(skb), shoal);
			return TRIM_BOUNCED;
		}
		q->st.bounce_err++;
		if (err == -ENOBUFS) {	/* netif_rx() dropped it */
			qdisc_qstats_drop(sch);
			return TRIM_DROPPED;
		}
	}
	q->st.hdr_drop++;
	qdisc_drop(skb, sch, to_free);
	return TRIM_DROPPED;
}

/* Trim @victim (the arrival, or a packet taken from the data queue tail)
 * and queue it as a header.  Returns the bytes it shrank by, for the
 * parent accounting, and its fate in @fate.
 */
static int trim_victim(struct Qdisc *sch, struct sk_buff *victim,
		       enum trim_fate *fate, struct sk_buff **to_free)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct shoal_pkt_hdrs pk;
	u8 kind = TRIM_K_HDR;
	int cut;

	if (trim_skb_parse(victim, &pk) != SHOAL_PKT_OK || !pk.l4hdr) {
		cut = -EINVAL;	/* cannot happen: the class was checked */
	} else if (pk.l3len <= trim_keep_len(&q->set.cfg, &pk)) {
		q->st.small_promoted++;
		kind = TRIM_K_SMALL;
		cut = 0;
	} else {
		cut = trim_skb(&q->set.cfg, victim, &pk);
	}
	if (cut < 0) {
		q->st.trim_err++;
		qdisc_drop(victim, sch, to_free);
		*fate = TRIM_DROPPED;
		return 0;
	}
	q->st.trimmed_bytes += cut;
	trace_trim_packet(sch, qdisc_pkt_len(victim), cut);
	*fate = trim_enqueue_hdr(sch, victim, kind, to_free);
	return cut;
}

/* The data queue is full and @skb is eligible: trim something */
static int trim_on_full(struct Qdisc *sch, struct sk_buff *skb,
			struct sk_buff **to_free)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct sk_buff *tail = skb_peek_tail(&q->dataq);
	unsigned int victim_len;
	enum trim_fate fate;
	int cut;

	if (q->set.hdr_mode == TRIM_HDR_PRIO && tail &&
	    trim_pick_tail(&q->set.cfg, get_random_u32(),
			   trim_cb(tail)->kind == TRIM_K_DATA,
			   qdisc_pkt_len(tail), qdisc_pkt_len(skb))) {
		/* NDP: cut the tail, the arrival takes its place */
		q->st.trim_tail++;
		victim_len = qdisc_pkt_len(tail);
		trim_unlink(sch, &q->dataq, tail);
		trim_queue_tail(sch, &q->dataq, skb, TRIM_K_DATA);
		cut = trim_victim(sch, tail, &fate, to_free);
		/* the parent counted the tail at full length */
		if (fate == TRIM_QUEUED)
			qdisc_tree_reduce_backlog(sch, 0, cut);
		else
			qdisc_tree_reduce_backlog(sch, 1, victim_len);
		return NET_XMIT_SUCCESS;
	}

	q->st.trim_arrival++;
	cut = trim_victim(sch, skb, &fate, to_free);
	switch (fate) {
	case TRIM_QUEUED:
		/* the parent will add the arrival's full length */
		if (cut)
			qdisc_tree_reduce_backlog(sch, 0, cut);
		return NET_XMIT_SUCCESS;
	case TRIM_BOUNCED:
		return NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
	default:
		return NET_XMIT_DROP;
	}
}

static int trim_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	const struct trim_config *c = &q->set.cfg;
	enum trim_class cls;
	struct shoal_pkt_hdrs pk;
	enum trim_fate fate;

	trim_cb(skb)->enq_ns = ktime_get_ns();
	cls = trim_skb_classify(c, skb, &pk);
	switch (cls) {
	case TRIM_C_CTRL:
		q->st.ctrl_enq++;
		fate = trim_enqueue_hdr(sch, skb, TRIM_K_CTRL, to_free);
		goto hdr_fate;
	case TRIM_C_HDR:
		q->st.fwd_hdr_enq++;
		fate = trim_enqueue_hdr(sch, skb, TRIM_K_FWDHDR, to_free);
		goto hdr_fate;
	case TRIM_C_DATA:
		if (!trim_data_full(c, q->dataq.qlen, q->data_bytes,
				    qdisc_pkt_len(skb))) {
			trim_queue_tail(sch, &q->dataq, skb, TRIM_K_DATA);
			return NET_XMIT_SUCCESS;
		}
		return trim_on_full(sch, skb, to_free);
	case TRIM_C_NONIP:
		q->st.inelig_nonip++;
		break;
	case TRIM_C_FRAG:
		q->st.inelig_frag++;
		break;
	case TRIM_C_PROTO:
		q->st.inelig_proto++;
		break;
	default:
		q->st.inelig_encap++;
		break;
	}
	if (trim_data_full(c, q->dataq.qlen, q->data_bytes,
			   qdisc_pkt_len(skb))) {
		q->st.inelig_drop++;
		return qdisc_drop(skb, sch, to_free);
	}
	trim_queue_tail(sch, &q->dataq, skb, TRIM_K_INELIG);
	return NET_XMIT_SUCCESS;

hdr_fate:
	if (fate == TRIM_QUEUED)
		return NET_XMIT_SUCCESS;
	return fate == TRIM_BOUNCED ? NET_XMIT_SUCCESS | __NET_XMIT_STOLEN :
				      NET_XMIT_DROP;
}

/* One skb per packet before any decision: a GSO skb holds many headers */
static int trim_segment(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	return shoal_gso_segment(skb, sch, to_free, trim_enqueue_one,
				 &q->st.gso_split, &q->st.trim_err);
}

static int trim_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			struct sk_buff **to_free)
{
	if (skb_is_gso(skb))
		return trim_segment(skb, sch, to_free);
	return trim_enqueue_one(skb, sch, to_free);
}

static void trim_account_dequeue(struct trim_sched_data *q,
				 struct sk_buff *skb, u64 now)
{
	u64 sojourn = now - trim_cb(skb)->enq_ns;

	if (trim_kind_is_hdr(trim_cb(skb)->kind)) {
		q->st.hdr_deq++;
		q->st.hdr_sojourn_sum_ns += sojourn;
		q->st.hdr_sojourn_max_ns = max(q->st.hdr_sojourn_max_ns,
					       sojourn);
	} else {
		q->st.data_deq++;
		q->st.data_sojourn_sum_ns += sojourn;
		q->st.data_sojourn_max_ns = max(q->st.data_sojourn_max_ns,
						sojourn);
	}
}

/* CE on data (and, if asked, trimmed headers) while the data queue is high */
static void trim_ecn(struct trim_sched_data *q, struct sk_buff *skb,
		     u32 data_bytes)
{
	u8 kind = trim_cb(skb)->kind;

	if (!q->set.ecn_thresh || data_bytes <= q->set.ecn_thresh)
		return;
	if (kind == TRIM_K_CTRL || kind == TRIM_K_SMALL ||
	    (trim_kind_is_hdr(kind) && !(q->set.flags & TRIM_F_ECN_HDRS)))
		return;
	if (INET_ECN_set_ce(skb))
		q->st.ecn_mark++;
}

static struct sk_buff *trim_dequeue(struct Qdisc *sch)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct sk_buff *hdr, *data, *skb;
	struct sk_buff_head *list;
	enum trim_queue which;
	u32 data_bytes;
	u64 now;

	now = ktime_get_ns();
	if (q->set.rate && now < q->t_next) {
		qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
		return NULL;
	}
	hdr = skb_peek(&q->hdrq);
	data = skb_peek(&q->dataq);
	which = trim_sched_pick(&q->set.cfg, &q->sst,
				!!hdr, hdr ? qdisc_pkt_len(hdr) : 0,
				!!data, data ? qdisc_pkt_len(data) : 0);
	if (which == TRIM_Q_NONE)
		return NULL;
	skb = which == TRIM_Q_HDR ? hdr : data;
	list = which == TRIM_Q_HDR ? &q->hdrq : &q->dataq;
	data_bytes = q->data_bytes;
	trim_unlink(sch, list, skb);
	qdisc_bstats_update(sch, skb);
	trim_account_dequeue(q, skb, now);
	trim_ecn(q, skb, data_bytes);
	if (q->set.rate)
		q->t_next = max(q->t_next, now) +
			    div64_u64((u64)qdisc_pkt_len(skb) * NSEC_PER_SEC,
				      q->set.rate);
	return skb;
}

static void trim_reset(struct Qdisc *sch)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	__skb_queue_purge(&q->dataq);
	__skb_queue_purge(&q->hdrq);
	q->data_bytes = 0;
	q->hdr_bytes = 0;
	q->t_next = 0;
	memset(&q->sst, 0, sizeof(q->sst));
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- configuration ---- */

/* Ranges beyond the s16 of NLA_POLICY_RANGE(); the 6.1 policy takes them
 * by non-const pointer.
 */
static struct netlink_range_validation trim_limit_range = {
	.min = 1,
	.max = TRIM_MAX_LIMIT,
};

/* A value out of range is refused here, by the policy, with its attribute
 * named in the extack; trim_settings_parse() checks what a range cannot say.
 */
static const struct nla_policy trim_policy[TCA_TRIM_MAX + 1] = {
	[TCA_TRIM_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &trim_limit_range),
	[TCA_TRIM_LIMIT_BYTES]	= { .type = NLA_U32 },
	[TCA_TRIM_HDR_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &trim_limit_range),
	[TCA_TRIM_HDR_LIMIT_BYTES] = { .type = NLA_U32 },
	[TCA_TRIM_KEEP]		= NLA_POLICY_MAX(NLA_U16, TRIM_KEEP_MAX),
	[TCA_TRIM_SCHED]	= NLA_POLICY_MAX(NLA_U8, __TRIM_SCHED_MAX - 1),
	[TCA_TRIM_HDR_WEIGHT]	= NLA_POLICY_RANGE(NLA_U32, 1, TRIM_MAX_WEIGHT),
	[TCA_TRIM_DATA_WEIGHT]	= NLA_POLICY_RANGE(NLA_U32, 1, TRIM_MAX_WEIGHT),
	[TCA_TRIM_TAIL_PROB]	= { .type = NLA_U32 },
	[TCA_TRIM_HDR_MODE]	= NLA_POLICY_MAX(NLA_U8, __TRIM_HDR_MODE_MAX - 1),
	[TCA_TRIM_OVERFLOW]	= NLA_POLICY_MAX(NLA_U8, __TRIM_OVERFLOW_MAX - 1),
	[TCA_TRIM_MARK_DSCP]	= { .type = NLA_U8 },
	[TCA_TRIM_MARK_OFFSET]	= { .type = NLA_U16 },
	[TCA_TRIM_MARK_MASK]	= { .type = NLA_U8 },
	[TCA_TRIM_CTRL_DSCP]	= { .type = NLA_U64 },
	[TCA_TRIM_ECN_THRESH]	= { .type = NLA_U32 },
	[TCA_TRIM_ELIG_DSCP]	= { .type = NLA_U64 },
	[TCA_TRIM_ELIG_PROTO]	= { .type = NLA_U8 },
	[TCA_TRIM_ELIG_PORT_MIN] = { .type = NLA_U16 },
	[TCA_TRIM_ELIG_PORT_MAX] = { .type = NLA_U16 },
	[TCA_TRIM_RATE]		= { .type = NLA_U64 },
	[TCA_TRIM_FLAGS]	= NLA_POLICY_MASK(NLA_U32, TRIM_F_MASK),
	[TCA_TRIM_BOUNCE_MASK]	= { .type = NLA_U8 },
	[TCA_TRIM_SHOAL_PORT]	= { .type = NLA_U16 },
};

static void trim_settings_default(struct trim_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->cfg.limit = TRIM_DEF_LIMIT;
	s->cfg.hdr_limit = TRIM_DEF_HDR_LIMIT;
	s->cfg.keep = TRIM_DEF_KEEP;
	s->cfg.sched = TRIM_SCHED_WRR;
	s->cfg.hdr_weight = TRIM_DEF_HDR_WEIGHT;
	s->cfg.data_weight = TRIM_DEF_DATA_WEIGHT;
	s->cfg.tail_prob = TRIM_DEF_TAIL_PROB;
	s->cfg.mark_dscp = TRIM_DSCP_KEEP;
	s->cfg.mark_offset = TRIM_DEF_MARK_OFFSET;
	s->cfg.mark_mask = TRIM_DEF_MARK_MASK;
	s->cfg.bounce_mask = TRIM_DEF_BOUNCE_MASK;
	s->cfg.ctrl_dscp = TRIM_DEF_CTRL_DSCP;
	s->cfg.elig_dscp = ~0ULL;
	s->cfg.elig_proto = IPPROTO_UDP;
	s->cfg.port_max = 0xffff;
	s->cfg.shoal_port = TRIM_DEF_SHOAL_PORT;
	s->hdr_mode = TRIM_HDR_PRIO;
	s->overflow = TRIM_OVERFLOW_DROP;
}

/* Apply @tb (its ranges checked by trim_policy) on top of @s; refuse what
 * the policy cannot check: a value that is not a range, or values that
 * must agree with each other.
 */
static int trim_settings_parse(struct trim_settings *s, struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	struct trim_config *c = &s->cfg;

	if (tb[TCA_TRIM_LIMIT])
		c->limit = nla_get_u32(tb[TCA_TRIM_LIMIT]);
	if (tb[TCA_TRIM_LIMIT_BYTES])
		c->limit_bytes = nla_get_u32(tb[TCA_TRIM_LIMIT_BYTES]);
	if (tb[TCA_TRIM_HDR_LIMIT])
		c->hdr_limit = nla_get_u32(tb[TCA_TRIM_HDR_LIMIT]);
	if (tb[TCA_TRIM_HDR_LIMIT_BYTES])
		c->hdr_limit_bytes = nla_get_u32(tb[TCA_TRIM_HDR_LIMIT_BYTES]);
	if (tb[TCA_TRIM_KEEP])
		c->keep = nla_get_u16(tb[TCA_TRIM_KEEP]);
	if (tb[TCA_TRIM_SCHED])
		c->sched = nla_get_u8(tb[TCA_TRIM_SCHED]);
	if (tb[TCA_TRIM_HDR_WEIGHT])
		c->hdr_weight = nla_get_u32(tb[TCA_TRIM_HDR_WEIGHT]);
	if (tb[TCA_TRIM_DATA_WEIGHT])
		c->data_weight = nla_get_u32(tb[TCA_TRIM_DATA_WEIGHT]);
	if (tb[TCA_TRIM_TAIL_PROB])
		c->tail_prob = nla_get_u32(tb[TCA_TRIM_TAIL_PROB]);
	if (tb[TCA_TRIM_HDR_MODE])
		s->hdr_mode = nla_get_u8(tb[TCA_TRIM_HDR_MODE]);
	if (tb[TCA_TRIM_OVERFLOW])
		s->overflow = nla_get_u8(tb[TCA_TRIM_OVERFLOW]);
	if (tb[TCA_TRIM_MARK_DSCP])
		c->mark_dscp = nla_get_u8(tb[TCA_TRIM_MARK_DSCP]);
	if (tb[TCA_TRIM_MARK_OFFSET])
		c->mark_offset = nla_get_u16(tb[TCA_TRIM_MARK_OFFSET]);
	if (tb[TCA_TRIM_MARK_MASK])
		c->mark_mask = nla_get_u8(tb[TCA_TRIM_MARK_MASK]);
	if (tb[TCA_TRIM_BOUNCE_MASK])
		c->bounce_mask = nla_get_u8(tb[TCA_TRIM_BOUNCE_MASK]);
	if (tb[TCA_TRIM_CTRL_DSCP])
		c->ctrl_dscp = nla_get_u64(tb[TCA_TRIM_CTRL_DSCP]);
	if (tb[TCA_TRIM_ELIG_DSCP])
		c->elig_dscp = nla_get_u64(tb[TCA_TRIM_ELIG_DSCP]);
	if (tb[TCA_TRIM_ELIG_PROTO])
		c->elig_proto = nla_get_u8(tb[TCA_TRIM_ELIG_PROTO]);
	if (tb[TCA_TRIM_ELIG_PORT_MIN])
		c->port_min = nla_get_u16(tb[TCA_TRIM_ELIG_PORT_MIN]);
	if (tb[TCA_TRIM_ELIG_PORT_MAX])
		c->port_max = nla_get_u16(tb[TCA_TRIM_ELIG_PORT_MAX]);
	if (tb[TCA_TRIM_SHOAL_PORT])
		c->shoal_port = nla_get_u16(tb[TCA_TRIM_SHOAL_PORT]);
	if (tb[TCA_TRIM_ECN_THRESH])
		s->ecn_thresh = nla_get_u32(tb[TCA_TRIM_ECN_THRESH]);
	if (tb[TCA_TRIM_RATE])
		s->rate = nla_get_u64(tb[TCA_TRIM_RATE]);
	if (tb[TCA_TRIM_FLAGS])
		s->flags = nla_get_u32(tb[TCA_TRIM_FLAGS]);

	if (c->mark_dscp > 63 && c->mark_dscp != TRIM_DSCP_KEEP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_TRIM_MARK_DSCP],
				    "trim: mark_dscp must be 0 to 63, or none");
		return -EINVAL;
	}
	if (c->elig_proto != IPPROTO_UDP && c->elig_proto != IPPROTO_TCP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_TRIM_ELIG_PROTO],
				    "trim: proto must be udp or tcp");
		return -EINVAL;
	}
	if (c->port_min > c->port_max) {
		NL_SET_ERR_MSG(extack, "trim: port range is empty (min > max)");
		return -EINVAL;
	}
	if ((c->mark_mask || c->bounce_mask) && c->mark_offset >= c->keep) {
		NL_SET_ERR_MSG(extack,
			       "trim: mark_offset must lie within the kept bytes (less than keep), or set mark_mask and bounce_mask to 0");
		return -EINVAL;
	}
	return 0;
}

static bool trim_dataq_over(const struct trim_sched_data *q)
{
	const struct trim_config *c = &q->set.cfg;
	bool same = q->set.hdr_mode == TRIM_HDR_SAME;

	return q->dataq.qlen > c->limit + (same ? c->hdr_limit : 0) ||
	       (c->limit_bytes && q->data_bytes > c->limit_bytes +
		(same ? c->hdr_limit_bytes : 0));
}

static bool trim_hdrq_over(const struct trim_sched_data *q)
{
	const struct trim_config *c = &q->set.cfg;

	return q->hdrq.qlen > c->hdr_limit ||
	       (c->hdr_limit_bytes && q->hdr_bytes > c->hdr_limit_bytes);
}

static void trim_drop_head(struct Qdisc *sch, struct sk_buff_head *list,
			   unsigned int *pkts, unsigned int *bytes)
{
	struct sk_buff *skb = skb_peek(list);

	*pkts += 1;
	*bytes += qdisc_pkt_len(skb);
	trim_unlink(sch, list, skb);
	qdisc_qstats_drop(sch);
	rtnl_kfree_skbs(skb, skb);
}

/* After a change: drop from the head until both queues fit their limits */
static void trim_shrink(struct Qdisc *sch)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	unsigned int pkts = 0, bytes = 0;

	while (trim_dataq_over(q))
		trim_drop_head(sch, &q->dataq, &pkts, &bytes);
	while (trim_hdrq_over(q))
		trim_drop_head(sch, &q->hdrq, &pkts, &bytes);
	qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

static int trim_change(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_TRIM_MAX + 1];
	struct trim_settings s;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_TRIM_MAX, opt, trim_policy, extack);
	if (err < 0)
		return err;
	s = q->set;
	err = trim_settings_parse(&s, tb, extack);
	if (err)
		return err;
	s.cfg.drr_unit = psched_mtu(qdisc_dev(sch));

	sch_tree_lock(sch);
	if (s.hdr_mode != q->set.hdr_mode && sch->q.qlen) {
		sch_tree_unlock(sch);
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_TRIM_HDR_MODE],
				    "trim: mode can change only while the qdisc is empty");
		return -EBUSY;
	}
	if (s.rate != q->set.rate)
		q->t_next = 0;
	/* Like pfifo: at the root and unshaped, a packet that finds the
	 * qdisc empty may go straight to the device; it could not have been
	 * trimmed.  Our own shaper must see every packet.
	 */
	if (s.rate)
		sch->flags &= ~TCQ_F_CAN_BYPASS;
	else
		sch->flags |= TCQ_F_CAN_BYPASS;
	q->set = s;
	trim_shrink(sch);
	sch_tree_unlock(sch);
	return 0;
}

static int trim_init(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_init(&q->watchdog, sch);
	__skb_queue_head_init(&q->dataq);
	__skb_queue_head_init(&q->hdrq);
	trim_settings_default(&q->set);
	q->set.cfg.drr_unit = psched_mtu(qdisc_dev(sch));
	sch->flags |= TCQ_F_CAN_BYPASS;		/* no own shaper yet */
	return trim_change(sch, opt, extack);
}

static void trim_destroy(struct Qdisc *sch)
{
	struct trim_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	__skb_queue_purge(&q->dataq);
	__skb_queue_purge(&q->hdrq);
}

static int trim_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	const struct trim_config *c = &q->set.cfg;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_TRIM_LIMIT, c->limit) ||
	    nla_put_u32(skb, TCA_TRIM_LIMIT_BYTES, c->limit_bytes) ||
	    nla_put_u32(skb, TCA_TRIM_HDR_LIMIT, c->hdr_limit) ||
	    nla_put_u32(skb, TCA_TRIM_HDR_LIMIT_BYTES, c->hdr_limit_bytes) ||
	    nla_put_u16(skb, TCA_TRIM_KEEP, c->keep) ||
	    nla_put_u8(skb, TCA_TRIM_SCHED, c->sched) ||
	    nla_put_u32(skb, TCA_TRIM_HDR_WEIGHT, c->hdr_weight) ||
	    nla_put_u32(skb, TCA_TRIM_DATA_WEIGHT, c->data_weight) ||
	    nla_put_u32(skb, TCA_TRIM_TAIL_PROB, c->tail_prob) ||
	    nla_put_u8(skb, TCA_TRIM_HDR_MODE, q->set.hdr_mode) ||
	    nla_put_u8(skb, TCA_TRIM_OVERFLOW, q->set.overflow) ||
	    nla_put_u8(skb, TCA_TRIM_MARK_DSCP, c->mark_dscp) ||
	    nla_put_u16(skb, TCA_TRIM_MARK_OFFSET, c->mark_offset) ||
	    nla_put_u8(skb, TCA_TRIM_MARK_MASK, c->mark_mask) ||
	    nla_put_u8(skb, TCA_TRIM_BOUNCE_MASK, c->bounce_mask) ||
	    nla_put_u64_64bit(skb, TCA_TRIM_CTRL_DSCP, c->ctrl_dscp,
			      TCA_TRIM_PAD) ||
	    nla_put_u32(skb, TCA_TRIM_ECN_THRESH, q->set.ecn_thresh) ||
	    nla_put_u64_64bit(skb, TCA_TRIM_ELIG_DSCP, c->elig_dscp,
			      TCA_TRIM_PAD) ||
	    nla_put_u8(skb, TCA_TRIM_ELIG_PROTO, c->elig_proto) ||
	    nla_put_u16(skb, TCA_TRIM_ELIG_PORT_MIN, c->port_min) ||
	    nla_put_u16(skb, TCA_TRIM_ELIG_PORT_MAX, c->port_max) ||
	    nla_put_u64_64bit(skb, TCA_TRIM_RATE, q->set.rate, TCA_TRIM_PAD) ||
	    nla_put_u32(skb, TCA_TRIM_FLAGS, q->set.flags) ||
	    nla_put_u16(skb, TCA_TRIM_SHOAL_PORT, c->shoal_port))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int trim_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct trim_sched_data *q = qdisc_priv(sch);
	struct tc_trim_xstats st;

	sch_tree_lock(sch);
	st = q->st;
	st.data_qlen = q->dataq.qlen;
	st.hdr_qlen = q->hdrq.qlen;
	st.data_backlog = q->data_bytes;
	st.hdr_backlog = q->hdr_bytes;
	sch_tree_unlock(sch);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops trim_qdisc_ops __read_mostly = {
	.id		= "trim",
	.priv_size	= sizeof(struct trim_sched_data),
	.enqueue	= trim_enqueue,
	.dequeue	= trim_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= trim_init,
	.reset		= trim_reset,
	.destroy	= trim_destroy,
	.change		= trim_change,
	.dump		= trim_dump,
	.dump_stats	= trim_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init trim_module_init(void)
{
	return register_qdisc(&trim_qdisc_ops);
}

static void __exit trim_module_exit(void)
{
	unregister_qdisc(&trim_qdisc_ops);
}

module_init(trim_module_init);
module_exit(trim_module_exit);
MODULE_DESCRIPTION("Packet trimming with a priority header queue");
MODULE_AUTHOR("Shoal developers");
MODULE_LICENSE("GPL");
