// SPDX-License-Identifier: GPL-2.0
/*
 * The Shoal socket API (include/uapi/linux/shoal.h), tested with the
 * kernel's kselftest harness: message boundaries, sizes from 1 byte to the
 * maximum, RPC matching, many sockets, non-blocking use and poll, and
 * every error path.  Run as root in a fresh network namespace with lo up
 * and shoal.ko loaded (tools/testing/scenarios/shoal-api.sh does that).
 * Every test runs on IPPROTO_SIRD sockets, or on IPPROTO_PL2 ones with
 * SHOAL_PROTO=pl2 in the environment: the API is the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/shoal.h>

#include "kselftest_harness.h"
#include "../lib/shoal_selftest.h"

#define MiB		(1024 * 1024)
#define WAIT_S		20	/* SO_RCVTIMEO: a lost message fails */

static int proto = IPPROTO_SIRD;

__attribute__((constructor)) static void pick_proto(void)
{
	const char *p = getenv("SHOAL_PROTO");

	if (p && !strcmp(p, "pl2"))
		proto = IPPROTO_PL2;
}

static int sird_socket(int family)
{
	struct timeval tv = { .tv_sec = WAIT_S };
	int fd = socket(family, SOCK_DGRAM, proto);

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static struct sockaddr_in loop4(uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static int bind_any(int fd, int family)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	if (family == AF_INET6)
		return bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	return bind(fd, (struct sockaddr *)&a4, sizeof(a4));
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed + (i >> 12));
}

static int sysctl_write(const char *name, long v)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/sys/net/shoal/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static long sysctl_read(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/shoal/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The value on the line "@name value" of @path, -1 if there is none */
static long proc_value(const char *path, const char *name)
{
	char line[256], key[64];
	long v = -1;
	long long n;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &n) == 2 &&
		    !strcmp(key, name)) {
			v = (long)n;
			break;
		}
	fclose(f);
	return v;
}

/* Counter @name of /proc/net/shoal/stats */
static long shoal_stat(const char *name)
{
	return proc_value("/proc/net/shoal/stats", name);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

FIXTURE(pair) {
	int srv, cli;
	uint16_t srv_port;
	struct sockaddr_in to;
};

FIXTURE_SETUP(pair)
{
	self->srv = sird_socket(AF_INET);
	ASSERT_GE(self->srv, 0) TH_LOG("socket(%d): %s", proto,
				       strerror(errno));
	self->cli = sird_socket(AF_INET);
	ASSERT_GE(self->cli, 0);
	ASSERT_EQ(0, bind_any(self->srv, AF_INET));
	self->srv_port = bound_port(self->srv);
	ASSERT_NE(0, self->srv_port);
	self->to = loop4(self->srv_port);
}

FIXTURE_TEARDOWN(pair)
{
	close(self->srv);
	close(self->cli);
}

/* one byte there and back, with its id and source */
TEST_F(pair, one_byte)
{
	struct shoal_send_args args = { 0 };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	uint64_t id = 0;
	char c = 'x', got = 0;

	args.id_addr = (uintptr_t)&id;
	ASSERT_EQ(1, shoal_send_args(self->cli, &self->to, sizeof(self->to), &c, 1,
			             &args, 0));
	ASSERT_NE(0, id);
	ASSERT_EQ(1, shoal_recv_info(self->srv, &got, 1, 0, &info, &from, NULL));
	EXPECT_EQ('x', got);
	EXPECT_EQ(id, info.id);
	EXPECT_EQ(0, info.flags);
	EXPECT_EQ(AF_INET, from.ss_family);
	EXPECT_EQ(bound_port(self->cli),
		  ntohs(((struct sockaddr_in *)&from)->sin_port));
}

/* a message of @len bytes to the server, read there; the SOL_SOCKET
 * timestamp's type in *@type (0: none) and its time, ns since the epoch
 */
static int recv_stamped(FIXTURE_DATA(pair) *self, size_t len, int *type,
			int64_t *ns)
{
	char ctl[256], buf[4000];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;

	fill((uint8_t *)buf, len, 7);
	if (shoal_send_args(self->cli, &self->to, sizeof(self->to), buf, len,
			    NULL, 0) != (ssize_t)len ||
	    recvmsg(self->srv, &msg, 0) != (ssize_t)len)
		return -1;
	*type = 0;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		struct timespec ts;
		struct timeval tv;

		if (c->cmsg_level != SOL_SOCKET)
			continue;
		*type = c->cmsg_type;
		if (c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		} else if (c->cmsg_type == SCM_TIMESTAMP) {
			memcpy(&tv, CMSG_DATA(c), sizeof(tv));
			*ns = tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
		}
	}
	return 0;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* SO_TIMESTAMPNS and SO_TIMESTAMP: when the message was complete,
 * between its sending and its reading; none unless asked
 */
TEST_F(pair, timestamps)
{
	static const struct {
		int opt, type;
		size_t len;
		int64_t unit;	/* ns per tick of the stamp */
	} cases[] = {
		{ SO_TIMESTAMPNS, SCM_TIMESTAMPNS, 3000, 1 },
		{ SO_TIMESTAMP, SCM_TIMESTAMP, 1, 1000 },
	};
	int64_t t0, t1, ns = 0;
	int one = 1, type;
	size_t i;

	ASSERT_EQ(0, recv_stamped(self, 100, &type, &ns));
	EXPECT_EQ(0, type);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, setsockopt(self->srv, SOL_SOCKET, cases[i].opt,
					&one, sizeof(one)));
		t0 = realtime_ns();
		ASSERT_EQ(0, recv_stamped(self, cases[i].len, &type, &ns));
		t1 = realtime_ns();
		EXPECT_EQ(cases[i].type, type);
		EXPECT_LE(t0 / cases[i].unit * cases[i].unit, ns);
		EXPECT_GE(t1, ns);
	}
}

