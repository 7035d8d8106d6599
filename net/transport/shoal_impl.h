/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: what its files share.  One struct shoal_net per network
 * namespace holds the UDP socket every Shoal packet of that namespace
 * arrives on, the sysctls under net.shoal.* and the statistics in
 * /proc/net/shoal/.
 *
 * Locking: sn->lock (a mutex) serialises opening and closing the UDP
 * socket (a namespace's first Shoal socket and its last, a write of
 * net.shoal.udp_port, namespace exit); sn->udp_users, the count of Shoal
 * sockets, goes from 0 to 1 and back to 0 only under it.  The
 * receive path runs in softirq context under RCU and finds its shoal_net
 * from the socket's namespace; namespace exit closes the socket, waits
 * an RCU grace period for a packet still being counted, and only then
 * frees the statistics.  Statistics are per-CPU counters, summed on read.
 */
#ifndef _SHOAL_IMPL_H
#define _SHOAL_IMPL_H

#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/refcount.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/shoal/wire.h>

#include "shoal_objs.h"
#include "shoal_pl2.h"
#include "shoal_rtt_core.h"
#include "shoal_sird.h"
#include "shoal_sird_tx.h"

/* Counters beside the per-type and per-reason ones (names in shoal_proc.c) */
enum shoal_stat {
	SHOAL_STAT_RX_PACKETS,
	SHOAL_STAT_RX_BYTES,
	SHOAL_STAT_RX_TRIMMED,
	SHOAL_STAT_RX_CE,
	SHOAL_STAT_RX_DROP_NOMEM,
	SHOAL_STAT_RX_DROP_NOT_UNICAST,	/* to a broadcast or multicast address */
	SHOAL_STAT_RX_DROP_IP_PROTO,	/* IP packets of a socket protocol's number */
	SHOAL_STAT_RX_DROP_NO_SOCKET,
	SHOAL_STAT_RX_DROP_NO_MSG,	/* control for a message we lack */
	SHOAL_STAT_RX_DROP_MISMATCH,	/* msg_len differs from the message's */
	SHOAL_STAT_RX_DROP_RCVBUF,	/* DATA over the socket's SO_RCVBUF */
	SHOAL_STAT_RX_DROP_MEM,		/* DATA or a new message the protocol's
					 * memory (net.shoal.mem) or the
					 * socket's cgroup had no room for
					 */
	SHOAL_STAT_RX_DROP_FRAGMENTED,	/* DATA making too many islands */
	SHOAL_STAT_RX_DUP_PACKETS,	/* DATA with no new byte */
	SHOAL_STAT_RX_DUP_BYTES,	/* payload bytes that arrived again */
	SHOAL_STAT_RX_RESEND_TRIMMED,	/* RESENDs at once for trimmed data */
	SHOAL_STAT_RX_RESEND_RCVBUF,	/* ranges dropped for want of memory,
					 * asked again when it frees
					 */
	SHOAL_STAT_RX_RESEND_QUIET,	/* RESENDs after a quiet interval */
	SHOAL_STAT_RX_MSGS,		/* messages complete */
	SHOAL_STAT_RX_DONE_NOMEM,	/* read, but no memory to remember */
	SHOAL_STAT_TX_PACKETS,
	SHOAL_STAT_TX_BYTES,
	SHOAL_STAT_TX_DROP_NOROUTE,	/* no route to the peer */
	SHOAL_STAT_TX_DROP_NOMEM,	/* no memory for a packet */
	SHOAL_STAT_TX_MSGS,		/* messages sendmsg() took */
	SHOAL_STAT_TX_ACKED,		/* of which acknowledged */
	SHOAL_STAT_TX_TIMEOUT,		/* of which timed out */
	SHOAL_STAT_TX_REFUSED,		/* of which refused: no socket there */
	SHOAL_STAT_TX_RPC_LOST,		/* requests whose response never
					 * came: the server lost it
					 */
	SHOAL_STAT_TX_RETX_PACKETS,	/* DATA sent again */
	SHOAL_STAT_TX_ACKS_FOLDED,	/* responses' ACKs sent in DATA */
	SHOAL_STAT_RX_ACKS_FOLDED,	/* ACKs that came in DATA */
	SHOAL_STAT_PL2_BURSTS,		/* bursts formed (an RSV each) */
	SHOAL_STAT_PL2_BURST_PKTS,	/* DATA packets in them */
	SHOAL_STAT_PL2_UNSOL,		/* bursts also sent unsolicited */
	SHOAL_STAT_PL2_UNSOL_RESENT,	/* of which sent again in the slot */
	SHOAL_STAT_PL2_GRTS,		/* GRTs for a burst waiting */
	SHOAL_STAT_PL2_GRT_STALE,	/* GRTs for no burst waiting */
	SHOAL_STAT_PL2_RSV_TIMEOUT,	/* RSVs without a GRT in time */
	SHOAL_STAT_PL2_RSV_ANSWERED,	/* RSVs this host answered: no
					 * switch on the path
					 */
	SHOAL_STAT_PL2_WAIT_CAPPED,	/* slots further off than the
					 * GRT timeout: sent then
					 */
	SHOAL_STAT_PL2_WAIT_NS,		/* Eq. 1's waits, summed */
	SHOAL_STAT_PL2_RSV_GRT_NS,	/* RSV-GRT delays, summed */
	SHOAL_STAT_RX_BOUNCED,		/* our DATA a switch returned */
	SHOAL_STAT_TX_RTS_RESEND,	/* of which sent again at once */
	SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG, /* of which for no message
					   * sending (gone, or acknowledged)
					   */
	SHOAL_STAT_RX_DROP_BOUNCE_STALE, /* of which for bytes acknowledged */
	SHOAL_STAT_RX_DROP_BOUNCE_BAD,	/* of which not a packet we sent */
	SHOAL_STAT_RX_BUSY_COVERED,	/* BUSYs not sent: one to the same
					 * sender socket covered them
					 */
	SHOAL_STAT_RX_BUSY_NOTHELD,	/* new messages refused for now, told
					 * so (BUSY NOTHELD)
					 */
	SHOAL_STAT_TX_NOTHELD,		/* of ours, refused for now: sent
					 * again under credit
					 */
	SHOAL_STAT_RX_QUIET_QUEUED,	/* quiet intervals not taken as loss:
					 * data granted earlier still arriving
					 */
	SHOAL_STAT_TX_UNSCHED_CUT,	/* messages whose unscheduled prefix
					 * the allowance cut
					 */
	SHOAL_STAT_TX_PROBE_TURN,	/* probes not sent: one to the same
					 * receiver stood for them
					 */
	SHOAL_STAT_TX_PROBE_WAKE,	/* probes sent at once: another
					 * message's probe found it lost whole
					 */
	SHOAL_STAT_RX_PROBE_NEW,	/* messages a retransmission started:
					 * their first packets were lost
					 */
	SHOAL_STAT_RX_ICMP_UNREACH,	/* ICMP port unreachable for a packet
					 * we sent: the peer's refusal
					 */
	SHOAL_STAT_RX_ICMP_IGNORED,	/* other ICMP errors for our packets,
					 * or about one the port would not
					 * have refused (an ACK, say)
					 */
	SHOAL_STAT_RX_HOST_GONE,	/* messages given up besides the one
					 * an ICMP port unreachable named:
					 * their peer's host has no Shoal
					 * socket (shoal_sock_host_gone())
					 */
	SHOAL_STAT_RX_TIMEOUT,		/* inbound messages forgotten, their
					 * senders silent too long
					 */
	SHOAL_STAT_RX_GAVE_UP,		/* partial messages given up so that
					 * others could complete: memory
					 * held by partial ones alone
					 */
	SHOAL_STAT_TX_RESTARTED,	/* of ours, given up by the receiver:
					 * sent again from the first byte
					 */
	SHOAL_STAT_NR
};

