// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: outbound messages.  sendmsg() copies a whole message into the
 * kernel and sends what it may at once: its unscheduled prefix, and a
 * CREDIT_REQ for the rest.  Then the receiver drives: CREDIT lets more
 * bytes go, RESEND asks for bytes again, ACK ends the message, UNKNOWN
 * fails it.  A message the receiver is silent about for two resend
 * intervals probes it with a CREDIT_REQ (a receiver that has it answers,
 * one that never saw it learns of it), and its first packet while the
 * receiver never answered; the messages waiting at one receiver take
 * turns, one probe for all of them, but a probe whose receiver says it
 * started the message (SHOAL_F_RETX) makes two others it never answered
 * probe at once: messages lost whole are found in round trips, not one a
 * turn.  A message's probes back off while its receiver stays silent (2,
 * 4, then every SHOAL_PROBE_GAP_MAX intervals); after 2 x
 * (net.shoal.timeout_resends + 1) intervals of silence it fails with
 * ETIMEDOUT.  Failures go to the socket's error queue (MSG_ERRQUEUE).
 *
 * A request is not done when it is acknowledged: its data is freed, but
 * a small record of it waits on ss->await for the response.  While the
 * server says nothing of it for two intervals, the record probes it (a
 * CREDIT_REQ with SHOAL_F_RETX): a server that still has the request
 * (until its response is acknowledged) answers ACK, one that lost it
 * (its socket closed) answers UNKNOWN, and the request fails with
 * ECONNRESET; no answer for the timeout fails it with ETIMEDOUT.  So a
 * response lost with its server is reported too.  A server that takes
 * its time keeps answering: the client waits.
 *
 * Locking: see shoal_sock.h.  Everything here but shoal_omsg_send()'s copy
 * runs under ss->lock and queues packets on @q for the caller to send.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "shoal_sock.h"
#include "shoal_trace.h"

struct shoal_omsg *shoal_omsg_find(struct shoal_sock *ss,
				   const struct shoal_addr *dst, u64 id,
				   u8 name_flags)
{
	struct hlist_head *h = &ss->out_hash[shoal_msg_hash(ss, dst, id)];
	struct shoal_omsg *m;

	hlist_for_each_entry(m, h, hash)
		if (m->id == id && m->name_flags == name_flags &&
		    shoal_addr_eq(&m->dst, dst))
			return m;
	return NULL;
}

/* A new message's id: the socket's count of named messages through a
 * keyed hash, so that an off-path host cannot guess a live id to forge
 * CREDIT, RESEND or ABORT for it.  Never 0 (applications keep 0 for "no
 * message"), and never one that names a message still going to @dst.
 */
static u64 shoal_next_id(struct shoal_sock *ss, const struct shoal_addr *dst,
			 u8 name_flags)
{
	u64 id;

	do {
		id = siphash_1u64(++ss->id_seq, &ss->id_key);
	} while (!id || shoal_omsg_find(ss, dst, id, name_flags));
	return id;
}

/* Unlink and free @m, giving its memory back to the socket */
void shoal_omsg_free(struct shoal_sock *ss, struct shoal_omsg *m)
{
	struct sock *sk = &ss->inet.sk;

	shoal_sird_tx_forget(ss, m);
	shoal_pl2_detach(ss, m);
	hlist_del(&m->hash);
	list_del(&m->node);
	sk_wmem_queued_add(sk, -(int)m->charge);
	if (m->awaiting)
		WRITE_ONCE(ss->await_charge, ss->await_charge - m->charge);
	else
		ss->stats.tx_queued--;
	/* a response is done: its request need not be remembered */
	if (m->name_flags & SHOAL_F_RESPONSE)
		shoal_in_answered(ss, &m->dst, m->id);
	kvfree(m->data);
	kfree(m);
	shoal_obj_dec(SHOAL_OBJ_OMSG);
}

/* Request @m was acknowledged: keep only what its response needs */
static void shoal_omsg_await(struct shoal_sock *ss, struct shoal_omsg *m)
{
	struct sock *sk = &ss->inet.sk;

	shoal_sird_tx_forget(ss, m);
	shoal_pl2_detach(ss, m);
	kvfree(m->data);
	m->data = NULL;
	sk_wmem_queued_add(sk, -(int)(m->charge - sizeof(*m)));
	m->charge = sizeof(*m);
	WRITE_ONCE(ss->await_charge, ss->await_charge + m->charge);
	m->awaiting = true;
	ss->stats.tx_queued--;
	m->heard = jiffies;
	m->silent = 0;
	list_move_tail(&m->node, &ss->await);
}

/* The whole response to request @id came from @src: the request is done
 * (acknowledged by it, if its ACK was lost or is late)
 */
void shoal_out_responded(struct shoal_sock *ss, const struct shoal_addr *src,
			 u64 id)
{
	struct shoal_omsg *m = shoal_omsg_find(ss, src, id, SHOAL_F_REQUEST);

	if (!m)
		return;
	if (!m->awaiting) {
		ss->stats.tx_acked++;
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_ACKED);
		trace_shoal_msg_acked(ss, m);
	}
	shoal_omsg_free(ss, m);
	ss->inet.sk.sk_write_space(&ss->inet.sk);
}

