// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/calq_core.h: rank to day for every rank source
 * and mode (past, negative, huge values, days wrapping around 2^64), the
 * physical clock (time rotation, stale days first, delta reset), the
 * Shoal slack/deadline field parser, the slack decrement and its sign, and
 * the inversion counter.
 */
#include <string.h>

#include "calq_core.h"
#include "unit.h"

#define NS	1ULL
#define US	1000ULL
#define SEC	1000000000ULL

/* Build IPv4 or IPv6 + UDP to @dport + a Shoal header of @hdr_len bytes
 * (version @ver, flags @flags) carrying @field at offset 32 when there is
 * room, then @payload bytes.  Returns the packet length.
 */
static unsigned int mkshoal(unsigned char *p, int ipver, int dport, int ver,
			    int flags, int hdr_len, unsigned long long field,
			    unsigned int payload)
{
	unsigned int l4 = ipver == 4 ? 20 : 40;
	unsigned int sh = l4 + 8;
	unsigned int len = sh + hdr_len + payload;
	int i;

	memset(p, 0, len);
	if (ipver == 4) {
		p[0] = 0x45;
		p[2] = len >> 8;
		p[3] = len & 0xff;
		p[6] = 0x40;		/* DF */
		p[8] = 64;
		p[9] = 17;
	} else {
		p[0] = 0x60;
		p[4] = (len - 40) >> 8;
		p[5] = (len - 40) & 0xff;
		p[6] = 17;
		p[7] = 64;
	}
	p[l4 + 0] = 0x9c;		/* source port 40000 */
	p[l4 + 1] = 0x40;
	p[l4 + 2] = dport >> 8;
	p[l4 + 3] = dport & 0xff;
	p[l4 + 4] = (len - l4) >> 8;
	p[l4 + 5] = (len - l4) & 0xff;
	p[sh + 0] = (unsigned char)(ver << 4 | 1);
	p[sh + 1] = (unsigned char)flags;
	p[sh + 6] = (unsigned char)hdr_len;
	if (hdr_len >= 40)
		for (i = 0; i < 8; i++)
			p[sh + 32 + i] = (unsigned char)(field >> (56 - 8 * i));
	return len;
}

