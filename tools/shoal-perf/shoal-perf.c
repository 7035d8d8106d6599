// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-perf - a client/server load generator for Shoal message sockets
 * (IPPROTO_SIRD, IPPROTO_PL2) and, for comparison, TCP.
 *
 *   shoal-perf server [--port P] [--proto sird|pl2|tcp] [--echo] ...
 *   shoal-perf client --server ADDR[:PORT] --workload W1..W5|fixed:N
 *                     --load FRACTION --link-mbps M --duration S
 *                     [--proto sird|pl2|tcp] [--json] [--seed N] ...
 *
 * The client offers requests as an open-loop Poisson process at
 * load x link rate / mean request size, sizes drawn from the workload's
 * CDF, from one epoll loop with many RPCs outstanding; the server answers
 * each request with a short response (or, with --echo, one of the
 * request's size).  The client reports goodput and, per size bucket, the
 * slowdown of its RPCs (completion time over the ideal time of that size
 * on an unloaded link plus the measured idle RTT) at p50 and p99, message
 * counts and failures by errno, as a text table and as JSON.
 * Documentation/shoal-perf.md has the definitions; `shoal-perf --help`
 * the options.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/shoal.h>

#include "json_writer.h"
#include "shoal_socket.h"
#include "workloads.h"

#define DEF_PORT	4800
#define DEF_RESP	8		/* bytes of a short response */
#define DEF_OUTSTANDING	1024
#define DEF_CONNS	8
#define DEF_THREADS	2		/* the message server's */
#define MAX_THREADS	64
#define DEF_DRAIN_S	10.0
#define RTT_PROBES	21
#define MiB		(1024 * 1024)
#define TCP_HDR		8		/* u32 payload length, u32 reserved */

/* ---- options ---- */

/* SIRD and PL2 sockets share one API: only socket() tells them apart */
enum proto { P_SIRD, P_PL2, P_TCP };

static const char *const proto_names[] = {
	[P_SIRD] = "sird", [P_PL2] = "pl2", [P_TCP] = "tcp",
};

static struct {
	bool server;
	enum proto proto;
	int family;
	uint16_t port;
	struct sockaddr_storage addr;	/* client: the server */
	socklen_t addrlen;
	const struct workload *wl;
	uint32_t fixed;			/* fixed:N */
	char wl_name[32];
	double load, link_mbps, duration, drain;
	uint64_t seed;
	unsigned int max_out, conns, resp_size, threads;
	bool echo, json;
	double rtt_us;			/* > 0: given, not measured */
	uint32_t mss, bdp;
	long rcvbuf;
	const char *ready;
} o = {
	.proto = P_SIRD,
	.family = AF_INET,
	.port = DEF_PORT,
	.duration = 5,
	.drain = DEF_DRAIN_S,
	.seed = 1,
	.max_out = DEF_OUTSTANDING,
	.conns = DEF_CONNS,
	.resp_size = DEF_RESP,
	.threads = DEF_THREADS,
};

/* a Shoal message socket (SIRD or PL2), not TCP */
static bool msg_proto(void)
{
	return o.proto != P_TCP;
}

static int msg_socket(void)
{
	char err[256];
	int fd = shoal_socket(o.family, o.proto == P_PL2, err, sizeof(err));

	if (fd < 0) {
		fprintf(stderr, "shoal-perf: %s\n", err);
		exit(1);
	}
	return fd;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "shoal-perf: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "shoal-perf: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC less CLOCK_REALTIME, to read receive timestamps
 * (SO_TIMESTAMPNS, realtime) on now_ns()'s clock
 */
static int64_t mono_minus_real;

static void stamps_init(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	mono_minus_real = ((int64_t)m.tv_sec - r.tv_sec) * 1000000000LL +
			  (m.tv_nsec - r.tv_nsec);
}

/* Ask @fd for receive timestamps: when the kernel had the data (for a
 * message socket, when the message was complete), not when our loop got
 * to it
 */
static void stamps_on(int fd)
{
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		die("SO_TIMESTAMPNS");
}

/* The receive timestamp among @msg's control messages, on now_ns()'s
 * clock, into *@stamp; left alone if there is none
 */
static void stamp_of(struct msghdr *msg, uint64_t *stamp)
{
	struct cmsghdr *c;
	struct timespec ts;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*stamp = (uint64_t)((int64_t)ts.tv_sec * 1000000000LL +
					    ts.tv_nsec + mono_minus_real);
		}
}

static const char *errname(int e)
{
	const char *s = strerrorname_np(e);
	static char buf[16];

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static long sysctl_long(const char *name, long dflt)
{
	char path[128];
	long v = dflt;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/shoal/%s", name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* ---- random numbers: splitmix64 ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in (0, 1] */
static double rng_unit(void)
{
	return ((rng_next() >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* ---- workloads (the tables are in workloads.c) ---- */

static uint32_t wl_sample(void)
{
	if (!o.wl)
		return o.fixed;
	return workload_sample(o.wl, rng_unit());
}

static double wl_mean(void)
{
	return o.wl ? workload_mean(o.wl) : o.fixed;
}

static uint32_t wl_max(void)
{
	return o.wl ? workload_max(o.wl) : o.fixed;
}

static bool wl_parse(const char *s)
{
	char *end;

	if (!strncmp(s, "fixed:", 6)) {
		unsigned long n = strtoul(s + 6, &end, 10);

		if (*end || !n || n > UINT32_MAX)
			return false;
		o.fixed = n;
		snprintf(o.wl_name, sizeof(o.wl_name), "fixed:%lu", n);
		return true;
	}
	o.wl = workload_find(s);
	if (!o.wl)
		return false;
	snprintf(o.wl_name, sizeof(o.wl_name), "%s", o.wl->name);
	return true;
}

/* ---- statistics ---- */

struct samples {
	double *v;
	size_t n, cap;
};

static void samples_add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("realloc");
	}
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank; s sorted */
static double pct(const struct samples *s, double p)
{
	size_t k;

	if (!s->n)
		return 0;
	k = (size_t)ceil(p * s->n);
	if (k < 1)
		k = 1;
	return s->v[k > s->n ? s->n - 1 : k - 1];
}

/* SIRD's groups (spec 4.3/4.5): < MSS, MSS..BDP, BDP..8 BDP, >= 8 BDP */
enum { B_A, B_B, B_C, B_D, B_ALL, NBUCKETS };

struct bucket {
	const char *name;
	uint64_t lo, hi;		/* lo <= size < hi */
	uint64_t count, bytes;
	struct samples sd;		/* slowdowns */
	struct samples lat;		/* completion times, us */
};

static struct bucket buckets[NBUCKETS];

static void buckets_init(void)
{
	static const char *const names[] = { "A", "B", "C", "D", "all" };
	int i;

	for (i = 0; i < NBUCKETS; i++)
		buckets[i].name = names[i];
	buckets[B_A].lo = 1;
	buckets[B_A].hi = o.mss;
	buckets[B_B].lo = o.mss;
	buckets[B_B].hi = o.bdp;
	buckets[B_C].lo = o.bdp;
	buckets[B_C].hi = 8ULL * o.bdp;
	buckets[B_D].lo = 8ULL * o.bdp;
	buckets[B_D].hi = UINT64_MAX;
	buckets[B_ALL].lo = 1;
	buckets[B_ALL].hi = UINT64_MAX;
}

static struct {
	uint64_t arrivals, issued, issued_bytes, completed, completed_bytes;
	uint64_t resp_bytes, failed, dropped, send_err, unanswered, unknown;
	uint64_t deferred;			/* waited for --max-outstanding */
	uint64_t errs[256];			/* by errno, failed RPCs */
	uint64_t t0, t_end, t_last;		/* first arrival, end, last answer */
	double rtt_us, lag_max_us, lag_sum_us;
	struct shoal_sock_stats sock;
	bool have_sock;
	/* each completed RPC's bytes at the link rate, us: no transport
	 * answers one sooner (but for what a shaper's burst lets through)
	 */
	struct samples serial;
} st;

static double ideal_ns(uint32_t size, uint32_t resp)
{
	return st.rtt_us * 1000.0 + (double)(size + resp) * 8e3 / o.link_mbps;
}

static void record(uint32_t size, uint32_t resp, uint64_t start, uint64_t now)
{
	double lat = now - start, sd = lat / ideal_ns(size, resp);
	int i;

	for (i = 0; i < B_ALL; i++)
		if (size >= buckets[i].lo && size < buckets[i].hi)
			break;
	buckets[i].count++;
	buckets[i].bytes += size;
	samples_add(&buckets[i].sd, sd);
	samples_add(&buckets[i].lat, lat / 1000.0);
	buckets[B_ALL].count++;
	buckets[B_ALL].bytes += size;
	samples_add(&buckets[B_ALL].sd, sd);
	samples_add(&buckets[B_ALL].lat, lat / 1000.0);
	samples_add(&st.serial, (double)(size + resp) * 8 / o.link_mbps);
	st.completed++;
	st.completed_bytes += size;
	st.resp_bytes += resp;
	st.t_last = now;
}

static void count_err(int e)
{
	st.failed++;
	st.errs[e > 0 && e < 256 ? e : 0]++;
}

/* ---- addresses and sockets ---- */

static void parse_server(const char *arg)
{
	char host[128], *colon;
	struct sockaddr_in *a4 = (void *)&o.addr;
	struct sockaddr_in6 *a6 = (void *)&o.addr;
	const char *port = NULL;

	snprintf(host, sizeof(host), "%s", arg);
	if (host[0] == '[') {
		char *close = strchr(host, ']');

		if (!close)
			fail("bad address %s", arg);
		*close = 0;
		if (close[1] == ':')
			port = close + 2;
		memmove(host, host + 1, strlen(host));
	} else if ((colon = strchr(host, ':')) && !strchr(colon + 1, ':')) {
		*colon = 0;
		port = colon + 1;
	}
	if (port) {
		char *end;
		long p = strtol(port, &end, 10);

		if (*end || p <= 0 || p > 65535)
			fail("bad port in %s", arg);
		o.port = p;
	}
	memset(&o.addr, 0, sizeof(o.addr));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		o.family = AF_INET;
		o.addrlen = sizeof(*a4);
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		o.family = AF_INET6;
		o.addrlen = sizeof(*a6);
	} else {
		fail("bad address %s (numeric IPv4 or IPv6)", arg);
	}
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int buf_size(long len)
{
	return len > INT32_MAX / 2 - MiB ? INT32_MAX / 2 : (int)(len + MiB);
}

/* a receive buffer that holds messages of @len bytes, a send buffer
 * @snd_len of them
 */
static void size_buffers(int fd, long len, long snd_len)
{
	int v = buf_size(len), w = buf_size(snd_len);
	socklen_t sl = sizeof(v);
	int got = 0;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &w, sizeof(w)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w));
	if (msg_proto() &&
	    !getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &sl) && got / 2 < len)
		fprintf(stderr, "shoal-perf: warning: SO_RCVBUF %d holds messages of at most %d bytes, not %ld (run as root for SO_RCVBUFFORCE)\n",
			got, got / 2, len);
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		die("fcntl");
}

static ssize_t msg_send(int fd, const struct sockaddr_storage *to,
			 socklen_t tolen, const void *buf, size_t len,
			 uint32_t flags, uint64_t reply_to, uint64_t *id,
			 int msgflags)
{
	struct shoal_send_args args = {
		.flags = flags,
		.reply_to = reply_to,
		.id_addr = (uintptr_t)id,
	};
	char ctl[CMSG_SPACE(sizeof(args))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = tolen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SHOAL;
	c->cmsg_type = SHOAL_CMSG_SEND;
	c->cmsg_len = CMSG_LEN(sizeof(args));
	memcpy(CMSG_DATA(c), &args, sizeof(args));
	return sendmsg(fd, &msg, msgflags);
}

static ssize_t msg_recv(int fd, void *buf, size_t len, int flags,
			 struct shoal_recv_info *info,
			 struct sockaddr_storage *from, socklen_t *fromlen,
			 uint64_t *stamp)
{
	char ctl[CMSG_SPACE(sizeof(*info)) + CMSG_SPACE(sizeof(struct timespec))];
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

	memset(info, 0, sizeof(*info));
	n = recvmsg(fd, &msg, flags | MSG_DONTWAIT);
	if (n < 0)
		return n;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SHOAL && c->cmsg_type == SHOAL_CMSG_RECV)
			memcpy(info, CMSG_DATA(c), sizeof(*info));
	if (stamp)
		stamp_of(&msg, stamp);
	if (fromlen)
		*fromlen = msg.msg_namelen;
	return n;
}

static void write_ready(void)
{
	FILE *f;

	if (!o.ready)
		return;
	f = fopen(o.ready, "w");
	if (!f)
		die(o.ready);
	fclose(f);
}

static uint8_t *buf_alloc(size_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	size_t i;

	if (!b)
		die("malloc");
	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 31 + 7);
	return b;
}

/* ---- server ---- */

static struct {
	uint64_t requests, req_bytes, responses, other, resp_failed;
	uint64_t errs[256];
	uint64_t conns;
} srv;

/* the message server's threads count together */
static void srv_add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void server_summary(void)
{
	int e;

	fprintf(stderr, "shoal-perf server: %llu requests (%llu bytes), %llu responses, %llu failed",
		(unsigned long long)srv.requests,
		(unsigned long long)srv.req_bytes,
		(unsigned long long)srv.responses,
		(unsigned long long)srv.resp_failed);
	for (e = 0; e < 256; e++)
		if (srv.errs[e])
			fprintf(stderr, " %s:%llu", errname(e),
				(unsigned long long)srv.errs[e]);
	if (o.proto == P_TCP)
		fprintf(stderr, ", %llu connections", (unsigned long long)srv.conns);
	fprintf(stderr, "\n");
}

static int srv_fd = -1;		/* the message server's socket */

/* One of the message server's threads: all read the one socket.  Each
 * has its own buffer, so that a thread copying a message of many MB out
 * of the kernel (tens of ms under emulation) does not hold up the small
 * requests behind it: TCP's server reads a buffer at a time, and is
 * never stuck in one copy that long.
 */
static void *server_msg_loop(void *arg)
{
	/* exclusive: a message wakes one thread that waits, not all (and
	 * not one busy copying)
	 */
	struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE };
	long max = (long)(intptr_t)arg;
	uint8_t *buf = buf_alloc(max + 1);
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, srv_fd, &ev))
		die("epoll");
	while (!stop) {
		struct sockaddr_storage from;
		struct shoal_recv_info info;
		socklen_t fromlen;
		ssize_t n;

		/* a signal wakes only one thread: the others see stop */
		if (epoll_wait(ep, &ev, 1, 100) < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		while ((n = msg_recv(srv_fd, buf, 1, MSG_ERRQUEUE, &info,
				      NULL, NULL, NULL)) >= 0) {
			srv_add(&srv.resp_failed, 1);
			srv_add(&srv.errs[info.error > 0 && info.error < 256 ?
					  info.error : 0], 1);
		}
		for (;;) {
			size_t rlen;

			n = msg_recv(srv_fd, buf, max + 1, 0, &info, &from,
				      &fromlen, NULL);
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					die("recvmsg");
				break;
			}
			if (!(info.flags & SHOAL_MSG_REQUEST)) {
				srv_add(&srv.other, 1);
				continue;
			}
			srv_add(&srv.requests, 1);
			srv_add(&srv.req_bytes, (uint64_t)n);
			rlen = o.echo ? (size_t)n : o.resp_size;
			/* blocking: waits for room in SO_SNDBUF */
			if (msg_send(srv_fd, &from, fromlen, buf, rlen,
				      SHOAL_MSG_RESPONSE, info.id, NULL, 0) < 0) {
				if (errno == EINTR && stop)
					break;
				srv_add(&srv.resp_failed, 1);
				srv_add(&srv.errs[errno < 256 ? errno : 0], 1);
				continue;
			}
			srv_add(&srv.responses, 1);
		}
	}
	close(ep);
	free(buf);
	return NULL;
}

