/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktcheck.h - validate IPv4/IPv6 + UDP + Shoal DATA packets.
 *
 * Pure C: no kernel, no libc beyond <string.h>/<stdint.h>.  Every reader is
 * bounded by the length the caller passes, so any byte string of any length
 * is a valid input (the header is meant to be fuzzed).  The Shoal header's
 * fields are read by the tree's one header parser, include/net/shoal/wire.h
 * (build with -Iinclude); the checks on them here are a receiver's of
 * shoal-blast's DATA, stricter in places than shoal.ko's.
 *
 * Two entry points:
 *   pkc_check_ip()     a packet starting at the IP header (AF_PACKET SOCK_DGRAM)
 *   pkc_check_shoal()  a UDP payload only (what a UDP socket returns)
 * Both fill a struct pkc_result; see enum pkc_verdict for the outcomes.
 */
#ifndef _SHOAL_PKTCHECK_H
#define _SHOAL_PKTCHECK_H

#include <stdint.h>
#include <string.h>
#include <net/shoal/wire.h>

enum pkc_verdict {
	PKC_OTHER,		/* not UDP, or not to the port asked for */
	PKC_FRAGMENT,		/* IP fragment: cannot be validated */
	PKC_WHOLE,		/* Shoal DATA with its full payload */
	PKC_TRIMMED,		/* payload cut, TRIMMED flag set */
	PKC_TRIMMED_UNMARKED,	/* payload cut, TRIMMED flag missing */
	PKC_MALFORMED,		/* see enum pkc_reason */
};

enum pkc_reason {
	PKC_R_NONE,
	PKC_R_IP_SHORT,		/* buffer shorter than the IP header/length */
	PKC_R_IP_VERSION,
	PKC_R_IP_HDR,		/* bad IHL, tot_len, IPv6 jumbo, bad ext header */
	PKC_R_IP_CSUM,
	PKC_R_UDP_LEN,		/* UDP length disagrees with the IP length */
	PKC_R_UDP_CSUM,
	PKC_R_UDP6_ZERO_CSUM,	/* IPv6 forbids a zero UDP checksum */
	PKC_R_SHOAL_SHORT,	/* fewer bytes than the Shoal header needs */
	PKC_R_SHOAL_VERSION,
	PKC_R_SHOAL_TYPE,	/* not DATA */
	PKC_R_SHOAL_HDR_LEN,	/* hdr_len out of range */
	PKC_R_SHOAL_LEN,	/* more payload present than payload_len */
	PKC_R_SHOAL_RANGE,	/* offset + payload_len beyond msg_len */
	PKC_R_FLAG_WHOLE,	/* TRIMMED flag on a whole packet */
	PKC_R_PATTERN,		/* payload bytes differ from pkc_pattern() */
	PKC_R_CSUM_PARTIAL,	/* trimmed packet with an unverifiable checksum */
	__PKC_R_MAX
};

static inline const char *pkc_reason_name(unsigned int reason)
{
	static const char * const names[__PKC_R_MAX] = {
		[PKC_R_NONE]		= "none",
		[PKC_R_IP_SHORT]	= "ip_short",
		[PKC_R_IP_VERSION]	= "ip_version",
		[PKC_R_IP_HDR]		= "ip_hdr",
		[PKC_R_IP_CSUM]		= "ip_csum",
		[PKC_R_UDP_LEN]		= "udp_len",
		[PKC_R_UDP_CSUM]	= "udp_csum",
		[PKC_R_UDP6_ZERO_CSUM]	= "udp6_zero_csum",
		[PKC_R_SHOAL_SHORT]	= "shoal_short",
		[PKC_R_SHOAL_VERSION]	= "shoal_version",
		[PKC_R_SHOAL_TYPE]	= "shoal_type",
		[PKC_R_SHOAL_HDR_LEN]	= "shoal_hdr_len",
		[PKC_R_SHOAL_LEN]	= "shoal_len",
		[PKC_R_SHOAL_RANGE]	= "shoal_range",
		[PKC_R_FLAG_WHOLE]	= "trimmed_flag_on_whole",
		[PKC_R_PATTERN]		= "payload_pattern",
		[PKC_R_CSUM_PARTIAL]	= "csum_partial_trimmed",
	};

	return reason < __PKC_R_MAX ? names[reason] : "unknown";
}

