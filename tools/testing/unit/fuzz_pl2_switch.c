// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the PL2 switch logic (pl2_switch_core.h).  The input
 * picks a mode, T and kmax, then drives four ports with RSVs, solicited
 * and unsolicited DATA, clock ticks and headers of random bytes.  A model
 * kept here alongside checks counter mode exactly: each GRT carries the
 * counters before its demand, a DATA takes one off each (never below 0)
 * unless dropped, and a drop happens exactly when the larger backlog
 * exceeds T.  The clock modes: a slot never exceeds the backlog ahead,
 * the clocks never go back, the joint mode gives both ports one slot.
 * The lease and its sweep forget exactly the model's overdue counts.
 * With any (--any-transport), TCP and UDP packets (fragments too) of 1 to
 * 7 segments are scheduled DATA: never dropped, each segment counted off
 * as a packet; UDP to the Shoal port and multicast never are.
 * pl2_classify() must accept any bytes and never give a demand outside
 * 1..kmax.  A libFuzzer target with -DSHOAL_LIBFUZZER, else a seeded
 * driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_driver.h"
#include "pl2_switch_core.h"

#define NP	4

static unsigned long rsvs, drops, expired, swept, foreign;

/* n decrements of a model's count, never below 0: how many found 0 */
static u32 model_sub(s64 *m, u32 n)
{
	u32 taken = *m <= 0 ? 0 : *m < n ? (u32)*m : n;

	*m -= taken;
	return n - taken;
}

/* A count the lease or the sweep set to 0: the model forgets it too */
static s64 model_forget(s32 res, s64 *model)
{
	s64 n = res == 0 && *model > 0 ? *model : 0;

	*model -= n;
	return n;
}

/* The lease, checked against the model: what it forgets, it zeroes */
static void lease(const struct pl2_cfg *c, struct pl2_port *port,
		  s64 *in_model, s64 *out_model, u32 a, u32 b, u32 demand,
		  u64 now)	/* demand: the RSV's as classify caps it, or 0 */
{
	s64 forgot;
	u32 n;

	n = pl2_lease(c, &port[a], &port[b], demand, now);
	if (c->mode != PL2_MODE_COUNTER || !c->expire_ns) {
		if (n)
			abort();
		return;
	}
	forgot = model_forget(port[a].in_res, &in_model[a]) +
		 model_forget(port[b].out_res, &out_model[b]);
	if (forgot != n)
		abort();
	expired += n;
}