/* The message failed: note why for MSG_ERRQUEUE and free it */
static void shoal_omsg_fail(struct shoal_sock *ss, struct shoal_omsg *m,
			    int error)
{
	struct shoal_err *e = NULL;

	ss->stats.tx_failed++;
	trace_shoal_msg_fail(ss, m, error);
	/* the error queue is receive memory: an owner that never reads it
	 * loses the reports past SO_RCVBUF (sk_err then says one failed)
	 */
	if (!shoal_rmem_charge(ss, sizeof(*e))) {
		e = kzalloc(sizeof(*e), GFP_ATOMIC);
		if (!e)
			shoal_rmem_uncharge(ss, sizeof(*e));
	}
	if (e) {
		shoal_obj_inc(SHOAL_OBJ_ERR);
		e->dst = m->dst;
		e->id = m->id;
		e->name_flags = m->name_flags;
		e->error = error;
		list_add_tail(&e->node, &ss->errq);
	}
	shoal_omsg_free(ss, m);
	/* a failure is an event the owner must see: POLLERR.  A report on
	 * the queue is the whole of it, as for a zerocopy or timestamp
	 * report (the receive calls, which read other peers' messages, do
	 * not return it); only one lost for want of memory stays pending
	 * in sk_err (SO_ERROR, and the core's recvmmsg() returns it once)
	 */
	if (!e)
		ss->inet.sk.sk_err = error;
	sk_error_report(&ss->inet.sk);
}

/* @m's CREDIT_REQ with @flags (its name's, and SHOAL_F_RETX for a
 * request's probe): credit is asked for from where its unscheduled bytes
 * end
 */
static void shoal_omsg_credit_req(struct shoal_sock *ss,
				  const struct shoal_omsg *m, u8 flags,
				  struct sk_buff_head *q)
{
	shoal_ctrl(ss->sn, &(struct shoal_ctrl){
			.dst = &m->dst,
			.saddr = &m->local,
			.sport = ss->port,
			.type = SHOAL_T_CREDIT_REQ,
			.flags = flags,
			.id = m->id,
			.msg_len = m->len,
			.offset = m->unsched,
		   }, q);
}

/* One DATA packet of @m with @flags (SHOAL_F_SCHED, _RETX, _CSN) on @q;
 * false without memory (the bytes are queued to go again)
 */
bool shoal_omsg_data(struct shoal_sock *ss, struct shoal_omsg *m, u32 off,
		     u32 len, u8 flags, struct sk_buff_head *q)
{
	struct shoal_wire_pkt p = {
		.type = SHOAL_T_DATA,
		.flags = m->name_flags | flags,
		.sport = ss->port,
		.dport = m->dst.port,
		.msg_id = m->id,
		.msg_len = m->len,
		.offset = off,
		.payload_len = len,
		.word = m->unsched,
	};
	struct sk_buff *skb;

	if (ss->nr_acks && shoal_ack_take(ss, &m->dst, &p.ack_id))
		p.options = SHOAL_O_ACK;
	skb = shoal_pkt_alloc(&p, len, GFP_ATOMIC);
	if (!skb) {
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_DROP_NOMEM);
		trace_shoal_resend(m, off, len, SHOAL_RESEND_NOMEM);
		shoal_tx_resend(&m->tx, off, len);
		return false;
	}
	skb_put_data(skb, m->data + off, len);
	shoal_pkt_queue(skb, &m->dst, &m->local, SHOAL_T_DATA, q);
	trace_shoal_data_tx(m, off, len, p.flags);
	if (flags & SHOAL_F_RETX)
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_RETX_PACKETS);
	return true;
}

/* SIRD's flags for a DATA packet of @m at @off: sent against credit past
 * the unscheduled prefix
 */
static u8 shoal_sird_flags(const struct shoal_omsg *m, u32 off, bool retx,
			   bool csn)
{
	return (off >= m->unsched ? SHOAL_F_SCHED : 0) |
	       (retx ? SHOAL_F_RETX : 0) | (csn ? SHOAL_F_CSN : 0);
}

/* What @m may send now: the credit request once, then its unscheduled
 * bytes, resends and authorised bytes, unless the uplink pacer sends
 * those (net.shoal.sird_tx_rate_mbps: the unscheduled ones too, so that
 * a message leaves no faster than the uplink it stands for, and its
 * bytes do not arrive at the receiver's port faster than that port's
 * rate when it is alone); at most two BDPs' worth a call (a forged grant
 * of a whole message must not build thousands of packets at once: the
 * pacer sends the rest)
 */
static void shoal_omsg_push(struct shoal_sock *ss, struct shoal_omsg *m,
			    struct sk_buff_head *q)
{
	u32 off, len, budget = 2 * READ_ONCE(ss->sn->cfg.bdp);
	bool paced = shoal_sird_tx_paced(ss->sn);
	bool csn = shoal_sird_tx_csn(ss->sn);
	enum shoal_tx_kind kind;

	if (ss->pl2) {
		shoal_pl2_push(ss, m, q);
		return;
	}
	if (!m->announced) {
		m->announced = true;
		shoal_omsg_credit_req(ss, m, m->name_flags, q);
	}
	while (!paced && budget &&
	       (kind = shoal_tx_next(&m->tx, min(m->mss, budget), &off,
				     &len)) != SHOAL_TX_NONE) {
		if (!shoal_omsg_data(ss, m, off, len,
				     shoal_sird_flags(m, off,
						      kind == SHOAL_TX_RESEND,
						      csn), q))
			break;
		budget -= len;
	}
	shoal_sird_tx_update(ss, m, q);
}

