// SPDX-License-Identifier: GPL-2.0
/*
 * sch_pl2: PL2's host side for any traffic (Documentation/sch_pl2.md).
 *
 * PL2 (Le et al., 2021) makes a rack loss-free by reservation: before a
 * burst of at most K packets the host sends an RSV, the top-of-rack
 * switch (tools/pl2-switch) answers with a GRT of two slots, and the
 * burst leaves when the later of them comes (Eq. 1).  shoal.ko does this
 * for its IPPROTO_PL2 sockets; this qdisc does it for whatever the host
 * sends, so TCP and plain UDP applications reserve unchanged.
 *
 * Packets are queued per destination address (a flow here): PL2
 * reserves a pair of host ports, the sender's and the receiver's, and
 * every transport to one receiver meets at its port, so one queue per
 * destination host is what the switch's slots describe; a queue per
 * 5-tuple would send one RSV per connection for the same two ports.
 * Within a destination, connections (by flow hash, in PL2_QD_BUCKETS
 * buckets) share its bursts packet by packet, round robin.
 * An exchange is an RSV for up to K of a flow's packets, which it takes
 * as its burst, the GRT, the wait of Eq. 1, then the burst goes to the
 * device.  A flow starts an exchange whenever packets wait in no burst
 * and that burst fits under outstanding x K packets reserved (K with
 * the default 1: the paper's bound on what a sender has reserved), so
 * a sparse sender's packet never waits for an exchange it missed while
 * a busy one still sends bursts of K; bursts go oldest first, so no
 * connection is reordered.  A GRT
 * later than rsv_timeout does not hold the burst back (the paper's
 * sender does the same).  Algorithm 2's unsolicited bursts go with their
 * RSV when the destination's last grant was small and recent (option
 * unsol).  The arithmetic is include/net/shoal/pl2_core.h, shared with
 * shoal.ko.
 *
 * RSVs are Shoal packets to the Shoal UDP port (wire.md): the switch
 * returns each as a GRT to this host's Shoal port.  Their Shoal ports are
 * 0 (no socket's), their msg_id the qdisc's random cookie and their
 * offset the exchange's number, so a netfilter hook at LOCAL_IN (one per
 * network namespace, registered at module load) takes our GRTs before
 * UDP, whether or not shoal.ko is loaded, and hands them to the qdisc
 * that sent the RSV.  Non-IP packets, packets to the Shoal port (Shoal's
 * own sockets reserve, or need not), multicast, and destinations outside
 * the domain pass untouched, ahead of reserved data, as do our RSVs: they
 * are queued there (a parent, e.g. a shaper above pl2, is told of each as
 * a GSO split tells it of more packets than it counted).
 *
 * Locking: enqueue, dequeue, reset run under the root lock.  The flow
 * table, the flows' exchanges and the list of exchanges with a time
 * set are also under q->lock, a leaf inside the root
 * lock, which the GRT hook (softirq) takes alone; the hook never touches
 * a packet queue or sch->q, only an exchange's state and the watchdog,
 * and dequeue then moves the packets.  Flows are freed with q->lock held,
 * so the hook cannot find a freed one.  The per-namespace list of
 * qdiscs is RCU (the hook) with pn->lock for writers; a qdisc's memory
 * outlives an RCU grace period after destroy (qdisc_free_cb).
 * init, change, dump run under RTNL; dump_stats takes sch_tree_lock().
 */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/hash.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/pkt_sched.h>
#include <net/route.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_shoal.h>
#include <linux/shoal.h>
#include <net/shoal/pl2_core.h>
#include <net/shoal/wire.h>

#include "shoal_gso.h"

#define PL2_QD_DEF_LIMIT	10000U
#define PL2_QD_MAX_LIMIT	1000000U
#define PL2_QD_DEF_FLOWS	1024U
#define PL2_QD_MAX_FLOWS	65536U
#define PL2_QD_DEF_K		4U
#define PL2_QD_DEF_TIMEOUT_US	20000U
#define PL2_QD_DEF_RATE		(1000000000ULL / 8)	/* no speed known */
#define PL2_QD_MAX_RATE		BIT_ULL(40)	/* its bits fit 64 bits */
#define PL2_QD_FRAME		1514U	/* a slot: a full frame */
#define PL2_QD_HASH_BITS	8
#define PL2_QD_BUCKETS		8	/* connections within a destination */
#define PL2_QD_XCHG_MAX		8	/* exchanges with a destination at once */
#define PL2_QD_DEF_OUTSTANDING	1U
#define PL2_QD_DSCP_CS6		(48 << 2)
/* An exchange's number is its RSV's offset, below the RSV's msg_len: a
 * length any receiver's net.shoal.max_msg_len takes
 */
#define PL2_QD_SEQ_MASK		0xffffU
#define PL2_QD_MSG_LEN		0x10000U

enum pl2_qd_state {
	PL2_QD_FREE,		/* no exchange */
	PL2_QD_RSV,		/* RSV out, waiting for the GRT */
	PL2_QD_GRANTED,		/* GRT in, waiting for the slot */
	PL2_QD_DONE,		/* an unsolicited burst's GRT came: next */
	PL2_QD_DUE,		/* its time came; an older burst has not */
};

struct pl2_qd_flow;

/* One exchange with a destination: an RSV, its GRT, its burst */
struct pl2_qd_xchg {
	struct list_head timed;		/* q->timed, by at; or empty */
	struct list_head order;		/* f->order while it holds its burst */
	struct pl2_qd_flow *f;
	struct sk_buff_head burst;	/* its packets, until they go */
	u64 rsv_ns;			/* when the RSV left */
	u64 at;				/* slot, RSV timeout */
	u32 seq;			/* its number */
	u32 demand;			/* packets reserved */
	u8 state;			/* enum pl2_qd_state */
	bool unsol;			/* its burst went with the RSV */
};

/* One destination host */
struct pl2_qd_flow {
	struct hlist_node node;		/* q->hash */
	struct list_head idle;		/* q->idle, while it holds nothing */
	struct in6_addr dst;		/* IPv4 v4-mapped */
	/* packets waiting for a burst, by connection (the flow hash) */
	struct sk_buff_head q[PL2_QD_BUCKETS];
	u32 qlen;			/* in all of them */
	u32 reserved;			/* packets of the exchanges out */
	u8 nr_out;			/* exchanges in use */
	u8 rr;				/* the bucket a burst takes from next */
	struct pl2_peer peer;
	/* exchanges holding a burst, oldest first: bursts go in this
	 * order, so a connection's packets are never reordered
	 */
	struct list_head order;
	struct pl2_qd_xchg x[PL2_QD_XCHG_MAX];
};

