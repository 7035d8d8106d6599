// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Shoal flow key, net/sched/afq_key_core.h: which
 * fields make a Shoal packet one flow for sch_afq and calq's fq rank.
 */
#include <stdlib.h>
#include <string.h>

#include "afq_key_core.h"
#include "unit.h"
#include "mkpkt.h"

#define PORT	4797

/* A Shoal packet: IPv@ipver, UDP @usport -> @udport, a DATA header of
 * Shoal ports @ssport -> @sdport and message @id, @payload bytes of
 * payload; returns its length
 */
static unsigned int mkshoal(unsigned char *p, int ipver, int usport,
			    int udport, int ssport, int sdport,
			    unsigned long long id, unsigned int payload)
{
	struct shoal_wire_pkt w = {
		.type = SHOAL_T_DATA, .sport = ssport, .dport = sdport,
		.msg_id = id, .msg_len = 60000, .payload_len = payload,
	};
	unsigned int l4 = ipver == 4 ? 20 : 40, len, i;

	len = mkpkt(p, ipver, 17, 0, udport, SHOAL_HDR_LEN + payload);
	p[l4] = usport >> 8;
	p[l4 + 1] = usport & 0xff;
	for (i = 0; i < (ipver == 4 ? 4u : 16u); i++) {
		p[(ipver == 4 ? 12 : 8) + i] = 10 + i;		/* source */
		p[(ipver == 4 ? 16 : 24) + i] = 100 + i;	/* destination */
	}
	shoal_wire_build(p + l4 + 8, &w);
	return len;
}

static bool key(const unsigned char *p, unsigned int avail, unsigned int len,
		bool per_msg, struct afq_key_fields *f)
{
	memset(f, 0xa5, sizeof(*f));	/* every field must be written */
	return afq_key_shoal(p, avail, len, PORT, per_msg, f);
}

static void test_same_flow(int ipver)
{
	unsigned char a[2000], b[2000];
	struct afq_key_fields fa, fb;
	unsigned int la, lb;

	la = mkshoal(a, ipver, 40001, PORT, 1000, 2000, 7, 1000);
	lb = mkshoal(b, ipver, 51234, PORT, 1000, 2000, 9, 400);
	CHECK(key(a, AFQ_KEY_PARSE_LEN, la, false, &fa) &&
	      key(b, AFQ_KEY_PARSE_LEN, lb, false, &fb),
	      "v%d: Shoal packets to the Shoal port are keyed", ipver);
	CHECK(!memcmp(&fa, &fb, sizeof(fa)),
	      "v%d: two UDP source ports, two messages, one flow", ipver);
	CHECK_EQ(fa.sport, 1000, "the key holds the Shoal source port");
	CHECK_EQ(fa.dport, 2000, "the key holds the Shoal destination port");
	CHECK_EQ(fa.msg_id, 0, "the flow key leaves the message id out");
	CHECK_EQ(fa.tag, AFQ_KEY_TAG_SHOAL, "the key is tagged Shoal");

	/* per message: the same message from two UDP ports is one flow,
	 * two messages are two
	 */
	lb = mkshoal(b, ipver, 51234, PORT, 1000, 2000, 7, 400);
	CHECK(key(a, AFQ_KEY_PARSE_LEN, la, true, &fa) &&
	      key(b, AFQ_KEY_PARSE_LEN, lb, true, &fb) &&
	      !memcmp(&fa, &fb, sizeof(fa)) && fa.msg_id == 7,
	      "v%d: per message: one message, two UDP ports, one key", ipver);
	lb = mkshoal(b, ipver, 40001, PORT, 1000, 2000, 8, 1000);
	CHECK(key(b, AFQ_KEY_PARSE_LEN, lb, true, &fb) &&
	      memcmp(&fa, &fb, sizeof(fa)),
	      "v%d: per message: two messages, two keys", ipver);

	/* different Shoal ports differ */
	lb = mkshoal(b, ipver, 40001, PORT, 1001, 2000, 7, 1000);
	CHECK(key(a, AFQ_KEY_PARSE_LEN, la, false, &fa) &&
	      key(b, AFQ_KEY_PARSE_LEN, lb, false, &fb) &&
	      memcmp(&fa, &fb, sizeof(fa)),
	      "v%d: another Shoal source port, another flow", ipver);
	lb = mkshoal(b, ipver, 40001, PORT, 1000, 2001, 7, 1000);
	CHECK(key(b, AFQ_KEY_PARSE_LEN, lb, false, &fb) &&
	      memcmp(&fa, &fb, sizeof(fa)),
	      "v%d: another Shoal destination port, another flow", ipver);

	/* a bounced header comes back from the Shoal port, ports swapped */
	lb = mkshoal(b, ipver, PORT, 40001, 1000, 2000, 7, 0);
	CHECK(key(b, AFQ_KEY_PARSE_LEN, lb, false, &fb) && fb.sport == 1000,
	      "v%d: a packet from the Shoal port is keyed too", ipver);
}

