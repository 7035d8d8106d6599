/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Algorithm core of sch_trim: packet classification, the trimming
 * decisions and the header/data scheduler.  Packets are parsed by the
 * shared parser, include/net/shoal/pkt_parse.h.  Plain C, no kernel
 * calls: the module and the userspace tests and fuzzers build this file.
 */
#ifndef _SHOAL_TRIM_CORE_H
#define _SHOAL_TRIM_CORE_H

#include <net/shoal/pkt_parse.h>

#define TRIM_KEEP_MAX		1024
#define TRIM_ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
#define TRIM_TUN_PORTS		{ 4789, 6081, 8472, 6635, 4754, 6080 }

enum trim_class {
	TRIM_C_DATA,	/* eligible: trimmed when the data queue is full */
	TRIM_C_CTRL,	/* control DSCP: header queue, never trimmed */
	TRIM_C_HDR,	/* trimmed by an earlier hop: stays a header */
	TRIM_C_NONIP,	/* not IPv4/IPv6 */
	TRIM_C_FRAG,	/* IP fragment */
	TRIM_C_PROTO,	/* protocol, port or DSCP not eligible */
	TRIM_C_ENCAP,	/* tunnel, or headers we cannot trust */
};

enum trim_queue {
	TRIM_Q_HDR,
	TRIM_Q_DATA,
	TRIM_Q_NONE = -1,
};

/* Configuration the core needs; the module keeps the netlink view in sync */
struct trim_config {
	u64 elig_dscp;		/* bitmap */
	u64 ctrl_dscp;		/* bitmap */
	u32 limit;		/* data queue, packets */
	u32 limit_bytes;	/* 0 = none */
	u32 hdr_limit;
	u32 hdr_limit_bytes;	/* 0 = none */
	u32 tail_prob;		/* scaled to 2^32 - 1 */
	u32 hdr_weight;
	u32 data_weight;
	u32 drr_unit;		/* bytes per DRR weight unit (one MTU frame) */
	u16 keep;
	u16 mark_offset;
	u16 port_min;
	u16 port_max;
	u16 shoal_port;		/* UDP port of Shoal packets, 0 = none */
	u8 elig_proto;
	u8 mark_dscp;		/* 0xff = leave */
	u8 mark_mask;
	u8 bounce_mask;
	u8 sched;
};

struct trim_sched_state {
	u32 wrr_pos;
	u32 deficit[2];
	u8 drr_cur;		/* queue whose DRR turn it is */
	bool drr_granted;	/* it got its quantum for this turn */
};

static inline bool trim_is_tunnel(u8 proto, u16 dport)
{
	static const u16 tun_ports[] = TRIM_TUN_PORTS;
	unsigned int i;

	if (proto == 4 || proto == 41 || proto == 47 || proto == 97)
		return true;		/* IPIP, IPv6, GRE, EtherIP */
	if (proto != 17)
		return false;
	for (i = 0; i < TRIM_ARRAY_LEN(tun_ports); i++)
		if (dport == tun_ports[i])
			return true;
	return false;
}

/* Class of a parsed packet.  @parsed is shoal_pkt_parse()'s result; @flags is
 * the transport byte at mark_offset of the L4 payload, or -1 if absent.
 */
static inline enum trim_class trim_classify(const struct trim_config *c,
					    enum shoal_pkt_res parsed,
					    const struct shoal_pkt_hdrs *pk, int flags)
{
	if (parsed == SHOAL_PKT_NONIP)
		return TRIM_C_NONIP;
	if (parsed != SHOAL_PKT_BAD && (c->ctrl_dscp >> pk->dscp) & 1)
		return TRIM_C_CTRL;
	if (parsed == SHOAL_PKT_FRAG)
		return TRIM_C_FRAG;
	if (parsed != SHOAL_PKT_OK)
		return TRIM_C_ENCAP;
	if (c->mark_dscp != 0xff && pk->dscp == c->mark_dscp)
		return TRIM_C_HDR;
	if (trim_is_tunnel(pk->l4proto, pk->dport))
		return TRIM_C_ENCAP;
	if (pk->l4proto != c->elig_proto || pk->dport < c->port_min ||
	    pk->dport > c->port_max || !((c->elig_dscp >> pk->dscp) & 1))
		return TRIM_C_PROTO;
	if (c->mark_mask && flags >= 0 &&
	    (flags & c->mark_mask) == c->mark_mask)
		return TRIM_C_HDR;
	return TRIM_C_DATA;
}

/* How a header is returned to its sender */
struct trim_rts {
	bool swap_ports;	/* swap the L4 ports (not for Shoal) */
	bool shoal;		/* a Shoal packet, to the sender's Shoal port */
	u8 dscp;		/* new DSCP, or 0xff to keep it */
};

