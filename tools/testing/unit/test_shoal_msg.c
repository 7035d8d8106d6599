// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of net/transport/shoal_msg_core.h: the receiver's ranges
 * (in order, reverse, every kind of overlap, duplicates, a full table,
 * messages of 1 byte and of nearly 2^32), trimmed ranges asked at once,
 * the gaps it asks for (exact ranges, pieces, the resend interval, the ask
 * table's bound), and the sender's choice of the next piece (resends
 * before new data, the authorised offset, MSS pieces at the end), its
 * resend queue (merged, bounded) and acknowledgements; and what the
 * receiver's resend tick does with a message (nothing, BUSY, forget,
 * RESENDs after 2, 4, 8, ... quiet intervals, a clock that wraps).
 */
#include <stdio.h>
#include <string.h>

#include "shoal_msg_core.h"
#include "unit.h"

/* "a-b,c-d" of a list of ranges, to compare against what a test expects */
static const char *fmt(const struct shoal_range *r, u32 n)
{
	static char buf[1024];
	size_t at = 0;
	u32 i;

	buf[0] = 0;
	for (i = 0; i < n && at < sizeof(buf) - 32; i++)
		at += snprintf(buf + at, sizeof(buf) - at, "%s%u-%u",
			       i ? "," : "", r[i].start, r[i].end);
	return buf;
}

#define CHECK_RANGES(r, n, want, name)					\
	do {								\
		const char *got_ = fmt(r, n), *want_ = (want);		\
		CHECK(!strcmp(got_, want_), "%s: [%s] (want [%s])",	\
		      name, got_, want_);				\
	} while (0)

#define CHECK_RCV(rx, want, name)					\
	do {								\
		const struct shoal_rx_ranges *rx_ = (rx);		\
		CHECK_RANGES(rx_->rcv, rx_->nr, want, name);		\
	} while (0)

static void test_in_order(void)
{
	struct shoal_rx_ranges rx;
	u32 off, total = 0;
	int bad = 0;

	shoal_rx_init(&rx, 10000);
	CHECK(!shoal_rx_complete(&rx) && shoal_rx_prefix(&rx) == 0,
	      "a new message of 10000 bytes is not complete");
	for (off = 0; off < 10000; off += 1400) {
		s64 n = shoal_rx_add(&rx, off, off + 1400 > 10000 ?
				     10000 - off : 1400);

		total += (u32)n;
		bad += rx.nr != 1 || rx.rcv[0].end != off + (u32)n;
	}
	CHECK_EQ(bad, 0, "in order: one range throughout");
	CHECK_EQ(total, 10000, "in order: new bytes add up to msg_len");
	CHECK(shoal_rx_complete(&rx) && shoal_rx_received(&rx) == 10000 &&
	      shoal_rx_prefix(&rx) == 10000, "in order: complete");
	CHECK_RCV(&rx, "0-10000", "in order");
}

static void test_reverse(void)
{
	struct shoal_rx_ranges rx;
	int off, bad = 0;

	shoal_rx_init(&rx, 7000);
	for (off = 6000; off >= 0; off -= 1000) {
		bad += shoal_rx_add(&rx, off, 1000) != 1000;
		bad += rx.nr != 1;
		bad += shoal_rx_prefix(&rx) != (off ? 0u : 7000u);
	}
	CHECK_EQ(bad, 0, "reverse order: 1000 new each, one range, no prefix until 0");
	CHECK(shoal_rx_complete(&rx), "reverse order: complete");
	CHECK_RCV(&rx, "0-7000", "reverse order");
}

static void test_overlaps(void)
{
	struct shoal_rx_ranges rx;

	shoal_rx_init(&rx, 1000);
	CHECK_EQ(shoal_rx_add(&rx, 100, 100), 100, "first range 100-200");
	CHECK_EQ(shoal_rx_add(&rx, 100, 100), 0, "exact duplicate: 0 new");
	CHECK_EQ(shoal_rx_add(&rx, 120, 30), 0, "inside: 0 new");
	CHECK_EQ(shoal_rx_add(&rx, 100, 1), 0, "first byte again: 0 new");
	CHECK_EQ(shoal_rx_add(&rx, 199, 1), 0, "last byte again: 0 new");
	CHECK_EQ(shoal_rx_received(&rx), 100, "duplicates add nothing");
	CHECK_EQ(shoal_rx_add(&rx, 150, 100), 50, "overlap on the right: 50 new");
	CHECK_RCV(&rx, "100-250", "after the right overlap");
	CHECK_EQ(shoal_rx_add(&rx, 50, 100), 50, "overlap on the left: 50 new");
	CHECK_RCV(&rx, "50-250", "after the left overlap");
	CHECK_EQ(shoal_rx_add(&rx, 250, 10), 10, "touching on the right: 10 new");
	CHECK_EQ(shoal_rx_add(&rx, 40, 10), 10, "touching on the left: 10 new");
	CHECK_RCV(&rx, "40-260", "touching ranges merge");
	CHECK_EQ(shoal_rx_add(&rx, 30, 240), 20, "covering it: 10 new each side");
	CHECK_RCV(&rx, "30-270", "after covering");
	CHECK_EQ(shoal_rx_add(&rx, 400, 50), 50, "an island");
	CHECK_EQ(shoal_rx_add(&rx, 600, 50), 50, "another island");
	CHECK_RCV(&rx, "30-270,400-450,600-650", "three ranges");
	CHECK_EQ(shoal_rx_add(&rx, 260, 150), 130,
		 "bridging two ranges with an overlap into both: 130 new");
	CHECK_RCV(&rx, "30-450,600-650", "bridged");
	CHECK_EQ(shoal_rx_add(&rx, 450, 150), 150,
		 "exactly filling the gap between two: 150 new");
	CHECK_RCV(&rx, "30-650", "gap filled");
	CHECK_EQ(shoal_rx_add(&rx, 700, 10), 10, "island 700-710");
	CHECK_EQ(shoal_rx_add(&rx, 720, 10), 10, "island 720-730");
	CHECK_EQ(shoal_rx_add(&rx, 740, 10), 10, "island 740-750");
	CHECK_EQ(shoal_rx_add(&rx, 0, 1000), 1000 - 620 - 30,
		 "the whole message over four ranges: 350 new");
	CHECK_RCV(&rx, "0-1000", "one range");
	CHECK(shoal_rx_complete(&rx) && shoal_rx_received(&rx) == 1000,
	      "complete after overlaps of every kind");
	CHECK_EQ(shoal_rx_add(&rx, 0, 1000), 0, "everything again: 0 new");
	CHECK_EQ(shoal_rx_add(&rx, 999, 2), SHOAL_RX_INVALID,
		 "past msg_len: refused as invalid");
	CHECK_EQ(shoal_rx_add(&rx, 1000, 0), 0, "empty range at the end: 0");
	CHECK_EQ(shoal_rx_add(&rx, 0xffffffffu, 2), SHOAL_RX_INVALID,
		 "offset + length wraps 2^32: invalid, not wrapped");
}

