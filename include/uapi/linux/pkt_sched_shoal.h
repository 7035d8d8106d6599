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
	TCA_TRIM_SHOAL_PORT,		/* u16: UDP port of Shoal packets, 0 = none */
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
#define TRIM_DEF_SHOAL_PORT	4797	/* SHOAL_UDP_PORT */

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
	__u32 data_backlog_max;	/* bytes; a queue of small packets is short */
	__u32 hdr_backlog_max;
	__u64 bounced_shoal;	/* of bounced: Shoal, sent to the Shoal port */
};

/* ---- afq: approximate fair queueing (count-min sketch + calendar) ---- */

enum {
	TCA_AFQ_UNSPEC,
	TCA_AFQ_PAD,
	TCA_AFQ_LIMIT,		/* u32: packets, all queues together (1..) */
	TCA_AFQ_LIMIT_BYTES,	/* u32: bytes, all queues; 0 = no byte limit */
	TCA_AFQ_NQUEUES,	/* u32: FIFO queues (rounds ahead), power of 2 */
	TCA_AFQ_BPR,		/* u32: bytes per round per flow */
	TCA_AFQ_ROWS,		/* u32: sketch rows (hash functions) */
	TCA_AFQ_COLS,		/* u32: sketch columns per row, power of 2 */
	TCA_AFQ_ECN_ROUNDS,	/* u32: set CE this many rounds ahead; 0 = off */
	TCA_AFQ_FLOW_KEY,	/* u8: enum afq_flow_key */
	TCA_AFQ_OVERFLOW,	/* u8: enum afq_overflow */
	TCA_AFQ_EXACT,		/* u8: 1 = exact per-flow bids, sketch as shadow */
	TCA_AFQ_EXACT_FLOWS,	/* u32: exact-mode flow table slots, power of 2 */
	TCA_AFQ_SEED,		/* u32: hash key seed; 0 = random per instance */
	TCA_AFQ_RATE,		/* u64: own shaper, bytes per second; 0 = none */
	TCA_AFQ_SHOAL_PORT,	/* u16: UDP port of Shoal packets; 0 = none */
	__TCA_AFQ_MAX
};

#define TCA_AFQ_MAX (__TCA_AFQ_MAX - 1)

/* What makes packets one flow (hashed with the instance's key) */
enum afq_flow_key {
	AFQ_KEY_FLOW,		/* addresses, protocol and ports (5-tuple) */
	AFQ_KEY_HOSTS,		/* source and destination addresses */
	AFQ_KEY_SRC,		/* source address: per-sender fairness */
	AFQ_KEY_DST,		/* destination address */
	AFQ_KEY_MARK,		/* skb->mark (set it in the qdisc's netns) */
	AFQ_KEY_PRIO,		/* skb->priority */
	AFQ_KEY_SHOAL_MSG,	/* Shoal: addresses, Shoal ports and message id */
	__AFQ_KEY_MAX
};

enum afq_overflow {
	AFQ_OVERFLOW_DROP,	/* buffer full: drop the arrival (the thesis) */
	AFQ_OVERFLOW_PUSHOUT,	/* drop from the flow furthest ahead (ideal FQ) */
	__AFQ_OVERFLOW_MAX
};

#define AFQ_DEF_LIMIT		10000
#define AFQ_DEF_NQUEUES		32	/* thesis: 32 FIFOs per port */
#define AFQ_DEF_ROWS		2	/* thesis simulation: 2 x 16384 */
#define AFQ_DEF_COLS		16384
#define AFQ_DEF_ECN_ROUNDS	8	/* thesis: mark 8 rounds ahead */
#define AFQ_DEF_EXACT_FLOWS	65536
#define AFQ_DEF_SHOAL_PORT	4797	/* SHOAL_UDP_PORT */
#define AFQ_MAX_ROWS		8
#define AFQ_MAX_COLS		(1U << 20)
#define AFQ_MAX_NQUEUES		4096