/* @m probes now: the first news after it times its receiver's answer
 * (shoal_rtt_core.h)
 */
static void shoal_omsg_probed(struct shoal_omsg *m)
{
	m->probed = jiffies;
	m->probing = true;
}

/* @m probes its receiver: a CREDIT_REQ, which a receiver that has the
 * message answers (BUSY or ACK) and one that has not takes as the
 * message's start; data too while the receiver never answered (it may
 * have nothing of it), none after (data without credit would add to the
 * queue of a busy receiver)
 */
static void shoal_omsg_probe(struct shoal_sock *ss, struct shoal_omsg *m,
			     struct sk_buff_head *q)
{
	shoal_omsg_probed(m);
	shoal_omsg_credit_req(ss, m, m->name_flags, q);
	if (!m->answered) {
		trace_shoal_resend(m, 0, min(m->mss, m->len),
				   SHOAL_RESEND_PROBE);
		shoal_tx_resend(&m->tx, 0, min(m->mss, m->len));
		shoal_omsg_push(ss, m, q);
	}
}

/* One packet of @m's resends or authorised bytes, for the uplink pacer:
 * its length, 0 if none went.  Under ss->lock.
 */
u32 shoal_omsg_send_one(struct shoal_sock *ss, struct shoal_omsg *m, bool csn,
			struct sk_buff_head *q)
{
	enum shoal_tx_kind kind;
	u32 off, len;

	kind = shoal_tx_next(&m->tx, m->mss, &off, &len);
	if (kind == SHOAL_TX_NONE ||
	    !shoal_omsg_data(ss, m, off, len,
			     shoal_sird_flags(m, off, kind == SHOAL_TX_RESEND,
					      csn), q))
		return 0;
	return len;
}

/* Whether the socket has room for a message of @len bytes: one always
 * goes when no other is being sent, however long (requests waiting for
 * their responses are not being sent)
 */
static bool shoal_wmem_room(const struct shoal_sock *ss, u32 charge)
{
	const struct sock *sk = &ss->inet.sk;
	int queued = READ_ONCE(sk->sk_wmem_queued);

	return queued == READ_ONCE(ss->await_charge) ||
	       queued + charge <= READ_ONCE(sk->sk_sndbuf);
}

/* The unscheduled prefix of SIRD message @m: what its length allows, within
 * what is left of the allowance to its receiver host (sird_core.h: the
 * unscheduled bytes of this socket's messages to that host not yet
 * acknowledged).  Under ss->lock, before @m is listed.
 */
static u32 shoal_omsg_unsched(struct shoal_sock *ss,
			      const struct shoal_omsg *m)
{
	struct sird_cfg cfg;
	struct shoal_omsg *o;
	u64 out = 0;
	u32 n;

	shoal_sird_cfg(ss->sn, &cfg);
	list_for_each_entry(o, &ss->out_list, node)
		if (ipv6_addr_equal(&o->dst.ip, &m->dst.ip))
			out += o->unsched;
	n = sird_unsched_allowed(&cfg, m->len, out);
	if (n < sird_unsched(&cfg, m->len))
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_UNSCHED_CUT);
	return n;
}

/* Take a message of @len bytes from @msg to @dst and start sending it;
 * *@id gets its id (for a response, the request's, already in *@id).
 * Process context, ss->lock not held.
 */
int shoal_omsg_send(struct shoal_sock *ss, struct msghdr *msg, size_t len,
		    const struct shoal_addr *dst, u8 name_flags, u64 *id)
{
	struct sock *sk = &ss->inet.sk;
	struct shoal_net *sn = ss->sn;
	struct sk_buff_head q;
	struct shoal_omsg *m;
	u32 charge;
	long timeo;
	int err;

	charge = len + sizeof(*m);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	err = shoal_wait(ss, shoal_wmem_room, charge, &timeo);
	if (err)
		return err;
	/* charged to the sender's memory cgroup, and ENOMEM when it has no
	 * room (not an OOM kill: the message is the sender's to drop)
	 */
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->data = kvmalloc(len, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			   __GFP_NOWARN);
	if (!m->data) {
		kfree(m);
		return -ENOMEM;
	}
	if (copy_from_iter(m->data, len, &msg->msg_iter) != len) {
		kvfree(m->data);
		kfree(m);
		return -EFAULT;
	}
	m->dst = *dst;
	m->ss = ss;
	INIT_LIST_HEAD(&m->tx_node);
	INIT_LIST_HEAD(&m->pl2_node);
	m->name_flags = name_flags;
	m->len = len;
	m->mss = shoal_path_mss(sn, dst);
	m->heard = jiffies;
	m->named = jiffies;
	m->probed = jiffies;
	m->probing = false;
	m->hush = jiffies;
	m->charge = charge;
	__skb_queue_head_init(&q);

	spin_lock_bh(&ss->lock);
	if (ss->dead) {
		spin_unlock_bh(&ss->lock);
		kvfree(m->data);
		kfree(m);
		return -EPIPE;
	}
	if (ss->pl2 && shoal_pl2_attach(ss, m)) {
		spin_unlock_bh(&ss->lock);
		kvfree(m->data);
		kfree(m);
		return -ENOMEM;
	}
	if (name_flags & SHOAL_F_RESPONSE) {
		m->id = *id;
		if (shoal_omsg_find(ss, dst, m->id, name_flags)) {
			shoal_pl2_detach(ss, m);
			spin_unlock_bh(&ss->lock);
			kvfree(m->data);
			kfree(m);
			return -EALREADY;	/* that response is going */
		}
		/* from where the client sent the request: from the
		 * route's address, a server with several would answer
		 * from one the client never sent to, and the client's
		 * request, never answered from where it went, would fail
		 */
		shoal_in_request_local(ss, dst, m->id, &m->local);
	} else {
		m->id = shoal_next_id(ss, dst, name_flags);
		*id = m->id;
	}
	/* PL2's bursts need no credit: its DATA says all of it comes
	 * unasked, so a receiver never schedules it
	 */
	m->unsched = ss->pl2 ? len : shoal_omsg_unsched(ss, m);
	m->announced = m->unsched == len;
	shoal_tx_init(&m->tx, len, m->unsched);
	hlist_add_head(&m->hash,
		       &ss->out_hash[shoal_msg_hash(ss, dst, m->id)]);
	list_add_tail(&m->node, &ss->out_list);
	shoal_obj_inc(SHOAL_OBJ_OMSG);
	sk_wmem_queued_add(sk, charge);
	ss->stats.tx_msgs++;
	ss->stats.tx_queued++;
	shoal_stat_inc(sn, SHOAL_STAT_TX_MSGS);
	trace_shoal_msg_send(ss, m);
	shoal_omsg_push(ss, m, &q);
	shoal_sock_arm(ss);
	spin_unlock_bh(&ss->lock);
	shoal_xmit_list(sn, &q);
	return 0;
}

