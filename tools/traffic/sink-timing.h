/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing checks of shoal-sink over the arrivals it recorded: per sender
 * the arrival rate and inter-arrival gaps (is a flow paced?), and for
 * packets that carry a deadline, misses and deadline-order inversions
 * across all senders (did the queue serve earliest deadline first?).
 */
#ifndef _SHOAL_SINK_TIMING_H
#define _SHOAL_SINK_TIMING_H

#include <stdint.h>
#include <stdlib.h>

struct timed_arrival {
	uint32_t sender;
	bool has_dl;
	uint64_t t_ns;		/* arrival, CLOCK_MONOTONIC */
	uint64_t sent_ns;	/* when it was sent, from the sender's stamp */
	uint64_t dl_ns;		/* absolute deadline, CLOCK_MONOTONIC */
};

struct sender_timing {
	uint64_t n, first_ns, last_ns;
	uint64_t gap_p10_ns, gap_p50_ns, gap_p90_ns;
	uint64_t delay_p50_ns, delay_p99_ns, delay_max_ns;	/* one-way */
	uint64_t windows, windows_steady;	/* see tm_sender() */
	uint64_t dl_pkts, dl_miss, dl_late_max_ns, dl_inversions;
};

struct deadline_order {
	uint64_t pkts, miss, inversions;
	uint64_t inversion_max_ns;	/* how far out of order, worst case */
};

static int tm_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define TM_WINDOW	20	/* gaps per window of the steadiness check */

/* Rate and gaps of sender @idx over @n arrivals in arrival order.  A
 * paced flow is steady: windows of TM_WINDOW consecutive packets arrive
 * at the flow's mean rate; windows_steady counts those within 10% of it,
 * which a flow sent in bursts rarely is.
 */
static void tm_sender(const struct timed_arrival *a, size_t n, uint32_t idx,
		      struct sender_timing *st)
{
	uint64_t *gaps = malloc((n + 1) * sizeof(*gaps)), prev = 0;
	uint64_t *delays = malloc((n + 1) * sizeof(*delays));
	size_t i, g = 0, nd = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		if (a[i].sender != idx)
			continue;
		if (!st->n++)
			st->first_ns = a[i].t_ns;
		else if (gaps)
			gaps[g++] = a[i].t_ns - prev;
		prev = st->last_ns = a[i].t_ns;
		if (delays)
			delays[nd++] = a[i].t_ns - a[i].sent_ns;
		if (!a[i].has_dl)
			continue;
		st->dl_pkts++;
		if (a[i].t_ns > a[i].dl_ns) {
			st->dl_miss++;
			if (a[i].t_ns - a[i].dl_ns > st->dl_late_max_ns)
				st->dl_late_max_ns = a[i].t_ns - a[i].dl_ns;
		}
	}
	if (g >= TM_WINDOW && st->last_ns > st->first_ns) {
		double mean = (double)(st->last_ns - st->first_ns) / (double)g;
		uint64_t span = 0;

		for (i = 0; i < g; i++) {
			span += gaps[i];
			if (i >= TM_WINDOW - 1) {
				double r = (double)span / (TM_WINDOW * mean);

				st->windows++;
				if (r > 0.9 && r < 1.1)
					st->windows_steady++;
				span -= gaps[i - (TM_WINDOW - 1)];
			}
		}
	}
	if (g) {
		qsort(gaps, g, sizeof(*gaps), tm_cmp_u64);
		st->gap_p10_ns = gaps[g / 10];
		st->gap_p50_ns = gaps[g / 2];
		st->gap_p90_ns = gaps[g * 9 / 10];
	}
	if (nd) {
		qsort(delays, nd, sizeof(*delays), tm_cmp_u64);
		st->delay_p50_ns = delays[nd / 2];
		st->delay_p99_ns = delays[nd * 99 / 100];
		st->delay_max_ns = delays[nd - 1];
	}
	free(gaps);
	free(delays);
}

/* A packet P is an inversion when a packet Q with a deadline more than
 * @tol_ns later arrived before it although P was already on its way
 * (sent more than @tol_ns before Q arrived): an EDF queue holding both
 * would have sent P first.  Packets that met an idle queue are not
 * inversions, however their deadlines compare.  P is charged to its own
 * sender in @per (indexed by sender, may be NULL).
 */
static void tm_deadline_order(const struct timed_arrival *a, size_t n,
			      uint64_t tol_ns, struct deadline_order *d,
			      struct sender_timing *per)
{
	size_t i, j;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		uint64_t worst = 0;

		if (!a[i].has_dl)
			continue;
		d->pkts++;
		if (a[i].t_ns > a[i].dl_ns)
			d->miss++;
		for (j = i; j-- > 0 && a[j].t_ns > a[i].sent_ns + tol_ns;)
			if (a[j].has_dl && a[j].dl_ns > a[i].dl_ns + tol_ns &&
			    a[j].dl_ns - a[i].dl_ns > worst)
				worst = a[j].dl_ns - a[i].dl_ns;
		if (!worst)
			continue;
		d->inversions++;
		if (per)
			per[a[i].sender].dl_inversions++;
		if (worst > d->inversion_max_ns)
			d->inversion_max_ns = worst;
	}
}

#endif /* _SHOAL_SINK_TIMING_H */
