// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Shoal header's parser and builder (include/net/shoal/wire.h):
 * the byte layout Documentation/wire.md gives, a round trip of every type,
 * each reason a packet is refused for, trimming seen both ways, and the
 * edges of the ranges.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <net/shoal/wire.h>
#include "unit.h"

#define MAX_MSG		(32U << 20)

static struct shoal_wire_pkt data_pkt(void)
{
	return (struct shoal_wire_pkt){
		.type = SHOAL_T_DATA, .sport = 0x1234, .dport = 0xabcd,
		.msg_id = 0x0102030405060708ull, .msg_len = 10000,
		.offset = 1400, .payload_len = 1400, .word = 2800,
	};
}

/* Build @p with @present payload bytes after it, parse it back */
static int roundtrip(const struct shoal_wire_pkt *p, u32 present,
		     struct shoal_wire_pkt *out)
{
	u8 buf[SHOAL_HDR_MAX + 2000];
	u32 n;

	memset(buf, 0xee, sizeof(buf));
	n = shoal_wire_build(buf, p);
	return shoal_wire_parse(buf, n + present, n + present, MAX_MSG, out);
}

static void test_layout(void)
{
	struct shoal_wire_pkt p = data_pkt();
	static const u8 want[SHOAL_HDR_LEN] = {
		0x11, 0x00, 0x12, 0x34, 0xab, 0xcd, 32, 0,
		1, 2, 3, 4, 5, 6, 7, 8,
		0x00, 0x00, 0x27, 0x10, 0x00, 0x00, 0x05, 0x78,
		0x00, 0x00, 0x05, 0x78, 0x00, 0x00, 0x0a, 0xf0,
	};
	u8 buf[SHOAL_HDR_MAX];
	u32 n;

	n = shoal_wire_build(buf, &p);
	CHECK_EQ(n, SHOAL_HDR_LEN, "DATA without a deadline: 32 bytes");
	CHECK(!memcmp(buf, want, sizeof(want)),
	      "bytes as documented: ver|type, flags, sport, dport, hdr_len, 0, id, len, off, plen, word");
	p.flags = SHOAL_F_DEADLINE | SHOAL_F_RETX;
	p.deadline = 0x1122334455667788ull;
	n = shoal_wire_build(buf, &p);
	CHECK(n == SHOAL_HDR_DEADLINE_LEN && buf[1] == 0x21 && buf[6] == 40 &&
	      buf[32] == 0x11 && buf[39] == 0x88,
	      "with a deadline: 40 bytes, the deadline big-endian at 32");
	p.options = SHOAL_O_ACK;
	p.ack_id = 0xa1a2a3a4a5a6a7a8ull;
	n = shoal_wire_build(buf, &p);
	CHECK(n == 48 && buf[6] == 48 && buf[7] == SHOAL_O_ACK &&
	      buf[32] == 0x11 && buf[40] == 0xa1 && buf[47] == 0xa8,
	      "a deadline and an ACK: 48 bytes, the acked id at 40");
	p.flags = 0;
	n = shoal_wire_build(buf, &p);
	CHECK(n == 40 && buf[6] == 40 && buf[7] == SHOAL_O_ACK &&
	      buf[32] == 0xa1 && buf[39] == 0xa8,
	      "an ACK without a deadline: 40 bytes, the acked id at 32");
	p.options = 0x80 | SHOAL_O_ACK;
	n = shoal_wire_build(buf, &p);
	CHECK(n == 40 && buf[7] == SHOAL_O_ACK,
	      "an option we do not know is not written");
	CHECK(SHOAL_FLAGS_OFFSET == 1 && SHOAL_F_TRIMMED == 0x80,
	      "the TRIMMED flag is bit 0x80 of byte 1, where sch_trim marks it");
	CHECK(sizeof(struct shoal_hdr) == SHOAL_HDR_LEN,
	      "struct shoal_hdr is the 32-byte base header");
}

