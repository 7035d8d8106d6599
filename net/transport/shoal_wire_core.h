/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Shoal header (include/uapi/linux/shoal.h, Documentation/wire.md):
 * parse and check one, build one.  Plain C with no kernel calls, so
 * shoal.ko, the unit tests and the fuzzer run the same code.  Pure
 * functions of their arguments: no locking.
 *
 * A packet is refused for the first rule it breaks, in the order of enum
 * shoal_wire_reason, and the caller counts the reason.  Whatever passes
 * is consistent in itself: its ranges lie inside its message, a control
 * packet has no payload, its flags belong to its type.  Whether it makes
 * sense for the message the receiver knows is the endpoint's question.
 */
#ifndef _SHOAL_WIRE_CORE_H
#define _SHOAL_WIRE_CORE_H

#include "../sched/core_types.h"
#include <linux/shoal.h>

#define SHOAL_WIRE_TYPES	16	/* the type nibble's values */

/* Limits of net.shoal.max_msg_len: msg_len is 32 bits on the wire */
#define SHOAL_MSG_DEFAULT	(32U << 20)
#define SHOAL_MSG_MIN_MAX	4096U
#define SHOAL_MSG_LIMIT		0x40000000U	/* 1 GiB */

/* Why a packet was refused; 0 is none.  Negated by shoal_wire_parse(). */
enum shoal_wire_reason {
	SHOAL_WIRE_OK,
	SHOAL_WIRE_SHORT,	/* shorter than its header */
	SHOAL_WIRE_VERSION,	/* not SHOAL_VERSION */
	SHOAL_WIRE_TYPE,	/* a type we do not know */
	SHOAL_WIRE_HDR_LEN,	/* hdr_len below its type's or over the max */
	SHOAL_WIRE_FLAGS,	/* a flag its type cannot have */
	SHOAL_WIRE_MSG_LEN,	/* msg_len 0, or over max_msg_len */
	SHOAL_WIRE_RANGE,	/* bytes outside the message */
	SHOAL_WIRE_PAYLOAD,	/* more payload than payload_len, or any on
				 * a control packet
				 */
	SHOAL_WIRE_NR_REASONS
};

/* A parsed header, in host order */
struct shoal_wire_pkt {
	u8 type;		/* SHOAL_T_* */
	u8 flags;		/* SHOAL_F_* */
	u8 hdr_len;		/* the payload starts here */
	u8 options;		/* SHOAL_O_* that we know, present */
	bool trimmed;		/* flagged, or less payload than sent */
	u16 sport;
	u16 dport;
	u64 msg_id;
	u32 msg_len;
	u32 offset;
	u32 payload_len;	/* as sent */
	u32 word;
	u32 present;		/* payload bytes that arrived */
	u64 deadline;		/* with SHOAL_F_DEADLINE, else 0 */
	u64 ack_id;		/* with SHOAL_O_ACK, else 0 */
};

static inline u32 shoal_get16(const u8 *p)
{
	return (u32)p[0] << 8 | p[1];
}

static inline u32 shoal_get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 shoal_get64(const u8 *p)
{
	return (u64)shoal_get32(p) << 32 | shoal_get32(p + 4);
}

