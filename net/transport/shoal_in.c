// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: inbound messages.  A DATA packet or a CREDIT_REQ names a
 * message; the first one creates it.  Payloads are kept as the skbs they
 * came in, in offset order, charged to the socket's receive memory;
 * shoal_msg_core.h says which bytes are new (duplicates are dropped by
 * offset) and which are missing.  The receiver invites the rest of a
 * message a window (net.shoal.bdp) at a time, and never more than half its
 * free receive memory (a packet's memory is up to twice its payload).  A
 * trimmed packet's bytes are asked for at once; gaps the sender left are
 * asked for after a resend interval of silence.  A complete message is
 * acknowledged and queued for recvmsg(); once read, it is remembered as
 * done for a while, so that a late packet of it gets an ACK and not a new
 * message.
 *
 * Locking: see shoal_sock.h.  Everything but shoal_in_read()'s copy runs
 * under ss->lock.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "shoal_sock.h"

/* Memory an inbound message's state is charged for */
#define SHOAL_IMSG_CHARGE	((int)sizeof(struct shoal_imsg))

static struct shoal_imsg *shoal_imsg_find(struct shoal_sock *ss,
					  const struct shoal_addr *src,
					  u64 id, u8 name_flags)
{
	struct shoal_imsg *m;

	hlist_for_each_entry(m, &ss->in_hash[shoal_msg_hash(src, id)], hash)
		if (m->id == id && m->name_flags == name_flags &&
		    shoal_addr_eq(&m->src, src))
			return m;
	return NULL;
}

void shoal_imsg_free(struct shoal_sock *ss, struct shoal_imsg *m)
{
	struct sock *sk = &ss->inet.sk;

	hlist_del(&m->hash);
	if (m->state != SHOAL_IN_READING)
		list_del(&m->node);
	if (m->state == SHOAL_IN_READY)
		ss->stats.rx_queued--;
	__skb_queue_purge(&m->skbs);
	atomic_sub(SHOAL_IMSG_CHARGE, &sk->sk_rmem_alloc);
	kfree(m);
}

/* A control packet about @m to its sender */
static void shoal_in_ctrl(struct shoal_sock *ss, struct shoal_imsg *m,
			  u8 type, u32 offset, u32 word,
			  struct sk_buff_head *q)
{
	shoal_ctrl(ss->sn, ss->port, &m->src, type, m->id, m->name_flags,
		   m->rx.msg_len, offset, word, q);
}

/* Payload bytes the socket may still invite: half its free receive
 * memory, less what it invited and has not received yet
 */
static u32 shoal_rx_room(struct shoal_sock *ss)
{
	struct sock *sk = &ss->inet.sk;
	int free = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);
	struct shoal_imsg *m;
	u64 out = 0;

	if (free <= 0)
		return 0;
	list_for_each_entry(m, &ss->in_list, node)
		out += m->granted - min(m->granted, shoal_rx_received(&m->rx));
	return out >= free / 2 ? 0 : free / 2 - out;
}

/* Invite more of @m if the window and the memory allow a packet's worth */
static void shoal_in_grant(struct shoal_sock *ss, struct shoal_imsg *m,
			   u32 room, struct sk_buff_head *q)
{
	u32 len = m->rx.msg_len, want, step;

	want = min_t(u64, len, (u64)shoal_rx_received(&m->rx) +
			       READ_ONCE(ss->sn->cfg.bdp));
	want = min_t(u64, want, (u64)m->granted + room);
	step = min_t(u32, READ_ONCE(ss->sn->cfg.mss), len - m->granted);
	if (want <= m->granted || want - m->granted < step)
		return;
	shoal_in_ctrl(ss, m, SHOAL_T_CREDIT, want, want - m->granted, q);
	m->granted = want;
}

/* Memory came free: every message that waits for it may get some */
void shoal_in_grant_all(struct shoal_sock *ss, struct sk_buff_head *q)
{
	struct shoal_imsg *m;

	list_for_each_entry(m, &ss->in_list, node)
		shoal_in_grant(ss, m, shoal_rx_room(ss), q);
}

