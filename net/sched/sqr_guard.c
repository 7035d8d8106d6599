// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr's guard: packets routed to the detached port.  On carrier loss
 * linkwatch detaches the port (noop_qdisc in our place) before the FIB
 * hears of it; a netfilter egress hook on the port takes what is routed
 * there meanwhile behind the held packets (sqr_divert() in sqr_ring.c),
 * as sqr's own enqueue would on a failure.  Without CONFIG_NETFILTER_EGRESS
 * there is no guard (documented in Documentation/sch_sqr.md).
 *
 * One hook per port, registered by the first sqr created as its root (in
 * init, before the graft) and kept until the port goes away or the
 * module does; it finds the instance to guard as the port's sleeping
 * qdisc.  Registering and removing a hook
 * flips the kernel's egress static keys, which rewrites code on every
 * CPU: a hook per instance did that at every replace of sqr, and replaces
 * in a loop under traffic locked up a QEMU TCG guest (a CPU looping at
 * the rewritten branch in __dev_queue_xmit(), found by
 * scenario/qdisc-nlfuzz).  A port that no longer has sqr pays one check
 * of its queue's qdisc a packet.
 *
 * Locking: the list of hooks, and registering and removing them, are
 * under RTNL (registering may sleep); a removed hook's record is freed
 * after a grace period, and module exit waits one.  The hook runs in
 * __dev_queue_xmit(), BH off, under RCU, before any qdisc.  It returns at
 * once unless linkwatch has the port detached with an sqr asleep as its
 * root; then it takes that instance's lock, as our enqueue would be
 * taken, and holds the packet.  dev_queue_xmit() on the port is never
 * called under the lock, so the hook never finds it taken by its own
 * CPU.  Destroy waits a grace period (sqr_guard_del()) before it frees
 * what the hook uses: by destroy the instance is no longer the port's
 * sleeping qdisc, so a hook that still saw it started before.
 */

#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "sch_sqr.h"

#if IS_ENABLED(CONFIG_NETFILTER_EGRESS)
struct sqr_guard {
	struct list_head node;		/* in sqr_guards */
	struct nf_hook_ops ops;		/* .priv, .dev: the port */
	struct rcu_head rcu;
};

static LIST_HEAD(sqr_guards);		/* under RTNL */
static const struct Qdisc_ops *sqr_guard_qdisc_ops;	/* sqr's, set at load */

/* The port's netfilter egress hook, from __dev_queue_xmit() before the
 * qdisc, BH off, under RCU.  Linkwatch detaches the port on carrier loss
 * (noop_qdisc in our place) before the FIB hears of it: a packet routed
 * here meanwhile would be dropped before any qdisc saw it.  While an sqr
 * is the detached root, it takes such a packet behind the held ones, as
 * its enqueue would on a failure.  Attached, or another qdisc asleep
 * there, the packet goes on to the qdisc in place.
 */
static unsigned int sqr_guard_hook(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct netdev_queue *txq = netdev_get_tx_queue(priv, 0);
	unsigned int verdict = NF_ACCEPT;
	struct sqr_sched_data *q;
	struct Qdisc *sch;

	if (likely(rcu_access_pointer(txq->qdisc) != &noop_qdisc))
		return NF_ACCEPT;
	sch = rcu_dereference_bh(txq->qdisc_sleeping);
	if (sch->ops != sqr_guard_qdisc_ops)
		return NF_ACCEPT;
	q = qdisc_priv(sch);
	spin_lock(qdisc_lock(sch));
	if (q->set.hold_ns && q->set.divert) {
		/* before our own reset, the dequeue or the timer find it */
		if (q->fsm.state == SQR_STATE_UP && sqr_primary_down(q))
			sqr_fail(sch, ktime_get_ns(), sqr_down_by(q), 0, 0,
				 NULL);
		if (sqr_fsm_diverting(&q->fsm)) {
			if (sqr_divert(q, skb)) {
				q->st.guarded++;
				verdict = NF_STOLEN;
			} else {
				qdisc_qstats_drop(sch);
				verdict = NF_DROP;
			}
		}
	}
	spin_unlock(qdisc_lock(sch));
	return verdict;
}

static struct sqr_guard *sqr_guard_find(const struct net_device *dev)
{
	struct sqr_guard *g;

	list_for_each_entry(g, &sqr_guards, node)
		if (g->ops.dev == dev)
			return g;
	return NULL;
}

/* From init, under RTNL: the port's hook, unless it has one already */
int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct net_device *dev = qdisc_dev(sch);
	struct sqr_guard *g;
	int err;

	ASSERT_RTNL();
	if (sqr_guard_find(dev))
		return 0;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		NL_SET_ERR_MSG(extack, "sqr: no memory for the port's egress guard");
		return -ENOMEM;
	}
	g->ops = (struct nf_hook_ops){
		.hook		= sqr_guard_hook,
		.priv		= dev,
		.dev		= dev,
		.pf		= NFPROTO_NETDEV,
		.hooknum	= NF_NETDEV_EGRESS,
		.priority	= INT_MAX,	/* after the user's filters */
	};
	err = nf_register_net_hook(dev_net(dev), &g->ops);
	if (err) {
		kfree(g);
		NL_SET_ERR_MSG(extack,
			       "sqr: cannot hook the port's egress to guard it while detached");
		return err;
	}
	list_add(&g->node, &sqr_guards);
	return 0;
}

/* From destroy, under RTNL: a hook that saw this instance asleep on the
 * port may still be using it; wait for it before the rest of destroy
 * frees what it uses.  The hook stays for the port's next sqr.
 */
void sqr_guard_del(struct Qdisc *sch)
{
	synchronize_net();
}

/* A hook still running uses the port, not @g: @g waits only for the
 * readers of the hook table that named it
 */
static void sqr_guard_free(struct sqr_guard *g)
{
	nf_unregister_net_hook(dev_net(g->ops.dev), &g->ops);
	list_del(&g->node);
	kfree_rcu(g, rcu);
}

/* Under RTNL, from NETDEV_UNREGISTER: the port goes, and its hook */
void sqr_guard_forget(struct net_device *dev)
{
	struct sqr_guard *g = sqr_guard_find(dev);

	if (g)
		sqr_guard_free(g);
}

/* At load, before the first instance: the ops the hook looks for */
void sqr_guard_setup(const struct Qdisc_ops *ops)
{
	sqr_guard_qdisc_ops = ops;
}

/* At module exit, before the device notifier goes; then no hook runs
 * our code any more
 */
void sqr_guard_forget_all(void)
{
	struct sqr_guard *g, *next;

	rtnl_lock();
	list_for_each_entry_safe(g, next, &sqr_guards, node)
		sqr_guard_free(g);
	rtnl_unlock();
	synchronize_net();
}
#else
int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	return 0;	/* no egress hook in this kernel: documented */
}

void sqr_guard_del(struct Qdisc *sch)
{
}

void sqr_guard_forget(struct net_device *dev)
{
}

void sqr_guard_setup(const struct Qdisc_ops *ops)
{
}

void sqr_guard_forget_all(void)
{
}
#endif