enum pkc_csum {
	PKC_CSUM_NONE,		/* not checked (not reached, or caller said so) */
	PKC_CSUM_OK,
	PKC_CSUM_ZERO,		/* IPv4 UDP without checksum */
	PKC_CSUM_BAD,
};

/* pkc_check_ip() options */
#define PKC_O_CSUM_PARTIAL	0x1	/* UDP checksum not final: skip it */
#define PKC_O_PATTERN		0x2	/* payload must follow pkc_pattern() */

struct pkc_result {
	uint8_t verdict;	/* enum pkc_verdict */
	uint8_t reason;		/* enum pkc_reason, for PKC_MALFORMED */
	uint8_t csum;		/* enum pkc_csum (UDP) */
	uint8_t family;		/* 4 or 6, 0 if unknown */
	uint8_t flags;		/* Shoal flags byte */
	uint8_t hdr_len;	/* Shoal hdr_len */
	uint16_t sport;		/* UDP ports, host order */
	uint16_t dport;
	uint32_t l4_off;	/* UDP header offset in the buffer */
	uint32_t udp_len;	/* UDP length field */
	uint64_t msg_id;
	uint32_t msg_len;
	uint32_t offset;
	uint32_t payload_len;	/* as sent */
	uint32_t present;	/* payload bytes present after the Shoal header */
	uint32_t word;
	uint64_t deadline;	/* the 64-bit field, with SHOAL_F_DEADLINE */
};

/*
 * One's complement sum of big-endian 16-bit words, not folded.  A 64-bit
 * accumulator cannot overflow for any buffer below 2^48 bytes.  An odd
 * trailing byte is padded with zero, so chain calls on even lengths only.
 */
static inline uint64_t pkc_csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	while (len >= 2) {
		sum += shoal_get16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static inline uint16_t pkc_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The Internet checksum (RFC 1071) of a buffer, as it goes in a header. */
static inline uint16_t pkc_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~pkc_csum_fold(pkc_csum_add(0, p, len));
}

/* An IPv4 header (ihl*4 bytes, checksum included) sums to 0xffff. */
static inline int pkc_ipv4_csum_ok(const uint8_t *iph, size_t hlen)
{
	return pkc_csum_fold(pkc_csum_add(0, iph, hlen)) == 0xffff;
}

/*
 * UDP over IPv4: udp points at the UDP header, ulen bytes (the UDP length).
 * Returns PKC_CSUM_OK, PKC_CSUM_ZERO (sender sent none) or PKC_CSUM_BAD.
 */
static inline int pkc_udp4_csum(const uint8_t *saddr, const uint8_t *daddr,
				const uint8_t *udp, size_t ulen)
{
	uint64_t sum;

	if (ulen < 8)
		return PKC_CSUM_BAD;
	if (shoal_get16(udp + 6) == 0)
		return PKC_CSUM_ZERO;
	sum = pkc_csum_add(0, saddr, 4);
	sum = pkc_csum_add(sum, daddr, 4);
	sum += 17 + ulen;
	sum = pkc_csum_add(sum, udp, ulen);
	return pkc_csum_fold(sum) == 0xffff ? PKC_CSUM_OK : PKC_CSUM_BAD;
}

/* UDP over IPv6: a zero checksum is invalid (RFC 8200 8.1), never "none". */
static inline int pkc_udp6_csum(const uint8_t *saddr, const uint8_t *daddr,
				const uint8_t *udp, size_t ulen)
{
	uint64_t sum;

	if (ulen < 8 || shoal_get16(udp + 6) == 0)
		return PKC_CSUM_BAD;
	sum = pkc_csum_add(0, saddr, 16);
	sum = pkc_csum_add(sum, daddr, 16);
	sum += (uint64_t)ulen + 17;	/* 32-bit length, 24 zero bits, next header */
	sum = pkc_csum_add(sum, udp, ulen);
	return pkc_csum_fold(sum) == 0xffff ? PKC_CSUM_OK : PKC_CSUM_BAD;
}

