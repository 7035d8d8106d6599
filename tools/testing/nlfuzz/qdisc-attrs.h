/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdisc-nlfuzz: the attributes of each Shoal qdisc, with the width the
 * uapi header gives them, so that most of what the fuzzer sends is
 * well-formed enough to reach the qdisc's own checks.  A width of 0 for
 * a type above PAD means the table is behind the header: the fuzzer
 * refuses to run (table_complete()) instead of fuzzing half the options.
 */
#ifndef _QDISC_ATTRS_H
#define _QDISC_ATTRS_H

#include <linux/pkt_sched_shoal.h>

struct qdisc_kind {
	const char *name;
	int max;			/* TCA_<KIND>_MAX */
	const unsigned char *width;	/* bytes, by type; 0..max */
	int pad;			/* TCA_<KIND>_PAD */
	int ifindex_attr;		/* an attribute naming a device, or 0 */
};

static const unsigned char trim_width[TCA_TRIM_MAX + 1] = {
	[TCA_TRIM_LIMIT] = 4, [TCA_TRIM_LIMIT_BYTES] = 4,
	[TCA_TRIM_HDR_LIMIT] = 4, [TCA_TRIM_HDR_LIMIT_BYTES] = 4,
	[TCA_TRIM_KEEP] = 2, [TCA_TRIM_SCHED] = 1,
	[TCA_TRIM_HDR_WEIGHT] = 4, [TCA_TRIM_DATA_WEIGHT] = 4,
	[TCA_TRIM_TAIL_PROB] = 4, [TCA_TRIM_HDR_MODE] = 1,
	[TCA_TRIM_OVERFLOW] = 1, [TCA_TRIM_MARK_DSCP] = 1,
	[TCA_TRIM_MARK_OFFSET] = 2, [TCA_TRIM_MARK_MASK] = 1,
	[TCA_TRIM_CTRL_DSCP] = 8, [TCA_TRIM_ECN_THRESH] = 4,
	[TCA_TRIM_ELIG_DSCP] = 8, [TCA_TRIM_ELIG_PROTO] = 1,
	[TCA_TRIM_ELIG_PORT_MIN] = 2, [TCA_TRIM_ELIG_PORT_MAX] = 2,
	[TCA_TRIM_RATE] = 8, [TCA_TRIM_FLAGS] = 4,
	[TCA_TRIM_BOUNCE_MASK] = 1, [TCA_TRIM_SHOAL_PORT] = 2,
};

static const unsigned char afq_width[TCA_AFQ_MAX + 1] = {
	[TCA_AFQ_LIMIT] = 4, [TCA_AFQ_LIMIT_BYTES] = 4,
	[TCA_AFQ_NQUEUES] = 4, [TCA_AFQ_BPR] = 4, [TCA_AFQ_ROWS] = 4,
	[TCA_AFQ_COLS] = 4, [TCA_AFQ_ECN_ROUNDS] = 4,
	[TCA_AFQ_FLOW_KEY] = 1, [TCA_AFQ_OVERFLOW] = 1, [TCA_AFQ_EXACT] = 1,
	[TCA_AFQ_EXACT_FLOWS] = 4, [TCA_AFQ_SEED] = 4, [TCA_AFQ_RATE] = 8,
	[TCA_AFQ_SHOAL_PORT] = 2,
};

static const unsigned char calq_width[TCA_CALQ_MAX + 1] = {
	[TCA_CALQ_LIMIT] = 4, [TCA_CALQ_LIMIT_BYTES] = 4,
	[TCA_CALQ_BUCKETS] = 4, [TCA_CALQ_MODE] = 1,
	[TCA_CALQ_INTERVAL] = 8, [TCA_CALQ_RANK] = 1,
	[TCA_CALQ_FALLBACK] = 1, [TCA_CALQ_SHIFT] = 1,
	[TCA_CALQ_HORIZON] = 1, [TCA_CALQ_QUANTUM] = 4,
	[TCA_CALQ_ROWS] = 4, [TCA_CALQ_COLS] = 4, [TCA_CALQ_PORT] = 2,
	[TCA_CALQ_FLAGS] = 4, [TCA_CALQ_RATE] = 8,
	[TCA_CALQ_FLAGS_MASK] = 4, [TCA_CALQ_FLOW_KEY] = 1,
	[TCA_CALQ_ECN_THRESH] = 4,
};