static void test_roundtrip(void)
{
	static const u8 types[] = {
		SHOAL_T_DATA, SHOAL_T_CREDIT_REQ, SHOAL_T_CREDIT,
		SHOAL_T_RESEND, SHOAL_T_BUSY, SHOAL_T_UNKNOWN, SHOAL_T_ACK,
		SHOAL_T_ABORT, SHOAL_T_RSV, SHOAL_T_GRT,
	};
	unsigned int i;

	for (i = 0; i < sizeof(types); i++) {
		struct shoal_wire_pkt p = data_pkt(), q;
		int err;

		p.type = types[i];
		p.flags = SHOAL_F_REQUEST | SHOAL_F_DEADLINE;
		p.deadline = 77 + i;
		if (p.type != SHOAL_T_DATA) {
			p.payload_len = 0;
			p.word = p.type == SHOAL_T_CREDIT ? 1400 : 3;
		}
		err = roundtrip(&p, p.payload_len, &q);
		CHECK(!err && q.type == p.type && q.flags == p.flags &&
		      q.sport == p.sport && q.dport == p.dport &&
		      q.msg_id == p.msg_id && q.msg_len == p.msg_len &&
		      q.offset == p.offset && q.payload_len == p.payload_len &&
		      q.word == p.word && q.deadline == p.deadline &&
		      q.hdr_len == 40 && q.present == p.payload_len && !q.trimmed,
		      "%s: built and parsed back the same (err %d)",
		      shoal_wire_type_name(p.type), err);
	}
	{
		struct shoal_wire_pkt p = data_pkt(), q;
		int err;

		p.flags = SHOAL_F_REQUEST | SHOAL_F_DEADLINE;
		p.options = SHOAL_O_ACK;
		p.deadline = 5;
		p.ack_id = ~0ull - 3;
		err = roundtrip(&p, p.payload_len, &q);
		CHECK(!err && q.options == SHOAL_O_ACK && q.ack_id == p.ack_id &&
		      q.deadline == 5 && q.hdr_len == 48 &&
		      q.present == p.payload_len && q.msg_id == p.msg_id,
		      "DATA with a deadline and an ACK: parsed back the same (err %d)",
		      err);
		p.flags = 0;
		err = roundtrip(&p, 3, &q);
		CHECK(!err && q.options == SHOAL_O_ACK && q.ack_id == p.ack_id &&
		      !q.deadline && q.hdr_len == 40 && q.present == 3 &&
		      q.trimmed,
		      "trimmed DATA keeps its ACK (err %d)", err);
	}
	CHECK(!shoal_wire_type_name(0) && !shoal_wire_type_name(11) &&
	      !shoal_wire_type_name(99),
	      "no name for a type we do not know");
}

/* Parse @p with @present payload bytes and expect @reason */
static void expect(const struct shoal_wire_pkt *p, u32 present, int reason,
		   const char *what)
{
	struct shoal_wire_pkt q;
	int err = roundtrip(p, present, &q);

	CHECK(err == -reason, "%s: %s (got %s)", what,
	      shoal_wire_reason_name(reason),
	      err <= 0 ? shoal_wire_reason_name(-err) : "?");
}

