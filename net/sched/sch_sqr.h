/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_sqr's private header: the state of one instance, and the face of
 * the lower layer (sqr_ring.c: the ring, the held packets, the timer's
 * arming, failing over and diverting) to the files above it: the
 * heartbeat (sqr_hb.c), the guard (sqr_guard.c) and the fault injector
 * (sqr_fault.c), which call it, and the qdisc (sch_sqr_main.c), which
 * calls them all.  The algorithm core under all of them is sqr_core.h.
 *
 * Locking: sqr is always the root qdisc, and everything in struct
 * sqr_sched_data is read and written under its lock, qdisc_lock(sch),
 * except: set and backup are written under RTNL and the lock, so either
 * holder may read them; node is guarded by sqr_list_lock (sch_sqr_main.c);
 * hb_id and sch are written once, at init.  The inline helpers here run
 * under the lock, in whichever context their caller does.
 */
#ifndef _NET_SCHED_SCH_SQR_H
#define _NET_SCHED_SCH_SQR_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>
#include <linux/pkt_sched_shoal.h>

#include "sqr_core.h"

struct sqr_settings {
	u64 hold_ns;		/* 0: no copies, a plain pass-through */
	u64 poll_ns;
	u64 guard_ns;
	u32 ring_bytes;
	u32 ring_pkts;
	u32 copy_max;
	u64 hb_ns;		/* heartbeat interval; 0: none */
	u32 hb_miss;
	u32 backup_ifindex;	/* 0: the same port */
	u32 detect;		/* SQR_DETECT_* */
	u8 dmac[ETH_ALEN];
	u8 divert;
	struct sqr_match match;
	struct sqr_fsm_cfg fsm;
	struct sqr_fault_cfg fault;	/* len_ns 0: injector off */
};

struct sqr_sched_data {
	struct sqr_settings set;
	struct Qdisc *sch;
	struct Qdisc *child;
	u8 *buf;			/* the copy buffer */
	struct sqr_buf ring;		/* the copies in it, oldest first */
	u32 committed;			/* 0, or all the ring: to resend */
	struct sk_buff_head failq;	/* diverted, behind those */
	u64 ring_bytes;			/* of the packets copied */
	u64 ring_mem;			/* records' size, clones' truesize */
	struct sqr_fsm fsm;
	struct net_device *backup;	/* NULL: same port, or it went away */
	netdevice_tracker backup_tracker;
	struct hrtimer timer;		/* expiry, poll, release, injector */
	u64 timer_at;			/* when it is armed for; 0: not */
	u64 seen_up;			/* the last dequeue found the link up */
	u64 poll_up;			/* ... and the timer's last read */
	struct sqr_win win_link;	/* copies expired since either */
	bool forced_down;		/* TCA_SQR_FORCE down in force */
	/* the fault injector */
	u64 fault_start;		/* the change that armed it */
	u64 fault_e;			/* next event, see sqr_fault_event() */
	u64 fault_onset;		/* start of the outage under way */
	bool fault_down;		/* ... and it has been detected */
	/* heartbeats */
	struct sqr_hb hb;		/* probes sent and answered */
	u32 hb_id;			/* ours, in every probe */
	u64 hb_next;			/* when the next probe is due */
	u64 hb_good;			/* the newest answered probe was sent */
	struct sqr_win win_hb;		/* copies expired since */
	struct list_head node;		/* in sqr_instances */
	struct tc_sqr_xstats st;
};

/* A copy in the ring: a record in the buffer with the frame after it, or
 * with a clone of the original for what a copy cannot carry
 */
struct sqr_rec {
	u64 tx_ns;		/* when the original was sent */
	struct sk_buff *clone;	/* NULL: the frame follows */
	u32 size;		/* bytes in the buffer, this header included */
	u32 pkt_len;		/* qdisc_pkt_len(), for the byte counts */
	u32 mark;
	u32 priority;
	u16 len;		/* the frame's bytes */
	__be16 protocol;
	u16 queue_mapping;
	u16 network_off;	/* offsets from the frame's start */
	u16 transport_off;	/* SQR_NO_OFF: not set */
	u16 csum_start;		/* CHECKSUM_PARTIAL: where the sum starts */
	u16 csum_offset;
	u8 ip_summed;		/* CHECKSUM_PARTIAL or CHECKSUM_NONE */
	u8 wire_lost;		/* the injector dropped its original */
};

#define SQR_NO_OFF	0xffff

/* What a held skb carries in its qdisc cb */
struct sqr_cb {
	u8 copy;		/* a copy, not a diverted original */
};

static inline struct sqr_cb *sqr_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct sqr_cb));
	return (struct sqr_cb *)qdisc_skb_cb(skb)->data;
}

/* ---- the ring and what a failure holds ---- */

static inline struct sqr_rec *sqr_oldest(const struct sqr_sched_data *q)
{
	return q->ring.count ? (struct sqr_rec *)(q->buf + q->ring.tail) : NULL;
}

/* When the carrier was last read up, by a dequeue or the timer */
static inline u64 sqr_link_good(const struct sqr_sched_data *q)
{
	return max(q->seen_up, q->poll_up);
}