static void test_parse(void)
{
	unsigned char p[512];
	struct calq_shoal sh;
	unsigned int len;

	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 0x0102030405060708ULL, 100);
	CHECK(calq_parse_shoal(p, len, len, 4797, &sh) == CALQ_SH_OK &&
	      sh.field == 0x0102030405060708ULL && sh.off == 60 &&
	      sh.l4off == 20 && sh.ipver == 4,
	      "IPv4: field read big-endian at Shoal offset 32 (off %u)",
	      sh.off);

	len = mkshoal(p, 6, 4797, 1, 0x20 | 0x80, 64, 42, 0);
	CHECK(calq_parse_shoal(p, len, len, 4797, &sh) == CALQ_SH_OK &&
	      sh.field == 42 && sh.off == 80 && sh.ipver == 6,
	      "IPv6, longer header, other flags set: field found");

	len = mkshoal(p, 4, 4797, 2, 0x20, 40, 1, 10);
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_VERSION,
		 "version 2 is not ours");
	len = mkshoal(p, 4, 4797, 1, 0x80, 40, 1, 10);
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_NOFLAG,
		 "no DEADLINE flag: no field");
	len = mkshoal(p, 4, 4797, 1, 0x20, 32, 1, 10);
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_HDRLEN,
		 "hdr_len 32 with the flag: the field is not there");
	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 1, 0);
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_OK,
		 "exactly the 40-byte header, no payload");
	CHECK_EQ(calq_parse_shoal(p, len - 1, len, 4797, &sh), CALQ_SH_SHORT,
		 "copy one byte short of the field");
	len = mkshoal(p, 4, 4797, 1, 0x20, 32, 1, 4);
	p[26 + 6] = 40;		/* claims 40 bytes, packet holds 36 */
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_SHORT,
		 "header claims the field, packet too short");
	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 1, 100);
	CHECK_EQ(calq_parse_shoal(p, len, len - 10, 4797, &sh),
		 CALQ_SH_MALFORMED, "truncated packet: IP length beyond it");
	CHECK_EQ(calq_parse_shoal(p, len, len, 4798, &sh), CALQ_SH_PORT,
		 "another destination port");
	len = mkshoal(p, 6, 80, 1, 0x20, 40, 1, 100);
	CHECK_EQ(calq_parse_shoal(p, len, len, 80, &sh), CALQ_SH_OK,
		 "the port is configurable");

	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 1, 100);
	p[6] = 0x20;		/* more fragments */
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_FRAG,
		 "IPv4 first fragment");
	p[6] = 0x00;
	p[7] = 0x10;		/* offset 128 */
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_FRAG,
		 "IPv4 later fragment");

	/* IPv6 with a fragment header in front of UDP */
	len = mkshoal(p + 8, 6, 4797, 1, 0x20, 40, 1, 100);
	memmove(p, p + 8, 40);
	p[6] = 44;
	p[40] = 17;
	memset(p + 41, 0, 7);
	len += 8;
	p[4] = (len - 40) >> 8;
	p[5] = (len - 40) & 0xff;
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_FRAG,
		 "IPv6 fragment header");

	/* IPv6 with a destination options header: skipped */
	len = mkshoal(p, 6, 4797, 1, 0x20, 40, 7, 100);
	memmove(p + 48, p + 40, len - 40);
	memset(p + 40, 0, 8);
	p[6] = 60;
	p[40] = 17;
	len += 8;
	p[4] = (len - 40) >> 8;
	p[5] = (len - 40) & 0xff;
	CHECK(calq_parse_shoal(p, len, len, 4797, &sh) == CALQ_SH_OK &&
	      sh.field == 7 && sh.off == 88,
	      "IPv6 extension header skipped (field at %u)", sh.off);

	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 1, 100);
	p[9] = 6;
	p[20 + 12] = 5 << 4;	/* a sound TCP header */
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_NOTUDP,
		 "TCP is not Shoal");
	p[0] = 0x25;
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_NOTIP,
		 "not IP");
	CHECK_EQ(calq_parse_shoal(p, 0, 0, 4797, &sh), CALQ_SH_NOTIP,
		 "empty packet");
	len = mkshoal(p, 4, 4797, 1, 0x20, 40, 1, 100);
	p[25] ^= 1;		/* UDP length disagrees with IP */
	CHECK_EQ(calq_parse_shoal(p, len, len, 4797, &sh), CALQ_SH_MALFORMED,
		 "UDP length disagreeing with IP");
	CHECK_EQ(calq_parse_shoal(p, 30, len, 4797, &sh), CALQ_SH_MALFORMED,
		 "copy ends inside the UDP header");
}

static void test_floor_div(void)
{
	CHECK_EQ(calq_floor_div(25, 10), 2, "25 / 10");
	CHECK_EQ(calq_floor_div(-1, 10), -1, "-1 / 10 rounds down");
	CHECK_EQ(calq_floor_div(-10, 10), -1, "-10 / 10");
	CHECK_EQ(calq_floor_div(-11, 10), -2, "-11 / 10");
	CHECK_EQ(calq_floor_div(CALQ_S64_MIN, 1000), CALQ_S64_MIN / 1000 - 1,
		 "S64_MIN does not overflow");
	CHECK_EQ(calq_floor_div(CALQ_S64_MAX, 1), CALQ_S64_MAX, "S64_MAX / 1");
}

static void test_time_rank(void)
{
	struct calq_clock lg = { .base = 0, .interval = 10 * US };
	struct calq_clock ph = { .base = 5 * SEC, .interval = 10 * US,
				 .physical = true };
	u64 now = 5 * SEC + 3 * US;

	/* logical: whole intervals from now */
	CHECK_EQ(calq_off_time(&lg, now, now), 0, "logical: now is the head");
	CHECK_EQ(calq_off_time(&lg, now, now + 25 * US), 2,
		 "logical: 25us ahead is 2 days");
	CHECK_EQ(calq_off_time(&lg, now, now - 1), -1,
		 "logical: 1ns in the past is before the head");
	CHECK(calq_off_time(&lg, now, 1) < 0, "logical: an old time is past");

	/* physical: the wall-clock day, from the head day's start */
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC), 0, "physical: base day");
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC + 9999), 0,
		 "physical: last ns of the head day");
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC + 10 * US), 1,
		 "physical: first ns of the next day");
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC - 1), -1,
		 "physical: the day before the head");
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC + 32 * 10 * US), 32,
		 "physical: the horizon day (caller drops/clamps/parks)");
	CHECK(calq_off_time(&ph, now, ~0ULL) < 0,
	      "physical: a time 2^63 ns away counts as past");
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC + (1ULL << 62)),
		 (1LL << 62) / 10000,
		 "physical: far future saturates so day*interval fits");
	CHECK(calq_off_time(&ph, now, 5 * SEC + (1ULL << 62)) * 10 * US <=
	      (1LL << 62), "saturated offset * interval fits in 62 bits");
	ph.interval = 1;
	CHECK_EQ(calq_off_time(&ph, now, 5 * SEC + (1ULL << 62) + 12345),
		 1LL << 62, "interval 1ns: saturated at 2^62 days");
}

