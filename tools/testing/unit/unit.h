/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit-test helpers for the algorithm cores.  Each check prints a
 * TAP line, so scripts/check counts them like every other test.
 */
#ifndef _SHOAL_UNIT_H
#define _SHOAL_UNIT_H

#include <stdio.h>

static int unit_failed;
static int unit_count;

#define CHECK(cond, ...)						\
	do {								\
		unit_count++;						\
		if (cond) {						\
			printf("ok %d - ", unit_count);			\
		} else {						\
			unit_failed++;					\
			printf("not ok %d - %s:%d: ", unit_count,	\
			       __FILE__, __LINE__);			\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

#define CHECK_EQ(a, b, name)						\
	CHECK((long long)(a) == (long long)(b), "%s (%lld == %lld)",	\
	      name, (long long)(a), (long long)(b))

static inline int unit_done(void)
{
	printf("1..%d\n", unit_count);
	return unit_failed ? 1 : 0;
}

#endif /* _SHOAL_UNIT_H */