static void test_full_table(void)
{
	struct shoal_rx_ranges rx;
	int i, bad = 0;

	shoal_rx_init(&rx, 100000);
	for (i = 1; i < SHOAL_RX_RANGES; i++)
		bad += shoal_rx_add(&rx, i * 1000, 100) != 100;
	CHECK(!bad && rx.nr == SHOAL_RX_RANGES - 1,
	      "15 islands above 0: all taken (nr %u)", rx.nr);
	CHECK_EQ(shoal_rx_add(&rx, 50000, 100), SHOAL_RX_FRAGMENTED,
		 "a 16th island above 0: refused as too fragmented");
	CHECK(rx.nr == SHOAL_RX_RANGES - 1 && rx.received == 1500 &&
	      rx.rcv[14].start == 15000 && rx.rcv[14].end == 15100,
	      "refused: nothing changed (nr %u, received %u)", rx.nr,
	      rx.received);
	CHECK_EQ(shoal_rx_add(&rx, 0, 100), 100,
		 "an island at offset 0 takes the slot kept for it");
	CHECK_EQ(rx.nr, SHOAL_RX_RANGES, "the table is full");
	CHECK_EQ(shoal_rx_add(&rx, 500, 100), SHOAL_RX_FRAGMENTED,
		 "another island: refused");
	CHECK_EQ(shoal_rx_add(&rx, 100, 100), 100,
		 "a piece at the start of a gap merges: 100 new");
	CHECK_EQ(shoal_rx_add(&rx, 900, 100), 100,
		 "a piece at the end of a gap merges: 100 new");
	CHECK_EQ(shoal_rx_add(&rx, 1000, 100), 0,
		 "a duplicate with a full table: 0, not refused");
	CHECK_EQ(shoal_rx_add(&rx, 200, 700), 700,
		 "the gap filled: two ranges become one");
	CHECK_EQ(rx.nr, SHOAL_RX_RANGES - 1, "one slot free again");
	CHECK_EQ(shoal_rx_add(&rx, 50000, 100), SHOAL_RX_FRAGMENTED,
		 "with the range at 0 present, the last slot is not for islands");
	CHECK_EQ(shoal_rx_add(&rx, 1100, 13900), 13900 - 1300,
		 "one packet spanning every gap up to 15100");
	CHECK_RCV(&rx, "0-15100", "one range left");
	CHECK_EQ(shoal_rx_add(&rx, 50000, 100), 100, "islands fit again");
	CHECK_EQ(shoal_rx_received(&rx), 15200, "received counts every byte once");
}

