// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: inbound messages.  A DATA packet or a CREDIT_REQ names a
 * message; the first one creates it.  Payloads are kept as the skbs they
 * came in, in offset order, charged to the socket's receive memory;
 * shoal_msg_core.h says which bytes are new (duplicates are dropped by
 * offset) and which are missing.  SIRD's receiver (shoal_sird.c) invites
 * the scheduled bytes, and asks at once for what a switch trimmed (the
 * bytes are owed to its pacer); gaps the sender left are asked for after
 * two quiet intervals, then after 4, 8, ...  A complete message is
 * acknowledged (a response's ACK may wait to ride on a request:
 * shoal_ack.c) and queued for recvmsg(); once read, its name alone (a
 * struct shoal_done) is remembered for a while, so that a late packet of
 * it gets an ACK and not a new message.  A request read is remembered
 * until its response is acknowledged (or fails), however long the
 * application takes: its client asks after it meanwhile (shoal_out.c),
 * and is told ACK.
 *
 * Locking: see shoal_sock.h.  Everything but shoal_in_read()'s copy runs
 * under ss->lock.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "shoal_sock.h"
#include "shoal_trace.h"

/* Resend intervals a read message is remembered: longer than its sender
 * may probe for it (timeout_resends probes, two intervals apart), so that
 * a sender that lost every ACK gets one, and is never taken for a new
 * message
 */
#define SHOAL_DONE_LINGER(limit)	(2 * ((limit) + 1))

/* Messages a socket receives at once, at most (more are dropped, counted
 * in rx_drop_rcvbuf, and come again later)
 */
#define SHOAL_RECEIVING_MAX	1024

/* Memory an inbound message's state is charged for, and a read one's */
#define SHOAL_IMSG_CHARGE	((int)sizeof(struct shoal_imsg))
#define SHOAL_DONE_CHARGE	((int)sizeof(struct shoal_done))

static struct shoal_imsg *shoal_imsg_find(struct shoal_sock *ss,
					  const struct shoal_addr *src,
					  u64 id, u8 name_flags)
{
	struct hlist_head *h = &ss->in_hash[shoal_msg_hash(ss, src, id)];
	struct shoal_imsg *m;

	hlist_for_each_entry(m, h, hash)
		if (m->id == id && m->name_flags == name_flags &&
		    shoal_addr_eq(&m->src, src))
			return m;
	return NULL;
}

static const struct rhashtable_params shoal_done_params = {
	.key_len = sizeof(struct shoal_done_key),
	.key_offset = offsetof(struct shoal_done, key),
	.head_offset = offsetof(struct shoal_done, rh),
	.automatic_shrinking = true,
};

int shoal_done_init(struct shoal_sock *ss)
{
	return rhashtable_init(&ss->done_ht, &shoal_done_params);
}

static void shoal_done_key(struct shoal_done_key *k,
			   const struct shoal_addr *src, u64 id, u8 name_flags)
{
	*k = (struct shoal_done_key){
		.ip = src->ip,
		.id = id,
		.port = src->port,
		.name_flags = name_flags,
	};
}

static struct shoal_done *shoal_done_find(struct shoal_sock *ss,
					  const struct shoal_addr *src,
					  u64 id, u8 name_flags)
{
	struct shoal_done_key k;

	shoal_done_key(&k, src, id, name_flags);
	return rhashtable_lookup_fast(&ss->done_ht, &k, shoal_done_params);
}

void shoal_done_free(struct shoal_sock *ss, struct shoal_done *d)
{
	rhashtable_remove_fast(&ss->done_ht, &d->rh, shoal_done_params);
	list_del(&d->node);
	shoal_rmem_uncharge(ss, SHOAL_DONE_CHARGE);
	kfree(d);
	shoal_obj_dec(SHOAL_OBJ_DONE);
}

/* @m, READING, was read (@delivered) or lost to a fault: its name goes
 * into @d (NULL: no memory for it, and it is forgotten) and @m is freed
 */
