/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Shoal flow key of sch_afq and sch_calq's fq rank: which fields make
 * a Shoal packet one flow.  shoal.ko sends every packet from a random UDP
 * source port (entropy for spraying) to the well-known Shoal UDP port, so
 * the 5-tuple sees each packet as a new flow.  For a UDP packet to or
 * from the Shoal port (from it: a header a switch returned to its sender,
 * ports swapped), the flow is instead the addresses, the protocol and the
 * Shoal header's source and destination ports; the per-message key adds
 * the message id.  Plain C, no kernel calls: the modules hash what this
 * fills, the unit tests and the fuzzer run it in userspace.  The headers
 * are read by the shared parsers (pkt_parse.h, wire.h).  A pure function
 * of its arguments: no locking.
 *
 * Anything that is not a whole Shoal header of version 1 behind a sound
 * UDP header (a fragment, a header cut short, another version) is not
 * keyed here: the caller keys it by its 5-tuple.  A trimmed Shoal packet
 * keeps its header, so it keys like the packet it was.
 */
#ifndef _SHOAL_AFQ_KEY_CORE_H
#define _SHOAL_AFQ_KEY_CORE_H

#include <net/shoal/pkt_parse.h>
#include <net/shoal/wire.h>

/* Bytes at the network header the key needs at most: IPv6 with
 * extension headers, UDP and the fixed Shoal header
 */
#define AFQ_KEY_PARSE_LEN	(SHOAL_PKT_PARSE_LEN + 8 + SHOAL_HDR_LEN)

/* Set in afq_key_fields.tag: a Shoal key never equals a 5-tuple key */
#define AFQ_KEY_TAG_SHOAL	0x53

/* What is hashed for a Shoal packet; all of it, zeroed where unused */
struct afq_key_fields {
	u8 src[16];	/* IPv4: the first 4 bytes */
	u8 dst[16];
	u64 msg_id;	/* per-message key only, else 0 */
	u16 sport;	/* Shoal ports, host order */
	u16 dport;
	u8 ipver;
	u8 proto;
	u8 tag;
	u8 pad;
};

/* Is a UDP packet with these ports Shoal's?  @port 0: none is */
static inline bool afq_key_is_shoal_port(u16 sport, u16 dport, u16 port)
{
	return port && (dport == port || sport == port);
}

/* Fill @f with the Shoal key of the @avail bytes at @p, the network
 * header of a packet of @pktlen bytes from there on, and return true; or
 * return false (with @f untouched) when the packet is not a UDP packet to
 * or from @port carrying a whole Shoal header of version 1.  @per_msg
 * adds the message id.  Never reads past @avail.
 */
static inline bool afq_key_shoal(const u8 *p, u32 avail, u32 pktlen,
				 u16 port, bool per_msg,
				 struct afq_key_fields *f)
{
	struct shoal_pkt_hdrs pk;
	struct shoal_wire_pkt w;
	u32 hdr, alen, i;

	if (!port)
		return false;
	if (shoal_pkt_parse(p, avail, pktlen, &pk) != SHOAL_PKT_OK ||
	    pk.l4proto != 17 || !afq_key_is_shoal_port(pk.sport, pk.dport, port))
		return false;
	hdr = (u32)pk.l4off + 8;
	if (hdr + SHOAL_HDR_LEN > pk.l3len || hdr > avail ||
	    shoal_wire_read(p + hdr, avail - hdr, &w) ||
	    w.version != SHOAL_VERSION)
		return false;
	alen = pk.ipver == 4 ? 4 : 16;
	for (i = 0; i < 16; i++) {
		/* IPv4: saddr at 12, daddr at 16; IPv6: at 8 and 24 */
		f->src[i] = i < alen ? p[(pk.ipver == 4 ? 12 : 8) + i] : 0;
		f->dst[i] = i < alen ? p[(pk.ipver == 4 ? 16 : 24) + i] : 0;
	}
	f->msg_id = per_msg ? w.msg_id : 0;
	f->sport = w.sport;
	f->dport = w.dport;
	f->ipver = pk.ipver;
	f->proto = 17;
	f->tag = AFQ_KEY_TAG_SHOAL;
	f->pad = 0;
	return true;
}

#endif /* _SHOAL_AFQ_KEY_CORE_H */
