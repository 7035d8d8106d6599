// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the calendar core: each input byte is an operation
 * (enqueue at an offset from the head, or dequeue) on a model calendar
 * whose geometry and start day come from the first bytes.  The model
 * checks ordering and bookkeeping after every step.  A libFuzzer target
 * with -DSHOAL_LIBFUZZER, otherwise a seeded driver (make check).
 */
#include <stdint.h>
#include <stdio.h>

#include "cal_model.h"

static struct cal_model m;

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
	for (i = 10; i < size; i++) {
		if (data[i] & 0x80)
			model_enqueue(&m, m.c.head + (u64)(data[i] & 0x7f) - 8);
		else
			model_dequeue(&m, &out);
	}
	while (!m.error && model_dequeue(&m, &out))
		;
	if (m.error || m.queued != m.served || m.c.nonempty)
		abort();
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	unsigned char buf[256];
	unsigned long i;
	size_t len, k;

	srand(7);
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
	printf("1..1\n");
	return 0;
}
#endif