void shoal_in_done(struct shoal_sock *ss, struct shoal_imsg *m,
		   struct shoal_done *d, bool delivered)
{
	if (d) {
		shoal_done_key(&d->key, &m->src, m->id, m->name_flags);
		d->local = m->local;
		d->msg_len = m->rx.msg_len;
		/* a request's client may ask after it until it is answered */
		d->unanswered = delivered && (m->name_flags & SHOAL_F_REQUEST);
		d->heard = jiffies;
		/* no name is there twice: a message is only created when
		 * its name is not remembered
		 */
		if (rhashtable_insert_fast(&ss->done_ht, &d->rh,
					   shoal_done_params)) {
			kfree(d);
			d = NULL;
		}
	}
	if (d) {
		/* the name's memory is taken from the message's, which
		 * goes: a charge that could fail here would forget a
		 * message just read, and a late packet would start it anew
		 */
		BUILD_BUG_ON(SHOAL_DONE_CHARGE > SHOAL_IMSG_CHARGE);
		m->mem -= SHOAL_DONE_CHARGE;
		list_add_tail(&d->node, &ss->done);
		shoal_obj_inc(SHOAL_OBJ_DONE);
	} else {
		shoal_stat_inc(ss->sn, SHOAL_STAT_RX_DONE_NOMEM);
	}
	/* its packets were read: consumed, not dropped */
	if (delivered) {
		struct sk_buff *skb;

		while ((skb = __skb_dequeue(&m->skbs)))
			consume_skb(skb);
	}
	shoal_imsg_free(ss, m);
}

void shoal_imsg_free(struct shoal_sock *ss, struct shoal_imsg *m)
{
	hlist_del(&m->hash);
	if (m->state == SHOAL_IN_RECEIVING)
		ss->nr_receiving--;
	if (m->state != SHOAL_IN_READING)
		list_del(&m->node);
	if (m->state == SHOAL_IN_READY)
		ss->stats.rx_queued--;
	shoal_credit_detach(&ss->sn->sird, &m->credit);
	__skb_queue_purge(&m->skbs);
	shoal_rmem_uncharge(ss, m->mem);
	kfree(m);
	shoal_obj_dec(SHOAL_OBJ_IMSG);
}

/* A control packet about @m to its sender */
static void shoal_in_ctrl(struct shoal_sock *ss, struct shoal_imsg *m,
			  u8 type, u32 offset, u32 word,
			  struct sk_buff_head *q)
{
	shoal_ctrl(ss->sn, &(struct shoal_ctrl){
			.dst = &m->src,
			.saddr = &m->local,
			.sport = ss->port,
			.type = type,
			.flags = m->name_flags | m->reply_flags,
			.id = m->id,
			.msg_len = m->rx.msg_len,
			.offset = offset,
			.word = word,
		   }, q);
}

/* A reply of @type to @pkt from @src, about a message this socket may not
 * hold, from @local
 */
static void shoal_in_reply(struct shoal_sock *ss,
			   const struct shoal_wire_pkt *pkt,
			   const struct shoal_addr *src,
			   const struct in6_addr *local, u8 type, u32 word,
			   struct sk_buff_head *q)
{
	shoal_reply(ss->sn, pkt, src, local, ss->port, type, word, q);
}

/* A new message named by @pkt; ERR_PTR(-ENOBUFS) when the socket cannot
 * take one now (too many, or its SO_RCVBUF is full), -ENOSPC when the
 * protocol's or the cgroup's memory is (shoal_rmem_charge()), -ENOMEM
 * without memory
 */