static void test_gaps(void)
{
	struct shoal_rx_ranges rx;
	struct shoal_range out[SHOAL_RX_ASKED + 4];
	u32 n;

	shoal_rx_init(&rx, 10000);
	shoal_rx_add(&rx, 1000, 1000);
	shoal_rx_add(&rx, 3000, 500);
	shoal_rx_add(&rx, 6000, 4000);
	n = shoal_rx_gaps(&rx, 2500, 0, 100, 0, out, 8);
	CHECK_RANGES(out, n, "0-1000,2000-2500", "gaps below a bound of 2500");
	n = shoal_rx_gaps(&rx, 8000, 10, 100, 0, out, 8);
	CHECK_RANGES(out, n, "2500-3000,3500-6000",
		     "raising the bound lists only what was not asked");
	n = shoal_rx_gaps(&rx, 8000, 50, 100, 0, out, 8);
	CHECK_EQ(n, 0, "everything asked within the interval: nothing listed");
	n = shoal_rx_gaps(&rx, 8000, 99, 100, 0, out, 8);
	CHECK_EQ(n, 0, "99 after the first ask: still nothing");
	n = shoal_rx_gaps(&rx, 8000, 100, 100, 0, out, 8);
	CHECK_RANGES(out, n, "0-1000,2000-2500",
		     "100 after the first ask: those two again");
	n = shoal_rx_gaps(&rx, 8000, 110, 100, 0, out, 8);
	CHECK_RANGES(out, n, "2500-3000,3500-6000",
		     "110: the second ask is due, not 2000-2500 asked at 100");

	/* pieces of at most max_len, at most max_out of them */
	shoal_rx_init(&rx, 10000);
	shoal_rx_add(&rx, 1000, 1000);
	shoal_rx_add(&rx, 3000, 500);
	n = shoal_rx_gaps(&rx, 7000, 0, 100, 1000, out, 4);
	CHECK_RANGES(out, n, "0-1000,2000-3000,3500-4500,4500-5500",
		     "pieces of 1000, four of them");
	CHECK_EQ(rx.nr_asked, 3, "the pieces of one run are one ask");
	n = shoal_rx_gaps(&rx, 7000, 1, 100, 1000, out, 4);
	CHECK_RANGES(out, n, "5500-6500,6500-7000",
		     "the next call continues where the last stopped");
	CHECK_EQ(rx.nr_asked, 4, "asked at another time: a separate ask");
	n = shoal_rx_gaps(&rx, 10000, 2, 100, 0, out, 4);
	CHECK_RANGES(out, n, "7000-10000", "raised to msg_len");
	n = shoal_rx_gaps(&rx, 0xffffffffu, 200, 100, 0, out, 0);
	CHECK_EQ(n, 0, "max_out 0: nothing");
	n = shoal_rx_gaps(&rx, 0xffffffffu, 200, 100, 0, out, 100);
	CHECK_RANGES(out, n, "0-1000,2000-3000,3500-10000",
		     "a bound past msg_len is clipped to it");
	shoal_rx_add(&rx, 0, 1000);
	shoal_rx_add(&rx, 2000, 1000);
	shoal_rx_add(&rx, 3500, 6500);
	CHECK(shoal_rx_complete(&rx), "complete");
	n = shoal_rx_gaps(&rx, 10000, 250, 100, 0, out, 8);
	CHECK(n == 0 && rx.nr_asked == 0,
	      "complete: no gaps, and the asks were dropped (%u left)",
	      rx.nr_asked);

	/* a message nobody has sent a byte of yet */
	shoal_rx_init(&rx, 3000);
	n = shoal_rx_gaps(&rx, 0, 0, 100, 0, out, 8);
	CHECK_EQ(n, 0, "bound 0: nothing expected yet");
	n = shoal_rx_gaps(&rx, 1400, 0, 100, 1400, out, 8);
	CHECK_RANGES(out, n, "0-1400", "nothing received: the whole prefix");
	n = shoal_rx_gaps(&rx, 3000, 0, 0, 1400, out, 8);
	CHECK_RANGES(out, n, "0-1400,1400-2800,2800-3000",
		     "an interval of 0: asked again every call");
}

static void test_trimmed(void)
{
	struct shoal_rx_ranges rx;
	struct shoal_range out[SHOAL_RX_ASKED];
	u32 n;

	shoal_rx_init(&rx, 5000);
	shoal_rx_add(&rx, 0, 1000);
	n = shoal_rx_trimmed(&rx, 1000, 1000, 10, out, 4);
	CHECK_RANGES(out, n, "1000-2000", "trimmed 1000-2000: ask for it now");
	n = shoal_rx_gaps(&rx, 5000, 11, 100, 0, out, 4);
	CHECK_RANGES(out, n, "2000-5000",
		     "the timeout path does not ask for the trimmed range again");
	n = shoal_rx_trimmed(&rx, 2000, 1000, 20, out, 4);
	CHECK_RANGES(out, n, "2000-3000",
		     "a resend trimmed again: asked again at once");
	n = shoal_rx_gaps(&rx, 5000, 111, 100, 0, out, 4);
	CHECK_RANGES(out, n, "1000-2000,3000-5000",
		     "at 111: the first ask and the rest of 2000-5000 are due, not 2000-3000");
	CHECK_EQ(shoal_rx_add(&rx, 1000, 1000), 1000,
		 "the resent payload arrives: 1000 new");
	CHECK_EQ(shoal_rx_add(&rx, 1000, 1000), 0,
		 "an unsolicited copy of it: a duplicate");
	n = shoal_rx_trimmed(&rx, 500, 1000, 30, out, 4);
	CHECK_EQ(n, 0, "a trimmed duplicate of received bytes: nothing to ask");
	shoal_rx_add(&rx, 2200, 100);
	shoal_rx_add(&rx, 2500, 100);
	n = shoal_rx_trimmed(&rx, 2000, 1000, 40, out, 4);
	CHECK_RANGES(out, n, "2000-2200,2300-2500,2600-3000",
		     "trimmed over received islands: only the missing parts");
	n = shoal_rx_trimmed(&rx, 2000, 1000, 50, out, 2);
	CHECK_RANGES(out, n, "2000-2200,2300-2500", "at most max_out of them");
	n = shoal_rx_trimmed(&rx, 4990, 11, 60, out, 4);
	CHECK_EQ(n, 0, "trimmed past msg_len: ignored");
	n = shoal_rx_gaps(&rx, 5000, 139, 100, 0, out, 4);
	CHECK_RANGES(out, n, "", "at 139 nothing is due");
	n = shoal_rx_gaps(&rx, 5000, 145, 100, 0, out, 4);
	CHECK_RANGES(out, n, "2600-3000",
		     "at 145: only the part trimmed at 40 and not again at 50");
}

static void test_ask_table_bound(void)
{
	struct shoal_rx_ranges rx;
	struct shoal_range out[SHOAL_RX_ASKED + 8];
	u32 i, n;

	shoal_rx_init(&rx, 100000);
	for (i = 0; i < SHOAL_RX_ASKED + 4; i++)
		shoal_rx_trimmed(&rx, i * 1000, 500, i, out, 1);
	CHECK(rx.nr_asked == SHOAL_RX_ASKED && rx.forgotten == 4,
	      "20 asks at different times: the table holds %u and forgot %u",
	      rx.nr_asked, rx.forgotten);
	CHECK(rx.asked[0].start == 4000 && rx.asked[0].at == 4,
	      "the oldest asks went first (lowest kept %u at %llu)",
	      rx.asked[0].start, (unsigned long long)rx.asked[0].at);
	n = shoal_rx_gaps(&rx, 20000, 20, 100, 0, out, SHOAL_RX_ASKED + 8);
	CHECK_RANGES(out, n,
		     "0-4000,4500-5000,5500-6000,6500-7000,7500-8000,8500-9000,9500-10000,10500-11000,11500-12000,12500-13000,13500-14000,14500-15000,15500-16000,16500-17000,17500-18000,18500-19000",
		     "forgotten asks are due again; at most SHOAL_RX_ASKED pieces");
}

