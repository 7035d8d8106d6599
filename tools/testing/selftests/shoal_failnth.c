// SPDX-License-Identifier: GPL-2.0
/*
 * shoal_failnth: every allocation of shoal.ko's system calls failed in
 * turn, one per call (/proc/thread-self/fail-nth, on a kernel with
 * fault injection: make check-debug).
 *
 *	shoal_failnth [-v] [-d] [STEP...]
 *
 * Each STEP (default: all, see steps[]) is one system call on a Shoal
 * socket (socket, bind, sendmsg of a small and of a large
 * message, of a request and of a response, recvmsg of a message, of a
 * response and of an error report, close with a message in flight), run
 * for SIRD and PL2, IPv4 and IPv6, in a network namespace of its own.
 * For n = 1, 2, ... the step sets up its sockets, asks the kernel to fail
 * the n-th fault site (an allocation) of the call, makes the call, and
 * reads back whether a failure was injected; once none was, every site
 * of that call has failed once and the step is done.
 *
 * After each injected failure the call must have succeeded or failed
 * with an errno an allocation failure may give (ENOMEM, ENOBUFS, ENFILE),
 * and what the call was for must then hold: a message sent is read once
 * and intact, a message whose send failed is never read, a message that
 * a failed recvmsg() did not return is still there, a failed bind() can
 * be made again, the sockets still carry messages both
 * ways; and once they are closed shoal.ko's object counts
 * (/sys/kernel/debug/shoal/objects) are back to 0.  The kernel's report
 * of each injected failure (its stack, from /dev/kmsg) names the function
 * that allocated: the sites inside shoal.ko are listed per step, and a
 * step that sends must have reached some.  TAP, one line per step, and a
 * summary of every site per function.  -v lists every site; -d (dry)
 * injects nothing and runs each step once, which checks the steps
 * themselves on any kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/shoal.h>

#include "../lib/shoal_selftest.h"
#include "../../lib/shoal_socket.h"

#define SITES_MAX	4000	/* fault sites of one call, at most */
#define SMALL_LEN	1000
#define LARGE_LEN	(300 * 1024)
#define WAIT_MS		10000	/* a message sent must come within */
#define ABSENT_MS	100	/* after the marker: nothing else comes */
#define WATCHDOG_S	120	/* one iteration, at most */
#define FUNCS_MAX	256

static bool verbose, dry;
static int fail_fd = -1, kmsg_fd = -1;
static char *sendbuf, *recvbuf;

/* ---- TAP ---- */

/* A problem of the iteration under way: printed, and the step fails */
static char step_name[64];
static int step_iter, step_problems;

static void problem(const char *fmt, ...)
{
	va_list ap;

	step_problems++;
	if (step_problems > 20)
		return;
	printf("# %s, fault site %d: ", step_name, step_iter);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- fail-nth and the kernel's reports ---- */

static void fail_arm(int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%d", n);

	if (dry)
		return;
	if (pwrite(fail_fd, b, len, 0) != len) {
		printf("Bail out! fail-nth: %s\n", strerror(errno));
		exit(1);
	}
}

/* Whether the armed failure was injected; fail-nth off again */
static bool fail_disarm(void)
{
	char b[16] = { 0 };
	int saved = errno;
	bool injected;

	if (dry)
		return false;
	if (pread(fail_fd, b, sizeof(b) - 1, 0) <= 0) {
		printf("Bail out! fail-nth read: %s\n", strerror(errno));
		exit(1);
	}
	injected = atoi(b) == 0;
	if (pwrite(fail_fd, "0", 1, 0) != 1) {
		printf("Bail out! fail-nth off: %s\n", strerror(errno));
		exit(1);
	}
	errno = saved;
	return injected;
}

/* Functions a stack passes through on its way to the failure: the
 * caller that asked for the memory is the first frame after them
 */
static const char *const alloc_frames[] = {
	"dump_stack", "should_fail", "__should_fail", "fail_dump",
	"should_failslab", "__should_failslab", "should_fail_alloc_page",
	"prepare_alloc_pages", "__alloc_pages", "alloc_pages",
	"__get_free_pages", "__folio_alloc", "folio_alloc",
	"kmem_cache_alloc", "__kmem_cache_alloc", "kmalloc", "__kmalloc",
	"kmalloc_trace", "kmalloc_node", "kmalloc_reserve", "kvmalloc",
	"__kvmalloc", "slab_", "__slab_", "___slab_", "kmem_cache_alloc_node",
	"kmem_cache_alloc_lru", "kmem_cache_alloc_bulk", "vmalloc",
	"__vmalloc", "alloc_slab_page", "allocate_slab", "new_slab",
	"page_frag_alloc", "__page_frag_alloc", "__napi_alloc",
	"krealloc", "kmemdup", "kstrdup", "kzalloc", "kcalloc",
};

struct fn_count {
	char name[64];
	unsigned long n;
};

static struct fn_count shoal_fns[FUNCS_MAX], other_fns[FUNCS_MAX];
static int n_shoal_fns, n_other_fns;

static void fn_add(struct fn_count *t, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(t[i].name, name)) {
			t[i].n++;
			return;
		}
	if (*n == FUNCS_MAX)
		return;
	snprintf(t[*n].name, sizeof(t[*n].name), "%s", name);
	t[(*n)++].n = 1;
}