/* The receiver has all of @m */
static void shoal_omsg_acked(struct shoal_sock *ss, struct shoal_omsg *m)
{
	ss->stats.tx_acked++;
	shoal_stat_inc(ss->sn, SHOAL_STAT_TX_ACKED);
	trace_shoal_msg_acked(ss, m);
	if (m->name_flags & SHOAL_F_REQUEST)
		shoal_omsg_await(ss, m);
	else
		shoal_omsg_free(ss, m);
	ss->inet.sk.sk_write_space(&ss->inet.sk);
}

/* An ACK that client @src folded into its DATA (SHOAL_O_ACK): the whole
 * response @id came.  A late one (the response was acknowledged when we
 * probed) finds nothing.  Under ss->lock.
 */
void shoal_out_acked(struct shoal_sock *ss, const struct shoal_addr *src,
		     u64 id)
{
	struct shoal_omsg *m = shoal_omsg_find(ss, src, id, SHOAL_F_RESPONSE);

	shoal_stat_inc(ss->sn, SHOAL_STAT_RX_ACKS_FOLDED);
	if (m)
		shoal_omsg_acked(ss, m);
}

/* @m's receiver speaks of it again in @wait intervals (a BUSY's
 * SHOAL_BUSY_WAIT): @m does not probe before one more has passed, nor
 * before the two any news gives it.  A BUSY is taken at its word for at
 * most SHOAL_BUSY_EVERY intervals, a forged one too.
 */
static void shoal_omsg_hush(struct shoal_omsg *m, u32 wait,
			    unsigned long ival)
{
	wait = min_t(u32, wait, SHOAL_BUSY_EVERY);
	m->hush = jiffies + (wait + 1) * ival;
}

/* The receiver is alive but has not taken SIRD message @m (BUSY with
 * NOTHELD: it receives too many, or its memory is full): what @m sent
 * unasked was dropped.  Unless credit came since (then the receiver took
 * it, and this answer is old), @m starts again under credit: nothing
 * sent, nothing unscheduled (its bytes leave the allowance to that host
 * to others), and its probes, one every two intervals, ask for credit
 * from its first byte until the receiver takes it.  Sending the prefix
 * again unasked would add to the queue of a receiver that said it is
 * full.  With @gave_up the receiver had taken @m and dropped what it had
 * of it (shoal_in_give_up()): credit it gave is void, and @m starts
 * again all the same.  PL2's messages keep their bursts: the answer is
 * only news.
 */
static void shoal_omsg_notheld(struct shoal_sock *ss, struct shoal_omsg *m,
			       bool gave_up)
{
	if (m->credited && !gave_up)
		return;
	if (gave_up && !ss->pl2)
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_RESTARTED);
	m->credited = false;
	m->answered = false;	/* not held: BUSY ALL does not cover it */
	/* a receiver that keeps refusing is asked less often: again after
	 * 2, 3, 5, then 9 intervals (SHOAL_BUSY_EVERY + 1)
	 */
	if (m->notheld < 4)
		m->notheld++;
	shoal_omsg_hush(m, 1U << (m->notheld - 1), shoal_resend_ival(ss->sn));
	if (ss->pl2)
		return;
	m->unsched = 0;
	m->announced = true;
	shoal_tx_init(&m->tx, m->len, 0);
	shoal_sird_tx_update(ss, m, NULL);
	shoal_stat_inc(ss->sn, SHOAL_STAT_TX_NOTHELD);
}

/* Resend intervals a BUSY ALL may stand in for a message's own answer:
 * past them the message probes once (its own CREDIT_REQ), so that one the
 * receiver no longer holds (its ACK lost, or forgotten) is found out
 * while its siblings keep waiting
 */