struct tc_afq_xstats {
	__u64 round;		/* current round R (head queue) */
	__u64 rotations;	/* head moves */
	__u64 empty_skips;	/* empty queues skipped by a rotation */
	__u64 enqueued;		/* packets queued */
	__u64 dequeued;
	__u64 horizon_drops;	/* bid nqueues or more rounds ahead */
	__u64 limit_drops;	/* buffer full, arrival dropped */
	__u64 pushout_drops;	/* buffer full, packet of the furthest flow dropped */
	__u64 ecn_marked;	/* CE set, ecn_rounds or more ahead */
	__u64 ecn_nonect;	/* would have marked, packet not ECN-capable */
	__u64 bid_bumps;	/* flow idle: bid raised to the current round */
	__u64 gso_split;	/* GSO packets segmented on enqueue */
	__u64 exact_pkts;	/* exact mode: packets compared with the sketch */
	__u64 sketch_misplaced;	/* exact mode: sketch round later than exact */
	__u64 sketch_extra_rounds; /* exact mode: sum of those round errors */
	__u64 exact_table_full;	/* exact mode: no slot, sketch bid used */
	__u32 active_queues;	/* non-empty queues now */
	__u32 active_queues_max;
	__u32 max_ahead;	/* peak of (round - R) over queued packets */
	__u32 memory;		/* bytes of sketch and flow table */
};

/* ---- calq: programmable calendar queue ---- */

enum {
	TCA_CALQ_UNSPEC,
	TCA_CALQ_PAD,
	TCA_CALQ_LIMIT,		/* u32: packets (1..) */
	TCA_CALQ_LIMIT_BYTES,	/* u32: bytes; 0 = no byte limit */
	TCA_CALQ_BUCKETS,	/* u32: calendar days, power of 2 */
	TCA_CALQ_MODE,		/* u8: enum calq_mode */
	TCA_CALQ_INTERVAL,	/* u64: ns per day (time ranks, physical mode) */
	TCA_CALQ_RANK,		/* u8: enum calq_rank */
	TCA_CALQ_FALLBACK,	/* u8: enum calq_fallback, packets without a rank */
	TCA_CALQ_SHIFT,		/* u8: prio/mark rank: days = value >> shift */
	TCA_CALQ_HORIZON,	/* u8: enum calq_horizon */
	TCA_CALQ_QUANTUM,	/* u32: fq rank: bytes per round per flow */
	TCA_CALQ_ROWS,		/* u32: fq rank: sketch rows */
	TCA_CALQ_COLS,		/* u32: fq rank: sketch columns, power of 2 */
	TCA_CALQ_PORT,		/* u16: UDP port of the Shoal header (slack ranks) */
	TCA_CALQ_FLAGS,		/* u32: CALQ_F_* */
	TCA_CALQ_RATE,		/* u64: own shaper, bytes per second; 0 = none */
	TCA_CALQ_FLAGS_MASK,	/* u32: CALQ_F_* bits FLAGS sets; absent = all */
	TCA_CALQ_FLOW_KEY,	/* u8: fq rank: enum afq_flow_key */
	TCA_CALQ_ECN_THRESH,	/* u32: backlog bytes above which CE is set; 0 = off */
	__TCA_CALQ_MAX
};

#define TCA_CALQ_MAX (__TCA_CALQ_MAX - 1)

enum calq_mode {
	CALQ_MODE_LOGICAL,	/* rotate when the head day is empty */
	CALQ_MODE_PHYSICAL,	/* days are wall-clock intervals of `interval` */
	__CALQ_MODE_MAX
};

enum calq_rank {
	CALQ_RANK_TSTAMP,	/* skb->tstamp (EDT): pacing and shaping */
	CALQ_RANK_PRIO,		/* skb->priority >> shift days ahead */
	CALQ_RANK_MARK,		/* skb->mark >> shift days ahead (BPF, nft) */
	CALQ_RANK_SLACK,	/* Shoal slack field (LSTF), decremented per hop */
	CALQ_RANK_DEADLINE,	/* Shoal field as absolute CLOCK_MONOTONIC ns (EDF) */
	CALQ_RANK_FQ,		/* AFQ round of the packet's flow */
	__CALQ_RANK_MAX
};

enum calq_fallback {
	CALQ_FALLBACK_HEAD,	/* no rank: the head day (served next) */
	CALQ_FALLBACK_LAST,	/* no rank: the last day of the calendar */
	CALQ_FALLBACK_FQ,	/* no rank: the AFQ round (hybrid FQ + deadlines) */
	__CALQ_FALLBACK_MAX
};

enum calq_horizon {
	CALQ_HORIZON_DROP,	/* beyond the last day: drop */
	CALQ_HORIZON_CLAMP,	/* beyond the last day: queue in the last day */
	CALQ_HORIZON_OVERFLOW,	/* park until the day comes into range */
	__CALQ_HORIZON_MAX
};

#define CALQ_F_NWC	(1U << 0)	/* physical: never serve a day early */
#define CALQ_F_NOREWRITE (1U << 1)	/* slack: do not write the slack back */
#define CALQ_F_MASK	(CALQ_F_NWC | CALQ_F_NOREWRITE)

