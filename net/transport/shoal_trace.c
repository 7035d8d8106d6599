// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: its tracepoints made (shoal_trace.h says which they are).
 *
 * Locking: none; a tracepoint is called where its counter is taken.
 */
#include "shoal_impl.h"

#define CREATE_TRACE_POINTS
#include "shoal_trace.h"

/* Out of line, so that shoal_stat_inc() (shoal_impl.h, which every file
 * of the module includes) needs no tracepoint declarations
 */
void shoal_trace_rx_drop(enum shoal_stat s)
{
	trace_shoal_rx_drop(shoal_stat_name(s));
}

/* A packet the parser refused, counted in rx_drop_<its reason> */
void shoal_trace_rx_bad(int reason)
{
	char name[48];

	if (!trace_shoal_rx_drop_enabled())
		return;
	snprintf(name, sizeof(name), "rx_drop_%s",
		 shoal_wire_reason_name(reason));
	trace_shoal_rx_drop(name);
}