static void test_refused(void)
{
	struct shoal_wire_pkt p, q;
	u8 buf[SHOAL_HDR_MAX + 100];
	u32 n;

	p = data_pkt();
	n = shoal_wire_build(buf, &p);
	CHECK(shoal_wire_parse(buf, 31, 31, MAX_MSG, &q) == -SHOAL_WIRE_SHORT,
	      "31 bytes: short");
	CHECK(shoal_wire_parse(buf, 0, 0, MAX_MSG, &q) == -SHOAL_WIRE_SHORT,
	      "nothing at all: short");
	CHECK(shoal_wire_parse(buf, 20, n + 1400, MAX_MSG, &q) ==
	      -SHOAL_WIRE_SHORT, "fewer bytes at hand than a header: short");
	buf[0] = 0x21;
	CHECK(shoal_wire_parse(buf, n, n, MAX_MSG, &q) == -SHOAL_WIRE_VERSION,
	      "version 2: version");
	buf[0] = 0x10;
	CHECK(shoal_wire_parse(buf, n, n, MAX_MSG, &q) == -SHOAL_WIRE_TYPE,
	      "type 0: type");
	buf[0] = 0x1b;
	CHECK(shoal_wire_parse(buf, n, n, MAX_MSG, &q) == -SHOAL_WIRE_TYPE,
	      "type 11: type");
	buf[0] = 0x11;
	buf[6] = 31;
	CHECK(shoal_wire_parse(buf, n, n + 1400, MAX_MSG, &q) ==
	      -SHOAL_WIRE_HDR_LEN, "hdr_len 31: hdr_len");
	buf[6] = 65;
	CHECK(shoal_wire_parse(buf, n, n + 1400, MAX_MSG, &q) ==
	      -SHOAL_WIRE_HDR_LEN, "hdr_len 65: hdr_len");
	buf[6] = 36;	/* an option we do not know: skipped */
	CHECK(!shoal_wire_parse(buf, sizeof(buf), 36 + 1400, MAX_MSG, &q) &&
	      q.hdr_len == 36 && q.present == 1400,
	      "hdr_len 36: 4 bytes of options skipped, payload after them");
	buf[6] = 32;
	buf[1] = SHOAL_F_DEADLINE;
	CHECK(shoal_wire_parse(buf, n, n + 1400, MAX_MSG, &q) ==
	      -SHOAL_WIRE_HDR_LEN, "a deadline flag with hdr_len 32: hdr_len");
	buf[1] = 0;
	buf[7] = SHOAL_O_ACK;
	CHECK(shoal_wire_parse(buf, n, n + 1400, MAX_MSG, &q) ==
	      -SHOAL_WIRE_HDR_LEN, "an ACK option with hdr_len 32: hdr_len");
	buf[7] = 0x02;	/* an option we do not know: skipped */
	buf[6] = 40;
	CHECK(!shoal_wire_parse(buf, sizeof(buf), 40 + 1400, MAX_MSG, &q) &&
	      !q.options && !q.ack_id && q.hdr_len == 40 && q.present == 1400,
	      "option bit 0x02 in 8 bytes: not read, payload after them");
	buf[7] = 0;
	buf[6] = 32;
	CHECK(shoal_wire_parse(buf, n, 32, MAX_MSG, &q) == 0 &&
	      q.present == 0 && q.trimmed,
	      "header only, payload_len 1400: trimmed to nothing, still DATA");

	p = data_pkt();
	p.flags = SHOAL_F_REQUEST | SHOAL_F_RESPONSE;
	expect(&p, 1400, SHOAL_WIRE_FLAGS, "REQUEST and RESPONSE");
	p = data_pkt();
	p.flags = SHOAL_F_TRIMMED;
	expect(&p, 1400, SHOAL_WIRE_FLAGS, "TRIMMED with the whole payload");
	p = data_pkt();
	p.type = SHOAL_T_ACK;
	p.payload_len = 0;
	p.flags = SHOAL_F_TRIMMED;
	expect(&p, 0, SHOAL_WIRE_FLAGS, "TRIMMED on an ACK");
	p.flags = SHOAL_F_CSN;
	expect(&p, 0, SHOAL_WIRE_FLAGS, "CSN on an ACK");
	p.flags = SHOAL_F_BOUNCED;
	expect(&p, 0, SHOAL_WIRE_FLAGS, "BOUNCED on an ACK");
	p.type = SHOAL_T_GRT;
	p.flags = SHOAL_F_BOUNCED;
	expect(&p, 0, SHOAL_WIRE_OK, "BOUNCED on a GRT");
	p.type = SHOAL_T_CREDIT_REQ;
	p.flags = 0;
	p.options = SHOAL_O_ACK;
	expect(&p, 0, SHOAL_WIRE_FLAGS, "an ACK option on a CREDIT_REQ");
	p.type = SHOAL_T_ACK;
	expect(&p, 0, SHOAL_WIRE_FLAGS, "an ACK option on an ACK");

	p = data_pkt();
	p.msg_len = 0;
	p.offset = 0;
	p.payload_len = 0;
	expect(&p, 0, SHOAL_WIRE_MSG_LEN, "msg_len 0");
	p = data_pkt();
	p.msg_len = MAX_MSG + 1;
	expect(&p, 1400, SHOAL_WIRE_MSG_LEN, "msg_len one over the max");
	p.msg_len = MAX_MSG;
	p.offset = MAX_MSG - 1400;
	expect(&p, 1400, SHOAL_WIRE_OK, "msg_len at the max, its last packet");

	p = data_pkt();
	p.offset = 10000 - 1399;
	expect(&p, 1400, SHOAL_WIRE_RANGE, "DATA one byte past the message");
	p.offset = 0xfffffc00;
	p.payload_len = 0x800;
	expect(&p, 0, SHOAL_WIRE_RANGE, "offset + payload_len wrapping 2^32");
	p = data_pkt();
	p.payload_len = 0;
	expect(&p, 0, SHOAL_WIRE_RANGE, "DATA with payload_len 0");
	p = data_pkt();
	expect(&p, 1401, SHOAL_WIRE_PAYLOAD, "one byte more than payload_len");

	p = data_pkt();
	p.type = SHOAL_T_RESEND;
	p.payload_len = 0;
	p.offset = 8600;
	p.word = 1400;
	expect(&p, 0, SHOAL_WIRE_OK, "RESEND of the last 1400 bytes");
	p.word = 1401;
	expect(&p, 0, SHOAL_WIRE_RANGE, "RESEND one byte past the message");
	p.word = 0;
	expect(&p, 0, SHOAL_WIRE_RANGE, "RESEND of nothing");
	p.offset = 0xffffff00;
	p.word = 0x200;
	expect(&p, 0, SHOAL_WIRE_RANGE, "RESEND range wrapping 2^32");
	p = data_pkt();
	p.type = SHOAL_T_CREDIT;
	p.payload_len = 0;
	p.offset = 10000;
	p.word = 10000;
	expect(&p, 0, SHOAL_WIRE_OK, "CREDIT up to the message's end");
	p.offset = 10001;
	expect(&p, 0, SHOAL_WIRE_RANGE, "CREDIT past the message's end");
	p.offset = 5000;
	p.word = 5001;
	expect(&p, 0, SHOAL_WIRE_RANGE, "CREDIT adding more than it reaches");
	p = data_pkt();
	p.type = SHOAL_T_RSV;
	p.payload_len = 0;
	p.offset = 10000;
	expect(&p, 0, SHOAL_WIRE_RANGE, "RSV starting at the message's end");
	p = data_pkt();
	p.type = SHOAL_T_BUSY;
	p.payload_len = 0;
	expect(&p, 10, SHOAL_WIRE_PAYLOAD, "BUSY with 10 payload bytes");
	p.payload_len = 10;
	expect(&p, 0, SHOAL_WIRE_PAYLOAD, "BUSY claiming a payload_len");
	CHECK(!strcmp(shoal_wire_reason_name(SHOAL_WIRE_RANGE), "range") &&
	      !shoal_wire_reason_name(SHOAL_WIRE_NR_REASONS),
	      "reason names for the counters, none past the last");
}