static struct shoal_imsg *shoal_imsg_new(struct shoal_sock *ss,
					 const struct shoal_wire_pkt *pkt,
					 const struct shoal_addr *src,
					 const struct in6_addr *local)
{
	struct shoal_imsg *m;
	u32 unasked;
	int err;

	/* the timer visits every message being received: their number,
	 * not only their memory, is bounded (a flood of forged senders)
	 */
	if (ss->nr_receiving >= SHOAL_RECEIVING_MAX)
		return ERR_PTR(-ENOBUFS);
	err = shoal_rmem_charge(ss, SHOAL_IMSG_CHARGE);
	if (err)
		return ERR_PTR(err);
	m = kzalloc(sizeof(*m), GFP_ATOMIC);
	if (!m) {
		shoal_rmem_uncharge(ss, SHOAL_IMSG_CHARGE);
		return ERR_PTR(-ENOMEM);
	}
	m->mem = SHOAL_IMSG_CHARGE;
	/* named first: the pacer may credit it as soon as it is attached */
	m->src = *src;
	m->local = *local;
	m->id = pkt->msg_id;
	m->name_flags = pkt->flags & SHOAL_F_NAME;
	/* DATA says how much comes unasked; a CREDIT_REQ, where it ends */
	unasked = pkt->type == SHOAL_T_DATA ? pkt->word : pkt->offset;
	if (shoal_credit_attach(&ss->sn->sird, &m->credit, ss, &src->ip,
				pkt->msg_len, unasked)) {
		shoal_rmem_uncharge(ss, m->mem);
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	m->state = SHOAL_IN_RECEIVING;
	ss->nr_receiving++;
	m->unsched = min(unasked, pkt->msg_len);
	m->heard = jiffies;
	__skb_queue_head_init(&m->skbs);
	shoal_rx_init(&m->rx, pkt->msg_len);
	hlist_add_head(&m->hash,
		       &ss->in_hash[shoal_msg_hash(ss, src, m->id)]);
	list_add_tail(&m->node, &ss->in_list);
	shoal_obj_inc(SHOAL_OBJ_IMSG);
	return m;
}

/* Keep @skb (its payload at skb->data) in offset order */
static void shoal_imsg_keep(struct shoal_imsg *m, struct sk_buff *skb)
{
	struct sk_buff *pos;

	skb_queue_reverse_walk(&m->skbs, pos)
		if (SHOAL_RX_CB(pos)->offset <= SHOAL_RX_CB(skb)->offset) {
			__skb_queue_after(&m->skbs, pos, skb);
			return;
		}
	__skb_queue_head(&m->skbs, skb);
}

static void shoal_imsg_complete(struct shoal_sock *ss, struct shoal_imsg *m,
				struct sk_buff_head *q)
{
	struct sock *sk = &ss->inet.sk;

	if (m->name_flags & SHOAL_F_RESPONSE)
		shoal_ack_defer(ss, m, q);
	else
		shoal_in_ctrl(ss, m, SHOAL_T_ACK, 0, 0, q);
	shoal_credit_detach(&ss->sn->sird, &m->credit);
	if (m->name_flags & SHOAL_F_RESPONSE)
		shoal_out_responded(ss, &m->src, m->id);
	list_move_tail(&m->node, &ss->ready);
	m->state = SHOAL_IN_READY;
	if (sock_flag(sk, SOCK_RCVTSTAMP))
		m->done_at = ktime_get_real();
	ss->nr_receiving--;
	ss->stats.rx_msgs++;
	ss->stats.rx_queued++;
	shoal_stat_inc(ss->sn, SHOAL_STAT_RX_MSGS);
	trace_shoal_msg_complete(ss, m);
	sk->sk_data_ready(sk);
}

/* What a packet we could not keep lost (a switch trimmed it, or the
 * socket had no memory for it) is owed at once: the pacer asks for it
 * again before any new credit, as soon as the socket has room for it
 * (a read makes room and kicks the pacer), without waiting for a
 * timeout.  Returns the ranges owed.
 */
static u32 shoal_in_owe(struct shoal_sock *ss, struct shoal_imsg *m,
			const struct shoal_wire_pkt *pkt)
{
	struct shoal_range r[4];
	u32 n, back = 0;

	n = shoal_rx_trimmed(&m->rx, pkt->offset, pkt->payload_len,
			     get_jiffies_64(), r, ARRAY_SIZE(r));
	if (pkt->flags & (SHOAL_F_SCHED | SHOAL_F_RETX))
		back = pkt->payload_len;	/* it came on credit */
	shoal_credit_trimmed(&ss->sn->sird, &m->credit, back, r, n);
	return n;
}

/* @n ranges of @m asked for again, for @cause: counted and traced */
static void shoal_in_ask(struct shoal_sock *ss, const struct shoal_imsg *m,
			 u32 n, enum shoal_ask_cause cause)
{
	static const enum shoal_stat stat[] = {
		[SHOAL_ASK_TRIMMED] = SHOAL_STAT_RX_RESEND_TRIMMED,
		[SHOAL_ASK_RCVBUF] = SHOAL_STAT_RX_RESEND_RCVBUF,
		[SHOAL_ASK_QUIET] = SHOAL_STAT_RX_RESEND_QUIET,
	};

	if (!n)
		return;
	shoal_stat_add(ss->sn, stat[cause], n);
	trace_shoal_resend_ask(m, n, cause);
}

/* A DATA packet of @m; consumes @skb */
static void shoal_in_data(struct shoal_sock *ss, struct shoal_imsg *m,
			  struct sk_buff *skb,
			  const struct shoal_wire_pkt *pkt, bool ce,
			  struct sk_buff_head *q)
{
	enum skb_drop_reason why = SKB_NOT_DROPPED_YET;
	struct shoal_net *sn = ss->sn;
	u32 truesize = skb->truesize;
	s64 fresh;
	int err;

	/* a trimmed header is consumed: it asked for its bytes again */
	if (pkt->trimmed) {
		shoal_in_ask(ss, m, shoal_in_owe(ss, m, pkt), SHOAL_ASK_TRIMMED);
		goto drop;
	}
	err = shoal_rmem_charge(ss, truesize);
	if (err) {
		if (err == -ENOBUFS) {
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
			ss->stats.rx_drop_rcvbuf++;
			why = SKB_DROP_REASON_SOCKET_RCVBUFF;
		} else {
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_MEM);
			ss->stats.rx_drop_mem++;
			why = SKB_DROP_REASON_PROTO_MEM;
		}
		shoal_in_ask(ss, m, shoal_in_owe(ss, m, pkt), SHOAL_ASK_RCVBUF);
		goto drop;
	}
	if (!pkt->offset && (pkt->flags & SHOAL_F_RETX) && !m->reply_flags &&
	    !shoal_rx_received(&m->rx)) {
		/* the first of its data is a sender's probe: what it sent
		 * before was lost, which its sender learns from our answers
		 * (shoal_out_wake())
		 */
		m->reply_flags = SHOAL_F_RETX;
		shoal_stat_inc(sn, SHOAL_STAT_RX_PROBE_NEW);
	}
	fresh = shoal_rx_add(&m->rx, pkt->offset, pkt->payload_len);
	if (fresh == SHOAL_RX_FRAGMENTED) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_FRAGMENTED);
		why = SKB_DROP_REASON_NOMEM;
		goto uncharge;
	}
	if (fresh <= 0) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DUP_PACKETS);
		shoal_stat_add(sn, SHOAL_STAT_RX_DUP_BYTES, pkt->payload_len);
		ss->stats.rx_dup_bytes += pkt->payload_len;
		/* a sender's probe (its first packet again): we have it */
		if (!pkt->offset && (pkt->flags & SHOAL_F_RETX))
			shoal_in_ctrl(ss, m, SHOAL_T_BUSY, 0, 0, q);
		else
			why = SHOAL_DROP_DUP;
		goto uncharge;
	}
	m->heard = jiffies;
	m->quiet = 0;
	m->deferred = 0;
	if (fresh < pkt->payload_len) {
		shoal_stat_add(sn, SHOAL_STAT_RX_DUP_BYTES,
			       pkt->payload_len - fresh);
		ss->stats.rx_dup_bytes += pkt->payload_len - fresh;
	}
	shoal_credit_data(&sn->sird, &m->credit,
			  pkt->offset + pkt->payload_len, pkt->payload_len, fresh,
			  shoal_rx_received(&m->rx),
			  pkt->flags & (SHOAL_F_SCHED | SHOAL_F_RETX),
			  pkt->flags & SHOAL_F_CSN,
			  ce);
	__skb_pull(skb, sizeof(struct udphdr) + pkt->hdr_len);
	skb_dst_drop(skb);
	SHOAL_RX_CB(skb)->offset = pkt->offset;
	SHOAL_RX_CB(skb)->len = pkt->payload_len;
	skb_orphan(skb);	/* its memory is the message's: m->mem */
	m->mem += truesize;
	shoal_imsg_keep(m, skb);
	if (shoal_rx_complete(&m->rx))
		shoal_imsg_complete(ss, m, q);
	return;
