// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-send ADDR PORT TEXT: send TEXT as one Shoal request (IPPROTO_SIRD,
 * or IPPROTO_PL2 with SHOAL_PROTO=pl2 in the environment) to an IPv4 ADDR
 * and print the response, or why the message failed.
 * A minimal example of the API in include/uapi/linux/shoal.h.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/shoal.h>

#include "shoal_socket.h"

/* The protocol (the API is the same), and a socket that is Shoal's */
static int shoal_open(int family, char *err, size_t len)
{
	const char *p = getenv("SHOAL_PROTO");

	return shoal_socket(family, p && !strcmp(p, "pl2"), err, len);
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint64_t id = 0;
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST,
					.id_addr = (uintptr_t)&id };
	struct shoal_recv_info info = { 0 };
	char ctl[CMSG_SPACE(sizeof(args))] = { 0 }, buf[4096];
	struct iovec iov;
	struct msghdr msg = { .msg_name = &to, .msg_namelen = sizeof(to),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	char err[256];
	int fd = shoal_open(AF_INET, err, sizeof(err));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: shoal-send ADDR PORT TEXT (shoal.ko loaded)\n");
		return 1;
	}
	if (fd < 0)
		return fprintf(stderr, "shoal-send: %s\n", err), 1;
	to.sin_port = htons(atoi(argv[2]));
	iov.iov_base = argv[3];
	iov.iov_len = strlen(argv[3]);
	c->cmsg_level = SOL_SHOAL;		/* a request; learn its id */
	c->cmsg_type = SHOAL_CMSG_SEND;
	c->cmsg_len = CMSG_LEN(sizeof(args));
	memcpy(CMSG_DATA(c), &args, sizeof(args));
	if (sendmsg(fd, &msg, 0) < 0)
		return perror("sendmsg"), 1;
	printf("sent request %llu\n", (unsigned long long)id);
	if (poll(&p, 1, 10000) != 1)
		return fprintf(stderr, "no answer\n"), 1;
	/* the response, or (POLLERR) the failure on the error queue */
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	n = recvmsg(fd, &msg, p.revents & POLLERR ? MSG_ERRQUEUE : 0);
	if (n < 0)
		return perror("recvmsg"), 1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SHOAL && c->cmsg_type == SHOAL_CMSG_RECV)
			memcpy(&info, CMSG_DATA(c), sizeof(info));
	if (msg.msg_flags & MSG_ERRQUEUE) {
		fprintf(stderr, "request %llu failed: %s\n",
			(unsigned long long)info.id, strerror(info.error));
		return 1;
	}
	printf("response to %llu: %.*s\n", (unsigned long long)info.id, (int)n, buf);
	return 0;
}
