// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the SQR core (sqr_core.h).  The first byte picks what the
 * input drives: the parser and match on a packet (an exact-size heap copy,
 * so ASan sees any read past the bytes given; a protected packet must be
 * IP and never neighbour discovery; the same bytes read as a heartbeat
 * frame), the failure state machine on a
 * sequence of events (never a release into a dead link, a commit only on a
 * detection, no timer in the past), or the fault injector's schedule on a
 * configuration (events in time order, and the blackout exactly between
 * each onset and its end), or the copy buffer on takes and drops (records
 * inside it, never overwritten, freed in order), or the heartbeat's
 * numbers on probes, echoes (old, new, never sent), probes taken back and
 * verdicts (news only for a newer probe that was sent, down only after
 * hb_miss unanswered, the onset our own record).  A libFuzzer target with
 * -DSHOAL_LIBFUZZER, otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_driver.h"
#include "sqr_core.h"

/* the paths the inputs must reach (fuzz_driver.h) */
enum { P_IP, P_PROTECTED, P_NEIGH, P_HB_FRAME, P_COMMIT, P_XMIT, P_GIVE_UP,
       P_FAILBACK, P_ONSET, P_DETECT, P_END, P_SKIP, P_TAKE, P_FULL, P_DROP,
       P_NEWS, P_DOWN, P_UP, P_MAX };
static struct fuzz_path paths[P_MAX] = {
	[P_IP] = { "IP parsed" }, [P_PROTECTED] = { "protected" },
	[P_NEIGH] = { "neighbour discovery" },
	[P_HB_FRAME] = { "heartbeat frame" }, [P_COMMIT] = { "commit" },
	[P_XMIT] = { "release" }, [P_GIVE_UP] = { "give up" },
	[P_FAILBACK] = { "failback" }, [P_ONSET] = { "onset" },
	[P_DETECT] = { "detection" }, [P_END] = { "outage end" },
	[P_SKIP] = { "outage skipped" }, [P_TAKE] = { "copy taken" },
	[P_FULL] = { "buffer full" }, [P_DROP] = { "copy dropped" },
	[P_NEWS] = { "echo news" }, [P_DOWN] = { "verdict down" },
	[P_UP] = { "verdict up" },
};

static u64 get64(const uint8_t *d, size_t size, size_t *i)
{
	u64 v = 0;
	int k;

	for (k = 0; k < 8; k++)
		v = v << 8 | (*i < size ? d[(*i)++] : 0);
	return v;
}

static void fuzz_packet(const uint8_t *d, size_t size)
{
	struct sqr_match m = { 0 };
	struct sqr_hb_msg hb;
	struct sqr_pkt pk;
	uint8_t *copy;

	if (size < 8)
		return;
	m.flags = d[0] & 0xf;
	m.dscp_val = d[1] & 0x3f;
	m.dscp_mask = d[2] & 0x3f;
	m.proto = d[3];
	m.port_lo = (u16)(d[4] << 8 | d[5]);
	m.port_hi = (u16)(d[6] << 8 | d[7]);
	m.mark_mask = d[1];
	d += 8;
	size -= 8;
	copy = malloc(size ? size : 1);
	if (!copy)
		return;
	memcpy(copy, d, size);
	sqr_parse(copy, (u32)size, (u32)size + (size ? d[0] : 0), 0x5a, &pk);
	if (sqr_protected(&m, &pk) && (!pk.ip || pk.neigh))
		abort();
	paths[P_IP].hits += pk.ip;
	paths[P_NEIGH].hits += pk.neigh;
	paths[P_PROTECTED].hits += sqr_protected(&m, &pk);
	/* the same bytes as a heartbeat: read only what is there, and a
	 * frame taken as ours writes back the same
	 */
	if (sqr_hb_read(copy, (u32)size, &hb)) {
		uint8_t again[SQR_HB_LEN];

		paths[P_HB_FRAME].hits++;
		sqr_hb_write(again, &hb);
		if (memcmp(again, copy, 6) || memcmp(again + 8, copy + 8,
						      SQR_HB_LEN - 8))
			abort();
	}
	free(copy);
}

