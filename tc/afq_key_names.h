/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of enum afq_flow_key, for afq's flow_key and calq's fq rank,
 * which take the same keys.
 */
#ifndef _TC_AFQ_KEY_NAMES_H
#define _TC_AFQ_KEY_NAMES_H

#include <linux/pkt_sched_shoal.h>

static const char * const flow_key_names[__AFQ_KEY_MAX] = {
	[AFQ_KEY_FLOW]		= "flow",
	[AFQ_KEY_HOSTS]		= "hosts",
	[AFQ_KEY_SRC]		= "src",
	[AFQ_KEY_DST]		= "dst",
	[AFQ_KEY_MARK]		= "mark",
	[AFQ_KEY_PRIO]		= "prio",
	[AFQ_KEY_SHOAL_MSG]	= "shoal_msg",
};

#endif /* _TC_AFQ_KEY_NAMES_H */