uncharge:
	shoal_rmem_uncharge(ss, truesize);
drop:
	shoal_rx_free(skb, why);
}

/* A packet from a sender: DATA, CREDIT_REQ or ABORT.  Consumes @skb. */
void shoal_in_rcv(struct shoal_sock *ss, struct sk_buff *skb,
		  const struct shoal_wire_pkt *pkt,
		  const struct shoal_addr *src, const struct in6_addr *local,
		  bool ce, struct sk_buff_head *q)
{
	bool probe = pkt->type == SHOAL_T_CREDIT_REQ &&
		     (pkt->flags & SHOAL_F_RETX);
	enum skb_drop_reason why = SKB_NOT_DROPPED_YET;
	u8 name = pkt->flags & SHOAL_F_NAME;
	struct shoal_net *sn = ss->sn;
	struct shoal_done *d = NULL;
	struct shoal_imsg *m;
	bool created = false;

	m = shoal_imsg_find(ss, src, pkt->msg_id, name);
	if (!m)
		d = shoal_done_find(ss, src, pkt->msg_id, name);
	if ((m && m->rx.msg_len != pkt->msg_len) ||
	    (d && d->msg_len != pkt->msg_len)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_MISMATCH);
		why = SKB_DROP_REASON_INVALID_PROTO;
		goto drop;
	}
	if (pkt->type == SHOAL_T_ABORT) {
		if (m && m->state == SHOAL_IN_RECEIVING)
			shoal_imsg_free(ss, m);
		else
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_MSG);
		goto drop;
	}
	if (d || (m && m->state != SHOAL_IN_RECEIVING)) {
		/* complete: the sender missed our ACK, or (a probe for the
		 * response) a client asks whether we still have its request
		 */
		if (!probe)
			shoal_stat_inc(sn, SHOAL_STAT_RX_DUP_PACKETS);
		if (pkt->type == SHOAL_T_DATA)
			why = SHOAL_DROP_DUP;
		shoal_in_reply(ss, pkt, src, d ? &d->local : &m->local,
			       SHOAL_T_ACK, 0, q);
		goto drop;
	}
	if (probe) {
		/* a client asks after a request this socket never took (it
		 * is not the one that did), or after one it has only part
		 * of: the client was told the request arrived (a forged
		 * ACK) and keeps none of its bytes, so it never will.  No
		 * response will come.  Taking the probe as a sign of life
		 * kept both ends waiting for each other forever.
		 */
		if (m)
			shoal_imsg_free(ss, m);
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_MSG);
		shoal_in_reply(ss, pkt, src, local, SHOAL_T_UNKNOWN,
			       ECONNRESET, q);
		goto drop;
	}
	if (!m) {
		/* a response answers a request of ours that waits for it.
		 * One for none is a copy of one read, come after its name
		 * was forgotten (held in a queue, or sent again by a server
		 * that missed the ACK), or answers a request that failed:
		 * taken as new, it would be read twice.  The ACK ends it at
		 * its server.
		 */
		if ((name & SHOAL_F_RESPONSE) &&
		    !shoal_omsg_find(ss, src, pkt->msg_id, SHOAL_F_REQUEST)) {
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_MSG);
			shoal_in_reply(ss, pkt, src, local, SHOAL_T_ACK, 0, q);
			why = SHOAL_DROP_DUP;
			goto drop;
		}
		/* a message this socket could never hold is refused */
		if (pkt->msg_len > READ_ONCE(ss->inet.sk.sk_rcvbuf) / 2) {
			shoal_in_reply(ss, pkt, src, local, SHOAL_T_UNKNOWN,
				       EMSGSIZE, q);
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
			why = SKB_DROP_REASON_SOCKET_RCVBUFF;
			goto drop;
		}
		m = shoal_imsg_new(ss, pkt, src, local);
		created = true;
		if (IS_ERR(m)) {
			if (PTR_ERR(m) == -ENOSPC) {
				shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_MEM);
				ss->stats.rx_drop_mem++;
				why = SKB_DROP_REASON_PROTO_MEM;
			} else {
				shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
				ss->stats.rx_drop_rcvbuf++;
				why = PTR_ERR(m) == -ENOMEM ?
				      SKB_DROP_REASON_NOMEM :
				      SKB_DROP_REASON_SOCKET_RCVBUFF;
			}
			/* alive but full: not silence, which would time the
			 * message out.  Once per announcement or probe (its
			 * CREDIT_REQ, or its first DATA), not per packet.
			 */
			if (PTR_ERR(m) != -ENOMEM &&
			    (pkt->type == SHOAL_T_CREDIT_REQ || !pkt->offset)) {
				shoal_in_reply(ss, pkt, src, local, SHOAL_T_BUSY,
					       SHOAL_BUSY_NOTHELD, q);
				shoal_stat_inc(sn, SHOAL_STAT_RX_BUSY_NOTHELD);
			}
			goto drop;
		}
	}
	/* the sender is alive; only new bytes end a quiet spell (a probe
	 * every other interval must not hide that data stopped coming)
	 */
	m->silent = 0;
	if (pkt->type == SHOAL_T_DATA) {
		shoal_in_data(ss, m, skb, pkt, ce, q);
		return;
	}
	/* CREDIT_REQ: the sender waits for credit from pkt->offset on; a
	 * repeated one is a probe, answered
	 */
	if (!created)
		shoal_in_ctrl(ss, m, SHOAL_T_BUSY, 0,
			      shoal_busy_wait(m->quiet) << SHOAL_BUSY_WAIT_SHIFT,
			      q);
	shoal_credit_ask(&sn->sird, &m->credit, pkt->offset);
