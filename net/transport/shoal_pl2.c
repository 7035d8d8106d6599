// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: PL2's sender (Documentation/shoal.md, "PL2").  An IPPROTO_PL2
 * socket sends its messages' bytes in bursts of at most net.shoal.pl2_k
 * packets per destination host.  Each burst is announced by an RSV; the
 * switch (tools/pl2-switch) returns it as a GRT carrying two slots, and
 * the burst leaves when the later of them comes (Eq. 1, pl2_core.h).  A
 * burst may also go at once, unsolicited, when the destination's last
 * grant was small and recent (Algorithm 2); its GRT then says whether it
 * must go again in its slot.  At most net.shoal.pl2_outstanding exchanges
 * run per destination; an exchange ends when its burst is handed to the
 * device.  A burst packs the packets of several messages to one host
 * (small messages would otherwise pay an RSV each), the message with the
 * fewest bytes left to send first (of equals the newest), on
 * net.shoal.pl2_fifo_permille of the picks the oldest; each message's
 * resends before its new bytes.
 *
 * What the receiver does is SIRD's without credit: a PL2 message's DATA
 * says all its bytes come unasked, so the receiver reassembles,
 * acknowledges and asks for lost bytes as for any message.
 *
 * Reservations never leak from here: every RSV is sent once and its burst
 * always goes, in its slot, or when its GRT is overdue, even if its
 * messages are gone meanwhile (the switch counts its packets off); a
 * socket that closes sends the bursts it holds a grant for.  What a dead
 * host or a lost DATA packet leaves in a switch's counters is the
 * switch's to forget (pl2-switch's lease).
 *
 * Locking: see shoal_pl2.h.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "shoal_sock.h"
#include "shoal_trace.h"

/* A slot: a full frame as the link counts it (MTU and Ethernet header) */
#define SHOAL_PL2_SLOT_BYTES	1514

static void shoal_pl2_cfg(const struct shoal_net *sn, struct pl2_cfg *c)
{
	u32 mbps = READ_ONCE(sn->cfg.pl2_rate_mbps);

	c->k = READ_ONCE(sn->cfg.pl2_k);
	c->t = READ_ONCE(sn->cfg.pl2_t);
	c->rate_bps = (u64)mbps * 1000000ULL;
	c->slot_ns = READ_ONCE(sn->cfg.pl2_slot_ns);
	if (!c->slot_ns)
		c->slot_ns = pl2_slot_ns(SHOAL_PL2_SLOT_BYTES, mbps);
}

/* How long a burst waits for its GRT, and for its slot, at most: the
 * configured time, or twice the delay the peers' answers to probes take
 * where that is longer (a backlog of seconds made every RSV time out and
 * go again, 12 a message).  Not scaled by the RSV-GRT estimate: a GRT
 * later than this is stale and never a sample, so a run of slow
 * exchanges cannot stretch it; nor does it stretch the probes' delay.
 */
static u64 shoal_pl2_timeout_ns(const struct shoal_net *sn)
{
	u64 ns = (u64)READ_ONCE(sn->cfg.pl2_rsv_timeout_us) * 1000;
	u32 rtt2 = READ_ONCE(sn->rtt8) >> (SHOAL_RTT_SHIFT - 1);

	return max_t(u64, ns, jiffies_to_nsecs(rtt2));
}

void shoal_pl2_net_init(struct shoal_pl2_net *pn)
{
	spin_lock_init(&pn->lock);
	pn->free_ns = 0;
}

/* @bytes leave on the uplink now; returns what it held before them */
static u64 shoal_pl2_uplink(struct shoal_net *sn, u64 now, u64 bytes)
{
	u64 rate = (u64)READ_ONCE(sn->cfg.pl2_rate_mbps) * 1000000ULL;
	u64 pending;

	spin_lock(&sn->pl2.lock);
	pending = pl2_uplink_add(&sn->pl2.free_ns, now, bytes, rate);
	spin_unlock(&sn->pl2.lock);
	return pending;
}