static bool is_alloc_frame(const char *fn)
{
	size_t i, l;

	for (i = 0; i < sizeof(alloc_frames) / sizeof(alloc_frames[0]); i++) {
		l = strlen(alloc_frames[i]);
		if (!strncmp(fn, alloc_frames[i], l))
			return true;
	}
	return false;
}

/* What one injected failure's report names: the allocating function
 * (outside the allocator) and the innermost function of shoal.ko
 */
struct site {
	char caller[64];
	char in_shoal[64];
	bool seen;		/* the report was read */
};

/* Read the kernel's new messages; fill @s from the first fault
 * injection report among them (NULL: just skip them)
 */
static void kmsg_read(struct site *s)
{
	char rec[2048], fn[64];
	bool in_report = false, done = false;
	char *msg, *p;
	ssize_t len;

	if (s)
		memset(s, 0, sizeof(*s));
	for (;;) {
		len = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		if (!msg || !s || done)
			continue;
		msg++;
		p = strchr(msg, '\n');
		if (p)
			*p = 0;
		if (strstr(msg, "FAULT_INJECTION: forcing a failure")) {
			in_report = true;
			s->seen = true;
			continue;
		}
		if (!in_report)
			continue;
		if (strstr(msg, "</TASK>")) {
			done = true;
			continue;
		}
		/* a frame: " name+0x1a/0x90 [module]"; " ? name+..." is
		 * a guess of the unwinder's, not a caller
		 */
		p = msg + strspn(msg, " ");
		if (*p == '?' || sscanf(p, "%63[^+ ]", fn) != 1 ||
		    !strstr(p, "+0x"))
			continue;
		if (!s->caller[0] && !is_alloc_frame(fn))
			snprintf(s->caller, sizeof(s->caller), "%s", fn);
		if (!s->in_shoal[0] && strstr(msg, "[shoal]"))
			snprintf(s->in_shoal, sizeof(s->in_shoal), "%s", fn);
	}
}

static void watchdog(int sig)
{
	(void)sig;
	fail_disarm();
	printf("not ok %d - %s, fault site %d: took more than %d s\n",
	       ++tap_n, step_name, step_iter, WATCHDOG_S);
	printf("Bail out! watchdog\n");
	fflush(stdout);
	_exit(1);
}

/* ---- sockets and messages ---- */

static int proto_pl2;		/* the step's protocol: 0 SIRD, 1 PL2 */
static int family;		/* AF_INET or AF_INET6 */

static int sock_new(void)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	int bufsize = 4 << 20;
	char err[256];
	int fd = shoal_socket(family, proto_pl2, err, sizeof(err));

	if (fd < 0) {
		problem("%s", err);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* a message longer than half of SO_RCVBUF is refused */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsize, sizeof(bufsize));
	return fd;
}

static int bind_any(int fd)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	if (family == AF_INET6)
		return bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	return bind(fd, (struct sockaddr *)&a4, sizeof(a4));
}