/* What left before the newest answered probe, less this, got through: a
 * probe skips the queues, and data still in another TX ring may cross
 * the link after it
 */
static inline u64 sqr_hb_guard(const struct sqr_sched_data *q)
{
	return q->set.guard_ns + q->set.hb_ns;
}

static inline bool sqr_held_empty(const struct sqr_sched_data *q)
{
	return !q->committed && skb_queue_empty(&q->failq);
}

/* ---- link state ---- */

static inline bool sqr_dev_ok(const struct net_device *dev)
{
	return dev && netif_running(dev) && netif_carrier_ok(dev) &&
	       netif_device_present(dev);
}

static inline bool sqr_same_port(const struct sqr_sched_data *q)
{
	return !q->set.backup_ifindex;
}

static inline bool sqr_primary_ok(const struct sqr_sched_data *q)
{
	return !q->forced_down && !q->fault_down && !q->hb.down &&
	       sqr_dev_ok(qdisc_dev(q->sch));
}

/* Found down, by a verdict (forced, injected, heartbeat), which always
 * counts, or by the carrier, with detect carrier
 */
static inline bool sqr_primary_down(const struct sqr_sched_data *q)
{
	if (q->forced_down || q->fault_down || q->hb.down)
		return true;
	return (q->set.detect & SQR_DETECT_CARRIER) &&
	       !sqr_dev_ok(qdisc_dev(q->sch));
}

/* Who found a failure: the carrier or a device event, the heartbeat, or
 * a verdict that brings its own account (the injector counts its losses
 * exactly, an external detector knows its own bound)
 */
enum sqr_by {
	SQR_BY_LINK,
	SQR_BY_HB,
	SQR_BY_VERDICT,
};

/* Who found the primary down, sqr_primary_down() being true */
static inline enum sqr_by sqr_down_by(const struct sqr_sched_data *q)
{
	if (q->hb.down)
		return SQR_BY_HB;
	return q->forced_down || q->fault_down ? SQR_BY_VERDICT : SQR_BY_LINK;
}

static inline bool sqr_backup_ok(const struct sqr_sched_data *q)
{
	return sqr_same_port(q) ? sqr_primary_ok(q) : sqr_dev_ok(q->backup);
}

/* The fail queue leaves through our own dequeue, on the primary: for the
 * same port, and when the backup device is down or gone (the state
 * machine releases only once the primary is back then)
 */
static inline bool sqr_release_here(const struct sqr_sched_data *q)
{
	return sqr_same_port(q) || !sqr_dev_ok(q->backup);
}

/* Held packets may leave now (RELEASING or FAILBACK) */
static inline bool sqr_releasing(const struct sqr_sched_data *q)
{
	return q->fsm.state == SQR_STATE_RELEASING ||
	       q->fsm.state == SQR_STATE_FAILBACK;
}

/* ---- sqr_ring.c: the lower layer ---- */

extern const struct kernel_param_ops sqr_count_ops;

void sqr_free_held(struct sk_buff_head *list);
void sqr_ring_trim(struct sqr_sched_data *q, u32 size);
u8 *sqr_ring_move(struct sqr_sched_data *q, u8 *buf, u32 size);
void sqr_expire(struct sqr_sched_data *q, u64 now);
struct sqr_rec *sqr_keep_copy(struct sqr_sched_data *q, struct sk_buff *skb,
			      u64 now);
struct sk_buff *sqr_release_one(struct sqr_sched_data *q);
void sqr_uncommit_all(struct sqr_sched_data *q);
void sqr_give_up(struct sqr_sched_data *q);
void sqr_arm_at(struct sqr_sched_data *q, u64 at);
void sqr_arm(struct sqr_sched_data *q, u64 now, u64 next);
void sqr_arm_busy(struct sqr_sched_data *q, u64 now);
void sqr_fail(struct Qdisc *sch, u64 now, enum sqr_by by, u64 onset,
	      u64 guard, struct sk_buff **pending);
bool sqr_divert(struct sqr_sched_data *q, struct sk_buff *skb);

/* ---- above it: sqr_hb.c, sqr_guard.c, sqr_fault.c ---- */

bool sqr_hb_tick(struct Qdisc *sch, u64 now, u32 *seq);
void sqr_hb_probe(struct Qdisc *sch, u32 seq, u64 now);
void sqr_hb_restart(struct sqr_sched_data *q);
void sqr_hb_listen(const struct Qdisc_ops *ops);
void sqr_hb_unlisten(void);

int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack);
void sqr_guard_del(struct Qdisc *sch);
void sqr_guard_setup(const struct Qdisc_ops *ops);
void sqr_guard_forget(struct net_device *dev);
void sqr_guard_forget_all(void);

void sqr_fault_run(struct Qdisc *sch, u64 now, struct sk_buff **pending);
bool sqr_fault_lost(struct sqr_sched_data *q, struct sqr_rec *copy, u64 now);
void sqr_fault_restart(struct sqr_sched_data *q);

#endif /* _NET_SCHED_SCH_SQR_H */