struct pl2_qd_settings {
	u32 limit;
	u32 flows;
	u32 k;
	u32 slot_ns;			/* 0: a frame at the rate */
	u32 timeout_us;
	u32 unsol;
	u32 outstanding;		/* a destination's reserved: times K */
	u64 rate;			/* bytes/s, 0: the device's */
	u16 port;
	struct tc_pl2_prefix dom4;
	struct tc_pl2_prefix dom6;
};

struct pl2_qd_sched {
	struct pl2_qd_settings set;
	struct pl2_cfg cfg;		/* pl2_core.h's, from set */
	u64 rate;			/* in use, bytes/s */
	spinlock_t lock;		/* see the top of the file */
	bool dead;			/* destroyed: the hook does nothing */
	u64 cookie;			/* our RSVs' msg_id */
	struct list_head node;		/* pl2_qd_net.qdiscs */
	struct Qdisc *sch;
	struct hlist_head hash[1 << PL2_QD_HASH_BITS];
	struct list_head timed;		/* exchanges with a time, soonest first */
	struct list_head idle;		/* flows holding nothing, oldest first */
	u32 nr_flows;
	u32 nr_waiting;			/* exchanges out */
	u32 next_seq;
	u64 free_ns;			/* the link's clock: Eq. 1's pending;
					 * under q->lock
					 */
	struct sk_buff_head direct;	/* passed, and our RSVs */
	struct sk_buff_head ready;	/* released bursts */
	struct qdisc_watchdog watchdog;
	struct tc_pl2_xstats st;
};

/* The qdiscs of one network namespace, for the GRT hook */
struct pl2_qd_net {
	spinlock_t lock;		/* writers of qdiscs */
	struct list_head qdiscs;	/* RCU */
};

static unsigned int pl2_qd_net_id __read_mostly;

/* ---- what a packet is ---- */

enum pl2_qd_class {
	PL2_QD_RESERVE,		/* into its destination's queue: *dst */
	PL2_QD_PASS,		/* untouched, ahead of reserved data */
};

/* UDP to the Shoal port is Shoal's own: its sockets reserve, or need not */
static enum pl2_qd_class pl2_qd_udp(const struct pl2_qd_sched *q,
				    const struct sk_buff *skb, int uoff)
{
	const struct udphdr *uh;
	struct udphdr _uh;

	uh = skb_header_pointer(skb, uoff, sizeof(_uh), &_uh);
	return uh && ntohs(uh->dest) != q->set.port ? PL2_QD_RESERVE :
						      PL2_QD_PASS;
}

/* Broadcast on the link (a directed broadcast, to the subnet's last
 * address, looks like unicast to IP)
 */
static bool pl2_qd_l2_multicast(const struct sk_buff *skb)
{
	const u8 *dmac;
	u8 _dmac[ETH_ALEN];

	if (skb->dev->type != ARPHRD_ETHER || skb_network_offset(skb) < ETH_HLEN)
		return false;
	dmac = skb_header_pointer(skb, 0, ETH_ALEN, _dmac);
	return dmac && is_multicast_ether_addr(dmac);
}

/* What to do with @skb, and for PL2_QD_RESERVE its destination */
static enum pl2_qd_class pl2_qd_classify(const struct pl2_qd_sched *q,
					 const struct sk_buff *skb,
					 struct in6_addr *dst)
{
	int off = skb_network_offset(skb);
	enum pl2_qd_class c;

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;
		struct iphdr _iph;

		iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4 || iph->ihl < 5)
			return PL2_QD_PASS;
		if (iph->protocol == IPPROTO_UDP && !ip_is_fragment(iph)) {
			c = pl2_qd_udp(q, skb, off + iph->ihl * 4);
			if (c != PL2_QD_RESERVE)
				return c;
		}
		if (ipv4_is_multicast(iph->daddr) ||
		    ipv4_is_lbcast(iph->daddr) || ipv4_is_zeronet(iph->daddr) ||
		    pl2_qd_l2_multicast(skb))
			return PL2_QD_PASS;
		if (q->set.dom4.plen &&
		    ((iph->daddr ^ q->set.dom4.addr[0]) &
		     inet_make_mask(q->set.dom4.plen)))
			return PL2_QD_PASS;
		ipv6_addr_set_v4mapped(iph->daddr, dst);
		return PL2_QD_RESERVE;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6;
		struct ipv6hdr _ip6;

		ip6 = skb_header_pointer(skb, off, sizeof(_ip6), &_ip6);
		if (!ip6 || ip6->version != 6)
			return PL2_QD_PASS;
		if (ip6->nexthdr == IPPROTO_UDP) {
			c = pl2_qd_udp(q, skb, off + sizeof(*ip6));
			if (c != PL2_QD_RESERVE)
				return c;
		}
		if (ipv6_addr_is_multicast(&ip6->daddr) ||
		    pl2_qd_l2_multicast(skb))
			return PL2_QD_PASS;
		if (q->set.dom6.plen &&
		    !ipv6_prefix_equal(&ip6->daddr,
				       (const struct in6_addr *)q->set.dom6.addr,
				       q->set.dom6.plen))
			return PL2_QD_PASS;
		*dst = ip6->daddr;
		return PL2_QD_RESERVE;
	}
	default:
		return PL2_QD_PASS;
	}
}

/* ---- flows ---- */

static u32 pl2_qd_hash(const struct in6_addr *ip)
{
	return hash_32(ipv6_addr_hash(ip), PL2_QD_HASH_BITS);
}

static struct pl2_qd_flow *pl2_qd_find(struct pl2_qd_sched *q,
				       const struct in6_addr *ip)
{
	struct pl2_qd_flow *f;

	hlist_for_each_entry(f, &q->hash[pl2_qd_hash(ip)], node)
		if (ipv6_addr_equal(&f->dst, ip))
			return f;
	return NULL;
}