/* every message comes out whole and alone, ids in order of sending */
TEST_F(pair, boundaries)
{
	static const size_t sizes[] = { 1, 7, 1399, 1400, 1401, 3000, 65535,
					65536, 65537, 200000 };
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);
	struct shoal_send_args args = { 0 };
	uint8_t *buf = malloc(300000), *want = malloc(300000);
	uint64_t ids[16], seen = 0;
	struct shoal_recv_info info;
	size_t i, j;
	ssize_t got;

	ASSERT_TRUE(buf && want);
	for (i = 0; i < n; i++) {
		fill(want, sizes[i], i);
		args.id_addr = (uintptr_t)&ids[i];
		ASSERT_EQ((ssize_t)sizes[i],
			  shoal_send_args(self->cli, &self->to, sizeof(self->to),
				          want, sizes[i], &args, 0));
		for (j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]);
	}
	for (i = 0; i < n; i++) {
		got = shoal_recv_info(self->srv, buf, 300000, 0, &info, NULL, NULL);
		ASSERT_GT(got, 0) TH_LOG("message %zu: %s", i, strerror(errno));
		for (j = 0; j < n && ids[j] != info.id; j++)
			;
		ASSERT_LT(j, n) TH_LOG("an id never sent: %llu",
				       (unsigned long long)info.id);
		EXPECT_EQ((ssize_t)sizes[j], got);
		fill(want, sizes[j], j);
		EXPECT_EQ(0, memcmp(buf, want, sizes[j]))
			TH_LOG("message %zu (%zu bytes) differs", j, sizes[j]);
		EXPECT_EQ(0, seen & (1ULL << j)) TH_LOG("message %zu twice", j);
		seen |= 1ULL << j;
	}
	EXPECT_EQ((1ULL << n) - 1, seen);
	free(buf);
	free(want);
}

/* the largest message the namespace allows, through a buffer raised to
 * hold it; one byte more is refused
 */
TEST_F(pair, max_size)
{
	long max = sysctl_read("max_msg_len");
	int rcv = 2 * max + MiB, flags = 0;
	struct shoal_recv_info info;
	uint8_t *buf, *want;
	ssize_t got;

	ASSERT_GE(max, 32 * MiB);
	buf = malloc(max + 1);
	want = malloc(max + 1);
	ASSERT_TRUE(buf && want);
	ASSERT_EQ(0, setsockopt(self->srv, SOL_SOCKET, SO_RCVBUFFORCE, &rcv,
				sizeof(rcv)));
	fill(want, max, 5);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &self->to, sizeof(self->to), want,
			              max + 1, NULL, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	ASSERT_EQ(max, shoal_send_args(self->cli, &self->to, sizeof(self->to), want,
				       max, NULL, 0));
	got = shoal_recv_info(self->srv, buf, max + 1, 0, &info, NULL, &flags);
	ASSERT_EQ(max, got) TH_LOG("recvmsg: %s", strerror(errno));
	EXPECT_EQ(0, flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, want, max));
	free(buf);
	free(want);
}

/* a request, its response matched by id, both directions acknowledged */
TEST_F(pair, rpc)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	char buf[64];
	uint64_t req_id = 0, resp_id = 0;
	int i;

	for (i = 0; i < 3; i++) {
		args.flags = SHOAL_MSG_REQUEST;
		args.id_addr = (uintptr_t)&req_id;
		ASSERT_EQ(4, shoal_send_args(self->cli, &self->to, sizeof(self->to),
				             "ping", 4, &args, 0));
		ASSERT_EQ(4, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				             &from, NULL));
		EXPECT_EQ(SHOAL_MSG_REQUEST, info.flags);
		EXPECT_EQ(req_id, info.id);
		args.flags = SHOAL_MSG_RESPONSE;
		args.reply_to = info.id;
		args.id_addr = (uintptr_t)&resp_id;
		ASSERT_EQ(4, shoal_send_args(self->srv, &from, sizeof(from), "pong",
				             4, &args, 0));
		EXPECT_EQ(req_id, resp_id);
		ASSERT_EQ(4, shoal_recv_info(self->cli, buf, sizeof(buf), 0, &info,
				             NULL, NULL));
		EXPECT_EQ(SHOAL_MSG_RESPONSE, info.flags);
		EXPECT_EQ(req_id, info.id);
		EXPECT_EQ(0, memcmp(buf, "pong", 4));
	}
}