static int server_msg(void)
{
	struct sockaddr_storage me = { .ss_family = (sa_family_t)o.family };
	long max = sysctl_long("max_msg_len", 32L * MiB);
	pthread_t th[MAX_THREADS];
	unsigned int i;
	int err;

	srv_fd = msg_socket();
	size_buffers(srv_fd, 2 * max, 2 * max);
	set_port(&me, o.port);
	if (bind(srv_fd, (struct sockaddr *)&me, o.family == AF_INET6 ?
		 sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)))
		die("bind");
	for (i = 1; i < o.threads; i++) {
		err = pthread_create(&th[i], NULL, server_msg_loop,
				     (void *)(intptr_t)max);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	write_ready();
	server_msg_loop((void *)(intptr_t)max);
	for (i = 1; i < o.threads; i++)
		pthread_join(th[i], NULL);
	server_summary();
	close(srv_fd);
	return 0;
}

/* TCP: every message is a TCP_HDR-byte header (payload length, big
 * endian, and 4 reserved bytes) and its payload
 */
struct tconn {
	int fd;
	/* reading */
	uint8_t hdr[TCP_HDR];
	uint32_t hdr_got;
	uint64_t body_left;
	uint32_t body_len;
	/* writing: a queue of messages; each is header + payload */
	uint32_t *wq;
	size_t wq_head, wq_tail, wq_cap;	/* monotonic indices */
	uint64_t wr_off;			/* within the head message */
	bool want_out;
	/* client: requests on this connection, oldest first */
	uint64_t *start;
	uint32_t *size;
	size_t r_head, r_tail;			/* head: oldest unanswered */
	uint64_t stamp;				/* the last read's data came */
};

