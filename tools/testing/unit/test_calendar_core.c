// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/sched/calendar_core.h: geometry, horizon policies,
 * next non-empty day across the ring's end, and a random model check of
 * ordering, also with 64-bit day indices wrapping around.
 */
#include <stdint.h>
#include <stdio.h>

#include "cal_model.h"
#include "unit.h"

static struct cal_model m;

static void test_geometry(void)
{
	CHECK(cal_valid_nbuckets(2) && cal_valid_nbuckets(4096),
	      "2 and 4096 buckets are valid");
	CHECK(!cal_valid_nbuckets(0) && !cal_valid_nbuckets(1) &&
	      !cal_valid_nbuckets(48) && !cal_valid_nbuckets(8192),
	      "0, 1, 48 and 8192 buckets are not");
}

static void test_place(void)
{
	struct cal_core c;
	u64 day;
	u32 b;

	cal_init(&c, 8, CAL_HORIZON_DROP, 100);
	day = 103;
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == 103 && b == 7,
	      "day in range keeps its day, bucket = day mod N");
	day = 90;
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == 100 &&
	      c.st.clamped_past == 1, "a past day is served at the head");
	day = 107;
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED, "head + N - 1 is in range");
	day = 108;
	CHECK(cal_place(&c, &day, &b) == CAL_DROPPED && c.st.horizon_drops == 1,
	      "head + N is beyond the horizon: dropped");
	c.horizon = CAL_HORIZON_CLAMP;
	day = 5000;
	CHECK(cal_place(&c, &day, &b) == CAL_PLACED && day == 107 &&
	      c.st.clamped_future == 1, "clamp: to the last bucket");
	c.horizon = CAL_HORIZON_OVERFLOW;
	day = 5000;
	CHECK(cal_place(&c, &day, &b) == CAL_PARKED && c.st.parked == 1,
	      "overflow: parked for the caller");
}

static void test_next_day(void)
{
	struct cal_core c;
	u64 day = 0;

	cal_init(&c, 128, CAL_HORIZON_DROP, 1000);	/* head bucket 104 */
	CHECK(!cal_next_day(&c, &day), "empty calendar has no next day");
	cal_mark(&c, cal_bucket(&c, 1100));		/* bucket 76, wrapped */
	CHECK(cal_next_day(&c, &day) && day == 1100,
	      "next day across the ring's end (%llu)", (unsigned long long)day);
	cal_mark(&c, cal_bucket(&c, 1020));
	CHECK(cal_next_day(&c, &day) && day == 1020, "nearer day first");
	cal_advance(&c, 1050);
	CHECK(c.head == 1020 && c.st.rotations == 1,
	      "advance stops at a non-empty day");
	cal_advance(&c, 900);
	CHECK(c.head == 1020, "advance never goes back");
	cal_unmark(&c, cal_bucket(&c, 1020));
	cal_unmark(&c, cal_bucket(&c, 1020));
	CHECK(c.nonempty == 1, "unmark is idempotent");
}

/* Random enqueues and dequeues, checked against the model */
static const char *run_model(u32 n, u8 horizon, u64 head, unsigned int seed,
			     unsigned int ops)
{
	unsigned int i;
	u64 out, day;

	srand(seed);
	model_init(&m, n, horizon, head);
	for (i = 0; i < ops && !m.error; i++) {
		if (rand() % 3) {
			day = m.c.head + (u64)(rand() % (int)(n + 8)) - 4;
			model_enqueue(&m, day);
		} else {
			model_dequeue(&m, &out);
		}
	}
	while (!m.error && model_dequeue(&m, &out))
		;
	if (!m.error && m.queued != m.served)
		model_fail(&m, "packets left behind");
	if (!m.error && m.c.nonempty)
		model_fail(&m, "bitmap not empty at the end");
	return m.error;
}

static void test_model(void)
{
	static const u32 sizes[] = { 2, 8, 64, 100, 4096 };
	const char *err;
	unsigned int i, s;
	u32 n;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = sizes[i];
		if (!cal_valid_nbuckets(n))
			continue;
		for (s = 1; s <= 20; s++) {
			err = run_model(n, CAL_HORIZON_CLAMP, 1000, s, 5000);
			if (err)
				break;
			err = run_model(n, CAL_HORIZON_DROP, UINT64_MAX - 50, s, 5000);
			if (err)
				break;
		}
		CHECK(!err, "%u buckets: 40 random runs in day order, wrap at 2^64: %s",
		      n, err ? err : "ok");
	}
}

int main(void)
{
	test_geometry();
	test_place();
	test_next_day();
	test_model();
	return unit_done();
}