/* Ids are not guessable: never 0, all different, and not a count (an
 * off-path host that saw one could otherwise name the next to forge
 * CREDIT, RESEND or ABORT); the receiver sees the sender's ids
 */
TEST_F(pair, unpredictable_ids)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	struct shoal_recv_info info;
	enum { N = 32 };
	uint64_t ids[N];
	int i, j, near = 0;
	char buf[8];

	for (i = 0; i < N; i++) {
		args.id_addr = (uintptr_t)&ids[i];
		ASSERT_EQ(1, shoal_send_args(self->cli, &self->to, sizeof(self->to),
				             "x", 1, &args, 0));
		ASSERT_EQ(1, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				             NULL, NULL));
		EXPECT_EQ(ids[i], info.id);
		EXPECT_NE(0, ids[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]) TH_LOG("id %d repeats %d", i, j);
		if (i && ids[i] - ids[i - 1] < 1024)
			near++;
	}
	EXPECT_EQ(0, near) TH_LOG("%d ids close after the one before",
					  near);
}

/* 64 clients at once into one server: every message once */
TEST_F(pair, many_sockets)
{
	enum { N = 64, LEN = 5000 };
	int fds[N], i, count[N] = { 0 };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	uint8_t buf[LEN + 1], want[LEN];
	uint16_t ports[N];

	for (i = 0; i < N; i++) {
		fds[i] = sird_socket(AF_INET);
		ASSERT_GE(fds[i], 0);
		fill(want, LEN, i);
		ASSERT_EQ(LEN, shoal_send_args(fds[i], &self->to, sizeof(self->to),
					       want, LEN, NULL, 0));
		ports[i] = bound_port(fds[i]);
		ASSERT_NE(0, ports[i]);
	}
	for (i = 0; i < N; i++) {
		uint16_t p;
		int j;

		ASSERT_EQ(LEN, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
					       &from, NULL));
		p = ntohs(((struct sockaddr_in *)&from)->sin_port);
		for (j = 0; j < N && ports[j] != p; j++)
			;
		ASSERT_LT(j, N);
		fill(want, LEN, j);
		EXPECT_EQ(0, memcmp(buf, want, LEN));
		count[j]++;
	}
	for (i = 0; i < N; i++) {
		EXPECT_EQ(1, count[i]);
		close(fds[i]);
	}
}

/* non-blocking receive, poll before and after a message arrives */
TEST_F(pair, nonblocking_poll)
{
	struct pollfd p = { .fd = self->srv, .events = POLLIN | POLLOUT };
	struct shoal_recv_info info;
	char buf[16];
	int fl;

	EXPECT_EQ(-1, shoal_recv_info(self->srv, buf, sizeof(buf), MSG_DONTWAIT,
			              &info, NULL, NULL));
	EXPECT_EQ(EAGAIN, errno);
	fl = fcntl(self->srv, F_GETFL);
	ASSERT_EQ(0, fcntl(self->srv, F_SETFL, fl | O_NONBLOCK));
	EXPECT_EQ(-1, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info, NULL,
			              NULL));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLOUT, p.revents);
	ASSERT_EQ(5, shoal_send_args(self->cli, &self->to, sizeof(self->to), "hello",
			             5, NULL, MSG_DONTWAIT));
	ASSERT_EQ(1, poll(&p, 1, WAIT_S * 1000));
	EXPECT_TRUE(p.revents & POLLIN);
	EXPECT_EQ(5, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info, NULL,
			             NULL));
	p.revents = 0;
	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(0, p.revents & POLLIN);
}

/* a buffer too small: the start of the message, MSG_TRUNC, and the real
 * length with MSG_TRUNC asked; the message is consumed
 */
TEST_F(pair, truncated)
{
	uint8_t want[3000], buf[3000];
	struct shoal_recv_info info;
	int flags = 0;

	fill(want, sizeof(want), 9);
	ASSERT_EQ(3000, shoal_send_args(self->cli, &self->to, sizeof(self->to), want,
				        3000, NULL, 0));
	ASSERT_EQ(3000, shoal_send_args(self->cli, &self->to, sizeof(self->to), want,
				        3000, NULL, 0));
	EXPECT_EQ(100, shoal_recv_info(self->srv, buf, 100, 0, &info, NULL, &flags));
	EXPECT_TRUE(flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, want, 100));
	EXPECT_EQ(3000, shoal_recv_info(self->srv, buf, 10, MSG_TRUNC, &info, NULL,
				        &flags));
	EXPECT_TRUE(flags & MSG_TRUNC);
	EXPECT_EQ(-1, shoal_recv_info(self->srv, buf, 10, MSG_DONTWAIT, &info, NULL,
			              NULL));
	EXPECT_EQ(EAGAIN, errno);
}