/* The loopback address of this family, at @fd's port (@port if < 0) */
static socklen_t loop_addr(struct sockaddr_storage *ss, int fd, int port)
{
	struct sockaddr_storage me;
	socklen_t len = sizeof(me);

	if (port < 0) {
		if (getsockname(fd, (struct sockaddr *)&me, &len))
			return 0;
		port = ntohs(((struct sockaddr_in *)&me)->sin_port);
	}
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

/* The server's port at a local address of its own for @k: 127.1.0.0/16
 * and fd00:5::/64 are local (own_netns()), so that each send goes to a
 * host the namespace has no peer state for yet
 */
static void fresh_addr(struct sockaddr_storage *ss, int k)
{
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		inet_pton(AF_INET6, "fd00:5::", &a->sin6_addr);
		a->sin6_addr.s6_addr[14] = (uint8_t)(k >> 8);
		a->sin6_addr.s6_addr[15] = (uint8_t)k;
		return;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_addr.s_addr = htonl(0x7f010000 | (k & 0xffff));
}

/* A message: its tag in the first 4 bytes, then a pattern of the tag */
static void msg_fill(uint32_t tag, size_t len)
{
	size_t i;

	memcpy(sendbuf, &tag, sizeof(tag));
	for (i = sizeof(tag); i < len; i++)
		sendbuf[i] = (char)(i * 7 + tag);
}

static bool msg_intact(uint32_t tag, size_t len, ssize_t got)
{
	size_t i;

	if (got != (ssize_t)len || memcmp(recvbuf, &tag, sizeof(tag)))
		return false;
	for (i = sizeof(tag); i < len; i++)
		if (recvbuf[i] != (char)(i * 7 + tag))
			return false;
	return true;
}

static ssize_t send_args(int fd, const struct sockaddr_storage *to,
			 socklen_t tolen, size_t len,
			 const struct shoal_send_args *args)
{
	return shoal_send_args(fd, to, tolen, sendbuf, len, args, 0);
}

/* recvmsg() of a whole message into recvbuf; @info and @from if asked */
static ssize_t recv_info(int fd, int flags, struct shoal_recv_info *info,
			 struct sockaddr_storage *from)
{
	return shoal_recv_info(fd, recvbuf, LARGE_LEN, flags, info, from,
			       NULL);
}

/* Wait until @fd has @events, at most @ms */
static bool wait_for(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) == 1 && (p.revents & events);
}

/* Read the next message on @fd: it must be @tag, @len bytes, intact */
static bool expect_msg(int fd, uint32_t tag, size_t len, const char *what)
{
	ssize_t n = recv_info(fd, 0, NULL, NULL);
	uint32_t got = 0;

	if (msg_intact(tag, len, n))
		return true;
	if (n >= 4)
		memcpy(&got, recvbuf, sizeof(got));
	if (n < 0)
		problem("%s: not read: %s", what, strerror(errno));
	else
		problem("%s: read %zd bytes tagged %u, wanted %zu tagged %u%s",
			what, n, got, len, tag,
			got == tag ? " (damaged)" : "");
	return false;
}

/* Nothing more to read on @fd for a while */
static void expect_none(int fd, const char *what)
{
	uint32_t got = 0;
	ssize_t n;

	if (!wait_for(fd, POLLIN, ABSENT_MS))
		return;
	n = recv_info(fd, MSG_DONTWAIT, NULL, NULL);
	if (n >= 4)
		memcpy(&got, recvbuf, sizeof(got));
	problem("%s: a message came that should not have (%zd bytes, tag %u)",
		what, n, got);
}

/* ---- one iteration's sockets ---- */

struct pair {
	int srv, cli;
	struct sockaddr_storage to;	/* the server */
	socklen_t tolen;
};

static void pair_close(struct pair *p)
{
	if (p->cli >= 0)
		close(p->cli);
	if (p->srv >= 0)
		close(p->srv);
	p->cli = p->srv = -1;
}

