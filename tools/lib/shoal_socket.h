/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Shoal socket for the tools: the protocol number shoal.ko serves
 * (its module parameters proto_sird and proto_pl2, IPPROTO_SIRD and
 * IPPROTO_PL2 when it is not loaded), and a check that the socket
 * socket() gave is Shoal's and not another protocol's of that number
 * (Homa's IPPROTO_HOMA is 253 too).
 */
#ifndef _SHOAL_SOCKET_H
#define _SHOAL_SOCKET_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/shoal.h>

/* The number of SIRD's sockets (@pl2: PL2's) */
static inline int shoal_proto_number(bool pl2)
{
	FILE *f = fopen(pl2 ? "/sys/module/shoal/parameters/proto_pl2" :
			"/sys/module/shoal/parameters/proto_sird", "r");
	int n = 0;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n > 0 ? n : pl2 ? IPPROTO_PL2 : IPPROTO_SIRD;
}

/*
 * socket(@family, SOCK_DGRAM, SIRD's or PL2's number), checked to be a
 * Shoal socket (it answers SHOAL_SOCK_STATS); -1 with why in @err
 */
static inline int shoal_socket(int family, bool pl2, char *err, size_t len)
{
	int proto = shoal_proto_number(pl2), fd, e;
	struct shoal_sock_stats st;
	socklen_t n = sizeof(st);

	fd = socket(family, SOCK_DGRAM, proto);
	if (fd < 0) {
		e = errno;
		snprintf(err, len, "socket(..., SOCK_DGRAM, %d) for %s: %s (is shoal.ko loaded?)",
			 proto, pl2 ? "PL2" : "SIRD", strerror(e));
		errno = e;
		return -1;
	}
	if (getsockopt(fd, SOL_SHOAL, SHOAL_SOCK_STATS, &st, &n) < 0) {
		e = errno;
		snprintf(err, len, "socket(..., SOCK_DGRAM, %d) is not a Shoal socket: another module holds protocol %d (shoal.ko's numbers: its parameters proto_sird and proto_pl2)",
			 proto, proto);
		close(fd);
		errno = e == ENOPROTOOPT || e == EOPNOTSUPP ? EPROTOTYPE : e;
		return -1;
	}
	return fd;
}

#endif /* _SHOAL_SOCKET_H */