/* A flow holds nothing when it has no packet and no exchange */
static void pl2_qd_idle_check(struct pl2_qd_sched *q, struct pl2_qd_flow *f)
{
	bool idle = !f->nr_out && !f->qlen;

	if (idle && list_empty(&f->idle))
		list_add_tail(&f->idle, &q->idle);
	else if (!idle && !list_empty(&f->idle))
		list_del_init(&f->idle);
}

static void pl2_qd_free_flow(struct pl2_qd_sched *q, struct pl2_qd_flow *f)
{
	u32 i;

	hlist_del(&f->node);
	for (i = 0; i < PL2_QD_XCHG_MAX; i++) {
		list_del(&f->x[i].timed);
		list_del(&f->x[i].order);
	}
	list_del(&f->idle);
	q->nr_flows--;
	kfree(f);
}

/* The flow of @ip, made if need be: an idle one is reused at the limit
 * (its estimate goes with it)
 */
static struct pl2_qd_flow *pl2_qd_get(struct pl2_qd_sched *q,
				      const struct in6_addr *ip)
{
	struct pl2_qd_flow *f = pl2_qd_find(q, ip);
	u32 i;

	if (f)
		return f;
	if (q->nr_flows >= q->set.flows) {
		if (list_empty(&q->idle))
			return NULL;
		pl2_qd_free_flow(q, list_first_entry(&q->idle,
						     struct pl2_qd_flow, idle));
	}
	f = kzalloc(sizeof(*f), GFP_ATOMIC | __GFP_NOWARN);
	if (!f)
		return NULL;
	f->dst = *ip;
	for (i = 0; i < PL2_QD_BUCKETS; i++)
		__skb_queue_head_init(&f->q[i]);
	INIT_LIST_HEAD(&f->order);
	for (i = 0; i < PL2_QD_XCHG_MAX; i++) {
		INIT_LIST_HEAD(&f->x[i].timed);
		INIT_LIST_HEAD(&f->x[i].order);
		__skb_queue_head_init(&f->x[i].burst);
		f->x[i].f = f;
	}
	INIT_LIST_HEAD(&f->idle);
	pl2_peer_init(&f->peer);
	hlist_add_head(&f->node, &q->hash[pl2_qd_hash(ip)]);
	q->nr_flows++;
	return f;
}

/* Keep q->timed sorted by at; the watchdog follows its head */
static void pl2_qd_time(struct pl2_qd_sched *q, struct pl2_qd_xchg *x,
			u64 at)
{
	struct pl2_qd_xchg *pos;

	x->at = min_t(u64, at, KTIME_MAX);
	list_del_init(&x->timed);
	list_for_each_entry_reverse(pos, &q->timed, timed)
		if (pos->at <= x->at) {
			list_add(&x->timed, &pos->timed);
			return;
		}
	list_add(&x->timed, &q->timed);
}

static void pl2_qd_arm(struct pl2_qd_sched *q)
{
	struct pl2_qd_xchg *x;

	x = list_first_entry_or_null(&q->timed, struct pl2_qd_xchg, timed);
	if (x && !q->dead)
		qdisc_watchdog_schedule_ns(&q->watchdog, x->at);
}

/* ---- RSVs ---- */

/* The RSV's source: the burst's own if it is this host's, else the
 * address this host would send to @dst from @dev.  A packet the host
 * forwards or bridges (a container's, a VM's) has a source elsewhere,
 * where the switch would send the GRT.  False: no address to use.
 */
static bool pl2_qd_rsv_source(struct net_device *dev, bool v6,
			      const struct in6_addr *dst, void *saddr)
{
	struct net *net = dev_net(dev);

	if (v6) {
		if (ipv6_chk_addr(net, saddr, NULL, 0))
			return true;
		return !ipv6_dev_get_saddr(net, dev, dst, 0, saddr);
	}
	if (inet_addr_type_dev_table(net, dev, *(__be32 *)saddr) == RTN_LOCAL)
		return true;
	*(__be32 *)saddr = inet_select_addr(dev, dst->s6_addr32[3],
					    RT_SCOPE_UNIVERSE);
	return *(__be32 *)saddr != 0;
}

/* An RSV for @f's next @demand packets, modelled on its first: the same
 * link-layer header, destination and family, a source of this host's;
 * control's DSCP and priority
 */
