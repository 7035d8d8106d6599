/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path of a file installed beside the running program (a tool's BPF
 * object), for the tools that load one.
 */
#ifndef _SHOAL_EXE_SIBLING_H
#define _SHOAL_EXE_SIBLING_H

#include <string.h>
#include <unistd.h>

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

#endif /* _SHOAL_EXE_SIBLING_H */
