/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftest programs share (tools/testing/selftests): a TAP line
 * for those that print their own, a network namespace of their own with
 * lo up, shoal.ko's object counts, and sendmsg()/recvmsg() with Shoal's
 * control messages (include/uapi/linux/shoal.h).
 */
#ifndef _SHOAL_SELFTEST_H
#define _SHOAL_SELFTEST_H

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/shoal.h>

/* checks printed so far, and of them failed */
static int tap_n __attribute__((unused));
static int tap_fail __attribute__((unused));

static inline void __attribute__((format(printf, 2, 3)))
tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_fail += !ok;
	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A network namespace of the caller's own, with lo up; bails out if not */
static inline void own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET)) {
		printf("Bail out! unshare(CLONE_NEWNET): %s\n",
		       strerror(errno));
		exit(1);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		printf("Bail out! lo: %s\n", strerror(errno));
		exit(1);
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		printf("Bail out! lo up: %s\n", strerror(errno));
		exit(1);
	}
	close(fd);
}

/*
 * shoal.ko's object counts (/sys/kernel/debug/shoal/objects) but
 * sird_peers, which a namespace keeps some of, waited for up to 5 s to
 * come to 0: 1 they did (after *@tenths tenths of a second), 0 some
 * are left (named in @left), -1 the file cannot be read (why in @left)
 */
static inline int shoal_objects_settle(char *left, size_t size, int *tenths)
{
	static const char path[] = "/sys/kernel/debug/shoal/objects";
	char line[128], name[64];
	FILE *f;
	long v;

	for (*tenths = 0; *tenths < 50; (*tenths)++) {
		f = fopen(path, "r");
		if (!f) {
			snprintf(left, size, "%s: %s", path, strerror(errno));
			return -1;
		}
		left[0] = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %ld", name, &v) == 2 && v &&
			    strcmp(name, "sird_peers"))
				snprintf(left + strlen(left),
					 size - strlen(left), " %s %ld",
					 name, v);
		fclose(f);
		if (!left[0])
			return 1;
		usleep(100000);
	}
	return 0;
}

/* sendmsg() of @len bytes of @buf to @to, with @args if not NULL */
static inline ssize_t shoal_send_args(int fd, const void *to, socklen_t tolen,
				      const void *buf, size_t len,
				      const struct shoal_send_args *args,
				      int flags)
{
	char ctl[CMSG_SPACE(sizeof(*args))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = tolen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct cmsghdr *c;

	if (args) {
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SHOAL;
		c->cmsg_type = SHOAL_CMSG_SEND;
		c->cmsg_len = CMSG_LEN(sizeof(*args));
		memcpy(CMSG_DATA(c), args, sizeof(*args));
	}
	return sendmsg(fd, &msg, flags);
}

/* recvmsg() into @buf; *@info (all ones if the message carried none),
 * *@from and *@msg_flags filled where not NULL
 */
static inline ssize_t shoal_recv_info(int fd, void *buf, size_t len,
				      int flags, struct shoal_recv_info *info,
				      struct sockaddr_storage *from,
				      int *msg_flags)
{
	char ctl[CMSG_SPACE(sizeof(struct shoal_recv_info))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = from,
		.msg_namelen = from ? sizeof(*from) : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t n;

	if (info)
		memset(info, 0xff, sizeof(*info));
	n = recvmsg(fd, &msg, flags);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&msg); c && info; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SHOAL &&
		    c->cmsg_type == SHOAL_CMSG_RECV)
			memcpy(info, CMSG_DATA(c), sizeof(*info));
	if (msg_flags)
		*msg_flags = msg.msg_flags;
	return n;
}

#endif /* _SHOAL_SELFTEST_H */