/*
 * The payload pattern shoal-blast writes, so that a receiver can tell a
 * payload that was cut from one that was damaged: byte at message offset
 * "off" of message "msg_id".
 */
static inline uint8_t pkc_pattern(uint64_t msg_id, uint32_t off)
{
	uint32_t x = (uint32_t)(msg_id >> 32) * 131u + (uint32_t)msg_id * 7u;

	return (uint8_t)(x + off);
}

static inline int pkc_malformed(struct pkc_result *r, int reason)
{
	r->verdict = PKC_MALFORMED;
	r->reason = (uint8_t)reason;
	return PKC_MALFORMED;
}

/*
 * Validate a Shoal DATA header and payload: sh points at the first byte after
 * UDP and len is the UDP payload length (UDP length - 8).  Fills the Shoal
 * fields of r and sets its verdict, which is also returned.
 */
static inline int pkc_check_shoal(const uint8_t *sh, size_t len,
				  unsigned int opts, struct pkc_result *r)
{
	struct shoal_wire_pkt w;
	unsigned int hlen, minlen;
	size_t present, i;

	if (len < SHOAL_HDR_LEN)
		return pkc_malformed(r, PKC_R_SHOAL_SHORT);
	shoal_wire_read(sh, len < SHOAL_HDR_MAX ? (uint32_t)len : SHOAL_HDR_MAX, &w);
	r->flags = w.flags;
	r->hdr_len = w.hdr_len;
	r->msg_id = w.msg_id;
	r->msg_len = w.msg_len;
	r->offset = w.offset;
	r->payload_len = w.payload_len;
	r->word = w.word;

	if (w.version != SHOAL_VERSION)
		return pkc_malformed(r, PKC_R_SHOAL_VERSION);
	if (w.type != SHOAL_T_DATA)
		return pkc_malformed(r, PKC_R_SHOAL_TYPE);
	hlen = r->hdr_len;
	/* the deadline's bytes: the options a DATA may carry are not asked for */
	minlen = shoal_wire_hdr_len(r->flags, 0);
	if (hlen < minlen || hlen > SHOAL_HDR_MAX)
		return pkc_malformed(r, PKC_R_SHOAL_HDR_LEN);
	if (len < hlen)
		return pkc_malformed(r, PKC_R_SHOAL_SHORT);
	r->deadline = w.deadline;	/* 0 without SHOAL_F_DEADLINE */
	present = len - hlen;
	r->present = (uint32_t)present;
	if (present > r->payload_len)
		return pkc_malformed(r, PKC_R_SHOAL_LEN);
	if ((uint64_t)r->offset + r->payload_len > r->msg_len)
		return pkc_malformed(r, PKC_R_SHOAL_RANGE);
	if (opts & PKC_O_PATTERN) {
		for (i = 0; i < present; i++)
			if (sh[hlen + i] != pkc_pattern(r->msg_id, r->offset + (uint32_t)i))
				return pkc_malformed(r, PKC_R_PATTERN);
	}
	if (present == r->payload_len) {
		if (r->flags & SHOAL_F_TRIMMED)
			return pkc_malformed(r, PKC_R_FLAG_WHOLE);
		r->verdict = PKC_WHOLE;
	} else {
		r->verdict = (r->flags & SHOAL_F_TRIMMED) ? PKC_TRIMMED :
							    PKC_TRIMMED_UNMARKED;
	}
	return r->verdict;
}

/* IPv6 extension headers we walk through; anything else ends the chain. */
static inline int pkc_ipv6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60;	/* hop-by-hop, routing, dest opts */
}

/*
 * Validate a packet that starts at its IP header, len bytes (which may
 * include link-layer padding after the IP datagram).  port: UDP destination
 * port to look at, 0 = any; other traffic gives PKC_OTHER.  The UDP checksum
 * is checked unless opts has PKC_O_CSUM_PARTIAL; then a trimmed packet is
 * malformed, since a trimmer must leave a final checksum.
 */