static void test_tiny_and_huge(void)
{
	struct shoal_rx_ranges rx;
	struct shoal_range out[8];
	u32 n;

	shoal_rx_init(&rx, 0);
	CHECK(shoal_rx_complete(&rx) && shoal_rx_gaps(&rx, 10, 0, 1, 0, out, 8) == 0,
	      "msg_len 0: complete, no gaps");
	shoal_rx_init(&rx, 1);
	n = shoal_rx_gaps(&rx, 1, 0, 1, 0, out, 8);
	CHECK_RANGES(out, n, "0-1", "msg_len 1: the one byte is a gap");
	CHECK_EQ(shoal_rx_add(&rx, 0, 2), SHOAL_RX_INVALID, "msg_len 1: 2 bytes invalid");
	CHECK_EQ(shoal_rx_add(&rx, 1, 1), SHOAL_RX_INVALID, "msg_len 1: offset 1 invalid");
	CHECK_EQ(shoal_rx_add(&rx, 0, 1), 1, "msg_len 1: one new byte");
	CHECK(shoal_rx_complete(&rx), "msg_len 1: complete");
	CHECK_EQ(shoal_rx_add(&rx, 0, 1), 0, "msg_len 1: duplicate");

	shoal_rx_init(&rx, 0xffffffffu);
	CHECK_EQ(shoal_rx_add(&rx, 0xfffffff0u, 0xf), 15, "the last 15 bytes of 2^32 - 1");
	CHECK_EQ(shoal_rx_add(&rx, 0xfffffff0u, 0x10), SHOAL_RX_INVALID,
		 "one past 2^32 - 1: invalid");
	n = shoal_rx_gaps(&rx, 0xffffffffu, 0, 10, 0x40000000u, out, 8);
	CHECK_RANGES(out, n,
		     "0-1073741824,1073741824-2147483648,2147483648-3221225472,3221225472-4294967280",
		     "near 2^32: the gap in pieces of 2^30");
	CHECK_EQ(shoal_rx_add(&rx, 0, 0xfffffff0u), 0xfffffff0u,
		 "near 2^32: 4294967280 new bytes in one range");
	CHECK(shoal_rx_complete(&rx) && shoal_rx_received(&rx) == 0xffffffffu &&
	      shoal_rx_prefix(&rx) == 0xffffffffu,
	      "near 2^32: complete, received 4294967295");
	n = shoal_rx_trimmed(&rx, 0xffffff00u, 0xff, 1, out, 8);
	CHECK_EQ(n, 0, "near 2^32: trimmed duplicate of the end asks nothing");
}

/* ---- sender ---- */

struct piece {
	int kind;
	u32 off;
	u32 len;
};

static struct piece next(struct shoal_tx_state *tx, u32 mss)
{
	struct piece p = { 0, 0, 0 };

	p.kind = shoal_tx_next(tx, mss, &p.off, &p.len);
	return p;
}

#define CHECK_PIECE(tx, mss, k, o, l, name)				\
	do {								\
		struct piece p_ = next(tx, mss);			\
		CHECK(p_.kind == (k) && (p_.kind == SHOAL_TX_NONE ||	\
		      (p_.off == (o) && p_.len == (l))),		\
		      "%s: kind %d off %u len %u", name, p_.kind,	\
		      p_.off, p_.len);					\
	} while (0)

static void test_tx_order(void)
{
	struct shoal_tx_state tx;

	shoal_tx_init(&tx, 10000, 3000);
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 0, 1400, "unscheduled 1");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 1400, 1400, "unscheduled 2");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 2800, 200,
		    "the unscheduled prefix ends at 3000: a short piece");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NONE, 0, 0, "no credit: nothing");
	CHECK_EQ(shoal_tx_sendable(&tx), 0, "nothing sendable");
	shoal_tx_credit(&tx, 1400);
	CHECK_EQ(tx.authorised, 4400, "a credit of 1400: authorised 4400");
	CHECK_EQ(shoal_tx_resend(&tx, 1400, 100), 100, "RESEND 1400-1500 queued");
	CHECK_EQ(shoal_tx_sendable(&tx), 1500, "sendable: 100 resend + 1400 new");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 1400, 100, "the resend goes first");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 3000, 1400, "then new data");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NONE, 0, 0, "credit used up");
	CHECK_EQ(shoal_tx_resend(&tx, 4000, 2000), 400,
		 "a RESEND reaching past what was sent: only 4000-4400 queued");
	CHECK_EQ(shoal_tx_resend(&tx, 0, 3000), 3000, "RESEND 0-3000");
	CHECK_EQ(tx.nr_resend, 2, "two requests");
	shoal_tx_authorise(&tx, 10000);
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 0, 1400, "lowest resend first");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 1400, 1400, "in MSS pieces");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 2800, 200, "to the end of its range");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 4000, 400, "then the next request");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 4400, 1400, "then new data");
	CHECK_EQ(shoal_tx_resend(&tx, 4400, 1400), 1400,
		 "a piece the caller could not send goes back");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_RESEND, 4400, 1400, "and is sent next");
	CHECK_PIECE(&tx, 0, SHOAL_TX_NONE, 0, 0, "mss 0: nothing");
}