static uint8_t *zbuf;
static size_t zbuf_len;

static void wq_push(struct tconn *c, uint32_t len)
{
	if (c->wq_tail - c->wq_head == c->wq_cap) {
		size_t ncap = c->wq_cap ? 2 * c->wq_cap : 64, i;
		uint32_t *n = malloc(ncap * sizeof(*n));

		if (!n)
			die("malloc");
		for (i = c->wq_head; i < c->wq_tail; i++)
			n[i % ncap] = c->wq[i % c->wq_cap];
		free(c->wq);
		c->wq = n;
		c->wq_cap = ncap;
	}
	c->wq[c->wq_tail++ % c->wq_cap] = len;
}

/* write what the socket takes; 0, or -1 on a broken connection */
static int tconn_flush(struct tconn *c)
{
	while (c->wq_head != c->wq_tail) {
		uint32_t len = c->wq[c->wq_head % c->wq_cap];
		uint64_t total = TCP_HDR + (uint64_t)len;
		uint8_t hdr[TCP_HDR] = { 0 };
		struct iovec iov[2];
		int niov = 0;
		ssize_t n;
		uint32_t be = htonl(len);

		memcpy(hdr, &be, 4);
		if (c->wr_off < TCP_HDR) {
			iov[niov].iov_base = hdr + c->wr_off;
			iov[niov++].iov_len = TCP_HDR - c->wr_off;
			iov[niov].iov_base = zbuf;
			iov[niov++].iov_len = len;
		} else {
			iov[niov].iov_base = zbuf + (c->wr_off - TCP_HDR);
			iov[niov++].iov_len = total - c->wr_off;
		}
		n = writev(c->fd, iov, niov);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -1;
		}
		c->wr_off += n;
		if (c->wr_off == total) {
			c->wq_head++;
			c->wr_off = 0;
		}
	}
	return 0;
}