/* A bound server and a bound client */
static bool pair_open(struct pair *p)
{
	p->cli = -1;
	p->srv = sock_new();
	if (p->srv < 0)
		return false;
	if (bind_any(p->srv)) {
		problem("bind: %s", strerror(errno));
		return false;
	}
	p->tolen = loop_addr(&p->to, p->srv, -1);
	p->cli = sock_new();
	if (p->cli < 0)
		return false;
	if (bind_any(p->cli)) {
		problem("bind: %s", strerror(errno));
		return false;
	}
	return true;
}

/* The pair still carries a message each way */
static void pair_works(struct pair *p, uint32_t tag)
{
	struct sockaddr_storage back;
	socklen_t blen = loop_addr(&back, p->cli, -1);

	msg_fill(tag, SMALL_LEN);
	if (send_args(p->cli, &p->to, p->tolen, SMALL_LEN, NULL) !=
	    SMALL_LEN) {
		problem("afterwards, a send to the server: %s", strerror(errno));
		return;
	}
	if (!expect_msg(p->srv, tag, SMALL_LEN, "afterwards, to the server"))
		return;
	msg_fill(tag + 1, SMALL_LEN);
	if (send_args(p->srv, &back, blen, SMALL_LEN, NULL) != SMALL_LEN) {
		problem("afterwards, a send to the client: %s", strerror(errno));
		return;
	}
	expect_msg(p->cli, tag + 1, SMALL_LEN, "afterwards, to the client");
}

/* ---- the steps: each sets up, makes its call with fault site @n
 * armed, and checks; returns whether a failure was injected
 */

struct outcome {
	unsigned long ok, by_errno[4];	/* ENOMEM ENOBUFS ENFILE other */
};

static struct outcome out;

/* Judge a call's result: success, or an errno an allocation failure
 * may give
 */
static bool judge(long ret, int err, const char *call)
{
	if (ret >= 0) {
		out.ok++;
		return true;
	}
	switch (err) {
	case ENOMEM:
		out.by_errno[0]++;
		break;
	case ENOBUFS:
		out.by_errno[1]++;
		break;
	case ENFILE:
		out.by_errno[2]++;
		break;
	default:
		out.by_errno[3]++;
		problem("%s failed with %s, which an allocation failure may not give",
			call, strerror(err));
	}
	return false;
}

/* A server for @p's bound client, and the pair carries messages */
static void server_and_works(struct pair *p, uint32_t tag)
{
	p->srv = sock_new();
	if (p->srv < 0)
		return;
	if (bind_any(p->srv)) {
		problem("the server's bind: %s", strerror(errno));
		return;
	}
	p->tolen = loop_addr(&p->to, p->srv, -1);
	pair_works(p, tag);
}

static bool step_socket(int n)
{
	int proto = shoal_proto_number(proto_pl2), fd, err;
	struct pair p = { .srv = -1, .cli = -1 };
	bool injected;

	/* first in the namespace: the lazy UDP port's start is in reach */
	fail_arm(n);
	fd = socket(family, SOCK_DGRAM, proto);
	err = errno;
	injected = fail_disarm();
	if (!judge(fd, err, "socket()"))
		return injected;
	p.cli = fd;
	if (bind_any(p.cli))
		problem("bind after socket(): %s", strerror(errno));
	else
		server_and_works(&p, 10);
	pair_close(&p);
	return injected;
}

static bool step_bind(int n)
{
	struct pair p = { .srv = -1, .cli = -1 };
	bool injected;
	int ret, err;

	p.cli = sock_new();
	if (p.cli < 0)
		return false;
	fail_arm(n);
	ret = bind_any(p.cli);
	err = errno;
	injected = fail_disarm();
	if (!judge(ret, err, "bind()") && bind_any(p.cli))
		problem("bind() again after a failed one: %s", strerror(errno));
	else
		server_and_works(&p, 20);
	pair_close(&p);
	return injected;
}

/* A failed send's message never comes: the marker sent after it is the
 * only message read
 */
