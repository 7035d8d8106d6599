/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_trim's tracepoints (tracefs events/sch_trim/), each beside the
 * counters it can be checked against (Documentation/observing.md,
 * "Tracepoints").  They fire under the qdisc root lock.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_trim

#if !defined(_TRIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRIM_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>

/* A packet cut @cut bytes shorter, @len now, and queued as a header
 * (@cut 0: too short to trim, queued whole): one for each trim_arrival
 * and trim_tail but a trim_err, @cut summing to trimmed_bytes
 */
TRACE_EVENT(trim_packet,
	    TP_PROTO(const struct Qdisc *sch, unsigned int len, int cut),
	    TP_ARGS(sch, len, cut),
	    TP_STRUCT__entry(__string(dev, qdisc_dev(sch)->name)
			     __field(u32, handle)
			     __field(unsigned int, len)
			     __field(int, cut)),
	    TP_fast_assign(__assign_str(dev, qdisc_dev(sch)->name);
			   __entry->handle = sch->handle;
			   __entry->len = len;
			   __entry->cut = cut;),
	    TP_printk("dev %s handle %x: len %u cut %d", __get_str(dev),
		      __entry->handle >> 16, __entry->len, __entry->cut)
);

/* A header with no room returned to its sender (bounced; @shoal, a
 * Shoal packet: bounced_shoal)
 */
TRACE_EVENT(trim_bounce,
	    TP_PROTO(const struct Qdisc *sch, unsigned int len, bool shoal),
	    TP_ARGS(sch, len, shoal),
	    TP_STRUCT__entry(__string(dev, qdisc_dev(sch)->name)
			     __field(u32, handle)
			     __field(unsigned int, len)
			     __field(u8, shoal)),
	    TP_fast_assign(__assign_str(dev, qdisc_dev(sch)->name);
			   __entry->handle = sch->handle;
			   __entry->len = len;
			   __entry->shoal = shoal;),
	    TP_printk("dev %s handle %x: len %u%s", __get_str(dev),
		      __entry->handle >> 16, __entry->len,
		      __entry->shoal ? " shoal" : "")
);

#endif /* _TRIM_TRACE_H */

/* this part must be outside the guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trim_trace
#include <trace/define_trace.h>