static void tconn_events(int ep, struct tconn *c)
{
	bool want = c->wq_head != c->wq_tail;
	struct epoll_event ev = { .events = EPOLLIN | (want ? EPOLLOUT : 0),
				  .data.ptr = c };

	if (want == c->want_out)
		return;
	c->want_out = want;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* read(), keeping when the kernel had what it read in c->stamp */
static ssize_t tconn_recv(struct tconn *c, void *buf, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl,
		.msg_controllen = sizeof(ctl),
	};
	ssize_t n = recvmsg(c->fd, &msg, 0);

	if (n > 0) {
		c->stamp = now_ns();
		stamp_of(&msg, &c->stamp);
	}
	return n;
}

/* read complete messages; @done is called for each; -1 when closed */
static int tconn_read(struct tconn *c, void (*done)(struct tconn *, uint32_t))
{
	static uint8_t sink[1 << 16];

	for (;;) {
		ssize_t n;

		if (c->hdr_got < TCP_HDR) {
			n = tconn_recv(c, c->hdr + c->hdr_got,
				       TCP_HDR - c->hdr_got);
			if (n <= 0)
				goto out;
			c->hdr_got += n;
			if (c->hdr_got == TCP_HDR) {
				uint32_t be;

				memcpy(&be, c->hdr, 4);
				c->body_len = ntohl(be);
				c->body_left = c->body_len;
			}
		}
		if (c->hdr_got == TCP_HDR && c->body_left) {
			n = tconn_recv(c, sink, c->body_left < sizeof(sink) ?
				       c->body_left : sizeof(sink));
			if (n <= 0)
				goto out;
			c->body_left -= n;
		}
		if (c->hdr_got == TCP_HDR && !c->body_left) {
			c->hdr_got = 0;
			done(c, c->body_len);
		}
		continue;
out:
		if (n == 0)
			return -1;
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		return -1;
	}
}

static void srv_tcp_done(struct tconn *c, uint32_t len)
{
	if (o.echo && len > zbuf_len) {	/* longer than any seen: grow */
		free(zbuf);
		zbuf = buf_alloc(len);
		zbuf_len = len;
	}
	srv.requests++;
	srv.req_bytes += len;
	srv.responses++;
	wq_push(c, o.echo ? len : o.resp_size);
}

static void tcp_opts(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int server_tcp(void)
{
	struct sockaddr_storage me = { .ss_family = (sa_family_t)o.family };
	struct epoll_event ev, evs[64];
	int lfd, ep, one = 1;

	zbuf_len = 32 * MiB;
	zbuf = buf_alloc(zbuf_len);
	lfd = socket(o.family, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_port(&me, o.port);
	if (bind(lfd, (struct sockaddr *)&me, o.family == AF_INET6 ?
		 sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)))
		die("bind");
	if (listen(lfd, 128))
		die("listen");
	set_nonblock(lfd);
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	write_ready();
	while (!stop) {
		int n = epoll_wait(ep, evs, 64, -1), i;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		for (i = 0; i < n; i++) {
			struct tconn *c = evs[i].data.ptr;
			int fd;

			if (!c) {
				while ((fd = accept(lfd, NULL, NULL)) >= 0) {
					c = calloc(1, sizeof(*c));
					if (!c)
						die("calloc");
					c->fd = fd;
					set_nonblock(fd);
					tcp_opts(fd);
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
					srv.conns++;
				}
				continue;
			}
			if (tconn_read(c, srv_tcp_done) < 0 ||
			    tconn_flush(c) < 0) {
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				free(c->wq);
				free(c);
				continue;
			}
			tconn_events(ep, c);
		}
	}
	server_summary();
	return 0;
}

/* ---- client ---- */

/* outstanding Shoal RPCs by message id: open addressing, linear probing,
 * deletion by backward shift
 */
struct rpc {
	uint64_t id;		/* 0: free */
	uint64_t start;
	uint32_t size;
};

static struct rpc *tab;
static size_t tab_mask, outstanding;

static size_t slot_of(uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 20) & tab_mask;
}

static void tab_put(uint64_t id, uint64_t start, uint32_t size)
{
	size_t i = slot_of(id);

	while (tab[i].id)
		i = (i + 1) & tab_mask;
	tab[i].id = id;
	tab[i].start = start;
	tab[i].size = size;
	outstanding++;
}

static bool tab_take(uint64_t id, struct rpc *out)
{
	size_t i = slot_of(id), j, k;

	while (tab[i].id && tab[i].id != id)
		i = (i + 1) & tab_mask;
	if (!tab[i].id)
		return false;
	*out = tab[i];
	tab[i].id = 0;
	outstanding--;
	for (j = (i + 1) & tab_mask; tab[j].id; j = (j + 1) & tab_mask) {
		k = slot_of(tab[j].id);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && (k <= i && k > j))) {
			tab[i] = tab[j];
			tab[j].id = 0;
			i = j;
		}
	}
	return true;
}

/* arrivals that wait for --max-outstanding or for room in SO_SNDBUF */
struct pend {
	uint64_t t;
	uint32_t size;
};

static struct pend *pq;
static size_t pq_head, pq_tail, pq_cap;

static uint64_t next_arrival(uint64_t t, double rate_per_ns)
{
	return t + (uint64_t)(-log(rng_unit()) / rate_per_ns);
}

static struct tconn *conns;
static uint8_t *sbuf;		/* request payloads */
static uint8_t *rbuf;		/* responses */
static size_t rbuf_len;