static void send_failed_check(struct pair *p, uint32_t marker)
{
	msg_fill(marker, SMALL_LEN);
	if (send_args(p->cli, &p->to, p->tolen, SMALL_LEN, NULL) !=
	    SMALL_LEN) {
		problem("the marker after a failed send: %s", strerror(errno));
		return;
	}
	if (expect_msg(p->srv, marker, SMALL_LEN,
		       "the marker after a failed send (the failed message must not come)"))
		expect_none(p->srv, "after the marker");
}

static bool step_send(int n, size_t len, uint32_t tag)
{
	struct pair p;
	bool injected;
	ssize_t ret;
	int err;

	if (!pair_open(&p)) {
		pair_close(&p);
		return false;
	}
	fresh_addr(&p.to, n);
	msg_fill(tag, len);
	fail_arm(n);
	ret = send_args(p.cli, &p.to, p.tolen, len, NULL);
	err = errno;
	injected = fail_disarm();
	if (judge(ret, err, "sendmsg()")) {
		if (ret != (ssize_t)len)
			problem("sendmsg() took %zd of %zu bytes", ret, len);
		else if (expect_msg(p.srv, tag, len, "the message sent"))
			expect_none(p.srv, "after the message sent");
	} else {
		send_failed_check(&p, tag + 1);
	}
	pair_works(&p, tag + 2);
	pair_close(&p);
	return injected;
}

static bool step_send_small(int n)
{
	return step_send(n, SMALL_LEN, 40);
}

static bool step_send_large(int n)
{
	return step_send(n, LARGE_LEN, 50);
}

/* The server reads the request and answers; the client reads the
 * response, which names its request.  @n > 0: the response's send has
 * fault site @n armed (a failed one is sent again)
 */
static bool rpc_finish(struct pair *p, uint64_t req_id, int n,
		       bool *injected)
{
	struct shoal_send_args args = { .flags = SHOAL_MSG_RESPONSE };
	struct shoal_recv_info info;
	struct sockaddr_storage from;
	ssize_t ret;
	int err;

	ret = recv_info(p->srv, 0, &info, &from);
	if (!msg_intact(60, SMALL_LEN, ret) ||
	    info.flags != SHOAL_MSG_REQUEST || info.id != req_id) {
		problem("the request: %zd bytes, flags %u, id %s",
			ret, info.flags, info.id == req_id ? "right" : "wrong");
		return false;
	}
	args.reply_to = info.id;
	msg_fill(61, SMALL_LEN);
	if (n > 0)
		fail_arm(n);
	ret = send_args(p->srv, &from, sizeof(from), SMALL_LEN, &args);
	err = errno;
	if (n == 0) {
		if (ret == SMALL_LEN)
			return true;
		problem("the response: %s", strerror(err));
		return false;
	}
	*injected = fail_disarm();
	if (!judge(ret, err, "sendmsg() of the response") &&
	    send_args(p->srv, &from, sizeof(from), SMALL_LEN, &args) !=
	    SMALL_LEN) {
		problem("the response sent again after a failed send: %s",
			strerror(errno));
		return false;
	}
	return true;
}

static bool expect_response(int fd, uint64_t req_id, int flags)
{
	struct shoal_recv_info info;
	ssize_t ret = recv_info(fd, flags, &info, NULL);

	if (msg_intact(61, SMALL_LEN, ret) && info.id == req_id &&
	    info.flags == SHOAL_MSG_RESPONSE)
		return true;
	problem("the response: %zd bytes (%s), flags %u, id %s", ret,
		ret < 0 ? strerror(errno) : "read", info.flags,
		info.id == req_id ? "right" : "wrong");
	return false;
}

static bool send_request(struct pair *p, uint64_t *id, int n,
			 bool *injected)
{
	struct shoal_send_args args = {
		.flags = SHOAL_MSG_REQUEST,
		.id_addr = (uintptr_t)id,
	};
	ssize_t ret;
	int err;

	msg_fill(60, SMALL_LEN);
	if (n > 0)
		fail_arm(n);
	ret = send_args(p->cli, &p->to, p->tolen, SMALL_LEN, &args);
	err = errno;
	if (n > 0)
		*injected = fail_disarm();
	if (n > 0)
		return judge(ret, err, "sendmsg() of a request");
	if (ret != SMALL_LEN)
		problem("a request: %s", strerror(errno));
	return ret == SMALL_LEN;
}

