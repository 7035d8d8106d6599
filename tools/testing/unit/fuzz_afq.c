// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the AFQ core on the whole-scheduler model (afq_model.h).
 * The first bytes pick the geometry: nqueues, bpr, sketch rows and cols,
 * exact mode with a small flow table (so its probe windows fill up), the
 * packet limit and overflow pushout (with its refunds), the ECN threshold
 * and the first round.  Each further byte
 * is an operation: enqueue (flow and length), dequeue, a link tick, or a
 * reconfiguration that drains the queues and changes bpr, rows, cols and
 * the mode, as the qdisc's change() may.  After every operation the model
 * checks per-flow FIFO order, no packet lost or duplicated, every queued
 * packet within [head, head + nqueues), bids monotone per flow, the sketch
 * never below a flow's bid, and shadow >= exact in exact mode.
 * A libFuzzer target with -DSHOAL_LIBFUZZER, otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>

#include "afq_model.h"
#include "fuzz_driver.h"

#define FUZZ_FLOWS	24

static struct afq_model m;

/* What the runs exercised, so the driver can tell a blind fuzzer */
static struct {
	u64 queued, horizon, limit, pushed, table_full, misplaced, ecn;
	u64 reconfigs;
	u64 max_qlen;
} seen;

/* Geometry from two bytes; the qdisc accepts bpr 1..2^32-1, we keep the
 * range where a handful of packets spans zero to many rounds.
 */
static void fuzz_geometry(struct afqm_cfg *cfg, unsigned char x,
			  unsigned char y)
{
	static const u32 bprs[] = { 1, 7, 64, 100, 576, 1000, 1500, 9000 };

	cfg->bpr = bprs[x & 7] + (y & 0x0f);
	cfg->rows = 1 + ((x >> 3) & 7);
	cfg->cols = 2u << ((y >> 4) & 7);		/* 2 .. 256 */
	cfg->exact_slots = x & 0x40 ? 8u << ((y >> 2) & 3) : 0;
	cfg->seed = (u64)x * 0x100 + y;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct afqm_cfg cfg = { 0 };
	struct afqm_pkt p;
	bool fill;
	size_t i;

	if (size < 8)
		return 0;
	cfg.nqueues = 2u << (data[0] % 8);		/* 2 .. 256 */
	cfg.limit = 1 + data[1] * 2;			/* 1 .. 511 */
	cfg.ecn_rounds = data[2] % 10;
	cfg.pushout = data[2] & 0x40;
	fill = data[2] & 0x80;
	/* R * bpr stays below 2^60: the core's bids are absolute bytes */
	cfg.head = data[3] & 0x80 ? (1ULL << 46) - 1 - data[4] :
				    (u64)data[4] << (data[3] & 31);
	fuzz_geometry(&cfg, data[5], data[6]);
	if (afqm_init(&m, &cfg))
		return 0;
	for (i = 7; i < size && !m.error; i++) {
		unsigned char op = data[i], arg = i + 1 < size ? data[i + 1] : 0;

		switch (op >> 5) {
		case 0: case 1: case 2: case 3:
			/* lengths 1..~2000: below, at and above bpr */
			afqm_enqueue(&m, op % FUZZ_FLOWS, 1 + arg * 8 + (op & 7));
			i++;
			break;
		case 4: case 5:
			if (fill)	/* a slow link: queues build up */
				afqm_tick(&m, 1 + (op & 0x1f));
			else
				afqm_dequeue(&m, &p);
			break;
		case 6:
			afqm_tick(&m, 1 + (op & 0x1f) * 32);
			break;
		default:
			if (op != 0xff) {	/* reconfig is rarer */
				afqm_tick(&m, 1 + (op & 0x1f) * 32);
				break;
			}
			afqm_drain(&m);
			if (i + 2 < size)
				fuzz_geometry(&cfg, data[i + 1], data[i + 2]);
			seen.reconfigs++;
			if (afqm_reconfig(&m, &cfg)) {
				afqm_release(&m);
				return 0;
			}
			i += 2;
			break;
		}
		afqm_check_all(&m);
		if ((u64)m.qlen > seen.max_qlen)
			seen.max_qlen = m.qlen;
	}
	seen.queued += m.enqueued;
	seen.horizon += m.drops_horizon;
	seen.limit += m.drops_limit;
	seen.pushed += m.pushed_out;
	seen.table_full += m.table_full;
	seen.misplaced += m.misplaced;
	seen.ecn += m.ecn_marked;
	afqm_drain(&m);
	afqm_release(&m);
	if (m.error) {
		fprintf(stderr, "fuzz_afq: %s\n", m.error);
		abort();
	}
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_afq", 12000, 11);
	unsigned char buf[512];
	unsigned long i;
	size_t len, k;

	for (i = 0; i < iters; i++) {
		len = 8 + rand() % (sizeof(buf) - 8);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_afq: %lu inputs, invariants held\n", iters);
	printf("# %llu packets queued, %llu horizon drops, %llu limit drops, %llu pushed out, %llu table-full, %llu misplaced, %llu ecn, %llu reconfigs, qlen up to %llu\n",
	       seen.queued, seen.horizon, seen.limit, seen.pushed,
	       seen.table_full,
	       seen.misplaced, seen.ecn, seen.reconfigs, seen.max_qlen);
	/* A fuzzer that never reaches a path proves nothing about it */
	if (seen.horizon && seen.limit && seen.pushed && seen.table_full &&
	    seen.misplaced &&
	    seen.ecn && seen.reconfigs && seen.max_qlen > 100)
		printf("ok 2 - every drop, pushout, table-full, misplacement, ecn and reconfig path reached\n");
	else
		printf("not ok 2 - some path never reached\n");
	printf("1..2\n");
	return 0;
}
#endif
