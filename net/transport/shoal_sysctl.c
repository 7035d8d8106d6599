// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: net.shoal.* sysctls, one table per network namespace whose
 * entries point into that namespace's struct shoal_net.
 *
 * Some settings follow the link (shoal_cfg_fit()): the rates of SIRD's
 * two pacers and PL2's clock are the link's (net.shoal.link_mbps, or the
 * speed of the device Shoal's packets go out of), and SIRD's sizes (bdp,
 * unsch_thresh, sird_b, sird_sthr) that rate times net.shoal.link_rtt_us
 * (sird_core.h).  A setting written by hand is pinned: it keeps its value
 * whatever the link does.
 *
 * In a namespace the initial user namespace does not own (an unprivileged
 * user's, made with unshare -Urn), the settings that size memory or how
 * long a message lives (max_msg_len, rcvbuf, sndbuf, resend_ms,
 * timeout_resends) start at the initial namespace's values where those
 * are lower, and a write above them is refused: as udp_mem and the like,
 * such limits stay in the initial namespace's hands.
 *
 * net.shoal.mem is the machine's (shoal_rmem.c), in the initial
 * namespace's table only.
 *
 * Locking: a write of udp_port moves the namespace's socket under
 * sn->lock, and the settings that follow the link are written under it
 * too (WRITE_ONCE); every value is read with READ_ONCE() where it is
 * used.  The device's speed is read by a work item under RTNL, which it
 * drops before it takes sn->lock.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#include "shoal_impl.h"

static int shoal_port_min = 1;
static int shoal_port_max = 65535;
static u32 shoal_msglen_min = SHOAL_MSG_MIN_MAX;
static u32 shoal_msglen_max = SHOAL_MSG_LIMIT;
static u32 shoal_mss_min = SHOAL_MSS_MIN;
static u32 shoal_mss_max = 65000;
static u32 shoal_ms_max = 60000;
static u32 shoal_resends_max = 100000;
static u32 shoal_buf_min = 4096;
static u32 shoal_g_max = 16;
static u32 shoal_rtt_max = 10000000;	/* 10 s */
static u32 shoal_rate_max = 1000000;	/* 1 Tbit/s */
static u32 shoal_permille_max = 1000;
static u32 shoal_pl2_k_max = 64;
static u32 shoal_pl2_t_max = 65535;	/* a GRT's slot field */
static u32 shoal_pl2_out_max = 64;
static u32 shoal_pl2_timeout_min = 100;
static u32 shoal_pl2_timeout_max = 10000000;	/* 10 s */
static u32 shoal_pl2_slot_max = 10000000;	/* 10 ms */

/* The settings that follow the link for its rate now (0: unknown, the
 * old defaults and no pacing), but those written by hand.  Under sn->lock.
 */
void shoal_cfg_fit(struct shoal_net *sn)
{
	struct shoal_cfg *c = &sn->cfg;
	u32 rate = c->link_mbps ? c->link_mbps : sn->dev_mbps;
	struct sird_sizes z = sird_link_sizes(rate, c->link_rtt_us, c->mss);
	u32 pin = c->pinned;

	if (!(pin & SHOAL_FIT_BDP))
		WRITE_ONCE(c->bdp, z.bdp);
	if (!(pin & SHOAL_FIT_UNSCH))
		WRITE_ONCE(c->unsch_thresh, z.unsch_thresh);
	if (!(pin & SHOAL_FIT_SIRD_B))
		WRITE_ONCE(c->sird_b, z.b);
	if (!(pin & SHOAL_FIT_SIRD_STHR))
		WRITE_ONCE(c->sird_sthr, z.sthr);
	if (!(pin & SHOAL_FIT_SIRD_RATE))
		WRITE_ONCE(c->sird_rate_mbps, rate);
	if (!(pin & SHOAL_FIT_SIRD_TX_RATE))
		WRITE_ONCE(c->sird_tx_rate_mbps, rate);
	if (!(pin & SHOAL_FIT_PL2_RATE))
		WRITE_ONCE(c->pl2_rate_mbps, rate ? rate : 1000);
}

/* The speed of the device Shoal's packets went out of last */
static void shoal_dev_work(struct work_struct *w)
{
	struct shoal_net *sn = container_of(w, struct shoal_net, dev_work);
	struct ethtool_link_ksettings ks;
	struct net_device *dev;
	u32 mbps = 0;

	rtnl_lock();
	dev = __dev_get_by_index(sn->net, READ_ONCE(sn->dev_ifindex));
	if (dev && !__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN)
		mbps = min_t(u32, ks.base.speed, shoal_rate_max);
	rtnl_unlock();
	mutex_lock(&sn->lock);
	if (mbps != sn->dev_mbps) {
		sn->dev_mbps = mbps;
		shoal_cfg_fit(sn);
	}
	mutex_unlock(&sn->lock);
}

void shoal_dev_init(struct shoal_net *sn)
{
	INIT_WORK(&sn->dev_work, shoal_dev_work);
}

/* A packet goes out of @dev: a new one has its speed read (any context) */
void shoal_dev_seen(struct shoal_net *sn, const struct net_device *dev)
{
	if (!dev || (dev->flags & IFF_LOOPBACK) ||
	    READ_ONCE(sn->dev_ifindex) == dev->ifindex)
		return;
	WRITE_ONCE(sn->dev_ifindex, dev->ifindex);
	schedule_work(&sn->dev_work);
}

/* Where a setting that follows the link lives in struct shoal_cfg, and its
 * pin (0: the link itself, or what the fit reads: a write refits)
 */
static const struct {
	const char *name;
	size_t off;
	u32 pin;
} shoal_fit_fields[] = {
	{ "bdp", offsetof(struct shoal_cfg, bdp), SHOAL_FIT_BDP },
	{ "unsch_thresh", offsetof(struct shoal_cfg, unsch_thresh),
	  SHOAL_FIT_UNSCH },
	{ "sird_b", offsetof(struct shoal_cfg, sird_b), SHOAL_FIT_SIRD_B },
	{ "sird_sthr", offsetof(struct shoal_cfg, sird_sthr),
	  SHOAL_FIT_SIRD_STHR },
	{ "sird_rate_mbps", offsetof(struct shoal_cfg, sird_rate_mbps),
	  SHOAL_FIT_SIRD_RATE },
	{ "sird_tx_rate_mbps", offsetof(struct shoal_cfg, sird_tx_rate_mbps),
	  SHOAL_FIT_SIRD_TX_RATE },
	{ "pl2_rate_mbps", offsetof(struct shoal_cfg, pl2_rate_mbps),
	  SHOAL_FIT_PL2_RATE },
	{ "link_mbps", offsetof(struct shoal_cfg, link_mbps), 0 },
	{ "link_rtt_us", offsetof(struct shoal_cfg, link_rtt_us), 0 },
	{ "mss", offsetof(struct shoal_cfg, mss), 0 },
};

/* A setting that follows the link (written: pinned) or that the fit reads
 * (written: the others refit).  The table's data points into
 * sn->cfg, at the field its name says.
 */
static int shoal_sysctl_fit(struct ctl_table *table, int write,
			    void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tmp = *table;
	struct shoal_net *sn = NULL;
	u32 val, pin = 0;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(shoal_fit_fields); i++)
		if (!strcmp(table->procname, shoal_fit_fields[i].name)) {
			sn = container_of((struct shoal_cfg *)
					  ((u8 *)table->data -
					   shoal_fit_fields[i].off),
					  struct shoal_net, cfg);
			pin = shoal_fit_fields[i].pin;
			break;
		}
	if (WARN_ON_ONCE(!sn))
		return -EINVAL;
	mutex_lock(&sn->lock);
	val = READ_ONCE(*(u32 *)table->data);
	tmp.data = &val;
	err = proc_douintvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!err && write) {
		WRITE_ONCE(*(u32 *)table->data, val);
		sn->cfg.pinned |= pin;
		shoal_cfg_fit(sn);
	}
	mutex_unlock(&sn->lock);
	return err;
}

