// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for SIRD's arithmetic (sird_core.h).  The input picks a
 * configuration, then drives a receiver with four senders through
 * grants (the pick among messages), arrivals with and without csn and
 * CE, duplicates, reclaims and the pacer, and a sender through its
 * choice of receiver.  Invariants: the credit outstanding never passes
 * B and always equals what the senders hold; a grant goes only where the
 * sender's bucket and B have room, to the message with the fewest bytes
 * left among those; buckets stay between the floor and the BDP and alpha
 * within [0, 1]; credit returned never drives anything below zero; the
 * pacer's wait grows with the grant; the sender picks only a receiver
 * with credit and bytes, and gives fair share its exact share of turns.
 * A libFuzzer target with -DSHOAL_LIBFUZZER, otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_driver.h"
#include "sird_core.h"

#define PEERS	4

static unsigned long grants;	/* so the driver knows grants were made */

/* the paths the inputs must reach (fuzz_driver.h) */
enum { P_SRPT, P_FAIR, P_FIFO, P_NO_ROOM, P_PACED, P_CSN, P_CE,
       P_OVERCLAIM, P_TX_PICK, P_TX_NONE, P_MAX };
static struct fuzz_path paths[P_MAX] = {
	[P_SRPT] = { "SRPT grant" }, [P_FAIR] = { "round-robin grant" },
	[P_FIFO] = { "oldest's grant" }, [P_NO_ROOM] = { "no room" },
	[P_PACED] = { "paced grant" }, [P_CSN] = { "arrival with csn" },
	[P_CE] = { "arrival with CE" },
	[P_OVERCLAIM] = { "return past what is held" },
	[P_TX_PICK] = { "sender picks" }, [P_TX_NONE] = { "sender has none" },
};

static u32 get32(const uint8_t *d, size_t size, size_t *i)
{
	u32 v = 0;
	int k;

	for (k = 0; k < 4; k++)
		v = v << 8 | (*i < size ? d[(*i)++] : 0);
	return v;
}

