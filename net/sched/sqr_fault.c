// SPDX-License-Identifier: GPL-2.0
/*
 * sch_sqr's fault injector: outages of the primary on a schedule
 * (fault_len, fault_period, fault_count, fault_offset), each found
 * fault_detect after its onset, as the paper's profiles are.  During an
 * outage the dequeue loses what it takes from the child "on the wire";
 * at detection the link fails over (sqr_fail() in sqr_ring.c) with the
 * onset known, and each loss is counted exactly: in lost, or on the copy
 * that will make up for it.  The schedule is sqr_core.h's
 * (sqr_fault_event(), sqr_fault_blackout()).
 *
 * Locking: everything here runs under the instance's lock: from the
 * dequeue (BH context), from the timer (softirq context), and
 * sqr_fault_restart() from change (process context, BH off).
 */

#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "sch_sqr.h"

/* Run the injector's events due by @now, in order: from the timer, and
 * from dequeue, so that a detection is on time whenever packets flow
 * (timers on a busy host fire late); @pending as for sqr_fail()
 */
void sqr_fault_run(struct Qdisc *sch, u64 now, struct sk_buff **pending)
{
	struct sqr_sched_data *q = qdisc_priv(sch);
	enum sqr_fault_ev ev;
	u64 at;

	for (;;) {
		ev = sqr_fault_event(&q->set.fault, q->fault_start, q->fault_e,
				     &at);
		if (ev == SQR_F_NONE || (ev != SQR_F_SKIP && at > now))
			return;
		q->fault_e++;
		if (ev == SQR_F_ONSET) {
			q->fault_onset = at;
			q->st.fault_outages++;
		} else if (ev == SQR_F_DETECT) {
			q->fault_down = true;
			sqr_fail(sch, now, SQR_BY_VERDICT, q->fault_onset,
				 q->set.guard_ns, pending);
		} else if (ev == SQR_F_END) {
			q->fault_down = false;
		}
	}
}

/* From dequeue at @now, the injector on: true if the packet just taken
 * out is lost on the wire (the caller frees it), counted here; @copy is
 * the copy kept of it, or NULL
 */
bool sqr_fault_lost(struct sqr_sched_data *q, struct sqr_rec *copy, u64 now)
{
	/* by the clock, not by the timer: its events run late by up to
	 * a softirq's latency, the outage starts on time
	 */
	if (!sqr_fault_blackout(&q->set.fault, q->fault_start, now))
		return false;
	/* lost on the wire; the copy kept of it, if any, makes up for it */
	if (copy)
		copy->wire_lost = 1;
	else
		q->st.lost++;
	q->st.fault_drops++;
	return true;
}

/* Under the lock, from a change of a fault_* option: the injector starts
 * over from this change
 */
void sqr_fault_restart(struct sqr_sched_data *q)
{
	q->fault_start = ktime_get_ns();
	q->fault_e = 0;
	q->fault_down = false;
}
