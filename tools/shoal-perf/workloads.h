/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workloads.h - shoal-perf's message-size workloads (Homa's W1-W5): each a
 * table of (size, cumulative fraction) points, sizes drawn log-uniformly
 * between two points.  workloads.c says where the tables come from.
 */
#ifndef _SHOAL_PERF_WORKLOADS_H
#define _SHOAL_PERF_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

struct cdf_pt {
	uint32_t size;
	double cdf;
};

struct workload {
	const char *name;
	const char *alias;	/* SIRD's name */
	const char *source;
	const struct cdf_pt *pts;
	int n;
};

extern const struct workload workloads[];
extern const size_t n_workloads;

/* by name or SIRD's alias, case-insensitive; NULL if none */
const struct workload *workload_find(const char *name);
/* the size at cumulative fraction @u in (0, 1] */
uint32_t workload_sample(const struct workload *w, double u);
/* the mean of the table as sampled */
double workload_mean(const struct workload *w);
uint32_t workload_max(const struct workload *w);

#endif /* _SHOAL_PERF_WORKLOADS_H */
