// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the UDP socket of a namespace.  Every Shoal packet travels as
 * UDP to one well-known port (net.shoal.udp_port); a kernel UDP tunnel
 * socket on that port hands each datagram to shoal_udp_rcv() with its
 * checksum verified.  One socket takes both families: AF_INET6 without
 * v6only, or AF_INET where IPv6 is off.  The namespace's first Shoal
 * socket opens it and its last closes it: a namespace that never uses
 * Shoal holds no port.  A peer without one answers our packets with ICMP
 * port unreachable, which stands for the refusal its port would send.
 *
 * Packets leave through udp_tunnel_xmit_skb() (or its IPv6 twin) from a
 * random source port each, so that ECMP spreads a message's packets, to
 * the namespace's Shoal port at the peer.
 *
 * Locking: see shoal_impl.h.  shoal_udp_rcv() runs in softirq context
 * under RCU, on the socket of the namespace it counts for.  Sending takes
 * no lock and may run in any context but hard interrupts.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/pkt_sched.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "shoal_impl.h"

static bool shoal_rx_ce(const struct sk_buff *skb)
{
	u8 dsfield;

	if (ip_hdr(skb)->version == 4)
		dsfield = ipv4_get_dsfield(ip_hdr(skb));
	else
		dsfield = ipv6_get_dsfield(ipv6_hdr(skb));
	return INET_ECN_is_ce(dsfield);
}

/* The sender of a datagram and the address it was sent to: IPv4 mapped
 * into IPv6
 */
static void shoal_rx_source(const struct sk_buff *skb, u16 port,
			    struct shoal_addr *a, struct in6_addr *local)
{
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &a->ip);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, local);
	} else {
		a->ip = ipv6_hdr(skb)->saddr;
		*local = ipv6_hdr(skb)->daddr;
	}
	a->port = port;
}

/* Whether a datagram was sent to this host alone.  Shoal talks to one
 * host at a time; one sent to a broadcast or multicast address would
 * have every host answer it (an RSV with a GRT, DATA for no socket with
 * UNKNOWN), multiplying what its forged source asked for.
 */
static bool shoal_rx_unicast(const struct sk_buff *skb)
{
	const struct rtable *rt;

	if (ip_hdr(skb)->version != 4)
		return !ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
	rt = skb_rtable(skb);
	return !rt || !(rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST));
}

/* One datagram, skb->data at its UDP header.  Returns 0: consumed.  The
 * namespace's state comes from the socket's namespace, not from
 * sk_user_data: a socket being closed (a port move) has that cleared
 * while packets may still reach it, and they are counted too.
 */
static int shoal_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct shoal_net *sn = shoal_net(sock_net(sk));
	struct shoal_wire_pkt pkt;
	struct in6_addr local;
	enum skb_drop_reason why;
	struct shoal_addr src;
	u32 len, head;
	bool ce;
	int err;

	len = skb->len - sizeof(struct udphdr);
	shoal_stat_inc(sn, SHOAL_STAT_RX_PACKETS);
	shoal_stat_add(sn, SHOAL_STAT_RX_BYTES, len);
	if (!shoal_rx_unicast(skb)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NOT_UNICAST);
		why = SKB_DROP_REASON_UNHANDLED_PROTO;
		goto free;
	}
	/* the header in the linear part; the payload may stay in frags */
	head = min_t(u32, len, SHOAL_HDR_MAX);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + head)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NOMEM);
		why = SKB_DROP_REASON_NOMEM;
		goto free;
	}
	err = shoal_wire_parse(skb->data + sizeof(struct udphdr), head, len,
			       READ_ONCE(sn->max_msg_len), &pkt);
	if (err) {
		this_cpu_inc(sn->stats->rx_bad[-err]);
		shoal_trace_rx_bad(-err);
		why = err == -SHOAL_WIRE_SHORT ? SKB_DROP_REASON_PKT_TOO_SMALL :
						 SKB_DROP_REASON_INVALID_PROTO;
		goto free;
	}
	this_cpu_inc(sn->stats->rx_type[pkt.type]);
	if (pkt.trimmed)
		shoal_stat_inc(sn, SHOAL_STAT_RX_TRIMMED);
	ce = shoal_rx_ce(skb);
	if (ce)
		shoal_stat_inc(sn, SHOAL_STAT_RX_CE);
	shoal_rx_source(skb, pkt.sport, &src, &local);
	shoal_sock_rcv(sn, skb, &pkt, &src, &local, ce);
	return 0;
free:
	shoal_rx_free(skb, why);
	return 0;
}