/* calls that cannot work fail with a clear errno and send nothing */
TEST_F(pair, bad_calls)
{
	struct sockaddr_in6 six = { .sin6_family = AF_INET6 };
	struct sockaddr_in zero = loop4(0);
	struct shoal_send_args args = { .flags = 3 };
	struct sockaddr sa = { .sa_family = AF_UNIX };
	struct shoal_recv_info info;
	char buf[8];

	EXPECT_EQ(-1, shoal_send_args(self->cli, NULL, 0, "x", 1, NULL, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &sa, sizeof(sa), "x", 1, NULL, 0));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &six, sizeof(six), "x", 1, NULL,
			              0));
	EXPECT_EQ(EAFNOSUPPORT, errno);	/* an IPv4 socket */
	EXPECT_EQ(-1, shoal_send_args(self->cli, &zero, sizeof(zero), "x", 1, NULL,
			              0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &self->to, 4, "x", 1, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &self->to, sizeof(self->to), "x", 0,
			              NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &self->to, sizeof(self->to), "x", 1,
			              &args, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, shoal_send_args(self->cli, &self->to, sizeof(self->to), "x", 1,
			              NULL, MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(self->srv, buf, sizeof(buf), MSG_PEEK));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, bind_any(self->srv, AF_INET));
	EXPECT_EQ(EINVAL, errno);	/* bound already */
	EXPECT_EQ(-1, bind(self->cli, (struct sockaddr *)&self->to,
			   sizeof(self->to)));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(-1, listen(self->srv, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, connect(self->srv, (struct sockaddr *)&self->to,
			      sizeof(self->to)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, shoal_recv_info(self->cli, buf, sizeof(buf),
				      MSG_ERRQUEUE | MSG_DONTWAIT, &info, NULL,
				      NULL));
	EXPECT_EQ(EAGAIN, errno);	/* nothing failed */
	EXPECT_EQ(-1, socket(AF_INET, SOCK_STREAM, proto));
}

/* a port nobody listens on: the message fails at once with ECONNREFUSED
 * on the error queue, and poll says POLLERR
 */
TEST_F(pair, closed_peer)
{
	struct sockaddr_in to = loop4(self->srv_port);
	struct shoal_send_args args = { 0 };
	struct pollfd p = { .fd = self->cli, .events = POLLIN };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	uint64_t id = 0;
	char buf[8];

	close(self->srv);
	self->srv = sird_socket(AF_INET);
	args.id_addr = (uintptr_t)&id;
	ASSERT_EQ(3, shoal_send_args(self->cli, &to, sizeof(to), "abc", 3, &args,
			             0));
	ASSERT_EQ(1, poll(&p, 1, WAIT_S * 1000));
	EXPECT_TRUE(p.revents & POLLERR);
	ASSERT_EQ(0, shoal_recv_info(self->cli, buf, sizeof(buf), MSG_ERRQUEUE, &info,
			             &from, NULL));
	EXPECT_EQ(id, info.id);
	EXPECT_EQ(ECONNREFUSED, info.error);
	EXPECT_EQ(self->srv_port,
		  ntohs(((struct sockaddr_in *)&from)->sin_port));
}

/* A request read by the server, then answered by nobody: its socket
 * closes (@rebind 0), or another socket takes its port (@rebind 1).  The
 * client learns it from its probes: ECONNRESET for the request.
 */
static void rpc_lost(struct __test_metadata *_metadata, int *srv, int cli,
		     uint16_t port, int rebind)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	struct sockaddr_in to = loop4(port), any = loop4(port);
	struct pollfd p = { .fd = cli, .events = POLLIN };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	uint64_t id = 0;
	char buf[8];

	args.id_addr = (uintptr_t)&id;
	ASSERT_EQ(4, shoal_send_args(cli, &to, sizeof(to), "ping", 4, &args, 0));
	ASSERT_EQ(4, shoal_recv_info(*srv, buf, sizeof(buf), 0, &info, &from, NULL));
	EXPECT_EQ(id, info.id);
	close(*srv);
	*srv = sird_socket(AF_INET);	/* the fixture closes it */
	any.sin_addr.s_addr = htonl(INADDR_ANY);
	if (rebind)
		ASSERT_EQ(0, bind(*srv, (struct sockaddr *)&any, sizeof(any)));
	ASSERT_EQ(1, poll(&p, 1, WAIT_S * 1000));
	EXPECT_TRUE(p.revents & POLLERR);
	EXPECT_FALSE(p.revents & POLLIN);
	ASSERT_EQ(0, shoal_recv_info(cli, buf, sizeof(buf), MSG_ERRQUEUE, &info,
			             &from, NULL));
	EXPECT_EQ(id, info.id);
	EXPECT_EQ(SHOAL_MSG_REQUEST, info.flags);
	EXPECT_EQ(ECONNRESET, info.error);
	EXPECT_EQ(port, ntohs(((struct sockaddr_in *)&from)->sin_port));
	/* the new socket took nothing for a message */
	EXPECT_EQ(-1, shoal_recv_info(*srv, buf, sizeof(buf), MSG_DONTWAIT, &info,
			              NULL, NULL));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(pair, rpc_server_closed)
{
	rpc_lost(_metadata, &self->srv, self->cli, self->srv_port, 0);
}

TEST_F(pair, rpc_server_replaced)
{
	rpc_lost(_metadata, &self->srv, self->cli, self->srv_port, 1);
}

/* A server that takes far longer than the client's timeout to answer is
 * waited for: it still has the request and says so to every probe.  Its
 * answers do not bring the probes closer again: they back off to one
 * every 8 intervals as they would without an answer.
 */
TEST_F(pair, rpc_slow_server)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	long ms = sysctl_read("resend_ms"), n = sysctl_read("timeout_resends");
	long probes;
	struct shoal_sock_stats st;
	socklen_t len = sizeof(st);
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	uint64_t id = 0;
	char buf[8];

	ASSERT_GT(ms, 0);
	ASSERT_EQ(0, sysctl_write("timeout_resends", 7));
	args.id_addr = (uintptr_t)&id;
	ASSERT_EQ(4, shoal_send_args(self->cli, &self->to, sizeof(self->to), "ping",
			             4, &args, 0));
	ASSERT_EQ(4, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info, &from,
			             NULL));
	/* 16 intervals of silence would fail it, 5 times that pass; a read
	 * message is otherwise forgotten after 16 intervals.  The probes
	 * (the only CREDIT_REQs here: "ping" asks for no credit) go 2, 6,
	 * 14, then every 8 intervals on: 11 in the 80 (27 or more when each
	 * answer brought the next one two intervals near again).
	 */
	probes = shoal_stat("tx_credit_req");
	usleep(5 * 2 * (7 + 1) * ms * 1000);
	probes = shoal_stat("tx_credit_req") - probes;
	EXPECT_GE(probes, 4);
	EXPECT_LE(probes, 16);
	args.flags = SHOAL_MSG_RESPONSE;
	args.reply_to = info.id;
	args.id_addr = 0;
	ASSERT_EQ(4, shoal_send_args(self->srv, &from, sizeof(from), "pong", 4,
			             &args, 0));
	ASSERT_EQ(4, shoal_recv_info(self->cli, buf, sizeof(buf), 0, &info, NULL,
			             NULL));
	EXPECT_EQ(SHOAL_MSG_RESPONSE, info.flags);
	EXPECT_EQ(id, info.id);
	EXPECT_EQ(0, memcmp(buf, "pong", 4));
	EXPECT_EQ(-1, shoal_recv_info(self->cli, buf, sizeof(buf), MSG_ERRQUEUE,
			              &info, NULL, NULL));
	ASSERT_EQ(0, getsockopt(self->cli, SOL_SHOAL, SHOAL_SOCK_STATS, &st,
				&len));
	EXPECT_EQ(1, st.tx_acked);
	EXPECT_EQ(0, st.tx_failed);
	EXPECT_EQ(0, st.tx_queued);
	EXPECT_EQ(0, sysctl_write("timeout_resends", n));
}