static bool step_request(int n)
{
	bool injected = false;
	struct pair p;
	uint64_t id = 0;

	if (!pair_open(&p))
		goto out;
	fresh_addr(&p.to, n);
	if (send_request(&p, &id, n, &injected)) {
		if (rpc_finish(&p, id, 0, NULL) &&
		    expect_response(p.cli, id, 0))
			expect_none(p.cli, "after the response");
	} else {
		send_failed_check(&p, 62);
	}
	pair_works(&p, 63);
out:
	pair_close(&p);
	return injected;
}

static bool step_response(int n)
{
	bool injected = false;
	struct pair p;
	uint64_t id = 0;

	if (!pair_open(&p) || !send_request(&p, &id, 0, NULL))
		goto out;
	if (rpc_finish(&p, id, n, &injected) &&
	    expect_response(p.cli, id, 0))
		expect_none(p.cli, "after the response (one, however sent)");
	pair_works(&p, 64);
out:
	pair_close(&p);
	return injected;
}

/* recvmsg() on @fd with fault site @n armed, of the message @tag of
 * @len bytes, once it is there: 1 read (and whole), 0 the call failed
 * (the message must be left to the next), -1 it never came
 */
static int faulted_recv(int fd, int n, uint32_t tag, size_t len,
			bool *injected)
{
	ssize_t ret;
	int err;

	if (!wait_for(fd, POLLIN, WAIT_MS)) {
		problem("the message to read did not come");
		return -1;
	}
	fail_arm(n);
	ret = recv_info(fd, MSG_DONTWAIT, NULL, NULL);
	err = errno;
	*injected = fail_disarm();
	if (!judge(ret, err, "recvmsg()"))
		return 0;
	if (!msg_intact(tag, len, ret))
		problem("recvmsg() read %zd bytes, damaged or short", ret);
	return 1;
}

static bool step_recv(int n)
{
	bool injected = false;
	struct pair p;

	if (!pair_open(&p))
		goto out;
	msg_fill(70, LARGE_LEN);
	if (send_args(p.cli, &p.to, p.tolen, LARGE_LEN, NULL) != LARGE_LEN) {
		problem("the message to read: %s", strerror(errno));
		goto out;
	}
	if (!faulted_recv(p.srv, n, 70, LARGE_LEN, &injected))
		expect_msg(p.srv, 70, LARGE_LEN,
			   "the message a failed recvmsg() left");
	expect_none(p.srv, "after the message");
	pair_works(&p, 71);
out:
	pair_close(&p);
	return injected;
}

static bool step_recv_response(int n)
{
	bool injected = false;
	struct pair p;
	uint64_t id = 0;

	if (!pair_open(&p) || !send_request(&p, &id, 0, NULL) ||
	    !rpc_finish(&p, id, 0, NULL))
		goto out;
	if (!faulted_recv(p.cli, n, 61, SMALL_LEN, &injected))
		expect_response(p.cli, id, MSG_DONTWAIT);
	expect_none(p.cli, "after the response");
	pair_works(&p, 72);
out:
	pair_close(&p);
	return injected;
}

/* A message to a port where no socket is fails (ECONNREFUSED); its
 * report is read with fault site @n armed
 */
static bool step_errqueue(int n)
{
	struct shoal_recv_info info;
	struct sockaddr_storage nowhere;
	bool injected = false;
	socklen_t len;
	struct pair p;
	ssize_t ret;
	int err;

	if (!pair_open(&p))
		goto out;
	len = loop_addr(&nowhere, p.cli, 9);
	msg_fill(80, SMALL_LEN);
	if (send_args(p.cli, &nowhere, len, SMALL_LEN, NULL) != SMALL_LEN) {
		problem("the message to nowhere: %s", strerror(errno));
		goto out;
	}
	if (!wait_for(p.cli, POLLERR, WAIT_MS)) {
		problem("no error report for the message to nowhere");
		goto out;
	}
	fail_arm(n);
	ret = recv_info(p.cli, MSG_ERRQUEUE | MSG_DONTWAIT, &info, NULL);
	err = errno;
	injected = fail_disarm();
	if (!judge(ret, err, "recvmsg(MSG_ERRQUEUE)"))
		ret = recv_info(p.cli, MSG_ERRQUEUE | MSG_DONTWAIT, &info,
				NULL);
	if (ret < 0 || info.error != ECONNREFUSED)
		problem("the error report: %s, error %d",
			ret < 0 ? strerror(errno) : "read", info.error);
	pair_works(&p, 81);
out:
	pair_close(&p);
	return injected;
}

