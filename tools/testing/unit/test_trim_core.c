// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/trim_core.h: parsing, classification, trimming
 * decisions and the header/data scheduler.
 */
#include <stdlib.h>
#include <string.h>

#include "trim_core.h"
#include "unit.h"

/* Build an IPv4 or IPv6 + UDP/TCP packet into @p; returns its length */
static unsigned int mkpkt(unsigned char *p, int ipver, int proto, int dscp,
			  int dport, unsigned int payload)
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

static struct trim_config default_cfg(void)
{
	struct trim_config c = {
		.elig_dscp = ~0ULL, .ctrl_dscp = 1ULL << 48,
		.limit = 12, .hdr_limit = 1024, .tail_prob = 0x7fffffff,
		.hdr_weight = 10, .data_weight = 1, .drr_unit = 1514,
		.keep = 64, .mark_offset = 1, .port_max = 0xffff,
		.elig_proto = 17, .mark_dscp = 0xff, .mark_mask = 0x80,
		.bounce_mask = 0x40, .sched = 1,
	};
	return c;
}

static void test_parse_v4(void)
{
	unsigned char p[2000];
	struct trim_pkt pk;
	unsigned int len;

	len = mkpkt(p, 4, 17, 10, 4797, 1000);
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_DATA, "v4 udp parses");
	CHECK_EQ(pk.l3len, len, "v4 l3len");
	CHECK_EQ(pk.l4off, 20, "v4 l4off");
	CHECK_EQ(pk.l4hdr, 8, "v4 udp header length");
	CHECK_EQ(pk.dport, 4797, "v4 dport");
	CHECK_EQ(pk.dscp, 10, "v4 dscp");

	p[0] = 0x46;	/* one option word: l4 moves by 4, UDP len now wrong */
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_ENCAP,
		 "v4 UDP length disagreeing with IP length is untrusted");
	p[0] = 0x44;
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_ENCAP, "v4 ihl < 5");
	p[0] = 0x45;
	CHECK_EQ(trim_parse(p, 128, len - 1, &pk), TRIM_C_ENCAP,
		 "v4 tot_len beyond the packet");
	CHECK_EQ(trim_parse(p, 19, len, &pk), TRIM_C_ENCAP, "v4 truncated");
	CHECK_EQ(trim_parse(p, 24, len, &pk), TRIM_C_ENCAP,
		 "v4 UDP header not available");

	p[6] = 0x20;	/* MF */
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_FRAG, "v4 MF fragment");
	p[6] = 0x00;
	p[7] = 0x10;	/* offset */
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_FRAG,
		 "v4 later fragment");

	len = mkpkt(p, 4, 6, 0, 80, 100);
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_DATA, "v4 tcp parses");
	CHECK_EQ(pk.l4hdr, 20, "tcp header length from doff");
	p[20 + 12] = 4 << 4;
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_ENCAP, "tcp doff < 5");

	p[0] = 0x25;
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_NONIP, "ip version 2");
	CHECK_EQ(trim_parse(p, 0, 0, &pk), TRIM_C_NONIP, "empty packet");
}

static void test_parse_v6(void)
{
	unsigned char p[2000];
	struct trim_pkt pk;
	unsigned int len;

	len = mkpkt(p, 6, 17, 46, 4797, 500);
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_DATA, "v6 udp parses");
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
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_DATA,
		 "v6 with hop-by-hop parses");
	CHECK_EQ(pk.l4off, 48, "v6 l4off after extension header");

	p[40] = 44;	/* then a fragment header */
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_FRAG,
		 "v6 fragment header");
	p[40] = 0;	/* hop-by-hop chains forever: bounded */
	CHECK_EQ(trim_parse(p, 128, len, &pk), TRIM_C_ENCAP,
		 "v6 endless extension chain is refused");
	CHECK_EQ(trim_parse(p, 39, len, &pk), TRIM_C_ENCAP, "v6 truncated");
}

static void test_classify(void)
{
	struct trim_config c = default_cfg();
	unsigned char p[2000];
	struct trim_pkt pk;
	enum trim_class r;
	unsigned int len;

	len = mkpkt(p, 4, 17, 0, 4797, 1000);
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_DATA, "udp is data");
	CHECK_EQ(trim_classify(&c, r, &pk, 0x80), TRIM_C_HDR,
		 "TRIMMED flag makes a header");
	CHECK_EQ(trim_classify(&c, r, &pk, -1), TRIM_C_DATA,
		 "no flag byte: data");
	c.mark_mask = 0;
	CHECK_EQ(trim_classify(&c, r, &pk, 0x80), TRIM_C_DATA,
		 "flag ignored without mark_mask");
	c = default_cfg();

	c.mark_dscp = 0;
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_HDR,
		 "trimmed DSCP makes a header");
	c = default_cfg();

	c.port_min = 5000;
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_PROTO,
		 "port below range");
	c.port_min = 4797;
	c.port_max = 4797;
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_DATA, "port in range");
	c = default_cfg();
	c.elig_dscp = ~1ULL;
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_PROTO,
		 "dscp not eligible");
	c = default_cfg();
	c.elig_proto = 6;
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_PROTO,
		 "udp when tcp is eligible");
	c = default_cfg();

	len = mkpkt(p, 4, 17, 48, 4797, 100);
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_CTRL,
		 "CS6 is control");
	p[6] = 0x20;
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_CTRL,
		 "a control fragment still goes to the header queue");

	len = mkpkt(p, 4, 17, 0, 4789, 100);
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_ENCAP,
		 "vxlan is never trimmed");
	len = mkpkt(p, 6, 47, 0, 0, 100);
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_ENCAP,
		 "gre is never trimmed");
	len = mkpkt(p, 4, 1, 0, 0, 100);
	r = trim_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_PROTO,
		 "icmp is not eligible");
	CHECK_EQ(trim_classify(&c, TRIM_C_NONIP, &pk, 0), TRIM_C_NONIP,
		 "non-IP stays non-IP");
}

