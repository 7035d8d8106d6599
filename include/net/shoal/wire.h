/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Shoal header (include/uapi/linux/shoal.h, Documentation/wire.md):
 * read one, parse and check one, build one.  The one parser of the
 * header in the tree: shoal.ko, sch_calq, the tools, the unit tests and
 * the fuzzer run this code (the BPF switch keeps its own, held against
 * this one by a unit test).  Plain C with no kernel calls.  Pure
 * functions of their arguments: no locking.
 *
 * shoal_wire_read() only reads the fields.  shoal_wire_parse() refuses a
 * packet for the first rule it breaks, in the order of enum
 * shoal_wire_reason, and the caller counts the reason.  Whatever passes
 * is consistent in itself: its ranges lie inside its message, a control
 * packet has no payload, its flags belong to its type.  Whether it makes
 * sense for the message the receiver knows is the endpoint's question.
 */
#ifndef _NET_SHOAL_WIRE_H
#define _NET_SHOAL_WIRE_H

#include <net/shoal/byteorder.h>
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
	u8 version;		/* SHOAL_VERSION once parsed */
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

/* Bytes of the header that @flags and @options (known ones) make */
static inline u32 shoal_wire_hdr_len(u8 flags, u8 options)
{
	return SHOAL_HDR_LEN +
	       (flags & SHOAL_F_DEADLINE ? SHOAL_OPT_LEN : 0) +
	       (options & SHOAL_O_ACK ? SHOAL_OPT_LEN : 0);
}

/* Read the fields of the Shoal header at @buf, @avail bytes of it there,
 * without checking them: the version and type as they are, the options
 * we know.  The deadline and the ACK option are read when the flags and
 * options say they are there and @avail holds them, else they are 0;
 * present, trimmed and nothing past them are touched.  Returns 0, or
 * -SHOAL_WIRE_SHORT with nothing read if @avail < SHOAL_HDR_LEN.
 */
static inline int shoal_wire_read(const u8 *buf, u32 avail,
				  struct shoal_wire_pkt *p)
{
	u32 n;

	if (avail < SHOAL_HDR_LEN)
		return -SHOAL_WIRE_SHORT;
	p->version = buf[SHOAL_OFF_VER_TYPE] >> 4;
	p->type = buf[SHOAL_OFF_VER_TYPE] & 0x0f;
	p->flags = buf[SHOAL_OFF_FLAGS];
	p->sport = shoal_get16(buf + SHOAL_OFF_SPORT);
	p->dport = shoal_get16(buf + SHOAL_OFF_DPORT);
	p->hdr_len = buf[SHOAL_OFF_HDR_LEN];
	p->options = buf[SHOAL_OFF_OPTIONS] & SHOAL_O_ACK; /* others: skipped */
	p->msg_id = shoal_get64(buf + SHOAL_OFF_MSG_ID);
	p->msg_len = shoal_get32(buf + SHOAL_OFF_MSG_LEN);
	p->offset = shoal_get32(buf + SHOAL_OFF_OFFSET);
	p->payload_len = shoal_get32(buf + SHOAL_OFF_PAYLOAD_LEN);
	p->word = shoal_get32(buf + SHOAL_OFF_WORD);
	n = shoal_wire_hdr_len(p->flags, p->options);
	p->deadline = (p->flags & SHOAL_F_DEADLINE) &&
		      avail >= SHOAL_OFF_DEADLINE + SHOAL_OPT_LEN ?
		      shoal_get64(buf + SHOAL_OFF_DEADLINE) : 0;
	p->ack_id = (p->options & SHOAL_O_ACK) && avail >= n ?
		    shoal_get64(buf + n - SHOAL_OPT_LEN) : 0;
	return 0;
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

	if (len < SHOAL_HDR_LEN || shoal_wire_read(buf, avail, p))
		return -SHOAL_WIRE_SHORT;
	if (p->version != SHOAL_VERSION)
		return -SHOAL_WIRE_VERSION;
	if (!shoal_wire_type_known(p->type))
		return -SHOAL_WIRE_TYPE;
	min_hdr = shoal_wire_hdr_len(p->flags, p->options);
	if (p->hdr_len < min_hdr || p->hdr_len > SHOAL_HDR_MAX)
		return -SHOAL_WIRE_HDR_LEN;
	if (len < p->hdr_len || avail < min_hdr)
		return -SHOAL_WIRE_SHORT;
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

	buf[SHOAL_OFF_VER_TYPE] = (u8)(SHOAL_VERSION << 4 | (p->type & 0x0f));
	buf[SHOAL_OFF_FLAGS] = p->flags;
	shoal_put16(buf + SHOAL_OFF_SPORT, p->sport);
	shoal_put16(buf + SHOAL_OFF_DPORT, p->dport);
	buf[SHOAL_OFF_HDR_LEN] = (u8)n;
	buf[SHOAL_OFF_OPTIONS] = options;
	shoal_put64(buf + SHOAL_OFF_MSG_ID, p->msg_id);
	shoal_put32(buf + SHOAL_OFF_MSG_LEN, p->msg_len);
	shoal_put32(buf + SHOAL_OFF_OFFSET, p->offset);
	shoal_put32(buf + SHOAL_OFF_PAYLOAD_LEN, p->payload_len);
	shoal_put32(buf + SHOAL_OFF_WORD, p->word);
	if (p->flags & SHOAL_F_DEADLINE)
		shoal_put64(buf + SHOAL_OFF_DEADLINE, p->deadline);
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

#endif /* _NET_SHOAL_WIRE_H */
