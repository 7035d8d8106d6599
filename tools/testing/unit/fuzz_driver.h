/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the seeded fuzz drivers share (the builds without
 * -DSHOAL_LIBFUZZER): the number of inputs and the seed from the command
 * line, printed so that a failing run can be repeated, and the paths a
 * driver claims to reach, each counted and checked: a fuzzer that never
 * reaches a path proves nothing about it.
 */
#ifndef _SHOAL_FUZZ_DRIVER_H
#define _SHOAL_FUZZ_DRIVER_H

#include <stdio.h>
#include <stdlib.h>

struct fuzz_path {
	const char *name;
	unsigned long hits;
};

static inline int fuzz_number(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *s && !*end;
}

/* Usage: NAME [ITERS [SEED]]; @iters and @seed are the defaults (make
 * check's).  Seeds rand() and returns the number of inputs to run.
 */
static inline unsigned long fuzz_start(int argc, char **argv,
				       const char *name, unsigned long iters,
				       unsigned long seed)
{
	if (argc > 3 || (argc > 1 && !fuzz_number(argv[1], &iters)) ||
	    (argc > 2 && !fuzz_number(argv[2], &seed))) {
		fprintf(stderr, "usage: %s [ITERS [SEED]]\n", name);
		exit(2);
	}
	printf("# %s: %lu inputs, seed %lu (again: %s %lu %lu)\n", name,
	       iters, seed, name, iters, seed);
	srand((unsigned int)seed);
	return iters;
}

/* TAP line @num: every one of the @n paths was reached, with the counts */
static inline int fuzz_paths_check(int num, const char *name,
				   const struct fuzz_path *p, size_t n)
{
	int ok = 1;
	size_t i;

	for (i = 0; i < n; i++)
		if (!p[i].hits)
			ok = 0;
	printf("%s %d - %s: every path reached (", ok ? "ok" : "not ok",
	       num, name);
	for (i = 0; i < n; i++)
		printf("%s%s %lu", i ? ", " : "", p[i].name, p[i].hits);
	printf(")\n");
	return ok;
}

#define FUZZ_NPATHS(a)	(sizeof(a) / sizeof((a)[0]))

#endif
