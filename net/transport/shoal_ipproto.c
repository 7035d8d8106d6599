// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the IP protocol numbers of its sockets.  Shoal's packets
 * travel as UDP; the numbers (module parameters proto_sird and proto_pl2,
 * IPPROTO_SIRD and IPPROTO_PL2 by default) only name the protocol to
 * socket().  socket() gives the protocol registered last for a number,
 * so a second module on the same number (Homa's IPPROTO_HOMA is 253 too)
 * would silently take it from the first.  Every transport of its own
 * number also takes the number's slot in the IP protocol table, so
 * shoal.ko does the same: loading refuses a number whose slot another
 * protocol holds, and a module loaded after it cannot take the number.
 * IP packets of those numbers (none is ever sent by Shoal) are dropped
 * and counted (rx_drop_ip_proto).
 *
 * Locking: none of its own; the IP layer's tables are RCU, and
 * inet_del_protocol() waits for the handlers running.
 */
#include <net/protocol.h>

#include "shoal_impl.h"

static int shoal_ip_rcv(struct sk_buff *skb)
{
	shoal_stat_inc(shoal_net(dev_net(skb->dev)), SHOAL_STAT_RX_DROP_IP_PROTO);
	kfree_skb_reason(skb, SKB_DROP_REASON_IP_NOPROTO);
	return 0;
}

static const struct net_protocol shoal_ip_protocol = {
	.handler	= shoal_ip_rcv,
	.no_policy	= 1,
};

#if IS_ENABLED(CONFIG_IPV6)
static const struct inet6_protocol shoal_ip6_protocol = {
	.handler	= shoal_ip_rcv,
	.flags		= INET6_PROTO_NOPOLICY | INET6_PROTO_FINAL,
};
#endif

static void shoal_ipproto_del(u8 num)
{
#if IS_ENABLED(CONFIG_IPV6)
	inet6_del_protocol(&shoal_ip6_protocol, num);
#endif
	inet_del_protocol(&shoal_ip_protocol, num);
}

static int shoal_ipproto_add(u8 num, const char *param)
{
	if (inet_add_protocol(&shoal_ip_protocol, num)) {
		pr_err("shoal: IP protocol %u is another protocol's (Homa's is 253); load shoal with %s=N, a number none holds\n",
		       num, param);
		return -EBUSY;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (inet6_add_protocol(&shoal_ip6_protocol, num)) {
		inet_del_protocol(&shoal_ip_protocol, num);
		pr_err("shoal: IPv6 next header %u is another protocol's; load shoal with %s=N, a number none holds\n",
		       num, param);
		return -EBUSY;
	}
#endif
	return 0;
}

int shoal_ipproto_claim(u8 sird, u8 pl2)
{
	int err = shoal_ipproto_add(sird, "proto_sird");

	if (err)
		return err;
	err = shoal_ipproto_add(pl2, "proto_pl2");
	if (err)
		shoal_ipproto_del(sird);
	return err;
}

void shoal_ipproto_release(u8 sird, u8 pl2)
{
	shoal_ipproto_del(pl2);
	shoal_ipproto_del(sird);
}
