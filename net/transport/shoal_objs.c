// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the count of objects held, by kind (shoal_objs.h), in
 * /sys/kernel/debug/shoal/objects, and the check at unload.
 */
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "shoal_objs.h"

DEFINE_PER_CPU(long [SHOAL_OBJ_MAX], shoal_objs);

static const char *const shoal_obj_names[SHOAL_OBJ_MAX] = {
	[SHOAL_OBJ_OMSG] = "out_msgs",
	[SHOAL_OBJ_IMSG] = "in_msgs",
	[SHOAL_OBJ_DONE] = "done_names",
	[SHOAL_OBJ_ERR] = "send_errors",
	[SHOAL_OBJ_SIRD_PEER] = "sird_peers",
	[SHOAL_OBJ_PL2_DST] = "pl2_dsts",
	[SHOAL_OBJ_PL2_BURST] = "pl2_bursts",
};

static struct dentry *shoal_debugfs;

static long shoal_obj_sum(enum shoal_obj o)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(shoal_objs, cpu)[o];
	return sum;
}

static int shoal_objs_show(struct seq_file *s, void *unused)
{
	int o;

	for (o = 0; o < SHOAL_OBJ_MAX; o++)
		seq_printf(s, "%s %ld\n", shoal_obj_names[o],
			   shoal_obj_sum(o));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(shoal_objs);

/* No debugfs (not built in, or not mounted yet) is no error: the counts
 * are for tests and debugging, the module works without them
 */
void shoal_objs_init(void)
{
	shoal_debugfs = debugfs_create_dir("shoal", NULL);
	debugfs_create_file("objects", 0400, shoal_debugfs, NULL,
			    &shoal_objs_fops);
}

/* After every namespace's exit nothing may be left: say what was */
void shoal_objs_exit(void)
{
	long n;
	int o;

	debugfs_remove_recursive(shoal_debugfs);
	for (o = 0; o < SHOAL_OBJ_MAX; o++) {
		n = shoal_obj_sum(o);
		WARN(n, "shoal: %ld %s left at unload\n", n,
		     shoal_obj_names[o]);
	}
}
