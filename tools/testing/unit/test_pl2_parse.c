// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF switch's own reading of the Shoal header (pl2_classify() in
 * tools/pl2-switch/pl2_switch_core.h; the verifier is why it has one)
 * held against the tree's one parser (include/net/shoal/wire.h) on the
 * same bytes: a valid header of every type, each cut at every length,
 * and random and mutated bytes.  Two claims on every input:
 *
 *  1. pl2_classify() is the switch's rule applied to the fields that
 *     shoal_wire_read() finds: the same version, type, flags, hdr_len
 *     and word, so its kind, demand and unsolicited bit are exactly
 *     those the shared reader's fields give.
 *  2. What shoal_wire_parse() accepts, the switch takes as the same type
 *     (RSV, DATA or another it passes) with the same demand and flags;
 *     what the switch calls malformed, shoal_wire_parse() refuses.  The
 *     one exception is named: an RSV for 0 packets, which the endpoint
 *     does not check and the switch will not grant.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pl2_switch_core.h"
#include <net/shoal/wire.h>
#include "unit.h"

#define KMAX		4
#define NO_MSG_LIMIT	0xffffffffU

/* Claim 1: the switch's rule on the shared reader's fields */
static u32 expect_kind(const u8 *b, u32 avail, u32 len, u32 *demand,
		       bool *unsol)
{
	struct shoal_wire_pkt r;

	*demand = 0;
	*unsol = false;
	if (len < SHOAL_HDR_LEN || shoal_wire_read(b, avail, &r))
		return PL2_MALFORMED;
	if (r.version != SHOAL_VERSION || r.hdr_len < SHOAL_HDR_LEN ||
	    r.hdr_len > SHOAL_HDR_MAX || r.hdr_len > len)
		return PL2_MALFORMED;
	if (r.type == SHOAL_T_RSV) {
		if (!PL2_RSV_DEMAND(r.word) || (r.flags & SHOAL_F_BOUNCED))
			return PL2_MALFORMED;
		*demand = PL2_RSV_DEMAND(r.word) < KMAX ? PL2_RSV_DEMAND(r.word) : KMAX;
		return PL2_RSV;
	}
	if (r.type == SHOAL_T_DATA) {
		*unsol = !(r.flags & SHOAL_F_SCHED);
		return PL2_DATA;
	}
	return shoal_wire_type_known(r.type) ? PL2_OTHER : PL2_MALFORMED;
}

struct tally {
	unsigned long n, bad1, bad2, accepted, kinds[4];
	char first[160];	/* the first disagreement */
};

/* Both claims on @avail bytes at @b of a UDP payload of @len bytes */
static void judge(const u8 *b, u32 avail, u32 len, struct tally *t)
{
	struct shoal_wire_pkt w;
	struct pl2_pkt p;
	u32 kind, demand;
	bool unsol, ok2;
	int err;
	u8 *h;

	/* an exact-size copy: ASan sees a read past what is there */
	h = malloc(avail ? avail : 1);
	if (!h)
		abort();
	memcpy(h, b, avail);
	if (!avail)
		h[0] = 0;	/* pl2_classify reads byte 0 first (BPF: a copy) */
	pl2_classify(h, len, KMAX, &p);
	kind = expect_kind(h, avail, len, &demand, &unsol);
	err = shoal_wire_parse(h, avail, len, NO_MSG_LIMIT, &w);
	free(h);

	t->n++;
	t->kinds[p.kind & 3]++;
	if (p.kind != kind || p.demand != demand || p.unsol != unsol) {
		if (!t->bad1++)
			snprintf(t->first, sizeof(t->first),
				 "claim 1: len %u: pl2 %u/%u/%d, reader %u/%u/%d",
				 len, p.kind, p.demand, p.unsol, kind, demand,
				 unsol);
	}
	if (!err) {
		t->accepted++;
		if (w.type == SHOAL_T_RSV)
			ok2 = (p.kind == PL2_RSV && p.word == w.word &&
			       p.demand == (PL2_RSV_DEMAND(w.word) < KMAX ?
					    PL2_RSV_DEMAND(w.word) : KMAX)) ||
			      (!PL2_RSV_DEMAND(w.word) && p.kind == PL2_MALFORMED);
		else if (w.type == SHOAL_T_DATA)
			ok2 = p.kind == PL2_DATA &&
			      p.unsol == !(w.flags & SHOAL_F_SCHED);
		else
			ok2 = p.kind == PL2_OTHER;
	} else {
		ok2 = true;	/* the switch checks less: it may pass it */
	}
	if (p.kind == PL2_MALFORMED && !err &&
	    !(w.type == SHOAL_T_RSV && !PL2_RSV_DEMAND(w.word)))
		ok2 = false;
	if (!ok2 && !t->bad2++)
		snprintf(t->first, sizeof(t->first),
			 "claim 2: len %u: pl2 kind %u, wire %d type %u word %u",
			 len, p.kind, err, w.type, w.word);
}

/* A header shoal_wire_parse() accepts, of @type, into @b; its length */
static u32 valid(u8 *b, u8 type, u8 flags, u8 options, u32 word)
{
	struct shoal_wire_pkt p = {
		.type = type, .flags = flags, .options = options,
		.sport = 4000, .dport = 4001, .msg_id = 0x0102030405060708ULL,
		.msg_len = 100000, .offset = 1400, .word = word,
		.deadline = 123456789, .ack_id = 77,
	};

	if (type == SHOAL_T_DATA)
		p.payload_len = 1400;
	return shoal_wire_build(b, &p);
}