static void fuzz_fsm(const uint8_t *d, size_t size)
{
	struct sqr_fsm_cfg c = {
		.reconf_ns = size > 0 ? d[0] * 10u : 0,
		.max_hold_ns = 1 + (size > 1 ? d[1] * 40u : 0),
		.failback_ns = size > 2 ? d[2] * 5u : 0,
		.release = size > 3 ? d[3] % 3 : 0,
		.same_port = size > 3 && (d[3] & 4),
	};
	bool pri = true, bak = true, empty = true;
	struct sqr_fsm f = { 0 };
	u64 now = 1, next;
	size_t i;
	u32 a;

	for (i = 4; i < size; i++) {
		now += d[i] >> 3;
		switch (d[i] & 7) {
		case 0:
			pri = false;
			bak = c.same_port ? false : bak;
			a = sqr_fsm_down(&f, &c, now);
			if (a & ~SQR_A_COMMIT)
				abort();
			paths[P_COMMIT].hits += !!a;
			break;
		case 1:
			pri = true;
			bak = c.same_port ? true : bak;
			break;
		case 2:
			bak = c.same_port ? pri : !bak;
			break;
		case 3:
			empty = !empty;
			break;
		default:
			a = sqr_fsm_step(&f, &c, now, pri, bak, empty, &next);
			if ((a & SQR_A_XMIT) && !(c.same_port ? pri : bak || pri))
				abort();	/* released into a dead link */
			if ((a & SQR_A_COMMIT) || (next && next < now))
				abort();
			paths[P_XMIT].hits += !!(a & SQR_A_XMIT);
			paths[P_GIVE_UP].hits += !!(a & SQR_A_GIVE_UP);
			break;
		}
		paths[P_FAILBACK].hits += f.state == SQR_STATE_FAILBACK;
		if (f.state > SQR_STATE_FAILBACK)
			abort();
	}
}

static void fuzz_fault(const uint8_t *d, size_t size)
{
	size_t i = 0;
	struct sqr_fault_cfg c = {
		.offset_ns = get64(d, size, &i) % 100000,
		.period_ns = get64(d, size, &i) % 50000,
		.len_ns = 1 + get64(d, size, &i) % 20000,
		.detect_ns = get64(d, size, &i) % 30000,
		.count = (u32)(get64(d, size, &i) % 6),
	};
	u64 start = get64(d, size, &i) % 1000000, e, at, last = 0, onset = 0;
	enum sqr_fault_ev ev;

	if (c.period_ns && c.period_ns <= c.len_ns)
		c.period_ns = c.len_ns + 1;	/* as the qdisc requires */
	for (e = 0; e < 60; e++) {
		ev = sqr_fault_event(&c, start, e, &at);
		if (ev == SQR_F_NONE)
			break;
		if (ev == SQR_F_SKIP) {
			paths[P_SKIP].hits++;
			continue;
		}
		paths[ev == SQR_F_ONSET ? P_ONSET : ev == SQR_F_END ? P_END :
		      P_DETECT].hits++;
		if (at < last)
			abort();	/* out of time order */
		last = at;
		if (ev == SQR_F_ONSET) {
			onset = at;
			if (!sqr_fault_blackout(&c, start, at) ||
			    (at && sqr_fault_blackout(&c, start, at - 1) &&
			     at - 1 >= start + c.offset_ns &&
			     c.period_ns > c.len_ns))
				abort();
		} else if (ev == SQR_F_END) {
			if (at != onset + c.len_ns ||
			    sqr_fault_blackout(&c, start, at) ||
			    !sqr_fault_blackout(&c, start, at - 1))
				abort();
		} else if (at - onset > c.len_ns) {
			abort();	/* a detection after the end */
		}
	}
}

/* The copy buffer: records written into an exact-size heap buffer (ASan
 * sees a write past it), each filled with its own number; a drop must
 * find the oldest intact where the buffer says it is
 */
static void fuzz_buf(const uint8_t *d, size_t size)
{
	u32 off[256], len[256], first = 0, count = 0, serial = 0, used = 0;
	struct sqr_buf b;
	uint8_t *mem;
	size_t i;
	u32 n, k;

	if (size < 2)
		return;
	sqr_buf_init(&b, 8 + (((u32)d[0] << 8 | d[1]) % 4096));
	mem = malloc(b.size);
	if (!mem)
		return;
	for (i = 2; i < size; i++) {
		if (d[i] & 0x80 && count) {
			k = first % 256;
			for (n = 0; n < len[k]; n++)
				if (mem[off[k] + n] != (uint8_t)(serial - count))
					abort();	/* overwritten */
			if (b.tail != off[k])
				abort();
			sqr_buf_drop(&b, len[k]);
			paths[P_DROP].hits++;
			used -= len[k];
			first++;
			count--;
		} else if (!(d[i] & 0x80) && count < 256) {
			n = 8 * (1 + (d[i] & 0x3f));
			k = sqr_buf_take(&b, n);
			if (k == SQR_BUF_FULL) {
				if (!count && n <= b.size)
					abort();	/* empty yet refused */
				paths[P_FULL].hits++;
				continue;
			}
			paths[P_TAKE].hits++;
			if (k % 8 || k + n > b.size)
				abort();
			memset(mem + k, (uint8_t)serial++, n);
			off[(first + count) % 256] = k;
			len[(first + count) % 256] = n;
			used += n;
			count++;
		}
		if (b.count != count || b.used != used)
			abort();
	}
	free(mem);
}

