// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a message's byte bookkeeping (shoal_msg_core.h): new
 * bytes counted once whatever the order, duplicates and overlaps, the
 * gaps a receiver asks for, a full piece table, and the sender's order
 * (what was asked for again first, then new bytes up to its credit).
 */
#include <stdio.h>

#include "shoal_msg_core.h"
#include "unit.h"

static void test_rx_order(void)
{
	struct shoal_rx_msg m;
	int i, sum = 0;

	shoal_rx_init(&m, 5000);
	for (i = 0; i < 5; i++)
		sum += shoal_rx_add(&m, i * 1000, 1000);
	CHECK(sum == 5000 && m.n == 1 && shoal_rx_complete(&m),
	      "in order: 5000 new bytes, one piece, complete");
	shoal_rx_init(&m, 5000);
	for (i = 4, sum = 0; i >= 0; i--)
		sum += shoal_rx_add(&m, i * 1000, 1000);
	CHECK(sum == 5000 && m.n == 1 && m.have[0].start == 0 &&
	      m.have[0].end == 5000, "reversed: the same, merged into one");
	shoal_rx_init(&m, 5000);
	CHECK_EQ(shoal_rx_add(&m, 0, 1000), 1000, "first packet: 1000 new");
	CHECK_EQ(shoal_rx_add(&m, 0, 1000), 0, "the same again: a duplicate");
	CHECK_EQ(shoal_rx_add(&m, 500, 1000), 500, "half over it: 500 new");
	CHECK_EQ(shoal_rx_add(&m, 3000, 1000), 1000, "past a gap: 1000 new");
	CHECK_EQ(m.n, 2, "two pieces: 0-1500 and 3000-4000");
	CHECK_EQ(shoal_rx_add(&m, 1000, 2500), 1500,
		 "across the gap, overlapping both: 1500 new");
	CHECK(m.n == 1 && m.received == 4000 && !shoal_rx_complete(&m),
	      "one piece 0-4000, not complete");
	CHECK_EQ(shoal_rx_add(&m, 4000, 1000), 1000, "touching the end: new");
	CHECK(shoal_rx_complete(&m) && m.n == 1, "complete, one piece");
	CHECK_EQ(shoal_rx_add(&m, 1234, 0), 0, "an empty range adds nothing");
}

static void test_rx_full(void)
{
	struct shoal_rx_msg m;
	int i, r;

	shoal_rx_init(&m, 100000);
	for (i = 0; i < SHOAL_RX_RANGES; i++)
		shoal_rx_add(&m, i * 2000, 1000);
	CHECK_EQ(m.n, SHOAL_RX_RANGES, "every other packet: a full table");
	r = shoal_rx_add(&m, 90000, 1000);
	CHECK(r == SHOAL_RX_FULL && m.n == SHOAL_RX_RANGES &&
	      m.received == SHOAL_RX_RANGES * 1000,
	      "a new piece apart from all: refused, nothing changed");
	CHECK_EQ(shoal_rx_add(&m, 1000, 500), 500,
		 "touching a piece: taken though the table is full");
	CHECK_EQ(shoal_rx_add(&m, 1500, 500), 500,
		 "filling a gap: two pieces become one");
	CHECK_EQ(m.n, SHOAL_RX_RANGES - 1, "one piece freed");
	CHECK_EQ(shoal_rx_add(&m, 90000, 1000), 1000, "then room for another");
}

