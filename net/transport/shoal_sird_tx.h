/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: SIRD's sender (shoal_sird_tx.c).  One per namespace: the
 * outbound messages that hold credit, the sum of what they hold (from
 * which every DATA packet's csn bit is set: the sender tells its
 * receivers it cannot use all they gave it), and a pacer that sends their
 * scheduled bytes at the uplink's rate, net.shoal.sird_tx_rate_mbps,
 * taking turns between fair share across receivers and SRPT.
 *
 * Locking: tx->lock (softirq-safe) guards everything here and every
 * outbound message's tx_node, tx_held and tx_left.  It nests inside a
 * socket's ss->lock: a socket updates its message's entry under both.
 * The pacer holds tx->lock and only trylocks a message's socket (the
 * other order): when that fails it comes back a moment later.  A message
 * leaves the list under both locks before its socket frees it, so what
 * the pacer finds on the list is alive.
 */
#ifndef _SHOAL_SIRD_TX_H
#define _SHOAL_SIRD_TX_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "sird_core.h"

struct shoal_net;
struct shoal_sock;
struct shoal_omsg;
struct sk_buff_head;

#define SHOAL_TX_HOSTS		32	/* receiver hosts a pick weighs */

struct shoal_sird_tx {
	spinlock_t lock;		/* everything below */
	struct shoal_net *sn;
	struct list_head ready;		/* outbound messages holding credit */
	u32 nr_ready;
	u64 held;			/* bytes they may send: c = sum c_r */
	struct sird_turns turns;
	struct hrtimer pacer;
	u64 next_ns;			/* the uplink is free, by our sends */
	u64 paced;			/* statistics: packets the pacer sent */
	u64 csn;			/* DATA packets sent with csn */
	u64 fair;			/* pacer turns given to fair share */
	u64 busy;			/* times a socket was busy */
	u64 direct;			/* packets sent at once, the pacer idle */
	/* the pick's scratch: not on the stack, which the kernel would
	 * zero for every packet (CONFIG_INIT_STACK_ALL_ZERO)
	 */
	struct sird_tx_cand cand[SHOAL_TX_HOSTS];
	struct shoal_omsg *best[SHOAL_TX_HOSTS];
};

void shoal_sird_tx_init(struct shoal_sird_tx *tx, struct shoal_net *sn);
void shoal_sird_tx_exit(struct shoal_sird_tx *tx);
bool shoal_sird_tx_paced(const struct shoal_net *sn);
bool shoal_sird_tx_csn(struct shoal_net *sn);
void shoal_sird_tx_update(struct shoal_sock *ss, struct shoal_omsg *m,
			  struct sk_buff_head *q);
void shoal_sird_tx_forget(struct shoal_sock *ss, struct shoal_omsg *m);
void shoal_sird_tx_show(struct shoal_sird_tx *tx, struct seq_file *seq);

#endif /* _SHOAL_SIRD_TX_H */
