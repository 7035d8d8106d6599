/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace model around calendar_core.h: one FIFO of days per bucket,
 * driven by random operations and checked after each one.  Shared by the
 * unit test and the fuzz target.
 */
#ifndef _SHOAL_CAL_MODEL_H
#define _SHOAL_CAL_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "calendar_core.h"

#define MODEL_CAP	64	/* packets per bucket */

struct cal_model {
	struct cal_core c;
	u64 fifo[CAL_MAX_BUCKETS][MODEL_CAP];
	u32 len[CAL_MAX_BUCKETS];
	u32 first[CAL_MAX_BUCKETS];
	u64 queued, served, last_served;
	bool served_any;
	const char *error;	/* first broken invariant, or NULL */
};

static inline void model_fail(struct cal_model *m, const char *what)
{
	if (!m->error)
		m->error = what;
}

static inline void model_init(struct cal_model *m, u32 n, u8 horizon, u64 head)
{
	memset(m->len, 0, sizeof(m->len));
	memset(m->first, 0, sizeof(m->first));
	m->queued = m->served = m->last_served = 0;
	m->served_any = false;
	m->error = NULL;
	cal_init(&m->c, n, horizon, head);
}

/* Enqueue a packet of @day; returns the core's verdict */
static inline enum cal_place model_enqueue(struct cal_model *m, u64 day)
{
	enum cal_place r;
	u32 b;

	r = cal_place(&m->c, &day, &b);
	if (r != CAL_PLACED)
		return r;
	if (!cal_in_range(&m->c, day))
		model_fail(m, "placed day out of range");
	if (m->len[b] == MODEL_CAP)
		return CAL_DROPPED;	/* the model's own limit */
	m->fifo[b][(m->first[b] + m->len[b]) % MODEL_CAP] = day;
	if (m->len[b]++ == 0)
		cal_mark(&m->c, b);
	m->queued++;
	return r;
}

/* Serve one packet the way a qdisc does; false when empty */
static inline bool model_dequeue(struct cal_model *m, u64 *out)
{
	u64 day;
	u32 b;

	if (!cal_next_day(&m->c, &day)) {
		if (m->queued != m->served)
			model_fail(m, "calendar empty but packets queued");
		return false;
	}
	cal_advance(&m->c, day);
	if (m->c.head != day)
		model_fail(m, "head did not reach the next day");
	b = cal_bucket(&m->c, day);
	if (!m->len[b]) {
		model_fail(m, "marked bucket is empty");
		return false;
	}
	*out = m->fifo[b][m->first[b]];
	m->first[b] = (m->first[b] + 1) % MODEL_CAP;
	if (--m->len[b] == 0)
		cal_unmark(&m->c, b);
	if (*out != day)
		model_fail(m, "served a packet of another day");
	if (m->served_any && (s64)(*out - m->last_served) < 0)
		model_fail(m, "days served out of order");
	m->last_served = *out;
	m->served_any = true;
	m->served++;
	return true;
}

#endif /* _SHOAL_CAL_MODEL_H */