/* A read message is remembered by its name only: 1000 RPCs, whose
 * responses' names are all kept for 10 s, fit a client SO_RCVBUF of 128 KB
 * (the whole state of each, 672 bytes, would not)
 */
TEST_F(pair, read_names_small)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	long n = sysctl_read("timeout_resends");
	int i, rcvbuf = 64 * 1024, done = 0;
	struct shoal_sock_stats st;
	socklen_t len = sizeof(st);
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	char buf[8];

	ASSERT_EQ(0, sysctl_write("timeout_resends", 500));
	ASSERT_EQ(0, setsockopt(self->cli, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));
	for (i = 0; i < 1000; i++) {
		args.flags = SHOAL_MSG_REQUEST;
		if (shoal_send_args(self->cli, &self->to, sizeof(self->to), "q",
				    1, &args, 0) != 1 ||
		    shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				    &from, NULL) != 1)
			break;
		args.flags = SHOAL_MSG_RESPONSE;
		args.reply_to = info.id;
		if (shoal_send_args(self->srv, &from, sizeof(from), "r", 1,
				    &args, 0) != 1 ||
		    shoal_recv_info(self->cli, buf, sizeof(buf), 0, &info, NULL,
				    NULL) != 1)
			break;
		done++;
	}
	EXPECT_EQ(1000, done);
	ASSERT_EQ(0, getsockopt(self->cli, SOL_SHOAL, SHOAL_SOCK_STATS, &st,
				&len));
	EXPECT_EQ(0, st.rx_drop_rcvbuf);
	EXPECT_EQ(0, sysctl_write("timeout_resends", n));
}

/* nobody answers at all: ETIMEDOUT after timeout_resends intervals */
TEST_F(pair, timeout)
{
	struct sockaddr_in to = loop4(self->srv_port);
	long ms = sysctl_read("resend_ms"), n = sysctl_read("timeout_resends");
	struct shoal_recv_info info;
	struct pollfd p = { .fd = self->cli, .events = 0 };
	char buf[8];

	to.sin_addr.s_addr = htonl(0xc0000201);	/* 192.0.2.1: no route */
	ASSERT_EQ(0, sysctl_write("timeout_resends", 5));
	ASSERT_EQ(3, shoal_send_args(self->cli, &to, sizeof(to), "abc", 3, NULL, 0));
	ASSERT_EQ(1, poll(&p, 1, WAIT_S * 1000));
	EXPECT_TRUE(p.revents & POLLERR);
	EXPECT_EQ(0, shoal_recv_info(self->cli, buf, sizeof(buf), MSG_ERRQUEUE, &info,
			             NULL, NULL));
	EXPECT_EQ(ETIMEDOUT, info.error);
	sysctl_write("timeout_resends", n);
	EXPECT_GT(ms, 0);
}