static void test_tx_end(void)
{
	struct shoal_tx_state tx;

	shoal_tx_init(&tx, 5000, 5000);
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 0, 1400, "piece 1");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 1400, 1400, "piece 2");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 2800, 1400, "piece 3");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 4200, 800, "the last piece is 800");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NONE, 0, 0, "nothing past msg_len");
	CHECK(shoal_tx_idle(&tx) && !shoal_tx_done(&tx), "all sent, not acked");
	shoal_tx_authorise(&tx, 9000);
	CHECK_EQ(tx.authorised, 5000, "a grant past msg_len is clipped");
	shoal_tx_ack(&tx, 5000);
	CHECK(shoal_tx_done(&tx), "acked: done");

	shoal_tx_init(&tx, 1, 0);
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NONE, 0, 0, "msg_len 1, no credit yet");
	shoal_tx_credit(&tx, 1400);
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 0, 1, "msg_len 1: one byte");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NONE, 0, 0, "msg_len 1: then nothing");

	shoal_tx_init(&tx, 0xffffffffu, 0xfffff000u);
	tx.next_off = 0xffffe000u;	/* most of it sent already */
	shoal_tx_credit(&tx, 0xffffffffu);
	CHECK_EQ(tx.authorised, 0xffffffffu, "a huge credit saturates at msg_len");
	CHECK_PIECE(&tx, 0x1000, SHOAL_TX_NEW, 0xffffe000u, 0x1000, "near 2^32: 4096");
	CHECK_PIECE(&tx, 0x1000, SHOAL_TX_NEW, 0xfffff000u, 0xfff,
		    "near 2^32: the last piece is 4095");
	CHECK_PIECE(&tx, 0x1000, SHOAL_TX_NONE, 0, 0, "near 2^32: nothing after");
	CHECK_EQ(shoal_tx_resend(&tx, 0xfffffff0u, 0x20), 0xf,
		 "near 2^32: a resend past the end is clipped to 15 bytes");
	CHECK_PIECE(&tx, 0x1000, SHOAL_TX_RESEND, 0xfffffff0u, 0xf, "near 2^32: resent");
}

static void test_tx_unsched(void)
{
	struct shoal_tx_state tx;
	u32 off = 0, len = 0;

	shoal_tx_init(&tx, 10000, 3000);
	CHECK(shoal_tx_next_unsched(&tx, 3000, 1400, &off, &len) &&
	      off == 0 && len == 1400, "unscheduled: 0+1400");
	shoal_tx_credit(&tx, 5000);
	CHECK(shoal_tx_next_unsched(&tx, 3000, 1400, &off, &len) &&
	      off == 1400 && len == 1400, "credit does not make it pass 3000: 1400+1400");
	CHECK(shoal_tx_next_unsched(&tx, 3000, 1400, &off, &len) &&
	      off == 2800 && len == 200, "the prefix ends at 3000: 2800+200");
	CHECK(!shoal_tx_next_unsched(&tx, 3000, 1400, &off, &len),
	      "then nothing: scheduled bytes wait for the pacer");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 3000, 1400, "the pacer sends from 3000");
	shoal_tx_init(&tx, 10000, 0);
	CHECK(!shoal_tx_next_unsched(&tx, 0, 1400, &off, &len),
	      "a message without an unscheduled prefix: nothing");
	shoal_tx_init(&tx, 10000, 3000);
	CHECK(!shoal_tx_next_unsched(&tx, 3000, 0, &off, &len), "mss 0: nothing");
}

/* Return to sender: one bounce, one packet again, only of bytes we sent */
static void test_tx_bounce(void)
{
	struct shoal_tx_state tx;
	u32 off = 7, len = 7;

	shoal_tx_init(&tx, 10000, 3000);
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 0, 1400, &off, &len),
		 SHOAL_BOUNCE_BAD, "nothing sent yet: a bounce is forged");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 0, 1400, "0+1400");
	CHECK_PIECE(&tx, 1400, SHOAL_TX_NEW, 1400, 1400, "1400+1400");
	CHECK(shoal_tx_bounce(&tx, 1400, 1400, 1400, &off, &len) ==
	      SHOAL_BOUNCE_RESEND && off == 1400 && len == 1400,
	      "a bounce of 1400+1400: that packet again (%u+%u)", off, len);
	CHECK_EQ(shoal_tx_queued(&tx), 0,
		 "the caller sends it: nothing queued behind other resends");
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 2000, 1400, &off, &len),
		 SHOAL_BOUNCE_BAD, "past the bytes sent: forged");
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 0, 2800, &off, &len),
		 SHOAL_BOUNCE_BAD, "longer than a packet: forged");
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 100, 0, &off, &len),
		 SHOAL_BOUNCE_BAD, "empty: forged");
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 0xffffff00u, 0x200, &off, &len),
		 SHOAL_BOUNCE_BAD, "wrapping: forged");
	CHECK(shoal_tx_bounce(&tx, 1400, 100, 200, &off, &len) ==
	      SHOAL_BOUNCE_RESEND && off == 100 && len == 200,
	      "a short piece (a resend's) is resent as it was");
	shoal_tx_ack(&tx, 2000);
	CHECK(shoal_tx_bounce(&tx, 1400, 1400, 1400, &off, &len) ==
	      SHOAL_BOUNCE_RESEND && off == 2000 && len == 800,
	      "partly acknowledged: the rest only (%u+%u)", off, len);
	CHECK_EQ(shoal_tx_bounce(&tx, 1400, 0, 1400, &off, &len),
		 SHOAL_BOUNCE_STALE, "all acknowledged: stale");
}