static const unsigned char sqr_width[TCA_SQR_MAX + 1] = {
	[TCA_SQR_HOLD] = 4, [TCA_SQR_RING_BYTES] = 4,
	[TCA_SQR_RING_PKTS] = 4, [TCA_SQR_BACKUP] = 4,
	[TCA_SQR_BACKUP_DMAC] = 6, [TCA_SQR_RECONF] = 4,
	[TCA_SQR_RELEASE] = 1, [TCA_SQR_MAX_HOLD] = 4,
	[TCA_SQR_FAILBACK] = 4, [TCA_SQR_DIVERT] = 1, [TCA_SQR_DETECT] = 4,
	[TCA_SQR_POLL] = 4, [TCA_SQR_DEDUP_GUARD] = 4, [TCA_SQR_MATCH] = 4,
	[TCA_SQR_DSCP] = 1, [TCA_SQR_DSCP_MASK] = 1, [TCA_SQR_PROTO] = 1,
	[TCA_SQR_PORT_MIN] = 2, [TCA_SQR_PORT_MAX] = 2, [TCA_SQR_MARK] = 4,
	[TCA_SQR_MARK_MASK] = 4, [TCA_SQR_FORCE] = 1,
	[TCA_SQR_FAULT_LEN] = 4, [TCA_SQR_FAULT_PERIOD] = 4,
	[TCA_SQR_FAULT_DETECT] = 4, [TCA_SQR_FAULT_COUNT] = 4,
	[TCA_SQR_FAULT_OFFSET] = 4, [TCA_SQR_COPY_MAX] = 4,
	[TCA_SQR_HB_INTERVAL] = 4, [TCA_SQR_HB_MISS] = 4,
};

/* the domains are a struct tc_pl2_prefix each (20 bytes) */
static const unsigned char pl2_width[TCA_PL2_MAX + 1] = {
	[TCA_PL2_LIMIT] = 4, [TCA_PL2_FLOWS] = 4, [TCA_PL2_K] = 4,
	[TCA_PL2_RATE] = 8, [TCA_PL2_SLOT_NS] = 4,
	[TCA_PL2_RSV_TIMEOUT_US] = 4, [TCA_PL2_UNSOL] = 4,
	[TCA_PL2_SHOAL_PORT] = 2, [TCA_PL2_OUTSTANDING] = 4,
	[TCA_PL2_DOMAIN4] = sizeof(struct tc_pl2_prefix),
	[TCA_PL2_DOMAIN6] = sizeof(struct tc_pl2_prefix),
};

/* every kind is created at the root (pl2 can be nowhere else) */
static const struct qdisc_kind qdisc_kinds[] = {
	{ "trim", TCA_TRIM_MAX, trim_width, TCA_TRIM_PAD, 0 },
	{ "afq", TCA_AFQ_MAX, afq_width, TCA_AFQ_PAD, 0 },
	{ "calq", TCA_CALQ_MAX, calq_width, TCA_CALQ_PAD, 0 },
	{ "sqr", TCA_SQR_MAX, sqr_width, TCA_SQR_PAD, TCA_SQR_BACKUP },
	{ "pl2", TCA_PL2_MAX, pl2_width, TCA_PL2_PAD, 0 },
};

#define QDISC_KINDS (int)(sizeof(qdisc_kinds) / sizeof(qdisc_kinds[0]))

/* the first type the table has no width for, or 0 */
static inline int table_gap(const struct qdisc_kind *k)
{
	int t;

	for (t = k->pad + 1; t <= k->max; t++)
		if (!k->width[t])
			return t;
	return 0;
}

#endif /* _QDISC_ATTRS_H */