#define CALQ_DEF_LIMIT		10000
#define CALQ_DEF_BUCKETS	32	/* thesis: 32 FIFOs */
#define CALQ_DEF_INTERVAL	10000	/* thesis: 10 us days */
#define CALQ_DEF_PORT		4797	/* SHOAL_PORT */
#define CALQ_MAX_BUCKETS	4096
#define CALQ_MAX_PEAKS		256	/* peak[] entries; a dump fits a page */

struct tc_calq_xstats {
	__u64 head_day;		/* absolute day of the head */
	__u64 rotations_empty;	/* head moved because its day was empty */
	__u64 rotations_time;	/* head moved because its time came (physical) */
	__u64 enqueued;
	__u64 dequeued;
	__u64 clamped_past;	/* rank before the head day: served before it */
	__u64 clamped_future;	/* beyond the horizon, queued in the last day */
	__u64 horizon_drops;
	__u64 limit_drops;
	__u64 parked;		/* beyond the horizon, parked (overflow) */
	__u64 unparked;		/* parked packets put back in the calendar */
	__u64 no_rank;		/* packets that took the fallback */
	__u64 deadline_misses;	/* slack/deadline: left after the deadline */
	__u64 slack_rewrites;	/* slack fields written back */
	__u64 rewrite_errors;	/* slack could not be written back */
	__u64 watchdog_arms;	/* physical nwc: waits for a future day */
	__u64 inversions;	/* left before a lower-ranked packet queued earlier */
	__u64 gso_split;
	__s64 ahead_ns;		/* physical: head day start minus now (delta) */
	__u32 parked_now;
	__u32 active_days;
	__u64 ecn_marked;	/* CE set on dequeue, backlog over ecn_thresh */
	__u64 ecn_nonect;	/* would have marked, packet not ECN-capable */
	/* followed by __u32 peak[min(buckets, CALQ_MAX_PEAKS)]: peak packets
	 * in the day k days ahead of the head; the last entry also counts
	 * every day further ahead
	 */
};

/* ---- sqr: delayed-retransmit ring for link failures (SQR) ---- */

enum {
	TCA_SQR_UNSPEC,
	TCA_SQR_PAD,
	TCA_SQR_HOLD,		/* u32: us a sent copy is held; 0 = no copies */
	TCA_SQR_RING_BYTES,	/* u32: the copy buffer, bytes (4096..1 GiB) */
	TCA_SQR_RING_PKTS,	/* u32: backstop, copies held (1..) */
	TCA_SQR_BACKUP,		/* u32: backup ifindex; 0 = the same port */
	TCA_SQR_BACKUP_DMAC,	/* binary[6]: the next hop's address there */
	TCA_SQR_RECONF,		/* u32: us from detection to the release */
	TCA_SQR_RELEASE,	/* u8: enum sqr_release_mode */
	TCA_SQR_MAX_HOLD,	/* u32: us after detection to give up */
	TCA_SQR_FAILBACK,	/* u32: us to keep diverting after recovery */
	TCA_SQR_DIVERT,		/* u8: 1 = new packets follow the copies */
	TCA_SQR_DETECT,		/* u32: SQR_DETECT_* */
	TCA_SQR_POLL,		/* u32: us between carrier polls */
	TCA_SQR_DEDUP_GUARD,	/* u32: us, see SQR_DEF_DEDUP_GUARD */
	TCA_SQR_MATCH,		/* u32: SQR_MATCH_* in force; 0 = every IP packet */
	TCA_SQR_DSCP,		/* u8: DSCP value, adds SQR_MATCH_DSCP */
	TCA_SQR_DSCP_MASK,	/* u8: DSCP bits compared */
	TCA_SQR_PROTO,		/* u8: IP protocol, adds SQR_MATCH_PROTO */
	TCA_SQR_PORT_MIN,	/* u16: TCP/UDP port range, adds SQR_MATCH_PORTS */
	TCA_SQR_PORT_MAX,	/* u16 */
	TCA_SQR_MARK,		/* u32: skb->mark value, adds SQR_MATCH_MARK */
	TCA_SQR_MARK_MASK,	/* u32 */
	TCA_SQR_FORCE,		/* u8: enum sqr_force (not dumped) */
	TCA_SQR_FAULT_LEN,	/* u32: us an injected outage lasts; 0 = off */
	TCA_SQR_FAULT_PERIOD,	/* u32: us between outage starts; 0 = one */
	TCA_SQR_FAULT_DETECT,	/* u32: us from an outage's start to detection */
	TCA_SQR_FAULT_COUNT,	/* u32: outages; 0 = until changed */
	TCA_SQR_FAULT_OFFSET,	/* u32: us from the change to the first */
	TCA_SQR_COPY_MAX,	/* u32: frames up to this are copied, larger
				 * or GSO ones cloned; 0 = clone all
				 */
	TCA_SQR_HB_INTERVAL,	/* u32: us between heartbeat probes; 0 = off */
	TCA_SQR_HB_MISS,	/* u32: probes unanswered in a row = down */
	__TCA_SQR_MAX
};