static inline int pkc_check_ip(const uint8_t *p, size_t len, uint16_t port,
			       unsigned int opts, struct pkc_result *r)
{
	const uint8_t *saddr, *daddr, *udp;
	size_t iplen, l4;
	uint8_t proto;
	int v;

	memset(r, 0, sizeof(*r));
	r->verdict = PKC_OTHER;
	if (len < 1)
		return pkc_malformed(r, PKC_R_IP_SHORT);
	r->family = (uint8_t)(p[0] >> 4);
	if (r->family == 4) {
		if (len < 20)
			return pkc_malformed(r, PKC_R_IP_SHORT);
		l4 = (size_t)(p[0] & 0x0f) * 4;
		iplen = shoal_get16(p + 2);
		if (l4 < 20 || iplen < l4)
			return pkc_malformed(r, PKC_R_IP_HDR);
		if (len < l4 || len < iplen)
			return pkc_malformed(r, PKC_R_IP_SHORT);
		if (!pkc_ipv4_csum_ok(p, l4))
			return pkc_malformed(r, PKC_R_IP_CSUM);
		proto = p[9];
		/* MF set or a non-zero fragment offset */
		if (shoal_get16(p + 6) & 0x3fff) {
			if (proto != 17)
				return PKC_OTHER;
			r->verdict = PKC_FRAGMENT;
			return PKC_FRAGMENT;
		}
		saddr = p + 12;
		daddr = p + 16;
	} else if (r->family == 6) {
		if (len < 40)
			return pkc_malformed(r, PKC_R_IP_SHORT);
		iplen = 40 + (size_t)shoal_get16(p + 4);
		if (iplen == 40 && p[6] == 0)	/* jumbogram: not supported */
			return pkc_malformed(r, PKC_R_IP_HDR);
		if (len < iplen)
			return pkc_malformed(r, PKC_R_IP_SHORT);
		proto = p[6];
		l4 = 40;
		/* each extension header is at least 8 bytes: bounded by iplen */
		while (pkc_ipv6_ext(proto)) {
			if (l4 + 8 > iplen)
				return pkc_malformed(r, PKC_R_IP_HDR);
			proto = p[l4];
			l4 += ((size_t)p[l4 + 1] + 1) * 8;
		}
		if (l4 > iplen)
			return pkc_malformed(r, PKC_R_IP_HDR);
		if (proto == 44) {		/* fragment header */
			r->verdict = PKC_FRAGMENT;
			return PKC_FRAGMENT;
		}
		saddr = p + 8;
		daddr = p + 24;
	} else {
		r->family = 0;
		return pkc_malformed(r, PKC_R_IP_VERSION);
	}

	if (proto != 17)
		return PKC_OTHER;
	if (iplen - l4 < 8)
		return pkc_malformed(r, PKC_R_UDP_LEN);
	udp = p + l4;
	r->l4_off = (uint32_t)l4;
	r->sport = shoal_get16(udp);
	r->dport = shoal_get16(udp + 2);
	r->udp_len = shoal_get16(udp + 4);
	if (port && r->dport != port)
		return PKC_OTHER;
	/* we never send trailing bytes after UDP: lengths must agree exactly */
	if (r->udp_len != iplen - l4)
		return pkc_malformed(r, PKC_R_UDP_LEN);

	if (!(opts & PKC_O_CSUM_PARTIAL)) {
		if (r->family == 4)
			r->csum = (uint8_t)pkc_udp4_csum(saddr, daddr, udp, r->udp_len);
		else
			r->csum = (uint8_t)pkc_udp6_csum(saddr, daddr, udp, r->udp_len);
		if (r->csum == PKC_CSUM_BAD)
			return pkc_malformed(r, r->family == 6 && !shoal_get16(udp + 6) ?
					     PKC_R_UDP6_ZERO_CSUM : PKC_R_UDP_CSUM);
	}

	v = pkc_check_shoal(udp + 8, r->udp_len - 8, opts, r);
	if (v != PKC_WHOLE && v != PKC_MALFORMED && (opts & PKC_O_CSUM_PARTIAL))
		return pkc_malformed(r, PKC_R_CSUM_PARTIAL);
	return v;
}

#endif /* _SHOAL_PKTCHECK_H */
