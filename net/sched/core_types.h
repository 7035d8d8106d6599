/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for the algorithm cores.  The cores are plain C with no
 * kernel calls, so one source is built into the modules and into the
 * userspace unit tests and fuzzers.
 */
#ifndef _SHOAL_CORE_TYPES_H
#define _SHOAL_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/types.h>

#define core_div64(a, b)	div64_u64(a, b)
#else
#include <stdbool.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef int s32;
typedef long long s64;

#define core_div64(a, b)	((a) / (b))
#endif

#endif /* _SHOAL_CORE_TYPES_H */
