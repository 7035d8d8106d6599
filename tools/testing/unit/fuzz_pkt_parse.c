// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for the IP/L4 packet parser (include/net/shoal/pkt_parse.h),
 * sch_trim's classifier on its result and the Shoal flow key of sch_afq
 * and calq (afq_key_core.h) on the same bytes.  Built as a
 * libFuzzer target with clang -fsanitize=fuzzer, or, by default, with a
 * small driver that feeds it seeded random and mutated packets under
 * ASan + UBSan (make check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afq_key_core.h"
#include "fuzz_driver.h"
#include "trim_core.h"

/* the paths the inputs must reach (fuzz_driver.h): every parse result,
 * both IP versions, both return-to-sender plans, every trim class, and
 * the Shoal flow key with and without its message
 */
enum { P_OK4, P_OK6, P_NONIP, P_FRAG, P_BAD, P_RTS_SHOAL, P_RTS_SWAP,
       P_KEY, P_KEY_MSG, P_CLASS, P_MAX = P_CLASS + TRIM_C_ENCAP + 1 };
static struct fuzz_path paths[P_MAX] = {
	[P_OK4] = { "IPv4" }, [P_OK6] = { "IPv6" }, [P_NONIP] = { "not IP" },
	[P_FRAG] = { "fragment" }, [P_BAD] = { "bad headers" },
	[P_RTS_SHOAL] = { "rts Shoal" }, [P_RTS_SWAP] = { "rts swap" },
	[P_KEY] = { "Shoal key" }, [P_KEY_MSG] = { "Shoal key per message" },
	[P_CLASS + TRIM_C_DATA] = { "class data" },
	[P_CLASS + TRIM_C_CTRL] = { "class ctrl" },
	[P_CLASS + TRIM_C_HDR] = { "class header" },
	[P_CLASS + TRIM_C_NONIP] = { "class not IP" },
	[P_CLASS + TRIM_C_FRAG] = { "class fragment" },
	[P_CLASS + TRIM_C_PROTO] = { "class not eligible" },
	[P_CLASS + TRIM_C_ENCAP] = { "class untrusted" },
};

static int check_invariants(const unsigned char *data, size_t size)
{
	struct trim_config c = {
		.elig_dscp = ~0ULL, .ctrl_dscp = 1ULL << 48, .keep = 64,
		.mark_offset = 1, .port_max = 0xffff, .elig_proto = 17,
		.mark_dscp = 0xff, .mark_mask = 0x80, .shoal_port = 4797,
	};
	struct shoal_pkt_hdrs pk = { 0 };
	struct afq_key_fields f;
	enum shoal_pkt_res r;
	enum trim_class cls;
	unsigned int avail = size < SHOAL_PKT_PARSE_LEN ? size : SHOAL_PKT_PARSE_LEN;
	unsigned char *copy;

	/* an exact-size heap copy lets ASan catch any read past @avail */
	copy = malloc(avail ? avail : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, avail);
	r = shoal_pkt_parse(copy, avail, size, &pk);
	paths[r == SHOAL_PKT_OK ? (pk.ipver == 6 ? P_OK6 : P_OK4) :
	      r == SHOAL_PKT_NONIP ? P_NONIP :
	      r == SHOAL_PKT_FRAG ? P_FRAG : P_BAD].hits++;
	if (r == SHOAL_PKT_OK) {
		if (pk.l3len > size || pk.l4off > pk.l3len ||
		    (unsigned int)pk.l4off + pk.l4hdr > pk.l3len)
			abort();
		if (pk.ipver != 4 && pk.ipver != 6)
			abort();
		if (pk.l4hdr) {
			struct trim_rts rts = trim_rts_plan(&c, &pk);

			/* a Shoal packet keeps its ports and goes as
			 * control; anything else swaps them and keeps its DSCP
			 */
			if (rts.shoal != !rts.swap_ports ||
			    (rts.shoal && (pk.l4proto != 17 ||
					   pk.dport != 4797 || rts.dscp != 48)) ||
			    (!rts.shoal && rts.dscp != 0xff))
				abort();
			paths[rts.shoal ? P_RTS_SHOAL : P_RTS_SWAP].hits++;
		}
	}
	cls = trim_classify(&c, r, &pk, size > 1 ? data[1] : -1);
	if (cls > TRIM_C_ENCAP)
		abort();
	paths[P_CLASS + cls].hits++;
	free(copy);

	/* the key reads up to AFQ_KEY_PARSE_LEN bytes, on the UDP port the
	 * packet names (so the Shoal path runs on every UDP packet)
	 */
	avail = size < AFQ_KEY_PARSE_LEN ? size : AFQ_KEY_PARSE_LEN;
	copy = malloc(avail ? avail : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, avail);
	if (afq_key_shoal(copy, avail, size, pk.dport ? pk.dport : 4797,
			  size & 1, &f)) {
		if (r != SHOAL_PKT_OK || pk.l4proto != 17 ||
		    f.tag != AFQ_KEY_TAG_SHOAL || f.ipver != pk.ipver ||
		    (unsigned int)pk.l4off + 8 + SHOAL_HDR_LEN > avail ||
		    (!(size & 1) && f.msg_id))
			abort();
		paths[size & 1 ? P_KEY_MSG : P_KEY].hits++;
	}
	free(copy);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	return check_invariants(data, size);
}

#ifndef SHOAL_LIBFUZZER
/* Seeds are well-formed headers; mutations flip bytes and cut lengths */
static size_t seed(unsigned char *p, unsigned int i)
{
	size_t len = 28 + (i % 200);

	memset(p, 0, len + 48);
	if (i & 1) {
		p[0] = 0x45;
		p[2] = len >> 8;
		p[3] = len & 0xff;
		p[9] = (i & 2) ? 17 : 6;
		p[24] = (len - 20) >> 8;
		p[25] = (len - 20) & 0xff;
		p[32] = 5 << 4;
		p[28] = SHOAL_VERSION << 4;	/* a Shoal header, if UDP */
	} else {
		len += 20;
		p[0] = 0x60;
		p[4] = (len - 40) >> 8;
		p[5] = (len - 40) & 0xff;
		p[6] = (i & 2) ? 17 : (i & 4) ? 0 : 44;
		p[40] = 17;
		p[41] = 0;
		p[44] = (len - 40) >> 8;
		p[45] = (len - 40) & 0xff;
		p[48] = SHOAL_VERSION << 4;
	}
	/* a third to Shoal's port (return to sender keeps a Shoal packet's
	 * ports), a fifth with the control DSCP (CS6)
	 */
	if (i % 3 == 0) {
		p[(i & 1) ? 22 : 42] = 4797 >> 8;
		p[(i & 1) ? 23 : 43] = 4797 & 0xff;
	}
	if (i % 5 == 0) {
		if (i & 1)
			p[1] = 48 << 2;
		else
			p[0] = 0x60 | (48 << 2) >> 4;
	}
	return len;
}

int main(int argc, char **argv)
{
	unsigned long iters = fuzz_start(argc, argv, "fuzz_pkt_parse", 200000, 42);
	unsigned char buf[512];
	unsigned long i;
	size_t len;
	int k, ok;

	for (i = 0; i < iters; i++) {
		len = seed(buf, i);
		for (k = rand() % 6; k > 0; k--)
			buf[rand() % len] ^= 1 << (rand() % 8);
		if (rand() % 4 == 0)
			len = rand() % (len + 1);
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 1 - fuzz_pkt_parse: %lu inputs, no fault\n", iters);
	ok = fuzz_paths_check(2, "fuzz_pkt_parse", paths, P_MAX);
	printf("1..2\n");
	return !ok;
}
#endif