static bool shoal_icmp_port_unreach(const struct sk_buff *skb, u8 version)
{
	if (version == 4)
		return icmp_hdr(skb)->type == ICMP_DEST_UNREACH &&
		       icmp_hdr(skb)->code == ICMP_PORT_UNREACH;
	return icmp6_hdr(skb)->icmp6_type == ICMPV6_DEST_UNREACH &&
	       icmp6_hdr(skb)->icmp6_code == ICMPV6_PORT_UNREACH;
}

/* Every ICMP error about a datagram to our port's number is ours to look
 * at: the kernel found this socket by the port the datagram went to
 */
static int shoal_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

/* An ICMP error about a datagram we sent, in softirq context under RCU:
 * skb->data at the IP header it quotes, @udp_offset past it the UDP
 * header.  Port unreachable says the peer has no Shoal socket, so no
 * Shoal port: it stands for the refusal that port would have answered
 * the quoted packet with.  Other errors are left to the resends and
 * timeouts.  The quote is read, not pulled: the ICMP layer still owns
 * the skb.
 */
static void shoal_udp_err_rcv(struct sock *sk, struct sk_buff *skb,
			      unsigned int udp_offset)
{
	struct shoal_net *sn = shoal_net(sock_net(sk));
	struct shoal_wire_pkt sent;
	struct in6_addr local;
	struct shoal_addr peer;
	struct udphdr _uh, *uh;
	u8 buf[SHOAL_HDR_MAX];
	u32 len, avail;
	const u8 *h, *v;
	u8 version;

	v = skb_header_pointer(skb, 0, 1, buf);	/* the quoted IP version */
	if (!v)
		goto ignore;
	version = *v >> 4;
	if ((version != 4 && version != 6) ||
	    !shoal_icmp_port_unreach(skb, version))
		goto ignore;
	uh = skb_header_pointer(skb, udp_offset, sizeof(_uh), &_uh);
	if (!uh || ntohs(uh->len) < sizeof(*uh) ||
	    skb->len < udp_offset + sizeof(*uh))
		goto ignore;
	len = ntohs(uh->len) - sizeof(*uh);
	avail = min3(len, skb->len - udp_offset - (u32)sizeof(*uh),
		     (u32)SHOAL_HDR_MAX);
	h = skb_header_pointer(skb, udp_offset + sizeof(*uh), avail, buf);
	if (!h || shoal_wire_parse(h, avail, len, READ_ONCE(sn->max_msg_len),
				   &sent))
		goto ignore;
	if (version == 4) {
		struct iphdr _iph, *iph;

		iph = skb_header_pointer(skb, 0, sizeof(_iph), &_iph);
		if (!iph)
			goto ignore;
		ipv6_addr_set_v4mapped(iph->daddr, &peer.ip);
		ipv6_addr_set_v4mapped(iph->saddr, &local);
	} else {
		struct ipv6hdr _ip6h, *ip6h;

		ip6h = skb_header_pointer(skb, 0, sizeof(_ip6h), &_ip6h);
		if (!ip6h)
			goto ignore;
		peer.ip = ip6h->daddr;
		local = ip6h->saddr;
	}
	peer.port = sent.dport;
	if (!shoal_sock_unreachable(sn, &sent, &peer, &local))
		goto ignore;
	shoal_stat_inc(sn, SHOAL_STAT_RX_ICMP_UNREACH);
	return;
ignore:
	shoal_stat_inc(sn, SHOAL_STAT_RX_ICMP_IGNORED);
}

/* A UDP socket of @family on @port whose packets all come to us: it is
 * a tunnel socket before it is bound (udp_sock_create() binds first, and
 * a packet in between would sit in its receive queue, uncounted).
 */
static int shoal_udp_bind(struct shoal_net *sn, int family, int port,
			  struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = sn,
		.encap_type = 1,
		.encap_rcv = shoal_udp_rcv,
		.encap_err_lookup = shoal_udp_err_lookup,
		.encap_err_rcv = shoal_udp_err_rcv,
	};
	struct sockaddr_in6 a6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct sockaddr_in a4 = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct socket *sock;
	int err;

	err = sock_create_kern(sn->net, family, SOCK_DGRAM, 0, &sock);
	if (err)
		return err;
	if (family == AF_INET6)
		sock->sk->sk_ipv6only = false;	/* IPv4 too, mapped */
	setup_udp_tunnel_sock(sn->net, sock, &tcfg);
	if (family == AF_INET6)
		err = kernel_bind(sock, (struct sockaddr *)&a6, sizeof(a6));
	else
		err = kernel_bind(sock, (struct sockaddr *)&a4, sizeof(a4));
	if (err) {
		sock_release(sock);	/* never bound: no packet reached it */
		return err;
	}
	*sockp = sock;
	return 0;
}