/* IPv6 sockets, to ::1 and to an IPv4 peer */
TEST(ipv6)
{
	int srv = sird_socket(AF_INET6), cli = sird_socket(AF_INET6);
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	struct sockaddr_in to4;
	char buf[16];

	ASSERT_GE(srv, 0);
	ASSERT_GE(cli, 0);
	ASSERT_EQ(0, bind_any(srv, AF_INET6));
	to.sin6_port = htons(bound_port(srv));
	to.sin6_addr = in6addr_loopback;
	ASSERT_EQ(6, shoal_send_args(cli, &to, sizeof(to), "over 6", 6, NULL, 0));
	ASSERT_EQ(6, shoal_recv_info(srv, buf, sizeof(buf), 0, &info, &from, NULL));
	EXPECT_EQ(0, memcmp(buf, "over 6", 6));
	EXPECT_EQ(AF_INET6, from.ss_family);
	to4 = loop4(bound_port(srv));
	ASSERT_EQ(6, shoal_send_args(cli, &to4, sizeof(to4), "over 4", 6, NULL, 0));
	ASSERT_EQ(6, shoal_recv_info(srv, buf, sizeof(buf), 0, &info, &from, NULL));
	EXPECT_EQ(0, memcmp(buf, "over 4", 6));
	close(srv);
	close(cli);
}

/* an IPv4 socket hears no IPv6 peer, a v6only socket no IPv4 one: to the
 * sender it is as if nobody had the port
 */
TEST(family_filter)
{
	int srv4 = sird_socket(AF_INET), srv6 = sird_socket(AF_INET6);
	int cli = sird_socket(AF_INET6), one = 1;
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	struct pollfd p = { .events = POLLIN };
	struct shoal_recv_info info;
	struct sockaddr_in to4;
	char buf[16];

	ASSERT_GE(srv4, 0);
	ASSERT_GE(srv6, 0);
	ASSERT_GE(cli, 0);
	ASSERT_EQ(0, bind_any(srv4, AF_INET));
	ASSERT_EQ(0, setsockopt(srv6, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				sizeof(one)));
	ASSERT_EQ(0, bind_any(srv6, AF_INET6));
	to.sin6_port = htons(bound_port(srv4));
	to.sin6_addr = in6addr_loopback;
	to4 = loop4(bound_port(srv6));
	ASSERT_EQ(1, shoal_send_args(cli, &to, sizeof(to), "a", 1, NULL, 0));
	ASSERT_EQ(1, shoal_send_args(cli, &to4, sizeof(to4), "b", 1, NULL, 0));
	p.fd = cli;
	ASSERT_EQ(1, poll(&p, 1, WAIT_S * 1000));
	EXPECT_TRUE(p.revents & POLLERR);
	EXPECT_EQ(0, shoal_recv_info(cli, buf, sizeof(buf), MSG_ERRQUEUE, &info,
			             NULL, NULL));
	EXPECT_EQ(ECONNREFUSED, info.error);
	usleep(100000);
	EXPECT_EQ(0, shoal_recv_info(cli, buf, sizeof(buf), MSG_ERRQUEUE, &info,
			             NULL, NULL));
	EXPECT_EQ(ECONNREFUSED, info.error);
	EXPECT_EQ(-1, shoal_recv_info(srv4, buf, sizeof(buf), MSG_DONTWAIT, &info,
			              NULL, NULL));
	EXPECT_EQ(-1, shoal_recv_info(srv6, buf, sizeof(buf), MSG_DONTWAIT, &info,
			              NULL, NULL));
	close(srv4);
	close(srv6);
	close(cli);
}