/* sequential tiny RPCs: the median round trip, us */
static double measure_rtt_msg(int fd)
{
	double v[RTT_PROBES];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int i, got = 0;

	for (i = 0; i < RTT_PROBES; i++) {
		struct shoal_recv_info info;
		uint64_t id = 0, t = now_ns(), stamp = t;

		if (msg_send(fd, &o.addr, o.addrlen, sbuf, 1,
			      SHOAL_MSG_REQUEST, 0, &id, 0) < 0)
			die("sendmsg (idle RTT)");
		for (;;) {
			if (poll(&p, 1, 2000) <= 0) {
				fprintf(stderr, "shoal-perf: no answer to the idle RTT probe: is the server running?\n");
				exit(1);
			}
			if (msg_recv(fd, rbuf, rbuf_len, MSG_ERRQUEUE, &info,
				      NULL, NULL, NULL) >= 0) {
				fprintf(stderr, "shoal-perf: idle RTT probe failed: %s\n",
					strerror(info.error));
				exit(1);
			}
			stamp = now_ns();
			if (msg_recv(fd, rbuf, rbuf_len, 0, &info, NULL,
				      NULL, &stamp) >= 0 && info.id == id)
				break;
		}
		v[got++] = (stamp - t) / 1000.0;
	}
	qsort(v, got, sizeof(v[0]), cmp_double);
	return v[got / 2];
}

static void cli_tcp_done(struct tconn *c, uint32_t len)
{
	size_t i;

	if (c->r_head == c->r_tail) {
		st.unknown++;
		return;
	}
	i = c->r_head++ % o.max_out;
	outstanding--;
	record(c->size[i], len, c->start[i], c->stamp);
}

static double measure_rtt_tcp(void)
{
	double v[RTT_PROBES];
	struct tconn *c = &conns[0];
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int i;

	for (i = 0; i < RTT_PROBES; i++) {
		uint64_t t = now_ns(), before = st.unknown;

		wq_push(c, 1);
		while (c->wq_head != c->wq_tail)
			if (tconn_flush(c) < 0)
				die("write (idle RTT)");
		/* no request registered: the answer counts as unknown */
		while (st.unknown == before) {
			if (poll(&p, 1, 2000) <= 0 ||
			    tconn_read(c, cli_tcp_done) < 0) {
				fprintf(stderr, "shoal-perf: no answer to the idle RTT probe: is the server running?\n");
				exit(1);
			}
		}
		st.unknown--;
		v[i] = (c->stamp - t) / 1000.0;
	}
	qsort(v, RTT_PROBES, sizeof(v[0]), cmp_double);
	return v[RTT_PROBES / 2];
}

static int ep;
static int sfd = -1;		/* SIRD or PL2 socket */
static bool msg_blocked;	/* SO_SNDBUF full: wait for EPOLLOUT */

static void msg_events(bool want_out)
{
	struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0) };

	if (want_out == msg_blocked)
		return;
	msg_blocked = want_out;
	epoll_ctl(ep, EPOLL_CTL_MOD, sfd, &ev);
}

/* start the RPC of one waiting arrival; false: try again later */
static bool start_one(const struct pend *p)
{
	if (msg_proto()) {
		uint64_t id = 0;

		if (msg_send(sfd, &o.addr, o.addrlen, sbuf, p->size,
			      SHOAL_MSG_REQUEST, 0, &id, MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN) {
				msg_events(true);
				return false;
			}
			st.send_err++;
			count_err(errno);
			return true;
		}
		tab_put(id, p->t, p->size);
	} else {
		struct tconn *c = &conns[0];
		unsigned int i;
		size_t k;

		for (i = 1; i < o.conns; i++)
			if (conns[i].r_tail - conns[i].r_head <
			    c->r_tail - c->r_head)
				c = &conns[i];
		k = c->r_tail++ % o.max_out;
		c->start[k] = p->t;
		c->size[k] = p->size;
		outstanding++;
		wq_push(c, p->size);
		if (tconn_flush(c) < 0) {
			fprintf(stderr, "shoal-perf: TCP connection broken\n");
			exit(1);
		}
		tconn_events(ep, c);
	}
	st.issued++;
	st.issued_bytes += p->size;
	return true;
}

static void start_waiting(void)
{
	while (pq_head != pq_tail && outstanding < o.max_out) {
		if (!start_one(&pq[pq_head % pq_cap]))
			return;
		pq_head++;
	}
}

static void msg_drain(void)
{
	struct shoal_recv_info info;
	struct rpc r;
	ssize_t n;

	while (msg_recv(sfd, rbuf, 1, MSG_ERRQUEUE, &info, NULL, NULL,
			NULL) >= 0) {
		if (tab_take(info.id, &r))
			count_err(info.error);
		else
			st.unknown++;
	}
	for (;;) {
		uint64_t stamp = now_ns();

		n = msg_recv(sfd, rbuf, rbuf_len, 0, &info, NULL, NULL, &stamp);
		if (n < 0)
			break;
		if (!(info.flags & SHOAL_MSG_RESPONSE) ||
		    !tab_take(info.id, &r)) {
			st.unknown++;
			continue;
		}
		record(r.size, n, r.start, stamp);
	}
	if (errno != EAGAIN && errno != EINTR)
		die("recvmsg");
}

