/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Big-endian (network order) readers and writers on byte buffers, for
 * headers that are parsed from a linear copy rather than from structs:
 * no alignment is assumed.  The one set every parser and builder of the
 * kernel-free layer and the tools use.  Pure functions: no locking.
 */
#ifndef _NET_SHOAL_BYTEORDER_H
#define _NET_SHOAL_BYTEORDER_H

#include <net/shoal/types.h>

static inline u16 shoal_get16(const u8 *p)
{
	return (u16)((u32)p[0] << 8 | p[1]);
}

static inline u32 shoal_get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 shoal_get64(const u8 *p)
{
	return (u64)shoal_get32(p) << 32 | shoal_get32(p + 4);
}

static inline void shoal_put16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void shoal_put32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void shoal_put64(u8 *p, u64 v)
{
	shoal_put32(p, (u32)(v >> 32));
	shoal_put32(p + 4, (u32)v);
}

#endif /* _NET_SHOAL_BYTEORDER_H */