struct shoal_stats {
	u64 c[SHOAL_STAT_NR];
	u64 rx_type[SHOAL_WIRE_TYPES];		/* parsed, by type */
	u64 rx_bad[SHOAL_WIRE_NR_REASONS];	/* dropped, by reason */
	u64 tx_type[SHOAL_WIRE_TYPES];		/* sent, by type */
};

/* The endpoints' settings, net.shoal.* (shoal_sysctl.c) */
struct shoal_cfg {
	u32 mss;		/* most payload bytes in a DATA packet */
	u32 bdp;		/* bytes a message may have in flight */
	u32 unsch_thresh;	/* longer messages send nothing unscheduled */
	u32 resend_ms;		/* silence before a RESEND or a probe */
	u32 timeout_resends;	/* silent intervals before a message fails */
	u32 rcvbuf;		/* a new socket's SO_RCVBUF */
	u32 sndbuf;		/* a new socket's SO_SNDBUF */
	u32 sird_b;		/* SIRD's global credit bucket B */
	u32 sird_sthr;		/* SThr: the csn loop's threshold, 0: off */
	u32 sird_g_shift;	/* the loops' gain 2^-g */
	u32 sird_rtt_us;	/* the loops' window */
	u32 sird_rate_mbps;	/* credit pacing (the downlink), 0: off */
	u32 sird_tx_rate_mbps;	/* sender pacing (the uplink), 0: off */
	u32 sird_fair_permille;	/* sender turns given to fair share */
	u32 sird_rx_fair_permille; /* receiver grants given round robin */
	u32 sird_rx_fifo_permille; /* receiver grants given to the oldest */
	u32 sird_pace_unsched;	/* unscheduled arrivals take the credit
				 * pacer's downlink time too
				 */
	u32 pl2_k;		/* packets per burst, at most */
	u32 pl2_t;		/* unsolicited below this slot, 0: never */
	u32 pl2_rate_mbps;	/* the links' rate: the uplink's clock */
	u32 pl2_slot_ns;	/* a slot, 0: a full frame at the rate */
	u32 pl2_outstanding;	/* exchanges per destination host */
	u32 pl2_rsv_timeout_us;	/* an RSV's wait for its GRT, at least */
	u32 pl2_fifo_permille;	/* burst picks given to the oldest */
	u32 fold_acks;		/* a response's ACK rides on the next
				 * request to its server (SHOAL_O_ACK)
				 */
	u32 link_mbps;		/* the link's rate, 0: the device's */
	u32 link_rtt_us;	/* a loaded round trip: sizes the BDP */
	u32 pinned;		/* SHOAL_FIT_* written: fixed, not fitted */
};

