/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shoal qdiscs: netlink attributes (inside TCA_OPTIONS) and extended stats.
 *
 * Attribute numbers are Shoal's own; they are not allocated upstream.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_SHOAL_H
#define _UAPI_LINUX_PKT_SCHED_SHOAL_H

#include <linux/types.h>

/* ---- trim: packet trimming with a priority header queue ---- */

enum {
	TCA_TRIM_UNSPEC,
	TCA_TRIM_PAD,
	TCA_TRIM_LIMIT,			/* u32: data queue, packets (1..) */
	TCA_TRIM_LIMIT_BYTES,		/* u32: data queue, bytes; 0 = no byte limit */
	TCA_TRIM_HDR_LIMIT,		/* u32: header queue, packets (1..) */
	TCA_TRIM_HDR_LIMIT_BYTES,	/* u32: header queue, bytes; 0 = no byte limit */
	TCA_TRIM_KEEP,			/* u16: bytes kept after the L4 header */
	TCA_TRIM_SCHED,			/* u8: enum trim_sched */
	TCA_TRIM_HDR_WEIGHT,		/* u32: WRR packets or DRR quantum bytes */
	TCA_TRIM_DATA_WEIGHT,		/* u32: WRR packets or DRR quantum bytes */
	TCA_TRIM_TAIL_PROB,		/* u32: P(trim queue tail) scaled to 2^32-1 */
	TCA_TRIM_HDR_MODE,		/* u8: enum trim_hdr_mode */
	TCA_TRIM_OVERFLOW,		/* u8: enum trim_overflow */
	TCA_TRIM_MARK_DSCP,		/* u8: DSCP of trimmed packets; TRIM_DSCP_KEEP = leave */
	TCA_TRIM_MARK_OFFSET,		/* u16: byte of the L4 payload to OR with the mask */
	TCA_TRIM_MARK_MASK,		/* u8: 0 = no transport-flag marking */
	TCA_TRIM_CTRL_DSCP,		/* u64: bitmap of DSCPs sent to the header queue */
	TCA_TRIM_ECN_THRESH,		/* u32: data backlog bytes above which CE is set */
	TCA_TRIM_ELIG_DSCP,		/* u64: bitmap of trim-eligible DSCPs */
	TCA_TRIM_ELIG_PROTO,		/* u8: IPPROTO_UDP or IPPROTO_TCP */
	TCA_TRIM_ELIG_PORT_MIN,		/* u16: eligible L4 destination ports, low */
	TCA_TRIM_ELIG_PORT_MAX,		/* u16: eligible L4 destination ports, high */
	TCA_TRIM_RATE,			/* u64: own shaper, bytes per second; 0 = none */
	TCA_TRIM_FLAGS,			/* u32: TRIM_F_* */
	TCA_TRIM_BOUNCE_MASK,		/* u8: ORed into the mark byte on return to sender */
	__TCA_TRIM_MAX
};

#define TCA_TRIM_MAX (__TCA_TRIM_MAX - 1)

enum trim_sched {
	TRIM_SCHED_STRICT,	/* header queue first, always */
	TRIM_SCHED_WRR,		/* packet weighted round robin (NDP) */
	TRIM_SCHED_DRR,		/* byte deficit round robin (the paper's ideal) */
	__TRIM_SCHED_MAX
};

enum trim_hdr_mode {
	TRIM_HDR_PRIO,		/* headers go to the header queue (NDP) */
	TRIM_HDR_SAME,		/* headers stay in the data queue (CP) */
	__TRIM_HDR_MODE_MAX
};

enum trim_overflow {
	TRIM_OVERFLOW_DROP,	/* header queue full: drop the header */
	TRIM_OVERFLOW_RTS,	/* header queue full: return it to its sender */
	__TRIM_OVERFLOW_MAX
};

#define TRIM_DSCP_KEEP		0xff
#define TRIM_PROB_MAX		0xffffffffU

#define TRIM_F_ECN_HDRS		(1U << 0)	/* also set CE on trimmed headers */
#define TRIM_F_MASK		TRIM_F_ECN_HDRS

/* Defaults: the paper's 12-packet testbed buffer, NDP's 10:1 header WRR */
#define TRIM_DEF_LIMIT		12
#define TRIM_DEF_HDR_LIMIT	1024
#define TRIM_DEF_KEEP		64	/* the largest Shoal header */
#define TRIM_DEF_HDR_WEIGHT	10
#define TRIM_DEF_DATA_WEIGHT	1
#define TRIM_DEF_TAIL_PROB	(TRIM_PROB_MAX / 2)	/* NDP's coin */
#define TRIM_DEF_CTRL_DSCP	(1ULL << 48)	/* CS6, Shoal control packets */
#define TRIM_DEF_MARK_OFFSET	1	/* Shoal header flags byte */
#define TRIM_DEF_MARK_MASK	0x80	/* SHOAL_F_TRIMMED */
#define TRIM_DEF_BOUNCE_MASK	0x40	/* SHOAL_F_BOUNCED */

struct tc_trim_xstats {
	__u64 data_enq;		/* packets put in the data queue */
	__u64 data_deq;
	__u64 hdr_enq;		/* packets put in the header queue */
	__u64 hdr_deq;
	__u64 ctrl_enq;		/* control packets (ctrl_dscp) queued as headers */
	__u64 fwd_hdr_enq;	/* already-trimmed packets from an earlier hop */
	__u64 trim_arrival;	/* the arriving packet was trimmed */
	__u64 trim_tail;	/* the packet at the data queue tail was trimmed */
	__u64 trimmed_bytes;	/* payload bytes cut off */
	__u64 small_promoted;	/* too short to trim: queued whole as a header */
	__u64 hdr_drop;		/* header queue full, header dropped */
	__u64 bounced;		/* header returned to its sender */
	__u64 bounce_err;	/* return to sender failed, header dropped */
	__u64 inelig_drop;	/* ineligible packet tail-dropped */
	__u64 trim_err;		/* trimming failed (no memory), packet dropped */
	__u64 inelig_nonip;	/* ineligible: not IPv4/IPv6 */
	__u64 inelig_frag;	/* ineligible: IP fragment */
	__u64 inelig_proto;	/* ineligible: protocol, port or DSCP */
	__u64 inelig_encap;	/* ineligible: encapsulated or malformed */
	__u64 gso_split;	/* GSO packets segmented on enqueue */
	__u64 ecn_mark;		/* CE marks set on dequeue */
	__u64 hdr_sojourn_sum_ns;
	__u64 hdr_sojourn_max_ns;
	__u64 data_sojourn_sum_ns;
	__u64 data_sojourn_max_ns;
	__u32 data_qlen;	/* current */
	__u32 hdr_qlen;
	__u32 data_backlog;
	__u32 hdr_backlog;
	__u32 data_qlen_max;	/* peaks since creation */
	__u32 hdr_qlen_max;
};

#endif /* _UAPI_LINUX_PKT_SCHED_SHOAL_H */