static void test_tx_queue(void)
{
	struct shoal_tx_state tx;
	u32 i;

	shoal_tx_init(&tx, 100000, 100000);
	while (shoal_tx_next(&tx, 50000, &i, &i) == SHOAL_TX_NEW)
		;
	CHECK_EQ(tx.next_off, 100000, "everything sent");
	CHECK_EQ(shoal_tx_resend(&tx, 0, 100), 100, "0-100");
	CHECK_EQ(shoal_tx_resend(&tx, 50, 100), 50, "50-150 overlaps: 50 more");
	CHECK_EQ(shoal_tx_resend(&tx, 150, 10), 10, "150-160 touches: 10 more");
	CHECK_EQ(shoal_tx_resend(&tx, 20, 30), 0, "inside: 0 more");
	CHECK_RANGES(tx.resend, tx.nr_resend, "0-160", "merged into one");
	for (i = 1; i <= SHOAL_TX_RESENDS; i++)
		shoal_tx_resend(&tx, i * 1000, 100 + (i == 5 ? 850 : 0));
	CHECK_EQ(tx.nr_resend, SHOAL_TX_RESENDS, "nine requests: the table holds 8");
	CHECK_RANGES(tx.resend, tx.nr_resend,
		     "0-160,1000-1100,2000-2100,3000-3100,4000-4100,5000-6100,7000-7100,8000-8100",
		     "the two closest (5000-5950 and 6000-6100) merged");
	CHECK_EQ(shoal_tx_queued(&tx), 160 + 6 * 100 + 1100,
		 "queued bytes include the 50 between them");
	CHECK_EQ(shoal_tx_resend(&tx, 8110, 10), 10 + 10,
		 "a ninth 8110-8120: merged with 8000-8100, the closest pair");
	CHECK_RANGES(tx.resend, tx.nr_resend,
		     "0-160,1000-1100,2000-2100,3000-3100,4000-4100,5000-6100,7000-7100,8000-8120",
		     "the last pair merged");
	shoal_tx_ack(&tx, 3050);
	CHECK_RANGES(tx.resend, tx.nr_resend,
		     "3050-3100,4000-4100,5000-6100,7000-7100,8000-8120",
		     "an ack to 3050 drops and cuts what it covers");
	CHECK_EQ(shoal_tx_resend(&tx, 0, 3000), 0, "a request below the ack: nothing");
	shoal_tx_ack(&tx, 1000);
	CHECK_EQ(tx.acked, 3050, "acks never go back");
	shoal_tx_ack(&tx, 200000);
	CHECK(tx.acked == 100000 && tx.nr_resend == 0 && shoal_tx_done(&tx),
	      "an ack past msg_len: clipped, queue empty, done");
}

/* owed ranges: kept in order, merged when they touch or overlap or the
 * list is full, taken in pieces from the front
 */
static void test_owed(void)
{
	struct shoal_range r[3];
	u32 n = 0, off = 0, l;

	shoal_owed_add(r, &n, 3, 1400, 2800);
	shoal_owed_add(r, &n, 3, 2800, 4200);
	CHECK_RANGES(r, n, "1400-4200", "touching ranges merge");
	shoal_owed_add(r, &n, 3, 7000, 8400);
	shoal_owed_add(r, &n, 3, 100, 200);
	CHECK_RANGES(r, n, "1400-4200,7000-8400,100-200",
		     "apart: kept in the order they came");
	shoal_owed_add(r, &n, 3, 9000, 9100);
	CHECK_RANGES(r, n, "1400-4200,7000-8400,100-9100",
		     "a full list widens its last range");
	shoal_owed_add(r, &n, 3, 500, 500);
	CHECK_EQ(n, 3, "an empty range is nothing");
	l = shoal_owed_take(r, &n, 1000, &off);
	CHECK(l == 1000 && off == 1400, "a piece from the front (%u@%u)", l,
	      off);
	l = shoal_owed_take(r, &n, 5000, &off);
	CHECK(l == 1800 && off == 2400 && n == 2,
	      "the rest of the first range, which goes (%u@%u, %u left)", l,
	      off, n);
	CHECK_EQ(shoal_owed_take(r, &n, 0, &off), 0, "a piece of 0: nothing");
	shoal_owed_take(r, &n, 99999, &off);
	shoal_owed_take(r, &n, 99999, &off);
	CHECK(n == 0 && shoal_owed_take(r, &n, 1400, &off) == 0,
	      "all taken: nothing owed");
}

/* ---- the receiver's resend tick ---- */

#define IVAL	10UL

/* The tick at @now for @in, a message of @len bytes whose first @got
 * arrived
 */
static struct shoal_tick tick(const struct shoal_tick_in *in, u32 len,
			      u32 got, unsigned long now, u32 limit)
{
	struct shoal_rx_ranges rx;

	shoal_rx_init(&rx, len);
	if (got)
		shoal_rx_add(&rx, 0, got);
	return shoal_rx_tick(in, &rx, now, IVAL, limit);
}

static void test_tick_idle(void)
{
	struct shoal_tick_in in = {
		.heard = 1000, .quiet = 3, .silent = 2, .granted = 5000,
	};
	struct shoal_tick t;

	t = tick(&in, 10000, 3000, 1009, 50);
	CHECK(t.act == SHOAL_TICK_IDLE && !t.reclaim && t.heard == 1000 &&
	      t.quiet == 3 && t.silent == 2,
	      "news within the interval: nothing, nothing changes (%d %lu %u %u)",
	      t.act, t.heard, t.quiet, t.silent);
	in.quiet = 0;
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_WAIT && !t.reclaim && t.heard == 1010 &&
	      t.quiet == 1 && t.silent == 3,
	      "a whole interval: quiet 1, silent 3, no RESEND yet (%d %lu %u %u)",
	      t.act, t.heard, t.quiet, t.silent);
	in.quiet = 3;
	in.granted_at = 1005;
	t = tick(&in, 10000, 3000, 1012, 50);
	CHECK(t.act == SHOAL_TICK_IDLE && t.heard == 1000 && t.quiet == 0 &&
	      t.silent == 2,
	      "credit since the last news: the interval runs from it, quiet counts afresh (%d %lu %u)",
	      t.act, t.heard, t.quiet);
	t = tick(&in, 10000, 3000, 1015, 50);
	CHECK(t.act == SHOAL_TICK_WAIT && t.heard == 1015 && t.quiet == 1,
	      "an interval after the credit: quiet 1 (%d %lu %u)", t.act,
	      t.heard, t.quiet);
	in.granted_at = 990;
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act != SHOAL_TICK_IDLE && t.quiet == 4,
	      "credit before the last news changes nothing (%d %u)", t.act,
	      t.quiet);
}