static void test_slack_rank(void)
{
	struct calq_clock lg = { .interval = 10 * US };
	struct calq_clock ph = { .base = 7 * SEC, .interval = 10 * US,
				 .physical = true };

	CHECK_EQ(calq_off_slack(&lg, 123, 0), 0, "logical: no slack, head");
	CHECK_EQ(calq_off_slack(&lg, 123, 35 * US), 3,
		 "logical: 35us of slack is 3 days ahead");
	CHECK_EQ(calq_off_slack(&lg, 123, -1), -1,
		 "logical: negative slack is before the head");
	CHECK_EQ(calq_off_slack(&lg, 123, CALQ_S64_MIN),
		 calq_floor_div(CALQ_S64_MIN, 10 * US),
		 "logical: S64_MIN is far behind, no overflow");
	CHECK_EQ(calq_off_slack(&lg, 123, CALQ_S64_MAX), CALQ_S64_MAX / 10000,
		 "logical: S64_MAX is far ahead");

	/* physical: now + slack on the wall clock */
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC + 15 * US, 0), 1,
		 "physical: no slack, the day holding now");
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC + 15 * US, 20 * US), 3,
		 "physical: now + 20us");
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC + 15 * US, -16 * US), -1,
		 "physical: deadline before the head day");
	/* the calendar runs 30us ahead of real time (delta): slack counts
	 * from real time, so a packet due in 25us sorts before the head
	 */
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC - 30 * US, 25 * US), -1,
		 "physical ahead: now + slack before the head day");
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC - 30 * US, 45 * US), 1,
		 "physical ahead: now + 45us is 1 day after the head");
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC + 1, CALQ_S64_MAX),
		 (1LL << 62) / 10000, "physical: overflow saturates ahead");
	CHECK_EQ(calq_off_slack(&ph, 7 * SEC - 1, CALQ_S64_MIN),
		 -((1LL << 62) / 10000), "physical: overflow saturates behind");
}

static void test_value_rank(void)
{
	struct calq_clock lg = { .interval = 10 * US };
	struct calq_clock ph = { .base = 1, .interval = 10000000000ULL,
				 .physical = true };

	CHECK_EQ(calq_off_value(&lg, 7, 0), 7, "prio 7, shift 0: 7 days");
	CHECK_EQ(calq_off_value(&lg, 0x500, 8), 5, "0x500 >> 8: 5 days");
	CHECK_EQ(calq_off_value(&lg, 0xffffffffU, 63), 0,
		 "shift 63 of a u32 is 0 (no undefined shift)");
	CHECK_EQ(calq_off_value(&lg, 0xffffffffU, 0), 0xffffffffLL,
		 "u32 max stays positive");
	CHECK_EQ(calq_off_value(&ph, 0xffffffffU, 0), (1LL << 62) / 10000000000LL,
		 "physical with 10s days: saturated");
	CHECK_EQ(calq_off_days(&lg, 5), 5, "AFQ rounds ahead");
	CHECK_EQ(calq_off_days(&lg, ~0ULL), 1LL << 62,
		 "AFQ rounds saturate, never negative");
}

