/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IP/L4 packet parser of the kernel-free layer: IPv4 or IPv6 (with
 * its extension headers), then the UDP or TCP header.  sch_trim, sch_calq
 * and sch_sqr parse packets with it (through their cores).  A pure
 * function of its arguments: no locking.
 *
 * It works on a linear copy of the first bytes of a packet starting at
 * the network header and never reads past @avail.
 */
#ifndef _NET_SHOAL_PKT_PARSE_H
#define _NET_SHOAL_PKT_PARSE_H

#include <net/shoal/byteorder.h>

#define SHOAL_PKT_PARSE_LEN		128	/* bytes to copy: IPv6 + options + L4 */

/* What shoal_pkt_parse() found */
enum shoal_pkt_res {
	SHOAL_PKT_OK,		/* IPv4 or IPv6 with sound headers, not a fragment */
	SHOAL_PKT_NONIP,	/* not IPv4/IPv6 */
	SHOAL_PKT_FRAG,	/* an IP fragment */
	SHOAL_PKT_BAD,	/* headers we cannot trust, or cut short */
};

struct shoal_pkt_hdrs {
	u32 l3len;	/* IP datagram length from its header */
	u16 l4off;	/* L4 header, from the network header */
	u16 l4hdr;	/* L4 header length: TCP and UDP only, else 0 */
	u16 sport;	/* TCP and UDP only, else 0 */
	u16 dport;
	u8 ipver;
	u8 l4proto;
	u8 dscp;
};

/* Skip IPv6 extension headers; returns the L4 protocol or -1 (malformed) */
static inline int shoal_pkt_skip_v6ext(const u8 *p, u32 avail, u32 *off, bool *frag)
{
	u8 nh = p[6];
	int guard;

	for (guard = 0; guard < 8; guard++) {
		switch (nh) {
		case 0:		/* hop-by-hop */
		case 43:	/* routing */
		case 60:	/* destination options */
			if (*off + 2 > avail)
				return -1;
			nh = p[*off];
			*off += (p[*off + 1] + 1) * 8;
			break;
		case 44:	/* fragment */
			*frag = true;
			return nh;
		default:
			return nh;
		}
	}
	return -1;
}

/* Parse @avail bytes at the network header of a packet with @pktlen bytes
 * from there on.  Fills @pk and returns SHOAL_PKT_OK when the headers are
 * sound, or what makes them unusable.  ipver is set once a byte is
 * there; once the IP header is, so are dscp, l3len, l4off and l4proto
 * (0 if the extension chain is broken), and the L4 fields are 0 unless
 * they were read.
 */
static inline enum shoal_pkt_res shoal_pkt_parse(const u8 *p, u32 avail,
						 u32 pktlen,
						 struct shoal_pkt_hdrs *pk)
{
	bool frag = false;
	u32 off;
	int proto;

	if (avail < 1)
		return SHOAL_PKT_NONIP;
	pk->ipver = p[0] >> 4;
	if (pk->ipver == 4) {
		if (avail < 20 || (p[0] & 0x0f) < 5)
			return SHOAL_PKT_BAD;
		off = (p[0] & 0x0f) * 4u;
		pk->dscp = p[1] >> 2;
		pk->l3len = shoal_get16(p + 2);
		proto = p[9];
		frag = (shoal_get16(p + 6) & 0x3fff) != 0;	/* MF or offset */
	} else if (pk->ipver == 6) {
		if (avail < 40)
			return SHOAL_PKT_BAD;
		off = 40;
		pk->dscp = (u8)(((p[0] & 0x0f) << 2) | (p[1] >> 6));
		pk->l3len = 40u + shoal_get16(p + 4);
		proto = shoal_pkt_skip_v6ext(p, avail, &off, &frag);
	} else {
		return SHOAL_PKT_NONIP;
	}
	pk->l4proto = proto < 0 ? 0 : (u8)proto;
	pk->l4off = (u16)off;
	pk->l4hdr = 0;
	pk->sport = 0;
	pk->dport = 0;
	if (proto < 0 || off > pk->l3len || pk->l3len > pktlen)
		return SHOAL_PKT_BAD;
	if (frag)
		return SHOAL_PKT_FRAG;
	if (proto == 17) {
		if (off + 8 > avail || off + 8 > pk->l3len ||
		    shoal_get16(p + off + 4) != pk->l3len - off)
			return SHOAL_PKT_BAD;
		pk->l4hdr = 8;
		pk->sport = shoal_get16(p + off);
		pk->dport = shoal_get16(p + off + 2);
	} else if (proto == 6) {
		if (off + 20 > avail)
			return SHOAL_PKT_BAD;
		pk->l4hdr = (p[off + 12] >> 4) * 4;
		pk->sport = shoal_get16(p + off);
		pk->dport = shoal_get16(p + off + 2);
		if (pk->l4hdr < 20 || off + pk->l4hdr > pk->l3len)
			return SHOAL_PKT_BAD;
	}
	return SHOAL_PKT_OK;
}

#endif /* _NET_SHOAL_PKT_PARSE_H */
