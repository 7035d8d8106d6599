// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the IP/L4 packet parser, include/net/shoal/pkt_parse.h
 * (moved from test_trim_core.c with the parser).
 */
#include <stdlib.h>
#include <string.h>

#include <net/shoal/pkt_parse.h>
#include "unit.h"
#include "mkpkt.h"

static void test_parse_v4(void)
{
	unsigned char p[2000];
	struct shoal_pkt_hdrs pk;
	unsigned int len;

	len = mkpkt(p, 4, 17, 10, 4797, 1000);
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_OK, "v4 udp parses");
	CHECK_EQ(pk.l3len, len, "v4 l3len");
	CHECK_EQ(pk.l4off, 20, "v4 l4off");
	CHECK_EQ(pk.l4hdr, 8, "v4 udp header length");
	CHECK_EQ(pk.dport, 4797, "v4 dport");
	CHECK_EQ(pk.dscp, 10, "v4 dscp");

	p[0] = 0x46;	/* one option word: l4 moves by 4, UDP len now wrong */
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_BAD,
		 "v4 UDP length disagreeing with IP length is untrusted");
	p[0] = 0x44;
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_BAD, "v4 ihl < 5");
	p[0] = 0x45;
	CHECK_EQ(shoal_pkt_parse(p, 128, len - 1, &pk), SHOAL_PKT_BAD,
		 "v4 tot_len beyond the packet");
	CHECK_EQ(shoal_pkt_parse(p, 19, len, &pk), SHOAL_PKT_BAD, "v4 truncated");
	CHECK_EQ(shoal_pkt_parse(p, 24, len, &pk), SHOAL_PKT_BAD,
		 "v4 UDP header not available");

	p[6] = 0x20;	/* MF */
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_FRAG, "v4 MF fragment");
	p[6] = 0x00;
	p[7] = 0x10;	/* offset */
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_FRAG,
		 "v4 later fragment");

	len = mkpkt(p, 4, 6, 0, 80, 100);
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_OK, "v4 tcp parses");
	CHECK_EQ(pk.l4hdr, 20, "tcp header length from doff");
	p[20 + 12] = 4 << 4;
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_BAD, "tcp doff < 5");

	p[0] = 0x25;
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_NONIP, "ip version 2");
	CHECK_EQ(shoal_pkt_parse(p, 0, 0, &pk), SHOAL_PKT_NONIP, "empty packet");
}

static void test_parse_v6(void)
{
	unsigned char p[2000];
	struct shoal_pkt_hdrs pk;
	unsigned int len;

	len = mkpkt(p, 6, 17, 46, 4797, 500);
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_OK, "v6 udp parses");
	CHECK_EQ(pk.l4off, 40, "v6 l4off");
	CHECK_EQ(pk.dscp, 46, "v6 dscp across the two bytes");
	CHECK_EQ(pk.l3len, len, "v6 l3len");

	/* hop-by-hop (8 bytes) then UDP */
	len = mkpkt(p, 6, 17, 0, 4797, 500);
	memmove(p + 48, p + 40, len - 40);
	memset(p + 40, 0, 8);
	p[6] = 0;
	p[40] = 17;
	len += 8;
	p[4] = (len - 40) >> 8;
	p[5] = (len - 40) & 0xff;
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_OK,
		 "v6 with hop-by-hop parses");
	CHECK_EQ(pk.l4off, 48, "v6 l4off after extension header");

	p[40] = 44;	/* then a fragment header */
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_FRAG,
		 "v6 fragment header");
	p[40] = 0;	/* hop-by-hop chains forever: bounded */
	CHECK_EQ(shoal_pkt_parse(p, 128, len, &pk), SHOAL_PKT_BAD,
		 "v6 endless extension chain is refused");
	CHECK_EQ(shoal_pkt_parse(p, 39, len, &pk), SHOAL_PKT_BAD, "v6 truncated");
}

int main(void)
{
	test_parse_v4();
	test_parse_v6();
	return unit_done();
}
