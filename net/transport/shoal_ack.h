/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: responses' ACKs folded into DATA (shoal_ack.c).  A client
 * that receives a whole response holds its ACK back for a moment: its
 * next request to the same server socket usually follows at once, and
 * the ACK rides on that request's DATA (SHOAL_O_ACK, Homa's way), so the
 * path to the server carries one packet an RPC, not two.  A held ACK
 * goes in a packet of its own at the socket's next tick (half a resend
 * interval: the server probes only after two), when the table is full,
 * or when the socket closes.  net.shoal.fold_acks 0 sends each at once.
 *
 * Locking: the held ACKs are the socket's, in struct shoal_sock, and
 * everything here runs under its ss->lock (shoal_sock.h), queueing the
 * packets it builds for the caller to send once the lock is dropped.
 */
#ifndef _SHOAL_ACK_H
#define _SHOAL_ACK_H

#include "shoal_impl.h"

#define SHOAL_ACKS_DUE		8	/* responses' ACKs held back, at most */

/* A response's ACK held back to ride on the next DATA to its sender */
struct shoal_ack_due {
	struct shoal_addr dst;		/* the response's sender */
	struct in6_addr local;		/* where it came to: the ACK's source */
	u64 id;
	u32 msg_len;
};

struct shoal_sock;
struct shoal_imsg;

void shoal_ack_defer(struct shoal_sock *ss, const struct shoal_imsg *m,
		     struct sk_buff_head *q);
bool shoal_ack_take(struct shoal_sock *ss, const struct shoal_addr *dst,
		    u64 *id);
void shoal_ack_flush(struct shoal_sock *ss, struct sk_buff_head *q);

#endif /* _SHOAL_ACK_H */
