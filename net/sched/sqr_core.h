/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Algorithm core of sch_sqr (SQR, Qu et al.): which packets are protected,
 * when a held copy has served its time, which copies a failure commits, the
 * failure/release/fail-back state machine (states, release modes and
 * match flags are the uapi's), the fault injector's schedule, the ring's
 * backstop and its buffer's arithmetic, the heartbeat's frame and
 * verdict.  Plain C, no kernel calls: the module and the userspace unit
 * tests and fuzzers build this file.  Times are u64 nanoseconds of one
 * monotonic clock; they do not wrap.
 */
#ifndef _SHOAL_SQR_CORE_H
#define _SHOAL_SQR_CORE_H

#include <net/shoal/pkt_parse.h>
#include <linux/pkt_sched_shoal.h>

/* ---- which packets are protected ---- */

/* The criteria given (SQR_MATCH_* in flags) must all hold; none given
 * protects every IP packet
 */
struct sqr_match {
	u32 flags;
	u32 mark_val;
	u32 mark_mask;
	u16 port_lo;
	u16 port_hi;
	u8 dscp_val;
	u8 dscp_mask;
	u8 proto;
};

/* What the match looks at, from the packet's headers and skb->mark */
struct sqr_pkt {
	bool ip;		/* IPv4 or IPv6 with sound headers */
	bool neigh;		/* ICMPv6 neighbour discovery: never protected */
	u8 dscp;
	u8 proto;
	u16 sport;
	u16 dport;
	u32 mark;
};

/* Parse @avail bytes at the network header (IPv4/IPv6) of a packet with
 * @pktlen bytes from there on.  A fragment or a packet whose L4 header is
 * cut short is IP with ports 0: it can match on DSCP, protocol or mark.
 */
static inline void sqr_parse(const u8 *p, u32 avail, u32 pktlen, u32 mark,
			     struct sqr_pkt *pk)
{
	struct shoal_pkt_hdrs t = { 0 };
	enum shoal_pkt_res c;

	*pk = (struct sqr_pkt){ .mark = mark };
	c = shoal_pkt_parse(p, avail, pktlen, &t);
	if (c == SHOAL_PKT_NONIP || (c == SHOAL_PKT_BAD && !t.l4proto))
		return;
	if (t.ipver != 4 && t.ipver != 6)
		return;
	pk->ip = true;
	pk->dscp = t.dscp;
	pk->proto = t.l4proto;
	if (c == SHOAL_PKT_OK) {
		pk->sport = t.sport;
		pk->dport = t.dport;
	}
	/* ICMPv6 types 133-137: router and neighbour discovery, redirect */
	if (t.ipver == 6 && t.l4proto == 58 && c != SHOAL_PKT_FRAG &&
	    t.l4off < avail && p[t.l4off] >= 133 && p[t.l4off] <= 137)
		pk->neigh = true;
}

static inline bool sqr_protected(const struct sqr_match *m,
				 const struct sqr_pkt *pk)
{
	if (!pk->ip || pk->neigh)
		return false;
	if ((m->flags & SQR_MATCH_DSCP) &&
	    (pk->dscp & m->dscp_mask) != m->dscp_val)
		return false;
	if ((m->flags & SQR_MATCH_PROTO) && pk->proto != m->proto)
		return false;
	if ((m->flags & SQR_MATCH_PORTS) &&
	    ((pk->proto != 6 && pk->proto != 17) ||
	     ((pk->sport < m->port_lo || pk->sport > m->port_hi) &&
	      (pk->dport < m->port_lo || pk->dport > m->port_hi))))
		return false;
	if ((m->flags & SQR_MATCH_MARK) &&
	    (pk->mark & m->mark_mask) != m->mark_val)
		return false;
	return true;
}

/* ---- the ring: hold, commit, backstop ---- */

/* A copy sent at @tx_ns has been held long enough: had the link failed
 * before it reached the peer, the failure would have been detected by now.
 */
static inline bool sqr_expired(u64 tx_ns, u64 hold_ns, u64 now)
{
	return now >= tx_ns && now - tx_ns >= hold_ns;
}

/* The watchdog's period on a busy port: half a hold, or the poll period
 * if that is longer.  A failure it finds is still found within hold of
 * the last packet; each period costs a busy port one hrtimer_start().
 */
static inline u64 sqr_watch_ns(u64 poll_ns, u64 hold_ns)
{
	return hold_ns / 2 > poll_ns ? hold_ns / 2 : poll_ns;
}

/* When the timer must free the oldest copy, sent at @tx_ns: a quarter
 * hold after it expires, so that it wakes once for many copies.  While
 * packets flow (the last dequeue at @seen_ns) the dequeues free them, so
 * not before the watchdog's own time, @watch_ns after that dequeue.
 */
static inline u64 sqr_expiry_due(u64 tx_ns, u64 hold_ns, u64 seen_ns,
				 u64 watch_ns)
{
	u64 at = tx_ns + hold_ns + hold_ns / 4;

	return seen_ns + watch_ns > at ? seen_ns + watch_ns : at;
}

/* When the timer must next read the carrier, copies being held.  Every
 * dequeue reads it too: while packets flow (the last at @seen_ns found
 * the link up, less than @poll_ns ago) the timer is only the watchdog for
 * a port that stops sending as it fails, and comes a watch period after
 * that dequeue, which still finds the failure with its packets' copies
 * held.  Idle, the timer polls every @poll_ns.
 */
static inline u64 sqr_poll_due(u64 now, u64 seen_ns, u64 poll_ns,
			       u64 hold_ns)
{
	if (seen_ns <= now && now - seen_ns < poll_ns)
		return seen_ns + sqr_watch_ns(poll_ns, hold_ns);
	return now + poll_ns;
}

/* Whether a dequeue pushes the timer out instead of letting it fire: it
 * is armed for @at_ns, not yet due but less than an eighth of a watch
 * period away.  A busy port then takes an hrtimer_start() every 7/8 of a
 * period and no interrupt at all.  A timer already due (an event asked
 * for it at once) is left alone.
 */
static inline bool sqr_timer_push(u64 at_ns, u64 now, u64 poll_ns,
				  u64 hold_ns)
{
	return at_ns > now && at_ns - now < sqr_watch_ns(poll_ns, hold_ns) / 8;
}

/* Whether a dequeue on a busy port leaves the timer, armed for @at_ns,
 * where it is: neither later than a watch period from @now (the poll it
 * must do) nor within an eighth of one (to be pushed out).  What nearly
 * every dequeue finds, so it is tested first.
 */
static inline bool sqr_timer_settled(u64 at_ns, u64 now, u64 watch_ns)
{
	return at_ns >= now + watch_ns / 8 && at_ns <= now + watch_ns;
}

/* On a failure whose onset is known (injector, heartbeat), a copy sent
 * more than @guard_ns before the onset got through: resending it would
 * only make a duplicate.  Unknown onset (@onset_ns 0): every copy counts.
 */
static inline bool sqr_commit_copy(u64 tx_ns, u64 onset_ns, u64 guard_ns)
{
	return !onset_ns || tx_ns + guard_ns >= onset_ns;
}

/* ---- the unavoidable window ---- */

/* A failure whose onset is not known (the carrier, a device event, the
 * heartbeat) began after @good, the last moment the detector knew the
 * link good (a carrier read that found it up, the newest answered probe),
 * and was found later.  A copy that expired in between may have been
 * lost with its original: nothing resends it.  Counted are the copies
 * the commit rule would have resent had the failure been found at @good
 * (sent at good - guard or later, see sqr_commit_copy()) and that expired
 * before the detection: an upper bound, as the failure may have begun
 * later than @good.  Expiry runs oldest first, so the copies counted are
 * the newest expired ones; a later @good clears them once the newest of
 * them (@front) was sent before it less guard.  If not (a @good newer
 * than the expiry front only by less than guard, which needs guard
 * longer than hold), the count stays: still an upper bound.
 */
struct sqr_win {
	u64 good;	/* the link was last known good */
	u64 front;	/* the newest expired copy was sent */
	u64 at_risk;	/* expired copies sent at good - guard or later */
};

/* The detector knew the link good at @good */
static inline void sqr_win_good(struct sqr_win *w, u64 good, u64 guard)
{
	if (good <= w->good)
		return;
	w->good = good;
	if (!sqr_commit_copy(w->front, good, guard))
		w->at_risk = 0;
}

/* A copy sent at @tx expires; @good as for sqr_win_good() */
static inline void sqr_win_expire(struct sqr_win *w, u64 good, u64 guard,
				  u64 tx)
{
	sqr_win_good(w, good, guard);
	if (sqr_commit_copy(tx, w->good, guard))
		w->at_risk++;
	w->front = tx;
}

/* A failure is detected: the copies it may have lost unresent; the
 * window starts over
 */
static inline u64 sqr_win_detect(struct sqr_win *w, u64 good, u64 guard)
{
	u64 n;

	sqr_win_good(w, good, guard);
	n = w->at_risk;
	w->at_risk = 0;
	return n;
}

/* Room for one more copy of @len bytes?  A full ring stops caching (the
 * paper's backstop); it never evicts a copy that may still be needed.
 */
static inline bool sqr_ring_room(u32 pkts, u64 bytes, u32 len,
				 u32 limit_pkts, u64 limit_bytes)
{
	return pkts < limit_pkts && bytes + len <= limit_bytes;
}

/* ---- the copy buffer ---- */

/* The ring's records (each a multiple of 8 bytes) in one byte buffer of
 * @size, written at head and freed oldest first at tail.  A record that
 * does not fit before the end starts again at 0; the end it leaves
 * (from wrap on) is skipped until tail gets there.  A copy costs a write
 * where the head is and a free costs moving the tail: no allocation.
 */
struct sqr_buf {
	u32 size;
	u32 head;	/* where the next record goes */
	u32 tail;	/* the oldest record */
	u32 wrap;	/* wrapped: where the records before 0 end */
	u32 count;	/* records */
	u32 used;	/* bytes they take (the skipped end not counted) */
	bool wrapped;	/* the records run from tail to wrap, then 0 to head */
};

#define SQR_BUF_FULL	(~0U)

static inline void sqr_buf_init(struct sqr_buf *b, u32 size)
{
	*b = (struct sqr_buf){ .size = size };
}

/* Room for a record of @n bytes: its offset, or SQR_BUF_FULL */
static inline u32 sqr_buf_take(struct sqr_buf *b, u32 n)
{
	u32 off;

	if (!b->wrapped) {
		if (n <= b->size - b->head) {
			off = b->head;
		} else if (n <= b->tail) {
			b->wrap = b->head;
			b->wrapped = true;
			off = 0;
		} else {
			return SQR_BUF_FULL;
		}
	} else {
		if (n > b->tail - b->head)
			return SQR_BUF_FULL;
		off = b->head;
	}
	b->head = off + n;
	b->count++;
	b->used += n;
	return off;
}

/* Free the oldest record, of @n bytes */
static inline void sqr_buf_drop(struct sqr_buf *b, u32 n)
{
	b->tail += n;
	b->count--;
	b->used -= n;
	if (b->wrapped && b->tail == b->wrap) {
		b->tail = 0;
		b->wrapped = false;
	}
	if (!b->count)
		sqr_buf_init(b, b->size);	/* the whole buffer in one piece */
}

/* ---- heartbeats ---- */

/* A probe or its echo, after the Ethernet header (EtherType
 * SQR_HB_ETHERTYPE), big-endian: magic, version, type, 2 bytes zero, the
 * prober's id, the probe's sequence number and the prober's clock when
 * it sent it.  The echo returns all of it with the type changed.
 */
#define SQR_HB_MAGIC	0x53515248u	/* "SQRH" */
#define SQR_HB_VERSION	1
#define SQR_HB_LEN	24

enum sqr_hb_type {
	SQR_HB_PROBE = 1,
	SQR_HB_ECHO = 2,
};

struct sqr_hb_msg {
	u8 type;
	u32 id;
	u32 seq;
	u64 tx_ns;
};

static inline void sqr_hb_write(u8 *p, const struct sqr_hb_msg *m)
{
	shoal_put32(p, SQR_HB_MAGIC);
	p[4] = SQR_HB_VERSION;
	p[5] = m->type;
	p[6] = 0;
	p[7] = 0;
	shoal_put32(p + 8, m->id);
	shoal_put32(p + 12, m->seq);
	shoal_put64(p + 16, m->tx_ns);
}

/* Parse @len bytes after the Ethernet header; false: not ours */
static inline bool sqr_hb_read(const u8 *p, u32 len, struct sqr_hb_msg *m)
{
	if (len < SQR_HB_LEN || shoal_get32(p) != SQR_HB_MAGIC ||
	    p[4] != SQR_HB_VERSION ||
	    (p[5] != SQR_HB_PROBE && p[5] != SQR_HB_ECHO))
		return false;
	m->type = p[5];
	m->id = shoal_get32(p + 8);
	m->seq = shoal_get32(p + 12);
	m->tx_ns = shoal_get64(p + 16);
	return true;
}

/* The send times kept, of the newest probes: more than hb_miss + 1, so
 * the newest answered probe's is there when the verdict needs it
 */
#define SQR_HB_SLOTS	128

/* The prober's side: probes numbered from 1, the newest answered.
 * Numbers are compared by their distance back from the last one sent,
 * so no window closes however long the link stays down.
 */
struct sqr_hb {
	u32 sent;		/* the last probe's number */
	u32 echoed;		/* the newest probe answered */
	u32 down_at;		/* sent when it was found down */
	bool down;
	u64 tx[SQR_HB_SLOTS];	/* our clock when each was sent */
};

/* Number the next probe, to be sent at @now */
static inline u32 sqr_hb_next(struct sqr_hb *h, u64 now)
{
	h->sent++;
	h->tx[h->sent % SQR_HB_SLOTS] = now;
	return h->sent;
}

/* Probe @seq, the last numbered, never left (the device would not take
 * it): take it back, it is no miss
 */
static inline void sqr_hb_unsend(struct sqr_hb *h, u32 seq)
{
	if (h->sent == seq && h->echoed != seq)
		h->sent--;
}

/* An echo of probe @seq came: true if it is news (an old number, or one
 * never sent, is not)
 */
static inline bool sqr_hb_echo(struct sqr_hb *h, u32 seq)
{
	if (h->sent - seq >= h->sent - h->echoed)
		return false;
	h->echoed = seq;
	return true;
}

/* Our clock when the newest answered probe left, from our own record
 * (never the echo's copy: a peer could claim any time); 0: unknown
 */
static inline u64 sqr_hb_onset(const struct sqr_hb *h)
{
	return h->sent - h->echoed < SQR_HB_SLOTS ?
	       h->tx[h->echoed % SQR_HB_SLOTS] : 0;
}

/* Before sending the next probe: @miss probes in a row unanswered mean
 * down (counted in probes, not time: a timer that fires late sends late,
 * and that alone must not look like a failure).  Returns 1 on the way
 * down, -1 on the way back (an echo of a probe sent after it went down),
 * 0 otherwise.
 */
static inline int sqr_hb_verdict(struct sqr_hb *h, u32 miss)
{
	if (!h->down && h->sent - h->echoed >= miss) {
		h->down = true;
		h->down_at = h->sent;
		return 1;
	}
	if (h->down && h->sent - h->echoed < h->sent - h->down_at) {
		h->down = false;
		return -1;
	}
	return 0;
}

/* ---- failure, release and fail-back ---- */

struct sqr_fsm_cfg {
	u64 reconf_ns;		/* detection to release (TIMER) */
	u64 max_hold_ns;	/* give up on a release after this */
	u64 failback_ns;	/* keep diverting after recovery */
	u8 release;		/* enum sqr_release_mode */
	bool same_port;		/* the backup is the primary, reconfigured */
};

struct sqr_fsm {
	u8 state;		/* enum sqr_state */
	u64 t_detect;		/* this failure was detected */
	u64 t_release;		/* TIMER: release due */
	u64 t_failback;		/* FAILBACK: diverting until */
};

/* What the caller must do after an event or a step */
enum {
	SQR_A_COMMIT	= 1 << 0,	/* move the ring's copies to the fail queue */
	SQR_A_XMIT	= 1 << 1,	/* send the fail queue on the backup */
	SQR_A_GIVE_UP	= 1 << 2,	/* drop the fail queue: no path in time */
};

/* Enter FAILED at @now: the release is due reconf later (TIMER) or now */
static inline void sqr_fsm_fail(struct sqr_fsm *f, const struct sqr_fsm_cfg *c,
				u64 now)
{
	f->state = SQR_STATE_FAILED;
	f->t_detect = now;
	f->t_release = now + (c->release == SQR_RELEASE_TIMER ? c->reconf_ns : 0);
}

/* The primary link was seen down at @now.  A new failure commits the
 * ring; during a release to the same port the release stops again
 * (nothing may go out of a dead port).
 */
static inline u32 sqr_fsm_down(struct sqr_fsm *f, const struct sqr_fsm_cfg *c,
			       u64 now)
{
	switch (f->state) {
	case SQR_STATE_UP:
	case SQR_STATE_FAILBACK:
		sqr_fsm_fail(f, c, now);
		return SQR_A_COMMIT;
	case SQR_STATE_RELEASING:
		if (c->same_port)
			sqr_fsm_fail(f, c, now);
		return 0;
	default:
		return 0;
	}
}

/* Is there a way out for the fail queue?  @primary_ok and @backup_ok: the
 * two devices are up (the same one for a same-port backup).  A backup
 * device that is down or gone leaves the primary, once it is back.
 */
static inline bool sqr_fsm_path_ok(const struct sqr_fsm_cfg *c,
				   bool primary_ok, bool backup_ok)
{
	return c->same_port ? primary_ok : backup_ok || primary_ok;
}

/* Can the fail queue go out now? */
static inline bool sqr_fsm_release_due(const struct sqr_fsm *f,
				       const struct sqr_fsm_cfg *c, u64 now,
				       bool primary_ok, bool backup_ok)
{
	if (!sqr_fsm_path_ok(c, primary_ok, backup_ok))
		return false;	/* never release into a dead link */
	if (c->release == SQR_RELEASE_TIMER)
		return now >= f->t_release;
	return true;
}

/* Advance the state at @now; returns SQR_A_* and sets *@next to when the
 * next step is due (0: only on an event).
 */
static inline u32 sqr_fsm_step(struct sqr_fsm *f, const struct sqr_fsm_cfg *c,
			       u64 now, bool primary_ok, bool backup_ok,
			       bool failq_empty, u64 *next)
{
	*next = 0;
	switch (f->state) {
	case SQR_STATE_FAILED:
		if (sqr_fsm_release_due(f, c, now, primary_ok, backup_ok)) {
			f->state = SQR_STATE_RELEASING;
			return SQR_A_XMIT | sqr_fsm_step(f, c, now, primary_ok,
							 backup_ok, failq_empty,
							 next);
		}
		if (now - f->t_detect >= c->max_hold_ns) {
			/* No way out in time: what is held is stale.  Start
			 * a new window for what comes next.
			 */
			f->t_detect = now;
			f->t_release = now;
			*next = now + c->max_hold_ns;
			return SQR_A_GIVE_UP;
		}
		*next = f->t_detect + c->max_hold_ns;
		if (c->release == SQR_RELEASE_TIMER && now < f->t_release &&
		    f->t_release < *next)
			*next = f->t_release;
		return 0;
	case SQR_STATE_RELEASING:
		if (!sqr_fsm_path_ok(c, primary_ok, backup_ok)) {
			/* the way out died too: hold again, max_hold anew */
			sqr_fsm_fail(f, c, now);
			return sqr_fsm_step(f, c, now, primary_ok, backup_ok,
					    failq_empty, next);
		}
		if (!failq_empty || !primary_ok)
			return 0;	/* the backup carries on */
		if (c->failback_ns) {
			f->state = SQR_STATE_FAILBACK;
			f->t_failback = now + c->failback_ns;
			*next = f->t_failback;
			return 0;
		}
		f->state = SQR_STATE_UP;
		return 0;
	case SQR_STATE_FAILBACK:
		if (now < f->t_failback) {
			*next = f->t_failback;
			return 0;
		}
		if (failq_empty)	/* else the drain is the next event */
			f->state = SQR_STATE_UP;
		return 0;
	default:
		return 0;
	}
}

/* New packets go to the fail queue, behind the committed copies */
static inline bool sqr_fsm_diverting(const struct sqr_fsm *f)
{
	return f->state != SQR_STATE_UP;
}

/* ---- the fault injector ---- */

/* Outage k (0 <= k < count, count 0 = forever) starts at
 * start + offset + k * period, is "detected" detect_ns later if that is
 * no later than its end (an outage as long as the detection bound is still
 * found, at its last moment; a longer bound misses it, as a detector
 * slower than the outage would), and ends len_ns after its start.
 */
struct sqr_fault_cfg {
	u64 offset_ns;
	u64 period_ns;		/* > len_ns; 0: a single outage */
	u64 len_ns;		/* > 0 */
	u64 detect_ns;
	u32 count;
};

enum sqr_fault_ev {
	SQR_F_ONSET,
	SQR_F_DETECT,
	SQR_F_END,
	SQR_F_SKIP,		/* no detection in this outage: go on */
	SQR_F_NONE,		/* all outages are over */
};

/* Event @e of the cycle that started at @start: outage e / 3, step e % 3
 * (onset, detection, end), in time order; its time in *@at.  The caller
 * walks e = 0, 1, 2, ... so equal times keep their order.
 */
static inline enum sqr_fault_ev sqr_fault_event(const struct sqr_fault_cfg *c,
						u64 start, u64 e, u64 *at)
{
	u64 k = shoal_div64(e, 3), base;

	if ((c->count && k >= c->count) || (!c->period_ns && k))
		return SQR_F_NONE;
	base = start + c->offset_ns + k * c->period_ns;
	switch (e - 3 * k) {
	case 0:
		*at = base;
		return SQR_F_ONSET;
	case 1:
		if (c->detect_ns > c->len_ns)
			return SQR_F_SKIP;
		*at = base + c->detect_ns;
		return SQR_F_DETECT;
	default:
		*at = base + c->len_ns;
		return SQR_F_END;
	}
}

/* Is @now inside an outage (a packet sent now is lost on the wire)? */
static inline bool sqr_fault_blackout(const struct sqr_fault_cfg *c, u64 start,
				      u64 now)
{
	u64 t0 = start + c->offset_ns, k = 0;

	if (now < t0)
		return false;
	if (c->period_ns)
		k = shoal_div64(now - t0, c->period_ns);
	if (c->count && k >= c->count)
		return false;
	return now - (t0 + k * c->period_ns) < c->len_ns;
}

#endif /* _SHOAL_SQR_CORE_H */