drop:
	shoal_rx_free(skb, why);
}

/* Ask again for @m's gaps below @granted, quiet for 2, 4, 8, ...
 * intervals: RESENDs, whose scheduled bytes count as credit
 */
static void shoal_in_resend(struct shoal_sock *ss, struct shoal_imsg *m,
			    u32 granted, unsigned long ival,
			    struct sk_buff_head *q)
{
	struct shoal_range r[8];
	u32 i, n;

	n = shoal_rx_gaps(&m->rx, granted, get_jiffies_64(), ival, 0, r,
			  ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		shoal_in_ctrl(ss, m, SHOAL_T_RESEND, r[i].start,
			      r[i].end - r[i].start, q);
		if (r[i].end > m->unsched)
			shoal_credit_resend(&ss->sn->sird, &m->credit,
					    r[i].end -
					    max(r[i].start, m->unsched));
	}
	shoal_in_ask(ss, m, n, SHOAL_ASK_QUIET);
}

/* Quiet intervals the byte clock may put off a message's loss for, since
 * its last new bytes: data that other data keeps ahead of it for longer
 * (credit stranded while a trickle of other bytes arrives) is a stall,
 * and its bytes are asked for again as time alone would
 */
#define SHOAL_DEFER_MAX		8

/* The sender sockets told BUSY in one tick: one BUSY each covers all
 * their messages waiting here (SHOAL_BUSY_ALL), so that the control a
 * backlog costs grows with the senders, not with their messages.  Past
 * SHOAL_TICK_PEERS of them, each message is told on its own.
 */
