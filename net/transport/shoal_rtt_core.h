/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long a namespace's peers take to answer, and the resend interval
 * that follows from it.
 *
 * Every keep-alive of shoal.ko (a sender's probes, a receiver's BUSYs and
 * RESENDs, the timeouts) counts resend intervals.  While answers take
 * longer than an interval (a host whose backlog holds seconds of
 * packets), each of those packets is redundant and adds to the backlog
 * that delays the answers: 2000 requests into one server of a 2-CPU
 * guest then took 31 packets each, the backlog held 300 MB and hundreds
 * of messages timed out.  So, as TCP's retransmission timer follows its
 * smoothed RTT, the interval is at least the smoothed delay from a probe
 * to the first answer after it (a message probes after two intervals of
 * silence), and at most SHOAL_IVAL_SCALE_MAX configured intervals.
 *
 * Only probes are timed: they are answered at once (BUSY or ACK), while
 * a message's first answer may wait for the receiver's own interval,
 * which would make the two ends' intervals stretch each other.  A
 * sample runs from a message's last probe, so it is never longer than
 * the delay of what the answer answers: probes lost in an outage do not
 * stretch the interval, and the answer to the first of several probes
 * reads short.  Under a steady backlog the samples, spread over the gap
 * between probes, still grow the interval until one probe goes per
 * answer: probes back off to every 8 intervals, and half of that is
 * more than one.
 *
 * Plain C, no kernel calls: the module and the unit tests build it.
 * Times are ticks of the caller's clock (jiffies).
 */
#ifndef _SHOAL_RTT_CORE_H
#define _SHOAL_RTT_CORE_H

#include <net/shoal/types.h>

/* the smoothed delay is kept times 8: each sample weighs 1/8, as TCP's */
#define SHOAL_RTT_SHIFT		3
/* the interval grows to at most this many configured intervals */
#define SHOAL_IVAL_SCALE_MAX	64

/* The smoothed delay times 8 after a sample of @sample ticks, for a
 * configured interval of @base ticks.  A sample counts as at most the
 * delay that gives the largest interval: one answer from a host stopped
 * for a minute must not hold the interval up for long.
 */
static inline u32 shoal_rtt_update(u32 srtt8, unsigned long sample,
				   unsigned long base)
{
	u64 most = (u64)base * SHOAL_IVAL_SCALE_MAX;
	u64 v;

	if (sample > most)
		sample = most;
	v = (u64)srtt8 - (srtt8 >> SHOAL_RTT_SHIFT) + sample;
	return v > 0xffffffffu ? 0xffffffffu : (u32)v;
}

/* The resend interval for configured interval @base (at least 1 tick) and
 * smoothed delay @srtt8: the delay, within [@base,
 * SHOAL_IVAL_SCALE_MAX x @base]
 */
static inline unsigned long shoal_ival_scaled(unsigned long base, u32 srtt8)
{
	unsigned long want = srtt8 >> SHOAL_RTT_SHIFT;

	if (want <= base)
		return base;
	if (want > base * SHOAL_IVAL_SCALE_MAX)
		return base * SHOAL_IVAL_SCALE_MAX;
	return want;
}

#endif /* _SHOAL_RTT_CORE_H */