static void client_setup(void)
{
	uint32_t max = wl_max();
	struct epoll_event ev = { .events = EPOLLIN };
	size_t cap;
	unsigned int i;

	sbuf = buf_alloc(max);
	zbuf = sbuf;
	zbuf_len = max;
	rbuf_len = (size_t)max + 65536;	/* an --echo server's answer */
	rbuf = buf_alloc(rbuf_len);
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	for (cap = 1024; cap < 2 * (size_t)o.max_out; cap *= 2)
		;
	pq_cap = o.max_out;
	pq = calloc(pq_cap, sizeof(*pq));
	if (!pq)
		die("calloc");
	set_port(&o.addr, o.port);
	stamps_init();
	if (msg_proto()) {
		tab = calloc(cap, sizeof(*tab));
		if (!tab)
			die("calloc");
		tab_mask = cap - 1;
		sfd = msg_socket();
		/* room for two of the largest requests: a request that
		 * arrives while one is being sent does not wait for it
		 * (TCP's connections each queue their own)
		 */
		size_buffers(sfd, 2 * (long)rbuf_len, 2 * (long)wl_max());
		stamps_on(sfd);
		set_nonblock(sfd);
		/* --rtt-us: no probe (one that met a loaded port failed) */
		st.rtt_us = o.rtt_us > 0 ? o.rtt_us : measure_rtt_msg(sfd);
		epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
		return;
	}
	conns = calloc(o.conns, sizeof(*conns));
	if (!conns)
		die("calloc");
	for (i = 0; i < o.conns; i++) {
		struct tconn *c = &conns[i];

		c->fd = socket(o.family, SOCK_STREAM, 0);
		if (c->fd < 0)
			die("socket");
		tcp_opts(c->fd);
		stamps_on(c->fd);
		if (connect(c->fd, (struct sockaddr *)&o.addr, o.addrlen))
			die("connect");
		set_nonblock(c->fd);
		c->start = calloc(o.max_out, sizeof(*c->start));
		c->size = calloc(o.max_out, sizeof(*c->size));
		if (!c->start || !c->size)
			die("calloc");
		ev.data.ptr = c;
		epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	}
	st.rtt_us = o.rtt_us > 0 ? o.rtt_us : measure_rtt_tcp();
}

static void client_run(void)
{
	double rate = o.load * o.link_mbps * 1e6 / 8.0 / wl_mean() / 1e9;
	uint64_t t_next, t_stop, now;
	struct epoll_event evs[64];

	if (o.rtt_us > 0)
		st.rtt_us = o.rtt_us;
	now = now_ns();
	st.t0 = now;
	st.t_end = now + (uint64_t)(o.duration * 1e9);
	t_stop = st.t_end + (uint64_t)(o.drain * 1e9);
	t_next = next_arrival(now, rate);
	while (!stop) {
		struct timespec ts;
		uint64_t wait;
		int n, i;

		now = now_ns();
		while (t_next <= now && t_next < st.t_end) {
			double lag = (now - t_next) / 1000.0;

			st.arrivals++;
			if (lag > st.lag_max_us)
				st.lag_max_us = lag;
			st.lag_sum_us += lag;
			if (pq_tail - pq_head == pq_cap) {
				st.dropped++;
			} else {
				/* the RPC's clock starts now, when the loop
				 * takes the arrival (see the documentation)
				 */
				if (outstanding >= o.max_out)
					st.deferred++;
				pq[pq_tail % pq_cap].t = now;
				pq[pq_tail++ % pq_cap].size = wl_sample();
			}
			t_next = next_arrival(t_next, rate);
		}
		if (!msg_blocked)
			start_waiting();
		if (now >= st.t_end && pq_head == pq_tail && !outstanding)
			break;
		if (now >= t_stop)
			break;
		wait = t_next < st.t_end ? t_next - now : t_stop - now;
		if (wait > 100000000)
			wait = 100000000;
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		n = epoll_pwait2(ep, evs, 64, &ts, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_pwait2");
		}
		for (i = 0; i < n; i++) {
			struct tconn *c = evs[i].data.ptr;

			if (msg_proto()) {
				if (evs[i].events & EPOLLOUT)
					msg_events(false);
				msg_drain();
				continue;
			}
			if (tconn_read(c, cli_tcp_done) < 0 ||
			    tconn_flush(c) < 0) {
				fprintf(stderr, "shoal-perf: TCP connection closed by the server\n");
				exit(1);
			}
			tconn_events(ep, c);
		}
	}
	st.unanswered = outstanding + (pq_tail - pq_head);
	if (msg_proto()) {
		socklen_t len = sizeof(st.sock);

		st.have_sock = !getsockopt(sfd, SOL_SHOAL, SHOAL_SOCK_STATS,
					   &st.sock, &len);
	}
}

/* ---- output ---- */

static double elapsed_s(void)
{
	uint64_t end = st.t_last > st.t_end ? st.t_last : st.t_end;

	return (end - st.t0) / 1e9;
}

static double goodput_mbps(void)
{
	return st.completed_bytes * 8.0 / elapsed_s() / 1e6;
}

static void print_text(FILE *f)
{
	char range[48];
	int i, e, any = 0;

	fprintf(f, "shoal-perf: %s, workload %s (mean %.0f B), load %.2f of %.1f Mbit/s, %.1f s, seed %llu\n",
		proto_names[o.proto], o.wl_name, wl_mean(),
		o.load, o.link_mbps, o.duration, (unsigned long long)o.seed);
	fprintf(f, "offered %.2f Mbit/s (issued %.2f), goodput %.2f Mbit/s, idle RTT %.0f us\n",
		o.load * o.link_mbps, st.issued_bytes * 8.0 / o.duration / 1e6,
		goodput_mbps(), st.rtt_us);
	fprintf(f, "messages: issued %llu, completed %llu, failed %llu, unanswered %llu, dropped arrivals %llu, deferred %llu\n",
		(unsigned long long)st.issued,
		(unsigned long long)st.completed,
		(unsigned long long)st.failed,
		(unsigned long long)st.unanswered,
		(unsigned long long)st.dropped,
		(unsigned long long)st.deferred);
	fprintf(f, "%-4s %-22s %8s %12s %9s %9s %9s %10s\n", "grp", "size (B)",
		"count", "bytes", "sd p50", "sd p99", "sd max", "p99 us");
	for (i = 0; i < NBUCKETS; i++) {
		struct bucket *b = &buckets[i];

		if (b->hi == UINT64_MAX)
			snprintf(range, sizeof(range), ">= %llu",
				 (unsigned long long)b->lo);
		else
			snprintf(range, sizeof(range), "%llu-%llu",
				 (unsigned long long)b->lo,
				 (unsigned long long)b->hi - 1);
		if (i == B_ALL)
			snprintf(range, sizeof(range), "all");
		fprintf(f, "%-4s %-22s %8llu %12llu", b->name, range,
			(unsigned long long)b->count,
			(unsigned long long)b->bytes);
		if (b->count)
			fprintf(f, " %9.2f %9.2f %9.2f %10.0f\n",
				pct(&b->sd, 0.5), pct(&b->sd, 0.99),
				b->sd.v[b->sd.n - 1], pct(&b->lat, 0.99));
		else
			fprintf(f, " %9s %9s %9s %10s\n", "-", "-", "-", "-");
	}
	fprintf(f, "failures:");
	for (e = 0; e < 256; e++) {
		if (st.errs[e]) {
			fprintf(f, " %s %llu", errname(e),
				(unsigned long long)st.errs[e]);
			any = 1;
		}
	}
	fprintf(f, "%s\n", any ? "" : " none");
}