#define SHOAL_TICK_PEERS	16

struct shoal_tick_peers {
	u32 n;
	struct {
		struct shoal_addr src;
		const struct in6_addr *local;	/* the BUSY's source */
	} peer[SHOAL_TICK_PEERS];
};

/* The BUSY word for @m this tick: SHOAL_BUSY_ALL for the first of its
 * sender socket (as seen at its local address), 0 when the table is
 * full (a BUSY of its own), -1 when one to that socket covers it
 */
static int shoal_tick_busy_word(struct shoal_tick_peers *p,
				const struct shoal_imsg *m)
{
	u32 i;

	for (i = 0; i < p->n; i++)
		if (shoal_addr_eq(&p->peer[i].src, &m->src) &&
		    ipv6_addr_equal(p->peer[i].local, &m->local))
			return -1;
	if (p->n == SHOAL_TICK_PEERS)
		return 0;
	p->peer[p->n].src = m->src;
	p->peer[p->n++].local = &m->local;
	return SHOAL_BUSY_ALL;
}

/* Receive memory @m needs to complete: twice its missing bytes (a
 * packet's memory is up to twice its payload, as shoal_sird_room()
 * counts), and the page that room keeps back
 */
static u64 shoal_imsg_need(const struct shoal_imsg *m)
{
	return 2ULL * (m->rx.msg_len - shoal_rx_received(&m->rx)) + PAGE_SIZE;
}

/* Messages given up in one interval, at most: each is found by a walk
 * of the receiving list, which is run in softirq
 */
#define SHOAL_GIVE_UP_MAX	16