static void test_tick_busy(void)
{
	struct shoal_tick_in in = { .heard = 1000, .silent = 7 };
	struct shoal_tick t;
	u32 told = 0, next = 0;
	int i, bad = 0;

	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY && !t.reclaim && t.silent == 0 &&
	      t.quiet == 1 && t.heard == 1010,
	      "nothing granted: BUSY, not silence, no reclaim at quiet 1 (%d %d %u)",
	      t.act, t.reclaim, t.silent);
	in.quiet = 1;
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY && t.reclaim && t.quiet == 2,
	      "BUSY at quiet 2 takes back stale credit (%d %d)", t.act,
	      t.reclaim);
	in.quiet = 0;
	in.granted = 3000;
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY,
	      "all it was invited to send is here: BUSY (%d)", t.act);
	in.granted = 5000;
	in.owed = true;
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY && t.silent == 0,
	      "the pacer owes it RESENDs: BUSY, even with gaps (%d)", t.act);
	in.owed = false;
	in.granted = 10000;
	t = tick(&in, 10000, 10000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY,
	      "a complete message is never asked for again (%d)", t.act);
	in = (struct shoal_tick_in){ .heard = 0 };
	for (i = 1; i <= 200; i++) {
		t = tick(&in, 10000, 0, i * IVAL, 5);
		bad += t.act != SHOAL_TICK_BUSY || t.silent;
		if (t.busy_wait) {
			told++;
			bad += next && (u32)i != next;
			next = i + t.busy_wait;
		} else {
			bad += (u32)i == next;
		}
		in.heard = t.heard;
		in.quiet = t.quiet;
		in.silent = t.silent;
	}
	CHECK(bad == 0 && in.quiet == 200,
	      "waiting for credit for 200 intervals: never forgotten, each BUSY when the last said (%d bad)",
	      bad);
	/* quiet 1, 2, 4, then 8, 16, ..., 200: 3 + 25 */
	CHECK(told == 28,
	      "a long wait is told at quiet 1, 2, 4, then every %d: %u BUSYs in 200 intervals, not 200",
	      SHOAL_BUSY_EVERY, told);
	CHECK(shoal_busy_wait(0) == 1 && shoal_busy_wait(3) == 1 &&
	      shoal_busy_wait(5) == 3 && shoal_busy_wait(8) == 8 &&
	      shoal_busy_wait(13) == 3 && shoal_busy_wait(0xffffffffu) == 1,
	      "the wait to the next BUSY from any quiet count (%u %u %u %u %u)",
	      shoal_busy_wait(0), shoal_busy_wait(3), shoal_busy_wait(5),
	      shoal_busy_wait(8), shoal_busy_wait(13));
}

static void test_tick_queued(void)
{
	struct shoal_tick_in in = {
		.heard = 1000, .granted = 5000, .queued = true,
	};
	struct shoal_tick t;
	int i, bad = 0;

	for (i = 1; i <= 100; i++) {
		t = tick(&in, 10000, 3000, 1000 + i * IVAL, 1);
		bad += t.act != SHOAL_TICK_QUEUED || t.reclaim || t.quiet ||
		       t.silent || t.heard != 1000 + i * IVAL;
		in.heard = t.heard;
		in.quiet = t.quiet;
		in.silent = t.silent;
	}
	CHECK(bad == 0,
	      "data granted before it still arrives: 100 intervals with no RESEND, no reclaim, never forgotten (%d bad)",
	      bad);
	t = tick(&in, 10000, 3000, in.heard + IVAL - 1, 1);
	CHECK(t.act == SHOAL_TICK_IDLE,
	      "within the interval it stays idle (%d)", t.act);
	in.queued = false;
	in.quiet = 1;
	t = tick(&in, 10000, 3000, in.heard + IVAL, 50);
	CHECK(t.act == SHOAL_TICK_RESEND && t.reclaim && t.quiet == 2,
	      "once its data is due, the count goes on: RESEND at quiet 2 (%d %u)",
	      t.act, t.quiet);
	in = (struct shoal_tick_in){ .heard = 1000, .queued = true };
	t = tick(&in, 10000, 3000, 1010, 50);
	CHECK(t.act == SHOAL_TICK_BUSY,
	      "waiting for credit is BUSY whatever the queue (%d)", t.act);
}

