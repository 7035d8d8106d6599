// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the Shoal transport (Documentation/shoal.md).  This file
 * loads the module and gives every network namespace its own instance:
 * the UDP socket (shoal_udp.c, opened by the namespace's first Shoal
 * socket), the sysctls (shoal_sysctl.c) and the statistics
 * (shoal_proc.c).
 *
 * Locking: namespace init and exit run in process context, serialised by
 * the pernet machinery; see shoal_impl.h for the rest.
 */
#include <linux/module.h>
#include <linux/random.h>

#include "shoal_impl.h"

static int udp_port = SHOAL_UDP_PORT;
module_param(udp_port, int, 0444);
MODULE_PARM_DESC(udp_port,
		 "UDP port of a new namespace (net.shoal.udp_port), opened with its first Shoal socket");

static int proto_sird = IPPROTO_SIRD;
module_param(proto_sird, int, 0444);
MODULE_PARM_DESC(proto_sird,
		 "protocol number of SIRD sockets (socket(..., SOCK_DGRAM, N))");

static int proto_pl2 = IPPROTO_PL2;
module_param(proto_pl2, int, 0444);
MODULE_PARM_DESC(proto_pl2,
		 "protocol number of PL2 sockets (socket(..., SOCK_DGRAM, N))");

unsigned int shoal_net_id __read_mostly;

/* A new namespace's net.shoal.* (Documentation/shoal.md) */
static const struct shoal_cfg shoal_cfg_default = {
	.mss = 1400,
	.bdp = 65536,
	.unsch_thresh = 65536,
	.resend_ms = 10,
	.timeout_resends = 50,
	.rcvbuf = 4 << 20,
	.sndbuf = 4 << 20,
	.sird_b = 98304,		/* 1.5 x bdp */
	.sird_sthr = 32768,		/* 0.5 x bdp */
	.sird_g_shift = 4,		/* g = 1/16 */
	.sird_rtt_us = 100,
	.sird_rate_mbps = 0,
	.sird_tx_rate_mbps = 0,
	.sird_fair_permille = 500,	/* the paper's evaluation */
	.sird_rx_fair_permille = 0,	/* SRPT: the paper's evaluation */
	.sird_rx_fifo_permille = 100,	/* bounds newest-first's wait */
	.sird_pace_unsched = 1,		/* beyond the paper (shoal.md) */
	.pl2_k = 4,			/* the paper's K */
	.pl2_t = 2,			/* about an RSV-GRT delay here */
	.pl2_rate_mbps = 1000,
	.pl2_slot_ns = 0,		/* 1514 bytes at pl2_rate_mbps */
	.pl2_outstanding = 1,		/* one exchange per destination */
	.pl2_rsv_timeout_us = 20000,
	.pl2_fifo_permille = 100,	/* bounds newest-first's wait */
	.fold_acks = 1,			/* Homa's way: beyond SIRD */
	.link_mbps = 0,			/* the device's speed */
	.link_rtt_us = 5000,		/* the guest's loaded round trip */
};

static int __net_init shoal_net_init(struct net *net)
{
	struct shoal_net *sn = shoal_net(net);
	int err, i;

	sn->net = net;
	mutex_init(&sn->lock);
	spin_lock_init(&sn->ports_lock);
	for (i = 0; i < SHOAL_PORT_HASH; i++)
		INIT_HLIST_HEAD(&sn->ports[i]);
	sn->next_port = get_random_u32();
	sn->max_msg_len = SHOAL_MSG_DEFAULT;
	sn->cfg = shoal_cfg_default;
	shoal_cfg_fit(sn);		/* no device yet: the old defaults */
	shoal_dev_init(sn);
	shoal_sird_init(&sn->sird, sn);
	shoal_sird_tx_init(&sn->sird_tx, sn);
	shoal_pl2_net_init(&sn->pl2);
	/* no port yet: the namespace's first Shoal socket opens it */
	refcount_set(&sn->udp_users, 0);
	sn->udp_port = udp_port;
	sn->stats = alloc_percpu(struct shoal_stats);
	if (!sn->stats)
		return -ENOMEM;
	err = shoal_proc_init(sn);
	if (err)
		goto free_stats;
	err = shoal_sysctl_init(sn);
	if (err)
		goto proc;
	return 0;

proc:
	shoal_proc_exit(sn);
free_stats:
	free_percpu(sn->stats);
	return err;
}

/* The sysctls go first: a write of udp_port in flight is waited for and
 * cannot open a socket after the close
 */
static void __net_exit shoal_net_exit(struct net *net)
{
	struct shoal_net *sn = shoal_net(net);

	shoal_sysctl_exit(sn);
	shoal_proc_exit(sn);
	mutex_lock(&sn->lock);
	shoal_udp_close(sn);
	mutex_unlock(&sn->lock);
	synchronize_rcu();	/* a packet still being counted */
	shoal_sird_exit(&sn->sird);
	shoal_sird_tx_exit(&sn->sird_tx);
	cancel_work_sync(&sn->dev_work);	/* no packet goes out now */
	free_percpu(sn->stats);
}

static struct pernet_operations shoal_net_ops = {
	.init = shoal_net_init,
	.exit = shoal_net_exit,
	.id = &shoal_net_id,
	.size = sizeof(struct shoal_net),
};

/* The namespaces first: a socket created the moment the protocol is
 * registered finds its namespace's state
 */
static int __init shoal_init(void)
{
	int err;

	if (udp_port < 1 || udp_port > 65535) {
		pr_err("shoal: udp_port %d is not a port\n", udp_port);
		return -EINVAL;
	}
	/* 0 is IPPROTO_IP, which socket() takes as "the type's default" */
	if (proto_sird < 1 || proto_sird > 255 || proto_pl2 < 1 ||
	    proto_pl2 > 255 || proto_sird == proto_pl2) {
		pr_err("shoal: proto_sird %d and proto_pl2 %d must be two protocol numbers, 1..255\n",
		       proto_sird, proto_pl2);
		return -EINVAL;
	}
	shoal_objs_init();
	shoal_udp_keys_hold();
	err = shoal_rmem_init();
	if (err)
		goto keys;
	err = register_pernet_subsys(&shoal_net_ops);
	if (err)
		goto rmem;
	err = shoal_ipproto_claim(proto_sird, proto_pl2);
	if (err)
		goto pernet;
	err = shoal_sock_register(proto_sird, proto_pl2);
	if (err)
		goto ipproto;
	return 0;

ipproto:
	shoal_ipproto_release(proto_sird, proto_pl2);
pernet:
	unregister_pernet_subsys(&shoal_net_ops);
rmem:
	shoal_rmem_exit();
keys:
	shoal_udp_keys_release();
	shoal_objs_exit();
	return err;
}

/* No socket is open (each holds the module) */
static void __exit shoal_exit(void)
{
	shoal_sock_unregister();
	shoal_ipproto_release(proto_sird, proto_pl2);
	unregister_pernet_subsys(&shoal_net_ops);
	shoal_rmem_exit();
	shoal_udp_keys_release();	/* every UDP socket is closed */
	shoal_objs_exit();
}

module_init(shoal_init);
module_exit(shoal_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shoal: reliable message sockets over UDP");