/* The partial messages alone hold all the memory the socket may have,
 * and none of them can complete: nothing is ready for recvmsg() (whose
 * read would free memory), no credit is out (whose data could complete
 * one), and the message nearest completion (the fewest bytes missing,
 * the one SRPT serves first) has been quiet for two intervals and needs
 * more than the socket may still be charged.  Unscheduled bytes of many
 * senders do this to a small SO_RCVBUF: each message arrives in part
 * and the room credit needs is gone (four hosts' 60 KB messages into
 * 256 KB: none arrived in a minute).  The messages
 * missing the most are given up, as SRPT would serve them last, until
 * that one fits: their memory is freed and their senders told BUSY
 * NOTHELD | GAVE_UP, upon which they send them again, all under credit.
 * Messages holding no data free nothing and are kept.  PL2's senders
 * keep their bursts reserved at the switch: not done for PL2.
 */
static void shoal_in_give_up(struct shoal_sock *ss, struct sk_buff_head *q)
{
	struct sock *sk = &ss->inet.sk;
	struct shoal_imsg *m, *best = NULL, *victim;
	u32 n;

	if (ss->pl2 || ss->nr_receiving < 2 || !list_empty(&ss->ready) ||
	    READ_ONCE(ss->credit_out))
		return;
	list_for_each_entry(m, &ss->in_list, node)
		if (!best || shoal_imsg_need(m) < shoal_imsg_need(best))
			best = m;
	if (best->quiet < 2)
		return;
	for (n = 0; n < SHOAL_GIVE_UP_MAX; n++) {
		if (shoal_imsg_need(best) <= (u64)shoal_rmem_room(sk))
			break;
		victim = NULL;
		list_for_each_entry(m, &ss->in_list, node)
			if (m != best && !skb_queue_empty(&m->skbs) &&
			    (!victim ||
			     shoal_imsg_need(m) > shoal_imsg_need(victim)))
				victim = m;
		if (!victim)
			break;
		shoal_in_ctrl(ss, victim, SHOAL_T_BUSY, 0,
			      SHOAL_BUSY_NOTHELD | SHOAL_BUSY_GAVE_UP, q);
		shoal_imsg_free(ss, victim);
		shoal_stat_inc(ss->sn, SHOAL_STAT_RX_GAVE_UP);
	}
	if (n)
		shoal_sird_kick(&ss->sn->sird);
}

/* A resend interval passed, under ss->lock: quiet messages give their
 * credit out back (it was lost) and ask for what is missing, or tell their
 * senders they wait for credit; messages whose sender went silent are
 * forgotten, and read ones old enough.  What each message is told is
 * shoal_rx_tick()'s (shoal_msg_core.h).
 */
void shoal_in_tick(struct shoal_sock *ss, struct sk_buff_head *q)
{
	u32 limit = READ_ONCE(ss->sn->cfg.timeout_resends);
	unsigned long ival = shoal_resend_ival(ss->sn);
	struct shoal_tick_peers told = { .n = 0 };
	struct shoal_done *d, *dtmp;
	struct shoal_imsg *m, *tmp;
	struct shoal_tick t;
	u32 granted;
	int word;

	list_for_each_entry_safe(m, tmp, &ss->in_list, node) {
		struct shoal_credit *c = &m->credit;
		unsigned long at = READ_ONCE(c->granted_at);

		granted = READ_ONCE(c->granted);
		t = shoal_rx_tick(&(struct shoal_tick_in){
				.heard = m->heard,
				.granted_at = at,
				.quiet = m->quiet,
				.silent = m->silent,
				.granted = granted,
				.owed = READ_ONCE(c->nr_owed),
				.queued = m->deferred < SHOAL_DEFER_MAX &&
					  shoal_credit_queued(&ss->sn->sird,
							      c, ival),
			  }, &m->rx, jiffies, ival, limit);
		m->heard = t.heard;
		m->quiet = t.quiet;
		m->silent = t.silent;
		if (t.reclaim)
			shoal_credit_reclaim(&ss->sn->sird, c);
		switch (t.act) {
		case SHOAL_TICK_BUSY:
			if (!t.busy_wait)	/* told lately */
				break;
			word = shoal_tick_busy_word(&told, m);
			if (word < 0)
				shoal_stat_inc(ss->sn,
					       SHOAL_STAT_RX_BUSY_COVERED);
			else
				shoal_in_ctrl(ss, m, SHOAL_T_BUSY, 0, word |
					      t.busy_wait << SHOAL_BUSY_WAIT_SHIFT,
					      q);
			break;
		case SHOAL_TICK_FORGET:
			shoal_imsg_free(ss, m);	/* the sender is gone */
			shoal_stat_inc(ss->sn, SHOAL_STAT_RX_TIMEOUT);
			break;
		case SHOAL_TICK_RESEND:
			shoal_in_resend(ss, m, granted, ival, q);
			break;
		case SHOAL_TICK_QUEUED:
			m->deferred++;
			shoal_stat_inc(ss->sn, SHOAL_STAT_RX_QUIET_QUEUED);
			break;
		case SHOAL_TICK_IDLE:
		case SHOAL_TICK_WAIT:
			break;
		}
	}
	/* in the order they were heard of: the first one still young
	 * ends the walk (requests waiting for their answer are passed by)
	 */
	list_for_each_entry_safe(d, dtmp, &ss->done, node) {
		if (d->unanswered)
			continue;
		if (time_before(jiffies, d->heard +
				ival * SHOAL_DONE_LINGER(limit)))
			break;
		shoal_done_free(ss, d);
	}
	shoal_in_give_up(ss, q);
}

