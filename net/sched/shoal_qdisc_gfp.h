/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the Shoal qdiscs allocate the tables a configuration sizes (sqr's
 * ring, afq's sketch, flow table and queues, calq's buckets and sketch;
 * kernel only): charged to the memory cgroup of whoever asked for them
 * (an unprivileged user's namespace may), and refused with ENOMEM, not
 * an OOM kill, when that cgroup or the machine has no room.
 */
#ifndef _SHOAL_QDISC_GFP_H
#define _SHOAL_QDISC_GFP_H

#include <linux/gfp.h>

#define SHOAL_QDISC_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
			 __GFP_NOWARN)

#endif
