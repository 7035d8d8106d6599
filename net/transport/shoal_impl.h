/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: what its files share.  One struct shoal_net per network
 * namespace holds the UDP socket every Shoal packet of that namespace
 * arrives on, the sysctls under net.shoal.* and the statistics in
 * /proc/net/shoal/.
 *
 * Locking: sn->lock (a mutex) serialises opening and closing the UDP
 * socket (namespace init and exit, a write of net.shoal.udp_port).  The
 * receive path runs in softirq context under RCU and finds its shoal_net
 * from the socket's namespace; namespace exit closes the socket, waits
 * an RCU grace period for a packet still being counted, and only then
 * frees the statistics.  Statistics are per-CPU counters, summed on read.
 */
#ifndef _SHOAL_IMPL_H
#define _SHOAL_IMPL_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "shoal_wire_core.h"

/* Counters beside the per-type and per-reason ones (names in shoal_proc.c) */
enum shoal_stat {
	SHOAL_STAT_RX_PACKETS,
	SHOAL_STAT_RX_BYTES,
	SHOAL_STAT_RX_TRIMMED,
	SHOAL_STAT_RX_CE,
	SHOAL_STAT_RX_DROP_NOMEM,
	SHOAL_STAT_RX_DROP_NO_SOCKET,
	SHOAL_STAT_NR
};

struct shoal_stats {
	u64 c[SHOAL_STAT_NR];
	u64 rx_type[SHOAL_WIRE_TYPES];		/* parsed, by type */
	u64 rx_bad[SHOAL_WIRE_NR_REASONS];	/* dropped, by reason */
};

struct shoal_net {
	struct net *net;
	struct mutex lock;		/* the socket's open and close */
	struct socket *sock;		/* the UDP socket, or NULL */
	int udp_port;			/* net.shoal.udp_port */
	u32 max_msg_len;		/* net.shoal.max_msg_len */
	struct ctl_table_header *sysctl;
	struct shoal_stats __percpu *stats;
};

extern unsigned int shoal_net_id;

static inline struct shoal_net *shoal_net(const struct net *net)
{
	return net_generic(net, shoal_net_id);
}

static inline void shoal_stat_add(struct shoal_net *sn, enum shoal_stat s,
				  u64 n)
{
	this_cpu_add(sn->stats->c[s], n);
}

static inline void shoal_stat_inc(struct shoal_net *sn, enum shoal_stat s)
{
	this_cpu_inc(sn->stats->c[s]);
}

/* shoal_udp.c */
int shoal_udp_open(struct shoal_net *sn, int port);
void shoal_udp_close(struct shoal_net *sn);

/* shoal_sysctl.c */
int shoal_sysctl_init(struct shoal_net *sn);
void shoal_sysctl_exit(struct shoal_net *sn);

/* shoal_proc.c */
int shoal_proc_init(struct shoal_net *sn);
void shoal_proc_exit(struct shoal_net *sn);

#endif /* _SHOAL_IMPL_H */