static void test_trimmed(void)
{
	struct shoal_wire_pkt p = data_pkt(), q;
	int err;

	err = roundtrip(&p, 1400, &q);
	CHECK(!err && !q.trimmed, "the whole payload: not trimmed");
	err = roundtrip(&p, 64, &q);
	CHECK(!err && q.trimmed && q.present == 64,
	      "64 of 1400 bytes, no flag: trimmed, seen by length");
	p.flags = SHOAL_F_TRIMMED;
	err = roundtrip(&p, 0, &q);
	CHECK(!err && q.trimmed && q.present == 0,
	      "header only with the TRIMMED flag: trimmed");
}

/* The offsets in the uapi header are struct shoal_hdr's */
static void test_offsets(void)
{
	CHECK(SHOAL_OFF_VER_TYPE == offsetof(struct shoal_hdr, ver_type) &&
	      SHOAL_OFF_FLAGS == offsetof(struct shoal_hdr, flags) &&
	      SHOAL_OFF_SPORT == offsetof(struct shoal_hdr, sport) &&
	      SHOAL_OFF_DPORT == offsetof(struct shoal_hdr, dport) &&
	      SHOAL_OFF_HDR_LEN == offsetof(struct shoal_hdr, hdr_len) &&
	      SHOAL_OFF_OPTIONS == offsetof(struct shoal_hdr, options),
	      "SHOAL_OFF_* of the first 8 bytes are struct shoal_hdr's");
	CHECK(SHOAL_OFF_MSG_ID == offsetof(struct shoal_hdr, msg_id) &&
	      SHOAL_OFF_MSG_LEN == offsetof(struct shoal_hdr, msg_len) &&
	      SHOAL_OFF_OFFSET == offsetof(struct shoal_hdr, offset) &&
	      SHOAL_OFF_PAYLOAD_LEN == offsetof(struct shoal_hdr, payload_len) &&
	      SHOAL_OFF_WORD == offsetof(struct shoal_hdr, word),
	      "SHOAL_OFF_* of the words are struct shoal_hdr's");
	CHECK(SHOAL_OFF_DEADLINE == sizeof(struct shoal_hdr) &&
	      SHOAL_OFF_DEADLINE + SHOAL_OPT_LEN == SHOAL_HDR_DEADLINE_LEN,
	      "the deadline follows the base header");
}