#define SHOAL_BUSY_ALL_IVALS	8

/* BUSY with SHOAL_BUSY_ALL from receiver @src: it still holds the
 * messages of ours it answered before, and schedules others; they are
 * not silent.  A message it never answered still probes (its
 * announcement may have been lost), and so does one not named by any
 * packet for SHOAL_BUSY_ALL_IVALS intervals.
 */
static void shoal_out_busy_all(struct shoal_sock *ss,
			       const struct shoal_addr *src, u32 wait)
{
	unsigned long ival = shoal_resend_ival(ss->sn);
	struct shoal_omsg *o;

	list_for_each_entry(o, &ss->out_list, node) {
		if (!o->answered || !shoal_addr_eq(&o->dst, src))
			continue;
		o->silent = 0;
		if (time_before(jiffies,
				o->named + SHOAL_BUSY_ALL_IVALS * ival)) {
			o->heard = jiffies;
			shoal_omsg_hush(o, wait, ival);
		}
	}
}

/* Messages a probe that found its message lost wakes: a probe doubles
 * the probers each round trip while probes find losses, and costs no
 * more than this many probes a lost message
 */
#define SHOAL_PROBE_WAKE	2

/* The first answer to @x says a retransmission started it (SHOAL_F_RETX):
 * its receiver lost all it sent before.  Our other messages to it that it
 * never answered in two intervals were likely lost with it (a path that
 * was down, a queue that overflowed), and in turns they would probe one
 * per two intervals: the oldest of them probe now, so that the lost
 * messages are found in round trips.  A message merely delayed does not
 * wake others: its receiver saw its first packet before any probe.
 */
static void shoal_out_wake(struct shoal_sock *ss, const struct shoal_omsg *x,
			   struct sk_buff_head *q)
{
	unsigned long ival = shoal_resend_ival(ss->sn);
	struct shoal_omsg *o;
	u32 n = 0;

	if (ss->pl2)		/* its bursts go in the switch's slots */
		return;
	list_for_each_entry(o, &ss->out_list, node) {
		/* (one whose first packet waits for the uplink pacer
		 * was not lost)
		 */
		if (o == x || o->answered || (o->unsched && !o->tx.next_off) ||
		    !shoal_addr_eq(&o->dst, &x->dst) ||
		    time_before(jiffies, o->named + 2 * ival) ||
		    time_before(jiffies, o->probed + 2 * ival))
			continue;
		o->heard = jiffies;
		shoal_omsg_probe(ss, o, q);
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_PROBE_WAKE);
		if (++n == SHOAL_PROBE_WAKE)
			break;
	}
}

/* @host has no Shoal socket (shoal_sock_host_gone()): the messages this
 * socket sends to it, and its requests that wait for its responses, fail
 * ECONNREFUSED, as an UNKNOWN for each would have them, but for one that
 * began or heard from it in the last interval: it may have a socket made
 * since.  Returns how many.  Under ss->lock.
 */
u32 shoal_out_host_gone(struct shoal_sock *ss, const struct in6_addr *host)
{
	unsigned long ival = shoal_resend_ival(ss->sn);
	struct list_head *lists[] = { &ss->out_list, &ss->await };
	struct shoal_omsg *m, *tmp;
	u32 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry_safe(m, tmp, lists[i], node) {
			if (!ipv6_addr_equal(&m->dst.ip, host) ||
			    time_before(jiffies, m->named + ival))
				continue;
			shoal_stat_inc(ss->sn, SHOAL_STAT_TX_REFUSED);
			shoal_omsg_fail(ss, m, ECONNREFUSED);
			n++;
		}
	}
	if (n)
		ss->inet.sk.sk_write_space(&ss->inet.sk);
	return n;
}