static void test_wrap(void)
{
	struct cal_core c;
	u64 head = ~0ULL - 2, day;
	u32 b;

	cal_init(&c, 32, CAL_HORIZON_DROP, head);
	day = calq_day(head, 5);
	CHECK_EQ(day, 2, "head 2^64-3 + 5 wraps to day 2");
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == 2 && b == 2,
	      "a wrapped day is in range and placed in bucket 2");
	day = calq_day(head, -4);
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == head &&
	      c.st.clamped_past == 1, "4 days before a wrapping head: clamped");
	day = calq_day(head, 32);
	CHECK_EQ(cal_place(&c, &day, &b), CAL_DROPPED,
		 "head + N across the wrap: beyond the horizon");
	day = calq_day(head, -(1LL << 62));
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == head,
	      "the most negative offset is still the past");
	day = calq_day(head, 1LL << 62);
	CHECK_EQ(cal_place(&c, &day, &b), CAL_DROPPED,
		 "the largest offset is still the future");
}

static void test_clock(void)
{
	struct calq_clock ck = { .base = 1000 * US, .interval = 10 * US,
				 .physical = true };
	struct cal_core c;
	u64 day;

	cal_init(&c, 32, CAL_HORIZON_DROP, 100);
	CHECK_EQ(calq_days_due(&ck, 1000 * US + 9999), 0,
		 "still in the head day: nothing due");
	CHECK_EQ(calq_days_due(&ck, 999 * US), 0, "ahead of real time");
	CHECK_EQ(calq_rotate_time(&c, &ck, 1055 * US), 5,
		 "empty calendar: head moves to the day of now");
	CHECK(c.head == 105 && ck.base == 1050 * US,
	      "head 105 starts at 1050us (%llu)",
	      (unsigned long long)ck.base);

	cal_mark(&c, cal_bucket(&c, 108));
	CHECK_EQ(calq_rotate_time(&c, &ck, 1200 * US), 3,
		 "never past the earliest non-empty day");
	CHECK(c.head == 108 && ck.base == 1080 * US,
	      "stale day 108 is served first, base follows");
	CHECK_EQ(calq_day_start(&c, &ck, 120), 1200 * US,
		 "day 120 starts at 1200us");
	CHECK_EQ(calq_ahead_ns(&ck, 1200 * US), -120 * (long long)US,
		 "calendar 120us behind real time");

	/* work-conserving: an empty head jumps to the next day early */
	cal_unmark(&c, cal_bucket(&c, 108));
	cal_mark(&c, cal_bucket(&c, 130));
	CHECK(cal_next_day(&c, &day) && day == 130, "next non-empty day 130");
	CHECK_EQ(calq_move_head(&c, &ck, day), 22, "head jumps 22 days");
	CHECK_EQ(calq_ahead_ns(&ck, 1200 * US), 100 * (long long)US,
		 "calendar now 100us ahead of real time (delta)");
	CHECK_EQ(calq_days_due(&ck, 1250 * US), 0,
		 "ahead: no time rotation");
	calq_reanchor(&ck, 1250 * US);
	CHECK(ck.base == 1250 * US && c.head == 130,
	      "delta reset: the head day starts now, head unchanged");
	calq_reanchor(&ck, 1400 * US);
	CHECK_EQ(ck.base, 1250 * US, "behind real time: no reanchor");

	ck.physical = false;
	cal_unmark(&c, cal_bucket(&c, 130));
	CHECK_EQ(calq_move_head(&c, &ck, 200), 70, "logical head move");
	CHECK_EQ(ck.base, 1250 * US, "logical: base untouched");
	CHECK_EQ(calq_ahead_ns(&ck, 0), 0, "logical: never ahead");
	CHECK_EQ(calq_move_head(&c, &ck, 150), 0, "the head never goes back");
}