/* Whether message @id of @src is one this socket is receiving */
bool shoal_in_receiving(struct shoal_sock *ss, const struct shoal_addr *src,
			u64 id, u8 name_flags)
{
	struct shoal_imsg *m = shoal_imsg_find(ss, src, id, name_flags);

	return m && m->state == SHOAL_IN_RECEIVING;
}

/* @host has no Shoal socket (shoal_sock_host_gone()): the messages this
 * socket receives from it are given up, as an ABORT from each would, but
 * for one with new data in the last interval, which may come from a
 * socket made since.  Returns how many.  Under ss->lock.
 */
u32 shoal_in_host_gone(struct shoal_sock *ss, const struct in6_addr *host)
{
	struct shoal_imsg *m, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(m, tmp, &ss->in_list, node) {
		if (m->quiet && ipv6_addr_equal(&m->src.ip, host)) {
			shoal_imsg_free(ss, m);
			n++;
		}
	}
	return n;
}

/* Where request @id from @src was sent, into @local (left as it is if
 * the request is not remembered): its response goes from there, as
 * every reply does, since the client knows the server by the address
 * it sent the request to.  Under ss->lock.
 */
void shoal_in_request_local(struct shoal_sock *ss,
			    const struct shoal_addr *src, u64 id,
			    struct in6_addr *local)
{
	struct shoal_done *d = shoal_done_find(ss, src, id, SHOAL_F_REQUEST);

	if (d)
		*local = d->local;
}

/* The response to request @id of @src is acknowledged, or failed: the
 * request is remembered only as long as any read message now
 */
void shoal_in_answered(struct shoal_sock *ss, const struct shoal_addr *src,
		       u64 id)
{
	struct shoal_done *d = shoal_done_find(ss, src, id, SHOAL_F_REQUEST);

	if (d && d->unanswered) {
		d->unanswered = false;
		d->heard = jiffies;
		list_move_tail(&d->node, &ss->done);	/* heard of last */
	}
}

/* Copy @m out to @msg (a recvmsg() of @len bytes).  @m is READING: only
 * this caller touches its skbs.  Returns the bytes copied.
 */
int shoal_in_read(struct shoal_imsg *m, struct msghdr *msg, size_t len)
{
	u32 done = 0, want = min_t(size_t, len, m->rx.msg_len);
	struct sk_buff *skb;
	u32 off, n;
	int err;

	skb_queue_walk(&m->skbs, skb) {
		struct shoal_rx_cb *cb = SHOAL_RX_CB(skb);

		if (done >= want)
			break;
		if (cb->offset + cb->len <= done)
			continue;	/* overlap: already copied */
		if (cb->offset > done)
			return -EIO;	/* a hole: cannot be, it is complete */
		off = done - cb->offset;
		n = min(cb->len - off, want - done);
		err = skb_copy_datagram_msg(skb, off, msg, n);
		if (err)
			return err;
		done += n;
	}
	return done;
}
