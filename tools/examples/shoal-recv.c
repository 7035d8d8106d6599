// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-recv PORT: receive Shoal messages (IPPROTO_SIRD, or IPPROTO_PL2
 * with SHOAL_PROTO=pl2 in the environment) on PORT, print each one's
 * sender, id and length, and answer requests with "ok".  A socket of
 * either protocol receives from both; a response goes the socket's way.
 * A minimal example of the API in include/uapi/linux/shoal.h.
 */
#include <arpa/inet.h>
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
	struct sockaddr_in6 me = { .sin6_family = AF_INET6 };
	static char buf[1 << 20];
	char err[256];
	int fd = shoal_open(AF_INET6, err, sizeof(err));

	if (argc != 2 || fd < 0) {
		fprintf(stderr, argc != 2 ? "usage: shoal-recv PORT\n" :
			"shoal-recv: %s\n", err);
		return 1;
	}
	me.sin6_port = htons(atoi(argv[1]));	/* IPv6 sockets take IPv4 too */
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)))
		return perror("bind"), 1;
	printf("listening on port %s\n", argv[1]);
	fflush(stdout);
	for (;;) {
		struct sockaddr_storage from;
		struct shoal_recv_info info = { 0 };
		char ctl[CMSG_SPACE(sizeof(info))], addr[INET6_ADDRSTRLEN];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
				      .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		ssize_t n = recvmsg(fd, &msg, 0);	/* one whole message */

		if (n < 0)
			return perror("recvmsg"), 1;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SHOAL && c->cmsg_type == SHOAL_CMSG_RECV)
				memcpy(&info, CMSG_DATA(c), sizeof(info));
		if (from.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&from)->sin_addr,
				  addr, sizeof(addr));
		else
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&from)->sin6_addr,
				  addr, sizeof(addr));
		printf("%zd bytes from %s, id %llu%s%s\n", n, addr,
		       (unsigned long long)info.id,
		       info.flags & SHOAL_MSG_REQUEST ? ", a request" : "",
		       msg.msg_flags & MSG_TRUNC ? " (truncated)" : "");
		fflush(stdout);
		if (info.flags & SHOAL_MSG_REQUEST) {
			/* the response names its request by id */
			struct shoal_send_args args = { .flags = SHOAL_MSG_RESPONSE,
							.reply_to = info.id };
			char sctl[CMSG_SPACE(sizeof(args))] = { 0 };
			struct iovec riov = { "ok", 2 };
			struct msghdr rmsg = { .msg_name = &from, .msg_namelen = msg.msg_namelen,
					       .msg_iov = &riov, .msg_iovlen = 1,
					       .msg_control = sctl, .msg_controllen = sizeof(sctl) };

			c = CMSG_FIRSTHDR(&rmsg);
			c->cmsg_level = SOL_SHOAL;
			c->cmsg_type = SHOAL_CMSG_SEND;
			c->cmsg_len = CMSG_LEN(sizeof(args));
			memcpy(CMSG_DATA(c), &args, sizeof(args));
			if (sendmsg(fd, &rmsg, 0) < 0)
				perror("sendmsg");
		}
	}
}
