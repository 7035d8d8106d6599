// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: responses' ACKs folded into DATA (SHOAL_O_ACK).  What is
 * held, and why, is said in shoal_ack.h.  A socket holds at most
 * SHOAL_ACKS_DUE, oldest first, in ss->acks[]: a DATA packet being built
 * to a server socket takes the one held for it (shoal_ack_take() from
 * shoal_omsg_data()), a full table sends its oldest, and the socket's
 * timer and close send the rest (shoal_ack_flush()).  A held ACK lost
 * with the DATA that carried it costs a probe: the server asks, and the
 * response's name, still remembered, answers with an ACK.
 *
 * Locking: see shoal_ack.h.  Everything here runs under ss->lock.
 */
#include "shoal_sock.h"

/* Forget the ACK acks[@i] held back: it went */
static void shoal_ack_drop(struct shoal_sock *ss, u32 i)
{
	ss->nr_acks--;
	memmove(&ss->acks[i], &ss->acks[i + 1],
		(ss->nr_acks - i) * sizeof(ss->acks[0]));
}

/* The ACK @a in a packet of its own, queued on @q */
static void shoal_ack_ctrl(struct shoal_sock *ss,
			   const struct shoal_ack_due *a,
			   struct sk_buff_head *q)
{
	shoal_ctrl(ss->sn, &(struct shoal_ctrl){
			.dst = &a->dst,
			.saddr = &a->local,
			.sport = ss->port,
			.type = SHOAL_T_ACK,
			.flags = SHOAL_F_RESPONSE,
			.id = a->id,
			.msg_len = a->msg_len,
		   }, q);
}

/* Send the ACK acks[@i] holds back in a packet of its own */
static void shoal_ack_send(struct shoal_sock *ss, u32 i,
			   struct sk_buff_head *q)
{
	shoal_ack_ctrl(ss, &ss->acks[i], q);
	shoal_ack_drop(ss, i);
}

/* The ACK of response @m, complete: held back to ride on the client's
 * next DATA to its server, until the socket's next tick at most; a full
 * table sends its oldest.  Without net.shoal.fold_acks it goes at once.
 */
void shoal_ack_defer(struct shoal_sock *ss, const struct shoal_imsg *m,
		     struct sk_buff_head *q)
{
	struct shoal_ack_due a = {
		.dst = m->src,
		.local = m->local,
		.id = m->id,
		.msg_len = m->rx.msg_len,
	};

	/* a response's name is SHOAL_F_RESPONSE alone (the parser refuses
	 * both name flags): the ACK is the same packet either way
	 */
	if (!READ_ONCE(ss->sn->cfg.fold_acks)) {
		shoal_ack_ctrl(ss, &a, q);
		return;
	}
	if (ss->nr_acks == SHOAL_ACKS_DUE)
		shoal_ack_send(ss, 0, q);
	ss->acks[ss->nr_acks++] = a;
}

/* A DATA packet to @dst is being built: the ACK it carries, if one is
 * held back for that socket (*@id).  A packet lost with it leaves the
 * server to probe: the response's name still answers with an ACK.
 */
bool shoal_ack_take(struct shoal_sock *ss, const struct shoal_addr *dst,
		    u64 *id)
{
	u32 i;

	for (i = 0; i < ss->nr_acks; i++) {
		if (!shoal_addr_eq(&ss->acks[i].dst, dst))
			continue;
		*id = ss->acks[i].id;
		shoal_ack_drop(ss, i);
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_ACKS_FOLDED);
		return true;
	}
	return false;
}

/* Every ACK held back goes now, in its own packet (a tick, close) */
void shoal_ack_flush(struct shoal_sock *ss, struct sk_buff_head *q)
{
	while (ss->nr_acks)
		shoal_ack_send(ss, 0, q);
}
