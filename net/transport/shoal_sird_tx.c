// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: SIRD's sender (Documentation/shoal.md, "SIRD's sender").  The
 * credit receivers give a host is held here until its bytes leave: with
 * net.shoal.sird_tx_rate_mbps set (the uplink's rate) a pacer sends the
 * scheduled bytes no faster than the uplink takes them, so credit that
 * several receivers give at once piles up in the sender instead of its
 * NIC queue, and the pile, against net.shoal.sird_sthr, sets the csn bit
 * of every DATA packet (the receivers' csn loops then shrink this host's
 * buckets, and their credit goes to senders that can use it).  Each of
 * the pacer's turns goes either to the receiver host next in a round
 * (net.shoal.sird_fair_permille of them) or to the message with the
 * fewest bytes left (SRPT).  Unscheduled bytes go through the pacer too
 * (without counting as credit held): a message leaves no faster than the
 * uplink.  With the rate 0 a message sends what it is given at once and
 * the pacer only finishes what a capped push left.
 *
 * Locking: see shoal_sird_tx.h.
 */
#include <linux/seq_file.h>

#include "shoal_sock.h"

#define SHOAL_TX_BURST		16	/* packets per pacer run, at most */
#define SHOAL_TX_RETRY_NS	20000	/* a busy socket: try again then */

bool shoal_sird_tx_paced(const struct shoal_net *sn)
{
	return READ_ONCE(sn->cfg.sird_tx_rate_mbps) != 0;
}

/* Per packet: only the fields it needs, not all of shoal_sird_cfg() */
bool shoal_sird_tx_csn(struct shoal_net *sn)
{
	struct sird_cfg cfg = { .sthr = READ_ONCE(sn->cfg.sird_sthr) };

	return sird_csn(&cfg, READ_ONCE(sn->sird_tx.held));
}

static void shoal_sird_tx_kick(struct shoal_sird_tx *tx, u64 at)
{
	if (!hrtimer_is_queued(&tx->pacer))
		hrtimer_start(&tx->pacer, ns_to_ktime(at),
			      HRTIMER_MODE_ABS_SOFT);
}

/* @m's entry from its tx state, under both locks: what it may send (its
 * unscheduled bytes not sent yet among them) lists it for the pacer;
 * only the credit it holds counts towards csn
 */
static void __shoal_sird_tx_update(struct shoal_sird_tx *tx,
				   struct shoal_omsg *m, bool listed)
{
	u64 ready = listed ? shoal_tx_sendable(&m->tx) : 0;
	u64 unsent = m->unsched > m->tx.next_off ?
		     m->unsched - m->tx.next_off : 0;
	u64 held = ready > unsent ? ready - unsent : 0;

	held = min_t(u64, held, U32_MAX);
	tx->held += held;
	tx->held -= m->tx_held;
	m->tx_held = held;
	m->tx_ready = min_t(u64, ready, U32_MAX);
	m->tx_left = m->len - m->tx.next_off + shoal_tx_queued(&m->tx);
	if (ready && list_empty(&m->tx_node)) {
		list_add_tail(&m->tx_node, &tx->ready);
		tx->nr_ready++;
	} else if (!ready && !list_empty(&m->tx_node)) {
		list_del_init(&m->tx_node);
		tx->nr_ready--;
	}
}

/* The pacer's settings: the sender's rate, and how early a packet may go */
static void shoal_sird_tx_cfg(struct shoal_sird_tx *tx, struct sird_cfg *cfg,
			      u64 *slack)
{
	shoal_sird_cfg(tx->sn, cfg);
	cfg->rate_bps = READ_ONCE(tx->sn->cfg.sird_tx_rate_mbps) * 1000000ULL;
	/* a packet may go while the uplink has at most one more to send
	 * (a timer per packet would make the timer's own lateness the rate)
	 */
	*slack = sird_pace_ns(cfg, cfg->mss);
}

/* One packet of @m, whose socket is locked, as the pacer sends it: its
 * length, 0 if none went (then @m leaves the list)
 */
static u32 shoal_sird_tx_one(struct shoal_sird_tx *tx, struct shoal_omsg *m,
			     const struct sird_cfg *cfg, u64 now,
			     struct sk_buff_head *q)
{
	struct shoal_sock *ss = m->ss;
	bool csn = sird_csn(cfg, tx->held);
	u32 len;

	len = ss->dead ? 0 : shoal_omsg_send_one(ss, m, csn, q);
	__shoal_sird_tx_update(tx, m, !ss->dead && len);
	tx->paced += !!len;
	tx->csn += csn && len;
	if (cfg->rate_bps)
		tx->next_ns = sird_pace_next(cfg, tx->next_ns, now,
					     sird_pace_ns(cfg, len));
	return len;
}

/* @m is all the pacer has and its clock lets a packet go now: send what
 * the clock allows from here, as the pacer would, instead of waiting for
 * its timer (a message's first packets, and every short message, would
 * otherwise leave a timer's latency late: on a virtual host that is
 * 0.1-0.3 ms a message).  Under ss->lock and tx->lock.
 */
static void shoal_sird_tx_idle(struct shoal_sird_tx *tx,
			       struct shoal_omsg *m, struct sk_buff_head *q)
{
	struct sird_cfg cfg;
	u64 now, slack;
	u32 i;

	if (tx->nr_ready != 1 || hrtimer_is_queued(&tx->pacer))
		return;
	shoal_sird_tx_cfg(tx, &cfg, &slack);
	now = ktime_get_ns();
	for (i = 0; i < SHOAL_TX_BURST && m->tx_ready; i++) {
		if (cfg.rate_bps && now + slack < tx->next_ns)
			break;
		if (!shoal_sird_tx_one(tx, m, &cfg, now, q))
			break;
	}
	tx->direct += i;
}

/* @m's tx state changed: what it holds, and the pacer if it holds some;
 * with @q, packets the pacer would send at once go there.  Under
 * ss->lock.
 */
void shoal_sird_tx_update(struct shoal_sock *ss, struct shoal_omsg *m,
			  struct sk_buff_head *q)
{
	struct shoal_sird_tx *tx = &ss->sn->sird_tx;

	spin_lock(&tx->lock);
	__shoal_sird_tx_update(tx, m, !ss->dead);
	if (q && m->tx_ready)
		shoal_sird_tx_idle(tx, m, q);
	if (m->tx_ready)
		shoal_sird_tx_kick(tx, max(ktime_get_ns(), tx->next_ns));
	spin_unlock(&tx->lock);
}

/* @m goes away, under ss->lock */
void shoal_sird_tx_forget(struct shoal_sock *ss, struct shoal_omsg *m)
{
	struct shoal_sird_tx *tx = &ss->sn->sird_tx;

	spin_lock(&tx->lock);
	__shoal_sird_tx_update(tx, m, false);
	spin_unlock(&tx->lock);
}

/* A receiver host's place in the fair round: the low half of its address
 * (an IPv4 address for a mapped one)
 */
static u64 shoal_sird_tx_order(const struct in6_addr *ip)
{
	return ((u64)be32_to_cpu(ip->s6_addr32[2]) << 32) |
	       be32_to_cpu(ip->s6_addr32[3]);
}

/* The message whose packet goes next, NULL: none holds credit */
static struct shoal_omsg *shoal_sird_tx_pick(struct shoal_sird_tx *tx,
					     const struct sird_cfg *cfg)
{
	struct sird_tx_cand *cand = tx->cand;
	struct shoal_omsg **best = tx->best, *m;
	u32 n = 0, i;
	bool fair;
	u64 order;
	int k;

	list_for_each_entry(m, &tx->ready, tx_node) {
		order = shoal_sird_tx_order(&m->dst.ip);
		for (i = 0; i < n && cand[i].order != order; i++)
			;
		if (i == n) {
			if (n == SHOAL_TX_HOSTS)
				continue;	/* their turn comes later */
			cand[n] = (struct sird_tx_cand){ .order = order };
			best[n++] = m;
		}
		cand[i].credit = min_t(u64, (u64)cand[i].credit + m->tx_ready,
				       U32_MAX);
		if (!cand[i].left || m->tx_left < cand[i].left) {
			cand[i].left = m->tx_left;
			best[i] = m;
		}
	}
	fair = tx->turns.acc + min_t(u32, cfg->fair_permille, 1000) >= 1000;
	k = sird_tx_pick(cfg, &tx->turns, cand, n);
	if (k < 0)
		return NULL;
	tx->fair += fair;
	/* within a host the fewest bytes left goes first, ties in turn */
	list_move_tail(&best[k]->tx_node, &tx->ready);
	return best[k];
}

static enum hrtimer_restart shoal_sird_tx_pace(struct hrtimer *t)
{
	struct shoal_sird_tx *tx = container_of(t, struct shoal_sird_tx,
						 pacer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct shoal_omsg *m;
	struct shoal_sock *ss;
	struct sk_buff_head q;
	struct sird_cfg cfg;
	u64 now, at = 0, slack;
	u32 i;

	__skb_queue_head_init(&q);
	shoal_sird_tx_cfg(tx, &cfg, &slack);
	spin_lock(&tx->lock);
	now = ktime_get_ns();
	for (i = 0; i < SHOAL_TX_BURST; i++) {
		if (cfg.rate_bps && now + slack < tx->next_ns) {
			at = tx->next_ns - slack;
			break;
		}
		m = shoal_sird_tx_pick(tx, &cfg);
		if (!m)
			break;
		ss = m->ss;
		if (!spin_trylock(&ss->lock)) {
			tx->busy++;
			at = now + SHOAL_TX_RETRY_NS;
			break;
		}
		shoal_sird_tx_one(tx, m, &cfg, now, &q);
		spin_unlock(&ss->lock);
	}
	if (i == SHOAL_TX_BURST)	/* more to send: go on soon */
		at = max(now, tx->next_ns);
	if (at) {
		hrtimer_set_expires(t, ns_to_ktime(at));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&tx->lock);
	shoal_xmit_list(tx->sn, &q);
	return ret;
}

void shoal_sird_tx_init(struct shoal_sird_tx *tx, struct shoal_net *sn)
{
	spin_lock_init(&tx->lock);
	tx->sn = sn;
	INIT_LIST_HEAD(&tx->ready);
	hrtimer_init(&tx->pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	tx->pacer.function = shoal_sird_tx_pace;
}

/* No socket is left (each holds the namespace): nothing is on the list */
void shoal_sird_tx_exit(struct shoal_sird_tx *tx)
{
	hrtimer_cancel(&tx->pacer);
	WARN_ON_ONCE(!list_empty(&tx->ready));
}

void shoal_sird_tx_show(struct shoal_sird_tx *tx, struct seq_file *seq)
{
	struct shoal_omsg *m;

	spin_lock_bh(&tx->lock);
	seq_printf(seq, "tx_held %llu\ntx_ready %u\ntx_paced %llu\n",
		   tx->held, tx->nr_ready, tx->paced);
	seq_printf(seq, "tx_csn %llu\ntx_fair %llu\ntx_busy %llu\n",
		   tx->csn, tx->fair, tx->busy);
	seq_printf(seq, "tx_direct %llu\n", tx->direct);
	seq_puts(seq, "# tx receiver held left\n");
	list_for_each_entry(m, &tx->ready, tx_node)
		seq_printf(seq, "tx %pI6c %u %u\n", &m->dst.ip, m->tx_held,
			   m->tx_left);
	spin_unlock_bh(&tx->lock);
}