/* Listen on @port instead of the current port; on failure the old
 * socket stays.  Under sn->lock.
 */
int shoal_udp_open(struct shoal_net *sn, int port)
{
	struct socket *sock, *old;
	int err = -EAFNOSUPPORT;

	lockdep_assert_held(&sn->lock);
	if (IS_ENABLED(CONFIG_IPV6))
		err = shoal_udp_bind(sn, AF_INET6, port, &sock);
	if (err == -EAFNOSUPPORT)	/* booted with ipv6.disable=1 */
		err = shoal_udp_bind(sn, AF_INET, port, &sock);
	if (err)
		return err;
	old = sn->sock;
	sn->sock = sock;
	sn->udp_port = port;
	if (old)
		udp_tunnel_sock_release(old);
	return 0;
}

/* No more packets to the socket.  One may still be in shoal_udp_rcv()
 * (a reader that found the socket before it went): wait for an RCU grace
 * period before freeing what that reads.
 */
void shoal_udp_close(struct shoal_net *sn)
{
	lockdep_assert_held(&sn->lock);
	if (sn->sock)
		udp_tunnel_sock_release(sn->sock);
	sn->sock = NULL;
}

/* Each UDP tunnel socket holds the UDP layer's static keys for tunnels
 * while it is open, so that the first to open turns them on and the last
 * to close turns them off, patching the kernel's code on every CPU each
 * time.  A namespace's port comes and goes with its sockets: the module
 * holds the keys as long as it is loaded, so that socket() and close()
 * never patch code (the same churn from sqr's guard locked up a TCG
 * guest).  With IPv6 on, the IPv6 key too.
 */
void shoal_udp_keys_hold(void)
{
	static_branch_inc(&udp_encap_needed_key);
#if IS_ENABLED(CONFIG_IPV6)
	static_branch_inc(&udpv6_encap_needed_key);
#endif
}

void shoal_udp_keys_release(void)
{
#if IS_ENABLED(CONFIG_IPV6)
	static_branch_dec(&udpv6_encap_needed_key);
#endif
	static_branch_dec(&udp_encap_needed_key);
}

/* A Shoal socket is made: the first of the namespace opens its UDP
 * port (net.shoal.udp_port), in process context.  A port in use is the
 * socket's error (EADDRINUSE).
 */
int shoal_udp_get(struct shoal_net *sn)
{
	int err = 0;

	if (refcount_inc_not_zero(&sn->udp_users))
		return 0;
	mutex_lock(&sn->lock);
	if (refcount_read(&sn->udp_users)) {
		refcount_inc(&sn->udp_users);
	} else {
		err = shoal_udp_open(sn, sn->udp_port);
		if (!err)
			refcount_set(&sn->udp_users, 1);
	}
	mutex_unlock(&sn->lock);
	return err;
}

/* A Shoal socket is gone: the last of the namespace closes the port */
void shoal_udp_put(struct shoal_net *sn)
{
	if (!refcount_dec_and_mutex_lock(&sn->udp_users, &sn->lock))
		return;
	shoal_udp_close(sn);
	mutex_unlock(&sn->lock);
}

/* DSCP CS6 for control packets, DSCP 0 with ECT(0) for data
 * (Documentation/wire.md)
 */
static u8 shoal_tos(u8 type)
{
	return type == SHOAL_T_DATA ? INET_ECN_ECT_0 : 48 << 2;
}

/* A random source port, but an RSV's is the Shoal port: the switch
 * returns it (as a GRT) to the port it came from
 */
static __be16 shoal_src_port(const struct shoal_net *sn, u8 type)
{
	if (type == SHOAL_T_RSV)
		return htons(READ_ONCE(sn->udp_port));
	return htons(0xc000 | (get_random_u16() & 0x3fff));
}