static void test_limits(void)
{
	struct trim_config c = default_cfg();
	struct trim_pkt pk = { .l4off = 20, .l4hdr = 8 };

	CHECK_EQ(trim_keep_len(&c, &pk), 92, "keep after UDP");
	CHECK(!trim_data_full(&c, 11, 0, 1500), "11 of 12 is not full");
	CHECK(trim_data_full(&c, 12, 0, 1500), "12 of 12 is full");
	c.limit_bytes = 3000;
	CHECK(!trim_data_full(&c, 1, 1500, 1500), "bytes fit exactly");
	CHECK(trim_data_full(&c, 1, 1500, 1501), "one byte over");
	CHECK(trim_hdr_full(&c, 1024, 0, 64), "header queue full");
	c.hdr_limit_bytes = 100;
	CHECK(trim_hdr_full(&c, 1, 64, 64), "header bytes full");
}

static void test_tail(void)
{
	struct trim_config c = default_cfg();
	unsigned int i, hits = 0;

	c.tail_prob = 0;
	CHECK(!trim_pick_tail(&c, 0, true, 1500, 1500), "prob 0: never");
	c.tail_prob = 0xffffffffU;
	CHECK(trim_pick_tail(&c, 0xffffffffU, true, 1500, 1500),
	      "prob 1: always");
	CHECK(!trim_pick_tail(&c, 0, true, 1000, 1500),
	      "a shorter tail makes no room");
	CHECK(!trim_pick_tail(&c, 0, false, 1500, 1500),
	      "an untrimmable tail is left alone");
	c.tail_prob = 0x80000000U;
	srand(1);
	for (i = 0; i < 10000; i++)
		hits += trim_pick_tail(&c, ((unsigned int)rand() << 16) ^
				       (unsigned int)rand(), true, 1500, 1500);
	CHECK(hits > 4700 && hits < 5300, "prob 0.5: %u of 10000", hits);
}

static void test_sched(void)
{
	struct trim_config c = default_cfg();
	struct trim_sched_state s = { 0 };
	unsigned long long bytes[2] = { 0, 0 };
	unsigned int n[2] = { 0, 0 }, i;
	enum trim_queue q;

	CHECK_EQ(trim_sched_pick(&c, &s, false, 0, false, 0), TRIM_Q_NONE,
		 "nothing queued");
	CHECK_EQ(trim_sched_pick(&c, &s, false, 0, true, 1500), TRIM_Q_DATA,
		 "lone data queue is served");
	CHECK_EQ(trim_sched_pick(&c, &s, true, 64, false, 0), TRIM_Q_HDR,
		 "lone header queue is served");

	c.sched = 0;
	for (i = 0; i < 100; i++)
		n[trim_sched_pick(&c, &s, true, 64, true, 1500)]++;
	CHECK_EQ(n[TRIM_Q_HDR], 100, "strict: headers always first");

	c.sched = 1;
	n[0] = n[1] = 0;
	for (i = 0; i < 1100; i++)
		n[trim_sched_pick(&c, &s, true, 64, true, 1500)]++;
	CHECK_EQ(n[TRIM_Q_HDR], 1000, "wrr 10:1 headers");
	CHECK_EQ(n[TRIM_Q_DATA], 100, "wrr 10:1 data");

	c.sched = 2;
	c.hdr_weight = 1;
	c.data_weight = 1;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 10000; i++) {
		q = trim_sched_pick(&c, &s, true, 92, true, 1514);
		bytes[q] += q == TRIM_Q_HDR ? 92 : 1514;
	}
	CHECK(bytes[0] > bytes[1] * 0.97 && bytes[0] < bytes[1] * 1.03,
	      "drr 1:1 shares bytes, not packets (%llu vs %llu)",
	      bytes[0], bytes[1]);
	c.hdr_weight = 10;
	bytes[0] = bytes[1] = 0;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 20000; i++) {
		q = trim_sched_pick(&c, &s, true, 92, true, 1514);
		bytes[q] += q == TRIM_Q_HDR ? 92 : 1514;
	}
	CHECK(bytes[0] > bytes[1] * 9.5 && bytes[0] < bytes[1] * 10.5,
	      "drr 10:1 byte ratio (%llu vs %llu)", bytes[0], bytes[1]);
	c.drr_unit = 1;	/* tiny quanta: the loop guard still answers */
	q = trim_sched_pick(&c, &s, true, 60000, true, 60000);
	CHECK(q == TRIM_Q_HDR || q == TRIM_Q_DATA, "drr guard terminates");
}

int main(void)
{
	test_parse_v4();
	test_parse_v6();
	test_classify();
	test_limits();
	test_tail();
	test_sched();
	return unit_done();
}