static void test_trimmed(void)
{
	unsigned char a[2000], b[2000];
	struct afq_key_fields fa, fb;
	unsigned int la, lb;

	/* a trimmed packet keeps its header: the same flow as whole */
	la = mkshoal(a, 4, 40001, PORT, 1000, 2000, 7, 1400);
	lb = mkshoal(b, 4, 40002, PORT, 1000, 2000, 7, 1400);
	lb = 20 + 8 + SHOAL_HDR_LEN;
	b[2] = lb >> 8;
	b[3] = lb & 0xff;
	b[24] = (lb - 20) >> 8;
	b[25] = (lb - 20) & 0xff;
	b[28 + SHOAL_OFF_FLAGS] |= SHOAL_F_TRIMMED;
	CHECK(key(a, AFQ_KEY_PARSE_LEN, la, false, &fa) &&
	      key(b, AFQ_KEY_PARSE_LEN, lb, false, &fb) &&
	      !memcmp(&fa, &fb, sizeof(fa)),
	      "a trimmed packet keys like the whole one");
}

static void test_fallback(void)
{
	unsigned char p[2000];
	struct afq_key_fields f, g;
	unsigned int len, cut;

	len = mkshoal(p, 4, 40001, PORT, 1000, 2000, 7, 100);
	memset(&g, 0x5a, sizeof(g));
	f = g;
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, 0, false, &f) &&
	      !memcmp(&f, &g, sizeof(f)),
	      "port 0: no packet is a Shoal packet, the key is untouched");
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, 4798, false, &f),
	      "another port: the 5-tuple");

	/* a Shoal header cut short, in the packet or in the copy */
	for (cut = 20 + 8; cut < 20 + 8 + SHOAL_HDR_LEN; cut++) {
		unsigned char q[128];

		mkshoal(q, 4, 40001, PORT, 1000, 2000, 7, 0);
		q[2] = cut >> 8;
		q[3] = cut & 0xff;
		q[24] = (cut - 20) >> 8;
		q[25] = (cut - 20) & 0xff;
		if (afq_key_shoal(q, cut, cut, PORT, false, &f))
			break;
	}
	CHECK_EQ(cut, 20 + 8 + SHOAL_HDR_LEN,
		 "a header shorter than 32 bytes falls back to the 5-tuple");
	CHECK(!afq_key_shoal(p, 20 + 8 + SHOAL_HDR_LEN - 1, len, PORT, false,
			     &f),
	      "a copy that ends inside the header: the 5-tuple");
	CHECK(afq_key_shoal(p, 20 + 8 + SHOAL_HDR_LEN, len, PORT, false, &f),
	      "the fixed header is all the key needs");

	p[28] = (2 << 4) | SHOAL_T_DATA;	/* version 2 */
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, PORT, false, &f),
	      "another Shoal version: the 5-tuple");
	p[28] = (SHOAL_VERSION << 4) | SHOAL_T_DATA;

	p[6] = 0x20;	/* MF: a fragment */
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, PORT, false, &f),
	      "a fragment: the 5-tuple");
	p[6] = 0x40;
	p[9] = 6;	/* TCP to the Shoal port */
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, PORT, false, &f),
	      "TCP to the Shoal port: the 5-tuple");
	p[9] = 17;
	p[25] ^= 1;	/* UDP length disagrees */
	CHECK(!afq_key_shoal(p, AFQ_KEY_PARSE_LEN, len, PORT, false, &f),
	      "unsound UDP header: the 5-tuple");
}

/* Every truncation and byte flip of a Shoal packet, from an exact-size
 * heap copy: ASan catches any read past avail
 */
static void test_bounds(void)
{
	unsigned char p[2000];
	struct afq_key_fields f;
	unsigned int len, avail, i, ok = 0;
	int ipver;

	for (ipver = 4; ipver <= 6; ipver += 2) {
		len = mkshoal(p, ipver, 40001, PORT, 1000, 2000, 7, 64);
		for (avail = 0; avail <= AFQ_KEY_PARSE_LEN; avail++) {
			for (i = 0; i < (avail < 90 ? avail : 90); i++) {
				unsigned char *c = malloc(avail ? avail : 1);

				memcpy(c, p, avail);
				c[i] ^= 0xff;
				(void)afq_key_shoal(c, avail, len, PORT, true, &f);
				c[i] ^= 0xff;
				ok += afq_key_shoal(c, avail, len, PORT, true,
						    &f);
				free(c);
			}
		}
	}
	CHECK(ok > 0, "truncated and flipped packets: no read out of bounds");
}

int main(void)
{
	test_same_flow(4);
	test_same_flow(6);
	test_trimmed();
	test_fallback();
	test_bounds();
	return unit_done();
}