/* Settings that follow the link (shoal_cfg_fit()) until written */
enum {
	SHOAL_FIT_BDP = 1 << 0,
	SHOAL_FIT_UNSCH = 1 << 1,
	SHOAL_FIT_SIRD_B = 1 << 2,
	SHOAL_FIT_SIRD_STHR = 1 << 3,
	SHOAL_FIT_SIRD_RATE = 1 << 4,
	SHOAL_FIT_SIRD_TX_RATE = 1 << 5,
	SHOAL_FIT_PL2_RATE = 1 << 6,
};

#define SHOAL_PORT_HASH		256

/* The initial namespace's settings that size memory and a message's
 * lifetime, as a namespace that an unprivileged user made found them:
 * its own stay at or below (shoal_sysctl.c)
 */
struct shoal_ceil {
	u32 max_msg_len;
	u32 resend_ms;
	u32 timeout_resends;
	u32 rcvbuf;
	u32 sndbuf;
};

struct shoal_net {
	struct net *net;
	struct mutex lock;		/* the socket's open and close */
	struct socket *sock;		/* the UDP socket, or NULL */
	refcount_t udp_users;		/* Shoal sockets: 0, no UDP socket */
	int udp_port;			/* net.shoal.udp_port */
	u32 max_msg_len;		/* net.shoal.max_msg_len */
	struct shoal_cfg cfg;		/* read with READ_ONCE() */
	spinlock_t ports_lock;		/* writers of ports[] */
	struct hlist_head ports[SHOAL_PORT_HASH];	/* bound sockets, RCU */
	u32 next_port;			/* where automatic ports are tried */
	struct ctl_table_header *sysctl;
	struct shoal_ceil ceil;		/* an unprivileged user's bounds */
	struct shoal_stats __percpu *stats;
	struct shoal_sird sird;		/* SIRD's receiver */
	struct shoal_sird_tx sird_tx;	/* SIRD's sender */
	struct shoal_pl2_net pl2;	/* PL2's uplink clock */
	int dev_ifindex;		/* the device routes last went out
					 * of (not loopback), 0: none yet
					 */
	u32 dev_mbps;			/* its speed, 0: unknown */
	struct work_struct dev_work;	/* reads it (under RTNL) */
	u32 rtt8;			/* 8 x the smoothed delay from a
					 * probe to its answer, in jiffies
					 * (shoal_rtt_core.h); written by
					 * any socket's lock holder, racily:
					 * a lost sample is harmless
					 */
};

