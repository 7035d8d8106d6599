/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: the sockets and the messages they send and receive
 * (shoal_sock.c, shoal_out.c, shoal_in.c, shoal_ack.c).
 *
 * Locking: each socket has one spinlock, ss->lock, taken with bottom
 * halves off in process context and plainly in softirq context (the
 * receive path, the socket's timers).  It guards everything in struct
 * shoal_sock below it and every message the socket owns.  Packets are
 * built under it into a local queue and sent after it is dropped.  The
 * receive path finds a socket by port under RCU (sockets are freed an RCU
 * grace period after close, SOCK_RCU_FREE) and takes the lock; a socket
 * being closed is marked dead under the lock first, so nothing is added
 * to it after its messages are freed.  A message's memory is charged to
 * its socket: an outbound one to sk_wmem_queued (its length and state), an
 * inbound one's state and packets to sk_rmem_alloc, and to the protocol's
 * and the cgroup's memory (shoal_rmem.c, whose socket spinlock nests
 * inside ss->lock).
 */
#ifndef _SHOAL_SOCK_H
#define _SHOAL_SOCK_H

#include <linux/rhashtable.h>
#include <linux/siphash.h>
#include <linux/timer.h>
#include <net/inet_sock.h>

#include "shoal_ack.h"
#include "shoal_impl.h"
#include "shoal_msg_core.h"

#define SHOAL_MSG_HASH		64

struct shoal_sock {
	struct inet_sock inet;		/* first: inet_create() */
	struct hlist_node port_node;	/* in sn->ports[], RCU */
	u16 port;			/* bound Shoal port, 0: not yet */
	struct shoal_net *sn;
	bool udp_held;			/* counted in sn->udp_users */
	struct timer_list timer;	/* resends and timeouts */

	spinlock_t lock;		/* all below */
	bool dead;			/* closing: take nothing new */
	u64 id_seq;			/* messages named so far */
	siphash_key_t id_key;		/* a message's id from id_seq */
	siphash_key_t hash_key;		/* out_hash and in_hash buckets */
	struct hlist_head out_hash[SHOAL_MSG_HASH];
	struct list_head out_list;	/* outbound messages, oldest first */
	struct hlist_head in_hash[SHOAL_MSG_HASH];
	struct list_head in_list;	/* inbound ones not complete */
	u32 nr_receiving;		/* on in_list */
	struct list_head ready;		/* complete, for recvmsg() */
	struct list_head done;		/* read messages' names (struct
					 * shoal_done), remembered to answer
					 * late packets with an ACK
					 */
	struct rhashtable done_ht;	/* the same, by name: there may be
					 * thousands (a name is kept for
					 * seconds)
					 */
	struct list_head errq;		/* failed sends, for MSG_ERRQUEUE */
	struct list_head await;		/* requests delivered, waiting for
					 * their responses (awaiting omsgs)
					 */
	u32 await_charge;		/* their part of sk_wmem_queued */
	u32 nr_acks;			/* in acks[], oldest first */
	struct shoal_ack_due acks[SHOAL_ACKS_DUE];
	struct shoal_sock_stats stats;
	u32 credit_out;			/* under sn->sird.lock: credit given
					 * to this socket's messages, its
					 * data not here yet
					 */
	bool pl2;			/* IPPROTO_PL2: sends in bursts */
	struct shoal_pl2_sock pl2s;	/* its bursts (shoal_pl2.h) */
	int rmem_deferred;		/* under sk->sk_lock.slock: receive
					 * memory freed while the socket was
					 * owned (shoal_rmem.c)
					 */
};

#if IS_ENABLED(CONFIG_IPV6)
struct shoal6_sock {
	struct shoal_sock ss;
	struct ipv6_pinfo inet6;	/* last: inet6_sk_generic() */
};
#endif

static inline struct shoal_sock *shoal_sk(const struct sock *sk)
{
	return (struct shoal_sock *)sk;
}