/* close() of a client whose large message the server has not read */
static bool step_close(int n)
{
	bool injected = false;
	struct pair p;
	int ret, err;

	if (!pair_open(&p))
		goto out;
	msg_fill(90, LARGE_LEN);
	if (send_args(p.cli, &p.to, p.tolen, LARGE_LEN, NULL) != LARGE_LEN) {
		problem("the message in flight: %s", strerror(errno));
		goto out;
	}
	fail_arm(n);
	ret = close(p.cli);
	err = errno;
	injected = fail_disarm();
	p.cli = -1;
	if (ret)
		problem("close() failed: %s", strerror(err));
out:
	pair_close(&p);
	return injected;
}

static const struct step {
	const char *name;
	bool (*run)(int n);
	bool reaches_shoal;	/* some site must be shoal.ko's */
} steps[] = {
	{ "socket", step_socket, false },
	{ "bind", step_bind, false },
	{ "send", step_send_small, true },
	{ "send-large", step_send_large, true },
	{ "request", step_request, true },
	{ "response", step_response, true },
	{ "recv", step_recv, false },
	{ "recv-response", step_recv_response, false },
	{ "errqueue", step_errqueue, false },
	{ "close", step_close, false },
};

#define NSTEPS	(sizeof(steps) / sizeof(steps[0]))

/* ---- the campaign ---- */

static unsigned long total_sites, total_shoal_sites, total_unseen;

