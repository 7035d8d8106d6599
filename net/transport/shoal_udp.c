// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the UDP socket of a namespace.  Every Shoal packet travels as
 * UDP to one well-known port (net.shoal.udp_port); a kernel UDP tunnel
 * socket on that port hands each datagram to shoal_udp_rcv() with its
 * checksum verified.  One socket takes both families: AF_INET6 without
 * v6only, or AF_INET where IPv6 is off.
 *
 * Locking: see shoal_impl.h.  shoal_udp_rcv() runs in softirq context
 * under RCU, on the socket of the namespace it counts for.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
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

/* One datagram, skb->data at its UDP header.  Returns 0: consumed.  The
 * namespace's state comes from the socket's namespace, not from
 * sk_user_data: a socket being closed (a port move) has that cleared
 * while packets may still reach it, and they are counted too.
 */
static int shoal_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct shoal_net *sn = shoal_net(sock_net(sk));
	struct shoal_wire_pkt pkt;
	u32 len, head;
	int err;

	len = skb->len - sizeof(struct udphdr);
	shoal_stat_inc(sn, SHOAL_STAT_RX_PACKETS);
	shoal_stat_add(sn, SHOAL_STAT_RX_BYTES, len);
	/* the header in the linear part; the payload may stay in frags */
	head = min_t(u32, len, SHOAL_HDR_MAX);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + head)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NOMEM);
		goto free;
	}
	err = shoal_wire_parse(skb->data + sizeof(struct udphdr), head, len,
			       READ_ONCE(sn->max_msg_len), &pkt);
	if (err) {
		this_cpu_inc(sn->stats->rx_bad[-err]);
		goto free;
	}
	this_cpu_inc(sn->stats->rx_type[pkt.type]);
	if (pkt.trimmed)
		shoal_stat_inc(sn, SHOAL_STAT_RX_TRIMMED);
	if (shoal_rx_ce(skb))
		shoal_stat_inc(sn, SHOAL_STAT_RX_CE);
	/* no endpoint takes packets yet: counted, dropped */
	shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_SOCKET);
free:
	kfree_skb(skb);
	return 0;
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
