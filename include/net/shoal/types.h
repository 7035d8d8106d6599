/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for Shoal's kernel-free layer: the algorithm cores
 * and the packet and header parsers.  They are plain C with no kernel
 * calls, so one source is built into the modules and into the userspace
 * unit tests, fuzzers and tools.  Nothing here has state: no locking.
 *
 * include/net/shoal/ holds that layer's shared part (as the kernel keeps
 * codel in include/net): this shim, the big-endian readers and writers
 * (byteorder.h), the IP/L4 packet parser (pkt_parse.h) and the Shoal
 * header's parser and builder (wire.h).  Build with -I<tree>/include.
 */
#ifndef _NET_SHOAL_TYPES_H
#define _NET_SHOAL_TYPES_H

#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/types.h>

#define shoal_div64(a, b)	div64_u64(a, b)
#else
#include <stdbool.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int s32;
typedef long long s64;

#define shoal_div64(a, b)	((a) / (b))
#endif

#endif /* _NET_SHOAL_TYPES_H */
