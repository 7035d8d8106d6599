/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_afq's tracepoint (tracefs events/sch_afq/), beside the counter it
 * can be checked against (Documentation/observing.md, "Tracepoints").  It
 * fires under the qdisc root lock.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_afq

#if !defined(_AFQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AFQ_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>

/* A packet of the furthest round dropped for an arrival of round @round
 * (pushout_drops)
 */
TRACE_EVENT(afq_pushout,
	    TP_PROTO(const struct Qdisc *sch, unsigned int len, u64 round),
	    TP_ARGS(sch, len, round),
	    TP_STRUCT__entry(__string(dev, qdisc_dev(sch)->name)
			     __field(u64, round)
			     __field(u32, handle)
			     __field(unsigned int, len)),
	    TP_fast_assign(__assign_str(dev, qdisc_dev(sch)->name);
			   __entry->round = round;
			   __entry->handle = sch->handle;
			   __entry->len = len;),
	    TP_printk("dev %s handle %x: len %u for round %llu",
		      __get_str(dev), __entry->handle >> 16, __entry->len,
		      __entry->round)
);

#endif /* _AFQ_TRACE_H */

/* this part must be outside the guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE afq_trace
#include <trace/define_trace.h>