/* The heartbeat's numbers, against a model of the send times */
static void fuzz_hb(const uint8_t *d, size_t size)
{
	static struct sqr_hb h;
	u64 tx[1024] = { 0 }, now = 1000;
	u32 miss, seq, before;
	size_t i;
	int v;

	if (size < 5)
		return;
	miss = 1 + d[0] % SQR_MAX_HB_MISS;
	memset(&h, 0, sizeof(h));
	/* start anywhere: the numbers wrap */
	h.sent = h.echoed = h.down_at = (u32)d[1] << 24 | (u32)d[2] << 16 |
					(u32)d[3] << 8 | d[4];
	for (i = 5; i < size; i++) {
		now += 1 + (d[i] & 7);
		switch (d[i] >> 6) {
		case 0:
			seq = sqr_hb_next(&h, now);
			tx[seq % 1024] = now;
			if (d[i] & 8)
				sqr_hb_unsend(&h, seq);
			break;
		case 1:
		case 2:
			/* an echo of a recent, an old or a future number */
			seq = h.sent - (d[i] & 0x3f) + (d[i] >> 6 == 2 ? 8 : 0);
			before = h.echoed;
			if (sqr_hb_echo(&h, seq)) {
				if (h.sent - seq >= h.sent - before ||
				    h.echoed != seq)
					abort();	/* news that is none */
				paths[P_NEWS].hits++;
			}
			if (h.sent - h.echoed < 1024 && sqr_hb_onset(&h) &&
			    sqr_hb_onset(&h) != tx[h.echoed % 1024])
				abort();	/* an onset not ours */
			break;
		default:
			before = h.sent - h.echoed;
			v = sqr_hb_verdict(&h, miss);
			paths[v > 0 ? P_DOWN : P_UP].hits += !!v;
			if ((v > 0 && (before < miss || !h.down)) ||
			    (v < 0 && h.down))
				abort();
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0:
		fuzz_packet(data + 1, size - 1);
		break;
	case 1:
		fuzz_fsm(data + 1, size - 1);
		break;
	case 2:
		fuzz_buf(data + 1, size - 1);
		break;
	case 3:
		fuzz_hb(data + 1, size - 1);
		break;
	default:
		fuzz_fault(data + 1, size - 1);
		break;
	}
	return 0;
}

#ifndef SHOAL_LIBFUZZER
/* The packet path's bytes (after the match's 8): half start as IPv4 or
 * IPv6 headers, an eighth as ICMPv6 router or neighbour discovery (never
 * protected), an eighth as heartbeat frames
 */
static void seed_packet(unsigned char *p, size_t len, unsigned long i)
{
	struct sqr_hb_msg hb = { .type = i & 8 ? SQR_HB_PROBE : SQR_HB_ECHO,
				 .id = (u32)i, .seq = (u32)i * 7 };

	switch (i % 8) {
	case 1:
	case 3:
	case 5:
		p[0] = (unsigned char)((p[0] & 0x0f) | (i & 2 ? 0x40 : 0x60));
		break;
	case 7:
		if (len < 41)
			break;
		p[0] = 0x60;
		p[4] = (unsigned char)((len - 40) >> 8);
		p[5] = (unsigned char)(len - 40);
		p[6] = 58;
		p[40] = (unsigned char)(133 + i % 5);
		break;
	case 6:
		if (len >= SQR_HB_LEN)
			sqr_hb_write(p, &hb);
		break;
	}
}

int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_sqr", 30000, 13);
	unsigned char buf[256];
	unsigned long i;
	size_t len, k;
	int ok;

	for (i = 0; i < iters; i++) {
		len = 1 + rand() % sizeof(buf);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		if (buf[0] % 5 == 0 && len > 9)
			seed_packet(buf + 9, len - 9, i);
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_sqr: %lu inputs (parser and match, state machine, injector schedule, copy buffer, heartbeat numbers), invariants held\n",
	       iters);
	ok = fuzz_paths_check(2, "fuzz_sqr", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
