// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: SIRD's receiver (Documentation/shoal.md, "SIRD").  Every
 * message's scheduled bytes are granted here, one packet's worth of credit
 * at a time, by a pacer at net.shoal.sird_rate_mbps (the downlink; 0: not
 * paced): to the message with the fewest bytes still to arrive among
 * those whose sender's bucket (the smaller of its csn and ECN loops), the
 * global bucket B and the socket's free receive memory all have room.
 * Credit comes back when its data arrives, and is reclaimed when a message
 * goes quiet with credit out (the data was lost) or goes away.  Bytes a
 * switch trimmed are asked for again by the same pacer, first, as RESENDs
 * that count as credit: no timeout is waited for, and the retransmissions
 * of an incast's trimmed packets come at the downlink's rate instead of
 * all at once into the queue that trimmed them.  The pacer's clock is
 * the downlink's: unscheduled bytes that arrive move it on as grants do
 * (net.shoal.sird_pace_unsched), so credit yields the link to them.
 * A run's grants in a row to one message go as one CREDIT (its offset
 * is cumulative): a pacer that makes up a late timer, or one not paced,
 * sends one control packet for them, not one per data packet.
 * One grant at a time is timed until its DATA comes (sird->probe): the
 * round trip a grant sees, reported.
 * The arithmetic is sird_core.h's.
 *
 * Locking: see shoal_sird.h.  The pacer is a soft hrtimer (softirq
 * context); everything else is called under a socket's lock, in softirq
 * or process context with bottom halves off.
 */
#include <linux/jhash.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "shoal_sock.h"

#define SHOAL_SIRD_BURST	16	/* grants per pacer run, at most */

/* The settings of both sides; rate_bps is the receiver's */
void shoal_sird_cfg(const struct shoal_net *sn, struct sird_cfg *c)
{
	const struct shoal_cfg *s = &sn->cfg;

	*c = (struct sird_cfg){
		.mss = READ_ONCE(s->mss),
		.bdp = READ_ONCE(s->bdp),
		.b = READ_ONCE(s->sird_b),
		.unsch_thresh = READ_ONCE(s->unsch_thresh),
		.sthr = READ_ONCE(s->sird_sthr),
		.min_bkt = READ_ONCE(s->mss),
		.g_shift = READ_ONCE(s->sird_g_shift),
		.rtt_ns = READ_ONCE(s->sird_rtt_us) * 1000ULL,
		.rate_bps = READ_ONCE(s->sird_rate_mbps) * 1000000ULL,
		.overhead = SHOAL_WIRE_OVERHEAD,
		.fair_permille = READ_ONCE(s->sird_fair_permille),
		.rx_fair_permille = READ_ONCE(s->sird_rx_fair_permille),
		.rx_fifo_permille = READ_ONCE(s->sird_rx_fifo_permille),
	};
}

static struct hlist_head *shoal_sird_bucket(struct shoal_sird *sird,
					    const struct in6_addr *ip)
{
	return &sird->peers[ipv6_addr_hash(ip) & (SHOAL_SIRD_PEER_HASH - 1)];
}

/* The sender @ip, made if new; NULL without memory.  Under sird->lock. */
static struct shoal_sird_peer *shoal_sird_peer(struct shoal_sird *sird,
					       const struct in6_addr *ip)
{
	struct hlist_head *h = shoal_sird_bucket(sird, ip);
	struct shoal_sird_peer *p;
	struct sird_cfg cfg;

	hlist_for_each_entry(p, h, node)
		if (ipv6_addr_equal(&p->ip, ip))
			return p;
	p = kzalloc(sizeof(*p), GFP_ATOMIC);
	if (!p)
		return NULL;
	shoal_obj_inc(SHOAL_OBJ_SIRD_PEER);
	shoal_sird_cfg(sird->sn, &cfg);
	p->ip = *ip;
	p->order = ++sird->peer_seq;
	sird_rx_peer_init(&cfg, &p->rx, ktime_get_ns());
	hlist_add_head(&p->node, h);
	sird->nr_peers++;
	return p;
}

/* Payload bytes @ss may still be invited: half its free receive memory
 * (a packet's memory is up to twice its payload) less its credit out,
 * after a page kept for the packet that comes into it: a short piece's
 * memory is far more than twice its payload, and a grant the socket then
 * drops for want of memory would be owed, granted and dropped again
 * until the application reads.  Nothing while the machine's or the
 * cgroup's socket memory is short, for the same reason.
 */