void shoal_cfg_fit(struct shoal_net *sn);
void shoal_dev_init(struct shoal_net *sn);
void shoal_dev_seen(struct shoal_net *sn, const struct net_device *dev);

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

/* The configured resend interval, in jiffies: net.shoal.resend_ms, but
 * never less than the loaded round trip (net.shoal.link_rtt_us).  Silence
 * shorter than a round trip is not silence: a tick that takes it for one
 * probes and BUSYs for nothing (at 10 ms on a path of 30 ms the control of
 * a 15:1 incast took the receiver's port).
 */
static inline unsigned long shoal_resend_base(const struct shoal_net *sn)
{
	u32 ms = max(READ_ONCE(sn->cfg.resend_ms),
		     DIV_ROUND_UP(READ_ONCE(sn->cfg.link_rtt_us), 1000));

	return max(msecs_to_jiffies(ms), 1UL);
}

/* The resend interval every keep-alive and timeout counts: the configured
 * one, or the peers' measured answer delay where that is longer
 */
static inline unsigned long shoal_resend_ival(const struct shoal_net *sn)
{
	return shoal_ival_scaled(shoal_resend_base(sn), READ_ONCE(sn->rtt8));
}

/* An answer came @delay jiffies after the probe it may answer */
static inline void shoal_rtt_sample(struct shoal_net *sn, unsigned long delay)
{
	WRITE_ONCE(sn->rtt8, shoal_rtt_update(READ_ONCE(sn->rtt8), delay,
					      shoal_resend_base(sn)));
}

const char *shoal_stat_name(enum shoal_stat s);
void shoal_trace_rx_drop(enum shoal_stat s);
void shoal_trace_rx_bad(int reason);

/* The counters that say a packet that came was dropped (rx_drop_*) */
static inline bool shoal_stat_is_rx_drop(enum shoal_stat s)
{
	switch (s) {
	case SHOAL_STAT_RX_DROP_NOMEM:
	case SHOAL_STAT_RX_DROP_NOT_UNICAST:
	case SHOAL_STAT_RX_DROP_IP_PROTO:
	case SHOAL_STAT_RX_DROP_NO_SOCKET:
	case SHOAL_STAT_RX_DROP_NO_MSG:
	case SHOAL_STAT_RX_DROP_MISMATCH:
	case SHOAL_STAT_RX_DROP_RCVBUF:
	case SHOAL_STAT_RX_DROP_MEM:
	case SHOAL_STAT_RX_DROP_FRAGMENTED:
	case SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG:
	case SHOAL_STAT_RX_DROP_BOUNCE_STALE:
	case SHOAL_STAT_RX_DROP_BOUNCE_BAD:
		return true;
	default:
		return false;
	}
}

/* A drop counted is a drop traced (shoal_rx_drop): one place for both */
static inline void shoal_stat_inc(struct shoal_net *sn, enum shoal_stat s)
{
	this_cpu_inc(sn->stats->c[s]);
	if (shoal_stat_is_rx_drop(s))
		shoal_trace_rx_drop(s);
}

/* DATA a message had already: 6.1's reason for bytes received before */
#define SHOAL_DROP_DUP	SKB_DROP_REASON_TCP_OLD_DATA

/* Free a packet shoal.ko received.  SKB_NOT_DROPPED_YET: it was read, or
 * acted on (a control packet, a trimmed header, an answered probe), and
 * is consumed; else it is dropped for @why, the closest reason the
 * kernel has, so that drop monitors (skb:kfree_skb, dropwatch) see only
 * packets that Shoal did not take.  The reasons are Documentation/
 * observing.md's.
 */
static inline void shoal_rx_free(struct sk_buff *skb, enum skb_drop_reason why)
{
	if (why == SKB_NOT_DROPPED_YET)
		consume_skb(skb);
	else
		kfree_skb_reason(skb, why);
}

static inline void shoal_stat_tx(struct shoal_net *sn, u8 type, u32 len)
{
	this_cpu_inc(sn->stats->tx_type[type & 0x0f]);
	this_cpu_inc(sn->stats->c[SHOAL_STAT_TX_PACKETS]);
	this_cpu_add(sn->stats->c[SHOAL_STAT_TX_BYTES], len);
}

