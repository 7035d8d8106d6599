// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/trim_core.h: classification, trimming decisions
 * and the header/data scheduler.  The parser's own tests are in
 * test_pkt_parse.c.
 */
#include <stdlib.h>
#include <string.h>

#include "trim_core.h"
#include "unit.h"
#include "mkpkt.h"

static struct trim_config default_cfg(void)
{
	struct trim_config c = {
		.elig_dscp = ~0ULL, .ctrl_dscp = 1ULL << 48,
		.limit = 12, .hdr_limit = 1024, .tail_prob = 0x7fffffff,
		.hdr_weight = 10, .data_weight = 1, .drr_unit = 1514,
		.keep = 64, .mark_offset = 1, .port_max = 0xffff,
		.elig_proto = 17, .mark_dscp = 0xff, .mark_mask = 0x80,
		.bounce_mask = 0x40, .sched = 1, .shoal_port = 4797,
	};
	return c;
}

static void test_classify(void)
{
	struct trim_config c = default_cfg();
	unsigned char p[2000];
	struct shoal_pkt_hdrs pk;
	enum shoal_pkt_res r;
	unsigned int len;

	len = mkpkt(p, 4, 17, 0, 4797, 1000);
	r = shoal_pkt_parse(p, 128, len, &pk);
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
	r = shoal_pkt_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_CTRL,
		 "CS6 is control");
	p[6] = 0x20;
	r = shoal_pkt_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_CTRL,
		 "a control fragment still goes to the header queue");

	len = mkpkt(p, 4, 17, 0, 4789, 100);
	r = shoal_pkt_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_ENCAP,
		 "vxlan is never trimmed");
	len = mkpkt(p, 6, 47, 0, 0, 100);
	r = shoal_pkt_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_ENCAP,
		 "gre is never trimmed");
	len = mkpkt(p, 4, 1, 0, 0, 100);
	r = shoal_pkt_parse(p, 128, len, &pk);
	CHECK_EQ(trim_classify(&c, r, &pk, 0), TRIM_C_PROTO,
		 "icmp is not eligible");
	CHECK_EQ(trim_classify(&c, SHOAL_PKT_NONIP, &pk, 0), TRIM_C_NONIP,
		 "non-IP stays non-IP");
}

static void test_limits(void)
{
	struct trim_config c = default_cfg();
	struct shoal_pkt_hdrs pk = { .l4off = 20, .l4hdr = 8 };

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

/* Return to sender: a Shoal packet keeps its UDP ports (the sender
 * listens on the Shoal port only) and goes back as control
 */
static void test_rts_plan(void)
{
	struct trim_config c = default_cfg();
	unsigned char p[2000];
	struct shoal_pkt_hdrs pk;
	struct trim_rts rts;
	unsigned int len;
	int v;

	for (v = 4; v <= 6; v += 2) {
		len = mkpkt(p, v, 17, 0, 4797, 1000);
		CHECK(shoal_pkt_parse(p, len, len, &pk) == SHOAL_PKT_OK,
		      "v%d shoal parses", v);
		rts = trim_rts_plan(&c, &pk);
		CHECK(rts.shoal && !rts.swap_ports && rts.dscp == 48,
		      "v%d shoal: ports kept, cs6 (%d %d %u)", v, rts.shoal,
		      rts.swap_ports, rts.dscp);
	}
	len = mkpkt(p, 4, 17, 0, 4798, 1000);
	shoal_pkt_parse(p, len, len, &pk);
	rts = trim_rts_plan(&c, &pk);
	CHECK(!rts.shoal && rts.swap_ports && rts.dscp == 0xff,
	      "other udp port: ports swapped, dscp kept");
	len = mkpkt(p, 4, 6, 0, 4797, 1000);
	shoal_pkt_parse(p, len, len, &pk);
	rts = trim_rts_plan(&c, &pk);
	CHECK(!rts.shoal && rts.swap_ports && rts.dscp == 0xff,
	      "tcp to the shoal port: today's swap");
	len = mkpkt(p, 4, 17, 0, 4797, 1000);
	shoal_pkt_parse(p, len, len, &pk);
	c.ctrl_dscp = (1ULL << 40) | (1ULL << 56);
	rts = trim_rts_plan(&c, &pk);
	CHECK_EQ(rts.dscp, 40, "lowest control dscp");
	c.ctrl_dscp = 0;
	rts = trim_rts_plan(&c, &pk);
	CHECK(rts.shoal && rts.dscp == 0xff, "no control dscp: kept");
	c.shoal_port = 0;
	rts = trim_rts_plan(&c, &pk);
	CHECK(!rts.shoal && rts.swap_ports, "shoal_port none: today's swap");
}

int main(void)
{
	test_classify();
	test_limits();
	test_tail();
	test_sched();
	test_rts_plan();
	return unit_done();
}