#define TCA_SQR_MAX (__TCA_SQR_MAX - 1)

enum sqr_release_mode {
	SQR_RELEASE_TIMER,	/* reconf after detection (the paper) */
	SQR_RELEASE_EVENT,	/* as soon as the backup path is up */
	SQR_RELEASE_IMMEDIATE,	/* at detection (local rerouting) */
	__SQR_RELEASE_MAX
};

enum sqr_force {
	SQR_FORCE_NONE,
	SQR_FORCE_DOWN,		/* an external detector saw the link fail */
	SQR_FORCE_UP,		/* ... and come back */
	__SQR_FORCE_MAX
};

#define SQR_DETECT_CARRIER	(1U << 0)	/* poll the carrier from a timer */
#define SQR_DETECT_NOTIFIER	(1U << 1)	/* device events: down, carrier */
#define SQR_DETECT_MASK		(SQR_DETECT_CARRIER | SQR_DETECT_NOTIFIER)

#define SQR_MATCH_DSCP		(1U << 0)
#define SQR_MATCH_PROTO		(1U << 1)
#define SQR_MATCH_PORTS		(1U << 2)
#define SQR_MATCH_MARK		(1U << 3)
#define SQR_MATCH_MASK		(SQR_MATCH_DSCP | SQR_MATCH_PROTO | \
				 SQR_MATCH_PORTS | SQR_MATCH_MARK)

#define SQR_DEF_HOLD		1000		/* us */
#define SQR_DEF_RING_BYTES	(4U << 20)
#define SQR_DEF_RING_PKTS	8192
#define SQR_MIN_RING_BYTES	4096
#define SQR_MAX_RING_BYTES	(1U << 30)
#define SQR_DEF_COPY_MAX	2048
#define SQR_MAX_COPY_MAX	16384
#define SQR_DEF_MAX_HOLD	100000		/* us */
#define SQR_DEF_POLL		100		/* us */
#define SQR_DEF_DEDUP_GUARD	5		/* us */
#define SQR_MAX_TIME		1000000		/* us: hold, reconf, poll, ... */
#define SQR_DEF_HB_MISS		3
#define SQR_MAX_HB_MISS		100
#define SQR_HB_ETHERTYPE	0x88B5		/* IEEE local experimental 1 */

enum sqr_state {
	SQR_STATE_UP,		/* copies held, packets on the primary */
	SQR_STATE_FAILED,	/* copies committed, release not yet due */
	SQR_STATE_RELEASING,	/* copies, then new packets, on the backup */
	SQR_STATE_FAILBACK,	/* primary back, still diverting a while */
};

struct tc_sqr_xstats {
	__u64 cached;		/* copies taken of protected packets sent */
	__u64 cached_bytes;
	__u64 expired;		/* copies freed after hold, link still up */
	__u64 backstop;		/* protected packets not copied: ring full */
	__u64 clone_fail;	/* ... or no memory for the clone */
	__u64 unprotected;	/* packets sent that match no criterion */
	__u64 failures;		/* failures detected */
	__u64 committed;	/* copies committed to be resent */
	__u64 dup_avoided;	/* copies sent before a known onset, freed */
	__u64 resent;		/* committed copies handed to the backup path */
	__u64 resent_bytes;
	__u64 diverted;		/* newer packets sent after them */
	__u64 xmit_errors;	/* the backup device refused a packet */
	__u64 gave_up;		/* held packets dropped: no path in max_hold */
	__u64 failq_drops;	/* arrivals dropped: the fail queue was full */
	__u64 fault_outages;	/* outages the injector opened */
	__u64 fault_drops;	/* packets it dropped on the "wire" */
	__u64 lost;		/* of those, neither copied nor resent */
	__u64 detect_latency_last;	/* ns, onset to detection (known onset) */
	__u64 detect_latency_max;
	__u64 recovery_last;	/* ns, detection to the held packets sent */
	__u64 ring_peak_bytes;
	__u64 ring_peak_mem;	/* memory the copies kept at that peak (truesize) */
	__u32 ring_pkts;	/* copies held now */
	__u32 ring_bytes;
	__u32 ring_peak_pkts;
	__u32 failq_pkts;	/* committed and diverted packets waiting */
	__u32 state;		/* enum sqr_state */
	__u32 backup_ok;	/* 1: the backup path is usable now */
	__u64 cloned;		/* of the copies, those held as clones */
	__u64 commit_nomem;	/* copies lost at a failure: no memory for
				 * the packet to resend
				 */
	__u64 hb_sent;		/* heartbeat probes sent */
	__u64 hb_echoes;	/* ... and answered */
	__u64 hb_failures;	/* failures the heartbeat found */
	__u64 hb_xmit_errors;	/* probes the device would not take (no miss) */
	__u64 window_lost;	/* copies expired between the link last known
				 * good and a failure's detection (carrier,
				 * device event, heartbeat): may have been
				 * lost unresent (an upper bound)
				 */
	__u64 guarded;		/* packets routed to the port while it was
				 * detached, taken behind the held ones
				 */
};