/* A packet from a receiver about one of our messages, under ss->lock */
void shoal_out_rcv(struct shoal_sock *ss, const struct shoal_wire_pkt *pkt,
		   const struct shoal_addr *src, struct sk_buff_head *q)
{
	struct shoal_net *sn = ss->sn;
	struct shoal_omsg *m;

	m = shoal_omsg_find(ss, src, pkt->msg_id, pkt->flags & SHOAL_F_NAME);
	if (!m) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_MSG);
		/* a receiver still asking forgets the message */
		if (pkt->type == SHOAL_T_CREDIT || pkt->type == SHOAL_T_RESEND)
			shoal_reply(sn, pkt, src, NULL, ss->port,
				    SHOAL_T_ABORT, ECANCELED, q);
		return;
	}
	if (pkt->msg_len != m->len) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_MISMATCH);
		return;
	}
	/* the first news after a probe times the peers' answers */
	if (m->probing) {
		m->probing = false;
		shoal_rtt_sample(sn, jiffies - m->probed);
	}
	if (!m->answered && (pkt->flags & SHOAL_F_RETX) &&
	    (pkt->type == SHOAL_T_CREDIT || pkt->type == SHOAL_T_RESEND ||
	     pkt->type == SHOAL_T_ACK))
		shoal_out_wake(ss, m, q);
	m->heard = jiffies;
	m->named = jiffies;
	m->hush = jiffies;	/* a BUSY's promise holds until other news */
	if (pkt->type != SHOAL_T_BUSY || !(pkt->word & SHOAL_BUSY_NOTHELD))
		m->notheld = 0;
	m->answered = true;
	if (m->awaiting) {
		/* ACK or BUSY: the server has the request, and is alive,
		 * which starts the failure's clock again; but its response
		 * is no nearer, so the probes go on backing off (3000
		 * clients of a slow server each probed every two intervals,
		 * and its ACKs doubled that: 70,000 packets in 5 s in the
		 * backlog that slowed it).  A late CREDIT or RESEND of the
		 * request says nothing; UNKNOWN: the server lost it.
		 */
		m->silent_at = jiffies;
		if (pkt->type == SHOAL_T_UNKNOWN) {
			shoal_stat_inc(sn, SHOAL_STAT_TX_RPC_LOST);
			shoal_omsg_fail(ss, m, ECONNRESET);
			ss->inet.sk.sk_write_space(&ss->inet.sk);
		}
		return;
	}
	m->silent = 0;
	switch (pkt->type) {
	case SHOAL_T_CREDIT:
		m->credited = true;
		trace_shoal_credit(m, pkt->type, pkt->offset);
		shoal_tx_authorise(&m->tx, pkt->offset);
		break;
	case SHOAL_T_RESEND:
		m->credited = true;
		trace_shoal_credit(m, pkt->type, pkt->offset + pkt->word);
		trace_shoal_resend(m, pkt->offset, pkt->word,
				   SHOAL_RESEND_ASKED);
		shoal_tx_authorise(&m->tx, pkt->offset + pkt->word);
		shoal_tx_resend(&m->tx, pkt->offset, pkt->word);
		break;
	case SHOAL_T_ACK:
		shoal_omsg_acked(ss, m);
		return;
	case SHOAL_T_UNKNOWN:
		shoal_stat_inc(sn, SHOAL_STAT_TX_REFUSED);
		shoal_omsg_fail(ss, m, pkt->word == EMSGSIZE ? EMSGSIZE :
						       ECONNREFUSED);
		ss->inet.sk.sk_write_space(&ss->inet.sk);
		return;
	case SHOAL_T_BUSY:
		if (pkt->word & SHOAL_BUSY_NOTHELD) {
			shoal_omsg_notheld(ss, m, pkt->word &
					   SHOAL_BUSY_GAVE_UP);
			return;
		}
		shoal_omsg_hush(m, SHOAL_BUSY_WAIT(pkt->word),
				shoal_resend_ival(sn));
		if (pkt->word & SHOAL_BUSY_ALL)
			shoal_out_busy_all(ss, src,
					   SHOAL_BUSY_WAIT(pkt->word));
		return;
	default:
		return;
	}
	shoal_omsg_push(ss, m, q);
}

/* Our DATA packet of @m, [pkt->offset, + pkt->payload_len), came back
 * from a switch (SHOAL_F_BOUNCED, NDP's return to sender): the receiver
 * never saw it.  Queue that range to go again, once, ahead of the
 * message's other bytes: at once when the uplink is not paced, at the
 * uplink pacer's next turn for this message when it is (a resend must
 * not overrun the uplink the pacer keeps), in the next burst for PL2
 * (its DATA goes against a switch's grant).  The receiver neither knows
 * it is missing nor would ask before a quiet interval.  A scheduled
 * packet's credit is still out at the receiver, which counts it as
 * coming: the resend uses it, and asks for no new credit.
 */
static void shoal_omsg_bounced(struct shoal_sock *ss, struct shoal_omsg *m,
			       const struct shoal_wire_pkt *pkt,
			       struct sk_buff_head *q)
{
	struct shoal_net *sn = ss->sn;
	enum shoal_bounce_res res;
	u32 off, len;

	if (pkt->msg_len != m->len) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_BOUNCE_BAD);
		return;
	}
	res = shoal_tx_bounce(&m->tx, m->mss, pkt->offset, pkt->payload_len,
			      &off, &len);
	if (res != SHOAL_BOUNCE_RESEND) {
		shoal_stat_inc(sn, res == SHOAL_BOUNCE_STALE ?
				   SHOAL_STAT_RX_DROP_BOUNCE_STALE :
				   SHOAL_STAT_RX_DROP_BOUNCE_BAD);
		return;
	}
	shoal_stat_inc(sn, SHOAL_STAT_TX_RTS_RESEND);
	ss->stats.tx_rts_resend++;
	trace_shoal_resend(m, off, len, SHOAL_RESEND_BOUNCED);
	shoal_tx_resend(&m->tx, off, len);
	shoal_omsg_push(ss, m, q);
}

/* A switch returned one of our DATA packets to us (SHOAL_F_BOUNCED):
 * @peer is where it was going, pkt->sport our socket's port.  Only a
 * message being sent to @peer with that name can be resent, at most once
 * per bounce and only bytes it sent; anything else is counted and
 * dropped.  It is no news from the receiver: the message's silence
 * counters stay as they are.  Under ss->lock.
 */
void shoal_out_bounced(struct shoal_sock *ss, const struct shoal_wire_pkt *pkt,
		       const struct shoal_addr *peer, struct sk_buff_head *q)
{
	struct shoal_omsg *m;

	m = shoal_omsg_find(ss, peer, pkt->msg_id, pkt->flags & SHOAL_F_NAME);
	if (!m || m->awaiting || !m->data) {
		shoal_stat_inc(ss->sn, SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG);
		return;
	}
	shoal_omsg_bounced(ss, m, pkt, q);
}