/* The sweep's visit to port a, checked the same way, and never early */
static void sweep(const struct pl2_cfg *c, struct pl2_port *port,
		  s64 *in_model, s64 *out_model, u32 a, u64 now)
{
	struct pl2_port was = port[a];
	s64 in, out;
	u32 n;

	n = pl2_sweep_port(c, &port[a], now);
	if (c->mode != PL2_MODE_COUNTER || !c->expire_ns) {
		if (n || pl2_sweep_ns(c))
			abort();
		return;
	}
	in = model_forget(port[a].in_res, &in_model[a]);
	out = model_forget(port[a].out_res, &out_model[a]);
	if ((in && now <= was.in_next + c->expire_ns) ||
	    (out && now <= was.out_next + c->expire_ns))
		abort();
	if (in + out != n || pl2_sweep_ns(c) < PL2_SWEEP_NS_MIN)
		abort();
	swept += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pl2_port port[NP], before[NP];
	s64 in_model[NP] = { 0 }, out_model[NP] = { 0 }, back;
	u64 drain[NP] = { 0 }, queued;
	struct pl2_cfg c;
	struct pl2_pkt p;
	u32 w, cl, a, b, d, k, prev, segs;
	u8 h[SHOAL_HDR_LEN];
	u64 now = 1000000;
	size_t at = 0;
	bool drop, unsol;

	if (size < 4)
		return 0;
	c.udp_port = SHOAL_UDP_PORT;
	c.mode = data[at++] % PL2_MODE_NR;
	c.t_unsol = data[at++] % 16;
	c.kmax = 1 + data[at++] % 8;
	c.slot_ns = 1 + data[at++] * 100U;
	c.expire_ns = data[0] & 0x80 ? (u64)(data[1] & 0x7f) * c.slot_ns : 0;
	c.queue = !!(data[0] & 0x40);
	c.any = !!(data[0] & 0x20);
	memset(port, 0, sizeof(port));
	while (at + 2 <= size) {
		a = data[at] & 3;
		b = data[at] >> 2 & 3;
		k = data[at] >> 4;
		d = data[at + 1];
		at += 2;
		memcpy(before, port, sizeof(port));
		if (k < 12)
			lease(&c, port, in_model, out_model, a, b,
			      k < 5 ? (d < c.kmax ? d : c.kmax) : 0, now);
		memcpy(before, port, sizeof(port));
		if (k < 5) {				/* an RSV */
			memset(h, 0, sizeof(h));
			h[0] = SHOAL_VERSION << 4 | SHOAL_T_RSV;
			h[6] = SHOAL_HDR_LEN;
			h[31] = (u8)d;
			pl2_classify(h, SHOAL_HDR_LEN, c.kmax, &p);
			if (!d) {
				if (p.kind != PL2_MALFORMED)
					abort();
				continue;
			}
			if (p.kind != PL2_RSV || p.demand < 1 ||
			    p.demand > c.kmax || p.demand > d)
				abort();
			rsvs++;
			/* what the model's queue at b holds, in slots */
			queued = c.queue && drain[b] > now ?
				 (drain[b] - now) / c.slot_ns : 0;
			if (c.mode == PL2_MODE_COUNTER) {
				w = pl2_counter_rsv(&c, &port[a], &port[b],
						    p.demand, now);
				if (w >> 16 != (u32)in_model[a] ||
				    (w & 0xffff) !=
				    (out_model[b] + queued > 0xffff ? 0xffff :
				     out_model[b] + queued))
					abort();
				in_model[a] += p.demand;
				out_model[b] += p.demand;
			} else {
				if (c.mode == PL2_MODE_CLOCK)
					w = pl2_clock_rsv(&c, &port[a], &port[b],
							  p.demand, now);
				else
					w = pl2_joint_rsv(&c, &port[a], &port[b],
							  p.demand, now);
				if (c.mode == PL2_MODE_JOINT &&
				    w >> 16 != (w & 0xffff))
					abort();
				/* never before the queue drains */
				if ((w & 0xffff) < (queued > 0xffff ? 0xffff :
						    queued))
					abort();
				/* a slot is no more than the time ahead */
				if (before[a].in_next > now &&
				    c.mode == PL2_MODE_CLOCK &&
				    w >> 16 > (before[a].in_next - now) / c.slot_ns)
					abort();
				if (port[a].in_next < before[a].in_next ||
				    port[b].out_next < before[b].out_next ||
				    port[a].in_next < now + p.demand * c.slot_ns)
					abort();
			}
		} else if (k < 12) {			/* DATA */
			back = pl2_backlog(&c, &port[a], &port[b], now);
			unsol = k & 1;
			segs = 1;
			if (k >= 10) {
				/* another transport's packet: TCP (k 10), or
				 * (k 11) UDP to port d, d 0 meaning the Shoal
				 * port, a fragment when d & 8, multicast when
				 * d & 16; of d & 7 segments
				 */
				bool frag = k == 11 && (d & 8), uni = !(d & 16);
				u32 proto = k == 10 ? PL2_IP_TCP : PL2_IP_UDP;
				u32 dp = k == 11 && !d ? c.udp_port : d;
				bool want = c.any && uni &&
					    !(proto == PL2_IP_UDP && !frag &&
					      dp == c.udp_port);

				p.kind = PL2_OTHER;
				if (pl2_foreign(&c, proto, frag, uni, dp, d & 7,
						&p) != want ||
				    (!want && p.kind != PL2_OTHER))
					abort();
				if (!want)
					continue;
				if (p.kind != PL2_DATA || p.unsol ||
				    p.segs != ((d & 7) ? (d & 7) : 1))
					abort();
				unsol = p.unsol;
				segs = p.segs;
				foreign++;
			}
			drop = pl2_data_n(&c, &port[a], &port[b], unsol, segs,
					  now, &cl);
			if (drop != (unsol && c.t_unsol && back > c.t_unsol))
				abort();
			drops += drop;
			if (!drop && c.queue)	/* it joins b's queue */
				drain[b] = (drain[b] > now ? drain[b] : now) +
					   segs * c.slot_ns;
			if (!drop && c.queue && port[b].out_drain != drain[b])
				abort();
			if (c.mode == PL2_MODE_COUNTER) {
				if (back != (in_model[a] > out_model[b] ?
					     in_model[a] : out_model[b]))
					abort();
				if (!drop) {
					prev = model_sub(&in_model[a], segs) +
					       model_sub(&out_model[b], segs);
					if (cl != prev)
						abort();
				}
			} else {
				/* the clocks ignore DATA: only the queue moves */
				before[b].out_drain = port[b].out_drain;
				if (memcmp(before, port, sizeof(port)))
					abort();
			}
		} else if (k < 15) {			/* time passes */
			now += (u64)d * c.slot_ns / 4;
			if (k == 14)			/* and the sweep comes */
				sweep(&c, port, in_model, out_model, a, now);
		} else {				/* any bytes */
			memset(h, d, sizeof(h));
			if (at < size)
				memcpy(h, data + at, size - at < sizeof(h) ?
				       size - at : sizeof(h));
			pl2_classify(h, d, c.kmax, &p);
			if (p.kind > PL2_MALFORMED ||
			    (p.kind == PL2_RSV &&
			     (p.demand < 1 || p.demand > c.kmax)))
				abort();
		}
		for (a = 0; a < NP; a++)
			if (port[a].in_res < 0 || port[a].out_res < 0 ||
			    (c.mode == PL2_MODE_COUNTER &&
			     (port[a].in_res != in_model[a] ||
			      port[a].out_res != out_model[a])))
				abort();
	}
	return 0;
}

#ifndef SHOAL_LIBFUZZER
int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_pl2_switch", 100000, 6);
	unsigned char buf[512];
	unsigned long i;
	size_t len, k;

	for (i = 0; i < iters; i++) {
		len = 4 + rand() % (sizeof(buf) - 4);
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	if (rsvs < iters || !drops || !expired || !swept || !foreign) {
		printf("not ok 1 - fuzz_pl2_switch: only %lu RSVs, %lu drops, %lu expired, %lu swept, %lu foreign in %lu inputs\n",
		       rsvs, drops, expired, swept, foreign, iters);
		return 1;
	}
	printf("ok 1 - fuzz_pl2_switch: %lu inputs (RSVs, DATA, time, random headers, 3 modes), ",
	       iters);
	printf("%lu RSVs, %lu drops, %lu expired by packets and %lu by the sweep, %lu foreign, the model held\n",
	       rsvs, drops, expired, swept, foreign);
	printf("1..1\n");
	return 0;
}
#endif