static void test_tick_forget(void)
{
	struct shoal_tick_in in = { .heard = 1000, .granted = 5000 };
	struct shoal_tick t;

	in.silent = 4;
	t = tick(&in, 10000, 3000, 1010, 5);
	CHECK(t.act != SHOAL_TICK_FORGET && t.silent == 5,
	      "data came: kept for the limit's silent intervals (%d %u)",
	      t.act, t.silent);
	in.silent = 5;
	t = tick(&in, 10000, 3000, 1010, 5);
	CHECK(t.act == SHOAL_TICK_FORGET && !t.reclaim && t.silent == 6,
	      "one more: forgotten (%d %u)", t.act, t.silent);
	in.silent = SHOAL_SILENT_EMPTY - 1;
	t = tick(&in, 10000, 0, 1010, 50);
	CHECK(t.act != SHOAL_TICK_FORGET,
	      "nothing came: kept for 3 silent intervals (%d)", t.act);
	in.silent = SHOAL_SILENT_EMPTY;
	t = tick(&in, 10000, 0, 1010, 50);
	CHECK(t.act == SHOAL_TICK_FORGET,
	      "nothing came: forgotten at the 4th, whatever the limit (%d)",
	      t.act);
	in.silent = 0;
	t = tick(&in, 10000, 0, 1010, 1);
	CHECK(t.act != SHOAL_TICK_FORGET, "a limit of 1: kept once (%d)",
	      t.act);
	in.silent = 1;
	t = tick(&in, 10000, 0, 1010, 1);
	CHECK(t.act == SHOAL_TICK_FORGET,
	      "a limit below 3 counts for empty messages too (%d)", t.act);
	in.silent = 0;
	t = tick(&in, 10000, 3000, 1010, 0);
	CHECK(t.act == SHOAL_TICK_FORGET,
	      "a limit of 0: the first silent interval forgets (%d)", t.act);
}

/* Ticks every interval from @in until it is forgotten (at most @max):
 * the quiet counts that sent RESENDs, as "2,4,8"
 */
static const char *resends(struct shoal_tick_in *in, u32 got, u32 limit,
			   int max, int *ticks, int *bad)
{
	static char buf[256];
	size_t at = 0;
	struct shoal_tick t;
	unsigned long now = in->heard;
	int i;

	buf[0] = 0;
	for (i = 0; i < max; i++) {
		now += IVAL;
		t = tick(in, 10000, got, now, limit);
		in->heard = t.heard;
		in->quiet = t.quiet;
		in->silent = t.silent;
		if (t.act == SHOAL_TICK_FORGET)
			break;
		*bad += t.reclaim != (t.act == SHOAL_TICK_RESEND);
		*bad += t.act != SHOAL_TICK_RESEND && t.act != SHOAL_TICK_WAIT;
		if (t.act == SHOAL_TICK_RESEND)
			at += snprintf(buf + at, sizeof(buf) - at, "%s%u",
				       at ? "," : "", t.quiet);
	}
	*ticks = i + 1;
	return buf;
}

static void test_tick_backoff(void)
{
	struct shoal_tick_in in = { .heard = 1000, .granted = 5000 };
	const char *got;
	int ticks, bad = 0;

	got = resends(&in, 3000, 50, 1000, &ticks, &bad);
	CHECK(!strcmp(got, "2,4,8,16,32") && !bad,
	      "RESENDs after 2, 4, 8, 16, 32 quiet intervals, the rest wait: [%s]",
	      got);
	CHECK_EQ(ticks, 51,
		 "no cap on the spacing: the limit forgets it at the 51st silent interval");
	in = (struct shoal_tick_in){ .heard = 1000, .granted = 5000 };
	got = resends(&in, 3000, 100, 1000, &ticks, &bad);
	CHECK(!strcmp(got, "2,4,8,16,32,64") && ticks == 101 && !bad,
	      "a limit of 100: one more RESEND, at 64 [%s], forgotten at %d",
	      got, ticks);
	in = (struct shoal_tick_in){ .heard = 1000, .granted = 5000 };
	got = resends(&in, 3000, 50, 5, &ticks, &bad);
	in.heard += IVAL;	/* new bytes: the caller's quiet = 0 */
	in.quiet = 0;
	in.silent = 0;		/* and any packet: silent = 0 */
	got = resends(&in, 3000, 50, 5, &ticks, &bad);
	CHECK(!strcmp(got, "2,4") && !bad,
	      "new data starts the count again: RESENDs at 2, 4 [%s]", got);
	in = (struct shoal_tick_in){ .heard = 1000, .granted = 5000 };
	got = resends(&in, 0, 50, 100, &ticks, &bad);
	CHECK(!strcmp(got, "2") && ticks == SHOAL_SILENT_EMPTY + 1 && !bad,
	      "nothing ever came: one RESEND [%s], forgotten at %d", got,
	      ticks);
}

static void test_tick_wrap(void)
{
	struct shoal_tick_in in = {
		.heard = ~0UL - 4, .granted_at = ~0UL - 100, .granted = 5000,
	};
	struct shoal_tick t;

	t = tick(&in, 10000, 3000, in.heard + IVAL - 1, 50);
	CHECK(t.act == SHOAL_TICK_IDLE,
	      "the clock wraps within the interval: not quiet yet (%d)", t.act);
	t = tick(&in, 10000, 3000, in.heard + IVAL, 50);
	CHECK(t.act == SHOAL_TICK_WAIT && t.heard == 5,
	      "a whole interval across the wrap: quiet (%d %lu)", t.act,
	      t.heard);
	in.quiet = 5;
	in.granted_at = 3;
	t = tick(&in, 10000, 3000, 8, 50);
	CHECK(t.act == SHOAL_TICK_IDLE && t.quiet == 0,
	      "credit just past the wrap is after the news (%d %u)", t.act,
	      t.quiet);
	in.granted_at = ~0UL - 10;
	t = tick(&in, 10000, 3000, 5, 50);
	CHECK(t.act == SHOAL_TICK_WAIT && t.quiet == 6,
	      "credit before the news, before the wrap, changes nothing (%d %u)",
	      t.act, t.quiet);
}

int main(void)
{
	test_in_order();
	test_reverse();
	test_overlaps();
	test_full_table();
	test_gaps();
	test_trimmed();
	test_ask_table_bound();
	test_tiny_and_huge();
	test_tx_order();
	test_tx_end();
	test_tx_queue();
	test_tx_unsched();
	test_tx_bounce();
	test_owed();
	test_tick_idle();
	test_tick_busy();
	test_tick_forget();
	test_tick_backoff();
	test_tick_queued();
	test_tick_wrap();
	return unit_done();
}