static void test_slack_sub(void)
{
	CHECK_EQ(calq_slack_sub(100, 30), 70, "100 - 30");
	CHECK_EQ(calq_slack_sub(10, 30), -20, "slack goes negative");
	CHECK_EQ(calq_slack_sub(-5, 30), -35, "negative stays negative");
	CHECK_EQ(calq_slack_sub(CALQ_S64_MIN + 5, 10), CALQ_S64_MIN,
		 "saturates at S64_MIN");
	CHECK_EQ(calq_slack_sub(CALQ_S64_MAX, ~0ULL), CALQ_S64_MIN,
		 "huge sojourn: S64_MAX - (2^64-1) saturates");
	CHECK_EQ(calq_slack_sub(CALQ_S64_MAX, 1ULL << 63), -1,
		 "S64_MAX - 2^63 is exactly -1");
	CHECK_EQ(calq_slack_sub(0, 1ULL << 63), CALQ_S64_MIN,
		 "0 - 2^63 is exactly S64_MIN");
	CHECK_EQ(calq_slack_sub(-1, 1ULL << 63), CALQ_S64_MIN,
		 "-1 - 2^63 saturates");
	CHECK_EQ(calq_slack_sub(5, 0), 5, "no sojourn, no change");

	/* fine = arrival + slack; the sojourn comes back out of it */
	CHECK_EQ(calq_slack_left(50 * US, 1000 * US + 50 * US, 1030 * US),
		 20 * US, "50us slack, 30us sojourn: 20us left");
	CHECK_EQ(calq_slack_left(-7, 1000 * US - 7, 1000 * US + 3), -10,
		 "negative slack loses the sojourn too");
	CHECK_EQ(calq_slack_left(CALQ_S64_MAX, 2 + (u64)CALQ_S64_MAX, 12),
		 CALQ_S64_MAX - 10, "slack near S64_MAX, arrival 2, leave 12");
}

static void test_late(void)
{
	CHECK(!calq_late(100, 100, 0), "leaving at the deadline is in time");
	CHECK(calq_late(101, 100, 0), "1ns after the deadline is late");
	CHECK(!calq_late(50, 100, 0), "before the deadline");
	CHECK(!calq_late(110, 100, 10), "tstamp: within one interval");
	CHECK(calq_late(111, 100, 10), "tstamp: more than one interval late");
	CHECK(calq_late(5, ~0ULL - 5, 10) && !calq_late(5, ~0ULL - 5, 11),
	      "times compare modulo 2^64 (11ns late across the wrap)");
}

static void test_order(void)
{
	struct calq_order o = { 0 };

	CHECK(!calq_order_leave(&o, 50), "first packet: no inversion");
	CHECK(!calq_order_leave(&o, 50), "equal rank: no inversion");
	CHECK(!calq_order_leave(&o, 70), "larger rank: in order");
	CHECK(calq_order_leave(&o, 60), "smaller rank after 70: inversion");
	CHECK_EQ(o.max, 70, "the maximum stays 70");
	CHECK(!calq_order_leave(&o, 80), "in order again");
	o.valid = false;	/* the bucket emptied */
	CHECK(!calq_order_leave(&o, 1), "after the bucket emptied: fresh");
	o.max = ~0ULL - 1;
	CHECK(!calq_order_leave(&o, 3), "ranks wrap like days: 3 follows -2");
}

static void test_limits(void)
{
	CHECK(calq_full(10, 0, 100, 10, 0), "qlen at limit: full");
	CHECK(!calq_full(9, 0, 100, 10, 0), "one slot left");
	CHECK(calq_full(1, 900, 101, 10, 1000), "bytes over limit_bytes");
	CHECK(!calq_full(1, 900, 100, 10, 1000), "bytes exactly at the limit");
	CHECK(!calq_full(1, 0xffffffffU, 100, 10, 0), "no byte limit");
	CHECK(calq_full(1, 0xfffffff0U, 100, 10, 0xffffffffU),
	      "byte sum does not wrap");
	CHECK(calq_over(11, 0, 10, 0) && !calq_over(10, 0, 10, 0),
	      "over: strictly above the packet limit");
	CHECK(calq_over(1, 1001, 10, 1000) && !calq_over(1, 1000, 10, 1000),
	      "over: strictly above the byte limit");
}

/* CE strictly above a non-zero byte threshold, never when it is off */
static void test_ecn(void)
{
	CHECK(!calq_ecn_mark(0, 0) && !calq_ecn_mark(0, ~0U),
	      "ecn: threshold 0 never marks");
	CHECK(!calq_ecn_mark(30000, 29999) && !calq_ecn_mark(30000, 30000),
	      "ecn: at or below the threshold: no mark");
	CHECK(calq_ecn_mark(30000, 30001) && calq_ecn_mark(1, ~0U),
	      "ecn: above the threshold: mark");
}

int main(void)
{
	test_parse();
	test_ecn();
	test_floor_div();
	test_time_rank();
	test_slack_rank();
	test_value_rank();
	test_wrap();
	test_clock();
	test_slack_sub();
	test_late();
	test_order();
	test_limits();
	return unit_done();
}