static struct sk_buff *pl2_qd_build_rsv(const struct pl2_qd_sched *q,
					const struct sk_buff *tmpl,
					const struct in6_addr *dst,
					u32 seq, u32 demand)
{
	union {
		struct in6_addr in6;
		__be32 ip;
	} saddr;
	struct shoal_wire_pkt w = {
		.version = SHOAL_VERSION,
		.type = SHOAL_T_RSV,
		.msg_id = q->cookie,
		.msg_len = PL2_QD_MSG_LEN,
		.offset = seq,
		.word = demand,
	};
	u32 l2 = skb_network_offset(tmpl), l3, ulen;
	bool v6 = skb_protocol(tmpl, true) == htons(ETH_P_IPV6);
	struct net_device *dev = qdisc_dev(q->sch);
	u8 hdr[SHOAL_HDR_MAX];
	struct sk_buff *skb;
	struct udphdr *uh;
	u32 slen;

	slen = shoal_wire_build(hdr, &w);
	l3 = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	ulen = sizeof(*uh) + slen;
	skb = alloc_skb(LL_RESERVED_SPACE(dev) + l2 + l3 + ulen +
			dev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	if (skb_copy_bits(tmpl, 0, skb_put(skb, l2), l2)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, l2);
	skb_set_transport_header(skb, l2 + l3);
	/* the template's source: its IP header may not be linear (a packet
	 * socket's TX ring)
	 */
	if (skb_copy_bits(tmpl, l2 + (v6 ? offsetof(struct ipv6hdr, saddr) :
				      offsetof(struct iphdr, saddr)),
			  &saddr, v6 ? sizeof(saddr.in6) : sizeof(saddr.ip)) ||
	    !pl2_qd_rsv_source(dev, v6, dst, &saddr)) {
		kfree_skb(skb);
		return NULL;
	}
	if (v6) {
		struct ipv6hdr *ip6 = skb_put_zero(skb, l3);

		ip6_flow_hdr(ip6, PL2_QD_DSCP_CS6, 0);
		ip6->payload_len = htons(ulen);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->saddr = saddr.in6;
		ip6->daddr = *dst;
	} else {
		struct iphdr *iph = skb_put_zero(skb, l3);

		iph->version = 4;
		iph->ihl = 5;
		iph->tos = PL2_QD_DSCP_CS6;
		iph->tot_len = htons(l3 + ulen);
		iph->frag_off = htons(IP_DF);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = saddr.ip;
		iph->daddr = dst->s6_addr32[3];
		ip_send_check(iph);
	}
	uh = skb_put(skb, sizeof(*uh));
	uh->source = htons(q->set.port);
	uh->dest = htons(q->set.port);
	uh->len = htons(ulen);
	uh->check = 0;
	memcpy(skb_put(skb, slen), hdr, slen);
	if (v6)
		uh->check = csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					    &ipv6_hdr(skb)->daddr, ulen,
					    IPPROTO_UDP,
					    csum_partial(uh, ulen, 0));
	else
		uh->check = csum_tcpudp_magic(ip_hdr(skb)->saddr,
					      ip_hdr(skb)->daddr, ulen,
					      IPPROTO_UDP,
					      csum_partial(uh, ulen, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
	skb->protocol = tmpl->protocol;
	skb->dev = dev;
	skb->priority = TC_PRIO_CONTROL;
	skb->mark = tmpl->mark;
	skb_set_queue_mapping(skb, skb_get_queue_mapping(tmpl));
	qdisc_skb_cb(skb)->pkt_len = skb->len;
	if (skb_vlan_tag_present(tmpl))
		__vlan_hwaccel_put_tag(skb, tmpl->vlan_proto,
				       skb_vlan_tag_get(tmpl));
	return skb;
}

/* Hold @skb in one of our queues; the root counts every packet held */
static void pl2_qd_hold(struct Qdisc *sch, struct sk_buff_head *list,
			struct sk_buff *skb)
{
	__skb_queue_tail(list, skb);
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
}

/* The bucket of @f a burst takes its next packet from: round robin over
 * the connections, so that a short one is not queued behind a long one's
 * whole backlog to the same host.  -1: none waits.
 */
static int pl2_qd_next_bucket(const struct pl2_qd_flow *f)
{
	u32 i, b;

	for (i = 0; i < PL2_QD_BUCKETS; i++) {
		b = (f->rr + i) % PL2_QD_BUCKETS;
		if (!skb_queue_empty(&f->q[b]))
			return b;
	}
	return -1;
}

static struct sk_buff *pl2_qd_peek_flow(const struct pl2_qd_flow *f)
{
	int b = pl2_qd_next_bucket(f);

	return b < 0 ? NULL : skb_peek(&f->q[b]);
}

/* Take the next @n packets of @f into @burst */
static u32 pl2_qd_take(struct pl2_qd_flow *f, struct sk_buff_head *burst,
		       u32 n)
{
	u32 taken = 0;
	int b;

	while (taken < n && (b = pl2_qd_next_bucket(f)) >= 0) {
		__skb_queue_tail(burst, __skb_dequeue(&f->q[b]));
		f->qlen--;
		f->rr = (b + 1) % PL2_QD_BUCKETS;
		taken++;
	}
	return taken;
}

/* @burst goes to the device's queue */
static void pl2_qd_send(struct pl2_qd_sched *q, struct sk_buff_head *burst)
{
	if (skb_queue_empty(burst))
		return;
	q->st.bursts++;
	q->st.burst_pkts += skb_queue_len(burst);
	skb_queue_splice_tail_init(burst, &q->ready);
}

/* The packets of @f's next burst */
static u32 pl2_qd_demand(const struct pl2_qd_sched *q,
			 const struct pl2_qd_flow *f)
{
	return min(f->qlen, q->set.k);
}

/* A free exchange of @f, if it may start one: packets wait in no burst,
 * and their burst fits under outstanding x K reserved.  A burst is not
 * cut to the room left, or a busy flow would reserve a packet at a time.
 */
static struct pl2_qd_xchg *pl2_qd_free_xchg(const struct pl2_qd_sched *q,
					    struct pl2_qd_flow *f)
{
	u32 i, demand = pl2_qd_demand(q, f);

	if (!demand || f->reserved + demand > q->set.outstanding * q->set.k)
		return NULL;
	for (i = 0; i < PL2_QD_XCHG_MAX; i++) {
		if (f->x[i].state == PL2_QD_FREE)
			return &f->x[i];
	}
	return NULL;
}

/* Start exchange @x of @f for its next @demand packets: the RSV, and
 * with Algorithm 2's leave the burst at once (only when no older burst
 * waits, which it would overtake).  False: no RSV could be built, and
 * the burst goes a slot on (the switch's queue takes it).
 */
static bool pl2_qd_start(struct Qdisc *sch, struct pl2_qd_sched *q,
			 struct pl2_qd_flow *f, struct pl2_qd_xchg *x,
			 u32 demand, u64 now)
{
	struct sk_buff *rsv;
	u64 at;

	x->seq = q->next_seq++ & PL2_QD_SEQ_MASK;
	rsv = pl2_qd_build_rsv(q, pl2_qd_peek_flow(f), &f->dst, x->seq,
			       demand);
	x->demand = pl2_qd_take(f, &x->burst, demand);
	x->unsol = false;
	f->reserved += x->demand;
	f->nr_out++;
	q->nr_waiting++;
	list_add_tail(&x->order, &f->order);
	if (!rsv) {
		q->st.rsv_nomem++;
		x->state = PL2_QD_GRANTED;
		pl2_qd_time(q, x, now + q->cfg.slot_ns);
		return false;
	}
	/* ahead of everything reserved, its burst included; the parents
	 * (a shaper above pl2) are told of one more packet, as a GSO
	 * split tells them
	 */
	pl2_qd_hold(sch, &q->direct, rsv);
	if (sch->parent != TC_H_ROOT)
		qdisc_tree_reduce_backlog(sch, -1, -(int)qdisc_pkt_len(rsv));
	q->st.rsv++;
	x->rsv_ns = now;
	x->state = PL2_QD_RSV;
	if (list_is_first(&x->order, &f->order) &&
	    pl2_may_unsol(&q->cfg, &f->peer, now)) {
		x->unsol = true;
		q->st.unsol++;
		list_del_init(&x->order);
		pl2_qd_send(q, &x->burst);
	}
	at = now + (u64)q->set.timeout_us * NSEC_PER_USEC;
	pl2_qd_time(q, x, at);
	return true;
}

/* Start every exchange @f may, each for up to K of the packets in no
 * burst yet: a sparse sender's packet does not wait for an exchange it
 * missed, and a busy one is held to outstanding x K packets reserved,
 * in bursts of K
 */
static void pl2_qd_kick(struct Qdisc *sch, struct pl2_qd_sched *q,
			struct pl2_qd_flow *f, u64 now)
{
	struct pl2_qd_xchg *x;

	while ((x = pl2_qd_free_xchg(q, f))) {
		if (!pl2_qd_start(sch, q, f, x, pl2_qd_demand(q, f), now))
			break;
	}
	pl2_qd_idle_check(q, f);
}

/* @x is over: its burst went, or went unsolicited and its GRT came */
static void pl2_qd_end(struct pl2_qd_sched *q, struct pl2_qd_xchg *x)
{
	struct pl2_qd_flow *f = x->f;

	list_del_init(&x->timed);
	list_del_init(&x->order);
	f->reserved -= x->demand;
	f->nr_out--;
	q->nr_waiting--;
	x->state = PL2_QD_FREE;
}

/* The bursts of @f whose time came go, oldest first, up to the first
 * whose time has not come
 */
static void pl2_qd_flush(struct pl2_qd_sched *q, struct pl2_qd_flow *f)
{
	struct pl2_qd_xchg *x;

	while ((x = list_first_entry_or_null(&f->order, struct pl2_qd_xchg,
					     order)) &&
	       x->state == PL2_QD_DUE) {
		pl2_qd_send(q, &x->burst);
		pl2_qd_end(q, x);
	}
}

/* ---- the GRT ---- */

/* A GRT for @q from @src: time the burst it names */
static void pl2_qd_grt(struct pl2_qd_sched *q, const struct in6_addr *src,
		       const struct shoal_wire_pkt *w)
{
	struct pl2_qd_xchg *x = NULL;
	enum pl2_grt_action a;
	struct pl2_qd_flow *f;
	u64 now, wait;
	u32 i;

	spin_lock(&q->lock);
	f = q->dead ? NULL : pl2_qd_find(q, src);
	for (i = 0; f && i < PL2_QD_XCHG_MAX && !x; i++)
		if (f->x[i].state == PL2_QD_RSV && f->x[i].seq == w->offset)
			x = &f->x[i];
	if (!x) {
		q->st.grt_stale++;
		goto out;
	}
	now = ktime_get_ns();
	a = pl2_on_grt(&q->cfg, &f->peer, now, x->rsv_ns, w->word, x->unsol,
		       q->free_ns, &wait);
	q->st.grt++;
	/* never held longer than a GRT that did not come would hold it: a
	 * GRT of a misconfigured (or forged) slot must not stall the host
	 */
	wait = min_t(u64, wait, (u64)q->set.timeout_us * NSEC_PER_USEC);
	if (a == PL2_SEND_AT) {
		x->state = PL2_QD_GRANTED;
		if (wait) {
			q->st.waits++;
			q->st.wait_ns += wait;
		}
	} else {
		/* an unsolicited burst went; no copy is kept for a late one
		 * (its transport recovers what a switch drops)
		 */
		x->state = PL2_QD_DONE;
		wait = 0;
	}
	pl2_qd_time(q, x, now + wait);
	pl2_qd_arm(q);
out:
	spin_unlock(&q->lock);
}

/* Does this UDP datagram to our port carry a GRT of ours?  Read with the
 * tree's one Shoal parser
 */
static bool pl2_qd_is_grt(struct sk_buff *skb, int uoff, u32 ulen,
			  struct shoal_wire_pkt *w)
{
	u8 buf[SHOAL_HDR_MAX];
	const u8 *h;
	u32 len, avail;

	if (ulen < sizeof(struct udphdr) + SHOAL_HDR_LEN ||
	    skb->len < uoff + ulen)
		return false;
	len = ulen - sizeof(struct udphdr);
	avail = min_t(u32, len, SHOAL_HDR_MAX);
	h = skb_header_pointer(skb, uoff + sizeof(struct udphdr), avail, buf);
	if (!h || shoal_wire_parse(h, avail, len, U32_MAX, w))
		return false;
	return w->type == SHOAL_T_GRT && !w->sport && !w->dport;
}

static unsigned int pl2_qd_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct pl2_qd_net *pn = net_generic(state->net, pl2_qd_net_id);
	struct shoal_wire_pkt w;
	struct pl2_qd_sched *q;
	const struct udphdr *uh;
	struct udphdr _uh;
	struct in6_addr src;
	int uoff;

	if (list_empty(&pn->qdiscs))
		return NF_ACCEPT;
	if (state->pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		if (iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
			return NF_ACCEPT;
		uoff = skb_network_offset(skb) + iph->ihl * 4;
		ipv6_addr_set_v4mapped(iph->saddr, &src);
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		if (ip6->nexthdr != IPPROTO_UDP)
			return NF_ACCEPT;
		uoff = skb_network_offset(skb) + sizeof(*ip6);
		src = ip6->saddr;
	}
	uh = skb_header_pointer(skb, uoff, sizeof(_uh), &_uh);
	if (!uh || !pl2_qd_is_grt(skb, uoff, ntohs(uh->len), &w))
		return NF_ACCEPT;
	list_for_each_entry_rcu(q, &pn->qdiscs, node) {
		if (q->cookie != w.msg_id ||
		    READ_ONCE(q->set.port) != ntohs(uh->dest))
			continue;
		/* a corrupted GRT must not time a burst */
		if (nf_checksum(skb, state->hook, uoff, IPPROTO_UDP,
				state->pf))
			return NF_ACCEPT;
		pl2_qd_grt(q, &src, &w);
		consume_skb(skb);
		return NF_STOLEN;
	}
	return NF_ACCEPT;
}

static const struct nf_hook_ops pl2_qd_nf_ops[] = {
	{
		.hook		= pl2_qd_hook,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP_PRI_FIRST,
	},
	{
		.hook		= pl2_qd_hook,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP6_PRI_FIRST,
	},
};

/* ---- enqueue, dequeue ---- */

static int pl2_qd_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			      struct sk_buff **to_free)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);
	enum pl2_qd_class c;
	struct pl2_qd_flow *f;
	struct in6_addr dst;

	c = pl2_qd_classify(q, skb, &dst);
	if (unlikely(sch->q.qlen >= q->set.limit)) {
		q->st.drop_limit++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (c != PL2_QD_RESERVE) {
		q->st.passed++;
		pl2_qd_hold(sch, &q->direct, skb);
		return NET_XMIT_SUCCESS;
	}
	spin_lock(&q->lock);
	f = pl2_qd_get(q, &dst);
	if (!f) {
		spin_unlock(&q->lock);
		q->st.drop_flows++;
		return qdisc_drop(skb, sch, to_free);
	}
	__skb_queue_tail(&f->q[reciprocal_scale(skb_get_hash(skb),
						PL2_QD_BUCKETS)], skb);
	f->qlen++;
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	pl2_qd_kick(sch, q, f, ktime_get_ns());
	pl2_qd_arm(q);
	spin_unlock(&q->lock);
	return NET_XMIT_SUCCESS;
}