/* A new port opens a new socket first: a port in use is refused and the
 * old one stays.  With no Shoal socket in the namespace there is no old
 * one: the new port is tried, then closed until the first socket.
 */
static int shoal_sysctl_udp_port(struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct shoal_net *sn = table->extra2;
	struct ctl_table tmp = *table;
	int port, err;

	mutex_lock(&sn->lock);
	port = sn->udp_port;
	tmp.data = &port;
	tmp.extra1 = &shoal_port_min;
	tmp.extra2 = &shoal_port_max;
	err = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!err && write && port != sn->udp_port) {
		err = shoal_udp_open(sn, port);
		if (!err && !refcount_read(&sn->udp_users))
			shoal_udp_close(sn);
	}
	mutex_unlock(&sn->lock);
	return err;
}

static const struct ctl_table shoal_sysctl_template[] = {
	{
		.procname	= "udp_port",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_udp_port,
	},
	{
		.procname	= "max_msg_len",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_msglen_min,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "mss",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_mss_max,
	},
	{
		.procname	= "bdp",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "unsch_thresh",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "resend_ms",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_ms_max,
	},
	{
		.procname	= "timeout_resends",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_resends_max,
	},
	{
		.procname	= "rcvbuf",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_buf_min,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "sndbuf",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_buf_min,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "sird_b",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "sird_sthr",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "sird_g_shift",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_g_max,
	},
	{
		.procname	= "sird_rtt_us",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_rtt_max,
	},
	{
		.procname	= "sird_rate_mbps",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_rate_max,
	},
	{
		.procname	= "sird_tx_rate_mbps",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_rate_max,
	},
	{
		.procname	= "sird_fair_permille",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_permille_max,
	},
	{
		.procname	= "pl2_k",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_pl2_k_max,
	},
	{
		.procname	= "pl2_t",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_pl2_t_max,
	},
	{
		.procname	= "pl2_rate_mbps",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_rate_max,
	},
	{
		.procname	= "pl2_slot_ns",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_pl2_slot_max,
	},
	{
		.procname	= "pl2_outstanding",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_pl2_out_max,
	},
	{
		.procname	= "pl2_rsv_timeout_us",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_pl2_timeout_min,
		.extra2		= &shoal_pl2_timeout_max,
	},
	{
		.procname	= "sird_pace_unsched",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "fold_acks",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "link_mbps",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_rate_max,
	},
	{
		.procname	= "link_rtt_us",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= shoal_sysctl_fit,
		.extra1		= SYSCTL_ONE,
		.extra2		= &shoal_rtt_max,
	},
	{
		.procname	= "sird_rx_fair_permille",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_permille_max,
	},
	{
		.procname	= "sird_rx_fifo_permille",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_permille_max,
	},
	{
		.procname	= "pl2_fifo_permille",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_permille_max,
	},
	/* the machine's, not a namespace's: the initial namespace's table
	 * alone has it (SHOAL_SYSCTL_GLOBAL), as udp_mem
	 */
	{
		.procname	= "mem",
		.data		= sysctl_shoal_mem,
		.maxlen		= sizeof(sysctl_shoal_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{ }
};

/* The first entry of the machine's settings, last in the table */
#define SHOAL_SYSCTL_GLOBAL	29

/* Entry @e (a u32 with a maximum) of a namespace an unprivileged user
 * made: at most @init_val, now and on a write
 */
static void shoal_sysctl_ceil(struct ctl_table *e, u32 *ceil, u32 init_val)
{
	u32 *v = e->data;

	*ceil = init_val;
	if (*v > init_val)
		*v = init_val;
	e->extra2 = ceil;
}

static void shoal_sysctl_clamp(struct shoal_net *sn, struct ctl_table *t)
{
	const struct shoal_net *init = shoal_net(&init_net);
	struct shoal_ceil *c = &sn->ceil;

	shoal_sysctl_ceil(&t[1], &c->max_msg_len,
			  READ_ONCE(init->max_msg_len));
	shoal_sysctl_ceil(&t[5], &c->resend_ms,
			  READ_ONCE(init->cfg.resend_ms));
	shoal_sysctl_ceil(&t[6], &c->timeout_resends,
			  READ_ONCE(init->cfg.timeout_resends));
	shoal_sysctl_ceil(&t[7], &c->rcvbuf, READ_ONCE(init->cfg.rcvbuf));
	shoal_sysctl_ceil(&t[8], &c->sndbuf, READ_ONCE(init->cfg.sndbuf));
}

int shoal_sysctl_init(struct shoal_net *sn)
{
	struct ctl_table *t;

	BUILD_BUG_ON(ARRAY_SIZE(shoal_sysctl_template) !=
		     SHOAL_SYSCTL_GLOBAL + 2);
	t = kmemdup(shoal_sysctl_template, sizeof(shoal_sysctl_template),
		    GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t[0].extra2 = sn;
	t[1].data = &sn->max_msg_len;
	t[2].data = &sn->cfg.mss;
	t[3].data = &sn->cfg.bdp;
	t[4].data = &sn->cfg.unsch_thresh;
	t[5].data = &sn->cfg.resend_ms;
	t[6].data = &sn->cfg.timeout_resends;
	t[7].data = &sn->cfg.rcvbuf;
	t[8].data = &sn->cfg.sndbuf;
	t[9].data = &sn->cfg.sird_b;
	t[10].data = &sn->cfg.sird_sthr;
	t[11].data = &sn->cfg.sird_g_shift;
	t[12].data = &sn->cfg.sird_rtt_us;
	t[13].data = &sn->cfg.sird_rate_mbps;
	t[14].data = &sn->cfg.sird_tx_rate_mbps;
	t[15].data = &sn->cfg.sird_fair_permille;
	t[16].data = &sn->cfg.pl2_k;
	t[17].data = &sn->cfg.pl2_t;
	t[18].data = &sn->cfg.pl2_rate_mbps;
	t[19].data = &sn->cfg.pl2_slot_ns;
	t[20].data = &sn->cfg.pl2_outstanding;
	t[21].data = &sn->cfg.pl2_rsv_timeout_us;
	t[22].data = &sn->cfg.sird_pace_unsched;
	t[23].data = &sn->cfg.fold_acks;
	t[24].data = &sn->cfg.link_mbps;
	t[25].data = &sn->cfg.link_rtt_us;
	t[26].data = &sn->cfg.sird_rx_fair_permille;
	t[27].data = &sn->cfg.sird_rx_fifo_permille;
	t[28].data = &sn->cfg.pl2_fifo_permille;
	if (sn->net->user_ns != &init_user_ns)
		shoal_sysctl_clamp(sn, t);
	if (!net_eq(sn->net, &init_net))
		memset(&t[SHOAL_SYSCTL_GLOBAL], 0, sizeof(*t));	/* the end */
	sn->sysctl = register_net_sysctl(sn->net, "net/shoal", t);
	if (!sn->sysctl) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

void shoal_sysctl_exit(struct shoal_net *sn)
{
	struct ctl_table *t = sn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(sn->sysctl);
	kfree(t);
}
