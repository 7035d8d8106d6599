/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_sqr's tracepoints (tracefs events/sch_sqr/), each beside the
 * counters it can be checked against (Documentation/observing.md,
 * "Tracepoints").  They fire under the qdisc root lock or in its timer.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_sqr

#if !defined(_SQR_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SQR_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>

#include "sch_sqr.h"

TRACE_DEFINE_ENUM(SQR_BY_LINK);
TRACE_DEFINE_ENUM(SQR_BY_HB);
TRACE_DEFINE_ENUM(SQR_BY_VERDICT);

/* The link was found down @by its carrier, heartbeats or a verdict, with
 * @committed copies to go again, @latency_ns after it failed (0: not
 * known): failures, committed
 */
TRACE_EVENT(sqr_failover,
	    TP_PROTO(const struct Qdisc *sch, enum sqr_by by, u32 committed,
		     u64 latency_ns),
	    TP_ARGS(sch, by, committed, latency_ns),
	    TP_STRUCT__entry(__string(dev, qdisc_dev(sch)->name)
			     __field(u64, latency_ns)
			     __field(u32, handle)
			     __field(u32, committed)
			     __field(int, by)),
	    TP_fast_assign(__assign_str(dev, qdisc_dev(sch)->name);
			   __entry->latency_ns = latency_ns;
			   __entry->handle = sch->handle;
			   __entry->committed = committed;
			   __entry->by = by;),
	    TP_printk("dev %s handle %x: down by %s, %u copies, %llu ns after",
		      __get_str(dev), __entry->handle >> 16,
		      __print_symbolic(__entry->by, { SQR_BY_LINK, "link" },
				       { SQR_BY_HB, "heartbeat" },
				       { SQR_BY_VERDICT, "verdict" }),
		      __entry->committed, __entry->latency_ns)
);

/* A held packet handed on while the link is down: a committed copy sent
 * again (@copy: resent) or a packet diverted (diverted)
 */
TRACE_EVENT(sqr_resend,
	    TP_PROTO(const struct Qdisc *sch, unsigned int len, bool copy),
	    TP_ARGS(sch, len, copy),
	    TP_STRUCT__entry(__string(dev, qdisc_dev(sch)->name)
			     __field(u32, handle)
			     __field(unsigned int, len)
			     __field(u8, copy)),
	    TP_fast_assign(__assign_str(dev, qdisc_dev(sch)->name);
			   __entry->handle = sch->handle;
			   __entry->len = len;
			   __entry->copy = copy;),
	    TP_printk("dev %s handle %x: len %u %s", __get_str(dev),
		      __entry->handle >> 16, __entry->len,
		      __entry->copy ? "copy" : "diverted")
);

#endif /* _SQR_TRACE_H */

/* this part must be outside the guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sqr_trace
#include <trace/define_trace.h>