/* One packet per skb: the switch counts packets, and a slot is a frame */
static int pl2_qd_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			  struct sk_buff **to_free)
{
	u64 unused;

	if (skb_is_gso(skb))
		return shoal_gso_segment(skb, sch, to_free,
					 pl2_qd_enqueue_one, &unused, NULL);
	return pl2_qd_enqueue_one(skb, sch, to_free);
}

/* Every exchange whose time has come: its burst goes once the older
 * ones of its destination have, and new exchanges may start
 */
static void pl2_qd_run(struct Qdisc *sch, struct pl2_qd_sched *q, u64 now)
{
	struct pl2_qd_xchg *x;
	struct pl2_qd_flow *f;

	while ((x = list_first_entry_or_null(&q->timed, struct pl2_qd_xchg,
					     timed)) && x->at <= now) {
		f = x->f;
		list_del_init(&x->timed);
		if (x->state == PL2_QD_RSV)
			q->st.timeouts++;
		if (x->unsol)
			pl2_qd_end(q, x);
		else
			x->state = PL2_QD_DUE;
		pl2_qd_flush(q, f);
		pl2_qd_kick(sch, q, f, now);
	}
}

static struct sk_buff *pl2_qd_dequeue(struct Qdisc *sch)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now = ktime_get_ns();

	spin_lock(&q->lock);
	pl2_qd_run(sch, q, now);
	skb = __skb_dequeue(&q->direct);
	if (!skb)
		skb = __skb_dequeue(&q->ready);
	if (skb)
		pl2_uplink_add(&q->free_ns, now, qdisc_pkt_len(skb),
			       q->cfg.rate_bps);
	pl2_qd_arm(q);
	spin_unlock(&q->lock);
	if (!skb)
		return NULL;
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/* Drop every packet; exchanges out are forgotten (their GRTs are stale) */
static void pl2_qd_purge(struct Qdisc *sch, struct pl2_qd_sched *q,
			 bool free_flows)
{
	struct pl2_qd_flow *f;
	struct hlist_node *tmp;
	u32 i, b;

	__skb_queue_purge(&q->direct);
	__skb_queue_purge(&q->ready);
	spin_lock_bh(&q->lock);
	for (i = 0; i < ARRAY_SIZE(q->hash); i++)
		hlist_for_each_entry_safe(f, tmp, &q->hash[i], node) {
			for (b = 0; b < PL2_QD_BUCKETS; b++)
				__skb_queue_purge(&f->q[b]);
			f->qlen = 0;
			f->reserved = 0;
			f->nr_out = 0;
			for (b = 0; b < PL2_QD_XCHG_MAX; b++) {
				__skb_queue_purge(&f->x[b].burst);
				f->x[b].state = PL2_QD_FREE;
				list_del_init(&f->x[b].timed);
				list_del_init(&f->x[b].order);
			}
			if (free_flows)
				pl2_qd_free_flow(q, f);
			else
				pl2_qd_idle_check(q, f);
		}
	q->nr_waiting = 0;
	spin_unlock_bh(&q->lock);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

static void pl2_qd_reset(struct Qdisc *sch)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);

	pl2_qd_purge(sch, q, false);
	qdisc_watchdog_cancel(&q->watchdog);
}