/* shoal_wire_read() reads what is there and checks nothing */
static void test_read(void)
{
	struct shoal_wire_pkt p = data_pkt(), q;
	u8 buf[SHOAL_HDR_MAX];
	u32 n;

	p.flags = SHOAL_F_DEADLINE;
	p.deadline = 0x0102030405060708ull;
	p.options = SHOAL_O_ACK;
	p.ack_id = 99;
	n = shoal_wire_build(buf, &p);
	memset(&q, 0xff, sizeof(q));
	CHECK_EQ(shoal_wire_read(buf, SHOAL_HDR_LEN - 1, &q), -SHOAL_WIRE_SHORT,
		 "read: 31 bytes are short");
	CHECK(q.msg_id == ~0ull, "read: nothing is read from a short header");
	CHECK_EQ(shoal_wire_read(buf, n, &q), 0, "read: 48 bytes");
	CHECK(q.version == SHOAL_VERSION && q.type == p.type &&
	      q.flags == p.flags && q.hdr_len == n && q.msg_id == p.msg_id &&
	      q.msg_len == p.msg_len && q.offset == p.offset &&
	      q.payload_len == p.payload_len && q.word == p.word &&
	      q.sport == p.sport && q.dport == p.dport &&
	      q.deadline == p.deadline && q.ack_id == 99,
	      "read: every field as built");
	CHECK_EQ(shoal_wire_read(buf, n - 1, &q), 0, "read: 47 bytes");
	CHECK(q.deadline == p.deadline && q.ack_id == 0,
	      "read: an option cut off reads as 0, the deadline is there");
	CHECK_EQ(shoal_wire_read(buf, SHOAL_HDR_LEN, &q), 0, "read: 32 bytes");
	CHECK(q.deadline == 0 && q.ack_id == 0,
	      "read: a deadline cut off reads as 0");
	buf[SHOAL_OFF_VER_TYPE] = 0x7f;
	buf[SHOAL_OFF_OPTIONS] = 0xfe;
	CHECK(!shoal_wire_read(buf, n, &q) && q.version == 7 &&
	      q.type == 15 && q.options == 0,
	      "read: a bad version and type as they are, unknown options not");
}

int main(void)
{
	test_layout();
	test_offsets();
	test_read();
	test_roundtrip();
	test_refused();
	test_trimmed();
	return unit_done();
}