static void check_peer(const struct sird_cfg *c, const struct sird_rx_peer *p)
{
	u32 floor = c->min_bkt < c->bdp ? c->min_bkt : c->bdp;

	if (p->snd.bkt < floor || p->snd.bkt > c->bdp ||
	    p->net.bkt < floor || p->net.bkt > c->bdp ||
	    p->snd.alpha > SIRD_ONE || p->net.alpha > SIRD_ONE ||
	    sird_bucket(p) > c->bdp)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sird_rx_peer peer[PEERS];
	struct sird_cand cand[PEERS];
	struct sird_tx_cand tx[PEERS];
	struct sird_turns turns = { 0 }, rx_turns = { 0 };
	struct sird_cfg c = { 0 };
	bool fair, fifo;
	u32 b = 0, sum, i, n, turns_all = 0;
	u64 now = 0, pace_prev, born = 0;
	size_t at = 0;
	int k;

	if (size < 24)	/* the settings below read 21 bytes */
		return 0;
	c.mss = 1 + get32(data, size, &at) % 9000;
	c.bdp = c.mss + get32(data, size, &at) % (1U << 22);
	c.b = c.bdp + get32(data, size, &at) % (1U << 23);
	c.unsch_thresh = data[at++] * 1000U;
	c.sthr = data[at++] % 2 ? c.bdp / 2 : 0;
	c.min_bkt = c.mss;
	c.g_shift = data[at++] % 17;
	c.rtt_ns = 1 + data[at++] * 100U;
	c.rate_bps = data[at] % 3 ? (u64)data[at] * 1000000000ULL : 0;
	at++;
	c.overhead = 60;
	c.fair_permille = (data[at++] % 11) * 100;
	c.rx_fair_permille = (data[at++] % 11) * 100;
	c.rx_fifo_permille = (data[at++] % 11) * 100;
	for (i = 0; i < PEERS; i++) {
		sird_rx_peer_init(&c, &peer[i], 0);
		cand[i] = (struct sird_cand){ .order = i + 1 };
		tx[i] = (struct sird_tx_cand){ .order = i + 1 };
	}
	while (at < size) {
		u8 op = data[at++];
		u32 v = get32(data, size, &at);
		struct sird_rx_peer *p = &peer[op % PEERS];

		now += v % 5000;
		switch ((op >> 2) % 6) {
		case 0:	/* a message wants credit */
			cand[op % PEERS].rem = v % (4 * c.bdp);
			cand[op % PEERS].left = cand[op % PEERS].rem + (v >> 20);
			cand[op % PEERS].born = born++;
			break;
		case 1:	/* the pacer grants what it may */
			for (i = 0; i < PEERS; i++) {
				cand[i].sb = peer[i].sb;
				cand[i].bkt = sird_bucket(&peer[i]);
			}
			/* a turn for the oldest, else a fair one, if one is
			 * chosen at all
			 */
			fifo = rx_turns.fifo_acc + c.rx_fifo_permille >= 1000;
			fair = !fifo &&
			       rx_turns.acc + c.rx_fair_permille >= 1000;
			k = sird_pick(&c, b, &rx_turns, cand, PEERS);
			for (i = 0; i < PEERS; i++) {
				bool ok = sird_can_grant(&c, b, &cand[i]);

				if (k < 0 && ok)
					abort();	/* one had room */
				if (k >= 0 && !fair && !fifo && ok &&
				    (cand[i].left < cand[k].left ||
				     (cand[i].left == cand[k].left &&
				      cand[i].born > cand[k].born)))
					abort();	/* not SRPT, newest of equals */
				if (k >= 0 && fifo && ok &&
				    cand[i].born < cand[k].born)
					abort();	/* not the oldest */
			}
			if (k >= 0 && fair && rx_turns.last != cand[k].order)
				abort();	/* the round's host not kept */
			if (k < 0) {
				paths[P_NO_ROOM].hits++;
				break;
			}
			paths[fifo ? P_FIFO : fair ? P_FAIR : P_SRPT].hits++;
			paths[P_PACED].hits += !!c.rate_bps;
			if (!sird_can_grant(&c, b, &cand[k]))
				abort();
			n = sird_grant_size(&c, &cand[k]);
			if (!n || n > c.mss)
				abort();
			sird_granted(&b, &peer[k], n);
			grants++;
			cand[k].rem -= n;
			if (b > c.b || peer[k].sb > cand[k].bkt)
				abort();	/* past B or the bucket */
			pace_prev = sird_pace_ns(&c, n);
			if (c.rate_bps && (!pace_prev ||
					   sird_pace_ns(&c, n + 1) < pace_prev))
				abort();
			break;
		case 2:	/* DATA arrives, maybe marked */
			sird_rx_sample(&c, p, 1 + v % c.mss, v & 1, v & 2, now);
			paths[P_CSN].hits += v & 1;
			paths[P_CE].hits += !!(v & 2);
			sird_returned(&b, p, (v >> 8) % (2 * c.mss));
			break;
		case 3:	/* a duplicate or a reclaim claims too much */
			paths[P_OVERCLAIM].hits += v > p->sb;
			sird_returned(&b, p, v);
			break;
		case 4:	/* the sender's credit and bytes */
			tx[op % PEERS].credit = v % 3 ? v % 100000 : 0;
			tx[op % PEERS].left = (v >> 3) % 5 ? v >> 12 : 0;
			break;
		default:	/* the sender picks */
			k = sird_tx_pick(&c, &turns, tx, PEERS);
			for (i = 0, n = 0; i < PEERS; i++)
				n += tx[i].credit && tx[i].left;
			if ((k < 0) != (n == 0))
				abort();
			if (k >= 0 && (!tx[k].credit || !tx[k].left))
				abort();
			turns_all += k >= 0;
			paths[k >= 0 ? P_TX_PICK : P_TX_NONE].hits++;
			break;
		}
		for (i = 0, sum = 0; i < PEERS; i++) {
			check_peer(&c, &peer[i]);
			sum += peer[i].sb;
		}
		if (sum != b || b > c.b)
			abort();
	}
	if (turns.acc >= 1000 || (turns_all && turns.acc !=
				  (u32)(((u64)turns_all * c.fair_permille) % 1000)))
		abort();	/* the running sum lost a turn */
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_sird_core", 200000, 23);
	unsigned char buf[1024];
	unsigned long i;
	size_t len, k;
	int ok;

	for (i = 0; i < iters; i++) {
		len = 16 + rand() % (sizeof(buf) - 16);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	if (grants < iters) {
		printf("not ok 1 - fuzz_sird_core: only %lu grants in %lu inputs\n",
		       grants, iters);
		return 1;
	}
	printf("ok 1 - fuzz_sird_core: %lu inputs (grants, arrivals, marks, reclaims, pacing, sender turns), %lu grants, invariants held\n",
	       iters, grants);
	ok = fuzz_paths_check(2, "fuzz_sird_core", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