static u32 shoal_sird_room(struct shoal_sock *ss)
{
	struct sock *sk = &ss->inet.sk;
	int free = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc) -
		   (int)PAGE_SIZE;

	if (free <= 0 || (u32)free / 2 <= ss->credit_out ||
	    shoal_rmem_short(sk))
		return 0;
	return free / 2 - ss->credit_out;
}

/* Credit @n of @c comes back (arrived, lost or gone) */
static void shoal_credit_return(struct shoal_sird *sird,
				struct shoal_credit *c, u32 n)
{
	n = min(n, c->out);
	sird_returned(&sird->b, &c->peer->rx, n);
	c->out -= n;
	c->ss->credit_out -= min(n, c->ss->credit_out);
}

static void shoal_credit_want(struct shoal_sird *sird, struct shoal_credit *c)
{
	bool want = c->granted < c->msg_len || c->nr_owed;

	if (want && !c->wanting)
		list_add_tail(&c->node, &sird->wanting);
	else if (!want && c->wanting)
		list_del(&c->node);
	c->wanting = want;
}

/* @c's timed grant will not be seen arriving as sent: stop timing it */
static void shoal_credit_unprobe(struct shoal_sird *sird,
				 const struct shoal_credit *c)
{
	if (sird->probe == c)
		sird->probe = NULL;
}

/* The DATA of @c ending at @end arrived at @now: the timed grant's
 * round trip, unless the sender held the credit (csn) or the packet
 * waited in a marked queue (CE): those samples measure a queue, and a B
 * fitted to them would grow the queue it measured
 */
static void shoal_credit_timed(struct shoal_sird *sird,
			       const struct shoal_credit *c, u32 end,
			       bool sched, bool csn, bool ce, u64 now)
{
	if (sird->probe != c || !sched || end < sird->probe_end)
		return;
	if (end == sird->probe_end && !csn && !ce)
		sird_rtt_sample(&sird->rtt, now - sird->probe_ns, now);
	sird->probe = NULL;
}