static void test_rx_gaps(void)
{
	struct shoal_rx_msg m;
	struct shoal_range g;
	bool ok;

	shoal_rx_init(&m, 10000);
	shoal_rx_add(&m, 1000, 1000);
	shoal_rx_add(&m, 4000, 2000);
	ok = shoal_rx_gap(&m, 0, 10000, 5000, &g);
	CHECK(ok && g.start == 0 && g.end == 1000, "first gap 0-1000");
	ok = shoal_rx_gap(&m, g.end, 10000, 5000, &g);
	CHECK(ok && g.start == 2000 && g.end == 4000, "then 2000-4000");
	ok = shoal_rx_gap(&m, g.end, 10000, 5000, &g);
	CHECK(ok && g.start == 6000 && g.end == 10000, "then 6000-10000");
	CHECK(!shoal_rx_gap(&m, g.end, 10000, 5000, &g), "then none");
	ok = shoal_rx_gap(&m, 6000, 10000, 1400, &g);
	CHECK(ok && g.start == 6000 && g.end == 7400, "at most 1400 bytes");
	ok = shoal_rx_gap(&m, 2000, 3000, 5000, &g);
	CHECK(ok && g.start == 2000 && g.end == 3000,
	      "below a limit of 3000 (granted so far): 2000-3000");
	CHECK(!shoal_rx_gap(&m, 4000, 5500, 5000, &g),
	      "nothing missing below 5500 from 4000");
	ok = shoal_rx_gap(&m, 1500, 10000, 5000, &g);
	CHECK(ok && g.start == 2000 && g.end == 4000,
	      "from inside a piece: the gap after it");
	ok = shoal_rx_gap(&m, 0, 20000, 50000, &g);
	CHECK(ok && g.start == 0 && g.end == 1000,
	      "a limit past the end counts as the end");
	shoal_rx_init(&m, 1);
	ok = shoal_rx_gap(&m, 0, 1, 1400, &g);
	CHECK(ok && g.start == 0 && g.end == 1, "a 1-byte message: 0-1 missing");
	CHECK_EQ(shoal_rx_add(&m, 0, 1), 1, "its byte arrives");
	CHECK(shoal_rx_complete(&m) && !shoal_rx_gap(&m, 0, 1, 1400, &g),
	      "complete, no gap");
	shoal_rx_init(&m, 0xffffffffu);
	CHECK_EQ(shoal_rx_add(&m, 0xffffffffu - 1400, 1400), 1400,
		 "the last bytes of a 4 GiB - 1 message");
	ok = shoal_rx_gap(&m, 0xffff0000u, 0xffffffffu, 0x100000, &g);
	CHECK(ok && g.start == 0xffff0000u && g.end == 0xffffffffu - 1400,
	      "the gap below them, no wrap");
}

static void test_tx(void)
{
	struct shoal_tx_msg m;
	u32 off, len;
	bool retx;

	shoal_tx_init(&m, 5000, 2000);
	CHECK(shoal_tx_next(&m, 1400, &off, &len, &retx) && off == 0 &&
	      len == 1400 && !retx, "unscheduled: 0+1400");
	CHECK(shoal_tx_next(&m, 1400, &off, &len, &retx) && off == 1400 &&
	      len == 600, "then 1400+600, up to the 2000 allowed");
	CHECK(!shoal_tx_next(&m, 1400, &off, &len, &retx),
	      "then nothing until credit");
	shoal_tx_allow(&m, 1000);
	CHECK(!shoal_tx_next(&m, 1400, &off, &len, &retx),
	      "credit below what is allowed changes nothing");
	shoal_tx_allow(&m, 9000);
	CHECK_EQ(m.allowed, 5000, "credit past the end: the end");
	CHECK(shoal_tx_resend(&m, 500, 300) && shoal_tx_resend(&m, 800, 100) &&
	      m.n == 1, "two touching resends: one range 500-900");
	CHECK(shoal_tx_resend(&m, 1800, 1000) && m.n == 2 &&
	      m.resend[1].end == 2000,
	      "a resend past what was sent: only the sent part (1800-2000)");
	CHECK(shoal_tx_next(&m, 1400, &off, &len, &retx) && off == 500 &&
	      len == 400 && retx, "resends first: 500+400");
	CHECK(shoal_tx_next(&m, 150, &off, &len, &retx) && off == 1800 &&
	      len == 150 && retx, "then 1800+150 (mss 150)");
	CHECK(shoal_tx_next(&m, 150, &off, &len, &retx) && off == 1950 &&
	      len == 50 && retx, "then the rest, 1950+50");
	CHECK(shoal_tx_next(&m, 1400, &off, &len, &retx) && off == 2000 &&
	      len == 1400 && !retx, "then new bytes: 2000+1400");
	CHECK(shoal_tx_resend(&m, 4000, 1000) && m.n == 0,
	      "a resend of bytes never sent: nothing queued");
	while (shoal_tx_next(&m, 1400, &off, &len, &retx))
		;
	CHECK_EQ(m.next, 5000, "then up to the end, no further");
	for (off = 0; off < SHOAL_TX_RESENDS; off++)
		shoal_tx_resend(&m, off * 100, 10);
	CHECK(!shoal_tx_resend(&m, 4000, 10) && m.n == SHOAL_TX_RESENDS,
	      "a full resend queue refuses another range");
	CHECK(!shoal_tx_next(&m, 0, &off, &len, &retx), "mss 0 sends nothing");
}

int main(void)
{
	test_rx_order();
	test_rx_full();
	test_rx_gaps();
	test_tx();
	return unit_done();
}