static int shoal_xmit4(struct shoal_net *sn, const struct shoal_addr *dst,
		       const struct in6_addr *saddr, struct sk_buff *skb,
		       u8 type)
{
	struct flowi4 fl4 = {
		.daddr = dst->ip.s6_addr32[3],
		.saddr = saddr ? saddr->s6_addr32[3] : 0,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(shoal_tos(type)),
	};
	struct rtable *rt;

	rt = ip_route_output_key(sn->net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	shoal_dev_seen(sn, rt->dst.dev);
	udp_tunnel_xmit_skb(rt, NULL, skb, fl4.saddr, fl4.daddr,
			    shoal_tos(type), ip4_dst_hoplimit(&rt->dst), 0,
			    shoal_src_port(sn, type),
			    htons(READ_ONCE(sn->udp_port)), false, false);
	return 0;
}

static int shoal_xmit6(struct shoal_net *sn, const struct shoal_addr *dst,
		       const struct in6_addr *saddr, struct sk_buff *skb,
		       u8 type)
{
	struct flowi6 fl6 = {
		.daddr = dst->ip,
		.saddr = saddr ? *saddr : in6addr_any,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(shoal_tos(type), 0),
	};
	struct dst_entry *d;

	if (!IS_ENABLED(CONFIG_IPV6) || !ipv6_stub->ipv6_dst_lookup_flow)
		return -EAFNOSUPPORT;
	d = ipv6_stub->ipv6_dst_lookup_flow(sn->net, NULL, &fl6, NULL);
	if (IS_ERR(d))
		return PTR_ERR(d);
	shoal_dev_seen(sn, d->dev);
	/* no tunnel device: its stats would be written into d->dev's */
	udp_tunnel6_xmit_skb(d, NULL, skb, NULL, &fl6.saddr, &fl6.daddr,
			     shoal_tos(type), ip6_dst_hoplimit(d), 0,
			     shoal_src_port(sn, type),
			     htons(READ_ONCE(sn->udp_port)), false);
	return 0;
}

/* Send @skb (a packet of @type from shoal_pkt.c) to @dst's Shoal
 * port, from @saddr (NULL or any: the route's choice); it is consumed, and
 * counted as sent or dropped
 */
void shoal_xmit(struct shoal_net *sn, const struct shoal_addr *dst,
		const struct in6_addr *saddr, struct sk_buff *skb, u8 type)
{
	u32 len = skb->len;
	int err;

	if (saddr && (ipv6_addr_any(saddr) ||
		      (ipv6_addr_v4mapped(saddr) && !saddr->s6_addr32[3])))
		saddr = NULL;
	/* PL2's reservations go ahead of data in prioritising queues */
	if (type == SHOAL_T_RSV || type == SHOAL_T_GRT)
		skb->priority = TC_PRIO_CONTROL;
	if (ipv6_addr_v4mapped(&dst->ip))
		err = shoal_xmit4(sn, dst, saddr, skb, type);
	else
		err = shoal_xmit6(sn, dst, saddr, skb, type);
	if (err) {
		shoal_stat_inc(sn, SHOAL_STAT_TX_DROP_NOROUTE);
		kfree_skb_reason(skb, SKB_DROP_REASON_IP_OUTNOROUTES);
		return;
	}
	shoal_stat_tx(sn, type, len);
}

/* Send a queue of packets built under a lock, once it is dropped: each
 * skb's cb holds its destination (struct shoal_tx_cb)
 */
void shoal_xmit_list(struct shoal_net *sn, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		struct shoal_tx_cb cb = *SHOAL_TX_CB(skb);

		memset(skb->cb, 0, sizeof(skb->cb));
		shoal_xmit(sn, &cb.dst, &cb.saddr, skb, cb.type);
	}
}

/* Payload bytes of a full DATA packet to @dst: the path's MTU less the
 * headers (with room for a folded ACK), at most net.shoal.mss
 */
u32 shoal_path_mss(struct shoal_net *sn, const struct shoal_addr *dst)
{
	u32 mss = READ_ONCE(sn->cfg.mss), mtu = 1500, hdr;

	if (ipv6_addr_v4mapped(&dst->ip)) {
		struct flowi4 fl4 = {
			.daddr = dst->ip.s6_addr32[3],
			.flowi4_proto = IPPROTO_UDP,
		};
		struct rtable *rt = ip_route_output_key(sn->net, &fl4);

		hdr = sizeof(struct iphdr);
		if (!IS_ERR(rt)) {
			mtu = dst_mtu(&rt->dst);
			ip_rt_put(rt);
		}
	} else {
		struct flowi6 fl6 = {
			.daddr = dst->ip,
			.flowi6_proto = IPPROTO_UDP,
		};
		struct dst_entry *d = ERR_PTR(-EAFNOSUPPORT);

		hdr = sizeof(struct ipv6hdr);
		if (IS_ENABLED(CONFIG_IPV6) && ipv6_stub->ipv6_dst_lookup_flow)
			d = ipv6_stub->ipv6_dst_lookup_flow(sn->net, NULL,
							   &fl6, NULL);
		if (!IS_ERR(d)) {
			mtu = dst_mtu(d);
			dst_release(d);
		}
	}
	hdr += sizeof(struct udphdr) + SHOAL_HDR_LEN + SHOAL_OPT_LEN;
	if (mtu < hdr + SHOAL_MSS_MIN)
		return SHOAL_MSS_MIN;
	return min(mss, mtu - hdr);
}
