/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko: the objects the module holds, counted by kind, so that a
 * leak shows as a count that never returns to 0: each is 0 whenever no
 * socket is open and no namespace is going away, and at unload (where a
 * count left is a WARN).  Read in /sys/kernel/debug/shoal/objects.
 *
 * Locking: per-CPU counts, changed with this_cpu_inc/dec in any context
 * and summed when read; a sum taken while objects come and go is only
 * a moment's.
 */
#ifndef _SHOAL_OBJS_H
#define _SHOAL_OBJS_H

#include <linux/percpu.h>

enum shoal_obj {
	SHOAL_OBJ_OMSG,		/* messages being sent or awaiting answers */
	SHOAL_OBJ_IMSG,		/* messages being received or not yet read */
	SHOAL_OBJ_DONE,		/* read messages' names, remembered */
	SHOAL_OBJ_ERR,		/* failed sends on an error queue */
	SHOAL_OBJ_SIRD_PEER,	/* SIRD receivers' sender hosts */
	SHOAL_OBJ_PL2_DST,	/* PL2 sockets' destination hosts */
	SHOAL_OBJ_PL2_BURST,	/* PL2 bursts reserved or in the air */
	SHOAL_OBJ_MAX
};

DECLARE_PER_CPU(long [SHOAL_OBJ_MAX], shoal_objs);

static inline void shoal_obj_inc(enum shoal_obj o)
{
	this_cpu_inc(shoal_objs[o]);
}

static inline void shoal_obj_dec(enum shoal_obj o)
{
	this_cpu_dec(shoal_objs[o]);
}

void shoal_objs_init(void);
void shoal_objs_exit(void);

#endif
