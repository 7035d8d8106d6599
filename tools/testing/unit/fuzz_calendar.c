// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the calendar core: each input byte is an operation
 * (enqueue at an offset from the head, or dequeue) on a model calendar
 * whose geometry and start day come from the first bytes.  The model
 * checks ordering and bookkeeping after every step.  A libFuzzer target
 * with -DSHOAL_LIBFUZZER, otherwise a seeded driver (make check) that
 * checks every path below was reached.
 */
#include <stdint.h>
#include <stdio.h>

#include "cal_model.h"
#include "fuzz_driver.h"

static struct cal_model m;

/* the paths the inputs must reach, summed over them (fuzz_driver.h) */
enum { P_CLAMP, P_DROP, P_PLACED, P_PAST, P_FUTURE, P_HDROP, P_ROTATE,
       P_EMPTY, P_WRAP, P_MAX };
static struct fuzz_path paths[P_MAX] = {
	[P_CLAMP] = { "clamp horizon" }, [P_DROP] = { "drop horizon" },
	[P_PLACED] = { "placed" }, [P_PAST] = { "clamped past" },
	[P_FUTURE] = { "clamped future" }, [P_HDROP] = { "horizon drops" },
	[P_ROTATE] = { "head moves" }, [P_EMPTY] = { "dequeue empty" },
	[P_WRAP] = { "head past 2^64" },
};

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	u64 head = 0, out;
	size_t i;
	u32 n;

	if (size < 10)
		return 0;
	n = 2u << (data[0] % 12);		/* 2 .. 4096 */
	for (i = 1; i < 9; i++)
		head = head << 8 | data[i];
	model_init(&m, n, data[9] % 2 ? CAL_HORIZON_CLAMP : CAL_HORIZON_DROP,
		   head);
	paths[data[9] % 2 ? P_CLAMP : P_DROP].hits++;
	for (i = 10; i < size; i++) {
		if (data[i] & 0x80) {
			if (model_enqueue(&m, m.c.head + (u64)(data[i] & 0x7f) -
					  8) == CAL_PLACED)
				paths[P_PLACED].hits++;
		} else if (!model_dequeue(&m, &out)) {
			paths[P_EMPTY].hits++;
		}
	}
	while (!m.error && model_dequeue(&m, &out))
		;
	paths[P_PAST].hits += m.c.st.clamped_past;
	paths[P_FUTURE].hits += m.c.st.clamped_future;
	paths[P_HDROP].hits += m.c.st.horizon_drops;
	paths[P_ROTATE].hits += m.c.st.rotations;
	paths[P_WRAP].hits += m.c.head < head;
	if (m.error || m.queued != m.served || m.c.nonempty)
		abort();
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_calendar", 200000, 7);
	unsigned char buf[256];
	unsigned long i;
	size_t len, k;
	int ok;

	for (i = 0; i < iters; i++) {
		len = 10 + rand() % (sizeof(buf) - 10);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		if (i % 4 == 0)		/* start next to 2^64 */
			for (k = 1; k < 9; k++)
				buf[k] = 0xff;
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_calendar: %lu inputs, no fault\n", iters);
	ok = fuzz_paths_check(2, "fuzz_calendar", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