static void run_step(const struct step *st)
{
	struct fn_count fns[FUNCS_MAX];
	int nfns = 0, i, sites = 0, shoal_sites = 0, unseen = 0, tenths;
	char left[512], list[1024];
	struct site s;
	bool injected;

	snprintf(step_name, sizeof(step_name), "%s %s %s",
		 proto_pl2 ? "pl2" : "sird",
		 family == AF_INET6 ? "ipv6" : "ipv4", st->name);
	step_problems = 0;
	memset(&out, 0, sizeof(out));
	for (step_iter = 1; step_iter <= SITES_MAX; step_iter++) {
		kmsg_read(NULL);
		alarm(WATCHDOG_S);
		injected = st->run(step_iter);
		alarm(0);
		if (shoal_objects_settle(left, sizeof(left), &tenths) != 1)
			problem("shoal.ko's objects not back to 0 once the sockets closed:%s",
				left);
		if (!injected)
			break;
		sites++;
		kmsg_read(&s);
		if (!s.seen) {
			unseen++;
			continue;
		}
		if (s.in_shoal[0]) {
			shoal_sites++;
			fn_add(fns, &nfns, s.in_shoal);
			fn_add(shoal_fns, &n_shoal_fns, s.in_shoal);
		} else {
			fn_add(other_fns, &n_other_fns,
			       s.caller[0] ? s.caller : "?");
		}
		if (verbose)
			printf("# %s site %d: %s (in shoal.ko: %s)\n", step_name,
			       step_iter, s.caller, s.in_shoal[0] ? s.in_shoal : "-");
	}
	if (step_iter > SITES_MAX)
		problem("more than %d fault sites: the call never ran through",
			SITES_MAX);
	total_sites += sites;
	total_shoal_sites += shoal_sites;
	total_unseen += unseen;
	list[0] = 0;
	for (i = 0; i < nfns; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%.63s %lu", i ? ", " : "", fns[i].name, fns[i].n);
	printf("# %s: %d fault sites, %d under shoal.ko (%s); the call succeeded %lu times, ENOMEM %lu, ENOBUFS %lu, ENFILE %lu, other %lu\n",
	       step_name, sites, shoal_sites, nfns ? list : "none", out.ok,
	       out.by_errno[0], out.by_errno[1], out.by_errno[2],
	       out.by_errno[3]);
	if (st->reaches_shoal && !shoal_sites && !dry)
		problem("no injected failure was under shoal.ko's functions");
	if (unseen)	/* __GFP_NOWARN allocations are failed silently */
		printf("# %s: %d of the failures left no report (allocations that asked for no warning)\n",
		       step_name, unseen);
	if (dry) {
		tap(!step_problems,
		    "%s, nothing injected: the call and what it is for hold, objects back to 0",
		    step_name);
		return;
	}
	if (!sites) {	/* a call that allocates nothing in the task */
		tap(!step_problems,
		    "%s: the call allocates nothing (no fault site), and what it is for holds",
		    step_name);
		return;
	}
	tap(!step_problems,
	    "%s: each of its %d allocations failed in turn (%d under shoal.ko): the call succeeded or gave ENOMEM/ENOBUFS/ENFILE, messages read once and intact or never, the sockets still work, objects back to 0",
	    step_name, sites, shoal_sites);
}

/* A namespace of our own, and addresses for fresh_addr() */
static void setup_netns(void)
{
	own_netns();
	/* 127/8 is local already */
	if (system("ip -6 route add local fd00:5::/64 dev lo")) {
		printf("Bail out! ip -6 route add local fd00:5::/64 dev lo failed\n");
		exit(1);
	}
}

static void usage(void)
{
	size_t i;

	fprintf(stderr, "usage: shoal_failnth [-v] [-d] [STEP...]\nsteps:");
	for (i = 0; i < NSTEPS; i++)
		fprintf(stderr, " %s", steps[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

static void print_fns(const char *what, struct fn_count *t, int n)
{
	int i;

	printf("# %s:", what);
	for (i = 0; i < n; i++)
		printf(" %s %lu", t[i].name, t[i].n);
	printf("%s\n", n ? "" : " none");
}

int main(int argc, char **argv)
{
	bool want[NSTEPS] = { false }, any = false;
	int a, pi, fi, opt;
	size_t i;

	while ((opt = getopt(argc, argv, "vd")) != -1) {
		if (opt == 'v')
			verbose = true;
		else if (opt == 'd')
			dry = true;
		else
			usage();
	}
	for (a = optind; a < argc; a++) {
		for (i = 0; i < NSTEPS; i++)
			if (!strcmp(argv[a], steps[i].name))
				break;
		if (i == NSTEPS)
			usage();
		want[i] = any = true;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fail_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_fd < 0 && !dry) {
		printf("Bail out! /proc/thread-self/fail-nth: %s (a kernel with CONFIG_FAULT_INJECTION: make check-debug)\n",
		       strerror(errno));
		return 1;
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd < 0 || lseek(kmsg_fd, 0, SEEK_END) < 0) {
		printf("Bail out! /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	/* touched now, so that no page fault of ours meets a failure */
	sendbuf = calloc(1, LARGE_LEN);
	recvbuf = calloc(1, LARGE_LEN);
	if (!sendbuf || !recvbuf)
		return 1;
	memset(sendbuf, 1, LARGE_LEN);
	memset(recvbuf, 1, LARGE_LEN);
	setup_netns();
	signal(SIGALRM, watchdog);
	signal(SIGPIPE, SIG_IGN);

	for (pi = 0; pi < 2; pi++)
		for (fi = 0; fi < 2; fi++)
			for (i = 0; i < NSTEPS; i++) {
				if (any && !want[i])
					continue;
				proto_pl2 = pi;
				family = fi ? AF_INET6 : AF_INET;
				run_step(&steps[i]);
			}
	printf("# in all: %lu allocations failed, %lu of them under shoal.ko's functions, %lu without a report (__GFP_NOWARN)\n",
	       total_sites, total_shoal_sites, total_unseen);
	print_fns("shoal.ko's functions under which an allocation failed (times)",
		  shoal_fns, n_shoal_fns);
	print_fns("the allocating callers of the others (times)", other_fns,
		  n_other_fns);
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