static inline void shoal_put16(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void shoal_put32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void shoal_put64(u8 *p, u64 v)
{
	shoal_put32(p, (u32)(v >> 32));
	shoal_put32(p + 4, (u32)v);
}

/* The flags a packet of @type may carry: RETX and DEADLINE on any, and
 * REQUEST and RESPONSE, which are part of the message's name; a switch
 * trims and bounces DATA only (a GRT is a bounced RSV); CSN comes with
 * what a SIRD sender sends, SCHED with DATA
 */
static inline u8 shoal_wire_flags_ok(u8 type)
{
	u8 any = SHOAL_F_RETX | SHOAL_F_DEADLINE | SHOAL_F_REQUEST |
		 SHOAL_F_RESPONSE;

	switch (type) {
	case SHOAL_T_DATA:
		return any | SHOAL_F_TRIMMED | SHOAL_F_BOUNCED | SHOAL_F_CSN |
		       SHOAL_F_SCHED;
	case SHOAL_T_CREDIT_REQ:
		return any | SHOAL_F_CSN;
	case SHOAL_T_GRT:
		return any | SHOAL_F_BOUNCED;
	default:
		return any;
	}
}

/* The options a packet of @type may carry: an ACK rides on DATA */
static inline u8 shoal_wire_options_ok(u8 type)
{
	return type == SHOAL_T_DATA ? SHOAL_O_ACK : 0;
}

/* Bytes of the header that @flags and @options (known ones) make */
static inline u32 shoal_wire_hdr_len(u8 flags, u8 options)
{
	return SHOAL_HDR_LEN +
	       (flags & SHOAL_F_DEADLINE ? SHOAL_OPT_LEN : 0) +
	       (options & SHOAL_O_ACK ? SHOAL_OPT_LEN : 0);
}

static inline bool shoal_wire_type_known(u8 type)
{
	return type >= SHOAL_T_DATA && type <= SHOAL_T_GRT;
}

/* The type-specific checks of a header whose common part is sound */
static inline int shoal_wire_check(const struct shoal_wire_pkt *p)
{
	switch (p->type) {
	case SHOAL_T_DATA:
		if (!p->payload_len ||
		    (u64)p->offset + p->payload_len > p->msg_len)
			return SHOAL_WIRE_RANGE;
		if (p->present > p->payload_len)
			return SHOAL_WIRE_PAYLOAD;
		/* a switch that cut nothing does not say it did */
		if ((p->flags & SHOAL_F_TRIMMED) &&
		    p->present == p->payload_len)
			return SHOAL_WIRE_FLAGS;
		return SHOAL_WIRE_OK;
	case SHOAL_T_CREDIT_REQ:
	case SHOAL_T_CREDIT:
		if (p->offset > p->msg_len ||
		    (p->type == SHOAL_T_CREDIT && p->word > p->offset))
			return SHOAL_WIRE_RANGE;
		break;
	case SHOAL_T_RESEND:
		if (!p->word || (u64)p->offset + p->word > p->msg_len)
			return SHOAL_WIRE_RANGE;
		break;
	case SHOAL_T_RSV:
	case SHOAL_T_GRT:
		if (p->offset >= p->msg_len)
			return SHOAL_WIRE_RANGE;
		break;
	default:
		break;
	}
	if (p->payload_len || p->present)
		return SHOAL_WIRE_PAYLOAD;
	return SHOAL_WIRE_OK;
}

/* Parse the Shoal header at @buf, the first byte after UDP.  @len is the
 * UDP payload's length; @avail of its bytes are at @buf (at least
 * min(@len, SHOAL_HDR_MAX)): the payload itself is never read.  Returns
 * 0 with *@p filled, or minus a shoal_wire_reason.
 */
static inline int shoal_wire_parse(const u8 *buf, u32 avail, u32 len,
				   u32 max_msg_len, struct shoal_wire_pkt *p)
{
	u32 min_hdr;
	int err;

	if (len < SHOAL_HDR_LEN || avail < SHOAL_HDR_LEN)
		return -SHOAL_WIRE_SHORT;
	if (buf[0] >> 4 != SHOAL_VERSION)
		return -SHOAL_WIRE_VERSION;
	p->type = buf[0] & 0x0f;
	if (!shoal_wire_type_known(p->type))
		return -SHOAL_WIRE_TYPE;
	p->flags = buf[1];
	p->sport = (u16)shoal_get16(buf + 2);
	p->dport = (u16)shoal_get16(buf + 4);
	p->hdr_len = buf[6];
	p->options = buf[7] & SHOAL_O_ACK;	/* others are skipped */
	p->msg_id = shoal_get64(buf + 8);
	p->msg_len = shoal_get32(buf + 16);
	p->offset = shoal_get32(buf + 20);
	p->payload_len = shoal_get32(buf + 24);
	p->word = shoal_get32(buf + 28);
	min_hdr = shoal_wire_hdr_len(p->flags, p->options);
	if (p->hdr_len < min_hdr || p->hdr_len > SHOAL_HDR_MAX)
		return -SHOAL_WIRE_HDR_LEN;
	if (len < p->hdr_len || avail < min_hdr)
		return -SHOAL_WIRE_SHORT;
	p->deadline = p->flags & SHOAL_F_DEADLINE ?
		      shoal_get64(buf + SHOAL_HDR_LEN) : 0;
	p->ack_id = p->options & SHOAL_O_ACK ?
		    shoal_get64(buf + min_hdr - SHOAL_OPT_LEN) : 0;
	if ((p->flags & ~shoal_wire_flags_ok(p->type)) ||
	    (p->options & ~shoal_wire_options_ok(p->type)))
		return -SHOAL_WIRE_FLAGS;
	if ((p->flags & SHOAL_F_REQUEST) && (p->flags & SHOAL_F_RESPONSE))
		return -SHOAL_WIRE_FLAGS;
	if (!p->msg_len || p->msg_len > max_msg_len)
		return -SHOAL_WIRE_MSG_LEN;
	p->present = len - p->hdr_len;
	err = shoal_wire_check(p);
	if (err)
		return -err;
	p->trimmed = p->type == SHOAL_T_DATA &&
		     ((p->flags & SHOAL_F_TRIMMED) ||
		      p->present < p->payload_len);
	return 0;
}

/* Write the header of @p at @buf (room for SHOAL_HDR_MAX bytes): 32
 * bytes, 8 more with SHOAL_F_DEADLINE and 8 more with SHOAL_O_ACK; it
 * returns how many.  @p's hdr_len, present and trimmed are not read.
 */
static inline u32 shoal_wire_build(u8 *buf, const struct shoal_wire_pkt *p)
{
	u8 options = p->options & SHOAL_O_ACK;
	u32 n = shoal_wire_hdr_len(p->flags, options);

	buf[0] = (u8)(SHOAL_VERSION << 4 | (p->type & 0x0f));
	buf[1] = p->flags;
	shoal_put16(buf + 2, p->sport);
	shoal_put16(buf + 4, p->dport);
	buf[6] = (u8)n;
	buf[7] = options;
	shoal_put64(buf + 8, p->msg_id);
	shoal_put32(buf + 16, p->msg_len);
	shoal_put32(buf + 20, p->offset);
	shoal_put32(buf + 24, p->payload_len);
	shoal_put32(buf + 28, p->word);
	if (p->flags & SHOAL_F_DEADLINE)
		shoal_put64(buf + SHOAL_HDR_LEN, p->deadline);
	if (options & SHOAL_O_ACK)
		shoal_put64(buf + n - SHOAL_OPT_LEN, p->ack_id);
	return n;
}

/* Names for counters: "data", ...; NULL for a type we do not know */
static inline const char *shoal_wire_type_name(unsigned int type)
{
	static const char * const names[SHOAL_WIRE_TYPES] = {
		[SHOAL_T_DATA] = "data",
		[SHOAL_T_CREDIT_REQ] = "credit_req",
		[SHOAL_T_CREDIT] = "credit",
		[SHOAL_T_RESEND] = "resend",
		[SHOAL_T_BUSY] = "busy",
		[SHOAL_T_UNKNOWN] = "unknown",
		[SHOAL_T_ACK] = "ack",
		[SHOAL_T_ABORT] = "abort",
		[SHOAL_T_RSV] = "rsv",
		[SHOAL_T_GRT] = "grt",
	};

	return type < SHOAL_WIRE_TYPES ? names[type] : NULL;
}

/* "short", ...; "ok" for 0, NULL past the last reason */
static inline const char *shoal_wire_reason_name(unsigned int reason)
{
	static const char * const names[SHOAL_WIRE_NR_REASONS] = {
		[SHOAL_WIRE_OK] = "ok",
		[SHOAL_WIRE_SHORT] = "short",
		[SHOAL_WIRE_VERSION] = "version",
		[SHOAL_WIRE_TYPE] = "type",
		[SHOAL_WIRE_HDR_LEN] = "hdr_len",
		[SHOAL_WIRE_FLAGS] = "flags",
		[SHOAL_WIRE_MSG_LEN] = "msg_len",
		[SHOAL_WIRE_RANGE] = "range",
		[SHOAL_WIRE_PAYLOAD] = "payload",
	};

	return reason < SHOAL_WIRE_NR_REASONS ? names[reason] : NULL;
}

#endif /* _SHOAL_WIRE_CORE_H */