/* A peer: an address of either family (IPv4 mapped into IPv6) and a Shoal
 * port, in host order
 */
struct shoal_addr {
	struct in6_addr ip;
	u16 port;
};

static inline bool shoal_addr_eq(const struct shoal_addr *a,
				 const struct shoal_addr *b)
{
	return a->port == b->port && ipv6_addr_equal(&a->ip, &b->ip);
}

/* A packet built under a lock, queued to be sent once it is dropped */
struct shoal_tx_cb {
	struct shoal_addr dst;
	struct in6_addr saddr;		/* any: the route chooses */
	u8 type;
};

#define SHOAL_TX_CB(skb)	((struct shoal_tx_cb *)(skb)->cb)
#define SHOAL_MSS_MIN		256	/* no DATA packet carries less */

/* A control packet's fields, for shoal_ctrl(); the header's others are 0 */
struct shoal_ctrl {
	const struct shoal_addr *dst;	/* to its Shoal port */
	const struct in6_addr *saddr;	/* from, NULL or any: the route's */
	u16 sport;			/* the Shoal port it comes from */
	u8 type;			/* SHOAL_T_* */
	u8 flags;			/* SHOAL_F_*: the name's and others */
	u64 id;				/* the message's */
	u32 msg_len;
	u32 offset;
	u32 word;
};

/* shoal_pkt.c */
struct sk_buff *shoal_pkt_alloc(const struct shoal_wire_pkt *p, u32 payload,
				gfp_t gfp);
void shoal_pkt_queue(struct sk_buff *skb, const struct shoal_addr *dst,
		     const struct in6_addr *saddr, u8 type,
		     struct sk_buff_head *q);
void shoal_ctrl(struct shoal_net *sn, const struct shoal_ctrl *c,
		struct sk_buff_head *q);

/* shoal_udp.c */
int shoal_udp_open(struct shoal_net *sn, int port);
void shoal_udp_close(struct shoal_net *sn);
int shoal_udp_get(struct shoal_net *sn);
void shoal_udp_put(struct shoal_net *sn);
void shoal_udp_keys_hold(void);
void shoal_udp_keys_release(void);
void shoal_xmit(struct shoal_net *sn, const struct shoal_addr *dst,
		const struct in6_addr *saddr, struct sk_buff *skb, u8 type);
void shoal_xmit_list(struct shoal_net *sn, struct sk_buff_head *q);
u32 shoal_path_mss(struct shoal_net *sn, const struct shoal_addr *dst);

/* shoal_sock.c */
int shoal_sock_register(u8 sird, u8 pl2);
void shoal_sock_unregister(void);
void shoal_sock_rcv(struct shoal_net *sn, struct sk_buff *skb,
		    const struct shoal_wire_pkt *pkt,
		    const struct shoal_addr *src,
		    const struct in6_addr *local, bool ce);
bool shoal_sock_unreachable(struct shoal_net *sn,
			    const struct shoal_wire_pkt *sent,
			    const struct shoal_addr *peer,
			    const struct in6_addr *local);

/* shoal_ipproto.c: the socket protocols' slots in the IP protocol table */
int shoal_ipproto_claim(u8 sird, u8 pl2);
void shoal_ipproto_release(u8 sird, u8 pl2);

/* shoal_rmem.c: receive memory, limited as tcp_mem */
extern long sysctl_shoal_mem[3];
extern atomic_long_t shoal_memory_allocated;
DECLARE_PER_CPU(int, shoal_memory_per_cpu_fw_alloc);
extern unsigned long shoal_memory_pressure;
extern struct percpu_counter shoal_sockets_allocated;
extern int shoal_rmem_min[1];
extern int shoal_wmem_min[1];
int shoal_rmem_init(void);
void shoal_rmem_exit(void);
void shoal_rmem_enter_pressure(struct sock *sk);

/* shoal_sysctl.c */
int shoal_sysctl_init(struct shoal_net *sn);
void shoal_sysctl_exit(struct shoal_net *sn);

/* shoal_proc.c */
int shoal_proc_init(struct shoal_net *sn);
void shoal_proc_exit(struct shoal_net *sn);

#endif /* _SHOAL_IMPL_H */