static struct shoal_imsg *shoal_imsg_new(struct shoal_sock *ss,
					 const struct shoal_wire_pkt *pkt,
					 const struct shoal_addr *src)
{
	struct sock *sk = &ss->inet.sk;
	struct shoal_imsg *m;

	if (atomic_read(&sk->sk_rmem_alloc) + SHOAL_IMSG_CHARGE >
	    READ_ONCE(sk->sk_rcvbuf))
		return NULL;
	m = kzalloc(sizeof(*m), GFP_ATOMIC);
	if (!m)
		return NULL;
	atomic_add(SHOAL_IMSG_CHARGE, &sk->sk_rmem_alloc);
	m->src = *src;
	m->id = pkt->msg_id;
	m->name_flags = pkt->flags & SHOAL_F_NAME;
	m->state = SHOAL_IN_RECEIVING;
	m->heard = jiffies;
	/* DATA says how much comes unasked; a CREDIT_REQ, where it ends */
	m->granted = pkt->type == SHOAL_T_DATA ? pkt->word : pkt->offset;
	m->granted = min(m->granted, pkt->msg_len);
	__skb_queue_head_init(&m->skbs);
	shoal_rx_init(&m->rx, pkt->msg_len);
	hlist_add_head(&m->hash, &ss->in_hash[shoal_msg_hash(src, m->id)]);
	list_add_tail(&m->node, &ss->in_list);
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

	shoal_in_ctrl(ss, m, SHOAL_T_ACK, 0, 0, q);
	list_move_tail(&m->node, &ss->ready);
	m->state = SHOAL_IN_READY;
	ss->stats.rx_msgs++;
	ss->stats.rx_queued++;
	shoal_stat_inc(ss->sn, SHOAL_STAT_RX_MSGS);
	sk->sk_data_ready(sk);
}

/* Ask at once for what a trimmed packet lost */
static void shoal_in_trimmed(struct shoal_sock *ss, struct shoal_imsg *m,
			     const struct shoal_wire_pkt *pkt,
			     struct sk_buff_head *q)
{
	struct shoal_range r[4];
	u32 i, n;

	n = shoal_rx_trimmed(&m->rx, pkt->offset, pkt->payload_len,
			     get_jiffies_64(), r, ARRAY_SIZE(r));
	for (i = 0; i < n; i++) {
		shoal_in_ctrl(ss, m, SHOAL_T_RESEND, r[i].start,
			      r[i].end - r[i].start, q);
		shoal_stat_inc(ss->sn, SHOAL_STAT_RX_RESEND_TRIMMED);
	}
}

/* A DATA packet of @m; consumes @skb */
static void shoal_in_data(struct shoal_sock *ss, struct shoal_imsg *m,
			  struct sk_buff *skb,
			  const struct shoal_wire_pkt *pkt,
			  struct sk_buff_head *q)
{
	struct shoal_net *sn = ss->sn;
	struct sock *sk = &ss->inet.sk;
	s64 fresh;

	if (pkt->trimmed) {
		shoal_in_trimmed(ss, m, pkt, q);
		goto drop;
	}
	if (atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	    READ_ONCE(sk->sk_rcvbuf)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
		ss->stats.rx_drop_rcvbuf++;
		goto drop;
	}
	fresh = shoal_rx_add(&m->rx, pkt->offset, pkt->payload_len);
	if (fresh == SHOAL_RX_FRAGMENTED) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_FRAGMENTED);
		goto drop;
	}
	if (fresh <= 0) {	/* nothing new: the sender probes us */
		shoal_stat_inc(sn, SHOAL_STAT_RX_DUP_PACKETS);
		shoal_stat_add(sn, SHOAL_STAT_RX_DUP_BYTES, pkt->payload_len);
		ss->stats.rx_dup_bytes += pkt->payload_len;
		shoal_in_ctrl(ss, m, SHOAL_T_BUSY, 0, 0, q);
		goto drop;
	}
	if (fresh < pkt->payload_len) {
		shoal_stat_add(sn, SHOAL_STAT_RX_DUP_BYTES,
			       pkt->payload_len - fresh);
		ss->stats.rx_dup_bytes += pkt->payload_len - fresh;
	}
	__skb_pull(skb, sizeof(struct udphdr) + pkt->hdr_len);
	skb_dst_drop(skb);
	SHOAL_RX_CB(skb)->offset = pkt->offset;
	SHOAL_RX_CB(skb)->len = pkt->payload_len;
	skb_set_owner_r(skb, sk);
	shoal_imsg_keep(m, skb);
	if (shoal_rx_complete(&m->rx)) {
		shoal_imsg_complete(ss, m, q);
		return;
	}
	shoal_in_grant(ss, m, shoal_rx_room(ss), q);
	return;
