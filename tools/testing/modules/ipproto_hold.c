// SPDX-License-Identifier: GPL-2.0
/*
 * ipproto_hold.ko: a test module that holds one IP protocol number the way
 * a transport of its own does (Homa holds 253): the number's slot in the
 * IPv4 protocol table, and SOCK_DGRAM sockets of that number, which here
 * are plain UDP sockets.  scenario/shoal-coexist loads it beside shoal.ko
 * to see which of the two gets the number and what the tools say.
 *
 * Locking: none of its own (the IP layer's tables are RCU).
 */
#include <linux/module.h>
#include <net/inet_common.h>
#include <net/protocol.h>
#include <net/udp.h>

static int proto = 253;
module_param(proto, int, 0444);
MODULE_PARM_DESC(proto, "the IP protocol number to hold (1..255)");

static int hold_rcv(struct sk_buff *skb)
{
	kfree_skb(skb);
	return 0;
}

static const struct net_protocol hold_protocol = {
	.handler	= hold_rcv,
	.no_policy	= 1,
};

static struct inet_protosw hold_sw = {
	.type		= SOCK_DGRAM,
	.prot		= &udp_prot,
	.ops		= &inet_dgram_ops,
};

static int __init hold_init(void)
{
	if (proto < 1 || proto > 255) {
		pr_err("ipproto_hold: proto %d is not a protocol number\n",
		       proto);
		return -EINVAL;
	}
	if (inet_add_protocol(&hold_protocol, proto)) {
		pr_err("ipproto_hold: IP protocol %d is held already\n", proto);
		return -EBUSY;
	}
	hold_sw.protocol = proto;
	inet_register_protosw(&hold_sw);
	return 0;
}

static void __exit hold_exit(void)
{
	inet_unregister_protosw(&hold_sw);
	inet_del_protocol(&hold_protocol, proto);
}

module_init(hold_init);
module_exit(hold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shoal's tests: hold an IP protocol number");
