// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for a message's byte bookkeeping (shoal_msg_core.h).  The
 * input drives a receiver and a sender of one message of up to 4 KB
 * through arrivals, gap queries, credit, resend requests and sends; a
 * bitmap of bytes is the model.  Every arrival must report exactly the
 * bytes the model did not have (or be refused, changing nothing, only
 * when its table is full); the pieces stay sorted, apart and inside the
 * message and add up to what arrived; a gap never lists a byte that
 * arrived and always starts at the first missing byte from where it was
 * asked; the sender never sends past its credit or the message, and sends
 * every byte below its credit exactly once unless asked again.
 * A libFuzzer target with -DSHOAL_LIBFUZZER, otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoal_msg_core.h"

#define MAX_LEN		4096

static void check_rx(const struct shoal_rx_msg *m, const uint8_t *have)
{
	u32 i, sum = 0, b, count = 0;

	for (i = 0; i < m->n; i++) {
		const struct shoal_range *r = &m->have[i];

		if (r->start >= r->end || r->end > m->msg_len ||
		    (i && r->start <= m->have[i - 1].end))
			abort();	/* empty, outside, unsorted or touching */
		sum += r->end - r->start;
		for (b = r->start; b < r->end; b++)
			if (!have[b])
				abort();
	}
	for (b = 0; b < m->msg_len; b++)
		count += have[b];
	if (sum != count || m->received != count || m->n > SHOAL_RX_RANGES)
		abort();
}

static u32 get16(const uint8_t *d, size_t size, size_t *i)
{
	u32 v = *i < size ? d[(*i)++] : 0;

	return v << 8 | (*i < size ? d[(*i)++] : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t have[MAX_LEN], sent[MAX_LEN];
	struct shoal_rx_msg rx;
	struct shoal_tx_msg tx;
	struct shoal_range g;
	size_t i = 0;
	u32 len, off, n, b, fresh, mss;
	bool retx;
	int r;

	if (size < 3)
		return 0;
	len = 1 + get16(data, size, &i) % MAX_LEN;
	mss = 1 + data[i++] % 200;
	shoal_rx_init(&rx, len);
	shoal_tx_init(&tx, len, get16(data, size, &i) % (len + 1));
	memset(have, 0, len);
	memset(sent, 0, len);
	while (i < size) {
		u8 op = data[i++];

		off = get16(data, size, &i) % len;
		n = get16(data, size, &i) % (len - off + 1);
		switch (op % 5) {
		case 0:	/* an arrival */
			for (b = off, fresh = 0; b < off + n; b++)
				fresh += !have[b];
			r = shoal_rx_add(&rx, off, n);
			if (r == SHOAL_RX_FULL) {
				if (rx.n != SHOAL_RX_RANGES || !fresh)
					abort();
				break;
			}
			if ((u32)r != fresh)
				abort();
			memset(have + off, 1, n);
			break;
		case 1:	/* the first gap from off below a limit */
			if (shoal_rx_gap(&rx, off, off + n, 1 + op, &g)) {
				if (g.start < off || g.end > off + n ||
				    g.start >= g.end || g.end - g.start > 1u + op ||
				    have[g.start])
					abort();
				for (b = off; b < g.start; b++)
					if (!have[b])
						abort();	/* skipped a hole */
				for (b = g.start; b < g.end; b++)
					if (have[b])
						abort();
			} else {
				for (b = off; b < off + n && b < len; b++)
					if (!have[b])
						abort();
			}
			break;
		case 2:	/* credit */
			shoal_tx_allow(&tx, off + n);
			break;
		case 3:	/* asked again */
			if (shoal_tx_resend(&tx, off, n))
				for (b = off; b < off + n && b < tx.next; b++)
					sent[b] = 0;
			break;
		default:	/* a send */
			if (!shoal_tx_next(&tx, mss, &off, &n, &retx))
				break;
			if (!n || n > mss || off + n > tx.allowed ||
			    tx.allowed > len)
				abort();
			for (b = off; b < off + n; b++) {
				/* new bytes go once; a resend may repeat what a
				 * merged request covered twice
				 */
				if (sent[b] && !retx)
					abort();
				sent[b] = 1;
			}
		}
		check_rx(&rx, have);
	}
	/* drained, every byte below the credit went out */
	while (shoal_tx_next(&tx, mss, &off, &n, &retx))
		memset(sent + off, 1, n);
	for (b = 0; b < tx.allowed; b++)
		if (!sent[b])
			abort();
	if (tx.next != tx.allowed || tx.n)
		abort();
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned char buf[512];
	unsigned long i;
	size_t len, k;

	srand(19);
	for (i = 0; i < iters; i++) {
		len = 3 + rand() % (sizeof(buf) - 3);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		/* short messages half the time: more overlaps and fills */
		if (i & 1)
			buf[0] = 0;
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_shoal_msg: %lu inputs (arrivals, gaps, credit, resends, sends against a byte model), invariants held\n",
	       iters);
	printf("1..1\n");
	return 0;
}
#endif