/* A packet's bytes on the link: its UDP payload and the headers below */
static u32 shoal_pl2_wire_len(const struct sk_buff *skb,
			      const struct shoal_addr *to)
{
	u32 ip = ipv6_addr_v4mapped(&to->ip) ? sizeof(struct iphdr) :
					       sizeof(struct ipv6hdr);

	return skb->len + sizeof(struct udphdr) + ip + ETH_HLEN;
}

/* Every bit of the address counts: the low bits of a v4-mapped one, as
 * a little-endian word, are its first octet, the same for a whole subnet
 */
static u32 shoal_pl2_hash(const struct in6_addr *ip)
{
	return hash_32(ipv6_addr_hash(ip), SHOAL_PL2_DST_BITS);
}

static struct shoal_pl2_dst *shoal_pl2_dst_find(struct shoal_sock *ss,
						const struct in6_addr *ip)
{
	struct shoal_pl2_dst *d;

	hlist_for_each_entry(d, &ss->pl2s.dsts[shoal_pl2_hash(ip)], node)
		if (ipv6_addr_equal(&d->ip, ip))
			return d;
	return NULL;
}

/* Forget an idle destination (no message, no burst) when many are kept:
 * its estimate and last grant are worth keeping for a while
 */
static void shoal_pl2_dst_put(struct shoal_sock *ss, struct shoal_pl2_dst *d)
{
	if (d->nr_msgs || !list_empty(&d->bursts) ||
	    ss->pl2s.nr_dsts <= SHOAL_PL2_DSTS_KEEP)
		return;
	hlist_del(&d->node);
	ss->pl2s.nr_dsts--;
	kfree(d);
	shoal_obj_dec(SHOAL_OBJ_PL2_DST);
}