/* Return to sender of a parsed UDP or TCP packet.  A Shoal packet (UDP to
 * c->shoal_port) is sent by a random UDP source port to the Shoal port,
 * which is the only port its sender listens on: its UDP ports stay as
 * they are (the random source keeps the return path's ECMP entropy) and
 * only the addresses are swapped.  It goes back as control traffic, with
 * the lowest control DSCP, so that no queue trims or returns it again.
 * Anything else has its ports swapped and keeps its DSCP.
 */
static inline struct trim_rts trim_rts_plan(const struct trim_config *c,
					    const struct shoal_pkt_hdrs *pk)
{
	struct trim_rts r = { .swap_ports = true, .dscp = 0xff };
	unsigned int i;

	if (!c->shoal_port || pk->l4proto != 17 || pk->dport != c->shoal_port)
		return r;
	r.swap_ports = false;
	r.shoal = true;
	for (i = 0; i < 64; i++) {
		if ((c->ctrl_dscp >> i) & 1) {
			r.dscp = (u8)i;
			break;
		}
	}
	return r;
}

/* Bytes from the network header that survive a trim */
static inline u32 trim_keep_len(const struct trim_config *c,
				const struct shoal_pkt_hdrs *pk)
{
	return (u32)pk->l4off + pk->l4hdr + c->keep;
}

static inline bool trim_data_full(const struct trim_config *c, u32 qlen,
				  u32 bytes, u32 len)
{
	return qlen >= c->limit ||
	       (c->limit_bytes && bytes + len > c->limit_bytes);
}

static inline bool trim_hdr_full(const struct trim_config *c, u32 qlen,
				 u32 bytes, u32 len)
{
	return qlen >= c->hdr_limit ||
	       (c->hdr_limit_bytes && bytes + len > c->hdr_limit_bytes);
}

/* NDP's anti-phase rule: with probability tail_prob trim the packet at the
 * data queue tail instead of the arrival, if the tail is trimmable and at
 * least as long (a shorter one would not make room).  @rnd is uniform.
 */
static inline bool trim_pick_tail(const struct trim_config *c, u32 rnd,
				  bool tail_trimmable, u32 tail_len,
				  u32 arr_len)
{
	if (!c->tail_prob || !tail_trimmable || tail_len < arr_len)
		return false;
	return c->tail_prob == 0xffffffffU || rnd < c->tail_prob;
}

/* Choose the queue to serve next.  Weights are ratios: WRR serves
 * hdr_weight headers per data_weight data packets; DRR gives each queue
 * weight * drr_unit bytes of credit per round.  A lone backlogged queue is
 * served at once (work conserving).
 */
static inline enum trim_queue trim_sched_pick(const struct trim_config *c,
					      struct trim_sched_state *s,
					      bool hdr_ok, u32 hdr_len,
					      bool data_ok, u32 data_len)
{
	const u32 len[2] = { hdr_len, data_len };
	u32 quantum, period;
	int q, guard;

	if (!hdr_ok || !data_ok) {
		if (!hdr_ok && !data_ok)
			return TRIM_Q_NONE;
		q = hdr_ok ? TRIM_Q_HDR : TRIM_Q_DATA;
		s->deficit[!q] = 0;	/* an idle DRR queue keeps no credit */
		if (s->deficit[q] >= len[q])
			s->deficit[q] -= len[q];
		else
			s->deficit[q] = 0;
		return (enum trim_queue)q;
	}
	switch (c->sched) {
	case 0:	/* strict */
		return TRIM_Q_HDR;
	case 1:	/* WRR */
		period = c->hdr_weight + c->data_weight;
		s->wrr_pos = (s->wrr_pos + 1) % period;
		return s->wrr_pos < c->hdr_weight ? TRIM_Q_HDR : TRIM_Q_DATA;
	default: /* DRR; quanta of at least one frame bound the loop */
		for (guard = 0; guard < 64; guard++) {
			q = s->drr_cur;
			if (!s->drr_granted) {
				quantum = q == TRIM_Q_HDR ? c->hdr_weight :
							    c->data_weight;
				s->deficit[q] += quantum * c->drr_unit;
				s->drr_granted = true;
			}
			if (s->deficit[q] >= len[q]) {
				s->deficit[q] -= len[q];
				return (enum trim_queue)q;
			}
			s->drr_cur = !q;	/* turn over: next queue */
			s->drr_granted = false;
		}
		q = s->drr_cur;
		s->deficit[q] = 0;
		return (enum trim_queue)q;
	}
}

#endif /* _SHOAL_TRIM_CORE_H */