/* ---- configuration ---- */

static struct netlink_range_validation pl2_qd_limit_range = {
	.min = 1,
	.max = PL2_QD_MAX_LIMIT,
};

static struct netlink_range_validation pl2_qd_flows_range = {
	.min = 1,
	.max = PL2_QD_MAX_FLOWS,
};

static struct netlink_range_validation pl2_qd_slot_range = {
	.min = 0,
	.max = PL2_QD_SLOT_NS_MAX,
};

static struct netlink_range_validation pl2_qd_unsol_range = {
	.min = 0,
	.max = PL2_SLOT_FIELD,
};

static struct netlink_range_validation pl2_qd_timeout_range = {
	.min = 1,
	.max = PL2_QD_TIMEOUT_US_MAX,
};

static const struct nla_policy pl2_qd_policy[TCA_PL2_MAX + 1] = {
	[TCA_PL2_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &pl2_qd_limit_range),
	[TCA_PL2_FLOWS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &pl2_qd_flows_range),
	[TCA_PL2_K]	= NLA_POLICY_RANGE(NLA_U32, 1, PL2_QD_K_MAX),
	[TCA_PL2_RATE]	= { .type = NLA_U64 },
	[TCA_PL2_SLOT_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, &pl2_qd_slot_range),
	[TCA_PL2_RSV_TIMEOUT_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pl2_qd_timeout_range),
	[TCA_PL2_UNSOL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &pl2_qd_unsol_range),
	[TCA_PL2_SHOAL_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[TCA_PL2_DOMAIN4] = NLA_POLICY_EXACT_LEN(sizeof(struct tc_pl2_prefix)),
	[TCA_PL2_DOMAIN6] = NLA_POLICY_EXACT_LEN(sizeof(struct tc_pl2_prefix)),
	[TCA_PL2_OUTSTANDING] =
		NLA_POLICY_RANGE(NLA_U32, 1, PL2_QD_OUTSTANDING_MAX),
};

static void pl2_qd_defaults(struct pl2_qd_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->limit = PL2_QD_DEF_LIMIT;
	s->flows = PL2_QD_DEF_FLOWS;
	s->k = PL2_QD_DEF_K;
	s->outstanding = PL2_QD_DEF_OUTSTANDING;
	s->timeout_us = PL2_QD_DEF_TIMEOUT_US;
	s->port = SHOAL_UDP_PORT;
}

/* A prefix as given, its host bits cleared */
static int pl2_qd_prefix(struct tc_pl2_prefix *p, const struct nlattr *a,
			 bool v6, struct netlink_ext_ack *extack)
{
	struct tc_pl2_prefix v;
	struct in6_addr m;

	memcpy(&v, nla_data(a), sizeof(v));
	if (v.plen > (v6 ? 128 : 32)) {
		if (v6)
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "IPv6 domain prefix length above 128");
		else
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "IPv4 domain prefix length above 32");
		return -EINVAL;
	}
	if (v6) {
		ipv6_addr_prefix(&m, (const struct in6_addr *)v.addr, v.plen);
		memcpy(v.addr, &m, sizeof(m));
	} else {
		v.addr[0] &= v.plen ? inet_make_mask(v.plen) : 0;
		v.addr[1] = 0;
		v.addr[2] = 0;
		v.addr[3] = 0;
	}
	memset(v.pad, 0, sizeof(v.pad));
	*p = v;
	return 0;
}

