// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/transport/shoal_rtt_core.h: the smoothed answer delay
 * (converges on a steady delay, a sample's cap, back down once answers are
 * quick, no overflow) and the resend interval it gives (the configured one
 * while answers are quick, the delay, its ceiling); and a probing
 * sender against a host whose backlog delays every answer by seconds: timed
 * from its last probe, once the interval has followed the delay about one
 * probe goes per answer.
 */
#include <stdio.h>

#include "shoal_rtt_core.h"
#include "unit.h"

#define BASE	12UL	/* a 50 ms interval at HZ 250 */

static void test_converges(void)
{
	u32 srtt8 = 0;
	int i;

	CHECK(shoal_ival_scaled(BASE, 0) == BASE,
	      "no sample yet: the configured interval (%lu)",
	      shoal_ival_scaled(BASE, 0));
	for (i = 0; i < 100; i++)
		srtt8 = shoal_rtt_update(srtt8, 8, BASE);
	CHECK(srtt8 >> SHOAL_RTT_SHIFT >= 7 && srtt8 >> SHOAL_RTT_SHIFT <= 8,
	      "answers 8 ticks late: a smoothed delay of %u",
	      srtt8 >> SHOAL_RTT_SHIFT);
	CHECK(shoal_ival_scaled(BASE, srtt8) == BASE,
	      "answers quicker than the interval leave it as configured (%lu)",
	      shoal_ival_scaled(BASE, srtt8));
	for (i = 0; i < 100; i++)
		srtt8 = shoal_rtt_update(srtt8, 100, BASE);
	CHECK(srtt8 >> SHOAL_RTT_SHIFT >= 99 && srtt8 >> SHOAL_RTT_SHIFT <= 100,
	      "answers 100 ticks late: a smoothed delay of %u",
	      srtt8 >> SHOAL_RTT_SHIFT);
	CHECK(shoal_ival_scaled(BASE, srtt8) >= 99 &&
	      shoal_ival_scaled(BASE, srtt8) <= 100,
	      "the interval is the delay: %lu", shoal_ival_scaled(BASE, srtt8));
}

static void test_bounds(void)
{
	u32 srtt8 = 0;
	int i;

	srtt8 = shoal_rtt_update(srtt8, 1000000, BASE);
	CHECK(srtt8 == BASE * SHOAL_IVAL_SCALE_MAX,
	      "an answer a million ticks late counts as %d intervals (%u / 8)",
	      SHOAL_IVAL_SCALE_MAX, srtt8);
	for (i = 0; i < 200; i++)
		srtt8 = shoal_rtt_update(srtt8, 1000000, BASE);
	CHECK(shoal_ival_scaled(BASE, srtt8) == BASE * SHOAL_IVAL_SCALE_MAX,
	      "answers ever later: the interval stops at %d configured ones (%lu)",
	      SHOAL_IVAL_SCALE_MAX, shoal_ival_scaled(BASE, srtt8));
	for (i = 0; i < 60 && shoal_ival_scaled(BASE, srtt8) > BASE; i++)
		srtt8 = shoal_rtt_update(srtt8, 1, BASE);
	CHECK(shoal_ival_scaled(BASE, srtt8) == BASE,
	      "quick answers again: back to the configured interval in %d samples (<= 40)",
	      i);
	CHECK(i <= 40, "(that is at most 40: %d)", i);
	CHECK(shoal_rtt_update(0xffffffffu, ~0UL, 1UL << 40) == 0xffffffffu,
	      "no overflow at the top of the range");
	CHECK(shoal_ival_scaled(1, 0xffffffffu) == SHOAL_IVAL_SCALE_MAX,
	      "a 1-tick interval grows to %d ticks at most (%lu)",
	      SHOAL_IVAL_SCALE_MAX, shoal_ival_scaled(1, 0xffffffffu));
}

/* A message probes its receiver 2, then 4, then every 8 intervals after
 * the last news, as shoal_probe_due() has it; every probe is answered
 * @delay ticks later, give or take a tenth (a backlog's), every answer is
 * news, and the first after a probe times it (if @timed: else the
 * interval stays as configured).  Returns the probes sent in [@from, @to)
 * per @delay ticks, x 100, and the interval at the end in *@ival_end.
 */
static unsigned long probes_per_delay(unsigned long delay, unsigned long from,
				      unsigned long to, bool timed,
				      unsigned long *ival_end)
{
	unsigned long now, news = 0, last = 0, ival, gap;
	unsigned long probes = 0;
	unsigned long answers[256];
	unsigned int head = 0, tail = 0, silent = 0, seed = 1;
	bool probing = false;
	u32 srtt8 = 0;

	for (now = 1; now < to; now++) {
		while (head != tail && answers[head % 256] <= now) {
			head++;
			news = now;
			silent = 0;
			if (probing) {
				if (timed)
					srtt8 = shoal_rtt_update(srtt8,
								 now - last,
								 BASE);
				probing = false;
			}
		}
		ival = shoal_ival_scaled(BASE, srtt8);
		gap = silent >= 2 ? 8 : 2U << silent;
		if (now < (silent ? last : news) + gap * ival ||
		    tail - head == 256)
			continue;
		last = now;
		silent++;
		probing = true;
		seed = seed * 1103515245 + 12345;
		answers[tail++ % 256] = now + delay - delay / 10 +
					(seed >> 16) % (delay / 5 + 1);
		if (now >= from)
			probes++;
	}
	*ival_end = shoal_ival_scaled(BASE, srtt8);
	return probes * delay * 100 / (to - from);
}

static void test_backlog(void)
{
	unsigned long fixed, timed, ival, ival_quick;

	fixed = probes_per_delay(500, 50000, 300000, false, &ival);
	timed = probes_per_delay(500, 50000, 300000, true, &ival);
	probes_per_delay(2, 50000, 300000, true, &ival_quick);
	CHECK(fixed >= 500,
	      "answers 2 s late, a fixed interval: %lu.%02lu probes per delay",
	      fixed / 100, fixed % 100);
	CHECK(timed <= 100,
	      "the interval follows the delay (%lu ticks): %lu.%02lu probes per delay (<= 1)",
	      ival, timed / 100, timed % 100);
	CHECK(ival_quick == BASE,
	      "answers in 2 ticks: the interval stays as configured (%lu)",
	      ival_quick);
}

int main(void)
{
	test_converges();
	test_bounds();
	test_backlog();
	return unit_done();
}