/* The socket's counters under "socket", as struct shoal_stats names them */
static void json_socket(struct jw *w)
{
	jw_obj(w, "socket", JW_INLINE);
	jw_u64(w, "tx_msgs", st.sock.tx_msgs);
	jw_u64(w, "tx_acked", st.sock.tx_acked);
	jw_u64(w, "tx_failed", st.sock.tx_failed);
	jw_u64(w, "rx_msgs", st.sock.rx_msgs);
	jw_u64(w, "rx_dup_bytes", st.sock.rx_dup_bytes);
	jw_u64(w, "rx_drop_rcvbuf", st.sock.rx_drop_rcvbuf);
	jw_u64(w, "rx_drop_mem", st.sock.rx_drop_mem);
	jw_end(w);
}

static void json_bucket(struct jw *w, const struct bucket *b)
{
	jw_obj(w, NULL, JW_INLINE);
	jw_str(w, "name", b->name);
	jw_u64(w, "min", b->lo);
	if (b->hi == UINT64_MAX)
		jw_null(w, "max");
	else
		jw_u64(w, "max", b->hi - 1);
	jw_u64(w, "count", b->count);
	jw_u64(w, "bytes", b->bytes);
	if (b->count) {
		jw_obj(w, "slowdown", JW_INLINE);
		jw_num(w, "p50", pct(&b->sd, 0.5), 3);
		jw_num(w, "p99", pct(&b->sd, 0.99), 3);
		jw_num(w, "max", b->sd.v[b->sd.n - 1], 3);
		jw_end(w);
		jw_obj(w, "latency_us", JW_INLINE);
		jw_num(w, "p50", pct(&b->lat, 0.5), 1);
		jw_num(w, "p99", pct(&b->lat, 0.99), 1);
		jw_num(w, "max", b->lat.v[b->lat.n - 1], 1);
		jw_end(w);
	}
	jw_end(w);
}

/* sorted samples as a one-line array of whole numbers */
static void json_samples(struct jw *w, const char *key, const struct samples *s)
{
	size_t k;

	jw_arr(w, key, JW_INLINE);
	for (k = 0; k < s->n; k++)
		jw_num(w, NULL, s->v[k], 0);
	jw_end(w);
}

static int print_json(FILE *f)
{
	struct jw w;
	int i, e;

	jw_init(&w, f);
	jw_obj(&w, NULL, JW_LINES);
	jw_str(&w, "proto", proto_names[o.proto]);
	jw_str(&w, "workload", o.wl_name);
	jw_num(&w, "mean_size", wl_mean(), 1);
	jw_u64(&w, "max_size", wl_max());
	jw_num(&w, "load", o.load, -1);
	jw_num(&w, "link_mbps", o.link_mbps, -1);
	jw_num(&w, "duration_s", o.duration, -1);
	jw_u64(&w, "seed", o.seed);
	jw_u64(&w, "max_outstanding", o.max_out);
	if (o.proto == P_TCP)
		jw_u64(&w, "connections", o.conns);
	jw_u64(&w, "mss", o.mss);
	jw_u64(&w, "bdp", o.bdp);
	jw_num(&w, "idle_rtt_us", st.rtt_us, 1);
	jw_num(&w, "offered_mbps", o.load * o.link_mbps, 3);
	jw_num(&w, "issued_mbps", st.issued_bytes * 8.0 / o.duration / 1e6, 3);
	jw_num(&w, "goodput_mbps", goodput_mbps(), 3);
	jw_num(&w, "elapsed_s", elapsed_s(), 3);
	jw_obj(&w, "arrival_lag_us", JW_INLINE);
	jw_num(&w, "mean", st.arrivals ? st.lag_sum_us / st.arrivals : 0.0, 1);
	jw_num(&w, "max", st.lag_max_us, 1);
	jw_end(&w);
	jw_obj(&w, "messages", JW_INLINE);
	jw_u64(&w, "arrivals", st.arrivals);
	jw_u64(&w, "issued", st.issued);
	jw_u64(&w, "issued_bytes", st.issued_bytes);
	jw_u64(&w, "completed", st.completed);
	jw_u64(&w, "completed_bytes", st.completed_bytes);
	jw_u64(&w, "response_bytes", st.resp_bytes);
	jw_u64(&w, "failed", st.failed);
	jw_u64(&w, "unanswered", st.unanswered);
	jw_u64(&w, "dropped_arrivals", st.dropped);
	jw_u64(&w, "deferred", st.deferred);
	jw_u64(&w, "unknown_answers", st.unknown);
	jw_end(&w);
	jw_obj(&w, "failures", JW_INLINE);
	for (e = 0; e < 256; e++)
		if (st.errs[e])
			jw_u64(&w, errname(e), st.errs[e]);
	jw_end(&w);
	if (st.have_sock)
		json_socket(&w);
	jw_arr(&w, "buckets", JW_LINES);
	for (i = 0; i < NBUCKETS; i++)
		json_bucket(&w, &buckets[i]);
	jw_end(&w);
	/* every completion time, sorted: percentiles over several clients */
	json_samples(&w, "completion_us", &buckets[B_ALL].lat);
	/* and their bytes' own times at the link rate, sorted: a floor */
	json_samples(&w, "serial_us", &st.serial);
	jw_end(&w);
	return jw_finish(&w);
}

static int client(void)
{
	int i;

	buckets_init();
	rng_state = o.seed;
	client_setup();
	client_run();
	for (i = 0; i < NBUCKETS; i++) {
		qsort(buckets[i].sd.v, buckets[i].sd.n, sizeof(double),
		      cmp_double);
		qsort(buckets[i].lat.v, buckets[i].lat.n, sizeof(double),
		      cmp_double);
	}
	qsort(st.serial.v, st.serial.n, sizeof(double), cmp_double);
	if (o.json) {
		print_text(stderr);
		if (print_json(stdout) || fflush(stdout)) {
			fprintf(stderr, "shoal-perf: cannot write the JSON\n");
			return 1;
		}
	} else {
		print_text(stdout);
	}
	return st.failed || st.unanswered ? 3 : 0;
}