static int pl2_qd_parse(struct pl2_qd_settings *s, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	int err;

	if (tb[TCA_PL2_LIMIT])
		s->limit = nla_get_u32(tb[TCA_PL2_LIMIT]);
	if (tb[TCA_PL2_FLOWS])
		s->flows = nla_get_u32(tb[TCA_PL2_FLOWS]);
	if (tb[TCA_PL2_K])
		s->k = nla_get_u32(tb[TCA_PL2_K]);
	if (tb[TCA_PL2_RATE])
		s->rate = nla_get_u64(tb[TCA_PL2_RATE]);
	if (tb[TCA_PL2_SLOT_NS])
		s->slot_ns = nla_get_u32(tb[TCA_PL2_SLOT_NS]);
	if (tb[TCA_PL2_RSV_TIMEOUT_US])
		s->timeout_us = nla_get_u32(tb[TCA_PL2_RSV_TIMEOUT_US]);
	if (tb[TCA_PL2_UNSOL])
		s->unsol = nla_get_u32(tb[TCA_PL2_UNSOL]);
	if (tb[TCA_PL2_OUTSTANDING])
		s->outstanding = nla_get_u32(tb[TCA_PL2_OUTSTANDING]);
	if (tb[TCA_PL2_SHOAL_PORT])
		s->port = nla_get_u16(tb[TCA_PL2_SHOAL_PORT]);
	if (tb[TCA_PL2_DOMAIN4]) {
		err = pl2_qd_prefix(&s->dom4, tb[TCA_PL2_DOMAIN4], false,
				    extack);
		if (err)
			return err;
	}
	if (tb[TCA_PL2_DOMAIN6]) {
		err = pl2_qd_prefix(&s->dom6, tb[TCA_PL2_DOMAIN6], true,
				    extack);
		if (err)
			return err;
	}
	if (s->rate && s->rate < PL2_QD_FRAME) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PL2_RATE],
				    "rate below one frame a second");
		return -EINVAL;
	}
	if (s->rate > PL2_QD_MAX_RATE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_PL2_RATE],
				    "rate above 2^40 bytes a second");
		return -EINVAL;
	}
	return 0;
}

/* The link's rate: as set, else the device's speed, else 1 Gbit/s */
static u64 pl2_qd_dev_rate(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed && ks.base.speed != SPEED_UNKNOWN)
		return (u64)ks.base.speed * 1000000ULL / 8;
	return PL2_QD_DEF_RATE;
}

/* The newest packet of @f's fullest bucket, taken off */
static struct sk_buff *pl2_qd_drop_tail(struct pl2_qd_flow *f)
{
	u32 b, most = 0;

	for (b = 1; b < PL2_QD_BUCKETS; b++)
		if (skb_queue_len(&f->q[b]) > skb_queue_len(&f->q[most]))
			most = b;
	if (skb_queue_empty(&f->q[most]))
		return NULL;
	f->qlen--;
	return __skb_dequeue_tail(&f->q[most]);
}

/* Shrink to the limit: newest packets first (the flows', then ours) */
static void pl2_qd_shrink(struct Qdisc *sch, struct pl2_qd_sched *q)
{
	u32 dropped = 0, bytes = 0, i;
	struct pl2_qd_flow *f;
	struct sk_buff *skb;

	spin_lock_bh(&q->lock);
	for (i = 0; i < ARRAY_SIZE(q->hash) && sch->q.qlen > q->set.limit;
	     i++)
		hlist_for_each_entry(f, &q->hash[i], node)
			while (sch->q.qlen > q->set.limit &&
			       (skb = pl2_qd_drop_tail(f))) {
				dropped++;
				bytes += qdisc_pkt_len(skb);
				sch->q.qlen--;
				qdisc_qstats_backlog_dec(sch, skb);
				qdisc_qstats_drop(sch);
				rtnl_kfree_skbs(skb, skb);
			}
	spin_unlock_bh(&q->lock);
	while (sch->q.qlen > q->set.limit &&
	       ((skb = __skb_dequeue_tail(&q->direct)) ||
		(skb = __skb_dequeue_tail(&q->ready)))) {
		dropped++;
		bytes += qdisc_pkt_len(skb);
		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		rtnl_kfree_skbs(skb, skb);
	}
	q->st.drop_limit += dropped;
	qdisc_tree_reduce_backlog(sch, dropped, bytes);
}

static int pl2_qd_change(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_PL2_MAX + 1];
	struct pl2_qd_settings s = q->set;
	struct pl2_cfg c;
	u64 rate;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_PL2_MAX, opt, pl2_qd_policy,
				       extack);
		if (err < 0)
			return err;
		err = pl2_qd_parse(&s, tb, extack);
		if (err)
			return err;
	}
	rate = s.rate ? s.rate : pl2_qd_dev_rate(qdisc_dev(sch));
	c.k = s.k;
	c.t = s.unsol;
	c.rate_bps = rate * 8;
	c.slot_ns = s.slot_ns ? s.slot_ns :
		    pl2_bytes_ns(PL2_QD_FRAME, c.rate_bps);
	if (!c.slot_ns)
		c.slot_ns = 1;

	sch_tree_lock(sch);
	spin_lock_bh(&q->lock);
	q->set = s;
	q->cfg = c;
	q->rate = rate;
	spin_unlock_bh(&q->lock);
	pl2_qd_shrink(sch, q);
	sch_tree_unlock(sch);
	return 0;
}

