// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: net.shoal.* sysctls, one table per network namespace whose
 * entries point into that namespace's struct shoal_net.
 *
 * Locking: a write of udp_port moves the namespace's socket under
 * sn->lock; the other values are read with READ_ONCE() where they are
 * used.
 */
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

/* A new port opens a new socket first: a port in use is refused and the
 * old one stays.
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
	if (!err && write && port != sn->udp_port)
		err = shoal_udp_open(sn, port);
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
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_mss_max,
	},
	{
		.procname	= "bdp",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "unsch_thresh",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
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
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &shoal_mss_min,
		.extra2		= &shoal_msglen_max,
	},
	{
		.procname	= "sird_sthr",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
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
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &shoal_rate_max,
	},
	{
		.procname	= "sird_tx_rate_mbps",
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
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
		.proc_handler	= proc_douintvec_minmax,
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
	{ }
};

int shoal_sysctl_init(struct shoal_net *sn)
{
	struct ctl_table *t;

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