drop:
	kfree_skb(skb);
}

/* A packet from a sender: DATA, CREDIT_REQ or ABORT.  Consumes @skb. */
void shoal_in_rcv(struct shoal_sock *ss, struct sk_buff *skb,
		  const struct shoal_wire_pkt *pkt,
		  const struct shoal_addr *src, struct sk_buff_head *q)
{
	u8 name = pkt->flags & SHOAL_F_NAME;
	struct shoal_net *sn = ss->sn;
	struct shoal_imsg *m;

	m = shoal_imsg_find(ss, src, pkt->msg_id, name);
	if (m && m->rx.msg_len != pkt->msg_len) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_MISMATCH);
		goto drop;
	}
	if (pkt->type == SHOAL_T_ABORT) {
		if (m && m->state == SHOAL_IN_RECEIVING)
			shoal_imsg_free(ss, m);
		else
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_MSG);
		goto drop;
	}
	if (m && m->state != SHOAL_IN_RECEIVING) {
		/* complete: the sender missed our ACK */
		shoal_stat_inc(sn, SHOAL_STAT_RX_DUP_PACKETS);
		shoal_in_ctrl(ss, m, SHOAL_T_ACK, 0, 0, q);
		goto drop;
	}
	if (!m) {
		/* a message this socket could never hold is refused */
		if (pkt->msg_len > READ_ONCE(ss->inet.sk.sk_rcvbuf) / 2) {
			shoal_ctrl(sn, ss->port, src, SHOAL_T_UNKNOWN,
				   pkt->msg_id, name, pkt->msg_len, 0,
				   EMSGSIZE, q);
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
			goto drop;
		}
		m = shoal_imsg_new(ss, pkt, src);
		if (!m) {
			shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_RCVBUF);
			ss->stats.rx_drop_rcvbuf++;
			goto drop;
		}
	}
	m->heard = jiffies;
	m->silent = 0;
	if (pkt->type == SHOAL_T_DATA) {
		shoal_in_data(ss, m, skb, pkt, q);
		return;
	}
	/* CREDIT_REQ: the sender waits for credit from pkt->offset on */
	if (pkt->offset > m->granted)
		m->granted = pkt->offset;
	shoal_in_grant(ss, m, shoal_rx_room(ss), q);
drop:
	kfree_skb(skb);
}

/* A resend interval passed, under ss->lock: ask for what is missing of
 * quiet messages, tell senders we wait for memory, forget messages whose
 * sender went silent and done ones old enough
 */
void shoal_in_tick(struct shoal_sock *ss, struct sk_buff_head *q)
{
	u32 ms = READ_ONCE(ss->sn->cfg.resend_ms);
	u32 limit = READ_ONCE(ss->sn->cfg.timeout_resends);
	unsigned long ival = msecs_to_jiffies(ms);
	struct shoal_imsg *m, *tmp;
	struct shoal_range r[8];
	u32 i, n;

	list_for_each_entry_safe(m, tmp, &ss->in_list, node) {
		if (time_before(jiffies, m->heard + ival))
			continue;
		m->heard = jiffies;
		if (++m->silent > limit) {
			shoal_imsg_free(ss, m);	/* the sender is gone */
			continue;
		}
		n = shoal_rx_gaps(&m->rx, m->granted, get_jiffies_64(), ival,
				  0, r, ARRAY_SIZE(r));
		for (i = 0; i < n; i++)
			shoal_in_ctrl(ss, m, SHOAL_T_RESEND, r[i].start,
				      r[i].end - r[i].start, q);
		if (!n && m->granted < m->rx.msg_len) {
			shoal_in_grant(ss, m, shoal_rx_room(ss), q);
			shoal_in_ctrl(ss, m, SHOAL_T_BUSY, 0, 0, q);
		}
	}
	list_for_each_entry_safe(m, tmp, &ss->done, node)
		if (time_after_eq(jiffies, m->heard + ival * (limit + 1)))
			shoal_imsg_free(ss, m);
}

/* Copy @m out to @msg (a recvmsg() of @len bytes).  @m is READING: only
 * this caller touches its skbs.  Returns the bytes copied.
 */
int shoal_in_read(struct shoal_sock *ss, struct shoal_imsg *m,
		  struct msghdr *msg, size_t len, int flags)
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