static int pl2_qd_init(struct Qdisc *sch, struct nlattr *opt,
		       struct netlink_ext_ack *extack)
{
	struct pl2_qd_net *pn = net_generic(qdisc_net(sch), pl2_qd_net_id);
	struct pl2_qd_sched *q = qdisc_priv(sch);
	int err;
	u32 i;

	/* destroy runs after a failed init: everything it reads first */
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->node);
	INIT_LIST_HEAD(&q->timed);
	INIT_LIST_HEAD(&q->idle);
	for (i = 0; i < ARRAY_SIZE(q->hash); i++)
		INIT_HLIST_HEAD(&q->hash[i]);
	__skb_queue_head_init(&q->direct);
	__skb_queue_head_init(&q->ready);
	q->sch = sch;
	qdisc_watchdog_init(&q->watchdog, sch);
	pl2_qd_defaults(&q->set);
	q->cookie = get_random_u64();
	q->next_seq = get_random_u32();
	err = pl2_qd_change(sch, opt, extack);
	if (err)
		return err;
	spin_lock_bh(&pn->lock);
	list_add_tail_rcu(&q->node, &pn->qdiscs);
	spin_unlock_bh(&pn->lock);
	return 0;
}

static void pl2_qd_destroy(struct Qdisc *sch)
{
	struct pl2_qd_net *pn = net_generic(qdisc_net(sch), pl2_qd_net_id);
	struct pl2_qd_sched *q = qdisc_priv(sch);

	spin_lock_bh(&pn->lock);
	list_del_rcu(&q->node);
	spin_unlock_bh(&pn->lock);
	/* qdisc_create() frees a qdisc whose setup failed after init at
	 * once, without a grace period: no hook may still be in it
	 */
	synchronize_net();
	spin_lock_bh(&q->lock);
	q->dead = true;
	spin_unlock_bh(&q->lock);
	qdisc_watchdog_cancel(&q->watchdog);
	pl2_qd_purge(sch, q, true);
}

static int pl2_qd_put_prefix(struct sk_buff *skb, int type,
			     const struct tc_pl2_prefix *p)
{
	return nla_put(skb, type, sizeof(*p), p);
}

static int pl2_qd_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);
	const struct pl2_qd_settings *s = &q->set;
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_PL2_LIMIT, s->limit) ||
	    nla_put_u32(skb, TCA_PL2_FLOWS, s->flows) ||
	    nla_put_u32(skb, TCA_PL2_K, s->k) ||
	    nla_put_u64_64bit(skb, TCA_PL2_RATE, s->rate, TCA_PL2_PAD) ||
	    nla_put_u32(skb, TCA_PL2_SLOT_NS, s->slot_ns) ||
	    nla_put_u32(skb, TCA_PL2_RSV_TIMEOUT_US, s->timeout_us) ||
	    nla_put_u32(skb, TCA_PL2_UNSOL, s->unsol) ||
	    nla_put_u32(skb, TCA_PL2_OUTSTANDING, s->outstanding) ||
	    nla_put_u16(skb, TCA_PL2_SHOAL_PORT, s->port) ||
	    pl2_qd_put_prefix(skb, TCA_PL2_DOMAIN4, &s->dom4) ||
	    pl2_qd_put_prefix(skb, TCA_PL2_DOMAIN6, &s->dom6))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int pl2_qd_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct pl2_qd_sched *q = qdisc_priv(sch);
	struct tc_pl2_xstats st;

	sch_tree_lock(sch);
	spin_lock_bh(&q->lock);
	st = q->st;
	st.flows = q->nr_flows;
	st.waiting = q->nr_waiting;
	st.rate = q->rate;
	st.slot_ns = q->cfg.slot_ns;
	spin_unlock_bh(&q->lock);
	sch_tree_unlock(sch);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops pl2_qd_ops __read_mostly = {
	.id		= "pl2",
	.priv_size	= sizeof(struct pl2_qd_sched),
	.enqueue	= pl2_qd_enqueue,
	.dequeue	= pl2_qd_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= pl2_qd_init,
	.reset		= pl2_qd_reset,
	.destroy	= pl2_qd_destroy,
	.change		= pl2_qd_change,
	.dump		= pl2_qd_dump,
	.dump_stats	= pl2_qd_dump_stats,
	.owner		= THIS_MODULE,
};

/* ---- per network namespace: the GRT hook ---- */

static int __net_init pl2_qd_net_init(struct net *net)
{
	struct pl2_qd_net *pn = net_generic(net, pl2_qd_net_id);

	spin_lock_init(&pn->lock);
	INIT_LIST_HEAD(&pn->qdiscs);
	return nf_register_net_hooks(net, pl2_qd_nf_ops,
				     ARRAY_SIZE(pl2_qd_nf_ops));
}

static void __net_exit pl2_qd_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, pl2_qd_nf_ops, ARRAY_SIZE(pl2_qd_nf_ops));
}

static struct pernet_operations pl2_qd_net_ops = {
	.init	= pl2_qd_net_init,
	.exit	= pl2_qd_net_exit,
	.id	= &pl2_qd_net_id,
	.size	= sizeof(struct pl2_qd_net),
};

static int __init pl2_qd_module_init(void)
{
	int err;

	err = register_pernet_subsys(&pl2_qd_net_ops);
	if (err)
		return err;
	err = register_qdisc(&pl2_qd_ops);
	if (err)
		unregister_pernet_subsys(&pl2_qd_net_ops);
	return err;
}

static void __exit pl2_qd_module_exit(void)
{
	unregister_qdisc(&pl2_qd_ops);
	unregister_pernet_subsys(&pl2_qd_net_ops);
}

module_init(pl2_qd_module_init);
module_exit(pl2_qd_module_exit);
MODULE_DESCRIPTION("PL2 reservations for any traffic a host sends");
MODULE_AUTHOR("Shoal developers");
MODULE_LICENSE("GPL");
