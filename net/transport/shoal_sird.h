/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: SIRD's receiver (shoal_sird.c).  One per namespace: the
 * global credit bucket B, the sender hosts with their buckets and AIMD
 * loops (sird_core.h), the messages that want credit, and the pacer that
 * grants it, SRPT first.
 *
 * Locking: sird->lock (softirq-safe) guards everything here, the peers
 * and every message's struct shoal_credit.  It nests inside a socket's
 * ss->lock, never the other way: the pacer holds only sird->lock, and a
 * message leaves the wanting list (shoal_credit_detach(), under both
 * locks) before its socket frees it, so the pacer never sees a freed
 * message; it reads only the message's fields that never change.
 */
#ifndef _SHOAL_SIRD_H
#define _SHOAL_SIRD_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "shoal_msg_core.h"
#include "sird_core.h"

#define SHOAL_SIRD_PEER_HASH	64
#define SHOAL_SIRD_PEERS_KEEP	256	/* idle peers kept for their loops */
#define SHOAL_CREDIT_OWED	8	/* trimmed ranges a message waits for */

/* Ethernet, IPv4, UDP and Shoal headers of a DATA packet */
#define SHOAL_WIRE_OVERHEAD	(14 + 20 + 8 + SHOAL_HDR_LEN)

struct shoal_sock;
struct shoal_net;

/* A sender host, as its receiver sees it */
struct shoal_sird_peer {
	struct hlist_node node;
	struct in6_addr ip;
	u64 order;			/* its place in the round robin */
	struct sird_rx_peer rx;		/* sb, the two loops */
	u32 msgs;			/* messages of it we have */
};

/* A message's credit, in its struct shoal_imsg */
struct shoal_credit {
	struct list_head node;		/* sird->wanting, while it wants */
	struct shoal_sird_peer *peer;	/* NULL: not attached */
	struct shoal_sock *ss;
	u32 msg_len;
	u32 granted;			/* [0, granted) may be sent */
	u32 received;			/* bytes that arrived */
	u32 out;			/* credit given, its data not here */
	unsigned long granted_at;	/* jiffies of the last credit */
	u64 due;			/* sird->arrived by which the last
					 * credit's data is due (sird_due())
					 */
	bool wanting;
	u64 born;			/* sird->born when it came */
	u32 nr_owed;
	struct shoal_range owed[SHOAL_CREDIT_OWED];	/* trimmed bytes, to
							 * ask for again
							 */
};

struct shoal_sird {
	spinlock_t lock;		/* everything below */
	struct shoal_net *sn;
	u32 b;				/* credit outstanding, all senders */
	u32 nr_peers;
	struct list_head wanting;	/* messages that want credit */
	struct hlist_head peers[SHOAL_SIRD_PEER_HASH];
	struct hrtimer pacer;
	u64 next_ns;			/* the pacer's next grant, not before */
	u64 arrived;			/* data bytes heard: the byte clock */
	unsigned long arrived_at;	/* jiffies of the last of them */
	struct shoal_credit *probe;	/* the grant being timed, NULL: none */
	u32 probe_end;			/* its offset: the DATA ending there */
	u64 probe_ns;			/* when it went */
	struct sird_rtt rtt;		/* grant to DATA, measured */
	u64 granted;			/* statistics, under the lock */
	u64 reclaimed;
	u64 resent;			/* trimmed bytes asked for again */
	u64 unsched_paced;		/* unscheduled bytes that moved next_ns */
	u64 peers_freed;
	u64 peer_seq;			/* the last peer's order */
	struct sird_turns rr;		/* round robin's turns over hosts */
	u64 rr_grants;			/* grants given round robin */
	u64 fifo_grants;		/* grants given to the oldest */
	u64 born;			/* messages attached so far */
};

void shoal_sird_cfg(const struct shoal_net *sn, struct sird_cfg *c);
void shoal_sird_init(struct shoal_sird *sird, struct shoal_net *sn);
void shoal_sird_exit(struct shoal_sird *sird);
int shoal_credit_attach(struct shoal_sird *sird, struct shoal_credit *c,
			struct shoal_sock *ss, const struct in6_addr *ip,
			u32 msg_len, u32 granted);
void shoal_credit_detach(struct shoal_sird *sird, struct shoal_credit *c);
void shoal_credit_data(struct shoal_sird *sird, struct shoal_credit *c,
		       u32 end, u32 len, u32 fresh, u32 received, bool sched,
		       bool csn, bool ce);
void shoal_credit_ask(struct shoal_sird *sird, struct shoal_credit *c,
		      u32 upto);
void shoal_credit_reclaim(struct shoal_sird *sird, struct shoal_credit *c);
void shoal_credit_trimmed(struct shoal_sird *sird, struct shoal_credit *c,
			  u32 back, const struct shoal_range *r, u32 n);
void shoal_credit_resend(struct shoal_sird *sird, struct shoal_credit *c,
			 u32 len);
bool shoal_credit_queued(struct shoal_sird *sird,
			 const struct shoal_credit *c, unsigned long ival);
void shoal_sird_kick(struct shoal_sird *sird);
void shoal_sird_show(struct shoal_sird *sird, struct seq_file *seq);

#endif /* _SHOAL_SIRD_H */