/* Probes a tick sends: one per receiver socket, whatever the number of
 * messages waiting there, so that their control is bounded by the
 * receivers, not by the messages (an incast of 150 messages probing
 * each on its own every other interval filled a 5 Mbit/s port with
 * CREDIT_REQs).  The message the receiver named least recently probes
 * for all of them, so probes rotate and one it forgot is found; while it
 * does, the others' silence does not count.  When it fails, its
 * receiver stopped answering: those the receiver did not name since
 * fail with it.  Past SHOAL_PROBE_PEERS receivers a message probes on
 * its own.
 */
#define SHOAL_PROBE_PEERS	16

struct shoal_probe_turns {
	u32 n;
	u32 gap_max;			/* shoal_probe_gap_max() */
	bool gone;			/* a receiver stopped answering */
	struct {
		struct shoal_addr dst;
		const struct shoal_omsg *m;	/* whose turn it is; compared,
						 * never followed (it may be
						 * freed by then)
						 */
		unsigned long named;
		bool gone;
	} peer[SHOAL_PROBE_PEERS];
};

enum shoal_probe_act {
	SHOAL_PROBE_NONE,	/* not due */
	SHOAL_PROBE_SEND,	/* its turn: it probes */
	SHOAL_PROBE_WAIT,	/* due, another probes its receiver */
	SHOAL_PROBE_FAIL,	/* its turn, but its receiver was silent
				 * for the whole timeout
				 */
};

/* The most resend intervals between a message's probes.  While its
 * receiver says nothing, a message probes 2 intervals after the last
 * news, then 4 after that probe, then every SHOAL_PROBE_GAP_MAX, as TCP
 * backs off its retransmission timer: a host whose peers stop answering
 * (a backlog it cannot drain, a path down) does not fill the path with
 * probes (2000 messages to 2000 hosts, each probing every two 50 ms
 * intervals with its first packet, sent 40,000 packets a second).
 */
#define SHOAL_PROBE_GAP_MAX	8

/* ... or half the timeout (below) where that is shorter: a request's
 * server that answers its probes does not bring the next one nearer, and
 * that one must still go, and may go unanswered, before the timeout
 */
static u32 shoal_probe_gap_max(u32 limit)
{
	return min_t(u32, SHOAL_PROBE_GAP_MAX, limit + 1);
}

static bool shoal_probe_due(const struct shoal_omsg *m, unsigned long ival,
			    u32 most)
{
	u32 gap = m->silent >= 2 ? most : min(2U << m->silent, most);

	return !time_before(jiffies, m->heard + gap * ival) &&
	       !time_before(jiffies, m->hush);
}

/* A message fails after this much silence of its receiver: as long as
 * timeout_resends probes take without the backoff, 2 x (limit + 1)
 * intervals, at its first turn past it
 */
static unsigned long shoal_probe_timeout(unsigned long ival, u32 limit)
{
	return 2 * ival * ((unsigned long)limit + 1);
}

static int shoal_probe_peer(const struct shoal_probe_turns *t,
			    const struct shoal_addr *dst)
{
	u32 i;

	for (i = 0; i < t->n; i++)
		if (shoal_addr_eq(&t->peer[i].dst, dst))
			return i;
	return -1;
}

/* Find each receiver's turn among the due messages of @list */
static void shoal_probe_turns(struct shoal_probe_turns *t,
			      struct list_head *list, unsigned long ival,
			      u32 limit)
{
	const struct shoal_omsg *m;
	int i;

	t->n = 0;
	t->gap_max = shoal_probe_gap_max(limit);
	t->gone = false;
	list_for_each_entry(m, list, node) {
		if (!shoal_probe_due(m, ival, t->gap_max))
			continue;
		i = shoal_probe_peer(t, &m->dst);
		if (i < 0) {
			if (t->n == SHOAL_PROBE_PEERS)
				continue;
			i = t->n++;
			t->peer[i].dst = m->dst;
			t->peer[i].gone = false;
		} else if (!time_before(m->named, t->peer[i].named)) {
			continue;
		}
		t->peer[i].m = m;
		t->peer[i].named = m->named;
	}
}

/* What message @m does this tick.  While its receiver is probed, every
 * message to it starts its silent interval again: a probe per receiver
 * per two intervals, whoever sends it.
 */
static enum shoal_probe_act
shoal_probe_turn(const struct shoal_probe_turns *t, struct shoal_omsg *m,
		 unsigned long ival)
{
	bool due = shoal_probe_due(m, ival, t->gap_max);
	int i = shoal_probe_peer(t, &m->dst);

	if (i < 0)		/* past the table, or not probed */
		return due ? SHOAL_PROBE_SEND : SHOAL_PROBE_NONE;
	if (t->peer[i].m == m)
		return SHOAL_PROBE_SEND;
	m->heard = jiffies;
	return due ? SHOAL_PROBE_WAIT : SHOAL_PROBE_NONE;
}

/* The prober of @m's receiver failed: the receiver is gone */
static void shoal_probe_gone(struct shoal_probe_turns *t,
			     const struct shoal_omsg *m)
{
	int i = shoal_probe_peer(t, &m->dst);

	if (i >= 0 && t->peer[i].m == m) {
		t->peer[i].gone = true;
		t->gone = true;
	}
}