/* An outbound message */
struct shoal_omsg {
	struct hlist_node hash;		/* ss->out_hash, by id */
	struct list_head node;		/* ss->out_list */
	struct shoal_addr dst;
	struct in6_addr local;		/* its packets' source: a response's
					 * is where its request was sent;
					 * any: the route's
					 */
	u64 id;
	u8 name_flags;			/* SHOAL_F_REQUEST or _RESPONSE */
	bool announced;			/* CREDIT_REQ sent or not needed */
	bool answered;			/* the receiver said something */
	bool credited;			/* CREDIT or RESEND came: the
					 * receiver took it
					 */
	bool awaiting;			/* a request delivered, on ss->await:
					 * its data is gone, it waits for the
					 * response
					 */
	u32 len;
	u32 unsched;
	u32 mss;
	u32 silent;			/* its probes without news */
	unsigned long silent_at;	/* while silent: when that began */
	unsigned long heard;		/* jiffies of the last news */
	unsigned long named;		/* the last packet naming it */
	unsigned long probed;		/* its last probe (or its start) */
	bool probing;			/* that probe is unanswered */
	unsigned long hush;		/* no probe before: its receiver
					 * said when it speaks next (BUSY)
					 */
	u8 notheld;			/* BUSY NOTHELDs in a row */
	u32 charge;			/* bytes charged to sk_wmem_queued */
	struct shoal_sock *ss;		/* its socket */
	struct list_head tx_node;	/* sn->sird_tx.ready, while it holds
					 * credit; under sird_tx.lock too
					 */
	u32 tx_held;			/* credit it holds, as counted there */
	u32 tx_ready;			/* bytes it may send now (its
					 * unscheduled ones among them)
					 */
	u32 tx_left;			/* bytes it has still to send */
	struct shoal_pl2_dst *pl2_dst;	/* PL2: its destination host */
	struct list_head pl2_node;	/* pl2_dst->msgs, while it has
					 * bytes to send
					 */
	u64 pl2_born;			/* PL2: its arrival at pl2_dst */
	unsigned long pl2_sent;		/* PL2: jiffies its last burst
					 * took bytes of it, 0: none yet
					 */
	struct shoal_tx_state tx;
	u8 *data;			/* the message, kvmalloc()ed */
};

enum shoal_imsg_state {
	SHOAL_IN_RECEIVING,		/* on ss->in_list */
	SHOAL_IN_READY,			/* on ss->ready */
	SHOAL_IN_READING,		/* a recvmsg() copies it out, then
					 * a struct shoal_done takes its place
					 */
};

/* An inbound message */
struct shoal_imsg {
	struct hlist_node hash;		/* ss->in_hash */
	struct list_head node;		/* by state, see above */
	struct shoal_addr src;
	struct in6_addr local;		/* where it was sent: replies' source */
	u64 id;
	u8 name_flags;
	u8 reply_flags;			/* SHOAL_F_RETX: a retransmission
					 * started it (its first packets were
					 * lost), said in its answers
					 */
	enum shoal_imsg_state state;
	u32 unsched;			/* bytes it sends without credit */
	struct shoal_credit credit;	/* under sn->sird.lock */
	u32 quiet;			/* intervals nothing arrived */
	u32 silent;			/* of which data was expected */
	u32 deferred;			/* quiet intervals the byte clock put
					 * off since its last new bytes
					 */
	unsigned long heard;
	ktime_t done_at;		/* complete (CLOCK_REALTIME), for
					 * SO_TIMESTAMP(NS); 0: not asked
					 */
	struct sk_buff_head skbs;	/* payloads by offset */
	u32 mem;			/* receive memory charged: its state
					 * and skbs' truesize
					 */
	struct shoal_rx_ranges rx;
};

/* A message read: only its name is kept (a few dozen bytes, where the
 * message's state took hundreds), for as long as its sender may still
 * send a packet of it
 */
struct shoal_done_key {
	struct in6_addr ip;		/* the sender's */
	u64 id;
	u16 port;
	u8 name_flags;
	u8 zero[5];			/* hashed too: always 0 */
};

struct shoal_done {
	struct rhash_head rh;		/* ss->done_ht */
	struct list_head node;		/* ss->done, by heard, oldest first */
	struct shoal_done_key key;
	struct in6_addr local;		/* where it was sent: replies' source */
	u32 msg_len;
	bool unanswered;		/* a request: kept until its response
					 * is acknowledged or fails
					 */
	unsigned long heard;		/* read, or its response went */
};

/* A received payload: skb->data at its first byte */
struct shoal_rx_cb {
	u32 offset;
	u32 len;
};

#define SHOAL_RX_CB(skb)	((struct shoal_rx_cb *)(skb)->cb)

/* A failed send, for MSG_ERRQUEUE */
struct shoal_err {
	struct list_head node;
	struct shoal_addr dst;
	u64 id;
	u8 name_flags;
	int error;
};

/* A message's bucket, keyed per socket: a peer that chooses its ids
 * must not put all of a socket's messages in one chain, which every
 * packet's lookup would walk in softirq
 */
