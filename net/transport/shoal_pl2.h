/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: PL2's sender (shoal_pl2.c).  Each IPPROTO_PL2 socket keeps,
 * per destination host, the messages that have bytes to send, the bursts
 * in flight (their RSV sent, or their GRT in and their slot not yet come)
 * and Algorithm 2's state (pl2_core.h).  The namespace keeps the uplink's
 * clock, Eq. 1's pendingDataDelay.
 *
 * Locking: everything in a socket's struct shoal_pl2_sock, its
 * destinations and bursts is under the socket's ss->lock (the receive
 * path, the socket's timers and sendmsg() all take it).  The uplink's
 * clock has its own spinlock, sn->pl2.lock, a leaf taken inside ss->lock.
 * A burst's packets are built when it is formed, so sending it later
 * needs nothing but the burst.
 */
#ifndef _SHOAL_PL2_H
#define _SHOAL_PL2_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#include <net/shoal/pl2_core.h>
#include "sird_core.h"

#define SHOAL_PL2_DST_BITS	4
#define SHOAL_PL2_DST_HASH	BIT(SHOAL_PL2_DST_BITS)
#define SHOAL_PL2_DSTS_KEEP	64	/* idle destinations kept */

struct shoal_sock;
struct shoal_omsg;
struct shoal_net;
struct shoal_wire_pkt;
struct shoal_addr;

/* The namespace's uplink: what PL2 sockets handed the device */
struct shoal_pl2_net {
	spinlock_t lock;		/* free_ns */
	u64 free_ns;
};

/* A destination host of one socket */
struct shoal_pl2_dst {
	struct hlist_node node;		/* ss->pl2.dsts */
	struct in6_addr ip;
	struct pl2_peer peer;
	struct list_head msgs;		/* messages with bytes to send */
	struct list_head bursts;	/* in flight, oldest first */
	u32 nr_out;			/* exchanges outstanding */
	u32 nr_msgs;			/* messages that name it */
	u64 born;			/* messages attached so far */
	struct sird_turns turns;	/* the oldest's share of picks */
};

enum shoal_pl2_burst_state {
	SHOAL_PL2_RSV,			/* waiting for its GRT */
	SHOAL_PL2_GRANTED,		/* waiting for its slot */
};

/* At most K packets to one destination host, and their reservation */
struct shoal_pl2_burst {
	struct list_head node;		/* dst->bursts */
	struct list_head timed;		/* ss->pl2.timed, by at */
	struct shoal_pl2_dst *dst;
	struct sk_buff_head skbs;	/* DATA, built, with SHOAL_F_SCHED */
	u16 dport;			/* the RSV names the first packet's */
	u8 name_flags;			/* message, which the GRT echoes */
	u64 msg_id;
	u32 msg_len;
	u32 offset;
	u32 demand;			/* packets */
	u32 bytes;			/* on the wire */
	u64 rsv_ns;			/* when the RSV left */
	u64 at;				/* the timer's: send, or RSV timeout */
	enum shoal_pl2_burst_state state;
	bool unsol;			/* a copy went ahead of the GRT */
};

/* A PL2 socket's sender state, in struct shoal_sock */
struct shoal_pl2_sock {
	struct hlist_head dsts[SHOAL_PL2_DST_HASH];
	u32 nr_dsts;
	struct list_head timed;		/* every burst, soonest first */
	struct hrtimer timer;		/* the first burst's at */
};

void shoal_pl2_net_init(struct shoal_pl2_net *pn);
void shoal_pl2_sock_init(struct shoal_sock *ss);
void shoal_pl2_sock_close(struct shoal_sock *ss, struct sk_buff_head *q);
enum hrtimer_restart shoal_pl2_timer(struct hrtimer *t);
int shoal_pl2_attach(struct shoal_sock *ss, struct shoal_omsg *m);
void shoal_pl2_detach(struct shoal_sock *ss, struct shoal_omsg *m);
void shoal_pl2_push(struct shoal_sock *ss, struct shoal_omsg *m,
		    struct sk_buff_head *q);
void shoal_pl2_grt(struct shoal_sock *ss, const struct shoal_wire_pkt *pkt,
		   const struct shoal_addr *src, struct sk_buff_head *q);
void shoal_pl2_answer(struct shoal_net *sn, const struct shoal_wire_pkt *pkt,
		      const struct shoal_addr *src,
		      const struct in6_addr *local, struct sk_buff_head *q);

#endif /* _SHOAL_PL2_H */
