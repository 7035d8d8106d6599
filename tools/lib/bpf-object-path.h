/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a tool finds its BPF object: beside the program (a build tree),
 * else in the directory `make install` put it in (SHOAL_BPF_DIR, from
 * build/paths.h, which the Makefile writes from PREFIX).
 */
#ifndef _SHOAL_BPF_OBJECT_PATH_H
#define _SHOAL_BPF_OBJECT_PATH_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "paths.h"

/* @name (without a slash) in the running program's directory, into @buf;
 * -1 if that cannot be read or does not fit
 */
static inline int exe_sibling(char *buf, size_t len, const char *name)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		return -1;
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + 1 + strlen(name) + 1 > len)
		return -1;
	strcpy(slash + 1, name);
	return 0;
}

/* The object @name into @buf: beside the program if it is there, else in
 * SHOAL_BPF_DIR (whether it exists or not, so an error names that path);
 * -1 if the path does not fit
 */
static inline int bpf_object_path(char *buf, size_t len, const char *name)
{
	if (!exe_sibling(buf, len, name) && !access(buf, R_OK))
		return 0;
	if ((size_t)snprintf(buf, len, "%s/%s", SHOAL_BPF_DIR, name) >= len)
		return -1;
	return 0;
}

#endif /* _SHOAL_BPF_OBJECT_PATH_H */