/* per-socket statistics count what happened */
TEST_F(pair, stats)
{
	struct shoal_sock_stats st;
	struct shoal_recv_info info;
	socklen_t len = sizeof(st);
	char buf[8];
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(2, shoal_send_args(self->cli, &self->to, sizeof(self->to),
				             "hi", 2, NULL, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(2, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				             NULL, NULL));
	ASSERT_EQ(0, getsockopt(self->srv, SOL_SHOAL, SHOAL_SOCK_STATS, &st,
				&len));
	EXPECT_EQ(sizeof(st), len);
	EXPECT_EQ(3, st.rx_msgs);
	EXPECT_EQ(0, st.rx_queued);
	/* the ACKs may still be on their way: wait for them */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, getsockopt(self->cli, SOL_SHOAL, SHOAL_SOCK_STATS,
					&st, &len));
		if (st.tx_acked == 3)
			break;
		usleep(10000);
	}
	EXPECT_EQ(3, st.tx_msgs);
	EXPECT_EQ(3, st.tx_acked);
	EXPECT_EQ(0, st.tx_queued);
	EXPECT_EQ(-1, getsockopt(self->srv, SOL_SHOAL, 99, &st, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

/* @n RPCs one after another on @self's pair; the server's tx_acked (its
 * responses acknowledged) once all are, or @wait_ms passed
 */
static long rpcs_in_turn(struct __test_metadata *_metadata,
			 FIXTURE_DATA(pair) *self, int n, int wait_ms)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_REQUEST };
	struct shoal_sock_stats st = { 0 };
	socklen_t len = sizeof(st);
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	char buf[64];
	int i;

	for (i = 0; i < n; i++) {
		args.flags = SHOAL_MSG_REQUEST;
		EXPECT_EQ(4, shoal_send_args(self->cli, &self->to, sizeof(self->to),
				             "ping", 4, &args, 0));
		EXPECT_EQ(4, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				             &from, NULL));
		args.flags = SHOAL_MSG_RESPONSE;
		args.reply_to = info.id;
		EXPECT_EQ(4, shoal_send_args(self->srv, &from, sizeof(from), "pong",
				             4, &args, 0));
		EXPECT_EQ(4, shoal_recv_info(self->cli, buf, sizeof(buf), 0, &info,
				             NULL, NULL));
	}
	for (i = 0; ; i++) {
		if (getsockopt(self->srv, SOL_SHOAL, SHOAL_SOCK_STATS, &st,
			       &len) || st.tx_acked == st.tx_msgs ||
		    i >= wait_ms / 10)
			break;
		usleep(10000);
	}
	return (long)st.tx_acked;
}

/* A client's response ACK rides on its next request (SHOAL_O_ACK); the
 * last one goes alone at the socket's next tick (half a resend interval)
 * or at close; with net.shoal.fold_acks 0 every ACK is a packet.  The
 * resend interval is long here so that no tick comes between an RPC and
 * the next, and the counts are exact.
 */
TEST_F(pair, folded_acks)
{
	long ms = sysctl_read("resend_ms"), fold = sysctl_read("fold_acks");
	long tx_ack, folded, rx_folded;
	const int n = 20;

	ASSERT_EQ(1, fold) TH_LOG("fold_acks is on by default");
	ASSERT_EQ(0, sysctl_write("resend_ms", 2000));
	tx_ack = shoal_stat("tx_ack");
	folded = shoal_stat("tx_acks_folded");
	rx_folded = shoal_stat("rx_acks_folded");
	ASSERT_LE(0, folded);
	/* every response acknowledged: n - 1 in requests, the last at the
	 * tick (1 s); the server acknowledged every request on its own
	 */
	EXPECT_EQ(n, rpcs_in_turn(_metadata, self, n, 3000));
	EXPECT_EQ(n - 1, shoal_stat("tx_acks_folded") - folded);
	EXPECT_EQ(n - 1, shoal_stat("rx_acks_folded") - rx_folded);
	EXPECT_EQ(n + 1, shoal_stat("tx_ack") - tx_ack);

	/* a client that closes sends the ACK it held at once: its tick is
	 * 30 s away, the server's probe 120 s
	 */
	close(self->cli);
	ASSERT_EQ(0, sysctl_write("resend_ms", 60000));
	self->cli = sird_socket(AF_INET);
	ASSERT_GE(self->cli, 0);
	tx_ack = shoal_stat("tx_ack");
	EXPECT_EQ(n, rpcs_in_turn(_metadata, self, 1, 0));
	close(self->cli);
	self->cli = sird_socket(AF_INET);
	ASSERT_GE(self->cli, 0);
	EXPECT_EQ(n + 1, rpcs_in_turn(_metadata, self, 0, 3000));
	EXPECT_EQ(2, shoal_stat("tx_ack") - tx_ack);
	ASSERT_EQ(0, sysctl_write("resend_ms", 2000));

	/* off: each response's ACK is a packet of its own, at once */
	ASSERT_EQ(0, sysctl_write("fold_acks", 0));
	tx_ack = shoal_stat("tx_ack");
	folded = shoal_stat("tx_acks_folded");
	EXPECT_EQ(2 * n + 1, rpcs_in_turn(_metadata, self, n, 900));
	EXPECT_EQ(0, shoal_stat("tx_acks_folded") - folded);
	EXPECT_EQ(2 * n, shoal_stat("tx_ack") - tx_ack);
	EXPECT_EQ(0, sysctl_write("fold_acks", fold));
	EXPECT_EQ(0, sysctl_write("resend_ms", ms));
}

/* 10 unscheduled messages of 60 KB, then a scheduled one of 200 KB, with
 * credit paced at 10 Mbit/s: the ms until the last arrived, and in
 * *@paced the unscheduled bytes the pacer counted
 */
