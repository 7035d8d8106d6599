// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr's guard: packets routed to the detached port.  On carrier loss
 * linkwatch detaches the port (noop_qdisc in our place) before the FIB
 * hears of it; a netfilter egress hook on the port takes what is routed
 * there meanwhile behind the held packets (sqr_divert() in sqr_ring.c),
 * as sqr's own enqueue would on a failure.  Without CONFIG_NETFILTER_EGRESS
 * there is no guard (documented in Documentation/sch_sqr.md).
 *
 * Locking: the hook is registered in init and removed in destroy, both
 * under RTNL (registering may sleep); removal then waits a grace period
 * before destroy frees what the hook uses.  The hook runs in
 * __dev_queue_xmit(), BH off, under RCU, before any qdisc.  It returns at
 * once unless linkwatch has the port detached with sqr asleep as its
 * root; then it takes the instance's lock, as our enqueue would be taken,
 * and holds the packet.  dev_queue_xmit() on the port is never called
 * under the lock, so the hook never finds it taken by its own CPU.
 */

#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "sch_sqr.h"

#if IS_ENABLED(CONFIG_NETFILTER_EGRESS)
/* The port's netfilter egress hook, from __dev_queue_xmit() before the
 * qdisc, BH off, under RCU.  Linkwatch detaches the port on carrier loss
 * (noop_qdisc in our place) before the FIB hears of it: a packet routed
 * here meanwhile would be dropped before any qdisc saw it.  While sqr is
 * the detached root, it takes such a packet behind the held ones, as its
 * enqueue would on a failure.  Attached, or replaced by another qdisc,
 * the packet goes on to the qdisc in place.
 */
static unsigned int sqr_guard_hook(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct Qdisc *sch = priv;
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct netdev_queue *txq = netdev_get_tx_queue(qdisc_dev(sch), 0);
	unsigned int verdict = NF_ACCEPT;

	if (likely(rcu_access_pointer(txq->qdisc) != &noop_qdisc) ||
	    READ_ONCE(txq->qdisc_sleeping) != sch)
		return NF_ACCEPT;
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

/* Registering may sleep: from init, under RTNL */
int sqr_guard_add(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	int err;

	q->guard = (struct nf_hook_ops){
		.hook		= sqr_guard_hook,
		.priv		= sch,
		.dev		= dev,
		.pf		= NFPROTO_NETDEV,
		.hooknum	= NF_NETDEV_EGRESS,
		.priority	= INT_MAX,	/* after the user's filters */
	};
	err = nf_register_net_hook(dev_net(dev), &q->guard);
	if (err) {
		q->guard.hook = NULL;
		NL_SET_ERR_MSG(extack,
			       "sqr: cannot hook the port's egress to guard it while detached");
	}
	return err;
}

/* A hook running still may use the qdisc: wait for it, before the rest
 * of destroy frees what it uses
 */
void sqr_guard_del(struct Qdisc *sch)
{
	struct sqr_sched_data *q = qdisc_priv(sch);

	if (!q->guard.hook)
		return;
	nf_unregister_net_hook(dev_net(qdisc_dev(sch)), &q->guard);
	q->guard.hook = NULL;
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
#endif