/* ---- main ---- */

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
"usage: shoal-perf server [--port P] [--proto sird|pl2|tcp] [--echo]\n"
"                         [--resp-size N] [--threads N] [-6] [--ready FILE]\n"
"       shoal-perf client --server ADDR[:PORT] --workload W1..W5|fixed:N\n"
"                         --load FRACTION --link-mbps M --duration S\n"
"                         [--proto sird|pl2|tcp] [--json] [--seed N]\n"
"                         [--max-outstanding N] [--connections N]\n"
"                         [--drain S] [--rtt-us US] [--mss B] [--bdp B]\n"
"\n"
"server: answers every request with --resp-size bytes (default %d), or\n"
"  with as many bytes as the request had (--echo); runs until SIGINT or\n"
"  SIGTERM, then prints its counts on stderr.  Port default %d; -6 binds\n"
"  IPv6 (which also takes IPv4).  --ready FILE is created once it listens.\n"
"  A message server reads with --threads threads (default %d), so that one\n"
"  copying a long request out does not hold up the rest; TCP's is one loop\n"
"  that reads a buffer at a time.\n"
"client: open-loop Poisson requests offering FRACTION of M Mbit/s for S\n"
"  seconds (then up to --drain seconds, default %g, for the last answers),\n"
"  at most --max-outstanding (default %d) at once, later arrivals waiting\n"
"  in line (as many again) and dropped beyond; TCP uses --connections\n"
"  (default %d) connections.  Slowdown = completion time / (idle RTT +\n"
"  (request + response bytes) x 8 / M); groups A-D by size: < MSS,\n"
"  MSS..BDP, BDP..8 BDP, >= 8 BDP (net.shoal.mss and .bdp unless --mss,\n"
"  --bdp).  Text table on stdout, or with --json JSON on stdout and the\n"
"  table on stderr.  Exit status 3 if any RPC failed or went unanswered.\n"
"\n"
"workloads (Homa's, SIRD's WKa-WKc):\n",
		DEF_RESP, DEF_PORT, DEF_THREADS, DEF_DRAIN_S, DEF_OUTSTANDING,
		DEF_CONNS);
	for (i = 0; i < n_workloads; i++) {
		const struct workload *w = &workloads[i];

		o.wl = w;
		fprintf(f, "  %s%s%-4s %-32s mean %9.0f B, max %8u B\n",
			w->name, w->alias ? "/" : "", w->alias ? w->alias : "",
			w->source, wl_mean(), wl_max());
	}
	fprintf(f, "  fixed:N  every request N bytes\n");
}

static double num(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v >= 0))
		fail("bad %s", what);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "proto", required_argument, NULL, 'P' },
		{ "echo", no_argument, NULL, 'e' },
		{ "resp-size", required_argument, NULL, 'r' },
		{ "ready", required_argument, NULL, 'R' },
		{ "server", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "load", required_argument, NULL, 'l' },
		{ "link-mbps", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "drain", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 'S' },
		{ "max-outstanding", required_argument, NULL, 'o' },
		{ "connections", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "rtt-us", required_argument, NULL, 'T' },
		{ "mss", required_argument, NULL, 'M' },
		{ "bdp", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	bool have_server = false;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "server"))
		o.server = true;
	else if (strcmp(argv[1], "client"))
		fail("unknown mode %s: server or client", argv[1]);
	o.mss = sysctl_long("mss", 1400);
	o.bdp = sysctl_long("bdp", 65536);
	optind = 2;
	while ((c = getopt_long(argc, argv, "6h", opts, NULL)) != -1) {
		switch (c) {
		case '6':
			o.family = AF_INET6;
			break;
		case 'p':
			o.port = (uint16_t)num(optarg, "port");
			break;
		case 'P':
			if (!strcmp(optarg, "sird"))
				o.proto = P_SIRD;
			else if (!strcmp(optarg, "pl2"))
				o.proto = P_PL2;
			else if (!strcmp(optarg, "tcp"))
				o.proto = P_TCP;
			else
				fail("bad --proto %s: sird, pl2 or tcp", optarg);
			break;
		case 'e':
			o.echo = true;
			break;
		case 'r':
			o.resp_size = (unsigned int)num(optarg, "--resp-size");
			if (!o.resp_size)
				fail("%s", "--resp-size must be at least 1");
			break;
		case 'R':
			o.ready = optarg;
			break;
		case 's':
			parse_server(optarg);
			have_server = true;
			break;
		case 'w':
			if (!wl_parse(optarg))
				fail("unknown workload %s (W1..W5, WKa..WKc, fixed:N)",
				     optarg);
			break;
		case 'l':
			o.load = num(optarg, "--load");
			break;
		case 'm':
			o.link_mbps = num(optarg, "--link-mbps");
			break;
		case 'd':
			o.duration = num(optarg, "--duration");
			break;
		case 'D':
			o.drain = num(optarg, "--drain");
			break;
		case 'j':
			o.json = true;
			break;
		case 'S':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			o.max_out = (unsigned int)num(optarg, "--max-outstanding");
			break;
		case 'c':
			o.conns = (unsigned int)num(optarg, "--connections");
			break;
		case 't':
			o.threads = (unsigned int)num(optarg, "--threads");
			if (o.threads < 1 || o.threads > MAX_THREADS)
				fail("%s", "--threads must be 1..64");
			break;
		case 'T':
			o.rtt_us = num(optarg, "--rtt-us");
			break;
		case 'M':
			o.mss = (uint32_t)num(optarg, "--mss");
			break;
		case 'B':
			o.bdp = (uint32_t)num(optarg, "--bdp");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		fail("unexpected argument %s", argv[optind]);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.server)
		return msg_proto() ? server_msg() : server_tcp();
	if (!have_server || (!o.wl && !o.fixed))
		fail("%s", "client needs --server and --workload");
	if (!(o.load > 0) || !(o.link_mbps > 0) || !(o.duration > 0))
		fail("%s", "client needs --load, --link-mbps and --duration above 0");
	if (!o.max_out || !o.conns || !o.mss || o.bdp < o.mss)
		fail("%s", "--max-outstanding, --connections, --mss must be positive, --bdp >= --mss");
	return client();
}
