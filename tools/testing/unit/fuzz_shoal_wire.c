// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the Shoal header's parser (include/net/shoal/wire.h).  The
 * input, after two bytes that pick the UDP length beyond what is given
 * and the max_msg_len, is the datagram's first bytes, in an exact-size
 * heap copy so ASan sees any read past them.  What the parser accepts
 * must hold together: its ranges inside its message, no payload on a
 * control packet, trimmed exactly when flagged or short; built again it
 * must parse to the same.  A refusal must be one of the known reasons.
 * Half the inputs start from a valid header so the deeper checks run.
 * A libFuzzer target with -DSHOAL_LIBFUZZER, otherwise a seeded driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/shoal/wire.h>

#include "fuzz_driver.h"

static unsigned long accepted;	/* so the driver knows the checks ran */

/* the paths the inputs must reach (fuzz_driver.h): every type accepted,
 * every reason to refuse, trimmed DATA and the ACK option; the names are
 * the counters' (shoal_wire_type_name(), shoal_wire_reason_name())
 */
enum { P_TYPE = 0, P_REASON = P_TYPE + SHOAL_T_GRT,
       P_TRIMMED = P_REASON + SHOAL_WIRE_NR_REASONS - 1, P_ACK, P_MAX };
static struct fuzz_path paths[P_MAX] = {
	[P_TRIMMED] = { "trimmed data" }, [P_ACK] = { "ack option" },
};

static void check_accepted(const struct shoal_wire_pkt *p, u32 len,
			   u32 max_msg_len)
{
	struct shoal_wire_pkt q;
	u8 buf[SHOAL_HDR_MAX];
	u32 n;

	if (!shoal_wire_type_known(p->type) || !p->msg_len ||
	    p->msg_len > max_msg_len || p->hdr_len > len ||
	    p->present != len - p->hdr_len)
		abort();
	if (p->type == SHOAL_T_DATA) {
		if ((u64)p->offset + p->payload_len > p->msg_len ||
		    p->present > p->payload_len ||
		    p->trimmed != ((p->flags & SHOAL_F_TRIMMED) ||
				   p->present < p->payload_len))
			abort();
	} else if (p->payload_len || p->present || p->trimmed) {
		abort();
	}
	if (p->type == SHOAL_T_RESEND &&
	    (!p->word || (u64)p->offset + p->word > p->msg_len))
		abort();
	if ((p->options & ~shoal_wire_options_ok(p->type)) ||
	    (!(p->options & SHOAL_O_ACK) && p->ack_id) ||
	    p->hdr_len < shoal_wire_hdr_len(p->flags, p->options))
		abort();
	/* built again (options dropped), it reads the same */
	n = shoal_wire_build(buf, p);
	if (shoal_wire_parse(buf, n, n + p->present, max_msg_len, &q) ||
	    q.type != p->type || q.flags != p->flags || q.sport != p->sport ||
	    q.dport != p->dport || q.msg_id != p->msg_id ||
	    q.msg_len != p->msg_len || q.offset != p->offset ||
	    q.payload_len != p->payload_len || q.word != p->word ||
	    q.deadline != p->deadline || q.options != p->options ||
	    q.ack_id != p->ack_id || q.present != p->present ||
	    q.trimmed != p->trimmed)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shoal_wire_pkt p;
	u32 len, max_msg_len;
	uint8_t *copy;
	int err;

	if (size < 2)
		return 0;
	/* a quarter of the time payload beyond the bytes given: the
	 * parser must never read it
	 */
	len = (u32)size - 2 + (data[0] % 4 ? 0 : data[0] * 16u);
	max_msg_len = 1000u << (data[1] % 16);
	data += 2;
	size -= 2;
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	err = shoal_wire_parse(copy, (u32)size, len, max_msg_len, &p);
	if (err > 0 || err <= -SHOAL_WIRE_NR_REASONS)
		abort();
	if (!err) {
		check_accepted(&p, len, max_msg_len);
		accepted++;
		paths[P_TYPE + p.type - SHOAL_T_DATA].hits++;
		paths[P_TRIMMED].hits += p.trimmed;
		paths[P_ACK].hits += !!(p.options & SHOAL_O_ACK);
	} else {
		paths[P_REASON - err - 1].hits++;
	}
	free(copy);
	return 0;
}

#ifndef SHOAL_LIBFUZZER
/* A valid header of a random type, then a few of its bytes flipped */
static size_t seed_valid(uint8_t *buf, size_t room)
{
	struct shoal_wire_pkt p = { 0 };
	size_t n, payload = 0, k;

	p.type = (u8)(1 + rand() % 10);
	p.flags = (u8)(rand() & (rand() % 2 ? 0x2d : 0xff));
	p.sport = (u16)rand();
	p.dport = (u16)rand();
	p.msg_id = (u64)rand() << 32 | (u32)rand();
	p.msg_len = 1 + rand() % 4000;
	p.offset = (u32)rand() % p.msg_len;
	p.word = (u32)rand() % (p.msg_len - p.offset + 1);
	p.deadline = (u64)rand();
	/* an ACK rides on DATA; now and then on another type, refused */
	p.options = (u8)(rand() % (p.type == SHOAL_T_DATA ? 2 : 8) ? 0 :
			 SHOAL_O_ACK);
	p.ack_id = (u64)rand() << 32 | (u32)rand();
	if (p.type == SHOAL_T_DATA) {
		p.payload_len = 1 + (u32)rand() % (p.msg_len - p.offset);
		payload = rand() % 2 ? p.payload_len : rand() % (p.payload_len + 1);
	}
	n = shoal_wire_build(buf + 2, &p);
	if (n + 2 + payload > room)
		payload = room - n - 2;
	for (k = 0; k < payload; k++)
		buf[2 + n + k] = (uint8_t)rand();
	buf[0] = 1;			/* no payload beyond what is given */
	buf[1] = 15;			/* max_msg_len large */
	for (k = rand() % 3; k; k--)
		buf[2 + rand() % n] ^= (uint8_t)(1 << (rand() % 8));
	return 2 + n + payload;
}

int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_shoal_wire", 2000000, 17);
	unsigned char buf[SHOAL_HDR_MAX + 256];
	unsigned long i;
	size_t len, k;
	int ok;

	for (i = SHOAL_T_DATA; i <= SHOAL_T_GRT; i++)
		paths[P_TYPE + i - SHOAL_T_DATA].name = shoal_wire_type_name(i);
	for (i = 1; i < SHOAL_WIRE_NR_REASONS; i++)
		paths[P_REASON + i - 1].name = shoal_wire_reason_name(i);

	for (i = 0; i < iters; i++) {
		if (i & 1) {
			len = seed_valid(buf, sizeof(buf));
		} else {
			len = rand() % sizeof(buf);
			for (k = 0; k < len; k++)
				buf[k] = (unsigned char)rand();
			if (len > 2)	/* version 1 half of the time */
				buf[2] = (unsigned char)((buf[2] & 0x0f) |
							 (i & 2 ? 0x10 : buf[2]));
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	/* most valid seeds survive their flipped bits */
	if (accepted < iters / 10) {
		printf("not ok 1 - fuzz_shoal_wire: only %lu of %lu inputs accepted\n",
		       accepted, iters);
		return 1;
	}
	printf("ok 1 - fuzz_shoal_wire: %lu inputs (random bytes, valid headers with bits flipped), %lu accepted, invariants held\n",
	       iters, accepted);
	ok = fuzz_paths_check(2, "fuzz_shoal_wire", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