static void test_valid(void)
{
	static const struct {
		u8 type, flags, options;
		u32 word;
		const char *name;
	} v[] = {
		{ SHOAL_T_DATA, 0, 0, 0, "unsolicited DATA" },
		{ SHOAL_T_DATA, SHOAL_F_SCHED, 0, 0, "solicited DATA" },
		{ SHOAL_T_DATA, SHOAL_F_SCHED | SHOAL_F_DEADLINE, SHOAL_O_ACK,
		  0, "DATA with a deadline and an ACK" },
		{ SHOAL_T_DATA, SHOAL_F_TRIMMED | SHOAL_F_RETX, 0, 0,
		  "trimmed DATA" },
		{ SHOAL_T_CREDIT_REQ, SHOAL_F_CSN, 0, 0, "CREDIT_REQ" },
		{ SHOAL_T_CREDIT, 0, 0, 1400, "CREDIT" },
		{ SHOAL_T_RESEND, 0, 0, 700, "RESEND" },
		{ SHOAL_T_BUSY, 0, 0, 0, "BUSY" },
		{ SHOAL_T_UNKNOWN, 0, 0, 111, "UNKNOWN" },
		{ SHOAL_T_ACK, SHOAL_F_REQUEST, 0, 0, "ACK" },
		{ SHOAL_T_ABORT, 0, 0, 125, "ABORT" },
		{ SHOAL_T_RSV, 0, 0, 1, "RSV for 1" },
		{ SHOAL_T_RSV, SHOAL_F_DEADLINE, 0, 3, "RSV for 3, deadline" },
		{ SHOAL_T_RSV, 0, 0, 1000, "RSV for 1000 (capped)" },
		{ SHOAL_T_RSV, 0, 0, 0, "RSV for 0 (the named exception)" },
		{ SHOAL_T_GRT, SHOAL_F_BOUNCED, 0, 0x10002, "GRT" },
	};
	u8 b[SHOAL_HDR_MAX + 1400];
	struct shoal_wire_pkt w;
	unsigned int i;
	u32 n, len, cut;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tally t = { 0 }, tc = { 0 };

		memset(b, 0, sizeof(b));
		n = valid(b, v[i].type, v[i].flags, v[i].options, v[i].word);
		len = n;
		if (v[i].type == SHOAL_T_DATA)	/* a trimmed one: 100 left */
			len += v[i].flags & SHOAL_F_TRIMMED ? 100 : 1400;
		CHECK(!shoal_wire_parse(b, n, len, NO_MSG_LIMIT, &w),
		      "%s: the shared parser accepts it", v[i].name);
		judge(b, n, len, &t);
		CHECK(!t.bad1 && !t.bad2, "%s: pl2 agrees%s%s", v[i].name,
		      t.first[0] ? ": " : "", t.first);
		/* the same header cut short at every length */
		for (cut = 0; cut < n; cut++)
			judge(b, cut, cut, &tc);
		CHECK(!tc.bad1 && !tc.bad2 && tc.kinds[PL2_MALFORMED] == n,
		      "%s: cut at each of %u lengths, both refuse%s%s",
		      v[i].name, n, tc.first[0] ? ": " : "", tc.first);
	}
}

/* Mutations of valid headers, and bytes with no structure at all */
static void test_fuzz(void)
{
	u8 b[SHOAL_HDR_MAX + 8];
	struct tally t = { 0 }, r = { 0 };
	unsigned long i;
	u32 n, len, avail;
	int k;

	srand(21);
	for (i = 0; i < 200000; i++) {
		memset(b, 0, sizeof(b));
		n = valid(b, (u8)(1 + rand() % 11), (u8)rand(),
			  (u8)(rand() & 1), (u32)(rand() % 6));
		for (k = rand() % 4; k > 0; k--)
			b[rand() % n] ^= (u8)(1 << (rand() % 8));
		if (rand() % 3 == 0)	/* a shorter or longer hdr_len */
			b[SHOAL_OFF_HDR_LEN] = (u8)(rand() % 72);
		/* the UDP payload: the header, less, or more behind it */
		len = rand() % 4 ? n + (u32)(rand() % 1500) : (u32)(rand() % (n + 1));
		avail = len < SHOAL_HDR_MAX ? len : SHOAL_HDR_MAX;
		judge(b, avail, len, &t);
	}
	CHECK(!t.bad1, "mutated headers: pl2 reads what the shared reader reads "
	      "(%lu inputs)%s%s", t.n, t.first[0] ? ": " : "", t.first);
	CHECK(!t.bad2, "mutated headers: pl2 and the shared parser agree "
	      "(%lu accepted by it)", t.accepted);
	CHECK(t.accepted > 1000 && t.kinds[PL2_RSV] > 1000 &&
	      t.kinds[PL2_DATA] > 1000 && t.kinds[PL2_OTHER] > 1000 &&
	      t.kinds[PL2_MALFORMED] > 1000,
	      "mutated headers reach every kind (rsv %lu data %lu other %lu "
	      "malformed %lu)", t.kinds[PL2_RSV], t.kinds[PL2_DATA],
	      t.kinds[PL2_OTHER], t.kinds[PL2_MALFORMED]);

	for (i = 0; i < 200000; i++) {
		for (k = 0; k < (int)sizeof(b); k++)
			b[k] = (u8)rand();
		if (rand() % 2)		/* version 1 half the time */
			b[0] = (u8)(SHOAL_VERSION << 4 | (b[0] & 0x0f));
		len = (u32)(rand() % 2000);
		avail = len < sizeof(b) ? len : sizeof(b);
		judge(b, avail, len, &r);
	}
	CHECK(!r.bad1 && !r.bad2, "random bytes: pl2 and the shared parser "
	      "agree (%lu inputs, %lu malformed)%s%s", r.n,
	      r.kinds[PL2_MALFORMED], r.first[0] ? ": " : "", r.first);
}

int main(void)
{
	test_valid();
	test_fuzz();
	return unit_done();
}