static inline u32 shoal_msg_hash(const struct shoal_sock *ss,
				 const struct shoal_addr *a, u64 id)
{
	u64 ip_hi, ip_lo;

	memcpy(&ip_hi, &a->ip.s6_addr[0], sizeof(ip_hi));
	memcpy(&ip_lo, &a->ip.s6_addr[8], sizeof(ip_lo));
	return (u32)siphash_4u64(id, ip_hi, ip_lo, a->port, &ss->hash_key) &
	       (SHOAL_MSG_HASH - 1);
}

/* Flags that name a message, as on the wire */
#define SHOAL_F_NAME	(SHOAL_F_REQUEST | SHOAL_F_RESPONSE)

/* shoal_out.c */
struct shoal_omsg *shoal_omsg_find(struct shoal_sock *ss,
				   const struct shoal_addr *dst, u64 id,
				   u8 name_flags);
int shoal_omsg_send(struct shoal_sock *ss, struct msghdr *msg, size_t len,
		    const struct shoal_addr *dst, u8 name_flags, u64 *id);
void shoal_out_rcv(struct shoal_sock *ss, const struct shoal_wire_pkt *pkt,
		   const struct shoal_addr *src, struct sk_buff_head *q);
void shoal_out_bounced(struct shoal_sock *ss,
		       const struct shoal_wire_pkt *pkt,
		       const struct shoal_addr *peer, struct sk_buff_head *q);
void shoal_out_tick(struct shoal_sock *ss, struct sk_buff_head *q);
bool shoal_omsg_data(struct shoal_sock *ss, struct shoal_omsg *m, u32 off,
		     u32 len, u8 flags, struct sk_buff_head *q);
u32 shoal_omsg_send_one(struct shoal_sock *ss, struct shoal_omsg *m, bool csn,
			struct sk_buff_head *q);
void shoal_omsg_free(struct shoal_sock *ss, struct shoal_omsg *m);
void shoal_out_responded(struct shoal_sock *ss, const struct shoal_addr *src,
			 u64 id);
void shoal_out_acked(struct shoal_sock *ss, const struct shoal_addr *src,
		     u64 id);
u32 shoal_out_host_gone(struct shoal_sock *ss, const struct in6_addr *host);

/* shoal_in.c */
void shoal_in_rcv(struct shoal_sock *ss, struct sk_buff *skb,
		  const struct shoal_wire_pkt *pkt,
		  const struct shoal_addr *src, const struct in6_addr *local,
		  bool ce, struct sk_buff_head *q);
void shoal_in_tick(struct shoal_sock *ss, struct sk_buff_head *q);
int shoal_in_read(struct shoal_imsg *m, struct msghdr *msg, size_t len);
void shoal_imsg_free(struct shoal_sock *ss, struct shoal_imsg *m);
bool shoal_in_receiving(struct shoal_sock *ss, const struct shoal_addr *src,
			u64 id, u8 name_flags);
u32 shoal_in_host_gone(struct shoal_sock *ss, const struct in6_addr *host);
void shoal_in_request_local(struct shoal_sock *ss,
			    const struct shoal_addr *src, u64 id,
			    struct in6_addr *local);
void shoal_in_answered(struct shoal_sock *ss, const struct shoal_addr *src,
		       u64 id);
void shoal_in_done(struct shoal_sock *ss, struct shoal_imsg *m,
		   struct shoal_done *d, bool delivered);
void shoal_done_free(struct shoal_sock *ss, struct shoal_done *d);
int shoal_done_init(struct shoal_sock *ss);

/* shoal_sock.c */
void shoal_sock_arm(struct shoal_sock *ss);
void shoal_reply(struct shoal_net *sn, const struct shoal_wire_pkt *pkt,
		 const struct shoal_addr *src, const struct in6_addr *local,
		 u16 sport, u8 type, u32 word, struct sk_buff_head *q);
/* shoal_rmem.c */
bool shoal_rmem_short(struct sock *sk);
long shoal_rmem_room(struct sock *sk);
int shoal_rmem_charge(struct shoal_sock *ss, int size);
void shoal_rmem_uncharge(struct shoal_sock *ss, int size);
void shoal_rmem_release_cb(struct sock *sk);

int shoal_wait(struct shoal_sock *ss,
	       bool (*cond)(const struct shoal_sock *ss, u32 arg), u32 arg,
	       long *timeo);

#endif /* _SHOAL_SOCK_H */