/* Start the pacer unless it runs or waits already */
void shoal_sird_kick(struct shoal_sird *sird)
{
	u64 at = max_t(u64, ktime_get_ns(), READ_ONCE(sird->next_ns));

	if (hrtimer_is_queued(&sird->pacer))
		return;
	hrtimer_start(&sird->pacer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/* A new message of @msg_len bytes from @ip of which [0, @granted) comes
 * unasked; -ENOMEM
 */
int shoal_credit_attach(struct shoal_sird *sird, struct shoal_credit *c,
			struct shoal_sock *ss, const struct in6_addr *ip,
			u32 msg_len, u32 granted)
{
	struct shoal_sird_peer *p;

	spin_lock(&sird->lock);
	p = shoal_sird_peer(sird, ip);
	if (!p) {
		spin_unlock(&sird->lock);
		return -ENOMEM;
	}
	p->msgs++;
	*c = (struct shoal_credit){
		.peer = p,
		.ss = ss,
		.msg_len = msg_len,
		.granted = min(granted, msg_len),
		.granted_at = jiffies,
		.born = sird->born++,
	};
	shoal_credit_want(sird, c);
	spin_unlock(&sird->lock);
	if (c->wanting)
		shoal_sird_kick(sird);
	return 0;
}

/* The message is complete or goes: its credit comes back, the pacer
 * forgets it.  An idle peer is freed when many are kept.
 */
void shoal_credit_detach(struct shoal_sird *sird, struct shoal_credit *c)
{
	struct shoal_sird_peer *p = c->peer;
	bool returned;

	if (!p)
		return;
	spin_lock(&sird->lock);
	returned = c->out;
	shoal_credit_unprobe(sird, c);
	shoal_credit_return(sird, c, c->out);
	c->granted = c->msg_len;
	c->nr_owed = 0;
	shoal_credit_want(sird, c);
	c->peer = NULL;
	if (!--p->msgs && sird->nr_peers > SHOAL_SIRD_PEERS_KEEP) {
		hlist_del(&p->node);
		sird->nr_peers--;
		sird->peers_freed++;
		kfree(p);
		shoal_obj_dec(SHOAL_OBJ_SIRD_PEER);
	}
	spin_unlock(&sird->lock);
	if (returned)
		shoal_sird_kick(sird);
}

/* A DATA packet of @len bytes ending at @end, @fresh of them new,
 * @received now in all; @sched: sent against credit
 */
void shoal_credit_data(struct shoal_sird *sird, struct shoal_credit *c,
		       u32 end, u32 len, u32 fresh, u32 received, bool sched,
		       bool csn, bool ce)
{
	struct sird_cfg cfg;
	u32 back = 0;
	u64 now;

	if (!c->peer)
		return;
	shoal_sird_cfg(sird->sn, &cfg);
	spin_lock(&sird->lock);
	now = ktime_get_ns();
	sird_rx_sample(&cfg, &c->peer->rx, len, csn, ce, now);
	shoal_credit_timed(sird, c, end, sched, csn, ce, now);
	sird->arrived += len;
	sird->arrived_at = jiffies;
	if (!sched && cfg.rate_bps &&
	    READ_ONCE(sird->sn->cfg.sird_pace_unsched)) {
		/* the downlink's clock: unscheduled bytes took its time too */
		sird->next_ns = sird_pace_next(&cfg, sird->next_ns, now,
					       sird_pace_ns(&cfg, len));
		sird->unsched_paced += len;
	}
	if (sched && fresh) {
		back = min(fresh, c->out);
		shoal_credit_return(sird, c, back);
	}
	c->received = received;
	spin_unlock(&sird->lock);
	if (back)
		shoal_sird_kick(sird);
}

/* A CREDIT_REQ: the sender waits for credit from @upto on */
void shoal_credit_ask(struct shoal_sird *sird, struct shoal_credit *c,
		      u32 upto)
{
	if (!c->peer)
		return;
	spin_lock(&sird->lock);
	if (upto > c->granted)
		WRITE_ONCE(c->granted, min(upto, c->msg_len));
	shoal_credit_want(sird, c);
	spin_unlock(&sird->lock);
	if (c->wanting)
		shoal_sird_kick(sird);
}

/* The message went quiet with credit out: that data was lost, and its
 * credit must not stay counted (RESENDs ask for the bytes again)
 */
void shoal_credit_reclaim(struct shoal_sird *sird, struct shoal_credit *c)
{
	u32 n;

	if (!c->peer)
		return;
	spin_lock(&sird->lock);
	n = c->out;
	shoal_credit_unprobe(sird, c);
	shoal_credit_return(sird, c, n);
	sird->reclaimed += n;
	spin_unlock(&sird->lock);
	if (n)
		shoal_sird_kick(sird);
}

/* A trimmed packet: @back bytes of credit it carried come back (its
 * payload will not), and its missing ranges @r[@n] are owed: the pacer
 * asks for them again.  A full table merges into its last range.
 */
void shoal_credit_trimmed(struct shoal_sird *sird, struct shoal_credit *c,
			  u32 back, const struct shoal_range *r, u32 n)
{
	u32 i;

	if (!c->peer)
		return;
	spin_lock(&sird->lock);
	shoal_credit_unprobe(sird, c);
	shoal_credit_return(sird, c, back);
	for (i = 0; i < n; i++)
		shoal_owed_add(c->owed, &c->nr_owed, SHOAL_CREDIT_OWED,
			       r[i].start, r[i].end);
	shoal_credit_want(sird, c);
	spin_unlock(&sird->lock);
	shoal_sird_kick(sird);
}

/* A RESEND after a reclaim asks for @len bytes again: they count as
 * credit given (even past B: lost data must come), so that their arrival
 * returns what they took and nothing else
 */
void shoal_credit_resend(struct shoal_sird *sird, struct shoal_credit *c,
			 u32 len)
{
	if (!c->peer)
		return;
	spin_lock(&sird->lock);
	sird_granted(&sird->b, &c->peer->rx, len);
	c->out += len;
	c->ss->credit_out += len;
	c->due = sird_due(sird->arrived, sird->b);
	spin_unlock(&sird->lock);
}

/* Whether @c's last credit's data may still wait in a queue: the host
 * heard data within the interval @ival, but not yet all that was out
 * when that credit went.  When nothing arrives at all, only time says
 * that data was lost.
 */
bool shoal_credit_queued(struct shoal_sird *sird,
			 const struct shoal_credit *c, unsigned long ival)
{
	bool queued;

	spin_lock(&sird->lock);
	queued = c->peer && c->out &&
		 time_in_range(jiffies, sird->arrived_at,
			       sird->arrived_at + ival) &&
		 sird_before_due(sird->arrived, c->due);
	spin_unlock(&sird->lock);
	return queued;
}

/* What @c's next grant is for: its first owed range, or its bytes not
 * yet granted
 */
static u32 shoal_credit_rem(const struct shoal_credit *c)
{
	return c->nr_owed ? c->owed[0].end - c->owed[0].start :
			    c->msg_len - c->granted;
}

/* The message to credit next: SRPT among those with room, on a fair turn
 * the next sender host's shortest, on a turn for the oldest the one that
 * came first
 */
static struct shoal_credit *shoal_sird_pick(struct shoal_sird *sird,
					    const struct sird_cfg *cfg,
					    u32 *size)
{
	const struct sird_shares sh = {
		.fair = cfg->rx_fair_permille,
		.fifo = cfg->rx_fifo_permille,
	};
	struct shoal_credit *c;
	struct sird_choice ch;
	struct sird_cand k;

	sird_choice_init(&ch);
	list_for_each_entry(c, &sird->wanting, node) {
		k = (struct sird_cand){
			.left = c->msg_len - c->received,
			.rem = shoal_credit_rem(c),
			.sb = c->peer->rx.sb,
			.bkt = sird_bucket(&c->peer->rx),
		};
		if (!sird_can_grant(cfg, sird->b, &k) ||
		    shoal_sird_room(c->ss) < sird_grant_size(cfg, &k))
			continue;
		sird_choice_offer(&ch, &sird->rr, c->peer->order, k.left,
				  c->born, c);
	}
	c = (struct shoal_credit *)sird_choice_take(&ch, &sh, &sird->rr);
	if (!c)
		return NULL;
	sird->rr_grants += ch.fair;
	sird->fifo_grants += ch.fifo;
	*size = sird_min(shoal_credit_rem(c), cfg->mss);
	return c;
}

/* A CREDIT or RESEND to @m's sender, queued on @q */
static void shoal_sird_ctrl(struct shoal_sird *sird, struct shoal_imsg *m,
			    u8 type, u32 offset, u32 word,
			    struct sk_buff_head *q)
{
	shoal_ctrl(sird->sn, &(struct shoal_ctrl){
			.dst = &m->src,
			.saddr = &m->local,
			.sport = m->credit.ss->port,
			.type = type,
			.flags = m->name_flags | m->reply_flags,
			.id = m->id,
			.msg_len = m->credit.msg_len,
			.offset = offset,
			.word = word,
		   }, q);
}

/* The CREDIT for @c's grants of this pacer run, if any: one packet, as
 * its offset is cumulative
 */
static void shoal_sird_credit_flush(struct shoal_sird *sird,
				    struct shoal_credit *c, u32 bytes,
				    struct sk_buff_head *q)
{
	if (c && bytes)
		shoal_sird_ctrl(sird, container_of(c, struct shoal_imsg, credit),
				SHOAL_T_CREDIT, c->granted, bytes, q);
}

static enum hrtimer_restart shoal_sird_pace(struct hrtimer *t)
{
	struct shoal_sird *sird = container_of(t, struct shoal_sird, pacer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct shoal_credit *c, *held = NULL;
	u32 held_bytes = 0;
	struct sk_buff_head q;
	struct sird_cfg cfg;
	u32 n, i, off;
	u64 now, slack;

	__skb_queue_head_init(&q);
	shoal_sird_cfg(sird->sn, &cfg);
	spin_lock(&sird->lock);
	now = ktime_get_ns();
	/* a grant may go up to one packet's time early: a timer per grant
	 * would make the timer's own lateness the rate
	 */
	slack = sird_pace_ns(&cfg, cfg.mss);
	for (i = 0; i < SHOAL_SIRD_BURST; i++) {
		if (cfg.rate_bps && now + slack < sird->next_ns) {
			hrtimer_set_expires(t, ns_to_ktime(sird->next_ns -
							   slack));
			ret = HRTIMER_RESTART;
			break;
		}
		c = shoal_sird_pick(sird, &cfg, &n);
		if (!c)
			break;
		sird_granted(&sird->b, &c->peer->rx, n);
		c->out += n;
		c->ss->credit_out += n;
		sird->granted += n;
		if (c->nr_owed) {
			struct shoal_imsg *m = container_of(c, struct shoal_imsg,
							    credit);

			/* a trimmed range first: ask for its next piece */
			n = shoal_owed_take(c->owed, &c->nr_owed, n, &off);
			shoal_sird_ctrl(sird, m, SHOAL_T_RESEND, off, n, &q);
			sird->resent += n;
		} else {
			/* grants in a row to one message (a late timer)
			 * go as one CREDIT
			 */
			if (held != c) {
				shoal_sird_credit_flush(sird, held, held_bytes,
							&q);
				held = c;
				held_bytes = 0;
			}
			WRITE_ONCE(c->granted, c->granted + n);
			held_bytes += n;
			if (!sird->probe) {
				sird->probe = c;
				sird->probe_end = c->granted;
				sird->probe_ns = now;
			}
		}
		WRITE_ONCE(c->granted_at, jiffies);
		c->due = sird_due(sird->arrived, sird->b);
		shoal_credit_want(sird, c);
		if (cfg.rate_bps)
			sird->next_ns = sird_pace_next(&cfg, sird->next_ns, now,
						       sird_pace_ns(&cfg, n));
	}
	shoal_sird_credit_flush(sird, held, held_bytes, &q);
	if (i == SHOAL_SIRD_BURST) {	/* more to grant: go on soon */
		hrtimer_set_expires(t, ns_to_ktime(max(now, sird->next_ns)));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&sird->lock);
	shoal_xmit_list(sird->sn, &q);
	return ret;
}

void shoal_sird_init(struct shoal_sird *sird, struct shoal_net *sn)
{
	int i;

	spin_lock_init(&sird->lock);
	sird->sn = sn;
	INIT_LIST_HEAD(&sird->wanting);
	for (i = 0; i < SHOAL_SIRD_PEER_HASH; i++)
		INIT_HLIST_HEAD(&sird->peers[i]);
	hrtimer_init(&sird->pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	sird->pacer.function = shoal_sird_pace;
}

/* No socket is left (each holds the namespace): no message wants credit */
void shoal_sird_exit(struct shoal_sird *sird)
{
	struct shoal_sird_peer *p;
	struct hlist_node *tmp;
	int i;

	hrtimer_cancel(&sird->pacer);
	for (i = 0; i < SHOAL_SIRD_PEER_HASH; i++)
		hlist_for_each_entry_safe(p, tmp, &sird->peers[i], node) {
			hlist_del(&p->node);
			kfree(p);
			shoal_obj_dec(SHOAL_OBJ_SIRD_PEER);
		}
}

/* /proc/net/shoal/sird: the receiver's state, then a line per sender */
void shoal_sird_show(struct shoal_sird *sird, struct seq_file *seq)
{
	struct shoal_sird_peer *p;
	struct shoal_credit *c;
	u32 wanting = 0;
	int i;

	spin_lock_bh(&sird->lock);
	list_for_each_entry(c, &sird->wanting, node)
		wanting++;
	seq_printf(seq, "b %u\nwanting %u\npeers %u\ngranted %llu\n",
		   sird->b, wanting, sird->nr_peers, sird->granted);
	seq_printf(seq, "reclaimed %llu\nresent %llu\npeers_freed %llu\n",
		   sird->reclaimed, sird->resent, sird->peers_freed);
	seq_printf(seq, "unsched_paced %llu\narrived %llu\n",
		   sird->unsched_paced, sird->arrived);
	seq_printf(seq, "rr_grants %llu\nfifo_grants %llu\n",
		   sird->rr_grants, sird->fifo_grants);
	seq_printf(seq, "rtt_min_us %llu\nsrtt_us %llu\nrtt_samples %llu\n",
		   div_u64(sird->rtt.min_ns, 1000),
		   div_u64(sird->rtt.srtt_ns, 1000), sird->rtt.samples);
	seq_puts(seq, "# peer sb snd_bkt net_bkt snd_alpha net_alpha msgs\n");
	for (i = 0; i < SHOAL_SIRD_PEER_HASH; i++)
		hlist_for_each_entry(p, &sird->peers[i], node)
			seq_printf(seq, "%pI6c %u %u %u %u %u %u\n", &p->ip,
				   p->rx.sb, p->rx.snd.bkt, p->rx.net.bkt,
				   p->rx.snd.alpha, p->rx.net.alpha, p->msgs);
	spin_unlock_bh(&sird->lock);
}
