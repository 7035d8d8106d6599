/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test packets for the unit tests of the packet parser and its users.
 */
#ifndef _SHOAL_UNIT_MKPKT_H
#define _SHOAL_UNIT_MKPKT_H

#include <string.h>

/* Build an IPv4 or IPv6 + UDP/TCP packet into @p; returns its length */
static inline unsigned int mkpkt(unsigned char *p, int ipver, int proto,
				  int dscp, int dport, unsigned int payload)
{
	unsigned int l4 = ipver == 4 ? 20 : 40;
	unsigned int l4hdr = proto == 6 ? 20 : 8;
	unsigned int len = l4 + l4hdr + payload;

	memset(p, 0, len);
	if (ipver == 4) {
		p[0] = 0x45;
		p[1] = dscp << 2;
		p[2] = len >> 8;
		p[3] = len & 0xff;
		p[6] = 0x40;		/* DF only: not a fragment */
		p[8] = 64;
		p[9] = proto;
	} else {
		p[0] = 0x60 | (dscp >> 2);
		p[1] = (dscp & 3) << 6;
		p[4] = (len - 40) >> 8;
		p[5] = (len - 40) & 0xff;
		p[6] = proto;
		p[7] = 64;
	}
	p[l4 + 2] = dport >> 8;
	p[l4 + 3] = dport & 0xff;
	if (proto == 17) {
		p[l4 + 4] = (len - l4) >> 8;
		p[l4 + 5] = (len - l4) & 0xff;
	} else {
		p[l4 + 12] = 5 << 4;
	}
	return len;
}

#endif /* _SHOAL_UNIT_MKPKT_H */