static long unsched_then_sched(struct __test_metadata *_metadata,
			       FIXTURE_DATA(pair) *self, long *paced)
{
	static uint8_t msg[200000], buf[200001];
	const char *sird = "/proc/net/shoal/sird";
	long before = proc_value(sird, "unsched_paced");
	struct shoal_recv_info info;
	struct timespec t0;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(60000, shoal_send_args(self->cli, &self->to,
					         sizeof(self->to), msg, 60000, NULL,
					         0));
	EXPECT_EQ(200000, shoal_send_args(self->cli, &self->to, sizeof(self->to),
				          msg, 200000, NULL, 0));
	for (i = 0; i < 11; i++)
		EXPECT_LT(0, shoal_recv_info(self->srv, buf, sizeof(buf), 0, &info,
				             NULL, NULL));
	*paced = proc_value(sird, "unsched_paced") - before;
	return ms_since(&t0);
}

/* The credit pacer's clock is the downlink's: unscheduled bytes that
 * arrive move it on as grants do (net.shoal.sird_pace_unsched), so a
 * scheduled message behind 600 KB of unscheduled ones gets its credit
 * only after their time at the rate: 800 KB at 10 Mbit/s is 640 ms
 * before headers.  With the sysctl 0 its credit starts at once.
 */
TEST_F(pair, pace_unsched)
{
	long rate = sysctl_read("sird_rate_mbps");
	long on = sysctl_read("sird_pace_unsched");
	long ms_on, ms_off, paced_on, paced_off;

	if (proto != IPPROTO_SIRD)
		SKIP(return, "PL2 asks for no credit");
	ASSERT_EQ(1, on) TH_LOG("sird_pace_unsched is on by default");
	ASSERT_EQ(0, sysctl_write("sird_rate_mbps", 10));
	ms_on = unsched_then_sched(_metadata, self, &paced_on);
	ASSERT_EQ(0, sysctl_write("sird_pace_unsched", 0));
	ms_off = unsched_then_sched(_metadata, self, &paced_off);
	EXPECT_EQ(0, sysctl_write("sird_pace_unsched", on));
	EXPECT_EQ(0, sysctl_write("sird_rate_mbps", rate));
	TH_LOG("last arrival after %ld ms paced, %ld ms not", ms_on, ms_off);
	EXPECT_EQ(600000, paced_on);
	EXPECT_EQ(0, paced_off);
	EXPECT_LE(640, ms_on);
	EXPECT_LE(300, ms_on - ms_off);
}

/* PL2's sysctls change while bursts are in flight (K, the exchanges per
 * destination, the rate that sets a slot, t: unsolicited bursts or
 * none): bursts formed keep their size, new ones take the new values,
 * and every message arrives whole.  SIRD ignores them.
 */
TEST_F(pair, sysctls_in_flight)
{
	static const long k[] = { 1, 64, 4 }, out[] = { 1, 64, 2 };
	static const long mbps[] = { 1, 1000000, 1000 }, t[] = { 65535, 0, 2 };
	const char *names[] = { "pl2_k", "pl2_outstanding", "pl2_rate_mbps",
				"pl2_t" };
	long saved[4];
	size_t base = 100000, len;
	struct shoal_recv_info info;
	uint8_t *buf, *want;
	int i, j, n = 9;
	ssize_t got;

	for (j = 0; j < 4; j++) {
		saved[j] = sysctl_read(names[j]);
		ASSERT_GE(saved[j], 0);
	}
	buf = malloc(base + n);
	want = malloc(base + n);
	ASSERT_TRUE(buf && want);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, sysctl_write("pl2_k", k[i % 3]));
		EXPECT_EQ(0, sysctl_write("pl2_outstanding", out[(i + 1) % 3]));
		EXPECT_EQ(0, sysctl_write("pl2_rate_mbps", mbps[(i + 2) % 3]));
		EXPECT_EQ(0, sysctl_write("pl2_t", t[i / 3]));
		fill(want, base + i, i);
		ASSERT_EQ((ssize_t)(base + i),
			  shoal_send_args(self->cli, &self->to, sizeof(self->to), want,
				          base + i, NULL, 0));
	}
	for (i = 0; i < n; i++) {
		got = shoal_recv_info(self->srv, buf, base + n, 0, &info, NULL, NULL);
		ASSERT_TRUE(got >= (ssize_t)base && got < (ssize_t)(base + n));
		len = got;
		fill(want, len, len - base);
		EXPECT_EQ(0, memcmp(buf, want, len));
	}
	for (j = 0; j < 4; j++)
		EXPECT_EQ(0, sysctl_write(names[j], saved[j]));
	free(buf);
	free(want);
}

/* closing sockets with messages in flight both ways frees everything
 * (the runner unloads the module afterwards: nothing may hold it)
 */
TEST_F(pair, close_in_flight)
{
	size_t len = 1 * MiB;
	uint8_t *big = calloc(1, len);
	int i;

	ASSERT_TRUE(big != NULL);
	for (i = 0; i < 3; i++)
		ASSERT_EQ((ssize_t)len, shoal_send_args(self->cli, &self->to,
						        sizeof(self->to), big, len,
						        NULL, MSG_DONTWAIT));
	usleep(20000);
	free(big);
}

TEST_HARNESS_MAIN