/* ---- pl2: PL2's host side for any traffic (Documentation/sch_pl2.md) ---- */

enum {
	TCA_PL2_UNSPEC,
	TCA_PL2_PAD,
	TCA_PL2_LIMIT,			/* u32: packets held in all (1..) */
	TCA_PL2_FLOWS,			/* u32: destinations held at once (1..) */
	TCA_PL2_K,			/* u32: packets per burst (1..PL2_QD_K_MAX) */
	TCA_PL2_RATE,			/* u64: the link, bytes per second; 0 = the device's */
	TCA_PL2_SLOT_NS,		/* u32: a slot; 0 = one full frame at the rate */
	TCA_PL2_RSV_TIMEOUT_US,		/* u32: a burst goes after this without its GRT */
	TCA_PL2_UNSOL,			/* u32: unsolicited below this many slots, 0 = never */
	TCA_PL2_SHOAL_PORT,		/* u16: UDP port of RSVs and GRTs (the switch's) */
	TCA_PL2_DOMAIN4,		/* struct tc_pl2_prefix: IPv4 destinations reserved */
	TCA_PL2_DOMAIN6,		/* struct tc_pl2_prefix: IPv6 destinations reserved */
	TCA_PL2_OUTSTANDING,		/* u32: a destination's packets reserved at
					 * once, in bursts of K (1..PL2_QD_OUTSTANDING_MAX)
					 */
	__TCA_PL2_MAX
};

#define TCA_PL2_MAX (__TCA_PL2_MAX - 1)

#define PL2_QD_K_MAX		64
#define PL2_QD_OUTSTANDING_MAX	8
#define PL2_QD_TIMEOUT_US_MAX	10000000	/* 10 s */
#define PL2_QD_SLOT_NS_MAX	1000000000	/* 1 s */

/* A destination prefix; plen 0 with any address: every destination */
struct tc_pl2_prefix {
	__u8 plen;			/* 0..32 (IPv4), 0..128 (IPv6) */
	__u8 pad[3];
	__be32 addr[4];			/* IPv4 in addr[0] */
};

struct tc_pl2_xstats {
	__u64 bursts;		/* bursts released to the device */
	__u64 burst_pkts;	/* packets in them */
	__u64 rsv;		/* RSVs sent */
	__u64 grt;		/* GRTs taken for a burst waiting */
	__u64 grt_stale;	/* GRTs for no burst waiting (late, foreign) */
	__u64 waits;		/* bursts that waited for their slot */
	__u64 wait_ns;		/* ... their waits, in all */
	__u64 unsol;		/* bursts sent unsolicited (Algorithm 2) */
	__u64 timeouts;		/* bursts sent without a GRT: it was overdue */
	__u64 rsv_nomem;	/* ... or no RSV could be built */
	__u64 passed;		/* packets not reserved: non-IP, control,
				 * Shoal's own (our RSVs too), outside the
				 * domain
				 */
	__u64 drop_limit;	/* arrivals dropped: limit reached */
	__u64 drop_flows;	/* ... no destination could be held */
	__u32 flows;		/* destinations held now */
	__u32 waiting;		/* exchanges out (RSV or slot), all flows */
	__u64 rate;		/* bytes per second in use */
	__u64 slot_ns;		/* the slot in use */
};

#endif /* _UAPI_LINUX_PKT_SCHED_SHOAL_H */