/* Fail the messages on @list to a receiver that is gone, but those it
 * named within the @limit probes its prober went unanswered.  Returns
 * whether any failed.
 */
static bool shoal_probe_reap(struct shoal_sock *ss,
			     const struct shoal_probe_turns *t,
			     struct list_head *list, unsigned long ival,
			     u32 limit)
{
	unsigned long since = jiffies - shoal_probe_timeout(ival, limit);
	struct shoal_omsg *m, *tmp;
	bool freed = false;
	int i;

	list_for_each_entry_safe(m, tmp, list, node) {
		i = shoal_probe_peer(t, &m->dst);
		if (i < 0 || !t->peer[i].gone || !time_before(m->named, since))
			continue;
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_TIMEOUT);
		if (m->awaiting)
			shoal_stat_inc(ss->sn, SHOAL_STAT_TX_RPC_LOST);
		shoal_omsg_fail(ss, m, ETIMEDOUT);
		freed = true;
	}
	return freed;
}

/* What @m does at this tick: nothing, wait for another's probe of its
 * receiver, probe it, or fail (SHOAL_PROBE_FAIL: counted, not done; its
 * receiver is marked gone for shoal_probe_reap())
 */
static enum shoal_probe_act shoal_probe_step(struct shoal_sock *ss,
					     struct shoal_probe_turns *t,
					     struct shoal_omsg *m,
					     unsigned long ival, u32 limit)
{
	enum shoal_probe_act act = shoal_probe_turn(t, m, ival);

	if (act == SHOAL_PROBE_NONE)
		return act;
	if (act == SHOAL_PROBE_SEND && !m->silent)
		m->silent_at = m->heard;	/* its silence began */
	m->heard = jiffies;
	if (act == SHOAL_PROBE_WAIT) {
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_PROBE_TURN);
		return act;
	}
	if (!time_before(jiffies,
			 m->silent_at + shoal_probe_timeout(ival, limit))) {
		shoal_probe_gone(t, m);
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_TIMEOUT);
		return SHOAL_PROBE_FAIL;
	}
	if (m->silent < U32_MAX)
		m->silent++;
	return SHOAL_PROBE_SEND;
}

/* Requests waiting for their responses: those the server was silent
 * about for two intervals probe it in turns, or fail.  Returns whether
 * any did.
 */
static bool shoal_await_tick(struct shoal_sock *ss, unsigned long ival,
			     u32 limit, struct sk_buff_head *q)
{
	struct shoal_probe_turns turns;
	enum shoal_probe_act act;
	struct shoal_omsg *m, *tmp;
	bool freed = false;

	shoal_probe_turns(&turns, &ss->await, ival, limit);
	list_for_each_entry_safe(m, tmp, &ss->await, node) {
		act = shoal_probe_step(ss, &turns, m, ival, limit);
		if (act == SHOAL_PROBE_FAIL) {
			shoal_stat_inc(ss->sn, SHOAL_STAT_TX_RPC_LOST);
			shoal_omsg_fail(ss, m, ETIMEDOUT);
			freed = true;
		} else if (act == SHOAL_PROBE_SEND) {
			/* RETX: a server without the request must not take
			 * this for the start of a new one
			 */
			shoal_omsg_probed(m);
			shoal_omsg_credit_req(ss, m,
					      m->name_flags | SHOAL_F_RETX, q);
		}
	}
	if (turns.gone && shoal_probe_reap(ss, &turns, &ss->await, ival, limit))
		freed = true;
	return freed;
}

/* A resend interval passed, under ss->lock: messages the receiver was
 * silent about probe it in turns (with their first packet while it never
 * answered), or fail
 */
void shoal_out_tick(struct shoal_sock *ss, struct sk_buff_head *q)
{
	unsigned long ival = shoal_resend_ival(ss->sn);
	u32 limit = READ_ONCE(ss->sn->cfg.timeout_resends);
	struct shoal_probe_turns turns;
	enum shoal_probe_act act;
	struct shoal_omsg *m, *tmp;
	bool freed = false;

	/* a PL2 message that has not left the host yet waits for its turn
	 * behind this socket's other bursts: not silence
	 */
	if (ss->pl2)
		list_for_each_entry(m, &ss->out_list, node)
			if (!m->tx.next_off)
				m->heard = jiffies;
	shoal_probe_turns(&turns, &ss->out_list, ival, limit);
	list_for_each_entry_safe(m, tmp, &ss->out_list, node) {
		shoal_omsg_push(ss, m, q);	/* what a capped push left */
		/* a receiver that schedules others says so (BUSY), and
		 * when it will again: silence is what lasts past that
		 */
		act = shoal_probe_step(ss, &turns, m, ival, limit);
		if (act == SHOAL_PROBE_FAIL) {
			shoal_omsg_fail(ss, m, ETIMEDOUT);
			freed = true;
		} else if (act == SHOAL_PROBE_SEND) {
			shoal_omsg_probe(ss, m, q);
		}
	}
	if (turns.gone &&
	    shoal_probe_reap(ss, &turns, &ss->out_list, ival, limit))
		freed = true;
	if (shoal_await_tick(ss, ival, limit, q))
		freed = true;
	if (freed)
		ss->inet.sk.sk_write_space(&ss->inet.sk);
}