void shoal_pl2_sock_init(struct shoal_sock *ss)
{
	struct shoal_pl2_sock *ps = &ss->pl2s;
	int i;

	for (i = 0; i < SHOAL_PL2_DST_HASH; i++)
		INIT_HLIST_HEAD(&ps->dsts[i]);
	INIT_LIST_HEAD(&ps->timed);
	hrtimer_init(&ps->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	ps->timer.function = shoal_pl2_timer;
}

/* @m, a new message, joins its destination host.  Under ss->lock. */
int shoal_pl2_attach(struct shoal_sock *ss, struct shoal_omsg *m)
{
	struct shoal_pl2_dst *d = shoal_pl2_dst_find(ss, &m->dst.ip);

	if (!d) {
		d = kzalloc(sizeof(*d), GFP_ATOMIC);
		if (!d)
			return -ENOMEM;
		shoal_obj_inc(SHOAL_OBJ_PL2_DST);
		d->ip = m->dst.ip;
		pl2_peer_init(&d->peer);
		INIT_LIST_HEAD(&d->msgs);
		INIT_LIST_HEAD(&d->bursts);
		hlist_add_head(&d->node,
			       &ss->pl2s.dsts[shoal_pl2_hash(&d->ip)]);
		ss->pl2s.nr_dsts++;
	}
	d->nr_msgs++;
	m->pl2_born = d->born++;
	m->pl2_dst = d;
	return 0;
}

/* @m goes away; packets of it already in bursts still go.  Under
 * ss->lock.
 */
void shoal_pl2_detach(struct shoal_sock *ss, struct shoal_omsg *m)
{
	struct shoal_pl2_dst *d = m->pl2_dst;

	if (!d)
		return;
	list_del_init(&m->pl2_node);
	m->pl2_dst = NULL;
	d->nr_msgs--;
	shoal_pl2_dst_put(ss, d);
}

/* (Re)arm the socket's timer for its soonest burst */
static void shoal_pl2_arm(struct shoal_sock *ss)
{
	struct shoal_pl2_burst *b;

	b = list_first_entry_or_null(&ss->pl2s.timed, struct shoal_pl2_burst,
				     timed);
	if (b && !ss->dead)
		hrtimer_start(&ss->pl2s.timer, ns_to_ktime(b->at),
			      HRTIMER_MODE_ABS_SOFT);
}

/* Put @b on the timed list @wait ns after @now, in order.  The sum
 * saturates, and at the hrtimer's horizon: a time past KTIME_MAX would
 * be a negative ktime, which fires at once, finds nothing due and arms
 * the timer again, for ever.
 */
static void shoal_pl2_time(struct shoal_sock *ss, struct shoal_pl2_burst *b,
			   u64 now, u64 wait)
{
	u64 at = min_t(u64, pl2_add_sat(now, wait), KTIME_MAX);
	struct shoal_pl2_burst *pos;

	b->at = at;
	list_del_init(&b->timed);
	list_for_each_entry_reverse(pos, &ss->pl2s.timed, timed)
		if (pos->at <= at) {
			list_add(&b->timed, &pos->timed);
			return;
		}
	list_add(&b->timed, &ss->pl2s.timed);
}

static void shoal_pl2_rsv(struct shoal_sock *ss, struct shoal_pl2_burst *b,
			  u64 now, struct sk_buff_head *q)
{
	struct shoal_addr to = { .ip = b->dst->ip, .port = b->dport };

	shoal_ctrl(ss->sn, &(struct shoal_ctrl){
			.dst = &to,
			.sport = ss->port,
			.type = SHOAL_T_RSV,
			.flags = b->name_flags,
			.id = b->msg_id,
			.msg_len = b->msg_len,
			.offset = b->offset,
			.word = b->demand,
		   }, q);
	b->rsv_ns = now;
	shoal_pl2_time(ss, b, now, shoal_pl2_timeout_ns(ss->sn));
}

/* The message whose bytes go next to @d: SRPT on the bytes it has left
 * to send, of equals the newest (most of a queue of equal messages then
 * completes at once, as a FIFO's would not), and pl2_fifo_permille of the
 * picks the oldest, which bounds its wait (sird_core.h's choice, as the
 * SIRD receiver's grants).  Before them, a message begun and then passed
 * over for half a resend interval, for one packet (*@most): its receiver,
 * which cannot tell a message held back from one whose packets were lost,
 * asks for its bytes again after two quiet intervals, and they would come
 * twice.
 */
static struct shoal_omsg *shoal_pl2_next(struct shoal_sock *ss,
					 struct shoal_pl2_dst *d, u32 *most)
{
	const struct sird_shares sh = {
		.fifo = READ_ONCE(ss->sn->cfg.pl2_fifo_permille),
	};
	unsigned long quiet = shoal_resend_ival(ss->sn);
	struct shoal_omsg *m, *stale = NULL;
	struct sird_choice ch;

	quiet = max(quiet / 2, 1UL);
	sird_choice_init(&ch);
	list_for_each_entry(m, &d->msgs, pl2_node) {
		if (m->pl2_sent &&
		    time_after_eq(jiffies, m->pl2_sent + quiet) &&
		    (!stale || time_before(m->pl2_sent, stale->pl2_sent)))
			stale = m;
		sird_choice_offer(&ch, &d->turns, 0,
				  min_t(u64, shoal_tx_sendable(&m->tx), U32_MAX),
				  m->pl2_born, m);
	}
	if (stale) {
		*most = 1;
		return stale;
	}
	*most = U32_MAX;
	return (struct shoal_omsg *)sird_choice_take(&ch, &sh, &d->turns);
}

/* Up to K packets from @d's messages, in shoal_pl2_next()'s order; NULL if
 * none (or no memory: the bytes stay with their messages)
 */
static struct shoal_pl2_burst *shoal_pl2_form(struct shoal_sock *ss,
					      struct shoal_pl2_dst *d,
					      const struct pl2_cfg *c)
{
	struct shoal_pl2_burst *b;
	enum shoal_tx_kind kind;
	struct shoal_omsg *m;
	struct sk_buff *skb;
	u32 off, len, took, most;
	u8 flags;

	b = kzalloc(sizeof(*b), GFP_ATOMIC);
	if (!b) {
		shoal_stat_inc(ss->sn, SHOAL_STAT_TX_DROP_NOMEM);
		return NULL;
	}
	shoal_obj_inc(SHOAL_OBJ_PL2_BURST);
	b->dst = d;
	INIT_LIST_HEAD(&b->timed);
	__skb_queue_head_init(&b->skbs);
	while (b->demand < c->k && (m = shoal_pl2_next(ss, d, &most))) {
		took = b->demand;
		while (b->demand < c->k && b->demand - took < most &&
		       (kind = shoal_tx_next(&m->tx, m->mss, &off, &len)) !=
		       SHOAL_TX_NONE) {
			flags = SHOAL_F_SCHED;
			if (kind == SHOAL_TX_RESEND)
				flags |= SHOAL_F_RETX;
			if (!shoal_omsg_data(ss, m, off, len, flags, &b->skbs))
				goto full;	/* no memory: what we have */
			if (!b->demand++) {
				b->dport = m->dst.port;
				b->name_flags = m->name_flags;
				b->msg_id = m->id;
				b->msg_len = m->len;
				b->offset = off;
			}
			skb = skb_peek_tail(&b->skbs);
			b->bytes += shoal_pl2_wire_len(skb, &m->dst);
		}
		/* its receiver says nothing until it has all: silence
		 * counts from the last of its bytes that left
		 */
		m->heard = jiffies;
		m->pl2_sent = jiffies ? jiffies : 1;
		if (!shoal_tx_sendable(&m->tx))
			list_del_init(&m->pl2_node);
		else if (b->demand == took)
			break;	/* nothing it could send (no MSS) */
	}
full:
	if (!b->demand) {
		kfree(b);
		shoal_obj_dec(SHOAL_OBJ_PL2_BURST);
		return NULL;
	}
	return b;
}

/* Copies of @b's packets without SHOAL_F_SCHED, on @q: Algorithm 2's
 * unsolicited burst.  False if none could be made.
 */
static bool shoal_pl2_unsol(struct shoal_sock *ss, struct shoal_pl2_burst *b,
			    u64 now, struct sk_buff_head *q)
{
	struct sk_buff *skb, *c;
	u32 n = 0;

	skb_queue_walk(&b->skbs, skb) {
		c = skb_copy(skb, GFP_ATOMIC);
		if (!c)
			break;
		c->data[SHOAL_FLAGS_OFFSET] &= ~SHOAL_F_SCHED;
		__skb_queue_tail(q, c);
		n++;
	}
	if (!n)
		return false;
	shoal_pl2_uplink(ss->sn, now, (u64)b->bytes * n / b->demand);
	shoal_stat_inc(ss->sn, SHOAL_STAT_PL2_UNSOL);
	return true;
}

/* Start exchanges with @d while it may have more and has bytes to send */
static void shoal_pl2_kick(struct shoal_sock *ss, struct shoal_pl2_dst *d,
			   struct sk_buff_head *q)
{
	u32 most = READ_ONCE(ss->sn->cfg.pl2_outstanding);
	struct shoal_pl2_burst *b;
	struct pl2_cfg c;
	u64 now;

	if (ss->dead)
		return;
	shoal_pl2_cfg(ss->sn, &c);
	while (d->nr_out < most && !list_empty(&d->msgs)) {
		b = shoal_pl2_form(ss, d, &c);
		if (!b)
			break;
		list_add_tail(&b->node, &d->bursts);
		d->nr_out++;
		now = ktime_get_ns();
		shoal_pl2_rsv(ss, b, now, q);
		if (pl2_may_unsol(&c, &d->peer, now))
			b->unsol = shoal_pl2_unsol(ss, b, now, q);
		shoal_stat_inc(ss->sn, SHOAL_STAT_PL2_BURSTS);
		shoal_stat_add(ss->sn, SHOAL_STAT_PL2_BURST_PKTS, b->demand);
	}
	shoal_pl2_arm(ss);
}

/* What a burst still holds: an unsolicited one's are copies of packets
 * that went (kept to send again on a small grant), consumed; a reserved
 * one's never went, and are dropped
 */
static void shoal_pl2_free_skbs(struct shoal_pl2_burst *b)
{
	struct sk_buff *skb;

	if (!b->unsol) {
		__skb_queue_purge(&b->skbs);
		return;
	}
	while ((skb = __skb_dequeue(&b->skbs)))
		consume_skb(skb);
}

/* @b's exchange ends: its packets go (@send) or are dropped, and the
 * next exchange with its destination may start
 */
static void shoal_pl2_end(struct shoal_sock *ss, struct shoal_pl2_burst *b,
			  bool send, u64 now, struct sk_buff_head *q)
{
	struct shoal_pl2_dst *d = b->dst;

	if (send) {
		shoal_pl2_uplink(ss->sn, now, b->bytes);
		skb_queue_splice_tail_init(&b->skbs, q);
	}
	shoal_pl2_free_skbs(b);
	list_del(&b->node);
	list_del(&b->timed);
	kfree(b);
	shoal_obj_dec(SHOAL_OBJ_PL2_BURST);
	d->nr_out--;
	shoal_pl2_kick(ss, d, q);
	shoal_pl2_dst_put(ss, d);
}

/* Bytes of @m may be sent (new, a RESEND, a probe): it queues at its
 * destination.  Under ss->lock.
 */
void shoal_pl2_push(struct shoal_sock *ss, struct shoal_omsg *m,
		    struct sk_buff_head *q)
{
	struct shoal_pl2_dst *d = m->pl2_dst;

	if (!d || !shoal_tx_sendable(&m->tx))
		return;
	if (list_empty(&m->pl2_node))
		list_add_tail(&m->pl2_node, &d->msgs);
	shoal_pl2_kick(ss, d, q);
}

/* A GRT for one of our bursts (the switch's, or the receiving host's
 * when no switch is on the path).  Under ss->lock.
 */
void shoal_pl2_grt(struct shoal_sock *ss, const struct shoal_wire_pkt *pkt,
		   const struct shoal_addr *src, struct sk_buff_head *q)
{
	struct shoal_pl2_dst *d = shoal_pl2_dst_find(ss, &src->ip);
	struct shoal_net *sn = ss->sn;
	struct shoal_pl2_burst *b;
	enum pl2_grt_action a;
	struct pl2_cfg c;
	u64 now, wait, free_ns;
	bool found = false;

	if (d)
		list_for_each_entry(b, &d->bursts, node)
			if (b->state == SHOAL_PL2_RSV &&
			    b->msg_id == pkt->msg_id &&
			    b->offset == pkt->offset &&
			    b->dport == pkt->dport &&
			    b->name_flags == (pkt->flags & SHOAL_F_NAME)) {
				found = true;
				break;
			}
	if (!found) {
		shoal_stat_inc(sn, SHOAL_STAT_PL2_GRT_STALE);
		return;
	}
	shoal_pl2_cfg(sn, &c);
	now = ktime_get_ns();
	spin_lock(&sn->pl2.lock);
	free_ns = sn->pl2.free_ns;
	spin_unlock(&sn->pl2.lock);
	a = pl2_on_grt(&c, &d->peer, now, b->rsv_ns, pkt->word, b->unsol,
		       free_ns, &wait);
	shoal_stat_inc(sn, SHOAL_STAT_PL2_GRTS);
	trace_shoal_pl2_grant(&src->ip, b->msg_id, b->offset, wait);
	shoal_stat_add(sn, SHOAL_STAT_PL2_RSV_GRT_NS, now - b->rsv_ns);
	if (a == PL2_UNSOL_DONE) {
		shoal_pl2_end(ss, b, false, now, q);
		return;
	}
	if (a == PL2_UNSOL_RESEND)
		shoal_stat_inc(sn, SHOAL_STAT_PL2_UNSOL_RESENT);
	/* a slot further off than a GRT may take (a counter that leaks
	 * reservations, a forged GRT) must not hold the destination's
	 * exchange: the burst goes when an overdue GRT's would
	 */
	if (wait > shoal_pl2_timeout_ns(sn)) {
		wait = shoal_pl2_timeout_ns(sn);
		shoal_stat_inc(sn, SHOAL_STAT_PL2_WAIT_CAPPED);
	}
	shoal_stat_add(sn, SHOAL_STAT_PL2_WAIT_NS, wait);
	if (!wait) {
		shoal_pl2_end(ss, b, true, now, q);
		return;
	}
	b->state = SHOAL_PL2_GRANTED;
	shoal_pl2_time(ss, b, now, wait);
	shoal_pl2_arm(ss);
}

/* The socket's timer: bursts whose slot came go, and so do those whose
 * GRT is overdue
 */
enum hrtimer_restart shoal_pl2_timer(struct hrtimer *t)
{
	struct shoal_sock *ss = container_of(t, struct shoal_sock,
					     pl2s.timer);
	struct shoal_pl2_burst *b;
	struct sk_buff_head q;
	u64 now;

	__skb_queue_head_init(&q);
	spin_lock(&ss->lock);
	now = ktime_get_ns();
	while (!ss->dead &&
	       (b = list_first_entry_or_null(&ss->pl2s.timed,
					     struct shoal_pl2_burst, timed)) &&
	       b->at <= now) {
		if (b->state == SHOAL_PL2_GRANTED) {
			shoal_pl2_end(ss, b, true, now, &q);
			continue;
		}
		/* no GRT in time: the burst goes now, as granted.  A late
		 * GRT is far likelier than a lost one (the RSV reached the
		 * switch, which counted it: the burst's packets take exactly
		 * that off); an RSV sent again would be counted twice and
		 * only one of them ever taken off.
		 */
		shoal_stat_inc(ss->sn, SHOAL_STAT_PL2_RSV_TIMEOUT);
		shoal_pl2_end(ss, b, true, now, &q);
	}
	shoal_pl2_arm(ss);
	spin_unlock(&ss->lock);
	shoal_xmit_list(ss->sn, &q);
	return HRTIMER_NORESTART;
}

/* The socket closes: its messages are gone, its timer stopped.  Bursts
 * granted a slot go now (the switch counts them off); those still
 * waiting for a GRT are dropped.  Under ss->lock.
 */
void shoal_pl2_sock_close(struct shoal_sock *ss, struct sk_buff_head *q)
{
	struct shoal_pl2_burst *b, *btmp;
	struct shoal_pl2_dst *d;
	struct hlist_node *dtmp;
	u64 now = ktime_get_ns();
	int i;

	for (i = 0; i < SHOAL_PL2_DST_HASH; i++) {
		hlist_for_each_entry_safe(d, dtmp, &ss->pl2s.dsts[i], node) {
			list_for_each_entry_safe(b, btmp, &d->bursts, node) {
				if (b->state == SHOAL_PL2_GRANTED) {
					shoal_pl2_uplink(ss->sn, now,
							 b->bytes);
					skb_queue_splice_tail_init(&b->skbs,
								   q);
				}
				shoal_pl2_free_skbs(b);
				list_del(&b->timed);
				kfree(b);
				shoal_obj_dec(SHOAL_OBJ_PL2_BURST);
			}
			hlist_del(&d->node);
			kfree(d);
			shoal_obj_dec(SHOAL_OBJ_PL2_DST);
		}
	}
	ss->pl2s.nr_dsts = 0;
}

/* An RSV reached a host: no PL2 switch answered it on its path.  The
 * host answers for the switch with slots 0, 0 (send at once), so PL2
 * sockets work across any path, without reservations; or, when a switch
 * on the sender's side passed it on with a slot in its word's high half
 * (Documentation/wire.md), with that slot as the input's.  The caller
 * checked that a socket has the RSV's port (else the sender learns of
 * that at once).
 */
void shoal_pl2_answer(struct shoal_net *sn, const struct shoal_wire_pkt *pkt,
		      const struct shoal_addr *src,
		      const struct in6_addr *local, struct sk_buff_head *q)
{
	struct shoal_addr to = { .ip = src->ip, .port = pkt->dport };

	shoal_ctrl(sn, &(struct shoal_ctrl){
			.dst = &to,
			.saddr = local,
			.sport = pkt->sport,
			.type = SHOAL_T_GRT,
			.flags = (pkt->flags & SHOAL_F_NAME) | SHOAL_F_BOUNCED,
			.id = pkt->msg_id,
			.msg_len = pkt->msg_len,
			.offset = pkt->offset,
			.word = pkt->word & SHOAL_RSV_CARRIED_MASK,
		   }, q);
	shoal_stat_inc(sn, SHOAL_STAT_PL2_RSV_ANSWERED);
}
